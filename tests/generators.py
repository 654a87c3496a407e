"""The one generator of formulas, rules, policies and traces for every differential test.

A `Vocabulary` is a tool catalogue (typed signatures, maybe a terminal tool) with what
formulas over it may say (guards per tool, some reading a bound variable; conditions on
that variable; quantifier domains) and the calls its traces are made of. Four are defined:

| vocabulary | tools | drawn by |
|---|---|---|
| `LETTERS` | `a`..`d(x: int?) -> any`, results 0, 1, 2 or none, and `e`, named by no formula | automata, position engine, stdlib |
| `AGENT` | `a`..`c(n: int?) -> {ok: bool}` and `terminal done(answer: str?)` | runtime, scorer, lint |
| `DATA` | ints, floats, strings, booleans, lists, records, optional and untyped values, a terminal tool | the Z3 encoding |
| `LISTS` | list results and texts, read by quantifiers over a call's lists, `[*]`, typed entities, `matches`, `from` and `flows`, traces with a request | provenance and lists in results |
| `RUN` | texts and lists of records in results, read with the run's request and metrics (`request.text`, `metrics.cost`), and rules whose variable is bound at the call that triggers them, with `once` of earlier calls relating it to their results by `contains`, `in`, `[*]` and `exists`; traces with a request and metrics | the run's constants, history atoms, values bound at the trigger |

`formulas` uses every operator, future and past, strong and weak, guards on arguments and
results (alone, negated, combined), constants, conditions on a bound variable and, when
asked, quantifiers anywhere (nested ones shadow). `quantified` puts one quantifier where
the automata's slicing takes it (at the top, under `always`, beside a plain part, negated);
`templates` and `per_value` are rule shapes authors write; `policies` combines them.
`test_engines.py` runs all of them, over all three vocabularies, through every engine.
Traces (`calls`, `traces`) draw calls from the vocabulary; with a terminal tool, a trace
may end with one terminal call. `continuations` enumerates every short continuation over a
vocabulary's representative calls, for brute-force oracles.
"""

from __future__ import annotations

import itertools
import os
from dataclasses import dataclass, field
from typing import Callable, Iterator, Mapping

from hypothesis import strategies as st

from policyc.ir import build as b
from policyc.ir import nodes as n
from policyc.ir.data import CallArgs
from policyc.ir.ops import UNDEF
from policyc.ir.policy import Policy, Rule, Severity
from policyc.ir.types import (
    ANY, BOOL, FLOAT, INT, STR, ListT, OptionalT, Param, RecordT, ToolSignature, Type,
)
from policyc.trace import Trace

NIGHTLY = bool(os.environ.get("POLICYC_NIGHTLY"))

#: A call as traces are built from it: (tool, arguments, result), UNDEF for no result.
CallTuple = tuple[str, dict, object]


@dataclass(frozen=True)
class Vocabulary:
    """A tool catalogue and what formulas and traces over it may use."""

    name: str
    tools: Mapping[str, ToolSignature]
    named: tuple[str, ...]                                  # tools formulas mention
    guards: Callable[[str, n.Term | None], tuple[n.Term, ...]]  # a tool's guards (some read the variable)
    conditions: Callable[[n.Term], tuple[n.Term, ...]]     # data conditions on the bound variable
    domains: tuple[n.Term, ...]                             # trace-wide quantifier domains
    literal_domains: tuple[n.Term, ...]                     # literal lists a domain may add
    call: st.SearchStrategy                                 # one (non-terminal) call of a trace
    final: st.SearchStrategy | None = None                  # one terminal call
    pool: tuple[CallTuple, ...] = ()                        # representative calls (brute force)
    finals: tuple[CallTuple, ...] = ()                      # representative terminal calls
    var: str = "o"                                          # the quantified variable
    var_type: Type | None = None
    key: str | None = None                                  # the argument per-value rules bind
    keyed: tuple[str, ...] = field(default=())              # the tools that have `key`
    combine_guards: bool = True                             # guards negated and combined, not only single
    requests: tuple[str | None, ...] = ()                   # the user's requests a trace may start with
    metrics: tuple[dict, ...] = ()                          # the metrics records a trace may carry
    constant_conditions: tuple[n.Term, ...] = ()            # conditions on the run's constants alone
    bound: Callable[["Vocabulary"], st.SearchStrategy] | None = None  # rules binding a value at their trigger


def trace_of(calls) -> Trace:
    return Trace.of(*calls)


# ------------------------------------------------------------------ vocabularies

COMPARISONS = ("eq", "ne", "lt", "gt", "le", "ge")
CONSTANTS = (0, 1, 2)


def _letters_guards(tool: str, v: n.Term | None) -> tuple[n.Term, ...]:
    x = b.arg("x")
    out = tuple(b.op(o, x, b.lit(k)) for o in COMPARISONS for k in CONSTANTS)
    out += tuple(b.op("eq", b.result(), b.lit(k)) for k in (0, 1))
    # the event's attributes: its message (known with the arguments), whether it failed
    # (known, like the result, only once the call ran), who made it (always the agent here)
    out += (b.attr("error"), b.op("eq", b.attr("message_id"), b.lit("m1")),
            b.op("eq", b.attr("actor"), b.lit("assistant")))
    if v is not None:
        out += (b.op("eq", x, v), b.op("ne", x, v), b.op("eq", b.result(), v))
    return out


