"""The reference evaluator, clause by clause: the worked example, ⊥, scopes, domains, externs."""

from __future__ import annotations

import pytest

from policyc.check import check_text
from policyc.ir import build as b
from policyc.ir.data import ExternError
from policyc.semantics import Evaluator, PositionEvaluator, evaluate
from policyc.trace import Trace, load_traces

TOOLS = "tool tool_a(seed: int) -> { numbers: list[int] }\ntool tool_b(i: int, j: int)\ntool tool_d(numbers: list[int])\n"


def compile_rule(body: str, tools: str = TOOLS, extra: str = ""):
    policy, diagnostics = check_text(f"{tools}{extra}rule r: {body}\n", "t.altl")
    assert policy is not None, [d.message for d in diagnostics]
    return policy.rules[0].formula


def both(formula, trace, externs=None) -> bool:
    """The verdict, checked to be the same on both engines."""
    reference = Evaluator(trace, externs).holds(formula)
    assert PositionEvaluator(trace, externs).holds(formula) == reference
    return reference


APPENDIX_B = load_traces("examples/traces/appendix_b.json").traces[0]


# ------------------------------------------------------------------ A.3.2


def test_worked_example_a32():
    """φ = Called(tool_a) ∧ F(Called(tool_d)): (i) Called(tool_a), (ii) suffixes for Called(tool_d), (iii) ∧."""
    phi = compile_rule("called(tool_a) and eventually called(tool_d)")
    assert both(phi, APPENDIX_B) is True
    assert both(phi, Trace.of(("tool_a", {"seed": 1}), ("tool_b", {"i": 1, "j": 0}))) is False
    assert both(phi, Trace.of(("tool_d", {"numbers": []}), ("tool_a", {"seed": 1}))) is True
    # (ii) at the top, F (Called t) is Called t: some suffix contains a call to t
    assert compile_rule("eventually called(tool_d)") is compile_rule("called(tool_d)")


def test_predicates_under_temporal_operators_read_the_suffix():
    phi = compile_rule("always (tool_a -> called(tool_d))")
    assert both(phi, Trace.of(("tool_a", {"seed": 1}), ("tool_d", {"numbers": []}))) is True
    assert both(phi, Trace.of(("tool_d", {"numbers": []}), ("tool_a", {"seed": 1}))) is False


def test_metrics_record_fields_are_readable():
    assert both(compile_rule("metrics.num_steps == 7 and metrics.total_tokens > 13000"), APPENDIX_B) is True
    assert both(compile_rule("metrics.missing == 7"), APPENDIX_B) is False


# ------------------------------------------------------------------ the empty trace and the clauses


@pytest.mark.parametrize("make,expected", [
    (lambda a: a, False), (lambda a: b.neg(a), True),
    (b.next_, False), (b.wnext, True), (b.eventually, False), (b.always, True),
    (lambda a: b.until(b.TRUE, a), False), (lambda a: b.release(b.FALSE, a), True),
    (b.yesterday, False), (b.wyesterday, True), (b.once, False), (b.historically, True),
    (lambda a: b.since(b.TRUE, a), False), (lambda a: b.trigger(b.FALSE, a), True),
], ids=["event", "not", "X", "WX", "F", "G", "U", "R", "Y", "Z", "O", "H", "S", "T"])
def test_operators_on_the_empty_trace(make, expected):
    assert evaluate(make(b.event("a")), Trace.of()) is expected


def test_strong_and_weak_next_at_the_last_call():
    t = Trace.of(("a", {}))
    assert both(b.next_(b.TRUE), t) is False and both(b.wnext(b.FALSE), t) is True
    assert both(b.eventually(b.conj(b.event("a"), b.yesterday(b.TRUE))), t) is False


def test_until_release_since_trigger():
    t = Trace.of(("a", {}), ("a", {}), ("b", {}), ("c", {}))
    a, bb, c = b.event("a"), b.event("b"), b.event("c")
    assert both(b.until(a, bb), t) is True and both(b.until(a, c), t) is False
    assert both(b.release(bb, b.neg(c)), t) is True and both(b.release(c, a), t) is False
    assert both(b.eventually(b.conj(c, b.yesterday(b.since(bb, a)))), t) is True
    assert both(b.eventually(b.conj(c, b.since(bb, a))), t) is False
    assert both(b.eventually(b.conj(c, b.trigger(b.FALSE, b.neg(bb)))), t) is False


# ------------------------------------------------------------------ ⊥


