"""One gated agent run: propose, record, guidance, snapshot, finish.

A `Run` is created by `Monitor.start()` (or `Monitor.restore(state)`). Every tool call the
agent wants to make is first `propose`d; the decision says whether it may run. A call that
ran is `record`ed with its result. `finish()` returns the compliance report of the recorded
run, the same report `policyc score` gives for it.

All methods take the run's lock, so one run may be shared by several threads; separate runs
share nothing mutable.

>>> from policyc.artifact.build import compile_file
>>> from policyc.runtime.monitor import Monitor
>>> monitor = Monitor(compile_file("examples/code_qa.altl"))
>>> run = monitor.start()
>>> decision = run.propose("final_answer", {"answer": "x"})
>>> decision.action, decision.rules, run.allowed_next(), run.required()
('block', ('search_first', 'reads_a_file'), ('list_directory', 'read_file', 'search', 'grep'), ('search', 'read_file', 'final_answer'))
>>> state = run.snapshot()                  # JSON data; Monitor.restore(state) continues the run
>>> run.finish().compliance_label           # nothing ran: every rule of code_qa needs some call
'NONE'
"""

from __future__ import annotations

import threading
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Mapping

from policyc.ir.data import CallArgs, attributes
from policyc.ir.ops import UNDEF
from policyc.runtime.calls import RunError, as_args, call_identity, normalise_result
from policyc.runtime.decision import Decision, render_message
from policyc.runtime.enforcement import EnforcementState, after_record, enforce
from policyc.runtime.events import EXECUTED, INSISTED, LISTENED, STOPPED, EnforcementEvent, LayerRow, enforcement_table
from policyc.trace.model import MESSAGE, Call, Trace

if TYPE_CHECKING:
    from policyc.runtime.monitor import Monitor


