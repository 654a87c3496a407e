"""Exact gating: what can block, and when. Our decisions on the cases where the published
`agentltl` engine blocks a call because the prefix fails a rule as if the run ended there."""

from __future__ import annotations

import pytest

from runtime_helpers import drive, monitor_of

try:  # the paper authors' engine, shown side by side when it is installed
    import logging

    import agentltl
    from agentltl import After, CalledNTimes, Constraint, ConstraintSeverity, Enforcer

    logging.getLogger("agentltl").setLevel(logging.CRITICAL)
except ImportError:  # pragma: no cover - optional peer
    agentltl = None


def agentltl_actions(formula, calls):
    enforcer = Enforcer([Constraint("r", formula)], default_severity=ConstraintSeverity.PERSISTENT_BLOCK)
    out = []
    for tool in calls:
        decision = enforcer.check(tool, {})
        out.append("allow" if decision.allowed else "block")
        if decision.allowed:
            enforcer.record_completed(tool, {})
    return out


# ---------------------------------------------------------------- liveness never blocks mid-run


def test_called_n_at_least_two_never_refuses_the_calls_it_needs():
    monitor = monitor_of("rule twice severity block: called_n(a) >= 2\n")
    assert drive(monitor.start(), ["a", "a", "b", ("done", {})]) == ["allow"] * 4
    assert drive(monitor.start(), ["a", ("done", {})]) == ["allow", "block"]


@pytest.mark.skipif(agentltl is None, reason="the agentltl package is not installed")
def test_agentltl_refuses_every_a_under_called_n_at_least_two():
    assert agentltl_actions(CalledNTimes("a", 2, ">="), ["a", "a", "b"]) == ["block", "block", "block"]


def test_after_allows_the_order_it_asks_for():
    # after(a, b): the first `a` comes after the first `b`
    monitor = monitor_of("rule a_after_b severity block: after(a, b)\n")
    assert drive(monitor.start(), ["b", "a", "b"]) == ["allow", "allow", "allow"]
    # `a` first is a bad prefix: no continuation can put a `b` before it
    assert drive(monitor.start(), ["a", "b", "a"]) == ["block", "allow", "allow"]


@pytest.mark.skipif(agentltl is None, reason="the agentltl package is not installed")
def test_agentltl_deadlocks_under_after():
    assert agentltl_actions(After("a", "b"), ["b", "a", "b"]) == ["block", "block", "block"]


def test_called_does_not_refuse_other_tools_but_owes_before_the_final_answer():
    monitor = monitor_of("rule needs_a severity block: called(a)\n")
    run = monitor.start()
    assert drive(run, ["b", "c"]) == ["allow", "allow"]
    decision = run.propose("done", {})
    assert decision.action == "block"
    (finding,) = decision.findings
    assert (finding.rule, finding.kind, finding.owed) == ("needs_a", "owed", ("a",))
    assert "First call `a`, then `done`." in decision.message
    assert drive(run, ["a", ("done", {})]) == ["allow", "allow"]


@pytest.mark.skipif(agentltl is None, reason="the agentltl package is not installed")
def test_agentltl_refuses_other_tools_until_a_is_called():
    assert agentltl_actions(agentltl.Called("a"), ["b", "c", "a", "b"]) == ["block", "block", "allow", "allow"]


# ---------------------------------------------------------------- bad prefixes do block


def test_a_bad_prefix_blocks_with_the_calls_that_would_comply():
    monitor = monitor_of("rule b_needs_a severity block message \"Call a first.\": always (b -> once a)\n")
    run = monitor.start()
    decision = run.propose("b", {})
    assert decision.action == "block" and decision.rules == ("b_needs_a",)
    assert decision.findings[0].owed == ("a",)
    assert "rule `b_needs_a`: Call a first" in decision.message
    assert "First call `a`, then `b`." in decision.message
    assert "a" in decision.allowed_next and "b" not in decision.allowed_next


