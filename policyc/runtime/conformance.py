"""Conformance of a proposed call to the declared tool signatures (the SAAG stages).

Registry conformance (is the tool declared? if not, the nearest declared name), structural
completeness (missing required arguments, unknown or misspelled ones) and argument types.
Each problem is a `Finding` of kind `conformance` with the policy's `conformance` severity
(default `warn`).

>>> from policyc.ir.policy import Policy
>>> from policyc.ir.types import STR, Param, ToolSignature
>>> p = Policy("p", None, {"search": ToolSignature("search", (Param("query", STR),), STR)}, ())
>>> [f.detail for f in ConformanceChecker(p).check("serch", {})]
['`serch` is not a declared tool; did you mean `search`?']
>>> [f.detail for f in ConformanceChecker(p).check("search", {"qeury": 3})]
['`search` is missing its required argument `query`', '`search` has no argument `qeury`; did you mean `query`?']
"""

from __future__ import annotations

import difflib
from typing import Any, Mapping

from policyc.ir.policy import Policy
from policyc.ir.types import value_problems
from policyc.runtime.findings import CONFORMANCE, Finding


def _nearest(word: str, names) -> str | None:
    pool = sorted(names)
    folded = {n.lower(): n for n in pool}
    if word.lower() in folded:
        return folded[word.lower()]
    match = difflib.get_close_matches(word.lower(), list(folded), n=1, cutoff=0.6)
    return folded[match[0]] if match else None


class ConformanceChecker:
    """Checks calls against one policy's tool signatures."""

    def __init__(self, policy: Policy):
        self.tools = policy.tools
        self.severity = policy.conformance.kind
        self.limit = policy.conformance.limit

    def check(self, tool: str, args: Mapping[str, Any]) -> list[Finding]:
        """The conformance findings of a call, in SAAG stage order (empty when it conforms)."""
        sig = self.tools.get(tool)
        if sig is None:
            near = _nearest(tool, self.tools)
            hint = f"; did you mean `{near}`?" if near else ""
            return [self._finding("unknown tool", f"`{tool}` is not a declared tool{hint}")]
        out = []
        for p in sig.params:
            if p.required and p.name not in args:
                out.append(self._finding("missing argument", f"`{tool}` is missing its required argument `{p.name}`"))
        names = [p.name for p in sig.params]
        for name, value in args.items():
            param = sig.param(name)
            if param is None:
                near = _nearest(name, [n for n in names if n not in args])
                hint = f"; did you mean `{near}`?" if near else ""
                out.append(self._finding("unknown argument", f"`{tool}` has no argument `{name}`{hint}"))
                continue
            for problem in value_problems(value, param.type, name):
                out.append(self._finding("wrong type", f"`{tool}`: {problem}"))
        return out

    def _finding(self, stage: str, detail: str) -> Finding:
        return Finding(f"conformance/{stage}", CONFORMANCE, "conformance", self.severity, self.limit, detail)
