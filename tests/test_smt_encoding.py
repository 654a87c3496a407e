"""The Z3 encoding agrees with the reference evaluator.

Differential: for random formulas (every temporal operator, data guards over records,
lists, optional and untyped values, quantifiers over trace domains; `generators.DATA`) and
random typed traces, the encoding pinned to the trace (`engines.SmtEngine`) is true exactly
when `evaluate` says so, with 0-2 spare positions past the end. Property: every witness of a
satisfiable formula replays to true. Hand-written cases (the empty trace, data operators)
are in the catalogue every engine runs (`fixtures/catalogue.py`).
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engines import SmtEngine
from generators import DATA, NIGHTLY, formulas, trace_of, traces
from policyc.semantics.evaluator import evaluate
from policyc.smt import PolicySolver

EXAMPLES = 1500 if NIGHTLY else 150
SETTINGS = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
FORMULAS = formulas(DATA, 3, quantifiers=True)
TRACES = traces(DATA, 5)


@pytest.mark.slow
@SETTINGS
@given(FORMULAS, TRACES, st.integers(0, 2))
def test_encoding_agrees_with_the_evaluator(phi, trace, extra):
    smt = SmtEngine(DATA.tools, spare=extra)
    assert smt.holds(phi, trace) == evaluate(phi, trace), dict(smt.declined)  # None (declined) fails too


@pytest.mark.slow
@SETTINGS
@given(FORMULAS, TRACES, st.integers(0, 2))
def test_strings_coded_as_integers_agree(phi, trace, extra):
    """With strings coded as integers (equality-only policies), the same agreement holds;
    formulas that need real strings are refused with NeedsStrings."""
    smt = SmtEngine(DATA.tools, spare=extra, coded_strings=True)
    truth = smt.holds(phi, trace)
    if truth is None:
        assert set(smt.declined) == {"needs real strings"}
        return
    assert truth == evaluate(phi, trace)


@pytest.mark.slow
@settings(SETTINGS, max_examples=EXAMPLES // 2)
@given(FORMULAS)
def test_every_witness_replays(phi):
    ps = PolicySolver(DATA.tools, 4)
    ps.require("phi", phi)
    result = ps.check(["phi"])
    if result.is_sat:
        assert result.witness.confirmed, f"{result.witness} does not satisfy {phi}"
        assert evaluate(phi, result.witness.trace)


def test_trace_wide_values():
    """A trace-wide path is its distinct values (the evaluator's active domain): a quantifier
    over it plus a literal list, and its `len`, are exact; compared or combined as a list
    value it is not encoded, and the encoding says it approximated."""
    from policyc.ir import build as b

    smt = SmtEngine(DATA.tools)
    twice = trace_of([("a", {"x": 1, "s": "p"}, {"ok": True, "n": 0})] * 2)
    x = b.values("a", ("x",))
    for phi, expected in [(b.exists("v", None, b.op("add", x, b.lit([5])), b.cond(b.op("eq", b.var("v"), b.lit(5)))), True),
                          (b.cond(b.op("eq", b.op("len", x), b.lit(1))), True),
                          (b.cond(b.op("in", b.lit(1), x)), True)]:
        assert smt.holds(phi, twice) is expected is evaluate(phi, twice)
    for phi in [b.cond(b.op("eq", x, b.lit([1]))), b.cond(b.op("eq", b.op("len", b.op("add", x, b.lit([1]))), b.lit(2)))]:
        assert smt.holds(phi, twice) is None and smt.declined["approximated"]


# ------------------------------------------------------------------ quantifiers over a call's lists

def _list_quantifiers():
    """`exists`/`forall` over a result list of records, of untyped dicts, and over a dict's
    keys, each over traces whose lists have 0 to 3 elements (the solver's list bound)."""
    from policyc.ir import build as b
    from policyc.ir.types import ANY, INT, STR, DictT, ListT, Param, RecordT, ToolSignature

    tools = {
        "find": ToolSignature("find", (Param("q", STR),), ListT(RecordT("", (("id", STR), ("who", STR))))),
        "bills": ToolSignature("bills", (), ListT(DictT(ANY))),
        "tags": ToolSignature("tags", (), DictT(INT)),
    }
    words = st.sampled_from(["ann", "bob", "Overdue", ""])
    records = st.lists(st.fixed_dictionaries({"id": words, "who": words}), max_size=3)
    bills = st.lists(st.dictionaries(st.sampled_from(["bill_id", "status"]), st.one_of(words, st.integers(0, 2))),
                     max_size=3)
    calls = st.one_of(st.tuples(st.just("find"), st.fixed_dictionaries({"q": words}), records),
                      st.tuples(st.just("bills"), st.just({}), bills),
                      st.tuples(st.just("tags"), st.just({}), st.dictionaries(words, st.integers(0, 2), max_size=3)))
    x, res = b.var("x"), b.result()
    eq = lambda path, v: b.op("eq", b.field(x, path), v)  # noqa: E731
    bodies = {
        "find": [eq("who", b.lit("ann")), b.op("and", eq("who", b.arg("q")), b.op("not", eq("id", b.lit("")))),
                 b.op("contains", b.field(x, "id"), b.lit("n"))],
        "bills": [b.op("and", eq("bill_id", b.lit("bob")), eq("status", b.lit("Overdue"))), eq("status", b.lit(1))],
        "tags": [b.op("eq", x, b.lit("ann")), b.op("gt", b.op("len", x), b.lit(2))],
    }

    @st.composite
    def formula(draw):
        tool = draw(st.sampled_from(sorted(tools)))
        guard = b.quant(draw(st.sampled_from(["exists", "forall"])), "x", res, draw(st.sampled_from(bodies[tool])))
        if draw(st.booleans()):
            guard = b.op("not", guard)
        shape = draw(st.sampled_from([b.eventually, b.always, lambda f: f]))
        return shape(b.event(tool, guard))

    return tools, formula(), st.lists(calls, max_size=4).map(trace_of)


_LQ_TOOLS, _LQ_FORMULAS, _LQ_TRACES = _list_quantifiers()


@SETTINGS
@given(_LQ_FORMULAS, _LQ_TRACES)
def test_quantifiers_over_a_calls_list_are_exact(phi, trace):
    """A quantifier inside an event pattern is encoded element by element of the bounded list
    (not as a free condition): the pinned encoding decides it, as the evaluator does."""
    smt = SmtEngine(_LQ_TOOLS)
    assert smt.holds(phi, trace) == evaluate(phi, trace), dict(smt.declined)


@settings(SETTINGS, max_examples=EXAMPLES // 3)
@given(_LQ_FORMULAS)
def test_witnesses_of_list_quantifiers_replay(phi):
    ps = PolicySolver(_LQ_TOOLS, 2)
    ps.require("phi", phi)
    result = ps.check(["phi"])
    if result.is_sat:
        assert result.witness.confirmed and evaluate(phi, result.witness.trace), f"{result.witness} does not satisfy {phi}"


def test_provenance_hint_gives_a_witness_that_replays():
    """`x from S` is a free condition to Z3; asked to meet the hint (`require_sourced`), a
    model shows the value where the condition looks: in an earlier result of the source, or
    as a word of the request. Without a source call before, the hint leaves no model."""
    from policyc.check import check_text

    src = ('policy p\ntool cards() -> list[{ id: str, last4: str }]\ntool pay(card: str, city: str)\n'
           'rule r: called(pay(card from cards and city from request))\n')
    policy = check_text(src, "p.altl")[0]
    phi = policy.rules[0].formula
    for k, expected in ((2, "sat"), (1, "unsat")):
        ps = PolicySolver(policy.tools, k)
        ps.require("r", phi)
        result = ps.check(["r", ps.require_sourced()])
        assert result.status == expected
        if result.is_sat:
            assert evaluate(phi, result.witness.trace), str(result.witness)
