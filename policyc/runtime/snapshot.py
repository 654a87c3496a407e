"""A run's state as JSON, and back: a run survives a process restart with nothing lost.

The snapshot names the artifact it belongs to (its content hash); restoring it against a
monitor loaded from another artifact is refused.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from policyc.runtime.calls import RunError, result_from_json, result_to_json
from policyc.runtime.enforcement import EnforcementState
from policyc.runtime.events import EnforcementEvent
from policyc.trace.model import MESSAGE, Call

if TYPE_CHECKING:
    from policyc.runtime.monitor import Monitor
    from policyc.runtime.run import Run

SNAPSHOT_FORMAT = "policyc.run"
SNAPSHOT_VERSION = 1


def dump_run(run: "Run") -> dict:
    """The run's state (call with the run's lock held)."""
    monitor = run._monitor
    return {
        "format": SNAPSHOT_FORMAT,
        "version": SNAPSHOT_VERSION,
        "artifact": monitor.content_hash,
        "id": run.id,
        "mode": run.mode,
        "calls": [{"tool": c.name, "args": dict(c.args), **result_to_json(c.result), **_attributes(c)}
                  for c in run._calls],
        **({"request": run.request} if run.request is not None else {}),
        "gate": monitor.gate.dump_state(run._gate_state),
        "enforcement": run._enforcement.to_json(),
        "events": [e.to_json() for e in run._events],
        "awaiting": list(run._awaiting),
        "pending": list(run._pending) if run._pending is not None else None,
        "proposals": run._proposals,
        "ended_by": run._ended_by,
        "finished": run._report is not None,
    }


def load_run(monitor: "Monitor", state: dict) -> "Run":
    """A run continued from `dump_run` output."""
    from policyc.runtime.run import Run

    if not isinstance(state, dict) or state.get("format") != SNAPSHOT_FORMAT:
        raise RunError("not a policyc run snapshot")
    if state.get("version") != SNAPSHOT_VERSION:
        raise RunError(f"run snapshot version {state.get('version')!r} is not supported (expected {SNAPSHOT_VERSION})")
    if state.get("artifact") != monitor.content_hash:
        raise RunError("the snapshot belongs to a run of another policy artifact "
                       f"({state.get('artifact')}, this monitor is {monitor.content_hash})")
    try:
        run = Run(monitor, state.get("mode"), state.get("id"), state.get("request"))
        run._calls = [Call(c["tool"], dict(c["args"]), result_from_json(c), i, "message" if c["tool"] == MESSAGE else "call",
                           c.get("actor", "assistant"), c.get("message_id"), bool(c.get("error", False)))
                      for i, c in enumerate(state["calls"])]
        run._seen = [replace(c, position=i) for i, c in enumerate(
            c for c in run._calls if monitor.observes(c.name, c.actor))]
        run._gate_state = monitor.gate.load_state(state["gate"])
        run._enforcement = EnforcementState.from_json(state["enforcement"])
        run._events = [EnforcementEvent.from_json(e) for e in state["events"]]
        run._awaiting = [int(i) for i in state["awaiting"]]
        pending = state.get("pending")
        run._pending = (str(pending[0]), bool(pending[1])) if pending else None
        run._proposals = int(state["proposals"])
        run._ended_by = state.get("ended_by")
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        raise RunError(f"the run snapshot is damaged ({type(exc).__name__}: {exc})") from None
    if state.get("finished"):
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
