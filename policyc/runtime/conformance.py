"""Conformance of a proposed call to the declared tool signatures (the SAAG stages).

The checks are `policyc.trace.conformance.check_call`: registry (is the tool declared? if
not, the nearest declared name), structure (missing required arguments, unknown or
misspelled ones) and type. Here each problem becomes a `Finding` of kind `conformance`,
enforced with the policy's `conformance` severity (default `warn`).

>>> from policyc.ir.policy import Policy
>>> from policyc.ir.types import STR, Param, ToolSignature
>>> p = Policy("p", None, {"search": ToolSignature("search", (Param("query", STR),), STR)}, ())
>>> [(f.rule, f.detail) for f in ConformanceChecker(p).check("serch", {})]
[('conformance/unknown-tool', 'unknown tool `serch` (did you mean `search`?)')]
"""

from __future__ import annotations

from typing import Any, Mapping

from policyc.ir.policy import Policy
from policyc.runtime.findings import CONFORMANCE, Finding
from policyc.trace.conformance import check_call


class ConformanceChecker:
    """Checks proposed calls against one policy's tool signatures."""

    def __init__(self, policy: Policy):
        self.tools = policy.tools
        self.severity = policy.conformance.kind
        self.limit = policy.conformance.limit

    def check(self, tool: str, args: Mapping[str, Any]) -> list[Finding]:
        """The conformance findings of a call, in SAAG stage order (empty when it conforms)."""
        return [Finding(f"conformance/{f.code}", CONFORMANCE, "conformance", self.severity, self.limit, str(f))
                for f in check_call(tool, args, self.tools)]