LETTER_TOOLS = ("a", "b", "c", "d")
LETTERS_POOL = tuple((tool, {} if x is None else {"x": x}, r)
                     for tool in LETTER_TOOLS + ("e",) for x in (-1, 0, 1, 2, 3, None) for r in (0, 1, 2, UNDEF)) + tuple(
    (tool, CallArgs({"x": x}, attrs), r)  # calls that failed, or that a message made
    for tool in LETTER_TOOLS + ("e",) for x in (0, 1) for r in (0, UNDEF)
    for attrs in ({"error": True}, {"message_id": "m1"}))

LETTERS = Vocabulary(
    name="letters",
    tools={t: ToolSignature(t, (Param("x", OptionalT(INT)),), ANY) for t in LETTER_TOOLS + ("e",)},
    named=LETTER_TOOLS,
    guards=_letters_guards,
    conditions=lambda v: tuple(b.op(o, v, b.lit(k)) for o in ("eq", "gt", "le") for k in CONSTANTS),
    domains=tuple(b.values(t, ("x",)) for t in LETTER_TOOLS) + (b.values("b", ("result",)),),
    literal_domains=(b.lit([0]), b.lit([1]), b.lit([2]), b.lit([0, 2]), b.lit([])),
    call=st.sampled_from(LETTERS_POOL),
    pool=LETTERS_POOL,
    var_type=INT,
    key="x",
    keyed=LETTER_TOOLS,
)


def _agent_guards(tool: str, v: n.Term | None) -> tuple[n.Term, ...]:
    if tool == "done":
        return ()
    ok = b.field(b.result(), "ok")
    out = (b.op("eq", b.arg("n"), b.lit(1)), b.op("gt", b.arg("n"), b.lit(1)),
           b.op("eq", ok, b.lit(True)), b.op("eq", ok, b.lit(False)), b.attr("error"))
    return out + ((b.op("eq", b.arg("n"), v),) if v is not None else ())


OUTCOME = RecordT("Outcome", (("ok", BOOL),))
AGENT_TOOLS = {name: ToolSignature(name, (Param("n", OptionalT(INT)),), OUTCOME) for name in "abc"}
AGENT_TOOLS["done"] = ToolSignature("done", (Param("answer", OptionalT(STR)),), OUTCOME, terminal=True)
AGENT_POOL = tuple((t, {"n": k}, {"ok": ok}) for t in "abc" for k in (1, 2) for ok in (True, False)) + tuple(
    (t, CallArgs({"n": k}, {"error": True}), {"ok": False}) for t in "abc" for k in (1, 2))  # calls that failed
AGENT_FINALS = tuple(("done", {}, {"ok": ok}) for ok in (True, False))

AGENT = Vocabulary(
    name="agent",
    tools=AGENT_TOOLS,
    named=("a", "b", "c", "done"),
    guards=_agent_guards,
    conditions=lambda v: (b.op("eq", v, b.lit(1)), b.op("gt", v, b.lit(1))),
    domains=tuple(b.values(t, ("n",)) for t in "abc"),
    literal_domains=(b.lit([1]), b.lit([2]), b.lit([])),
    call=st.sampled_from(AGENT_POOL),
    final=st.sampled_from(AGENT_FINALS),
    pool=AGENT_POOL,
    finals=AGENT_FINALS,
    var_type=INT,
    key="n",
    keyed=("a", "b", "c"),
    # the pool's results all have `ok`: `ok == true or ok == false` would tell apart a result
    # without it, which a gate must allow for and the brute-force oracles never try
    combine_guards=False,
)


def _data_guards(tool: str, v: n.Term | None) -> tuple[n.Term, ...]:
    res, arg, lit = b.result(), b.arg, b.lit
    out = {
        "a": (b.op("gt", arg("x"), lit(0)), b.op("eq", arg("s"), lit("p")),
              b.op("eq", b.field(res, "ok"), lit(True)),
              b.op("le", b.op("add", arg("x"), b.field(res, "n")), lit(1)),
              b.op("eq", b.op("mod", arg("x"), lit(2)), lit(1)),
              b.op("startswith", arg("s"), lit("p"))),
        "b": (b.op("ge", arg("v"), lit(0.5)), b.op("eq", arg("tag"), lit(None)),
              b.op("ne", arg("tag"), lit("p")), b.op("in", lit(1), res),
              b.op("gt", b.op("len", res), lit(1)), b.op("eq", b.index(res, lit(0)), lit(2))),
        "c": (b.op("eq", arg("flag"), lit(True)), b.op("eq", res, lit(1)),
              b.op("eq", res, lit("p")), b.op("not", b.op("eq", res, lit(None)))),
        "d": (b.op("in", lit("p"), arg("items")), b.op("eq", b.op("len", arg("items")), lit(0)),
              b.op("contains", b.index(arg("items"), lit(-1)), lit("q"))),
        "done": (b.op("eq", arg("answer"), lit("p")), b.op("startswith", arg("answer"), lit("p")),
                 b.op("eq", arg("answer"), lit(None))),
    }[tool]
    if v is not None:
        out += {
            "a": (b.op("eq", arg("x"), v), b.op("lt", arg("x"), v)),
            "b": (b.op("in", v, res), b.op("eq", b.op("len", res), v)),
            "c": (b.op("eq", res, v),),
            "d": (b.op("in", b.op("add", v, lit(0)), lit([1, 2])),),
            "done": (),
        }[tool]
    return out


