"""A run's state as JSON, and back: a run survives a process restart with nothing lost.

The snapshot names the artifact it belongs to (its content hash); restoring it against a
monitor loaded from another artifact is refused. A snapshot is data kept outside the
process (a database, a file), so restoring validates all of it before the run continues:
the shape and type of every field (a pydantic model), the references between them (event
numbers, refusals awaiting an answer, the rules soft blocks count for), and that the
automaton states it holds are exactly those its calls lead to (the calls are replayed), and
that its enforcement state is the one its enforcement log leads to (a pending override is the
refusal the log awaits an answer to, a stop is a logged stop, soft-block counts are the logged
soft blocks). Any mismatch is a `RunError` naming the field, never a KeyError later in the run.

A monitor with a key (`Monitor.load(path, key=...)`, or POLICYC_ARTIFACT_KEY) signs its
snapshots (`signature`, an HMAC-SHA256 of the rest, as artifacts are signed) and restores
only snapshots signed with that key.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from dataclasses import replace
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue, StrictBool, StrictInt, StrictStr, ValidationError

from policyc.runtime.calls import RunError, result_from_json, result_to_json, value_problem
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
    """The run's state (call with the run's lock held), signed when the monitor has a key."""
    monitor, state = run.monitor, run.state
    data: dict[str, object] = {
        "format": SNAPSHOT_FORMAT,
        "version": SNAPSHOT_VERSION,
        "artifact": monitor.content_hash,
        "id": run.id,
        "mode": run.mode,
        "context": state.context,
        **({"metrics": state.metrics} if state.metrics is not None else {}),
        "calls": [{"tool": c.name, "args": dict(c.args), **result_to_json(c.result), **_attributes(c)}
                  for c in state.calls],
        "gate": monitor.gate.dump_state(state.gate),
        "enforcement": state.enforcement.to_json(),
        "events": [e.to_json() for e in state.events],
        "awaiting": list(state.awaiting),
        "pending": list(state.pending) if state.pending is not None else None,
        "refused": list(state.refused),
        "proposals": state.proposals,
        "ended_by": state.ended_by,
        "finished": state.report is not None,
    }
    if monitor.key is not None:
        data["signature"] = _signature(data, monitor.key)
    return data


_SIGNATURE = "hmac-sha256:"


def _signature(data: dict[str, object], key: bytes) -> str:
    """The HMAC-SHA256 of the snapshot's canonical JSON, its signature left out."""
    body = {k: v for k, v in data.items() if k != "signature"}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return _SIGNATURE + hmac.new(key, text.encode("utf-8"), hashlib.sha256).hexdigest()


def _signature_problem(data: dict[str, object], key: bytes) -> str | None:
    claimed = data.get("signature")
    if claimed is None:
        return "the snapshot is not signed, and the monitor has a key: it restores only snapshots signed with it"
    try:
        expected = _signature(data, key)
    except (TypeError, ValueError, RecursionError):
        return "the snapshot is not JSON data, so its signature cannot match"
    if not isinstance(claimed, str) or not hmac.compare_digest(claimed.encode("utf-8", "replace"),
                                                                expected.encode("utf-8")):
        return "the snapshot is not signed with the monitor's key: its signature does not match"
    return None


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
    kind: Literal["violation", "owed", "conflict", "conformance", "undecided"]
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
    # the identities whose latest proposal was refused (absent in older snapshots: those the
    # log awaits an answer to)
    refused: list[StrictStr] | None = None
    proposals: StrictInt = Field(ge=0)
    ended_by: StrictStr | None
    finished: StrictBool
    context: StrictStr | None = None  # the user's request, for grounding (absent in older snapshots)
    metrics: dict[StrictStr, JsonValue] | None = None  # the metrics record the run was started with
    signature: StrictStr | None = None  # with a key: `hmac-sha256:` and the HMAC of the rest


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
    if monitor.key is not None:
        refused = _signature_problem(data, monitor.key)
        if refused:
            raise RunError(refused)
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
    try:  # the events the policy observes: those the gate stepped, with the run's constants
        gate = monitor.replayed_gate(calls, snap.context, snap.metrics)
    except Exception as exc:  # noqa: BLE001 - a call the automata cannot read: the snapshot is not this run's
        raise RunError(f"the run snapshot is damaged: its calls cannot be replayed ({type(exc).__name__})") from None
    if _canonical(monitor.gate.dump_state(gate)) != _canonical(snap.gate):
        raise RunError(f"the run snapshot is damaged: its automaton states are not those its {len(calls)} "
                       "call(s) lead to")
    problem = _enforcement_problem(snap, len(seen))
    if problem:
        raise RunError(f"the run snapshot is damaged: {problem}")
    enforcement = EnforcementState(tuple(sorted(snap.enforcement.soft_blocks.items())), snap.enforcement.override,
                                   snap.enforcement.stopped)
    state = RunState(gate=gate, calls=calls, seen=seen, enforcement=enforcement,
                     events=[EnforcementEvent(**e.model_dump()) for e in snap.events],
                     awaiting=list(snap.awaiting), pending=snap.pending, refused=dict.fromkeys(_refused(snap)),
                     proposals=snap.proposals,
                     ended_by=snap.ended_by, context=snap.context, metrics=snap.metrics)
    run = Run(monitor, snap.mode, snap.id, state)
    if snap.finished:
        run.finish()
    return run


