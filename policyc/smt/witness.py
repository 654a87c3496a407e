"""What a solver answer carries: how strong it is, and a concrete trace when one exists.

>>> str(Strength.bounded(8)), str(Strength.bounded(8, 3)), str(EXACT)
('holds up to traces of length 8', 'holds up to traces of length 8 with lists of at most 3 elements', 'exact')
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Callable, Iterable, Mapping

from policyc.ir import nodes as n
from policyc.ir.ops import UNDEF
from policyc.ir.walk import subformulas
from policyc.trace.model import Trace


@dataclass(frozen=True, slots=True)
class Strength:
    """How far an answer goes: exact, or only over traces of at most `bound` calls."""

    exact: bool
    bound: int | None = None
    list_bound: int | None = None
    method: str = "z3"  # z3 (bounded unrolling), automata, z3-unbounded, syntax

    @classmethod
    def bounded(cls, k: int, list_bound: int | None = None) -> "Strength":
        return cls(False, k, list_bound)

    def __str__(self) -> str:
        if self.method == "undecided":
            return "not decided"
        if self.exact:
            return "exact (automata)" if self.method == "automata" else "exact"
        text = f"holds up to traces of length {self.bound}"
        if self.list_bound is not None:
            text += f" with lists of at most {self.list_bound} elements"
        return text

    def to_json(self) -> dict:
        out: dict = {"exact": self.exact, "method": self.method}
        if self.bound is not None:
            out["bound"] = self.bound
        if self.list_bound is not None:
            out["list_bound"] = self.list_bound
        out["text"] = str(self)
        return out


EXACT = Strength(True)
#: The strength of a question nothing could decide.
UNDECIDED = Strength(False, None, None, "undecided")


@dataclass(frozen=True)
class WitnessTrace:
    """A concrete trace decoded from a model, and whether the reference evaluator agrees.

    `confirmed` is the replay: every formula the query assumed has, on this trace, the truth
    value the query asked for. It is false only when an over-approximation (an extern, the
    entity extractor, `outputs`) let the solver assume something the trace does not show.
    """

    trace: Trace
    confirmed: bool
    externs: Mapping[str, Callable[..., bool]] = field(default_factory=dict, compare=False, repr=False)

    def __len__(self) -> int:
        return len(self.trace.calls)

    def __str__(self) -> str:
        """One event per step, with what a replay needs: `search(query: "a") -> read_file(path:
        "b")`; an event's actor, failure and message id as the patterns name them
        (`message(text: "hi", actor: "user")`, `refund(amount: 5, error: true)`), a result
        after `=`, and the user's request and the metrics first when the trace has them."""
        context = []
        if self.trace.request is not None:
            context.append(f"request {json.dumps(self.trace.request, ensure_ascii=False)}")
        if self.trace.metrics:
            context.append(f"metrics {json.dumps(dict(self.trace.metrics), ensure_ascii=False, default=str)}")
        calls = " -> ".join(_show_call(c) for c in self.trace.calls) if self.trace.calls else "the empty trace"
        return f"with {' and '.join(context)}: {calls}" if context else calls

    def to_json(self) -> dict:
        """The trace as a record `policyc score` reads (the AgentLTL paper's metrics record:
        `tool_calls`, each with its actor, failure and message id when they are not the
        defaults, the request, and the metrics as the record's other fields)."""
        return trace_record(self.trace)


def trace_record(trace: Trace) -> dict:
    """A trace as a metrics record (`policyc.trace.formats.record`).

    >>> from policyc.trace.model import Call
    >>> t = Trace((Call("message", {"text": "hi"}, kind="message", actor="user"), Call("refund", {"amount": 5}, error=True)),
    ...           {"tier": "gold"}, request="refund me")
    >>> trace_record(t)["tool_calls"][0]
    {'tool_name': 'message', 'arguments': {'text': 'hi'}, 'actor': 'user'}
    >>> trace_record(t)["request"], trace_record(t)["tier"], trace_record(t)["tool_calls"][1]["error"]
    ('refund me', 'gold', True)
    """
    calls = []
    for c in trace.calls:
        entry: dict = {"tool_name": c.name, "arguments": dict(c.args)}
        if c.result is not UNDEF:
            entry["tool_result"] = c.result
        if c.actor != "assistant":
            entry["actor"] = c.actor
        if c.message_id is not None:
            entry["message_id"] = c.message_id
        if c.error:
            entry["error"] = True
        calls.append(entry)
    out: dict = {**{k: v for k, v in trace.metrics.items() if k not in ("tool_calls", "request")}, "tool_calls": calls}
    if trace.request is not None:
        out["request"] = trace.request
    return out


def _show_call(call) -> str:
    args = [f"{k}: {json.dumps(v, ensure_ascii=False, default=str)}" for k, v in call.args.items()]
    if call.actor != "assistant" or call.is_message:
        args.append(f"actor: {json.dumps(call.actor)}")
    if call.message_id is not None:
        args.append(f"message_id: {json.dumps(call.message_id)}")
    if call.error:
        args.append("error: true")
    text = f"{call.name}({', '.join(args)})"
    if call.result is not UNDEF and call.result is not None and call.result != {}:
        text += f" = {json.dumps(call.result, ensure_ascii=False, default=str)}"
    return text


def approximations(formulas: Iterable[n.Formula]) -> tuple[str, ...]:
    """What the solver over-approximates in these formulas, as phrases for a finding's notes.

    >>> from policyc.ir import build as b
    >>> approximations([b.event("a", b.extern("is_vip", b.arg("email")))])
    ('extern predicate `is_vip` is uninterpreted (any truth value per argument)',)
    """
    out: dict[str, None] = {}
    for phi in formulas:
        for sub in subformulas(phi):
            if isinstance(sub, n.Extern):
                out[f"extern predicate `{sub.name}` is uninterpreted (any truth value per argument)"] = None
            elif isinstance(sub, n.Op) and sub.op == "entities":
                out["`entities(...)` is over-approximated (any list of strings)"] = None
            elif isinstance(sub, n.Outputs):
                out["`outputs` is over-approximated (any set of strings)"] = None
            elif isinstance(sub, n.Op) and sub.op == "actions":
                out["`actions(...)` is over-approximated (any list of strings)"] = None
            elif isinstance(sub, n.Done):
                out["`done` is over-approximated (any list of strings)"] = None
            elif isinstance(sub, n.Op) and sub.op in ("lower", "upper", "strip"):
                out[f"`{sub.op}` is uninterpreted"] = None
    return tuple(out)