DATA_TOOLS = {
    "a": ToolSignature("a", (Param("x", INT), Param("s", STR)), RecordT("R", (("ok", BOOL), ("n", INT)))),
    "b": ToolSignature("b", (Param("v", FLOAT), Param("tag", OptionalT(STR))), ListT(INT)),
    "c": ToolSignature("c", (Param("flag", BOOL),), ANY),
    "d": ToolSignature("d", (Param("items", ListT(STR)),), ANY),
    "done": ToolSignature("done", (Param("answer", OptionalT(STR)),), ANY, terminal=True),
}
_INTS = st.integers(-3, 3)
_STRS = st.sampled_from(["", "p", "q", "pq"])
_FLOATS = st.sampled_from([0.0, 0.5, -1.0, 2.0, 3.0])


def _data_call() -> st.SearchStrategy:
    a = st.builds(lambda x, s, ok, k: ("a", {"x": x, "s": s}, {"ok": ok, "n": k}), _INTS, _STRS, st.booleans(), _INTS)
    tag = st.sampled_from([UNDEF, None, "p", "q"])
    b_ = st.builds(lambda v, t, r: ("b", {"v": v, **({} if t is UNDEF else {"tag": t})}, r),
                   _FLOATS, tag, st.lists(_INTS, max_size=3))
    c = st.builds(lambda f, r: ("c", {"flag": f}, r), st.booleans(),
                  st.one_of(st.just(UNDEF), st.none(), _INTS, _STRS, st.booleans()))
    d = st.builds(lambda items: ("d", {"items": items}, UNDEF), st.lists(_STRS, max_size=3))
    return st.one_of(a, b_, c, d)


DATA = Vocabulary(
    name="data",
    tools=DATA_TOOLS,
    named=("a", "b", "c", "d", "done"),
    guards=_data_guards,
    conditions=lambda v: (b.op("gt", v, b.lit(0)), b.op("eq", v, b.lit(1))),
    domains=(b.values("a", ("x",)), b.values("b", ("result",), True), b.values("a", ("result", "n"))),
    literal_domains=(b.lit([1, 2]), b.lit([])),
    call=_data_call(),
    final=st.builds(lambda a: ("done", {} if a is UNDEF else {"answer": a}, UNDEF),
                    st.sampled_from([UNDEF, None, "p", "pq", ""])),
    var="x",
    var_type=INT,
)

_IBAN, _MAILED = "DE89370400440532013000", "GB82WEST12345698765432"
#: `trusted`: the request, the user and the contact list; `untrusted`: every other result.
TRUSTED = (("request", "", (), True), ("user", "", (), True), ("tool", "contacts", (), True))
UNTRUSTED = (("tool", "contacts", (), False), ("default", "", (), True))
REQUEST = (("request", "", (), True),)


def _lists_guards(tool: str, v: n.Term | None) -> tuple[n.Term, ...]:
    res, arg, lit, var = b.result(), b.arg, b.lit, b.var("c")
    field = lambda name: b.field(var, name)  # noqa: E731
    out = {
        "contacts": (b.quant("exists", "c", res, b.op("eq", field("iban"), lit(_IBAN))),
                     b.quant("forall", "c", res, b.op("matches", field("iban"), lit("DE.*"))),
                     b.op("in", lit("Ann"), b.project(res, ("name",))),
                     b.op("gt", b.op("len", b.project(res, ("iban",))), lit(1))),
        "inbox": (b.quant("exists", "c", res, b.op("contains", field("body"), lit("pay"))),
                  b.quant("forall", "c", res, b.op("eq", b.op("len", b.op("emails", field("sender"))), lit(1)))),
        "pay": (b.from_(arg("iban"), "trusted", TRUSTED), b.from_(arg("iban"), "untrusted", UNTRUSTED, only=True),
                b.from_(arg("amount"), "request", REQUEST), b.op("matches", arg("iban"), lit("DE[0-9]{20}")),
                b.op("ne", arg("amount"), lit(None))),
        "send": (b.op("not", b.flows("untrusted", UNTRUSTED, arg("body"), 2)),
                 b.quant("forall", "c", b.op("urls", arg("body")), b.from_(var, "request", REQUEST)),
                 b.op("eq", b.op("len", b.op("secrets", arg("body"))), lit(0)),
                 b.from_(arg("to"), "inbox.result.sender", (("tool", "inbox", ("sender",), True),))),
    }[tool]
    if v is not None:
        out += {"contacts": (b.quant("exists", "c", res, b.op("eq", field("iban"), v)),),
                "inbox": (), "pay": (b.op("eq", arg("iban"), v),), "send": (b.op("eq", arg("to"), v),)}[tool]
    return out


