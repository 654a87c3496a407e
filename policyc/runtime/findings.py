"""What the gate found wrong with a proposed call, before any enforcement mode applies.

A `Finding` is one reason to act: a rule whose violation the call makes certain, a rule a
final answer would leave unmet, a set of rules no continuation can satisfy together, or a
call that does not match its tool's signature. Each carries the severity the policy gives
it; `effective_severity` applies a run-wide mode on top.

>>> f = Finding("search_first", "violation", "L3", "block", None, "`final_answer` before any `search`")
>>> effective_severity(f, None), effective_severity(f, "soft"), effective_severity(f, "tolerate")
(('block', None), ('soft_block', 3), ('tolerate', None))
>>> denied = Finding("no_delete", "violation", None, "deny", None, "`delete` is never allowed")
>>> effective_severity(denied, "tolerate"), effective_severity(denied, "stop")   # a mode never weakens deny
(('deny', None), ('stop', None))
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Mapping

#: Severities, mildest first (appendix A.5.3: TOLERATE, warn, BLOCK_AND_WARN, SOFT_BLOCK, HARD_STOP),
#: with `deny` (refused every time, never overridden) between BLOCK_AND_WARN and SOFT_BLOCK.
SEVERITY_ORDER: tuple[str, ...] = ("tolerate", "warn", "block", "deny", "soft_block", "stop")
SEVERITY_RANK: Mapping[str, int] = MappingProxyType({kind: i for i, kind in enumerate(SEVERITY_ORDER)})

#: Run-wide modes (replay, experiments) and the severity each imposes on every rule.
MODES: Mapping[str, str] = MappingProxyType(
    {"tolerate": "tolerate", "warn": "warn", "block": "block", "soft": "soft_block", "stop": "stop"})
DEFAULT_SOFT_LIMIT = 3

#: Finding kinds.
VIOLATION = "violation"      # the rule's violation is certain once the call runs
OWED = "owed"                # a final answer now would leave the rule unmet
CONFLICT = "conflict"        # the rules can each still hold, but not all together
CONFORMANCE = "conformance"  # the call does not match its tool's signature
UNDECIDED = "undecided"      # whether the call leaves the rules satisfiable was not decided (`undecided refuse`)


@dataclass(frozen=True, slots=True)
class GatedRule:
    """What the gate needs to know of a rule to report on it."""

    name: str
    layer: str | None
    severity: str
    limit: int | None
    message: str | None


@dataclass(frozen=True, slots=True)
class Finding:
    rule: str             # the rule's name; "conformance" for signature findings
    kind: str             # VIOLATION, OWED, CONFLICT or CONFORMANCE
    layer: str | None
    severity: str         # one of SEVERITY_ORDER, as the policy sets it
    limit: int | None     # soft_block(n)
    detail: str           # what is wrong, one sentence
    rules: tuple[str, ...] = ()   # CONFLICT: the rules that can no longer all hold
    message: str | None = None    # the rule's own message for the agent, if it has one
    owed: tuple[str, ...] = ()    # OWED / VIOLATION: calls that would still satisfy the rule

    def to_json(self) -> dict[str, object]:
        return {"rule": self.rule, "kind": self.kind, "layer": self.layer, "severity": self.severity,
                "limit": self.limit, "detail": self.detail, "rules": list(self.rules),
                "message": self.message, "owed": list(self.owed)}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "Finding":
        return cls(data["rule"], data["kind"], data.get("layer"), data["severity"], data.get("limit"),
                   data["detail"], tuple(data.get("rules", ())), data.get("message"), tuple(data.get("owed", ())))


@dataclass(frozen=True, slots=True)
class Open:
    """What the gate could not decide about a call: one line for the decision, and the rules
    it concerns (the policy's `undecided` setting says whether they refuse the call).
    `about`: the rule every conflict it leaves open holds ("" when none in particular);
    `ceiling`: the strongest severity such a conflict could be enforced with ("" when not
    bounded; `Gate._ceiling`): rules stronger than it refuse no more than it."""

    text: str
    rules: tuple[str, ...]
    about: str = ""
    ceiling: str = ""


def effective_severity(finding: Finding, mode: str | None) -> tuple[str, int | None]:
    """The severity a finding is enforced with: the policy's, or the run-wide mode's.

    A mode applies to rule findings; conformance keeps the policy's `conformance` setting.
    A mode may make a `deny` rule stricter (soft, stop), never milder: it stays `deny`.
    """
    if mode is None or finding.kind == CONFORMANCE:
        kind, limit = finding.severity, finding.limit
    else:
        kind, limit = MODES[mode], finding.limit
        if finding.severity == "deny" and SEVERITY_RANK[kind] < SEVERITY_RANK["deny"]:
            kind = "deny"
    if kind == "soft_block":
        return kind, limit or DEFAULT_SOFT_LIMIT
    return kind, None


def mildest(severities: list[tuple[str, int | None]]) -> tuple[str, int | None]:
    """The mildest of several severities (for a conflict: the agent may pick which rule breaks).

    >>> mildest([("stop", None), ("soft_block", 2), ("block", None)])
    ('block', None)
    """
    return min(severities, key=lambda s: SEVERITY_RANK[s[0]])
