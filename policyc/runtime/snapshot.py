"""A run's state as JSON, and back: a run survives a process restart with nothing lost.

The snapshot names the artifact it belongs to (its content hash); restoring it against a
monitor loaded from another artifact is refused. A snapshot is data kept outside the
process (a database, a file), so restoring validates all of it before the run continues:
the shape and type of every field (a pydantic model), the references between them (event
numbers, refusals awaiting an answer, the rules soft blocks count for), and that the
automaton states it holds are exactly those its calls lead to (the calls are replayed). Any
mismatch is a `RunError` naming the field, never a KeyError later in the run.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue, StrictBool, StrictInt, StrictStr, ValidationError

from policyc.runtime.calls import RunError, result_from_json, result_to_json
from policyc.runtime.enforce import EnforcementState
from policyc.runtime.events import EnforcementEvent
from policyc.runtime.findings import MODES, SEVERITY_ORDER
from policyc.trace.model import MESSAGE, Call

if TYPE_CHECKING:
    from policyc.runtime.monitor import Monitor
    from policyc.runtime.run import Run

SNAPSHOT_FORMAT = "policyc.run"
SNAPSHOT_VERSION = 1


def dump_run(run: "Run") -> dict[str, object]:
    """The run's state (call with the run's lock held)."""
    monitor, state = run.monitor, run.state
    return {
        "format": SNAPSHOT_FORMAT,
        "version": SNAPSHOT_VERSION,
        "artifact": monitor.content_hash,
        "id": run.id,
        "mode": run.mode,
        "context": state.context,
        "calls": [{"tool": c.name, "args": dict(c.args), **result_to_json(c.result), **_attributes(c)}
                  for c in state.calls],
        "gate": monitor.gate.dump_state(state.gate),
        "enforcement": state.enforcement.to_json(),
        "events": [e.to_json() for e in state.events],
        "awaiting": list(state.awaiting),
        "pending": list(state.pending) if state.pending is not None else None,
        "proposals": state.proposals,
        "ended_by": state.ended_by,
        "finished": state.report is not None,
    }


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class _CallModel(_Strict):
    tool: StrictStr
    args: dict[StrictStr, JsonValue]
    result: JsonValue = None  # absent: no result was recorded
    actor: Literal["assistant", "user"] = "assistant"  # who made the event (absent: the agent)
    message_id: StrictStr | None = None
    error: StrictBool = False  # whether the call failed


class _EventModel(_Strict):
    index: StrictInt = Field(ge=0)
    step: StrictInt = Field(ge=0)
    rule: StrictStr
    layer: StrictStr | None
    kind: Literal["violation", "owed", "conflict", "conformance"]
    severity: Literal[SEVERITY_ORDER]  # type: ignore[valid-type]
    action: Literal["allow", "warn", "block", "stop"]
    tool: StrictStr
    identity: StrictStr
    resolution: Literal["listened", "insisted", "executed", "stopped"] | None


class _EnforcementModel(_Strict):
    soft_blocks: dict[StrictStr, StrictInt] = Field(default_factory=dict)
    override: StrictStr | None = None
    stopped: StrictStr | None = None


class _SnapshotModel(_Strict):
    format: Literal["policyc.run"]
    version: Literal[1]
    artifact: StrictStr
    id: StrictStr | None
    mode: Literal[tuple(MODES)] | None  # type: ignore[valid-type]
    calls: list[_CallModel]
    gate: JsonValue
    enforcement: _EnforcementModel
    events: list[_EventModel]
    awaiting: list[StrictInt]
    pending: tuple[StrictStr | None, StrictBool] | None
    proposals: StrictInt = Field(ge=0)
    ended_by: StrictStr | None
    finished: StrictBool
    context: StrictStr | None = None  # the user's request, for grounding (absent in older snapshots)


def load_run(monitor: "Monitor", data: dict[str, object]) -> "Run":
    """A run continued from `dump_run` output; `RunError` when the snapshot is not one this
    monitor's runs could have written."""
    from policyc.runtime.run import Run, RunState

    if not isinstance(data, dict) or data.get("format") != SNAPSHOT_FORMAT:
        raise RunError("not a policyc run snapshot")
    if data.get("version") != SNAPSHOT_VERSION:
        raise RunError(f"run snapshot version {repr(data.get('version'))[:20]} is not supported "
                       f"(expected {SNAPSHOT_VERSION})")
    if data.get("artifact") != monitor.content_hash:
        raise RunError("the snapshot belongs to a run of another policy artifact "
                       f"({str(data.get('artifact'))[:80]}, this monitor is {monitor.content_hash})")
    try:
        snap = _SnapshotModel.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "the top level"
        raise RunError(f"the run snapshot is damaged: `{where}`: {first['msg'].lower()}") from None
    except RecursionError:
        raise RunError("the run snapshot is damaged: it is nested too deeply") from None
    problem = _reference_problem(monitor, snap)
    if problem:
        raise RunError(f"the run snapshot is damaged: {problem}")
    calls = [Call(c.tool, dict(c.args), result_from_json(c.model_dump(exclude_unset=True)), i,
                  "message" if c.tool == MESSAGE else "call", c.actor, c.message_id, c.error)
             for i, c in enumerate(snap.calls)]
    seen = [replace(c, position=i) for i, c in enumerate(c for c in calls if monitor.observes(c.name, c.actor))]
    gate = monitor.gate.start()
    try:
        for call in seen:  # the events the policy observes: those the gate stepped
            gate = monitor.gate.advance(gate, call.name, call.args, call.result)
    except Exception as exc:  # noqa: BLE001 - a call the automata cannot read: the snapshot is not this run's
        raise RunError(f"the run snapshot is damaged: its calls cannot be replayed ({type(exc).__name__})") from None
    if _canonical(monitor.gate.dump_state(gate)) != _canonical(snap.gate):
        raise RunError(f"the run snapshot is damaged: its automaton states are not those its {len(calls)} "
                       "call(s) lead to")
    enforcement = EnforcementState(tuple(sorted(snap.enforcement.soft_blocks.items())), snap.enforcement.override,
                                   snap.enforcement.stopped)
    state = RunState(gate=gate, calls=calls, seen=seen, enforcement=enforcement,
                     events=[EnforcementEvent(**e.model_dump()) for e in snap.events],
                     awaiting=list(snap.awaiting), pending=snap.pending, proposals=snap.proposals,
                     ended_by=snap.ended_by, context=snap.context)
    run = Run(monitor, snap.mode, snap.id, state)
    if snap.finished:
        run.finish()
    return run


