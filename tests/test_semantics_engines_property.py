"""The linear all-positions engine agrees with the reference evaluator, at every position,
on random formulas (every operator, quantifiers, data guards; `generators.LETTERS`) with a
free variable bound outside, and random traces; compiled guards agree with `eval_term`."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from generators import ATTRIBUTES, LETTERS, NIGHTLY, TERMS, VALUES, formulas, traces
from policyc.semantics import Evaluator, PositionEvaluator

EXAMPLES = 1000 if NIGHTLY else 150
VAR = LETTERS.var


@pytest.mark.slow
@settings(max_examples=EXAMPLES, deadline=None)
@given(phi=formulas(LETTERS, 3, VAR, quantifiers=True), trace=traces(LETTERS, 12), v=st.integers(0, 2))
def test_engines_agree_at_every_position(phi, trace, v):
    reference, fast = Evaluator(trace), PositionEvaluator(trace)
    env = reference.root_env.bind(VAR, v)
    for i in range(max(len(trace), 1)):
        assert fast.holds(phi, i, env) == reference.holds(phi, i, env), (phi, i)


# ------------------------------------------------------------------ compiled guards


@pytest.mark.slow
@settings(max_examples=EXAMPLES * 2, deadline=None)
@given(term=TERMS, x=VALUES, result=VALUES, v=VALUES, attrs=ATTRIBUTES)
def test_compiled_terms_evaluate_like_eval_term(term, x, result, v, attrs):
    from policyc.ir.data import CallArgs, DataEnv, eval_term
    from policyc.ir.ops import UNDEF, values_equal
    from policyc.ir.closures import compile_term

    env = DataEnv({"v": v})
    args = CallArgs({"x": x}, attrs)  # the event's attributes ride with its arguments
    expected = eval_term(term, env.at_call(args, result))
    got = compile_term(term)(env, args, result)
    assert (got is UNDEF) == (expected is UNDEF) and (got is UNDEF or values_equal(got, expected)
                                                       or got != got and expected != expected), (term, got, expected)


def test_terms_on_the_run_constants_are_computed_once_per_run():
    """`lower(request.text)` inside a guard is kept in the run's context the first time it is
    read (and only it: neither a test of it nor a term that also reads the call is), with
    eval_term's value."""
    from policyc.ir import build as b
    from policyc.ir.closures import compile_term
    from policyc.ir.data import eval_term
    from policyc.tables.context import Constants, RunContext

    lowered = b.op("lower", b.field(b.request(), "text"))
    asks = b.op("contains", lowered, b.lit("pay"))
    said = b.op("contains", lowered, b.op("lower", b.arg("to")))
    context = RunContext(Constants.given(request="Pay ANN"))
    env = context.env
    assert compile_term(asks)(env, None, None) is True
    assert compile_term(said)(env, {"to": "Ann"}, None) is True
    assert compile_term(said)(env, {"to": "Bob"}, None) is False
    assert set(context.memo) == {lowered}
    assert context.memo[lowered] == eval_term(lowered, env) == "pay ann"
    other = RunContext(Constants.given(request="nothing"))  # each run reads its own request
    assert compile_term(asks)(other.env, None, None) is False and compile_term(asks)(env, None, None) is True
