"""The Z3 encoding agrees with the reference evaluator.

Differential: for random formulas (every temporal operator, data guards, quantifiers over
trace domains) and random typed traces, the encoding pinned to the trace is true exactly
when `evaluate` says so. Property: every witness of a satisfiable formula replays to true.
"""

from __future__ import annotations

import os

import pytest
import z3
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from policyc.ir import build as b
from policyc.ir.types import BOOL, FLOAT, INT, STR, ANY, ListT, OptionalT, Param, RecordT, ToolSignature
from policyc.semantics.evaluator import evaluate
from policyc.smt import PolicySolver
from policyc.smt.decoder import pin_trace
from policyc.smt.encoder import FormulaEncoder
from policyc.smt.symtrace import SymbolicTrace
from policyc.smt.values import NeedsStrings
from policyc.trace.model import Call, Trace
from policyc.ir.ops import UNDEF

NIGHTLY = bool(os.environ.get("POLICYC_NIGHTLY"))
EXAMPLES = 1500 if NIGHTLY else 150

TOOLS = {
    "a": ToolSignature("a", (Param("x", INT), Param("s", STR)), RecordT("R", (("ok", BOOL), ("n", INT)))),
    "b": ToolSignature("b", (Param("v", FLOAT), Param("tag", OptionalT(STR))), ListT(INT)),
    "c": ToolSignature("c", (Param("flag", BOOL),), ANY),
    "d": ToolSignature("d", (Param("items", ListT(STR)),), ANY),
}
INTS = st.integers(-3, 3)
STRS = st.sampled_from(["", "p", "q", "pq"])
FLOATS = st.sampled_from([0.0, 0.5, -1.0, 2.0, 3.0])


# ------------------------------------------------------------------ traces


def calls():
    a = st.builds(lambda x, s, ok, n: Call("a", {"x": x, "s": s}, {"ok": ok, "n": n}), INTS, STRS, st.booleans(), INTS)
    tag = st.sampled_from([UNDEF, None, "p", "q"])
    b_ = st.builds(lambda v, t, r: Call("b", {"v": v, **({} if t is UNDEF else {"tag": t})}, r),
                   FLOATS, tag, st.lists(INTS, max_size=3))
    c = st.builds(lambda f, r: Call("c", {"flag": f}, r), st.booleans(),
                  st.one_of(st.just(UNDEF), st.none(), INTS, STRS, st.booleans()))
    d = st.builds(lambda items: Call("d", {"items": items}), st.lists(STRS, max_size=3))
    return st.one_of(a, b_, c, d)


traces = st.lists(calls(), max_size=5).map(
    lambda cs: Trace(tuple(Call(c.name, c.args, c.result, i) for i, c in enumerate(cs))))


# ------------------------------------------------------------------ formulas


def guards(tool: str, var: str | None):
    x = b.var(var) if var else None
    by_tool = {
        "a": [b.op("gt", b.arg("x"), b.lit(0)), b.op("eq", b.arg("s"), b.lit("p")),
              b.op("eq", b.field(b.result(), "ok"), b.lit(True)),
              b.op("le", b.op("add", b.arg("x"), b.field(b.result(), "n")), b.lit(1)),
              b.op("eq", b.op("mod", b.arg("x"), b.lit(2)), b.lit(1)),
              b.op("startswith", b.arg("s"), b.lit("p"))],
        "b": [b.op("ge", b.arg("v"), b.lit(0.5)), b.op("eq", b.arg("tag"), b.lit(None)),
              b.op("ne", b.arg("tag"), b.lit("p")), b.op("in", b.lit(1), b.result()),
              b.op("gt", b.op("len", b.result()), b.lit(1)), b.op("eq", b.index(b.result(), b.lit(0)), b.lit(2))],
        "c": [b.op("eq", b.arg("flag"), b.lit(True)), b.op("eq", b.result(), b.lit(1)),
              b.op("eq", b.result(), b.lit("p")), b.op("not", b.op("eq", b.result(), b.lit(None)))],
        "d": [b.op("in", b.lit("p"), b.arg("items")), b.op("eq", b.op("len", b.arg("items")), b.lit(0)),
              b.op("contains", b.index(b.arg("items"), b.lit(-1)), b.lit("q"))],
    }[tool]
    if x is not None:
        by_tool = by_tool + {
            "a": [b.op("eq", b.arg("x"), x), b.op("lt", b.arg("x"), x)],
            "b": [b.op("in", x, b.result()), b.op("eq", b.op("len", b.result()), x)],
            "c": [b.op("eq", b.result(), x)],
            "d": [b.op("in", b.op("add", x, b.lit(0)), b.lit([1, 2]))],
        }[tool]
    return st.sampled_from(by_tool)


def atoms(var: str | None):
    tool = st.sampled_from(sorted(TOOLS))
    plain = tool.map(b.event)
    guarded = tool.flatmap(lambda t: guards(t, var).map(lambda g: b.event(t, g)))
    return st.one_of(plain, guarded, st.sampled_from([b.const(True), b.const(False)]))


DOMAINS = [b.values("a", ("x",)), b.values("b", ("result",), True),
           b.op("add", b.values("a", ("x",)), b.values("a", ("result", "n")))]