LISTS_TOOLS = {
    "contacts": ToolSignature("contacts", (), ListT(RecordT("", (("name", STR), ("iban", STR))))),
    "inbox": ToolSignature("inbox", (), ListT(RecordT("", (("sender", STR), ("body", STR))))),
    "pay": ToolSignature("pay", (Param("iban", STR), Param("amount", OptionalT(FLOAT))), ANY),
    "send": ToolSignature("send", (Param("to", STR), Param("body", STR)), ANY),
}
LISTS_POOL: tuple[CallTuple, ...] = (
    ("contacts", {}, [{"name": "Ann", "iban": "DE89 3704 0044 0532 0130 00"}, {"name": "Bob", "iban": "FR1420041010050500013M02606"}]),
    ("contacts", {}, []),
    ("inbox", {}, [{"sender": "eve@evil.example", "body": f"pay {_MAILED} 120 EUR, see https://evil.example/x"}]),
    ("inbox", {}, [{"sender": "ann@x.com", "body": "lunch at noon"}, {"sender": "bob", "body": "pay later"}]),
    ("pay", {"iban": _IBAN, "amount": 120}, "ok"), ("pay", {"iban": _MAILED, "amount": 120}, "ok"),
    ("pay", {"iban": _IBAN}, "ok"), ("pay", {"iban": "FR1420041010050500013M02606", "amount": 12.5}, UNDEF),
    ("send", {"to": "eve@evil.example", "body": "see https://evil.example/x"}, "sent"),
    ("send", {"to": "ann@x.com", "body": "lunch at noon it is"}, "sent"),
    ("send", {"to": "ann@x.com", "body": "key AKIAIOSFODNN7EXAMPLE"}, UNDEF),
)

LISTS = Vocabulary(
    name="lists",
    tools=LISTS_TOOLS,
    named=tuple(LISTS_TOOLS),
    guards=_lists_guards,
    conditions=lambda v: (b.op("eq", v, b.lit(_IBAN)), b.op("eq", v, b.lit("ann@x.com"))),
    domains=(b.values("pay", ("iban",)), b.values("send", ("to",))),
    literal_domains=(b.lit([_IBAN]), b.lit([])),
    call=st.sampled_from(LISTS_POOL),
    pool=LISTS_POOL,
    var_type=STR,
    combine_guards=True,
    requests=(None, "pay Ann 120", "pay 12.5 to DE89 3704 0044 0532 0130 00, see https://evil.example/x"),
)

def _run_guards(tool: str, v: n.Term | None) -> tuple[n.Term, ...]:
    res, arg, lit = b.result(), b.arg, b.lit
    text = b.field(b.request(), "text")
    t = b.var("t")
    out = {
        "read": (b.op("contains", res, lit("ann")), b.op("eq", arg("path"), lit("a")),
                 b.op("contains", text, arg("path"))),
        "find": (b.quant("exists", "t", res, b.op("eq", b.field(t, "who"), lit("ann"))),
                 b.op("gt", b.op("len", res), lit(1)), b.op("contains", b.op("lower", text), arg("q"))),
        "send": (b.op("eq", arg("to"), lit("ann")), b.op("contains", b.op("lower", text), b.op("lower", arg("to"))),
                 b.op("gt", b.op("len", arg("ids")), lit(1)), b.op("le", b.op("len", arg("ids")), b.metric(("cost",))),
                 b.op("in", arg("to"), arg("ids"))),
        "answer": (b.op("contains", arg("text"), lit("ann")), b.op("contains", text, arg("text"))),
    }[tool]
    if v is not None:
        out += {
            "read": (b.op("contains", res, v), b.op("eq", arg("path"), v)),
            "find": (b.op("in", v, b.project(res, ("who",))), b.quant("exists", "t", res, b.op("eq", b.field(t, "id"), v)),
                     b.op("eq", arg("q"), v)),
            "send": (b.op("eq", arg("to"), v), b.op("in", v, arg("ids")), b.op("contains", text, v)),
            "answer": (b.op("contains", arg("text"), v),),
        }[tool]
    return out


RUN_TOOLS = {
    "read": ToolSignature("read", (Param("path", OptionalT(STR)),), ANY),
    "find": ToolSignature("find", (Param("q", OptionalT(STR)),), ListT(RecordT("", (("id", STR), ("who", STR))))),
    "send": ToolSignature("send", (Param("to", OptionalT(STR)), Param("ids", OptionalT(ListT(STR)))), ANY),
    "answer": ToolSignature("answer", (Param("text", OptionalT(STR)),), ANY, terminal=True),
}
_RUN_WORDS = ("ann", "bob", "d1", "x")
RUN_POOL: tuple[CallTuple, ...] = (
    ("read", {"path": "a"}, "pay d1 to ann"), ("read", {"path": "b"}, "from bob"), ("read", {}, UNDEF),
    ("find", {"q": "ann"}, [{"id": "d1", "who": "ann"}, {"id": "d2", "who": "bob"}]),
    ("find", {"q": "x"}, []), ("find", {}, [{"id": "x", "who": "x"}]),
    ("send", {"to": "ann", "ids": ["d1"]}, "ok"), ("send", {"to": "bob", "ids": ["d1", "x"]}, "ok"),
    ("send", {"to": "x", "ids": []}, UNDEF), ("send", {"ids": ["ann"]}, "ok"), ("send", {"to": "d1"}, "ok"),
    ("send", {"to": "ann", "ids": "d1 x"}, "ok"),  # a text where a list belongs: `v in ids` reads substrings
    ("send", {"to": None, "ids": None}, "ok"),
)
RUN_FINALS = (("answer", {"text": "ann"}, UNDEF), ("answer", {"text": "hello"}, UNDEF))


