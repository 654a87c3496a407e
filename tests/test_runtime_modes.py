"""Enforcement modes as the AgentLTL paper's appendix A.5.3 and §4.2 define them, the event
log, and table 17 (events and insist rate per layer) computed from it."""

from __future__ import annotations

import json

import pytest

from policyc.runtime import RunError, enforcement_table
from runtime_helpers import drive, monitor_of

RULE = "rule b_needs_a layer L3 severity {severity}: always (b -> once a)\n"


def run_with(severity: str, mode: str | None = None):
    return monitor_of(RULE.format(severity=severity)).start(mode=mode)


def test_tolerate_logs_and_continues_silently():
    run = run_with("tolerate")
    decision = run.propose("b", {})
    assert decision.action == "allow" and decision.executes and decision.message == ""
    assert decision.rules == ("b_needs_a",)
    (event,) = run.events
    assert (event.rule, event.layer, event.severity, event.resolution) == ("b_needs_a", "L3", "tolerate", "executed")


def test_warn_executes_and_tells_the_agent():
    run = run_with("warn")
    decision = run.propose("b", {})
    assert decision.action == "warn" and decision.executes
    assert decision.message.startswith("`b` ran, but it breaks the policy:")
    run.record("b", {})


def test_block_and_warn_identical_retry_is_a_deliberate_override():
    run = run_with("block")
    first = run.propose("b", {"n": 1})
    assert first.action == "block" and not first.executes
    assert "repeat exactly the same call" in first.message
    with pytest.raises(RunError, match="refused by the gate"):
        run.record("b", {"n": 1})
    again = run.propose("b", {"n": 1})
    assert again.action == "warn" and again.override and again.executes
    run.record("b", {"n": 1})
    assert [e.resolution for e in run.events] == ["insisted"]



@pytest.mark.parametrize("observe", ["", "observe messages, user_calls\n"])
@pytest.mark.parametrize("between", ["agent_call", "user_call", "user_message"])
def test_anything_recorded_between_a_block_and_its_retry_ends_the_override(observe, between):
    """docs/runtime.md: "Something recorded between the two proposals ... also ends the chance
    to override." Found by a sweep written from the docs alone: the user's call or message
    left it open, and the run's snapshot was then refused as damaged on restore."""
    monitor = monitor_of(observe + RULE.format(severity="block"))
    run = monitor.start()
    assert run.propose("b", {"n": 1}).action == "block"
    if between == "agent_call":
        run.propose("c", {})
        run.record("c", {})
    elif between == "user_call":
        run.record("c", {}, "ok", actor="user")
    else:
        run.record("message", {"text": "No, do not do that", "calls": []}, None, actor="user")
    state = json.loads(json.dumps(run.snapshot()))
    retry = run.propose("b", {"n": 1})
    assert retry.action == "block" and not retry.override
    restored = monitor.restore(state)  # the run's own snapshot restores, and decides alike
    assert restored.propose("b", {"n": 1}).action == "block"


@pytest.mark.parametrize("severity", ["deny", "block"])
def test_a_refused_call_cannot_be_recorded_after_other_proposals_either(severity):
    """Found by a sweep written from the docs alone: once another call was proposed (a harness
    gating a batch of calls one after another), the refused call could be recorded as run;
    the rule then counted as lost, and a `deny` let every later identical call through."""
    monitor = monitor_of(RULE.format(severity=severity))
    run = monitor.start()
    assert run.propose("b", {"n": 1}).action == "block"
    assert run.propose("c", {}).action == "allow"
    run.record("c", {})
    with pytest.raises(RunError, match="refused by the gate"):
        run.record("b", {"n": 1})
    restored = monitor.restore(json.loads(json.dumps(run.snapshot())))
    with pytest.raises(RunError, match="refused by the gate"):
        restored.record("b", {"n": 1})
    assert run.propose("a", {}).executes
    run.record("a", {})
    assert run.propose("b", {"n": 1}).action == "allow"  # allowed now: it may run
    run.record("b", {"n": 1})
    assert run.trace.tool_sequence == ["c", "a", "b"]

def test_block_and_warn_any_other_retry_is_judged_afresh():
    run = run_with("block")
    assert run.propose("b", {"n": 1}).action == "block"
    assert run.propose("b", {"n": 2}).action == "block"  # not identical: blocked again
    assert run.propose("b", {"n": 1}).action == "block"  # the pointer moved to n=2
    assert [e.resolution for e in run.events] == ["listened", "listened", None]
    assert run.propose("a", {}).action == "allow"
    assert [e.resolution for e in run.events] == ["listened", "listened", "listened"]


def test_identity_is_byte_exact():
    run = run_with("block")
    run.propose("b", {"n": 1})
    assert run.propose("b", {"n": 1.0}).action == "block"  # 1 and 1.0 are different bytes
    run = run_with("block")
    run.propose("b", {"n": 1})
    run.record("c", {})  # something ran in between: the retry is no longer the very next move
    assert run.propose("b", {"n": 1}).action == "block"


def test_soft_block_escalates_to_stop_at_the_nth_refusal_of_the_same_rule():
    run = run_with("soft_block(3)")
    first, second = run.propose("b", {}), run.propose("b", {"n": 2})
    assert [first.action, second.action] == ["block", "block"]
    assert "Refusal 1 of 3 for rule `b_needs_a`" in first.message
    third = run.propose("b", {"n": 3})
    assert third.action == "stop" and third.escalated and run.stopped
    assert run.propose("a", {}).latched
    with pytest.raises(RunError, match="stopped"):
        run.record("a", {})


