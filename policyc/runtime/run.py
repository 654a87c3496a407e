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
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Mapping

from policyc.ir.data import CallArgs, attributes
from policyc.ir.ops import UNDEF
from policyc.runtime.calls import (
    RunError, as_args, as_tool, call_identity, normalise_result, unidentified, value_problem,
)
from policyc.runtime.conformance import GroundingQuery
from policyc.runtime.explain import Decision, render_message
from policyc.runtime.findings import CONFORMANCE, Finding
from policyc.runtime.enforce import EnforcementState, Outcome, after_record, enforce
from policyc.runtime.events import EXECUTED, INSISTED, LISTENED, STOPPED, EnforcementEvent, LayerRow, enforcement_table
from policyc.runtime.gate import GateState
from policyc.trace.model import MESSAGE, Call, Trace

if TYPE_CHECKING:
    from policyc.runtime.history import RunIndex
    from policyc.runtime.monitor import Monitor
    from policyc.scoring import TraceReport


@dataclass
class RunState:
    """Everything one run has done: what a snapshot saves and `Monitor.restore` gives back."""

    gate: GateState                                   # where the rules' automata are
    calls: list[Call] = field(default_factory=list)   # every event, with its result, observed or not
    seen: list[Call] = field(default_factory=list)    # the events the policy observes (its view)
    enforcement: EnforcementState = field(default_factory=EnforcementState)
    events: list[EnforcementEvent] = field(default_factory=list)  # the enforcement log
    awaiting: list[int] = field(default_factory=list)  # refusal events not yet resolved
    pending: tuple[str | None, bool] | None = None    # (identity, may run) of the last proposal
    refused: dict[str, None] = field(default_factory=dict)  # identities whose latest proposal was refused
    proposals: int = 0
    ended_by: str | None = None                       # the terminal tool that ended the run
    report: "TraceReport | None" = None               # set by finish()
    context: str | None = None                        # the user's request: for grounding (SAAG), and `request.text`
    metrics: dict[str, Any] | None = None             # the run's metrics record, when given at the start
    index: "RunIndex | None" = None                   # the history, indexed for the rules that read it (derived)
    grounding: "GroundingQuery | None" = None         # the request and results as grounding text (derived)