def _bound_at_trigger(vocab: "Vocabulary") -> st.SearchStrategy:
    """`forall v in send.to: G (send(to: v) -> ψ(v))` (or `v in ids`, over `send.ids`): ψ a
    disjunction of conditions on v, `once` of earlier calls relating v to their data, the
    trigger's own call, and formulas that do not read v."""
    v = b.var(vocab.var)

    @st.composite
    def rule(draw) -> n.Formula:
        by_list = draw(st.booleans())
        binder = b.op("in", v, b.arg("ids")) if by_list else b.op("eq", b.arg("to"), v)
        extra = draw(st.sampled_from([b.LIT_TRUE, b.op("ne", v, b.lit("x")), b.op("gt", b.op("len", b.arg("ids")), b.lit(0))]))
        trigger = b.event("send", b.op("and", binder, extra))
        pieces = []
        for _ in range(draw(st.integers(1, 3))):
            kind = draw(st.integers(0, 5))
            if kind == 0:
                pieces.append(b.cond(draw(st.sampled_from(vocab.conditions(v)))))
            elif kind <= 3:  # `once` of an earlier call, related to v by its guard
                tool = draw(st.sampled_from(("read", "find", "send")))
                pieces.append(b.once(b.event(tool, draw(st.sampled_from(_run_guards(tool, v))))))
            elif kind == 4:  # the trigger's own call
                pieces.append(b.event("send", draw(st.sampled_from(_run_guards("send", v)))))
            else:
                pieces.append(draw(formulas(vocab, 1, future_under_past=False)))
        psi = b.disj(*pieces)
        domain = b.values("send", ("ids",), True) if by_list else b.values("send", ("to",))
        if draw(st.integers(0, 3)) == 0:
            domain = b.op("add", domain, b.values("read", ("path",)))
        body = b.always(b.implies(trigger, psi))
        if draw(st.integers(0, 4)) == 0:  # two of them, as `and` of two patterns lowers (nested)
            w = b.var("w")
            other = b.always(b.implies(b.event("read", b.op("eq", b.arg("path"), w)),
                                       b.cond(b.op("contains", b.field(b.request(), "text"), w))))
            return b.forall(vocab.var, vocab.var_type, domain,
                            b.forall("w", STR, b.values("read", ("path",)), b.conj(body, other)))
        return b.forall(vocab.var, vocab.var_type, domain, body)

    return rule()


RUN = Vocabulary(
    name="run",
    tools=RUN_TOOLS,
    named=tuple(RUN_TOOLS),
    guards=_run_guards,
    conditions=lambda v: (b.op("contains", b.field(b.request(), "text"), v), b.op("eq", v, b.lit("ann")),
                          b.op("contains", b.op("lower", b.field(b.request(), "text")), b.op("lower", v))),
    domains=(b.values("send", ("to",)), b.values("send", ("ids",), True), b.values("read", ("path",))),
    literal_domains=(b.lit(["ann"]), b.lit([])),
    call=st.sampled_from(RUN_POOL),
    final=st.sampled_from(RUN_FINALS),
    pool=RUN_POOL,
    finals=RUN_FINALS,
    var_type=STR,
    requests=(None, "send it to ann", "pay d1 to Bob", ""),
    metrics=({}, {"cost": 1}, {"cost": 3}),
    constant_conditions=(b.op("contains", b.field(b.request(), "text"), b.lit("ann")),
                         b.op("gt", b.metric(("cost",)), b.lit(2)),
                         b.op("contains", b.op("lower", b.field(b.request(), "text")), b.lit("bob"))),
    bound=_bound_at_trigger,
)

VOCABULARIES = (LETTERS, AGENT, DATA, LISTS, RUN)


# ------------------------------------------------------------------ formulas

BOOLEAN = (b.conj, b.disj, b.implies, b.iff)
FUTURE_UNARY = (b.next_, b.wnext, b.eventually, b.always)
FUTURE_BINARY = (b.until, b.weak_until, b.release)
PAST_UNARY = (b.yesterday, b.wyesterday, b.once, b.historically)
PAST_BINARY = (b.since, b.trigger)


@st.composite
def guards(draw, vocab: Vocabulary, tool: str, var: str | None = None) -> n.Term:
    """TRUE, one guard, a negated one, or two combined by `and` / `or`."""
    options = vocab.guards(tool, None if var is None else b.var(var))
    kind = draw(st.integers(0, 9))
    if kind <= 2 or not options:
        return b.LIT_TRUE
    one = st.sampled_from(options)
    if kind <= 6 or not vocab.combine_guards:
        return draw(one)
    if kind == 7:
        return b.op("not", draw(one))
    return b.op(draw(st.sampled_from(("and", "or"))), draw(one), draw(one))


@st.composite
def events(draw, vocab: Vocabulary, var: str | None = None) -> n.Formula:
    tool = draw(st.sampled_from(vocab.named))
    return b.event(tool, draw(guards(vocab, tool, var)))


@st.composite
def atoms(draw, vocab: Vocabulary, var: str | None = None, constants: bool = True) -> n.Formula:
    """An event, a constant, or (with a bound variable) a condition on it."""
    kind = draw(st.integers(0, 11))
    if kind == 0 and constants:
        return draw(st.sampled_from((b.TRUE, b.FALSE)))
    if kind <= 2 and var is not None:
        return b.cond(draw(st.sampled_from(vocab.conditions(b.var(var)))))
    if kind == 3 and vocab.constant_conditions:  # a condition on the run's request or metrics
        return b.cond(draw(st.sampled_from(vocab.constant_conditions)))
    return draw(events(vocab, var))


