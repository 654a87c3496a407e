"""The trace model: events e_i = (name, args, result, position, kind, actor, message_id, error)
and the metrics record μ.

Appendix A.1's trace is a sequence of the agent's tool calls c_i = (name, args, result, i).
An event generalises a call: its `kind` is "call" or "message"; its `actor` is who made it,
"assistant" (the agent) or "user" (a simulated customer acting on their device, say); its
`message_id` names the message that made it, so calls can be grouped by message; a call's
`error` says whether it failed (known, like its result, only once it ran). A message is an
event named `message` whose only argument is its `text`.

Readers keep every event a log records. A policy sees its *view* of the trace
(`Trace.observed`): the agent's calls, as appendix A has it, plus the classes of events the
policy declares it observes (`observe messages, user_calls`), renumbered from 0. So a policy
that observes nothing new reads exactly the call-only trace it always did.

>>> t = Trace.from_events((Call("message", {"text": "My data is off."}, kind="message", actor="user"),
...                        Call("check_status_bar", {}, "No signal", actor="user"),
...                        Call("get_customer_by_phone", {"phone_number": "555"}, {"customer_id": "C1"})))
>>> t.tool_sequence, t.observed(frozenset({"messages", "user_calls"})).tool_sequence
(['get_customer_by_phone'], ['message', 'check_status_bar', 'get_customer_by_phone'])
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import TYPE_CHECKING, Any, Mapping, Protocol

from policyc.grounding import CODE, Extractor, SeenSet
from policyc.ir.data import DEFAULT_ATTRIBUTES, CallArgs, attributes, path_value
from policyc.ir.ops import UNDEF, value_key

if TYPE_CHECKING:
    from policyc.grounding.provenance import Leaf
    from policyc.ir.data import History


class RunIndex(Protocol):
    """A gate's index of a run's sources and results (`policyc.runtime.history.RunIndex`): what
    it answers for a trace of `calls` events, or None when it does not cover them."""

    def history(self, position: int, calls: int) -> History | None: ...

    def outputs(self, tools: tuple[str, ...], extractor: Extractor, calls: int) -> SeenSet | None: ...

#: The name of message events, and the event classes a policy may observe beyond the agent's calls.
MESSAGE = "message"
CALL, MESSAGE_KIND = "call", "message"
ASSISTANT, USER = "assistant", "user"
OBSERVABLE = ("messages", "user_calls")
#: Who can make an event: a trace file names no other actor (`policyc.trace.formats.record`).
ACTORS = (ASSISTANT, USER)


def view_actors(is_message: bool, observes: frozenset[str] = frozenset()) -> tuple[str, ...]:
    """The actors an event of a policy's view can have: a message is the agent's or the
    user's; a tool call is the agent's, or also the user's when the policy observes
    `user_calls` (otherwise the view leaves the user's calls out).

    >>> view_actors(False), view_actors(False, frozenset({"user_calls"})), view_actors(True)
    (('assistant',), ('assistant', 'user'), ('assistant', 'user'))
    """
    return ACTORS if is_message or "user_calls" in observes else (ASSISTANT,)


@dataclass(frozen=True, slots=True)
class Call:
    """One event of a trace (for appendix A, one tool call of the agent)."""

    name: str
    args: Mapping[str, Any]
    result: Any = UNDEF  # UNDEF: no result recorded (or not yet known)
    position: int = 0
    kind: str = CALL  # "call" or "message"
    actor: str = ASSISTANT
    message_id: str | None = None
    error: bool = False

    def __post_init__(self) -> None:
        if type(self.args) is dict and self.actor == ASSISTANT and self.message_id is None and not self.error:
            return  # the common event: plain arguments, default attributes on both sides
        own = {"actor": self.actor, "message_id": self.message_id, "error": self.error}
        carried = attributes(self.args)
        if own == DEFAULT_ATTRIBUTES and carried != DEFAULT_ATTRIBUTES:  # given by the arguments
            for key in own:
                object.__setattr__(self, key, carried.get(key, DEFAULT_ATTRIBUTES[key]))
        elif carried != own:  # the arguments carry the attributes to every engine
            object.__setattr__(self, "args", CallArgs(self.args, own))

    @property
    def is_message(self) -> bool:
        return self.kind == MESSAGE_KIND

    def __str__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.args.items())
        return f"{self.name}({args})"


@dataclass(frozen=True)
class Trace:
    """A finite sequence of calls plus the metrics record they came with.

    `calls` is the sequence rules are evaluated on: the agent's tool calls (appendix A) for a
    trace as read, the events a policy observes for its view (`observed`). `events` is
    everything the log recorded (the calls themselves when nothing more was recorded).
    """

    calls: tuple[Call, ...]
    metrics: Mapping[str, Any] = field(default_factory=dict)
    id: str | None = None
    origin: str | None = None  # "file:line" the record was read from
    request: str | None = None  # the user's request that started the run, when the log has it
    events: tuple[Call, ...] | None = None  # every event recorded (None: the calls)
    # where each call is among the events (None: the calls are the events)
    positions: tuple[int, ...] | None = field(default=None, compare=False, repr=False)
    # a gate's index of the run's sources and results, which the trace-wide questions read
    # instead of the calls when it covers them (`policyc.runtime.history`)
    index: RunIndex | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        if self.events is None:
            object.__setattr__(self, "events", self.calls)

    @property
    def event_positions(self) -> tuple[int, ...] | range:
        """The position among `events` of each call (of the view)."""
        if self.positions is not None:
            return self.positions
        events = self.events or ()
        if len(events) == len(self.calls):
            return range(len(self.calls))
        out, j = [], 0  # the calls are a subsequence of the events, as `observed` keeps them
        for k, event in enumerate(events):
            if j < len(self.calls) and (event is self.calls[j] or event.args is self.calls[j].args
                                        and event.result is self.calls[j].result):
                out.append(k)
                j += 1
        return tuple(out)

    @classmethod
    def of(cls, *calls: tuple[Any, ...], metrics: Mapping[str, Any] | None = None, id: str | None = None) -> "Trace":
        """Build a trace from (name, args[, result]) tuples.

        >>> Trace.of(("search", {"query": "x"}, ["a.py"]), ("final_answer", {"answer": "a.py"})).tool_sequence
        ['search', 'final_answer']
        """
        out = []
        for i, c in enumerate(calls):
            name, args, *rest = c
            args = CallArgs(args, args.attrs) if isinstance(args, CallArgs) else dict(args)  # attributes kept
            out.append(Call(name, args, rest[0] if rest else UNDEF, i))
        return cls(tuple(out), dict(metrics or {}), id)

    @classmethod
    def from_events(cls, events: tuple[Call, ...], metrics: Mapping[str, Any] | None = None, id: str | None = None,
                    origin: str | None = None, request: str | None = None) -> "Trace":
        """A trace of everything a log recorded; its `calls` are the agent's tool calls."""
        base = cls(tuple(events), dict(metrics or {}), id, origin, request, tuple(events))
        return base.observed(frozenset())

    def __len__(self) -> int:
        return len(self.calls)

    @property
    def tool_sequence(self) -> list[str]:
        return [c.name for c in self.calls]

    def prefix(self, length: int) -> "Trace":
        """The first `length` calls, with every event the log recorded before the next one
        (a user's message the policy does not observe is still a source of provenance)."""
        calls = self.calls[:length]
        events = self.events or ()
        if len(events) == len(self.calls):
            return Trace(calls, self.metrics, self.id, self.origin, self.request, calls)
        positions = tuple(self.event_positions)
        end = positions[length] if length < len(positions) else len(events)
        return Trace(calls, self.metrics, self.id, self.origin, self.request, tuple(events[:end]), positions[:length])

    def observed(self, observes: frozenset[str] = frozenset()) -> "Trace":
        """The view of a policy that observes these event classes (`OBSERVABLE`) besides the
        agent's calls: the other events left out, positions renumbered. A tool call that
        happens to be named `message` is shown as `` `message` `` in a view with messages,
        so that it is never read as one."""
        messages, users = "messages" in observes, "user_calls" in observes
        events = self.events
        assert events is not None
        if events is self.calls and self._call_numbers is None and not (
                messages and any(c.name == MESSAGE for c in events)):
            return self  # every event is a call of the agent (told once, kept for `step`)
        positions: list[int] | None = None
        if all(not c.is_message and c.actor == ASSISTANT for c in events) and not (
                messages and any(c.name == MESSAGE for c in events)):
            kept = list(events)
        else:
            kept, positions = [], []
            for k, c in enumerate(events):
                if c.is_message and not messages or not c.is_message and c.actor != ASSISTANT and not users:
                    continue
                name = "`message`" if messages and not c.is_message and c.name == MESSAGE else c.name
                kept.append(c if (c.name, c.position) == (name, len(kept)) else
                            replace(c, name=name, position=len(kept)))
                positions.append(k)
        if tuple(kept) == self.calls:
            return self
        return Trace(tuple(kept), self.metrics, self.id, self.origin, self.request, events,
                     None if positions is None else tuple(positions), self.index)

    @cached_property
    def globals(self) -> "TraceGlobals":
        return TraceGlobals(self)

    @cached_property
    def _call_numbers(self) -> tuple[int, ...] | None:
        """Per position, the agent's tool calls up to and including it; None when every
        event is one (positions are then call numbers)."""
        if all(c.kind != MESSAGE_KIND and c.actor == ASSISTANT for c in self.calls):  # none is a message
            return None
        out, n = [], 0
        for c in self.calls:
            n += not c.is_message and c.actor == ASSISTANT
            out.append(n)
        return tuple(out)

    @property
    def events_are_calls(self) -> bool:
        """Every event is a tool call of the agent: positions are call numbers."""
        return self._call_numbers is None

    def calls_through(self, length: int) -> int:
        """How many of the first `length` events are the agent's tool calls."""
        numbers = self._call_numbers
        if numbers is None or length <= 0:
            return max(0, min(length, len(self.calls)))
        return numbers[min(length, len(numbers)) - 1]

    def step(self, position: int) -> str:
        """The event at `position` (0-based) as reports name it: `call #4` when the trace is the
        agent's calls alone; else its event number, and for a call of the agent its number
        among them: `event #9, call #4`, `event #8` (a message, or a call the user made).

        >>> t = Trace.from_events((Call("message", {"text": "hi"}, kind="message", actor="user"),
        ...                        Call("lookup", {}, {}))).observed(frozenset({"messages"}))
        >>> t.step(0), t.step(1), Trace.of(("a", {}), ("b", {})).step(1)
        ('event #1', 'event #2, call #1', 'call #2')
        """
        numbers = self._call_numbers
        if numbers is None or not 0 <= position < len(self.calls):
            return f"call #{position + 1}"
        event = self.calls[position]
        if event.is_message or event.actor != ASSISTANT:
            return f"event #{position + 1}"
        return f"event #{position + 1}, call #{numbers[position]}"


class TraceGlobals:
    """Trace-wide domains (appendix A.2.4), each computed once per trace.

    `values(tool, path, flatten)` is the active domain of `tool.path`: the distinct values it
    takes over the calls to `tool`, in order of first appearance (⊥ and null left out; with
    `flatten`, list values contribute their elements). `outputs(tools)` is the grounding set
    of the results of `tools` (every tool when empty).
    """

    def __init__(self, trace: Trace):
        self.trace = trace
        self._values: dict[tuple[Any, ...], list[Any]] = {}
        self._outputs: dict[tuple[tuple[str, ...], int], tuple[Extractor, SeenSet]] = {}
        self._leaves: list[Leaf] | None = None
        self._visible: list[int] = []  # each leaf's `visible_from`

    def values(self, tool: str, path: tuple[str | int, ...], flatten: bool) -> list[Any]:
        key = (tool, path, flatten)
        if key not in self._values:
            seen: dict[object, object] = {}
            for call in self.trace.calls:
                if call.name != tool or not path:
                    continue
                if path[0] == "result":
                    value = path_value(call.result, path[1:])
                else:
                    value = path_value(call.args.get(str(path[0]), UNDEF), path[1:])
                if value is UNDEF or value is None:
                    continue
                for item in (value if flatten and isinstance(value, list) else [value]):
                    seen.setdefault(value_key(item), item)
            self._values[key] = list(seen.values())
        return self._values[key]

    def outputs(self, tools: tuple[str, ...], extractor: Extractor = CODE) -> SeenSet:
        index = self.trace.index
        if index is not None:  # a gate's, kept as results were recorded
            found = index.outputs(tools, extractor, len(self.trace.calls))
            if found is not None:
                return found
        key = (tools, id(extractor))
        if key not in self._outputs:
            seen = extractor.seen()
            for call in self.trace.calls:
                if (not tools or call.name in tools) and call.result is not UNDEF:
                    seen.add_call(dict(call.args), call.result)
            self._outputs[key] = (extractor, seen)  # the extractor is kept: its id stays its own
        return self._outputs[key][1]

    def done(self, terminal: tuple[str, ...] = ()) -> list[str]:
        """`done`: the names of the calls that did not fail (messages and `terminal` left out)."""
        key = ("done", terminal)
        if key not in self._values:
            self._values[key] = sorted({c.name for c in self.trace.calls
                                        if not c.is_message and not c.error and c.name not in terminal})
        return self._values[key]

    def metric(self, path: tuple[str | int, ...]) -> object:
        return path_value(dict(self.trace.metrics), path)

    def request(self) -> object:
        """`request`: the user's request as a record, `{"text": ...}`; ⊥ when unknown."""
        text = self.trace.request
        return UNDEF if text is None else {"text": text}

    def history(self, position: int) -> History:
        """The sources known at a position of the view (`policyc.trace.sources`): from the
        gate's index when the trace has one that covers it, else by the definition."""
        from policyc.trace.sources import TraceHistory, trace_leaves

        index = self.trace.index
        if index is not None:
            found = index.history(position, len(self.trace.calls))
            if found is not None:
                return found
        if self._leaves is None:
            self._leaves = trace_leaves(self.trace)
            self._visible = [leaf.visible_from for leaf in self._leaves]
        return TraceHistory(self._leaves, position, self._visible)
