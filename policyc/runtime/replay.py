"""Gate replay: what the gate would have decided at each call of a recorded run.

Each recorded call is proposed to a fresh run and, when the gate would have let it run,
recorded. A refused call is left out of the gated run, as the gate would have left it out;
from then on the recording is not a run of the gated deployment (the agent would have been
told and would have acted otherwise), so later decisions are *counterfactual*: a replay
shows which recorded calls the gate rejects, not what the agent would then have done
("Organising trajectory evidence", §4.2). After a `stop`, or after a final answer the gate
lets through, the gated run is over and later calls are not judged.

>>> from policyc.artifact.build import compile_file
>>> from policyc.runtime import Monitor
>>> from policyc.trace import Trace
>>> monitor = Monitor(compile_file("examples/code_qa.altl"))
>>> replayed = replay(monitor, Trace.of(("final_answer", {"answer": "x"})))
>>> [(s.action, s.rules) for s in replayed.steps]
[('block', ('search_first', 'reads_a_file'))]
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from policyc.runtime.events import EnforcementEvent
from policyc.runtime.explain import Decision
from policyc.trace.model import Call, Trace

if TYPE_CHECKING:
    from policyc.runtime.monitor import Monitor
    from policyc.scoring import TraceReport


@dataclass(frozen=True, slots=True)
class ReplayStep:
    position: int                 # 0-based position of the call in the recording
    decision: Decision | None     # None: after a stop, the gated run would have ended
    counterfactual: bool          # an earlier call would already have been refused

    @property
    def action(self) -> str:
        return self.decision.action if self.decision else "not reached"

    @property
    def rules(self) -> tuple[str, ...]:
        return self.decision.rules if self.decision else ()

    def to_json(self, call: Call) -> dict[str, object]:
        out = {"step": self.position + 1, "tool": call.name, "args": dict(call.args), "action": self.action,
               "counterfactual": self.counterfactual}
        if self.decision is not None:
            d = self.decision.to_json()
            out.update({k: d[k] for k in ("severity", "rules", "findings", "message", "override", "escalated",
                                          "undecided")})
        return out


@dataclass(frozen=True)
class Replay:
    trace: Trace
    steps: tuple[ReplayStep, ...]
    report: TraceReport           # the compliance report of the recording as it happened
    events: tuple[EnforcementEvent, ...]

    @property
    def first_refusal(self) -> int | None:
        """The 0-based position of the first call the gate would have refused."""
        return next((s.position for s in self.steps if s.action in ("block", "stop")), None)

    @property
    def all_allowed(self) -> bool:
        return all(s.action == "allow" for s in self.steps)


def replay(monitor: Monitor, trace: Trace, mode: str | None = None) -> Replay:
    """Replay a recorded run through the gate, call by call: the agent's events (calls and
    messages, as far as the policy observes them) are judged; the user's are recorded."""
    trace = monitor.policy.view(trace)
    # the request and metrics the recording holds are the run's (what it lacks is unknown)
    run = monitor.start(mode=mode, run_id=trace.id, request=trace.request, metrics=trace.metrics or None)
    steps = []
    refused = False
    for call in trace.calls:
        if call.actor != "assistant":  # what the user did is recorded, not gated
            if not (run.stopped or run.ended):
                run._advance(call.name, call.args, call.result)
            continue
        if run.stopped or run.ended:  # the gated run is over before this call
            steps.append(ReplayStep(call.position, None, True))
            continue
        decision = run.propose(call.name, call.args, message_id=call.message_id)
        steps.append(ReplayStep(call.position, decision, refused))
        refused |= not decision.executes
        if decision.executes:
            run._advance(call.name, call.args, call.result)
    report = monitor.score(trace)
    return Replay(trace, tuple(steps), report, run.events)