@st.composite
def domains(draw, vocab: Vocabulary, from_trace: bool = True) -> n.Term:
    """One or two trace-wide domains, maybe with a literal list added; without
    `from_trace`, also a literal list alone (possibly empty)."""
    if not from_trace and draw(st.integers(0, 3)) == 0:
        return draw(st.sampled_from(vocab.literal_domains))
    parts = draw(st.lists(st.sampled_from(vocab.domains), min_size=1, max_size=2, unique=True))
    if draw(st.integers(0, 5)) == 0:
        parts.append(draw(st.sampled_from(vocab.literal_domains)))
    domain = parts[0]
    for p in parts[1:]:
        domain = b.op("add", domain, p)
    return domain


@st.composite
def formulas(draw, vocab: Vocabulary, depth: int = 3, var: str | None = None, *, quantifiers: bool = False,
             future_under_past: bool = True, constants: bool = True, past_only: bool = False) -> n.Formula:
    """A formula over `vocab` of at most `depth` operators nested, plus past formulas of
    depth 2 as leaves (a quarter of them: what a gate reads off the run so far).

    `var`: a variable bound outside (guards and conditions may read it). `quantifiers`:
    `forall`/`exists` over `vocab.var` anywhere (nested ones shadow). Without
    `future_under_past`, only past operators and connectives appear below a past operator
    (the automata's fragment). `constants`: `true` and `false` among the leaves."""
    if depth <= 0 or draw(st.integers(0, 4)) == 0:
        if not past_only and draw(st.integers(0, 3)) == 0:
            return draw(formulas(vocab, 2, var, constants=constants, past_only=True))
        return draw(atoms(vocab, var, constants))
    kinds = ["not", "bool", "bool", "past1", "past2"]
    if not past_only:
        kinds += ["future1", "future2", "future1", "future2"]
        if quantifiers:
            kinds.append("quantifier")
    kind = draw(st.sampled_from(kinds))
    below_past = past_only or (kind.startswith("past") and not future_under_past)

    def sub(bound: str | None = var) -> n.Formula:
        return draw(formulas(vocab, depth - 1, bound, quantifiers=quantifiers, future_under_past=future_under_past,
                             constants=constants, past_only=below_past))

    if kind == "not":
        return b.neg(sub())
    if kind == "bool":
        return draw(st.sampled_from(BOOLEAN))(sub(), sub())
    if kind == "past1":
        return draw(st.sampled_from(PAST_UNARY))(sub())
    if kind == "past2":
        return draw(st.sampled_from(PAST_BINARY))(sub(), sub())
    if kind == "future1":
        return draw(st.sampled_from(FUTURE_UNARY))(sub())
    if kind == "future2":
        return draw(st.sampled_from(FUTURE_BINARY))(sub(), sub())
    quantifier = draw(st.sampled_from((b.forall, b.exists)))
    return quantifier(vocab.var, vocab.var_type, draw(domains(vocab, from_trace=False)), sub(vocab.var))


@st.composite
def quantified(draw, vocab: Vocabulary, depth: int = 3, constants: bool = True) -> n.Formula:
    """A rule with one quantifier over trace values where slicing takes it: at the top,
    under `always`, beside a plain part, or negated; its body in the automata's fragment."""
    body = draw(formulas(vocab, depth, vocab.var, future_under_past=False, constants=constants))
    quantifier = draw(st.sampled_from((b.forall, b.exists)))
    q = quantifier(vocab.var, vocab.var_type, draw(domains(vocab)), body)
    shape = draw(st.integers(0, 3))
    if shape == 1 and isinstance(q, n.Forall):
        return b.always(q)
    if shape == 2:
        return b.conj(draw(formulas(vocab, 2, future_under_past=False, constants=constants)), q)
    if shape == 3:
        return b.neg(q)
    return q


def templates(vocab: Vocabulary) -> st.SearchStrategy:
    """Rule shapes a policy author writes: safety, ordering, response, liveness, counting."""
    e = events(vocab)
    pairs = st.tuples(e, e)
    return st.one_of(
        pairs.map(lambda p: b.always(b.implies(p[0], b.once(p[1])))),
        pairs.map(lambda p: b.until(b.neg(p[1]), b.conj(p[0], b.neg(p[1]), b.eventually(p[1])))),
        pairs.map(lambda p: b.always(b.implies(p[0], b.always(b.neg(p[1]))))),
        pairs.map(lambda p: b.always(b.implies(p[0], b.eventually(p[1])))),
        e.map(b.eventually),
        e.map(lambda x: b.always(b.neg(x))),
        e.map(lambda x: b.neg(b.eventually(b.conj(x, b.next_(b.eventually(x)))))),
    )


def _per_value(vocab: Vocabulary, kind: str, first: str, then: str, response: bool, narrow: bool = False) -> n.Formula:
    """`forall o in first.key + then.key: always (then(key: o) -> once first(key: o))` and kin;
    `narrow`: the domain is `first.key` alone, so a `then` call names values outside it."""
    o = b.var(vocab.var)
    assert vocab.key is not None
    ev = lambda tool: b.event(tool, b.op("eq", b.arg(vocab.key), o))  # noqa: E731
    body = b.always(b.implies(ev(first), b.eventually(ev(then)))) if response else \
        b.always(b.implies(ev(then), b.once(ev(first))))
    domain = b.values(first, (vocab.key,)) if narrow else \
        b.op("add", b.values(first, (vocab.key,)), b.values(then, (vocab.key,)))
    return (b.forall if kind == "forall" else b.exists)(vocab.var, vocab.var_type, domain, body)


