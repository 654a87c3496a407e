"""The linear all-positions engine agrees with the reference evaluator, at every position,
on random formulas (every operator, quantifiers, data guards) and random traces."""

from __future__ import annotations

import os

from hypothesis import given, settings
from hypothesis import strategies as st

from policyc.ir import build as b
from policyc.ir.data import CallArgs
from policyc.semantics import Evaluator, PositionEvaluator
from policyc.trace import Trace

EXAMPLES = 1000 if os.environ.get("POLICYC_NIGHTLY") else 150
TOOLS = ("a", "b", "c", "d")

guards = st.one_of(
    st.just(b.LIT_TRUE),
    st.integers(0, 2).map(lambda k: b.op("eq", b.arg("x"), b.lit(k))),
    st.integers(0, 2).map(lambda k: b.op("gt", b.arg("x"), b.lit(k))),
    st.just(b.op("eq", b.arg("x"), b.var("v"))),
    st.just(b.op("eq", b.result(), b.var("v"))),
    st.just(b.attr("error")),
    st.just(b.op("eq", b.attr("actor"), b.lit("user"))),
    st.just(b.op("eq", b.attr("message_id"), b.lit("m1"))),
)
atoms = st.one_of(
    st.builds(b.event, st.sampled_from(TOOLS), guards),
    st.sampled_from([b.TRUE, b.FALSE]),
    st.integers(0, 2).map(lambda k: b.cond(b.op("le", b.var("v"), b.lit(k)))),
)
domains = st.sampled_from([b.values("a", ("x",)), b.values("b", ("result",)), b.lit([0, 2]), b.lit([])])


def _extend(children):
    unary = st.sampled_from([b.neg, b.next_, b.wnext, b.eventually, b.always, b.yesterday, b.wyesterday,
                             b.once, b.historically])
    binary = st.sampled_from([b.until, b.release, b.since, b.trigger, b.weak_until, lambda x, y: b.conj(x, y),
                              lambda x, y: b.disj(x, y), b.implies])
    quantifier = st.sampled_from([b.forall, b.exists])
    return st.one_of(
        st.builds(lambda f, x: f(x), unary, children),
        st.builds(lambda f, x, y: f(x, y), binary, children, children),
        st.builds(lambda q, d, body: q("v", None, d, body), quantifier, domains, children),
    )


formulas = st.recursive(atoms, _extend, max_leaves=8)
ATTRIBUTES = st.sampled_from([{}, {"actor": "user"}, {"error": True}, {"message_id": "m1"}])
calls = st.tuples(st.sampled_from(TOOLS), st.integers(0, 3), st.one_of(st.none(), st.integers(0, 2)), ATTRIBUTES)
traces = st.lists(calls, max_size=12).map(
    lambda raw: Trace.of(*[(t, CallArgs({"x": x}, a)) if r is None else (t, CallArgs({"x": x}, a), r)
                           for t, x, r, a in raw]))


@settings(max_examples=EXAMPLES, deadline=None)
@given(phi=formulas, trace=traces, v=st.integers(0, 2))
def test_engines_agree_at_every_position(phi, trace, v):
    reference, fast = Evaluator(trace), PositionEvaluator(trace)
    env = reference.root_env.bind("v", v)
    for i in range(max(len(trace), 1)):
        assert fast.holds(phi, i, env) == reference.holds(phi, i, env), (phi, i)


# ------------------------------------------------------------------ compiled guards


values = st.one_of(st.none(), st.booleans(), st.integers(-2, 3), st.sampled_from([0.0, 2.5, "a", "ab", ""]),
                   st.lists(st.integers(0, 2), max_size=3), st.just({"n": 1, "s": "a"}))
term_leaves = st.one_of(values.map(b.lit), st.sampled_from([b.arg("x"), b.arg("missing"), b.result(), b.var("v"),
                                                            b.field(b.result(), "n"), b.index(b.arg("x"), b.lit(0)),
                                                            b.attr("actor"), b.attr("error"), b.attr("message_id")]))
binary_ops = ["eq", "ne", "lt", "le", "gt", "ge", "in", "add", "sub", "mul", "div", "mod", "min", "max",
              "contains", "startswith", "endswith"]
terms = st.recursive(term_leaves, lambda children: st.one_of(
    st.builds(lambda o, x, y: b.Op(o, (x, y)), st.sampled_from(binary_ops), children, children),
    st.builds(lambda o, xs: b.Op(o, tuple(xs)), st.sampled_from(["and", "or"]), st.lists(children, min_size=1, max_size=3)),
    st.builds(lambda o, x: b.Op(o, (x,)), st.sampled_from(["not", "len", "abs", "neg", "lower"]), children),
), max_leaves=6)


@settings(max_examples=EXAMPLES * 2, deadline=None)
@given(term=terms, x=values, result=values, v=values, attrs=ATTRIBUTES)
def test_compiled_terms_evaluate_like_eval_term(term, x, result, v, attrs):
    from policyc.ir.data import DataEnv, eval_term
    from policyc.ir.ops import UNDEF, values_equal
    from policyc.semantics.terms import compile_term

    env = DataEnv({"v": v})
    args = CallArgs({"x": x}, attrs)
    expected = eval_term(term, env.at_call(args, result))
    got = compile_term(term)(env, args, result)
    assert (got is UNDEF) == (expected is UNDEF) and (got is UNDEF or values_equal(got, expected)
                                                       or got != got and expected != expected), (term, got, expected)