class Run:
    """A gated run. Create it with `Monitor.start()`; do not construct it directly."""

    def __init__(self, monitor: "Monitor", mode: str | None = None, run_id: str | None = None,
                 state: RunState | None = None):
        self.monitor = monitor
        self._lock = threading.RLock()
        self.mode = mode
        self.id = run_id
        self.state = state if state is not None else RunState(monitor.gate.start())  # the constants unknown
        self.state.gate.context.sources = self._sources  # what the rules' provenance reads

    # ------------------------------------------------------------ the agent loop

    def propose(self, tool: str, args: Mapping[str, Any] | None = None, *, message_id: str | None = None) -> Decision:
        """Judge a call before it runs: allow, warn (it runs), block or stop (it does not).

        `tool` is `"message"` for a message the agent is about to send (`{"text": ...,
        "calls": [the tools it calls]}`); `message_id` names the message a call belongs to.
        An event the policy does not observe is allowed without being judged."""
        tool = as_tool(tool)
        # an agent's call without a message id carries no attributes (`event_args`)
        args = as_args(args) if message_id is None else event_args(as_args(args), "assistant", message_id)
        if tool == MESSAGE and not self.monitor.observes(tool, "assistant"):  # the agent's calls are observed
            return Decision("allow", tool, args, len(self.state.seen))
        with self._lock:
            self._check_open("propose a call")
            state = self.state
            enf = state.enforcement
            # arguments that are not JSON data within bounds cannot be judged or identified: such
            # a call is refused as `deny` before any override or retry is considered (plain JSON
            # that conforms to the tool's signature is told so in one walk)
            conforms = self.monitor.typed_args(tool, args)
            problem = None if conforms else value_problem(args)
            # the call's identity (JSON text) is needed only to resolve, override or refuse
            needed = state.awaiting or enf.stopped is not None or enf.override is not None
            if problem is not None:
                identity: str | None = unidentified(tool, problem)
            else:
                identity = call_identity(tool, args, checked=True) if needed else None
            if state.awaiting:
                self._resolve(identity)
            state.proposals += 1
            step = len(state.seen)
            if enf.stopped is not None:
                state.pending = (identity, False)
                decision = Decision("stop", tool, args, step, latched=True)
                return decision.told(render_message(decision))
            # judged every time, an identical retry too: `enforce` lets a retry override only
            # block-and-warn findings, never `deny` (nor anything stronger)
            findings, undecided = self._judge(tool, args, problem, conforms)
            if not findings and enf.override is None:  # `enforce` would allow it and change nothing
                if state.refused:  # allowed now: it may be recorded
                    identity = identity or call_identity(tool, args, checked=True)
                    state.refused.pop(identity, None)
                state.pending = (identity, True)
                return Decision("allow", tool, args, step, undecided=undecided)
            if findings and identity is None:  # a call with a value problem has its `unidentified` one
                identity = call_identity(tool, args, checked=True)
            outcome = enforce(enf, identity, findings, self.mode)
            state.enforcement = outcome.state
            state.pending = (identity, outcome.executes)
            if identity is not None:
                if outcome.executes:
                    state.refused.pop(identity, None)
                else:  # recording it is refused until a later proposal of it is allowed
                    state.refused[identity] = None
            if not outcome.judged:
                if not outcome.override:
                    return Decision(outcome.action, tool, args, step, undecided=undecided)
                decision = Decision(outcome.action, tool, args, step, severity=outcome.severity, override=True,
                                    undecided=undecided)
                return decision.told(render_message(decision))
            self._log(outcome, step, tool, identity)
            told = outcome.action != "allow"  # guidance is computed only for a message the agent reads
            allowed, required = self.monitor.guidance(self.state.gate) if told else ((), ())
            decision = Decision(outcome.action, tool, args, step, tuple(j.finding for j in outcome.judged),
                                outcome.severity, "", allowed, required, escalated=outcome.escalated,
                                attempts=outcome.attempts, undecided=undecided)
            message = render_message(decision)  # empty for a call that runs unremarked (tolerated)
            return decision.told(message) if message else decision

    def _judge(self, tool: str, args: dict[str, Any], problem: str | None,
               conforms: bool = False) -> tuple[list[Finding], tuple[str, ...]]:
        if problem is not None:  # nothing can be read off it safely: refused, and no retry overrides that
            rule = "conformance/too-deep" if problem.startswith("nest") else "conformance/not-json"
            return [Finding(rule, CONFORMANCE, "conformance", "deny", None, f"the arguments of `{tool}` {problem}")], ()
        state = self.state
        grounding = state.grounding  # kept only when conformance grounds argument values in it
        if state.context is not None and self.monitor.conformance.grounds and (
                grounding is None or grounding.context != state.context):
            grounding = state.grounding = GroundingQuery(state.context)
        index = None if self.monitor.index_plan is None else self._index()
        return self.monitor.judge(state.gate, tool, args, state.seen, state.context, index, grounding,
                                  conforms=conforms)

    def _index(self) -> "RunIndex | None":
        """The run's history, indexed (None when no rule reads it); built from the recorded
        events the first time it is needed (a restored run), then kept as events come."""
        state = self.state
        if self.monitor.index_plan is None:
            return None
        index = state.index
        if index is None:
            index = state.index = self.monitor.new_index()
            assert index is not None
            for call in state.calls:
                index.add(call, self.monitor.observes(call.name, call.actor))
        if index.request != state.context:
            index.set_request(state.context)
        return index

    def _sources(self, _position: int) -> Any:
        """The sources the run had seen before the call being judged or recorded, for the
        rules' provenance atoms: its index, or, past the index's size cap, the definition
        (`policyc.trace.sources`) on the events before that call."""
        index = self._index()
        if index is None:
            raise RunError("the policy reads no sources, yet a rule asked for them")
        found = index.history(index.view, index.view)
        if found is not None:
            return found
        state = self.state
        trace = self.monitor.policy.view(Trace.from_events(tuple(state.calls[:index.events]), state.metrics or {},
                                                           self.id, None, state.context))
        return trace.globals.history(len(trace.calls))

    def record(self, tool: str, args: Mapping[str, Any] | None = None, result: Any = UNDEF, *,
               actor: str = "assistant", message_id: str | None = None, error: bool = False) -> None:
        """Add a call that ran, with its result, to the run: the agent's (whether it failed:
        `error`), or one the user made on their side (`actor="user"`); `tool` is `"message"`
        for a message sent (by the agent or the user), its args `{"text": ...}`. Arguments or a
        result that are not JSON data (`calls.value_problem`: nested deeper than MAX_VALUE_DEPTH
        levels, bytes or other objects, integers of thousands of digits) are a RunError: a run
        holds only what it can snapshot."""
        tool = as_tool(tool)
        args = as_args(args)
        if actor != "assistant" or message_id is not None or error:  # else no attributes to carry
            args = event_args(args, actor, message_id, error)
        what, problem = "arguments", value_problem(args)
        typed = False
        if problem is None and result is not UNDEF:
            # a result that is plain JSON of its declared type is told so in one walk: it is
            # kept as it is (neither parsed, being no text, nor shaped, having its type)
            typed = type(result) is not str and self.monitor.typed_result(tool, result)
            if not typed:
                what, problem = "result", value_problem(result)
        if problem is not None:
            raise RunError(f"the {what} of `{tool}` {problem}; record a value that is JSON data "
                           "(such as its text)")
        with self._lock:
            self._check_open("record a call" if actor == "assistant" else "record an event")
            state = self.state
            if actor != "assistant":
                self._add(tool, args, result, typed)
                return
            if state.enforcement.stopped is not None:
                raise RunError(f"the run was stopped by {state.enforcement.stopped}; `{tool}` must not run")
            if state.awaiting or state.refused:  # identity needed only then
                identity = call_identity(tool, args)
                if identity in state.refused:  # its latest proposal was refused, however many came after
                    raise RunError(f"`{tool}` was refused by the gate; a refused call must not run")
                self._resolve(identity)
            self._add(tool, args, result, typed)

    def _advance(self, tool: str, args: Mapping[str, Any], result: Any) -> None:
        """Add a call that ran, without the checks of `record` (gate replay uses it)."""
        with self._lock:
            self._add(tool, args, result)

    def _add(self, tool: str, args: Mapping[str, Any], result: Any, typed: bool = False) -> None:
        """`_advance`, the run's lock held; `typed`: the result is plain JSON of its declared
        type (`Monitor.typed_result`), kept as it is."""
        state, monitor = self.state, self.monitor
        # the events before this one, indexed (for provenance as the gate steps)
        index = None if monitor.index_plan is None else self._index()
        plain = type(args) is dict  # the default attributes: the agent's call, not failed
        kind = "message" if tool == MESSAGE else "call"
        if not typed:
            if isinstance(result, str):  # only text is parsed (`normalise_result`)
                result = normalise_result(result)
            if kind == "call" and (plain or not attributes(args)["error"]):
                result = monitor.result_shapes.result(tool, result)  # the shape its signature declares
        calls, seen = state.calls, state.seen
        call = Call(tool, args, result, len(calls), kind)
        calls.append(call)
        actor = "assistant" if plain else str(attributes(args)["actor"])
        observed = kind == "call" and actor == "assistant" or monitor.observes(tool, actor)
        if observed:
            state.gate = monitor.gate.advance(state.gate, tool, args, result)
            # the same event at the same position in both lists: one object serves both
            seen.append(call if len(seen) == call.position else Call(tool, args, result, len(seen), kind))
            grounding = state.grounding
            if grounding is not None and grounding.context == state.context:
                grounding.take(seen)  # the result joins the grounding text now, not at the next proposal
        if index is not None:
            index.add(call, observed)
        if state.enforcement.override is not None:  # anything recorded ends the chance to override
            state.enforcement = after_record(state.enforcement)
        if actor != "assistant":
            return  # the user acted: the agent's pending proposal stays pending
        state.pending = None
        if tool in monitor.terminal_tools:
            state.ended_by = tool

    def set_context(self, context: str | None) -> None:
        """Give the run the user's request (None: none): later proposals are also checked for
        argument values grounded in it and in the results recorded so far (SAAG stage 3), and
        rules that read `request.text` read it from the start of the run (the gate follows the
        recorded calls again with it)."""
        with self._lock:
            self.state.context = check_context(context)
            if self.monitor.gate.reads_constants:
                self.state.gate = self.monitor.replayed_gate(self.state.calls, self.state.context, self.state.metrics)
                self.state.gate.context.sources = self._sources

    @property
    def context(self) -> str | None:
        with self._lock:
            return self.state.context

    def allowed_next(self) -> tuple[str, ...]:
        """The tools whose call now keeps the whole policy satisfiable."""
        with self._lock:
            return self.monitor.guidance(self.state.gate)[0]

    def required(self) -> tuple[str, ...]:
        """A shortest sequence of calls that would satisfy every rule still open."""
        with self._lock:
            return self.monitor.guidance(self.state.gate)[1]

    def finish(self) -> TraceReport:
        """End the run and return its compliance report (the report `policyc score` gives)."""
        with self._lock:
            if self.state.report is None:  # refusals still awaiting a next proposal stay unresolved
                self.state.report = self.monitor.score(self.trace)
            return self.state.report

    # ------------------------------------------------------------ what happened

    @property
    def trace(self) -> Trace:
        """The events that happened, in order (the policy reads its view of them)."""
        with self._lock:
            return Trace.from_events(tuple(self.state.calls), self.state.metrics or {}, self.id, None,
                                     self.state.context)

    @property
    def events(self) -> tuple[EnforcementEvent, ...]:
        """The enforcement log: one event per finding acted on."""
        with self._lock:
            return tuple(self.state.events)

    def enforcement_table(self) -> list[LayerRow]:
        """The AgentLTL paper's table 17 (events and insist rate per layer) for this run."""
        return enforcement_table(self.events)

    @property
    def stopped(self) -> bool:
        with self._lock:
            return self.state.enforcement.stopped is not None

    @property
    def ended(self) -> bool:
        """Whether a terminal call (the final answer) ended the run."""
        with self._lock:
            return self.state.ended_by is not None

    @property
    def finished(self) -> bool:
        with self._lock:
            return self.state.report is not None

    # ------------------------------------------------------------ snapshot

    def snapshot(self) -> dict[str, object]:
        """Everything about the run, as JSON-serialisable data (`Monitor.restore` takes it back)."""
        from policyc.runtime.snapshot import dump_run

        with self._lock:
            return dump_run(self)

    # ------------------------------------------------------------ internals

    def _check_open(self, what: str) -> None:
        if self.state.report is not None:
            raise RunError(f"cannot {what}: the run is finished")
        if self.state.ended_by is not None:
            raise RunError(f"cannot {what}: the run ended with `{self.state.ended_by}`")

    def _resolve(self, identity: str | None) -> None:
        """The agent's next move resolves the refusals of its last proposal."""
        for i in self.state.awaiting:
            event = self.state.events[i]
            self.state.events[i] = event.resolved(INSISTED if event.identity == identity else LISTENED)
        self.state.awaiting = []

    def _log(self, outcome: Outcome, step: int, tool: str, identity: str | None) -> None:
        if outcome.action in ("allow", "warn"):
            resolution = EXECUTED
        elif outcome.action == "stop":
            resolution = STOPPED
        else:
            resolution = None
        assert identity is not None, "a judged call always has its identity"
        for j in outcome.judged:
            index = len(self.state.events)
            self.state.events.append(EnforcementEvent(index, step, j.finding.rule, j.finding.layer, j.finding.kind,
                                                 j.severity, outcome.action, tool, identity, resolution))
            if resolution is None:
                self.state.awaiting.append(index)


def event_args(args: dict[str, Any], actor: str, message_id: str | None, error: bool = False) -> dict[str, Any]:
    """The arguments of an event, carrying its attributes when they are not the defaults."""
    if actor not in ("assistant", "user"):
        raise ValueError(f"an event's actor is \"assistant\" or \"user\", not {actor!r}")
    if message_id is not None and not isinstance(message_id, str):
        raise TypeError(f"a message id is a string, not {type(message_id).__name__}")
    if actor == "assistant" and message_id is None and not error:
        return args
    return CallArgs(args, {"actor": actor, "message_id": message_id, "error": bool(error)})


def check_metrics(metrics: object) -> dict[str, Any] | None:
    if metrics is not None and not isinstance(metrics, Mapping):
        raise TypeError(f"a run's metrics are a mapping (the metrics record), not {type(metrics).__name__}")
    if metrics is None:
        return None
    given = dict(metrics)
    problem = value_problem(given)
    if problem is not None:  # a run holds only what it can snapshot
        raise RunError(f"the metrics record's values {problem}; give values that are JSON data")
    return given


def check_context(context: object) -> str | None:
    if context is not None and not isinstance(context, str):
        raise TypeError(f"a run's context is the user's request as text, not {type(context).__name__}")
    return context