def per_value(vocab: Vocabulary) -> st.SearchStrategy:
    """Rules over values bound in patterns (parametric slicing): per-value order and response."""
    tool = st.sampled_from(vocab.keyed)
    return st.tuples(st.sampled_from(["forall", "exists"]), tool, tool, st.booleans(), st.booleans()).filter(
        lambda p: p[1] != p[2]).map(lambda p: _per_value(vocab, *p))


PER_VALUE_SHAPES = ("response", "precedence", "cap", "exclusion", "existence")


def _per_value_shape(vocab: Vocabulary, shape: str, first: str, then: str, guarded: bool,
                     narrow: bool) -> n.Formula:
    """The per-value rules policies are made of, over one keyed variable:
    response `always (first(o) -> eventually then(o))`, precedence `always (then(o) -> once
    first(o))` (the first maybe with a result test), a cap `called_n(first(o)) <= 1`, an
    exclusion `always (first(o) -> always not then(o))` and an existence `exists o: then(o)
    and once first(o)`; `narrow`: the domain is `first.key` alone."""
    o = b.var(vocab.var)
    assert vocab.key is not None

    def ev(tool: str, with_result: bool = False) -> n.Formula:
        guard = b.op("eq", b.arg(vocab.key), o)
        if with_result:
            guard = b.op("and", guard, b.op("eq", b.field(b.result(), "ok"), b.lit(True)))
        return b.event(tool, guard)

    kind = "forall"
    if shape == "response":
        body = b.always(b.implies(ev(first, guarded), b.eventually(ev(then))))
    elif shape == "precedence":
        body = b.always(b.implies(ev(then), b.once(ev(first, guarded))))
    elif shape == "cap":
        body = b.neg(b.eventually(b.conj(ev(first), b.next_(b.eventually(ev(first))))))
        narrow = True
    elif shape == "exclusion":
        body = b.always(b.implies(ev(first, guarded), b.always(b.neg(ev(then)))))
    else:
        kind = "exists"
        body = b.eventually(b.conj(ev(then), b.once(ev(first, guarded))))
    domain = b.values(first, (vocab.key,)) if narrow else \
        b.op("add", b.values(first, (vocab.key,)), b.values(then, (vocab.key,)))
    return (b.forall if kind == "forall" else b.exists)(vocab.var, vocab.var_type, domain, body)


def per_value_rules(vocab: Vocabulary) -> st.SearchStrategy:
    """Per-value rules of every common shape (`_per_value_shape`)."""
    tool = st.sampled_from(vocab.keyed)
    return st.tuples(st.sampled_from(PER_VALUE_SHAPES), tool, tool, st.booleans(), st.booleans()).filter(
        lambda p: p[1] != p[2]).map(lambda p: _per_value_shape(vocab, *p))


PAIR_SHAPES = ("response", "precedence", "exclusion", "until", "existence")


def _pair_shape(vocab: Vocabulary, shape: str, first: str, then: str, paths: tuple[tuple, ...],
                guarded: bool) -> n.Formula:
    """A rule over two variables bound together in patterns (a part over a pair):
    `forall s: forall v: always (first(s, v) -> eventually then(s, v))` and the like, each
    event comparing one of its terms with `s` and one with `v` (`paths`: per event, the two
    terms, the key argument or `result.ok`), the domains those terms' values."""
    s, v = b.var("s"), b.var("v")
    assert vocab.key is not None

    def term(path: tuple) -> n.Term:
        return b.field(b.result(), path[1]) if path[0] == "result" else b.arg(path[0])

    def ev(tool: str, which: int, with_result: bool = False) -> n.Formula:
        first_path, second_path = paths[which]
        guard = b.op("and", b.op("eq", term(first_path), s), b.op("eq", term(second_path), v))
        if with_result:
            guard = b.op("and", guard, b.op("eq", b.field(b.result(), "ok"), b.lit(True)))
        return b.event(tool, guard)

    kind = "forall"
    if shape == "response":
        body = b.always(b.implies(ev(first, 0, guarded), b.eventually(ev(then, 1))))
    elif shape == "precedence":
        body = b.always(b.implies(ev(then, 1), b.once(ev(first, 0, guarded))))
    elif shape == "exclusion":
        body = b.always(b.implies(ev(first, 0, guarded), b.always(b.neg(ev(then, 1)))))
    elif shape == "until":
        body = b.always(b.implies(ev(first, 0), b.weak_until(b.neg(ev(then, 1)), ev(first, 0, True))))
    else:
        kind = "exists"
        body = b.eventually(b.conj(ev(then, 1), b.once(ev(first, 0, guarded))))
    quantifier = b.forall if kind == "forall" else b.exists
    domains = [b.op("add", b.values(first, paths[0][k]), b.values(then, paths[1][k])) for k in (0, 1)]
    return quantifier("s", None, domains[0], quantifier("v", None, domains[1], body))


def pair_rules(vocab: Vocabulary) -> st.SearchStrategy:
    """Rules over a pair of values (`_pair_shape`), their terms the vocabulary's key argument
    or `result.ok`. Both events read each variable by the same term, so the rule is well typed:
    a domain joining `ok`'s booleans with the key's integers is refused by the checker (E0208),
    and a rule no author can write would test the gate on results no tool may return."""
    assert vocab.key is not None
    tool = st.sampled_from(vocab.keyed)
    path = st.sampled_from(((vocab.key,), ("result", "ok")))
    event_paths = st.tuples(path, path)
    return st.tuples(st.sampled_from(PAIR_SHAPES), tool, tool, event_paths.map(lambda p: (p, p)),
                     st.booleans()).map(lambda p: _pair_shape(vocab, *p))


