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
import math
from typing import Any, Mapping, Sequence

from policyc.ir.ops import UNDEF
from policyc.ir.policy import Policy
from policyc.runtime.findings import CONFORMANCE, Finding
from policyc.saag import metrics as m
from policyc.saag.cascade import Assessment, assess, check_grounding
from policyc.saag.corrections import correction
from policyc.trace.conformance import Signatures

_NO_NUMBERS: frozenset[float] = frozenset()


class ConformanceChecker:
    """Checks proposed calls against one policy's tool signatures (and the run's context,
    unless the policy checks the signatures alone: `conformance ... signatures only`)."""

    def __init__(self, policy: Policy):
        self.tools = policy.tools
        self.grounds = policy.ground_arguments
        self.terminal = frozenset(policy.terminal_tools)
        self.severity = policy.conformance.kind
        self.limit = policy.conformance.limit
        self.signatures = Signatures(self.tools)
        self.conforms = self.signatures.conforms

    def check(self, tool: str, args: Mapping[str, Any], calls: Sequence[object] = (),
              context: str | None = None, grounding: "GroundingQuery | None" = None, *,
              conforms: bool = False) -> list[Finding]:
        """The conformance findings of a call, in SAAG stage order (empty when it conforms).
        `grounding`: the run's grounding text kept as it goes (`GroundingQuery`), read instead
        of rebuilding it from `context` and `calls`; `conforms`: the caller knows that the call
        passes `Signatures.conforms` (True), or does not (False: it is asked).

        A call that passes registry, structure and type (`Signatures.conforms`) goes straight
        to grounding, and a call whose every value is found exactly in the text is done there:
        the cascade would pass it with nothing to correct."""
        if context is None or tool in self.terminal or not self.grounds:
            if conforms or self.conforms(tool, args):
                return []
            assessment = assess(tool, args, self.tools)
        else:
            kept = grounding if grounding is not None and grounding.context == context else GroundingQuery(context)
            kept = kept.current(calls)
            if conforms or self.conforms(tool, args):
                if all(kept.matches(value) for value in args.values()):
                    return []
                # the text's numbers are asked one by one, reading parts only until each is found
                stage = check_grounding(tool, args, self.tools, kept.text(), _KeptNumbers(kept), kept.lowered())
                assessment = Assessment(tool, dict(args), (stage,), True)
            else:
                assessment = assess(tool, args, self.tools, kept.text(), kept.numbers(), kept.lowered())
        problems = assessment.problems  # a property, read once
        if not problems:
            return []
        psi = correction(assessment)
        return [Finding(f"conformance/{p.code}", CONFORMANCE, "conformance", self.severity, self.limit, str(p),
                        message=psi) for p in problems]


class GroundingQuery:
    """A run's grounding text (`grounding_text`), kept as results are recorded instead of
    rebuilt at every proposal: the text and its lowercase form grow by a part per result, and
    the numbers of a part are read only when a proposed number is not among those read so far
    (the numbers of the text are those of its parts: a number token never spans the line break
    between two parts; and lowercasing, which looks at neighbouring letters only for a final
    sigma, stops at a line break too).

    >>> from policyc.trace.model import Call
    >>> kept = GroundingQuery("Pay 12 EUR.")
    >>> calls = [Call("bill", {}, {"total": 12.5}, 0)]
    >>> text, numbers = kept.read(calls)
    >>> text == grounding_text("Pay 12 EUR.", calls), sorted(numbers)
    (True, [12.0, 12.5])
    >>> kept.matches("eur"), kept.matches([12, 12.5]), kept.matches(13)
    (True, True, False)
    """

    __slots__ = ("context", "parts", "lowered_parts", "seen", "scanned", "found", "_text", "_lowered", "_frozen")

    def __init__(self, context: str):
        self.context = context
        self.parts = [context]
        self.lowered_parts = [context.lower()]
        self.seen = 0  # calls read so far
        self.scanned = 0  # parts whose numbers are in `found`
        self.found: set[float] = set()
        self._text: str | None = context
        self._lowered: str | None = self.lowered_parts[0]
        self._frozen: frozenset[float] | None = None

    def take(self, calls: Sequence[object]) -> None:
        """Add the results of the calls recorded since the last reading; `calls` is the run's
        list of recorded calls, which only grows."""
        if len(calls) == self.seen:
            return
        for call in calls[self.seen:]:
            part = _result_text(call)
            if part is not None:
                self.parts.append(part)
                self.lowered_parts.append(part.lower())
                self._text = self._lowered = self._frozen = None
        self.seen = len(calls)

    def text(self) -> str:
        if self._text is None:
            self._text = "\n".join(self.parts)
        return self._text

    def lowered(self) -> str:
        """`text().lower()`, made of the parts lowercased one by one."""
        if self._lowered is None:
            self._lowered = "\n".join(self.lowered_parts)
        return self._lowered

    def has_number(self, x: float) -> bool:
        """Whether `x` is a number of the text (`metrics.numbers_in`), reading parts only until
        it is found."""
        found = self.found
        if x in found:
            return True
        parts = self.parts
        while self.scanned < len(parts):
            found.update(m.numbers_in(parts[self.scanned]))
            self.scanned += 1
            if x in found:
                return True
        return False

    def numbers(self) -> frozenset[float]:
        """The numbers of the whole text."""
        if self._frozen is None:
            for part in self.parts[self.scanned:]:
                self.found.update(m.numbers_in(part))
            self.scanned = len(self.parts)
            self._frozen = frozenset(self.found)
        return self._frozen

    def matches(self, value: Any) -> bool:
        """`metrics.exact_match(value, text())`, reading numbers only as far as needed."""
        kind = m.value_kind(value)
        if kind == m.STRING:  # a string is looked for in the lowercase text alone: the text is not joined
            lowered = self.lowered()
            return m.exact_match(value, lowered, _NO_NUMBERS, lowered)
        if kind == m.NUMBER:
            return math.isfinite(value) and self.has_number(float(value))
        if kind == m.LIST:
            return all(self.matches(v) for v in m.leaves(value))
        return False

    def current(self, calls: Sequence[object]) -> "GroundingQuery":
        """The query of the context and these calls: this one with the calls recorded since
        taken in (`calls` is the run's list of recorded calls, which only grows), or a fresh one
        when they are not this run's."""
        if len(calls) < self.seen:
            fresh = GroundingQuery(self.context)
            fresh.take(calls)
            return fresh
        self.take(calls)
        return self

    def read(self, calls: Sequence[object]) -> tuple[str, frozenset[float]]:
        """(the grounding text of the context and these calls, its numbers)."""
        kept = self.current(calls)
        return kept.text(), kept.numbers()


class _KeptNumbers:
    """The numbers of a kept grounding text as a container: `x in numbers` is
    `kept.has_number(x)`, so a number is looked for only as far as needed and the set of the
    text's numbers is never copied."""

    __slots__ = ("kept",)

    def __init__(self, kept: GroundingQuery):
        self.kept = kept

    def __contains__(self, x: object) -> bool:
        return isinstance(x, float) and self.kept.has_number(x)


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