class Run:
    """A gated run. Create it with `Monitor.start()`; do not construct it directly."""

    def __init__(self, monitor: "Monitor", mode: str | None = None, run_id: str | None = None,
                 request: str | None = None):
        self._monitor = monitor
        self._lock = threading.RLock()
        self.mode = mode
        self.id = run_id
        self.request = request                       # the user's request that started the run
        self._gate_state = monitor.gate.start()
        self._calls: list[Call] = []                 # every event, observed by the policy or not
        self._seen: list[Call] = []                  # the events the policy observes (its view)
        self._enforcement = EnforcementState()
        self._events: list[EnforcementEvent] = []
        self._awaiting: list[int] = []              # refusal events not yet resolved
        self._pending: tuple[str, bool] | None = None  # (identity, may run) of the last proposal
        self._proposals = 0
        self._ended_by: str | None = None            # the terminal tool that ended the run
        self._report = None

    # ------------------------------------------------------------ the agent loop

    def propose(self, tool: str, args: Mapping[str, Any] | None = None, *, message_id: str | None = None) -> Decision:
        """Judge a call before it runs: allow, warn (it runs), block or stop (it does not).

        `tool` is `"message"` for a message the agent is about to send (`{"text": ...,
        "calls": [the tools it calls]}`); `message_id` names the message a call belongs to.
        An event the policy does not observe is allowed without being judged."""
        args = event_args(as_args(args), "assistant", message_id)
        if not self._monitor.observes(tool, "assistant"):
            return Decision("allow", tool, args, len(self._seen))
        with self._lock:
            decision = self._propose(tool, args)
            if decision.executes:
                undecided = self._monitor.gate.undecided(tool, args, self._seen)
                if undecided:
                    decision = replace(decision, undecided=undecided)
            return decision

    def _propose(self, tool: str, args: dict) -> Decision:
        with self._lock:
            self._check_open("propose a call")
            state = self._enforcement
            # the call's identity (JSON text) is needed only to resolve, override or refuse
            needed = self._awaiting or state.stopped is not None or state.override is not None
            identity = call_identity(tool, args) if needed else None
            if self._awaiting:
                self._resolve(identity)
            self._proposals += 1
            step = len(self._seen)
            if state.stopped is not None:
                self._pending = (identity, False)
                decision = Decision("stop", tool, args, step, latched=True)
                return replace(decision, message=render_message(decision))
            overriding = identity is not None and state.override == identity
            findings = [] if overriding else self._monitor.judge(self._gate_state, tool, args, self._seen)
            if findings and identity is None:
                identity = call_identity(tool, args)
            outcome = enforce(state, identity, findings, self.mode)
            self._enforcement = outcome.state
            self._pending = (identity, outcome.executes)
            if not outcome.judged:
                if not outcome.override:
                    return Decision(outcome.action, tool, args, step)
                decision = Decision(outcome.action, tool, args, step, severity=outcome.severity, override=True)
                return replace(decision, message=render_message(decision))
            self._log(outcome, step, tool, identity)
            told = outcome.action != "allow"  # guidance is computed only for a message the agent reads
            allowed, required = self._monitor.guidance(self._gate_state) if told else ((), ())
            decision = Decision(outcome.action, tool, args, step, tuple(j.finding for j in outcome.judged),
                                outcome.severity, "", allowed, required, escalated=outcome.escalated,
                                attempts=outcome.attempts)
            return replace(decision, message=render_message(decision))

    def record(self, tool: str, args: Mapping[str, Any] | None = None, result: Any = UNDEF, *,
               actor: str = "assistant", message_id: str | None = None, error: bool = False) -> None:
        """Add a call that ran, with its result, to the run: the agent's (whether it failed:
        `error`), or one the user made on their side (`actor="user"`); `tool` is `"message"`
        for a message sent (by the agent or the user), its args `{"text": ...}`."""
        args = event_args(as_args(args), actor, message_id, error)
        if actor != "assistant":
            with self._lock:
                self._check_open("record an event")
                self._advance(tool, args, result)
            return
        with self._lock:
            self._check_open("record a call")
            if self._enforcement.stopped is not None:
                raise RunError(f"the run was stopped by {self._enforcement.stopped}; `{tool}` must not run")
            pending = self._pending
            if self._awaiting or pending is not None and not pending[1]:  # identity needed only then
                identity = call_identity(tool, args)
                if pending == (identity, False):
                    raise RunError(f"`{tool}` was refused by the gate; a refused call must not run")
                self._resolve(identity)
            self._advance(tool, args, result)

    def _advance(self, tool: str, args: dict, result: Any) -> None:
        """Add a call that ran, without the checks of `record` (gate replay uses it)."""
        with self._lock:
            result = normalise_result(result)
            kind = "message" if tool == MESSAGE else "call"
            self._calls.append(Call(tool, args, result, len(self._calls), kind))
            actor = attributes(args)["actor"]
            if self._monitor.observes(tool, actor):
                self._gate_state = self._monitor.gate.advance(self._gate_state, tool, args, result)
                self._seen.append(Call(tool, args, result, len(self._seen), kind))
            if actor != "assistant":
                return  # the user acted: the agent's pending proposal stays pending
            self._enforcement = after_record(self._enforcement)
            self._pending = None
            if tool in self._monitor.terminal_tools:
                self._ended_by = tool

    def allowed_next(self) -> tuple[str, ...]:
        """The tools whose call now keeps the whole policy satisfiable."""
        with self._lock:
            return self._monitor.guidance(self._gate_state)[0]

    def required(self) -> tuple[str, ...]:
        """A shortest sequence of calls that would satisfy every rule still open."""
        with self._lock:
            return self._monitor.guidance(self._gate_state)[1]

    def finish(self):
        """End the run and return its compliance report (the report `policyc score` gives)."""
        with self._lock:
            if self._report is None:  # refusals still awaiting a next proposal stay unresolved
                self._report = self._monitor.score(self.trace)
            return self._report

    # ------------------------------------------------------------ what happened

    @property
    def trace(self) -> Trace:
        """The events that happened, in order (the policy reads its view of them)."""
        with self._lock:
            return Trace.from_events(tuple(self._calls), {}, self.id, None, self.request)

    @property
    def events(self) -> tuple[EnforcementEvent, ...]:
        """The enforcement log: one event per finding acted on."""
        with self._lock:
            return tuple(self._events)

    def enforcement_table(self) -> list[LayerRow]:
        """The AgentLTL paper's table 17 (events and insist rate per layer) for this run."""
        return enforcement_table(self.events)

    @property
    def stopped(self) -> bool:
        with self._lock:
            return self._enforcement.stopped is not None

    @property
    def ended(self) -> bool:
        """Whether a terminal call (the final answer) ended the run."""
        with self._lock:
            return self._ended_by is not None

    @property
    def finished(self) -> bool:
        with self._lock:
            return self._report is not None

    # ------------------------------------------------------------ snapshot

    def snapshot(self) -> dict:
        """Everything about the run, as JSON-serialisable data (`Monitor.restore` takes it back)."""
        from policyc.runtime.snapshot import dump_run

        with self._lock:
            return dump_run(self)

    # ------------------------------------------------------------ internals

    def _check_open(self, what: str) -> None:
        if self._report is not None:
            raise RunError(f"cannot {what}: the run is finished")
        if self._ended_by is not None:
            raise RunError(f"cannot {what}: the run ended with `{self._ended_by}`")

    def _resolve(self, identity: str) -> None:
        """The agent's next move resolves the refusals of its last proposal."""
        for i in self._awaiting:
            event = self._events[i]
            self._events[i] = replace(event, resolution=INSISTED if event.identity == identity else LISTENED)
        self._awaiting = []

    def _log(self, outcome, step: int, tool: str, identity: str) -> None:
        if outcome.action in ("allow", "warn"):
            resolution = EXECUTED
        elif outcome.action == "stop":
            resolution = STOPPED
        else:
            resolution = None
        for j in outcome.judged:
            index = len(self._events)
            self._events.append(EnforcementEvent(index, step, j.finding.rule, j.finding.layer, j.finding.kind,
                                                 j.severity, outcome.action, tool, identity, resolution))
            if resolution is None:
                self._awaiting.append(index)


def event_args(args: dict, actor: str, message_id: str | None, error: bool = False) -> dict:
    """The arguments of an event, carrying its attributes when they are not the defaults."""
    if actor not in ("assistant", "user"):
        raise ValueError(f"an event's actor is \"assistant\" or \"user\", not {actor!r}")
    if message_id is not None and not isinstance(message_id, str):
        raise TypeError(f"a message id is a string, not {type(message_id).__name__}")
    if actor == "assistant" and message_id is None and not error:
        return args
    return CallArgs(args, {"actor": actor, "message_id": message_id, "error": bool(error)})
