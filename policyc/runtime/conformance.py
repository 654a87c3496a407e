"""Conformance of a proposed call: the SAAG cascade, as the gate's findings.

The checks are `policyc.saag.cascade`'s, halting at the first stage that fails: registry
(is the tool declared? if not, the nearest declared name), structure (missing required
arguments, drifted or spurious ones), type, and, when the run has a context (the user's
request: `monitor.start(context=...)` or `run.set_context(...)`), argument grounding. Each
problem becomes a `Finding` of kind `conformance`, enforced with the policy's `conformance`
severity (default `warn`); its `detail` says what is wrong and its `message` is SAAG's
correction ψ for the stage (the text the agent reads: templated, deterministic, quoting no
value).

A call is grounded in the run's context followed by the results of the calls the run has
recorded (what the agent has seen). A terminal tool's arguments are the agent's answer,
not values taken from the request, so they are not grounded here (the policy's grounding
rules judge answers).

>>> from policyc.ir.policy import Policy
>>> from policyc.ir.types import STR, Param, ToolSignature
>>> p = Policy("p", None, {"search": ToolSignature("search", (Param("query", STR),), STR)}, ())
>>> (f,) = ConformanceChecker(p).check("serch", {})
>>> f.rule, f.detail
('conformance/unknown-tool', 'unknown tool `serch` (did you mean `search`?)')
>>> [f.rule for f in ConformanceChecker(p).check("search", {"query": "cats"}, context="Tell me about dogs.")]
['conformance/ungrounded-value']
"""

from __future__ import annotations

import json
from typing import Any, Mapping, Sequence

from policyc.ir.ops import UNDEF
from policyc.ir.policy import Policy
from policyc.runtime.findings import CONFORMANCE, Finding
from policyc.saag.cascade import assess
from policyc.saag.corrections import correction
from policyc.saag.metrics import numbers_in
from policyc.trace.conformance import Signatures


class ConformanceChecker:
    """Checks proposed calls against one policy's tool signatures (and the run's context)."""

    def __init__(self, policy: Policy):
        self.tools = policy.tools
        self.terminal = frozenset(policy.terminal_tools)
        self.severity = policy.conformance.kind
        self.limit = policy.conformance.limit
        self.signatures = Signatures(self.tools)
        self.conforms = self.signatures.conforms

    def check(self, tool: str, args: Mapping[str, Any], calls: Sequence[object] = (),
              context: str | None = None, grounding: "GroundingQuery | None" = None) -> list[Finding]:
        """The conformance findings of a call, in SAAG stage order (empty when it conforms).
        `grounding`: the run's grounding text kept as it goes (`GroundingQuery`), read instead
        of rebuilding it from `context` and `calls`."""
        query, numbers = None, None
        if context is not None and tool not in self.terminal:
            if grounding is not None and grounding.context == context:
                query, numbers = grounding.read(calls)
            else:
                query = grounding_text(context, calls)
        if query is None and self.conforms(tool, args):
            return []
        assessment = assess(tool, args, self.tools, query, numbers)
        if not assessment.problems:
            return []
        psi = correction(assessment)
        return [Finding(f"conformance/{p.code}", CONFORMANCE, "conformance", self.severity, self.limit, str(p),
                        message=psi) for p in assessment.problems]


class GroundingQuery:
    """A run's grounding text (`grounding_text`) and its numbers, extended as results are
    recorded instead of rebuilt at every proposal: the numbers of the text are those of its
    parts (a number token never spans the line break between two parts).

    >>> from policyc.trace.model import Call
    >>> kept = GroundingQuery("Pay 12 EUR.")
    >>> calls = [Call("bill", {}, {"total": 12.5}, 0)]
    >>> text, numbers = kept.read(calls)
    >>> text == grounding_text("Pay 12 EUR.", calls), sorted(numbers)
    (True, [12.0, 12.5])
    """

    __slots__ = ("context", "parts", "numbers", "seen", "_text", "_frozen")

    def __init__(self, context: str):
        self.context = context
        self.parts = [context]
        self.numbers = set(numbers_in(context))
        self.seen = 0  # calls read so far
        self._text: str | None = context
        self._frozen: frozenset[float] | None = None

    def read(self, calls: Sequence[object]) -> tuple[str, frozenset[float]]:
        """(the grounding text of the context and these calls, its numbers); `calls` is the
        run's list of recorded calls, which only grows."""
        if len(calls) < self.seen:  # not this run's calls: read them afresh
            return grounding_text(self.context, calls), numbers_in(grounding_text(self.context, calls))
        for call in calls[self.seen:]:
            part = _result_text(call)
            if part is not None:
                self.parts.append(part)
                self.numbers.update(numbers_in(part))
                self._text = self._frozen = None
        self.seen = len(calls)
        if self._text is None:
            self._text = "\n".join(self.parts)
        if self._frozen is None:
            self._frozen = frozenset(self.numbers)
        return self._text, self._frozen


def _result_text(call: Any) -> str | None:
    result = getattr(call, "result", UNDEF)
    if result is UNDEF or result is None:
        return None
    return result if isinstance(result, str) else json.dumps(result, ensure_ascii=False, default=str)


def grounding_text(context: str, calls: Sequence[object]) -> str:
    """The text a proposed call's values are grounded in: the context, then each recorded result.

    >>> from policyc.trace.model import Call
    >>> grounding_text("Find cats.", [Call("search", {}, ["cats.txt", 3], 0)])
    'Find cats.\\n["cats.txt", 3]'
    """
    parts = [context]
    for call in calls:
        part = _result_text(call)
        if part is not None:
            parts.append(part)
    return "\n".join(parts)
