"""policyc: compiler and runtime for AgentLTL policies.

The names most programs need, importable from here; each loads its module on first use, so
`import policyc` stays light and a deployed gate that uses only `Monitor` never loads the
compiler:

>>> from policyc import Monitor, PolicyError, compile_file
>>> run = Monitor(compile_file("examples/code_qa.altl")).start()
>>> run.propose("final_answer", {"answer": "in src/api.py"}).action
'block'
"""

from __future__ import annotations

import importlib

__version__ = "0.1.0"

#: public name -> the module that defines it
_EXPORTS = {
    "check_file": "policyc.check",
    "check_text": "policyc.check",
    "compile_file": "policyc.artifact.build",
    "build_artifact": "policyc.artifact.build",
    "Monitor": "policyc.runtime",
    "PolicyError": "policyc.diagnostics",
    "Diagnostic": "policyc.diagnostics",
}

__all__ = ["__version__", *_EXPORTS]


def __getattr__(name: str):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'policyc' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)


def __dir__() -> list[str]:
    return sorted(__all__)
