"""Hostile input at the gate: what an agent proposes and what its tools return.

- Arguments nested 1,500 deep made `propose` raise RecursionError. Arguments nested more
  than MAX_VALUE_DEPTH (100) levels are now refused with a conformance finding that no retry
  overrides; recording such arguments, or such a result object, is a RunError.
- A result text `"[111...]"` of thousands of digits made `record` raise ValueError: text
  that does not convert stays text, as any text that is not JSON does.
- `block` is the paper's block-and-warn: an identical retry runs. `deny` never runs, not on
  a retry, not under a milder run-wide mode; lint reports it like every blocking severity
  the gate cannot act on.
"""

from __future__ import annotations

import pytest

from policyc.artifact.models import Artifact
from policyc.check import check_text
from policyc.lint import LintOptions, lint_policy
from policyc.runtime import RunError
from policyc.runtime.calls import MAX_VALUE_DEPTH
from runtime_helpers import monitor_of


def nested(depth: int):
    value: object = 1
    for _ in range(depth):
        value = [value]
    return value


@pytest.fixture
def monitor():
    return monitor_of("rule a_first severity block: always (b -> once a)\n")


def test_arguments_nested_1500_deep_are_refused_not_a_recursion_error(monitor):
    run = monitor.start()
    first = run.propose("a", {"n": nested(1500)})
    assert (first.action, first.severity, first.executes) == ("block", "deny", False)
    assert first.findings[0].rule == "conformance/too-deep"
    assert f"nest more than {MAX_VALUE_DEPTH} levels deep" in first.message
    assert "repeating it will not run it" in first.message
    again = run.propose("a", {"n": nested(1500)})
    assert again.action == "block" and not again.override
    assert run.propose("a", {"n": nested(MAX_VALUE_DEPTH - 1)}).action == "warn"  # deep, but readable: a type finding


def test_recording_values_nested_too_deeply_is_a_run_error(monitor):
    run = monitor.start()
    with pytest.raises(RunError, match="the arguments of `a` nest more than 100 levels deep"):
        run.record("a", {"n": nested(1500)})
    with pytest.raises(RunError, match="the result of `a` nest more than 100 levels deep"):
        run.record("a", {}, {"rows": nested(500)})
    run.record("a", {}, "[" * 5000 + "]" * 5000)  # text: parsing it would be too deep, so it stays text
    assert run.trace.calls[0].result == "[" * 5000 + "]" * 5000


def test_a_result_text_of_thousands_of_digits_stays_text(monitor):
    run = monitor.start()
    text = "[" + "1" * 5000 + "]"
    run.record("a", {}, text)
    assert run.trace.calls[0].result == text
    assert run.finish().compliance_score == 1.0


def test_a_snapshot_of_a_run_with_deep_text_results_restores(monitor):
    run = monitor.start()
    run.record("a", {}, "[" * 3000 + "]" * 3000)
    again = monitor.restore(run.snapshot())
    assert again.trace.calls == run.trace.calls


# ------------------------------------------------------------------ deny beside block


RULES = ("rule no_c severity deny: always not c\n"
         "rule a_first severity block: always (b -> once a)\n")


def test_block_yields_to_an_identical_retry_and_deny_never_does():
    run = monitor_of(RULES).start()
    blocked = run.propose("b", {"n": 1})
    assert (blocked.action, blocked.severity) == ("block", "block") and "repeat exactly the same call" in blocked.message
    assert run.propose("b", {"n": 1}).override  # block-and-warn: the agent insisted, the call runs
    run.record("b", {"n": 1})
    for _ in range(5):
        denied = run.propose("c", {})
        assert (denied.action, denied.severity, denied.override) == ("block", "deny", False)
        assert "This call is denied: repeating it will not run it" in denied.message
    with pytest.raises(RunError, match="refused"):
        run.record("c", {})
    assert not run.stopped  # deny refuses the call; the run goes on


@pytest.mark.parametrize("mode, severity, action", [
    ("tolerate", "deny", "block"), ("warn", "deny", "block"), ("block", "deny", "block"),
    ("soft", "soft_block", "block"), ("stop", "stop", "stop"),
])
def test_a_run_wide_mode_never_makes_deny_milder(mode, severity, action):
    decision = monitor_of(RULES).start(mode=mode).propose("c", {})
    assert (decision.severity, decision.action) == (severity, action)


def test_deny_and_block_together_are_denied():
    run = monitor_of(RULES + "rule no_c_either severity block: never(c)\n").start()
    assert run.propose("c", {}).severity == "deny"
    assert not run.propose("c", {}).override


def test_deny_is_in_the_artifact_schema_and_in_lint():
    assert "deny" in Artifact.model_json_schema()["$defs"]["SeverityModel"]["properties"]["kind"]["enum"]
    policy, _ = check_text("tool a()\ntool done()\nrule r severity deny: called(a)\n", "d.altl")
    report = lint_policy(policy, LintOptions(bound=4))
    (finding,) = [f for f in report.findings if f.code == "L0006"]
    assert finding.message == "rule `r` has severity `deny` but no call can ever violate it for certain"


@pytest.mark.parametrize("amount, refused", [
    ("1000", True), (" 1e3 ", True), ("50", False), ("lots", False),
    # found by a later sweep: pydantic's lax mode reads these as numbers too
    ("+1000", True), ("1_000", True), ("Infinity", True), ("1e400", True), ("-inf", False), ("e5", False),
    (True, False)])
def test_a_number_written_as_text_does_not_pass_a_deny_rule(amount, refused):
    # the OpenAI Agents SDK and LangGraph convert `"1000"` to 1000.0 for a `float` parameter:
    # the gate judged the text (no comparison with a number holds for it) and warned only of
    # the type, and the tool paid 1000 (found by a sweep written from the docs alone). The
    # rules are now judged on the value as the tool receives it too
    monitor = monitor_of("rule cap severity deny: always not pay(amount > 100)\n"
                         "rule not_now severity deny: never(pay(now == true))\n",
                         "tool pay(to: str, amount: float, now: bool?)\n")
    decision = monitor.start().propose("pay", {"to": "x", "amount": amount})
    assert ("cap" in decision.rules) is refused and decision.executes is not refused, decision
    assert "conformance/wrong-type" in [f.rule for f in decision.findings]
    for now in ("TRUE", "yes", "On", "t", "1", 1, 1.0):  # what pydantic reads as true
        assert not monitor.start().propose("pay", {"to": "x", "amount": 5, "now": now}).executes, now
    for now in ("no", "off", 0, 2, "maybe"):
        assert monitor.start().propose("pay", {"to": "x", "amount": 5, "now": now}).executes, now


def test_a_proposal_with_tens_of_thousands_of_argument_names_is_judged_in_one_pass():
    # each unknown argument's finding was checked against a tuple of them all, and the agent's
    # message joined and compared one copy of the correction (listing them all) per finding:
    # 200,000 names took five minutes (found by a sweep written from the docs alone). No time
    # is asserted here; before, this test alone took about a minute
    monitor = monitor_of("rule r: called(search)\n", "tool search(query: str) -> any\n")
    decision = monitor.start().propose("search", {f"k{i}": i for i in range(50_000)})
    assert decision.action == "warn" and len(decision.findings) == 50_001
    assert decision.message.count("\n") < 10  # one correction, however many arguments it names