def _reference_problem(monitor: "Monitor", snap: _SnapshotModel) -> str | None:
    """What in a well-typed snapshot does not hold together, if anything."""
    calls, events = len(snap.calls), snap.events
    for i, event in enumerate(events):
        if event.index != i:
            return f"`events.{i}.index` is {event.index}, not {i}"
        if event.step > calls:
            return f"`events.{i}.step` is {event.step}, after the {calls} call(s) of the run"
    if len(set(snap.awaiting)) != len(snap.awaiting):
        return "`awaiting` lists an event twice"
    for i in snap.awaiting:
        if not 0 <= i < len(events) or events[i].resolution is not None:
            return f"`awaiting` names event {i}, which is not an unresolved refusal"
    rules = {r.name for r in monitor.policy.rules}
    for rule, count in snap.enforcement.soft_blocks.items():
        if rule not in rules or count < 1:
            return f"`enforcement.soft_blocks` counts {count} refusal(s) for `{rule[:40]}`"
    if snap.ended_by is not None and (snap.ended_by not in monitor.terminal_tools or not snap.calls
                                      or snap.calls[-1].tool != snap.ended_by):
        return f"`ended_by` is `{snap.ended_by[:40]}`, but the run did not end with that terminal call"
    if snap.ended_by is None and any(c.tool in monitor.terminal_tools for c in snap.calls):
        return "a terminal call was recorded, but `ended_by` is null"
    return None


def _canonical(value: object) -> str:
    """A gate state as comparable text: instance lists compared as sets (their order is the
    order values were seen, which says nothing about the state)."""
    if isinstance(value, dict) and "sliced" in value and isinstance(value["sliced"], list):
        value = {**value, "sliced": [_sorted_instances(run) for run in value["sliced"]]}
    try:
        return json.dumps(value, sort_keys=True, ensure_ascii=False, allow_nan=False)
    except (ValueError, TypeError, RecursionError):
        return "<not canonical JSON>"


def _sorted_instances(run: object) -> object:
    if not isinstance(run, list):
        return run
    out = []
    for part in run:
        if isinstance(part, dict) and isinstance(part.get("values"), list):
            try:
                part = {**part, "values": sorted(part["values"], key=lambda v: json.dumps(v, sort_keys=True))}
            except (TypeError, ValueError, RecursionError):
                pass
        out.append(part)
    return out


def _attributes(call: Call) -> dict[str, object]:
    """An event's attributes, where they are not the defaults (a plain call of the agent)."""
    out: dict[str, object] = {}
    if call.actor != "assistant":
        out["actor"] = call.actor
    if call.message_id is not None:
        out["message_id"] = call.message_id
    if call.error:
        out["error"] = True
    return out