def _reference_problem(monitor: "Monitor", snap: _SnapshotModel) -> str | None:
    """What in a well-typed snapshot does not hold together, if anything."""
    problem = _value_problems(snap)
    if problem:
        return problem
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
    # only the agent's terminal call ends a run: the user's is recorded, and the run goes on
    agents = [c for c in snap.calls if c.actor == "assistant"]
    if snap.ended_by is not None and (snap.ended_by not in monitor.terminal_tools or not agents
                                      or agents[-1].tool != snap.ended_by):
        return f"`ended_by` is `{snap.ended_by[:40]}`, but the run did not end with that terminal call"
    if snap.ended_by is None and any(c.tool in monitor.terminal_tools for c in agents):
        return "a terminal call of the agent was recorded, but `ended_by` is null"
    return None


def _value_problems(snap: _SnapshotModel) -> str | None:
    """What in the snapshot's calls or metrics a run could not have recorded: JSON numbers
    that are not finite or have thousands of digits, nesting past the runtime's limit
    (`calls.value_problem`). `record` refuses them, so a snapshot holding one is not a run's."""
    for i, c in enumerate(snap.calls):
        for what, value in (("args", c.args), ("result", c.result)):
            problem = value_problem(value)
            if problem:
                return f"`calls.{i}.{what}`: its values {problem}, which `record` refuses"
    problem = None if snap.metrics is None else value_problem(snap.metrics)
    return f"`metrics`: its values {problem}" if problem else None


def _refused(snap: _SnapshotModel) -> list[str]:
    if snap.refused is not None:
        return snap.refused
    return [snap.events[i].identity for i in snap.awaiting]


def _enforcement_problem(snap: _SnapshotModel, observed: int) -> str | None:
    """Whether the enforcement state is the one the enforcement log leads to (`enforce` keeps
    them in step): a forged override, stop or soft-block count is refused, not obeyed."""
    events, enforcement = snap.events, snap.enforcement
    unresolved = [e.index for e in events if e.resolution is None]
    if sorted(snap.awaiting) != unresolved:
        return "`awaiting` does not list exactly the refusals the log leaves unanswered"
    if any(events[i].action != "block" for i in unresolved):
        return "`awaiting` names an event that did not refuse its call"
    refused = set(_refused(snap))
    if len(refused) != len(_refused(snap)) or not refused <= {e.identity for e in events if e.action in ("block", "stop")}:
        return "`refused` lists a call twice, or one the enforcement log shows no refusal of"
    if any(events[i].identity not in refused for i in unresolved) or \
            snap.pending is not None and snap.pending[1] and snap.pending[0] in refused:
        return "`refused` leaves out a call whose latest proposal the log or `pending` shows refused"
    override = enforcement.override
    if override is not None:
        waiting = [events[i] for i in snap.awaiting]
        if (snap.pending is None or tuple(snap.pending) != (override, False) or not waiting
                or any(e.identity != override or e.step != observed for e in waiting)
                or max(SEVERITY_ORDER.index(e.severity) for e in waiting) != SEVERITY_ORDER.index("block")):
            return "`enforcement.override` is not the block-and-warn refusal the run awaits an answer to"
    stops = [e for e in events if e.action == "stop"]
    if (enforcement.stopped is None) != (not stops):
        return "`enforcement.stopped` does not agree with the stops in the enforcement log"
    if enforcement.stopped is not None:
        reasons = {"a conformance finding" if e.kind == "conformance" else f"rule `{e.rule}`" for e in stops}
        if enforcement.stopped not in reasons:
            return "`enforcement.stopped` names no stop in the enforcement log"
    # soft blocks count when a soft block decided the call (a refusal, or the last one, which
    # stops the run); a call stopped by a `stop` rule counts none
    stopped_by_stop = any(e.severity == "stop" for e in stops)
    counted: dict[str, int] = {}
    for e in events:
        if e.severity == "soft_block" and (e.action == "block" or e.action == "stop" and not stopped_by_stop):
            counted[e.rule] = counted.get(e.rule, 0) + 1
    if dict(enforcement.soft_blocks) != counted:
        return "`enforcement.soft_blocks` are not the soft blocks in the enforcement log"
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