def rules(vocab: Vocabulary, depth: int = 3) -> st.SearchStrategy:
    """Any rule: a template, a random formula, a per-value rule (when the vocabulary has
    keyed tools), a rule over a pair of values (the agent vocabulary) or a quantified rule."""
    options = [templates(vocab), formulas(vocab, depth), quantified(vocab, max(depth - 1, 1))]
    if len(vocab.keyed) >= 2:
        options.append(per_value(vocab))
    if vocab is AGENT:  # its results have `ok`, the second term a pair may read
        options.append(pair_rules(vocab))
    if vocab.bound is not None:
        options.append(vocab.bound(vocab))
    return st.one_of(*options)


SEVERITIES = st.sampled_from([Severity("warn"), Severity("block"), Severity("soft_block", 2), Severity("tolerate")])


@st.composite
def policies(draw, vocab: Vocabulary, min_rules: int = 1, max_rules: int = 3, depth: int = 3) -> Policy:
    """A policy of templates, random formulas and per-value rules, with weights, layers and severities."""
    options = [templates(vocab), formulas(vocab, depth)] + ([per_value(vocab)] if len(vocab.keyed) >= 2 else []) \
        + ([vocab.bound(vocab)] if vocab.bound is not None else [])
    bodies = draw(st.lists(st.one_of(*options), min_size=min_rules, max_size=max_rules))
    rules_ = tuple(Rule(f"r{i}", f, float(draw(st.integers(1, 4))), draw(st.sampled_from(["L3", "L5", None])),
                        draw(SEVERITIES)) for i, f in enumerate(bodies))
    return Policy("generated", None, dict(vocab.tools), rules_)


def one_rule_policy(formula: n.Formula, tools: Mapping[str, ToolSignature], name: str = "rule") -> Policy:
    return Policy("one_rule", None, dict(tools), (Rule(name, formula),))


# ------------------------------------------------------------------ traces


def calls(vocab: Vocabulary, max_len: int = 8, min_len: int = 0) -> st.SearchStrategy:
    """A list of calls; with a terminal tool, maybe one terminal call at the end."""
    body = st.lists(vocab.call, min_size=min_len, max_size=max_len)
    if vocab.final is None:
        return body
    return st.tuples(body, st.one_of(st.none(), vocab.final)).map(
        lambda p: p[0] + ([p[1]] if p[1] is not None else []))


def traces(vocab: Vocabulary, max_len: int = 8, min_len: int = 0) -> st.SearchStrategy:
    """Traces of `calls`; with the vocabulary's `requests` (and `metrics`), each starts with one
    of them (and carries one)."""
    if not vocab.requests and not vocab.metrics:
        return calls(vocab, max_len, min_len).map(trace_of)
    return st.tuples(calls(vocab, max_len, min_len), st.sampled_from(vocab.requests or (None,)),
                     st.sampled_from(vocab.metrics or ({},))).map(
        lambda p: Trace(trace_of(p[0]).calls, dict(p[2]), request=p[1]))


def continuations(vocab: Vocabulary, length: int, final_last: bool) -> Iterator[list[CallTuple]]:
    """Every continuation of up to `length` representative calls; with `final_last`, a
    terminal call only at the end."""
    middle_calls = vocab.pool if final_last else vocab.pool + vocab.finals
    for k in range(length + 1):
        for middle in itertools.product(middle_calls, repeat=k):
            yield list(middle)
            if final_last:
                for f in vocab.finals:
                    yield list(middle) + [f]


# ------------------------------------------------------------------ data terms

VALUES = st.one_of(st.none(), st.booleans(), st.integers(-2, 3), st.sampled_from([0.0, 2.5, "a", "ab", ""]),
                   st.lists(st.integers(0, 2), max_size=3), st.just({"n": 1, "s": "a"}))
_TERM_LEAVES = st.one_of(VALUES.map(b.lit), st.sampled_from([
    b.arg("x"), b.arg("missing"), b.result(), b.var("v"), b.field(b.result(), "n"), b.index(b.arg("x"), b.lit(0)),
    b.attr("actor"), b.attr("error"), b.attr("message_id")]))
#: The attributes an event may carry with its arguments.
ATTRIBUTES = st.sampled_from([{}, {"actor": "user"}, {"error": True}, {"message_id": "m1"}])
BINARY_OPS = ["eq", "ne", "lt", "le", "gt", "ge", "in", "add", "sub", "mul", "div", "mod", "min", "max",
              "contains", "startswith", "endswith"]

#: Data terms over every operator, reading an argument `x`, a missing argument, the result,
#: its field `n`, an index, and a variable `v`.
TERMS = st.recursive(_TERM_LEAVES, lambda children: st.one_of(
    st.builds(lambda o, x, y: b.Op(o, (x, y)), st.sampled_from(BINARY_OPS), children, children),
    st.builds(lambda o, xs: b.Op(o, tuple(xs)), st.sampled_from(["and", "or"]),
              st.lists(children, min_size=1, max_size=3)),
    st.builds(lambda o, x: b.Op(o, (x,)), st.sampled_from(["not", "len", "abs", "neg", "lower"]), children),
), max_leaves=6)
