"""Enforcement modes, as the AgentLTL paper's appendix A.5.3 and §4.2 define them.

`enforce` is a pure function: the run's enforcement state, the proposed call's identity
and the gate's findings in; the action and the next state out.

- tolerate: logged, the call runs;
- warn: the call runs and the agent is told;
- block (BLOCK_AND_WARN): not executed, the agent gets a warning. If the very next proposal
  is byte-identical (same tool, same arguments) it is a deliberate override and runs, provided
  nothing stronger than block-and-warn is found against it (the retry is judged too); any
  other proposal is judged afresh;
- deny: not executed, every time it is proposed; no retry overrides it (users of Cedar or
  OPA read `deny` as final, and it is);
- soft_block(n) (SOFT_BLOCK): not executed, the agent gets a structured error; the n-th
  refusal by the same rule stops the run;
- stop (HARD_STOP): not executed, the run halts.

When one call breaks several rules, the strongest severity decides.

>>> from policyc.runtime.findings import Finding
>>> f = Finding("r", "violation", None, "block", None, "broken")
>>> first = enforce(EnforcementState(), "k", [f], None)
>>> first.action, enforce(first.state, "k", [f], None).action, enforce(first.state, "other", [f], None).action
('block', 'warn', 'block')
>>> d = Finding("r", "violation", None, "deny", None, "broken")
>>> first = enforce(EnforcementState(), "k", [d], None)
>>> first.action, enforce(first.state, "k", [d], None).action        # the identical retry is refused too
('block', 'block')
>>> forged = EnforcementState(override="k")                            # whatever state claims an override
>>> enforce(forged, "k", [d], None).action, enforce(forged, "k", [d], "tolerate").action
('block', 'block')
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from policyc.runtime.findings import SEVERITY_RANK, Finding, effective_severity

_ACTION = MappingProxyType({"tolerate": "allow", "warn": "warn", "block": "block", "deny": "block",
                            "soft_block": "block", "stop": "stop"})


@dataclass(frozen=True, slots=True)
class EnforcementState:
    """What enforcement remembers between proposals (JSON-serialisable through `to_json`)."""

    soft_blocks: tuple[tuple[str, int], ...] = ()   # refusals so far per soft_block rule
    override: str | None = None                     # identity of the last block-and-warn refusal
    stopped: str | None = None                      # why the run was stopped, once it is

    def refusals(self, rule: str) -> int:
        return dict(self.soft_blocks).get(rule, 0)

    def to_json(self) -> dict[str, object]:
        return {"soft_blocks": dict(self.soft_blocks), "override": self.override, "stopped": self.stopped}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "EnforcementState":
        return cls(tuple(sorted(data.get("soft_blocks", {}).items())), data.get("override"), data.get("stopped"))


@dataclass(frozen=True, slots=True)
class Judged:
    """A finding with the severity it is enforced with."""

    finding: Finding
    severity: str
    limit: int | None


@dataclass(frozen=True, slots=True)
class Outcome:
    action: str                                  # allow, warn, block or stop
    state: EnforcementState
    judged: tuple[Judged, ...] = ()
    severity: str | None = None                  # the deciding severity
    override: bool = False                       # an identical retry after a block-and-warn
    escalated: bool = False                      # a soft_block ran out of refusals
    attempts: tuple[tuple[str, int, int], ...] = field(default=())  # soft_block: (rule, refusal, limit)

    @property
    def executes(self) -> bool:
        return self.action in ("allow", "warn")


def enforce(state: EnforcementState, identity: str | None, findings: list[Finding], mode: str | None) -> Outcome:
    """Decide what happens to a proposed call with these findings (every finding of the call,
    an identical retry's too).

    The severities are read first: an identical retry overrides a refusal only when the
    strongest of its own findings is block-and-warn, so `deny` (and soft blocks and stops)
    hold whatever the state says is pending and whatever the run-wide mode."""
    judged = tuple(Judged(f, *effective_severity(f, mode)) for f in findings)
    strongest = max((j.severity for j in judged), key=SEVERITY_RANK.__getitem__) if judged else None
    if state.override is not None:
        retry = identity is not None and state.override == identity
        state = EnforcementState(state.soft_blocks, None, state.stopped)
        if retry and strongest == "block":
            return Outcome("warn", state, severity="block", override=True)
    if strongest is None:
        return Outcome("allow", state)
    action, escalated, attempts = _ACTION[strongest], False, []
    if strongest == "soft_block":
        counts = dict(state.soft_blocks)
        for j in judged:
            if j.severity == "soft_block":
                counts[j.finding.rule] = counts.get(j.finding.rule, 0) + 1
                attempts.append((j.finding.rule, counts[j.finding.rule], j.limit or 1))
                escalated |= counts[j.finding.rule] >= (j.limit or 1)
        state = EnforcementState(tuple(sorted(counts.items())), state.override, state.stopped)
        action = "stop" if escalated else "block"
    if strongest == "block":
        state = EnforcementState(state.soft_blocks, identity, state.stopped)
    if action == "stop":
        decider = next(j for j in judged if j.severity == strongest)
        state = EnforcementState(state.soft_blocks, state.override, f"rule `{decider.finding.rule}`"
                                 if decider.finding.kind != "conformance" else "a conformance finding")
    return Outcome(action, state, judged, strongest, escalated=escalated, attempts=tuple(attempts))


def after_record(state: EnforcementState) -> EnforcementState:
    """A call ran: an override must be the very next proposal, so any pending one lapses."""
    return EnforcementState(state.soft_blocks, None, state.stopped) if state.override is not None else state