def formulas(var: str | None = None, depth: int = 3):
    if depth == 0:
        return atoms(var)
    sub = formulas(var, depth - 1)
    unary = st.sampled_from([b.neg, b.next_, b.wnext, b.yesterday, b.wyesterday, b.eventually, b.always,
                             b.once, b.historically])
    binary = st.sampled_from([b.conj, b.disj, b.until, b.release, b.since, b.trigger, b.implies])
    options = [atoms(var), st.builds(lambda f, a: f(a), unary, sub),
               st.builds(lambda f, x, y: f(x, y), binary, sub, sub)]
    if var is None:
        quant = st.builds(lambda q, d, body: q("x", INT, d, body), st.sampled_from([b.forall, b.exists]),
                          st.sampled_from(DOMAINS), formulas("x", depth - 1))
        options.append(quant)
    return st.one_of(*options)


# ------------------------------------------------------------------ properties


def encoded_truth(phi, trace: Trace, extra: int, coded: bool = False) -> bool:
    enc = FormulaEncoder(SymbolicTrace(TOOLS, len(trace.calls) + extra, coded_strings=coded))
    holds = enc.holds(phi, 0)
    s = z3.Solver()
    s.add(*enc.trace.constraints, *pin_trace(enc.trace, trace))
    can_hold = s.check(holds) == z3.sat
    can_fail = s.check(z3.Not(holds)) == z3.sat
    assert can_hold != can_fail, "the pinned trace leaves the formula undetermined"
    return can_hold


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(formulas(), traces, st.integers(0, 2))
def test_encoding_agrees_with_the_evaluator(phi, trace, extra):
    assert encoded_truth(phi, trace, extra) == evaluate(phi, trace)


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(formulas(), traces, st.integers(0, 2))
def test_strings_coded_as_integers_agree(phi, trace, extra):
    """With strings coded as integers (equality-only policies), the same agreement holds;
    formulas that need real strings are refused with NeedsStrings."""
    try:
        truth = encoded_truth(phi, trace, extra, coded=True)
    except NeedsStrings:
        return
    assert truth == evaluate(phi, trace)


@settings(max_examples=EXAMPLES // 2, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(formulas())
def test_every_witness_replays(phi):
    ps = PolicySolver(TOOLS, 4)
    ps.require("phi", phi)
    result = ps.check(["phi"])
    if result.is_sat:
        assert result.witness.confirmed, f"{result.witness} does not satisfy {phi}"
        assert evaluate(phi, result.witness.trace)


def test_empty_trace_semantics():
    for phi, expected in [(b.next_(b.const(True)), False), (b.wnext(b.const(False)), True),
                          (b.always(b.event("a")), True), (b.eventually(b.const(True)), False),
                          (b.yesterday(b.const(True)), False), (b.wyesterday(b.const(False)), True),
                          (b.historically(b.event("a")), True), (b.once(b.const(True)), False)]:
        assert encoded_truth(phi, Trace(()), 2) == expected == evaluate(phi, Trace(()))


@pytest.mark.parametrize("value,guard,expected", [
    ({"x": 1, "s": "p"}, b.op("eq", b.op("div", b.arg("x"), b.lit(2)), b.lit(0.5)), True),
    ({"x": -7, "s": "p"}, b.op("eq", b.op("mod", b.arg("x"), b.lit(3)), b.lit(2)), True),
    ({"x": 7, "s": "p"}, b.op("eq", b.op("mod", b.arg("x"), b.lit(-3)), b.lit(-2)), True),
    ({"x": 1, "s": "p"}, b.op("eq", b.op("div", b.arg("x"), b.lit(0)), b.op("div", b.arg("x"), b.lit(0))), False),
    ({"x": 1, "s": "pq"}, b.op("endswith", b.arg("s"), b.lit("q")), True),
    ({"x": 1, "s": "pq"}, b.op("eq", b.index(b.arg("s"), b.lit(-1)), b.lit("q")), True),
    ({"x": 1, "s": "pq"}, b.op("eq", b.slice_(b.arg("s"), b.lit(1), None), b.lit("q")), True),
    ({"x": 1, "s": "pq"}, b.op("not", b.op("eq", b.arg("missing"), b.lit(1))), True),
])
def test_data_operators(value, guard, expected):
    trace = Trace((Call("a", value, {"ok": True, "n": 0}, 0),))
    phi = b.event("a", guard)
    assert evaluate(phi, trace) == expected == encoded_truth(phi, trace, 0)


def test_trace_wide_values():
    """A trace-wide path is its distinct values (the evaluator's active domain): a quantifier
    over it plus a literal list, and its `len`, are exact; compared or combined as a list
    value it is not encoded, and the encoding says it approximated."""
    twice = Trace.of(*[("a", {"x": 1, "s": "p"}, {"ok": True, "n": 0})] * 2)
    x = b.values("a", ("x",))
    for phi, expected in [(b.exists("v", INT, b.op("add", x, b.lit([5])), b.cond(b.op("eq", b.var("v"), b.lit(5)))), True),
                          (b.cond(b.op("eq", b.op("len", x), b.lit(1))), True),
                          (b.cond(b.op("in", b.lit(1), x)), True)]:
        assert encoded_truth(phi, twice, 1) is expected is evaluate(phi, twice)
    for phi in [b.cond(b.op("eq", x, b.lit([1]))), b.cond(b.op("eq", b.op("len", b.op("add", x, b.lit([1]))), b.lit(2)))]:
        enc = FormulaEncoder(SymbolicTrace(TOOLS, 3))
        enc.holds(phi, 0)
        assert enc.approx == {"trace-wide values used as a list"}
