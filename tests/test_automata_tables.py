"""The pure-data tables: JSON round trips, stepping without the compiler, slicing, imports."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from policyc.automata import NotCompilable, RuleRun, RuleTable, classify, compile_rule, first_violation
from policyc.tables.dfa import VIOLATED
from policyc.check import check_file, check_text
from policyc.ir import build as b
from policyc.semantics import evaluate
from policyc.trace import Trace

from generators import AGENT, LETTERS, pair_rules, per_value, quantified, templates, traces

PURE = ["policyc.tables", "policyc.tables.product", "policyc.tables.joint",
        "policyc.tables.guidance", "policyc.tables.facts", "policyc.tables.policy"]


@pytest.mark.parametrize("module", PURE)
def test_runtime_tables_import_only_the_ir(module):
    code = (
        "import sys\n"
        f"import {module}\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('z3', 'lark', 'networkx') or "
        "m.startswith(('policyc.check', 'policyc.syntax', 'policyc.smt', 'policyc.automata')))\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


@settings(max_examples=150, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(quantified(LETTERS, 2), traces(LETTERS, 12))
def test_tables_and_run_states_round_trip_through_json(phi, trace):
    try:
        table = compile_rule(phi).table
    except NotCompilable:
        return
    loaded = RuleTable.from_json(json.loads(json.dumps(table.to_json())))
    a, c = table.start(), loaded.start()
    for call in trace.calls:
        a.step(call.name, call.args, call.result)
        c = RuleRun.from_json(loaded, json.loads(json.dumps(c.to_json())))  # a snapshot at every step
        c.step(call.name, call.args, call.result)
        assert (a.verdict(), a.accepting()) == (c.verdict(), c.accepting())
    assert c.accepting() == evaluate(phi, trace)


@settings(max_examples=200, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(pair_rules(AGENT), st.integers(0, 2), templates(AGENT), traces(AGENT, 10))
def test_a_part_over_a_pair_agrees_with_the_evaluator_on_every_prefix(q, wrap, other, trace):
    """`forall s: forall v: φ(s, v)` with s and v read together by one event's `==`s compiles
    to one part over the pair: its acceptance is the evaluator's on every prefix (run restored
    from its snapshot at every step), and a settled verdict is certain (kept on every later
    prefix, and the evaluator agrees there)."""
    from policyc.tables.dfa import OPEN, SATISFIED
    from policyc.tables.slicing import SliceTable

    phi = q if wrap == 0 else b.neg(q) if wrap == 1 else b.conj(other, q)
    table = compile_rule(phi).table
    assert wrap == 2 or any(isinstance(p, SliceTable) and p.arity == 2 for p in table.parts)
    loaded = RuleTable.from_json(json.loads(json.dumps(table.to_json())))
    run, settled = loaded.start(), None
    assert run.accepting() == evaluate(phi, trace.prefix(0))
    for i, call in enumerate(trace.calls):
        run.step(call.name, call.args, call.result)
        run = RuleRun.from_json(loaded, json.loads(json.dumps(run.to_json())))
        holds = evaluate(phi, trace.prefix(i + 1))
        assert run.accepting() == holds, (phi, trace.calls[:i + 1])
        if settled is not None:
            assert run.verdict() == settled and holds == (settled == SATISFIED)
        elif run.verdict() != OPEN:
            settled = run.verdict()


def test_pairs_named_apart_are_not_instances():
    """Memory follows what calls named together: a run where n services and n versions each
    appear, but only n pairs are named, keeps n instances, not n²; the pairs never named sit
    at the fresh state and still count (one of them breaks a `forall` the fresh state breaks)."""
    policy, diagnostics = check_text(
        "policy p\ntool build(service: str, version: str)\ntool test(service: str, version: str)\n"
        "rule r: always (test(service: s, version: v) -> once build(service: s, version: v))\n", "p.altl")
    assert policy is not None, diagnostics
    table = compile_rule(policy.rule("r").formula).table
    run = table.start()
    for k in range(50):
        run.step("build", {"service": f"s{k}", "version": f"v{k}"})
    (part,) = run.states
    assert len(part.values) == 50 and part.unnamed() == 50 * 50 - 50
    assert run.accepting()
    run.step("test", {"service": "s1", "version": "v2"})  # a pair never built
    assert not run.accepting() and run.verdict() == VIOLATED


def test_support_desk_refunds_are_sliced_per_order():
    policy, _ = check_file("examples/support_desk.altl")
    rule = policy.rule("eligible_before_refund").formula
    ok = Trace.of(("check_eligibility", {"order_id": "A1"}, {"eligible": True}),
                  ("issue_refund", {"order_id": "A1", "amount": 5}),
                  ("issue_refund", {"order_id": "B2", "amount": 5}))
    assert first_violation(rule, ok) == 3          # B2 was never checked
    assert first_violation(rule, ok.prefix(2)) is None
    run = compile_rule(rule).start()
    for call in ok.calls:
        run.step(call.name, call.args, call.result)
    instances = run.states[0].instances()
    assert {value for value, *_ in instances} == {"A1", "B2"} and run.verdict() == VIOLATED


def test_unsatisfiable_rules_are_violated_before_any_call():
    phi = b.conj(b.eventually(b.event("a")), b.always(b.neg(b.event("a"))))
    assert first_violation(phi, Trace.of()) == 0
    assert classify(phi).min_bad_prefix == 0


def test_impossible_guard_combinations_are_not_letters():
    big, small = b.op("gt", b.arg("amount"), b.lit(100)), b.op("lt", b.arg("amount"), b.lit(50))
    phi = b.always(b.neg(b.event("refund", b.op("and", big, small))))
    dfa = compile_rule(phi).dfa
    assert dfa.size == 1 and classify(phi).is_liveness  # the forbidden call cannot exist


def test_proposals_map_to_every_letter_the_result_may_give():
    phi = b.always(b.neg(b.event("lookup", b.op("eq", b.field(b.result(), "status"), b.lit("error")))))
    ab = compile_rule(phi).dfa.alphabet
    assert len(ab.proposal_letters("lookup", {"id": 1})) == 2
    assert ab.proposal_letters("other", {}) == (ab.other,)


def test_offline_only_rules_say_why():
    policy, _ = check_file("examples/code_qa.altl")
    with pytest.raises(NotCompilable, match="domain"):
        compile_rule(policy.rule("grounded").formula)
    assert "not compiled" in classify(policy.rule("grounded").formula).reason
    nested = b.forall("x", None, b.values("a", ("x",)), b.eventually(b.once(b.event("b"))))
    assert classify(nested).kind == "detectable" or classify(nested).compiled
    with pytest.raises(NotCompilable, match="future operator below a past"):
        compile_rule(b.once(b.eventually(b.event("a"))))


def test_the_product_finds_rules_that_cannot_be_satisfied_together():
    from policyc.tables.joint import JointSearch
    from policyc.tables.product import JointSpace

    a, bb, c = b.event("a"), b.event("b"), b.event("c")
    rules = [b.always(b.implies(a, b.next_(bb))), b.always(b.implies(a, b.next_(c))), b.eventually(bb)]
    tables = [compile_rule(r).dfa for r in rules]
    space = JointSpace(tables, {"a": (), "b": (), "c": ()}, frozenset())
    search = JointSearch(space, budget=1000)
    every = frozenset(range(3))
    assert search.check(space.initial, every) is True
    j = space.step(space.initial, "a", 0)
    # after `a` each rule alone can still be met (`b` next, `c` next), but not both
    assert not any(t.verdict[s] == VIOLATED for t, s in zip(tables, space.states[j]))
    assert search.check(j, every) is False
    assert space.step(space.initial, "a", 0) == j  # memoised
    assert search.check(space.step(space.initial, "b", 0), every) is True


def test_a_sliced_body_whose_shape_depends_on_a_static_condition_is_not_compiled():
    """`forall o in [1]: yesterday wnext (o == 1)`: with the condition true the body is plain
    past, with it false a future operator stays below a past one. The rule is scored by the
    evaluator instead (NotCompilable, the reason given), never an internal error."""
    from policyc.automata import compile_policy
    from policyc.check import check_text
    from policyc.ir.types import INT
    from policyc.scoring import score_trace
    from policyc.semantics import evaluate

    phi = b.forall("o", INT, b.lit([1]), b.yesterday(b.wnext(b.cond(b.op("eq", b.var("o"), b.lit(1))))))
    with pytest.raises(NotCompilable, match="future operator below a past operator"):
        compile_rule(phi)
    policy, diagnostics = check_text("policy p\ntool a()\nrule r: forall o in [1]: yesterday wnext (o == 1)\n", "p.altl")
    assert policy is not None, diagnostics
    compiled = compile_policy(policy)
    assert compiled.classes["r"] == "offline-only" and "future operator" in compiled.rules["r"].offline_reason
    report = score_trace(compiled, Trace.of(("a", {}), ("a", {})))
    assert report.constraints[0].passed == evaluate(policy.rule("r").formula, Trace.of(("a", {}), ("a", {})))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(per_value(AGENT), quantified(AGENT, 2)), st.lists(traces(AGENT, 8), min_size=1, max_size=3))
def test_the_per_id_path_of_a_slice_run_equals_the_general_one(phi, runs):
    """A call of the per-id shape (`SliceTable.call_plan`) is stepped and judged without
    evaluating terms; the same run with that shape refused to every tool (so every call takes
    the general path) has the same instances, verdicts and proposal outcomes at every step.
    Several runs share one judge and table, so what the per-id path memoises by a run's shape
    in one run (outcomes, verdicts) is read back in the next: it must hold for it too, and a
    run's memoised verdict must be the one its instances give."""
    from policyc.runtime.judge_sliced import SlicedJudge
    from policyc.tables.slicing import SliceTable

    try:
        table = compile_rule(phi).table
    except NotCompilable:
        return
    general = RuleTable.from_json(json.loads(json.dumps(table.to_json())))
    for part in general.parts:
        if isinstance(part, SliceTable):
            part._plans.update({tool: None for tool in AGENT.tools})
    fast, slow = SlicedJudge(table), SlicedJudge(general)
    for trace in runs:
        a, c = fast.start(), slow.start()
        for call in trace.calls:
            for tool, args in [(t, {"n": k}) for t in "abc" for k in (1, 2, None)] + [("a", {}), ("done", {})]:
                assert fast.outcomes(a, tool, args) == slow.outcomes(c, tool, args), (tool, args)
            a.step(call.name, call.args, call.result)
            c.step(call.name, call.args, call.result)
            assert (a.verdict(), a.accepting()) == (c.verdict(), c.accepting())
            for part in a.states:
                if not isinstance(part, int):  # the memoised standing is the instances' own
                    assert (part.verdict(), part.accepting()) == (part._verdict(), part._accepting())
            assert [sorted(map(repr, s.instances())) for s in a.states if not isinstance(s, int)] == \
                [sorted(map(repr, s.instances())) for s in c.states if not isinstance(s, int)]