def test_soft_block_default_limit_is_three():
    assert drive(run_with("soft_block"), ["b", "b", "b"]) == ["block", "block", "stop"]


def test_soft_block_counts_per_rule():
    monitor = monitor_of("rule b_needs_a severity soft_block(2): always (b -> once a)\n"
                         "rule c_needs_a severity soft_block(2): always (c -> once a)\n")
    assert drive(monitor.start(), ["b", "c", "b"]) == ["block", "block", "stop"]


def test_stop_halts_the_run():
    run = run_with("stop")
    decision = run.propose("b", {})
    assert decision.action == "stop" and not decision.executes
    assert "the run is stopped" in decision.message
    later = run.propose("a", {})
    assert later.action == "stop" and later.latched
    assert [e.resolution for e in run.events] == ["stopped"]


def test_the_strongest_severity_decides():
    monitor = monitor_of("rule b_needs_a severity warn: always (b -> once a)\n"
                         "rule b_needs_c severity stop: always (b -> once c)\n")
    decision = monitor.start().propose("b", {})
    assert decision.action == "stop" and set(decision.rules) == {"b_needs_a", "b_needs_c"}


@pytest.mark.parametrize("mode,actions", [
    ("tolerate", ["allow", "allow"]),
    ("warn", ["warn", "allow"]),  # the first `b` ran: the rule is lost, a second cannot lose it again
    ("block", ["block", "warn"]),
    ("soft", ["block", "block"]),
    ("stop", ["stop"]),
])
def test_a_run_wide_mode_overrides_the_rules_severities(mode, actions):
    assert drive(run_with("warn", mode), ["b", "b"]) == actions


def test_conformance_findings_use_the_policy_s_conformance_severity():
    monitor = monitor_of("conformance block\nrule r: called(a)\n")
    run = monitor.start()
    decision = run.propose("serch", {})
    assert decision.action == "block"
    assert decision.findings[0].detail == "unknown tool `serch`"
    decision = run.propose("a", {"m": 1})
    assert decision.action == "block"
    assert [f.rule for f in decision.findings] == ["conformance/unknown-argument"]
    assert run.propose("a", {"n": "x"}).findings[0].detail == "`a`: `n` should be int, got str"
    warned = monitor_of("rule r: called(a)\n").start().propose("a", {"n": "three"})
    assert warned.action == "warn" and warned.findings[0].kind == "conformance"


def test_table_17_from_a_run_log():
    monitor = monitor_of("rule b_needs_a layer L3 severity block: always (b -> once a)\n"
                         "rule no_c layer L5 severity block: always not c\n")
    run = monitor.start()
    drive(run, ["b", "b", "c", "a", "c"])
    rows = {row.layer: row for row in run.enforcement_table()}
    assert (rows["L3"].events, rows["L3"].insisted, rows["L3"].listened) == (1, 1, 0)
    assert (rows["L5"].events, rows["L5"].insisted, rows["L5"].listened, rows["L5"].resolved) == (2, 0, 1, 1)
    assert rows["L3"].insist_rate == 1.0 and rows["L5"].insist_rate == 0.0
    many = [e for r in (run, run) for e in r.events]
    assert enforcement_table(many)[0].events == 2 * rows["L3"].events


def test_a_told_decision_and_a_resolved_event_keep_every_other_field():
    """`Decision.told` and `EnforcementEvent.resolved` build their copies field by field (for
    speed): each must equal `dataclasses.replace`, every field set away from its default."""
    from dataclasses import FrozenInstanceError, fields, replace

    from policyc.runtime.events import EnforcementEvent
    from policyc.runtime.explain import Decision
    from policyc.runtime.findings import Finding

    finding = Finding("r", "violation", "L3", "soft_block", 2, "broken", ("r",), "say so", ("a",))
    decision = Decision("block", "b", {"x": 1}, 4, (finding,), "soft_block", "old", ("a",), ("a", "b"), True, True,
                        True, (("r", 1, 2),), ("open",))
    assert decision.told("new") == replace(decision, message="new")
    # Decision's own __init__ sets every field, by position and by name, and it stays frozen
    assert Decision(**{f.name: getattr(decision, f.name) for f in fields(Decision)}) == decision
    assert [getattr(Decision("allow", "b", {}, 0), f.name) for f in fields(Decision)] == \
        ["allow", "b", {}, 0] + [f.default for f in fields(Decision)][4:]
    with pytest.raises(FrozenInstanceError):
        decision.message = "changed"  # type: ignore[misc]
    assert {f.name for f in fields(Decision)} == {f.name for f in fields(decision.told(""))}
    event = EnforcementEvent(3, 4, "r", "L3", "violation", "block", "block", "b", '["b",{}]', None)
    assert event.resolved("listened") == replace(event, resolution="listened")
    assert len(fields(Decision)) == 14 and len(fields(EnforcementEvent)) == 10  # a new field: add it to the copies


def test_a_decision_as_json_holds_every_field_the_docs_list():
    """docs/runtime.md: "`Decision.to_json()` gives all of it". Found by a sweep written from
    the docs alone: `executes`, the field that says whether the call may run, was missing."""
    documented = {"action", "executes", "rules", "findings", "severity", "message", "allowed_next", "required",
                  "override", "escalated", "latched", "undecided"}
    run = run_with("block")
    shown = [json.loads(json.dumps(run.propose("b", {"n": 1}).to_json())) for _ in range(2)]
    assert all(documented <= set(one) for one in shown)
    assert [(one["action"], one["executes"]) for one in shown] == [("block", False), ("warn", True)]  # its override
