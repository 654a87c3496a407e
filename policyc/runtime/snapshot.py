"""A run's state as JSON, and back: a run survives a process restart with nothing lost.

The snapshot names the artifact it belongs to (its content hash); restoring it against a
monitor loaded from another artifact is refused.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from policyc.runtime.calls import RunError, result_from_json, result_to_json
from policyc.runtime.enforce import EnforcementState
from policyc.runtime.events import EnforcementEvent
from policyc.trace.model import MESSAGE, Call

if TYPE_CHECKING:
    from policyc.runtime.monitor import Monitor
    from policyc.runtime.run import Run

SNAPSHOT_FORMAT = "policyc.run"
SNAPSHOT_VERSION = 1


def dump_run(run: "Run") -> dict:
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


def load_run(monitor: "Monitor", data: dict) -> "Run":
    """A run continued from `dump_run` output."""
    from policyc.runtime.run import Run, RunState, check_context

    if not isinstance(data, dict) or data.get("format") != SNAPSHOT_FORMAT:
        raise RunError("not a policyc run snapshot")
    if data.get("version") != SNAPSHOT_VERSION:
        raise RunError(f"run snapshot version {data.get('version')!r} is not supported (expected {SNAPSHOT_VERSION})")
    if data.get("artifact") != monitor.content_hash:
        raise RunError("the snapshot belongs to a run of another policy artifact "
                       f"({data.get('artifact')}, this monitor is {monitor.content_hash})")
    try:
        calls = [Call(c["tool"], dict(c["args"]), result_from_json(c), i, "message" if c["tool"] == MESSAGE else "call",
                      c.get("actor", "assistant"), c.get("message_id"), bool(c.get("error", False)))
                 for i, c in enumerate(data["calls"])]
        pending = data.get("pending")
        state = RunState(
            gate=monitor.gate.load_state(data["gate"]),
            calls=calls,
            seen=[replace(c, position=i) for i, c in enumerate(c for c in calls if monitor.observes(c.name, c.actor))],
            enforcement=EnforcementState.from_json(data["enforcement"]),
            events=[EnforcementEvent.from_json(e) for e in data["events"]],
            awaiting=[int(i) for i in data["awaiting"]],
            pending=(str(pending[0]), bool(pending[1])) if pending else None,
            proposals=int(data["proposals"]),
            ended_by=data.get("ended_by"),
            context=check_context(data.get("context")),
        )
        run = Run(monitor, data.get("mode"), data.get("id"), state)
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        raise RunError(f"the run snapshot is damaged ({type(exc).__name__}: {exc})") from None
    if data.get("finished"):
        run.finish()
    return run


def _attributes(call: Call) -> dict:
    """An event's attributes, where they are not the defaults (a plain call of the agent)."""
    out: dict = {}
    if call.actor != "assistant":
        out["actor"] = call.actor
    if call.message_id is not None:
        out["message_id"] = call.message_id
    if call.error:
        out["error"] = True
    return out