def test_a_rule_lost_before_is_not_the_call_s_doing():
    monitor = monitor_of("rule never_b severity warn: always not b\n")
    run = monitor.start()
    assert drive(run, ["b"]) == ["warn"]  # warned and executed: the rule is now lost
    assert run.propose("b", {}).action == "allow"  # a second b changes nothing the score can see


# ---------------------------------------------------------------- results are unknown at proposal time


RESULT_RULES = """
tool check(order: str) -> { ok: bool }
tool refund(order: str) -> any
terminal tool done()
"""


def test_conditions_on_the_proposed_call_s_result_cannot_block():
    monitor = monitor_of("rule no_bad_check severity block: always not check(result.ok == false)\n", RESULT_RULES)
    run = monitor.start()
    decision = run.propose("check", {"order": "A"})
    assert decision.action == "allow"  # it may return ok == true
    run.record("check", {"order": "A"}, {"ok": False})  # it did not: the violation is detected, not gated
    (verdict,) = run.finish().constraints
    assert verdict.passed is False and verdict.violated_at == 1


def test_recorded_results_decide_later_proposals():
    rule = "rule no_refund_after_refusal severity block: always (check(result.ok == false) -> always not refund)\n"
    monitor = monitor_of(rule, RESULT_RULES)
    run = monitor.start()
    assert drive(run, [("check", {"order": "A"}, {"ok": True}), ("refund", {"order": "A"})]) == ["allow", "allow"]
    run = monitor.start()
    assert drive(run, [("check", {"order": "A"}, {"ok": False}), ("refund", {"order": "A"})]) == ["allow", "block"]


def test_argument_conditions_are_known_at_proposal_time():
    tools = "tool refund(amount: float) -> any\ntool approve() -> any\nterminal tool done()\n"
    monitor = monitor_of("rule big_needs_approval severity block: "
                         "always (refund(amount > 100) -> once approve)\n", tools)
    run = monitor.start()
    assert run.propose("refund", {"amount": 50.0}).action == "allow"
    assert run.propose("refund", {"amount": 500.0}).action == "block"


# ---------------------------------------------------------------- the product: rules together


def test_rules_that_can_each_hold_but_not_together_are_a_conflict():
    monitor = monitor_of("rule a_then_no_b severity block: always (a -> always not b)\n"
                         "rule needs_b severity block: called(b)\n")
    run = monitor.start()
    decision = run.propose("a", {})
    assert decision.action == "block"
    (finding,) = decision.findings
    assert finding.kind == "conflict" and finding.rules == ("a_then_no_b", "needs_b")
    assert "rules `a_then_no_b`, `needs_b`: no continuation of the run satisfies them all" in decision.message
    assert drive(run, ["b", "a", ("done", {})]) == ["allow", "allow", "allow"]


def test_a_conflict_is_enforced_with_the_mildest_severity_of_its_rules():
    monitor = monitor_of("rule a_then_no_b severity stop: always (a -> always not b)\n"
                         "rule needs_b severity warn: called(b)\n")
    decision = monitor.start().propose("a", {})
    assert decision.action == "warn"  # the agent may choose to break the `warn` rule
    assert decision.findings[0].severity == "warn"


def test_no_conflict_when_the_rules_are_independent():
    monitor = monitor_of("rule a_then_no_b severity block: always (a -> always not b)\n"
                         "rule needs_c severity block: called(c)\n")
    assert drive(monitor.start(), ["a", "c", ("done", {})]) == ["allow", "allow", "allow"]


# ---------------------------------------------------------------- guidance


def test_allowed_next_and_required():
    monitor = monitor_of("rule order severity block: before(a, b)\nrule needs_b severity block: called(b)\n")
    run = monitor.start()
    assert run.allowed_next() == ("a", "c")
    assert run.required() == ("a", "b")
    run.record("a", {})
    assert run.allowed_next() == ("a", "b", "c")
    assert run.required() == ("b",)
    run.record("b", {})
    assert run.allowed_next() == ("a", "b", "c", "done") and run.required() == ()
