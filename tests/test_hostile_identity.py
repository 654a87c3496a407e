"""Hostile input at the gate, second round: a call's identity, `deny`, forged snapshots.

- Arguments nested 99 levels got one identity per tool (the identity cut depth at 99), and
  the identical-retry override was looked up before the call was judged: a `delete(path:
  "tmp")` refused by a `block` rule, then `delete(path: "/")` with the same padding, which a
  `deny` rule forbids, ran as the "identical retry". The identity is now the full canonical
  arguments, with no cut, and a retry is judged like any proposal: only block-and-warn
  findings yield to it.
- Setting `enforcement.override` in a snapshot to the identity of a denied call made that
  call run after restore. The enforcement state is now checked against the enforcement log
  it must follow from, and `deny` holds whatever the state says.
- `bytes` arguments were accepted and broke `snapshot()` later; an integer of 5,000 digits
  was accepted and broke it too. Arguments that are not JSON data are refused (`deny`), and
  recording such a value is a RunError, so a run always holds what it can snapshot.

A property test drives random sequences of proposals, records, snapshots (some forged) and
run-wide modes: no call a `deny` rule forbids ever runs, by the reference evaluator.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from policyc.runtime import RunError
from policyc.runtime import calls
from policyc.semantics import evaluate
from runtime_helpers import monitor_of

TOOLS = """
tool delete(path: str, pad: any?)
tool backup()
tool read(path: str)
terminal tool done()
"""
RULES = """
rule no_root severity deny: never(delete(path == "/"))
rule backed_up severity deny: always (delete -> once backup)
rule no_tmp severity block: never(delete(path == "tmp"))
rule read_first severity block: always (delete -> once read)
rule no_secret severity soft_block(2): never(read(path == "secret"))
"""
MONITOR = monitor_of(RULES, TOOLS)
DENY_RULES = [r for r in MONITOR.policy.rules if r.severity.kind == "deny"]


def nested(depth: int, leaf: object = 1) -> object:
    value = leaf
    for _ in range(depth):
        value = [value]
    return value


@pytest.mark.parametrize("depth", [97, 98, 99, 100, 101, 5000])
def test_a_denied_call_never_runs_as_the_retry_of_a_blocked_one_whatever_the_padding(depth):
    run = MONITOR.start()
    run.record("backup", {})
    run.record("read", {"path": "/"})
    first = run.propose("delete", {"path": "tmp", "pad": nested(depth)})
    assert first.action == "block"
    second = run.propose("delete", {"path": "/", "pad": nested(depth)})
    assert (second.action, second.severity, second.override, second.executes) == ("block", "deny", False, False)
    with pytest.raises(RunError, match="refused|nest more than 100 levels"):
        run.record("delete", {"path": "/", "pad": nested(depth)})


def test_the_identity_has_no_depth_cut():
    deep_a, deep_b = nested(150, "a"), nested(150, "b")
    assert calls.value_problem({"x": deep_a}) == "nest more than 100 levels deep"
    assert calls.call_identity("t", {"x": nested(99, "a")}) != calls.call_identity("t", {"x": nested(99, "b")})
    assert calls.call_identity("t", {"x": {"b": 1, "a": 2}}) == calls.call_identity("t", {"x": {"a": 2, "b": 1}})
    with pytest.raises(ValueError, match="nest more than 100"):
        calls.call_identity("t", {"x": deep_b})


def test_a_block_retry_still_overrides_and_is_judged():
    run = MONITOR.start()
    run.record("backup", {})
    blocked = run.propose("delete", {"path": "tmp"})
    assert blocked.severity == "block" and set(blocked.rules) == {"no_tmp", "read_first"}
    again = run.propose("delete", {"path": "tmp"})
    assert again.override and again.executes


@pytest.mark.parametrize("value, problem", [
    (b"raw", "hold a `bytes` value, which is not JSON data"),
    (10 ** 5000, "hold an integer of more than 4,000 digits"),
    ({1: "x"}, "hold a mapping key that is not text (a `int`)"),
    ({"a": {"b": object()}}, "hold a `object` value, which is not JSON data"),
], ids=["bytes", "5000-digits", "int-key", "object"])
def test_arguments_that_are_not_json_data_are_denied_and_snapshots_never_break(value, problem):
    run = MONITOR.start()
    decision = run.propose("read", {"path": value})
    assert (decision.action, decision.severity) == ("block", "deny")
    assert decision.findings[0].rule == "conformance/not-json"
    assert decision.findings[0].detail == f"the arguments of `read` {problem}"
    assert not run.propose("read", {"path": value}).override
    with pytest.raises(RunError, match="record a value that is JSON data"):
        run.record("read", {"path": value})
    with pytest.raises(RunError, match="the result of `read`"):
        run.record("read", {"path": "x"}, value)
    run.record("read", {"path": "x"}, "text")
    state = json.loads(json.dumps(run.snapshot()))
    assert MONITOR.restore(state).trace.calls == run.trace.calls


def _nested(depth: int) -> list:
    value: list = []
    for _ in range(depth):
        value = [value]
    return value


def _cycle() -> list:
    loop: list = []
    loop.append(loop)
    return loop


@pytest.mark.parametrize("args", [
    {"path": b"raw"}, {"path": {1, 2}}, {"path": 10 ** 5000}, {"path": float("nan")}, {"path": _nested(1500)},
    {"path": _cycle()}, {(1, 2): "x"},
], ids=["bytes", "set", "5000-digits", "nan", "1500-deep", "cycle", "tuple-key"])
def test_a_refused_proposal_that_is_not_json_data_has_a_decision_that_is(args):
    """A harness logs decisions as JSON: the decision of a proposal refused for holding values
    that are not JSON data shows those values as their text."""
    decision = MONITOR.start().propose("read", args)
    assert (decision.action, decision.severity) == ("block", "deny")
    shown = json.loads(json.dumps(decision.to_json(), allow_nan=False))
    assert len(shown["args"]) == 1 and all(isinstance(v, str) for v in shown["args"].values())
    assert shown["rules"] == [] and shown["findings"][0]["rule"] in ("conformance/not-json", "conformance/too-deep")


@pytest.mark.parametrize("bad", [10 ** 5000, float("nan"), float("inf"), _nested(150)],
                         ids=["5000-digits", "nan", "inf", "150-deep"])
@pytest.mark.parametrize("where", ["result", "args", "metrics"])
def test_a_snapshot_holding_what_record_refuses_is_refused(bad, where):
    """`record` refuses such values, so a snapshot holding one is forged or damaged: restoring
    it is a RunError naming the field, never a run whose own snapshot cannot be written."""
    run = MONITOR.start(metrics={"cost": 1})
    run.record("read", {"path": "x"}, ["a"])
    state = json.loads(json.dumps(run.snapshot()))
    if where == "metrics":
        state["metrics"]["cost"] = bad
    else:
        state["calls"][0][where] = {"path": bad} if where == "args" else [bad]
    field = "`metrics`" if where == "metrics" else f"`calls.0.{where}`"
    with pytest.raises(RunError, match=f"the run snapshot is damaged: {field}"):
        MONITOR.restore(state)


def test_a_run_id_or_metrics_a_snapshot_cannot_hold_are_refused_at_the_start():
    with pytest.raises(TypeError, match="a run's id is text"):
        MONITOR.start(run_id=object())  # type: ignore[arg-type]
    with pytest.raises(RunError, match="the metrics record's values hold a number that is not finite"):
        MONITOR.start(metrics={"cost": float("nan")})


def test_a_forged_override_in_a_snapshot_is_refused():
    run = MONITOR.start()
    run.record("backup", {})
    run.record("read", {"path": "x"})
    assert run.propose("delete", {"path": "tmp"}).action == "block"
    state = json.loads(json.dumps(run.snapshot()))
    state["enforcement"]["override"] = calls.call_identity("delete", {"path": "/"})
    with pytest.raises(RunError, match="`enforcement.override` is not the block-and-warn refusal"):
        MONITOR.restore(state)
    fresh = MONITOR.start()  # an override forged before any refusal at all
    forged = json.loads(json.dumps(fresh.snapshot()))
    forged["enforcement"]["override"] = calls.call_identity("delete", {"path": "/"})
    forged["pending"] = [forged["enforcement"]["override"], False]
    with pytest.raises(RunError, match="`enforcement.override`"):
        MONITOR.restore(forged)


@pytest.mark.parametrize("edit, message", [
    (lambda s: s["enforcement"].update(stopped="rule `no_root`"), "`enforcement.stopped` does not agree"),
    (lambda s: s["enforcement"].update(soft_blocks={}), "`enforcement.soft_blocks` are not the soft blocks"),
    (lambda s: s.update(awaiting=[]), "`awaiting` does not list exactly the refusals"),
])
def test_enforcement_state_must_follow_from_the_log(edit, message):
    run = MONITOR.start()
    assert run.propose("read", {"path": "secret"}).severity == "soft_block"
    state = json.loads(json.dumps(run.snapshot()))
    MONITOR.restore(json.loads(json.dumps(state)))  # as taken, it restores
    edit(state)
    with pytest.raises(RunError, match=message):
        MONITOR.restore(state)


# ------------------------------------------------------------------ the property

PATHS = ["/", "tmp", "x", "secret"]
PADS = [None, 98, 99, 100, 101, 400]


@st.composite
def proposals(draw):
    tool = draw(st.sampled_from(["delete", "delete", "backup", "read", "done"]))
    if tool == "backup" or tool == "done":
        return tool, {}
    args: dict = {"path": draw(st.sampled_from(PATHS))}
    pad = draw(st.sampled_from(PADS))
    if tool == "delete" and pad is not None:
        args["pad"] = nested(pad, draw(st.sampled_from(["a", "b"])))
    return tool, args


STEPS = st.lists(st.one_of(
    proposals().map(lambda call: ("propose", call)),
    st.tuples(st.just("snapshot"), st.sampled_from([None, "override", "mode", "both"]),
              st.sampled_from(["tolerate", "warn", "block", "soft", "stop"])),
), min_size=1, max_size=14)


def _restored(run, forge, mode, last_identity):
    state = json.loads(json.dumps(run.snapshot()))
    if forge in ("override", "both") and last_identity is not None:
        state["enforcement"]["override"] = last_identity
    if forge in ("mode", "both"):
        state["mode"] = mode
    try:
        return MONITOR.restore(state)
    except RunError:
        return run  # refused: the run goes on as it was


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mode=st.sampled_from([None, "tolerate", "warn", "block", "soft", "stop"]), steps=STEPS)
def test_no_sequence_of_proposals_makes_a_denied_call_run(mode, steps):
    run = MONITOR.start(mode=mode)
    last_identity = None
    for step in steps:
        if run.stopped or run.ended:
            break
        if step[0] == "snapshot":
            run = _restored(run, step[1], step[2], last_identity)
            continue
        tool, args = step[1]
        decision = run.propose(tool, args)
        if calls.value_problem(args) is None:
            last_identity = calls.call_identity(tool, args)
        if decision.executes:
            run.record(tool, args)
            trace = MONITOR.policy.view(run.trace)
            for rule in DENY_RULES:  # the oracle: the reference evaluator on what ran
                assert evaluate(rule.formula, trace), f"`{rule.name}` broken by {tool} {str(args)[:60]}"