def test_undefined_operands_make_predicates_false():
    t = Trace.of(("tool_b", {"i": 2}))  # j is missing: ⊥
    assert both(compile_rule("called(tool_b(j: 0))"), t) is False
    assert both(compile_rule("called(tool_b(j > 0))"), t) is False
    assert both(compile_rule("called(tool_b(i / 0 == 1))"), t) is False
    assert both(compile_rule("called(tool_b(i / 0 != 1))"), t) is False
    # a connective reads ⊥ as false, so the negation of a ⊥ comparison holds
    assert both(compile_rule("called(tool_b(not (j > 0)))"), t) is True
    assert both(compile_rule("called(tool_b(i == 2))"), t) is True


def test_missing_results_are_undefined():
    t = Trace.of(("tool_a", {"seed": 1}))
    assert both(compile_rule("called(tool_a(result.numbers == []))"), t) is False
    assert both(compile_rule("forall n in tool_a.result.numbers: n > 100"), t) is True


# ------------------------------------------------------------------ quantifiers


def test_inner_scopes_shadow_outer_ones():
    t = Trace.of(("tool_a", {"seed": 5}))
    assert both(compile_rule("forall x in [1, 2]: forall x in [3]: x == 3"), t) is True
    assert both(compile_rule("forall x in [1, 2]: (exists x in [7]: x == 7) and x < 3"), t) is True
    assert both(compile_rule("exists x in [1, 2]: (forall x in [7]: x == 7) and x == 5"), t) is False


def test_empty_domains():
    t = Trace.of(("tool_b", {"i": 1, "j": 0}))
    assert both(compile_rule("forall s in tool_a.seed: s > 100"), t) is True
    assert both(compile_rule("exists s in tool_a.seed: s > 100"), t) is False
    assert both(compile_rule("forall v in metrics.values: v > 0"), t) is True
    assert both(compile_rule("exists v in metrics.values: true"), t) is False


def test_domains_from_the_trace_and_the_metrics_record():
    t = Trace.of(("tool_a", {"seed": 4}, {"numbers": [8, 2]}), ("tool_b", {"i": 8, "j": 0}),
                 metrics={"limits": [1, 9]})
    assert both(compile_rule("forall n in tool_a.result.numbers: called(tool_b(i: n))"), t) is False
    assert both(compile_rule("exists n in tool_a.result.numbers: called(tool_b(i: n))"), t) is True
    assert both(compile_rule("forall m in metrics.limits: m < 10"), t) is True


def test_bindings_keep_true_and_one_apart():
    t = Trace.of(("tool_a", {"seed": 1}), metrics={"vals": [1, True]})
    assert both(compile_rule("forall v in metrics.vals: v == 1"), t) is False
    assert both(compile_rule("forall v in metrics.vals: v == 1 or v == true"), t) is True


def test_pattern_variables_relate_events_across_time():
    phi = compile_rule("always (tool_b(i: n) -> once tool_a(seed: n))")
    ok = Trace.of(("tool_a", {"seed": 3}), ("tool_b", {"i": 3, "j": 0}))
    bad = Trace.of(("tool_a", {"seed": 3}), ("tool_b", {"i": 4, "j": 0}))
    assert both(phi, ok) is True and both(phi, bad) is False


# ------------------------------------------------------------------ externs


EXTERN = 'extern predicate is_even(n: int) from "builtins:bool"\n'


def test_extern_predicates_are_called_with_values():
    phi = compile_rule("forall s in tool_a.seed: is_even(s)", extra=EXTERN)
    even = {"is_even": lambda n: n % 2 == 0}
    assert both(phi, Trace.of(("tool_a", {"seed": 4})), even) is True
    assert both(phi, Trace.of(("tool_a", {"seed": 4}), ("tool_a", {"seed": 5})), even) is False


def test_extern_with_an_undefined_argument_is_false_without_a_call():
    calls = []
    phi = compile_rule("is_even(metrics.missing)", extra=EXTERN)
    assert both(phi, Trace.of(("tool_a", {"seed": 1})), {"is_even": lambda n: calls.append(n) or True}) is False
    assert calls == []


def test_extern_errors_are_reported_not_raised_as_python_errors():
    phi = compile_rule("forall s in tool_a.seed: is_even(s)", extra=EXTERN)
    t = Trace.of(("tool_a", {"seed": 4}))
    with pytest.raises(ExternError, match="no Python binding"):
        Evaluator(t, {}).holds(phi)
    with pytest.raises(ExternError, match="raised ZeroDivisionError"):
        Evaluator(t, {"is_even": lambda n: 1 / 0}).holds(phi)


def test_deep_formulas_evaluate():
    """`called_n(a) >= 150` expands 150 operators deep; the oracle still answers."""
    policy, _ = check_text("tool a()\ntool b()\nrule r: called_n(a) >= 150")
    rule = policy.rules[0].formula
    assert evaluate(rule, Trace.of(*[("a", {})] * 150)) is True
    assert evaluate(rule, Trace.of(*[("a", {})] * 149, ("b", {}))) is False
