"""The scorer against the reference evaluator, on generated policies and traces.

The scorer takes a compiled rule's verdict and `violated_at` from one pass of its automaton
and falls back to the evaluator for the others; whichever engine answers, the report must
be the evaluator's: the same verdict per rule, the score of Definition 1, and a
`violated_at` prefix that no continuation can repair.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engines import ReferenceEngine, some_continuation_satisfies
from generators import AGENT, NIGHTLY, VOCABULARIES, calls, continuations, one_rule_policy, policies, rules, trace_of
from policyc.automata import compile_policy
from policyc.scoring.stepping import PlainRun, StepPlan, ToolCodes
from policyc.tables.context import Constants
from policyc.semantics import PositionEvaluator
from policyc.scoring import RunTally, Scorer, score_trace

EXAMPLES = 1500 if NIGHTLY else 60
SETTINGS = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.fixture(scope="module")
def reference() -> ReferenceEngine:
    """The evaluator, its memo shared by this module's examples (brute force repeats itself)."""
    return ReferenceEngine()


@pytest.mark.slow
@SETTINGS
@given(policies(AGENT, max_rules=4), calls(AGENT))
def test_the_report_is_the_evaluators(reference, policy, calls):
    report = score_trace(compile_policy(policy), trace_of(calls))
    by_name = {c.name: c for c in report.constraints}
    total = sum(r.weight for r in policy.rules)
    lost = 0.0
    for rule in policy.rules:
        result = by_name[rule.name]
        assert result.passed == reference.holds_on(rule.formula, calls), rule
        if result.passed:
            assert result.violated_at is None
            continue
        lost += rule.weight
        k = result.violated_at
        assert 0 <= k <= len(calls)
        if k < len(calls):  # a bad prefix: nothing after it satisfies the rule
            assert not some_continuation_satisfies(reference, [rule.formula], calls[:k],
                                                   continuations(AGENT, 2, final_last=False)), (rule, k)
    assert report.compliance_score == (1.0 - lost / total)


@SETTINGS
@given(st.data())
def test_stepping_only_the_calls_that_move_a_rule_gives_its_verdict(data):
    """The scorer steps a one-automaton rule only at the calls of tools whose letters move some
    state (`policyc.scoring.stepping`): its verdict and shortest bad prefix are those of
    stepping every call (`RuleTable.verdict_on`), on every vocabulary (LETTERS has a tool no
    formula names; DATA has guards on arguments and results). So are those of a rule of plain
    letters walked over the trace's tool codes (`PlainRun`), whatever code each tool has."""
    vocab = data.draw(st.sampled_from(VOCABULARIES))
    formula = data.draw(rules(vocab))
    table = compile_policy(one_rule_policy(formula, vocab.tools)).table("rule")
    plan = StepPlan.of(table) if table is not None else None
    if plan is None:
        return
    trace = trace_of(data.draw(calls(vocab, max_len=12)))
    engine = PositionEvaluator(trace)
    constants, sources = Constants.of_trace(trace), trace.globals.history  # as the scorer gives them
    expected = table.verdict_on(trace.calls, None, constants, sources)
    assert plan.verdict_on(trace.calls, engine.positions_of, None, constants, sources) == expected, formula
    codes = ToolCodes(data.draw(st.permutations(sorted(vocab.tools))))
    plain = PlainRun.of(plan, codes)
    if plain is not None:
        assert plain.verdict_on(codes.of(trace.tool_sequence)) == expected, formula


@SETTINGS
@given(st.data())
def test_a_tally_is_the_reports_tally(data):
    """`Scorer.tally`, the aggregate's view made without details, is exactly what the full
    report gives the aggregate (verdicts, vacuity, applicability, score, input problems)."""
    vocab = data.draw(st.sampled_from(VOCABULARIES))
    policy = data.draw(policies(vocab, max_rules=4))
    trace = trace_of(data.draw(calls(vocab)))
    scorer = Scorer(compile_policy(policy))
    assert scorer.tally(trace) == RunTally.of(scorer.score(trace))


def past_bodies(tools):
    """Conditions on the calls so far: tools' every call under not/and/or and past operators."""
    from policyc.ir import build as b

    leaves = st.sampled_from(tools).map(b.event)
    return st.recursive(leaves, lambda inner: st.one_of(
        inner.map(b.neg), inner.map(b.once), inner.map(b.yesterday), inner.map(b.wyesterday),
        inner.map(b.historically), st.tuples(inner, inner).map(lambda p: b.conj(*p)),
        st.tuples(inner, inner).map(lambda p: b.disj(*p)), st.tuples(inner, inner).map(lambda p: b.implies(*p)),
        st.tuples(inner, inner).map(lambda p: b.since(*p))), max_leaves=5)


@SETTINGS
@given(st.data())
def test_where_an_always_rule_first_fails_is_read_from_its_automaton(data):
    """The detail of a violated `always φ`, φ a condition on the calls so far, names the call
    its automaton's shortest bad prefix ends at (`details.of_calls_so_far`): the first call
    where the evaluator finds φ false, so the detail is the same as found from the evaluator."""
    from policyc.ir import build as b
    from policyc.scoring.details import Context, generic, of_calls_so_far

    vocab = data.draw(st.sampled_from(VOCABULARIES))
    body = data.draw(past_bodies(vocab.named))
    formula = b.always(body)
    if not (b.is_always(formula) and of_calls_so_far(formula.right)):
        return  # folded away by the constructors
    table = compile_policy(one_rule_policy(formula, vocab.tools)).table("rule")
    trace = trace_of(data.draw(calls(vocab, max_len=12)))
    found = table.verdict_on(trace.calls) if table is not None else None
    if found is None or found[0] or found[1] is None:
        return
    ctx = Context(PositionEvaluator(trace), False)
    assert generic(formula, ctx, found[1], shortest=True) == generic(formula, ctx, found[1]), formula


@SETTINGS
@given(st.data())
def test_where_a_response_first_fails_is_read_from_the_index_by_tool(data):
    """`t -> eventually c` over tools' every call first fails at the first `t` after the last
    `c` (`details.first_failure`, read from the trace's index by tool): where the positions
    engine's bits say it first fails, on every vocabulary (`t` and `c` may be one tool)."""
    from policyc.ir import build as b
    from policyc.scoring.details import Context, first_failure, lowest_bit

    vocab = data.draw(st.sampled_from(VOCABULARIES))
    t, c = data.draw(st.sampled_from(vocab.named)), data.draw(st.sampled_from(vocab.named))
    body = b.implies(b.event(t), b.eventually(b.event(c)))
    engine = PositionEvaluator(trace_of(data.draw(calls(vocab, max_len=12))))
    assert first_failure(body, Context(engine, False)) == lowest_bit(engine.mask & ~engine.bits(body)), (t, c)
