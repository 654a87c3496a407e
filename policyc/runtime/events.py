"""The enforcement log, and the AgentLTL paper's table 17 computed from it.

Every finding the gate acts on is one `EnforcementEvent`: the step, the rule and its layer,
the severity it was enforced with, what happened to the call, and how the agent resolved a
refusal. A refusal is resolved at the agent's next proposal: `insisted` when it repeats the
same call (same tool, same arguments), `listened` when it does something else; a refusal
with no later proposal stays unresolved. Calls that ran despite a finding (tolerate, warn,
an override) are `executed`; a refusal that stopped the run is `stopped`.

Table 17 ("enforcement events per layer") counts refusals per layer: events, resolved
(listened + insisted), insisted, listened, and the insist rate, insisted / events.

>>> e = [EnforcementEvent(0, 3, "r", "L3", "violation", "block", "block", "a", "k1", LISTENED),
...      EnforcementEvent(1, 3, "r", "L3", "violation", "block", "block", "a", "k1", INSISTED),
...      EnforcementEvent(2, 5, "q", "L5", "violation", "warn", "warn", "b", "k2", EXECUTED)]
>>> [(row.layer, row.events, row.insisted, row.insist_rate) for row in enforcement_table(e)]
[('L3', 2, 1, 0.5)]
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Iterable

LISTENED, INSISTED, EXECUTED, STOPPED = "listened", "insisted", "executed", "stopped"


@dataclass(frozen=True, slots=True)
class EnforcementEvent:
    index: int               # the event's number in the run's log
    step: int                # the position the call would have taken in the run
    rule: str
    layer: str | None
    kind: str                # violation, owed, conflict, conformance
    severity: str            # the severity it was enforced with
    action: str              # what happened to the call: allow, warn, block, stop
    tool: str
    identity: str            # the call's canonical identity (tool and arguments)
    resolution: str | None = None   # listened, insisted, executed, stopped; None while unresolved

    @property
    def refused(self) -> bool:
        return self.action in ("block", "stop")

    def resolved(self, resolution: str) -> "EnforcementEvent":
        """This event with its resolution (built field by field: `dataclasses.replace` costs
        several times more, at every proposal that follows a refusal)."""
        return EnforcementEvent(self.index, self.step, self.rule, self.layer, self.kind, self.severity, self.action,
                                self.tool, self.identity, resolution)

    def to_json(self) -> dict[str, object]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "EnforcementEvent":
        return cls(**data)


@dataclass(frozen=True, slots=True)
class LayerRow:
    layer: str
    events: int
    resolved: int
    insisted: int
    listened: int

    @property
    def insist_rate(self) -> float | None:
        """Insisted / events, as table 17 reports it (None for a layer without events)."""
        return self.insisted / self.events if self.events else None

    def to_json(self) -> dict[str, object]:
        return {**asdict(self), "insist_rate": self.insist_rate}


def enforcement_table(events: Iterable[EnforcementEvent]) -> list[LayerRow]:
    """Table 17 over one run's log, or several runs' logs chained together.

    Only refusals count; rules without a layer are grouped under `-`. Layers come in the
    order their first event appears, the paper's L1–L6 sorted first.
    """
    rows: dict[str, list[int]] = {}
    for e in events:
        if not e.refused:
            continue
        row = rows.setdefault(e.layer or "-", [0, 0, 0])
        row[0] += 1
        row[1] += e.resolution == INSISTED
        row[2] += e.resolution == LISTENED
    paper = sorted(layer for layer in rows if layer in {f"L{i}" for i in range(1, 7)})
    order = paper + [layer for layer in rows if layer not in paper]
    return [LayerRow(layer, rows[layer][0], rows[layer][1] + rows[layer][2], rows[layer][1], rows[layer][2])
            for layer in order]
