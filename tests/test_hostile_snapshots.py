"""Hostile input: run snapshots kept outside the process and edited there.

A restored snapshot with its history emptied, or `"mode": "lenient"`, used to restore and
then fail with a KeyError mid-run. `Monitor.restore` now checks every field's type, the
references between fields, and that the automaton states it holds are the ones its calls
lead to; anything else is a `RunError` naming the field. A fuzzer edits real snapshots taken
at every point of scripted runs: each edit is refused so, or the run continues normally.
"""

from __future__ import annotations

import copy
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from policyc.artifact.build import compile_file
from policyc.runtime import Monitor, RunError
from hostile_helpers import json_paths

MONITOR = Monitor(compile_file("examples/support_desk.altl"))
SCRIPT = [
    ("get_customer", {"customer_id": "c1"}, {"id": "c1", "tier": "gold"}),
    ("lookup_order", {"order_id": "A1"}, {"id": "A1", "total": 20.0}),
    ("issue_refund", {"order_id": "A1", "amount": 5.0}, None),
    ("check_eligibility", {"order_id": "A1"}, {"eligible": True, "max_refund": 10.0}),
    ("issue_refund", {"order_id": "A1", "amount": 5.0}, {"ok": True}),
    ("reply", {"message": "done"}, None),
]


def snapshot_after(calls: int) -> dict:
    run = MONITOR.start(run_id="r1")
    for tool, args, result in SCRIPT[:calls]:
        if run.propose(tool, args).executes:
            run.record(tool, args, result)
    return json.loads(json.dumps(run.snapshot()))


def refused(state: dict) -> str:
    with pytest.raises(RunError) as error:
        MONITOR.restore(state)
    assert "\n" not in str(error.value)
    return str(error.value)


@pytest.mark.parametrize("edit, message", [
    (lambda s: s.update(calls=[]), "the run snapshot is damaged: `events.2.step` is 2, after the 0 call(s) of the "
                                   "run"),
    (lambda s: s.update(calls=[], events=[], awaiting=[]),
     "the run snapshot is damaged: its automaton states are not those its 0 call(s) lead to"),
    (lambda s: s.update(mode="lenient"), "the run snapshot is damaged: `mode`: input should be"),
    (lambda s: s.update(proposals="3"), "`proposals`: input should be a valid integer"),
    (lambda s: s.update(proposals=-1), "`proposals`: input should be greater than or equal to 0"),
    (lambda s: s["gate"].update(product=[99] * len(s["gate"]["product"])),
     "its automaton states are not those its 2 call(s) lead to"),
    (lambda s: s["gate"].update(product="x"), "its automaton states are not those"),
    (lambda s: s.update(awaiting=[7]), "`awaiting` names event 7, which is not an unresolved refusal"),
    (lambda s: s["events"][0].update(index=5), "`events.0.index` is 5, not 0"),
    (lambda s: s["events"][0].update(severity="lenient"), "`events.0.severity`: input should be"),
    (lambda s: s["enforcement"].update(soft_blocks={"ghost": 2}), "`enforcement.soft_blocks` are not the soft "
                                                                  "blocks in the enforcement log"),
    (lambda s: s.update(ended_by="issue_refund"), "`ended_by` is `issue_refund`, but the run did not end with that "
                                                  "terminal call"),
    (lambda s: s["calls"][0].update(args=[1, 2]), "`calls.0.args`: input should be a valid dictionary"),
    (lambda s: s["calls"][0].update(extra=1), "`calls.0.extra`: extra inputs are not permitted"),
    (lambda s: s.pop("events"), "`events`: field required"),
    (lambda s: s.update(pending=["x", "yes"]), "`pending.1`: input should be a valid boolean"),
    (lambda s: s.update(refused=["ghost", *s["refused"]]), "`refused` lists a call twice, or one the enforcement "
                                                          "log shows no refusal of"),
    (lambda s: s.update(refused=[]), "`refused` leaves out a call whose latest proposal the log or `pending` shows"),
    # a refused call made recordable by hand: the log still awaits an answer to its refusal
    (lambda s: s.update(pending=[s["pending"][0], True], refused=[]), "`refused` leaves out a call"),
])
def test_each_damage_is_a_run_error_naming_it(edit, message):
    state = snapshot_after(4)
    assert len(state["calls"]) == 2 and state["events"], "two calls ran, two were refused"
    edit(state)
    assert message in refused(state)


def test_a_snapshot_of_another_artifact_or_version_is_refused():
    state = snapshot_after(2)
    assert "another policy artifact" in refused({**state, "artifact": "sha256:0"})
    assert "version 2 is not supported" in refused({**state, "version": 2})
    assert refused([]) == "not a policyc run snapshot"


VALUES = st.sampled_from([0, 1, -1, 3, 99, None, True, False, "", "x", "lenient", "block", "A1", [], {}, [0, 1],
                          {"a": 1}, 2.5])


@st.composite
def damaged_snapshots(draw):
    state = copy.deepcopy(draw(st.sampled_from(SNAPSHOTS)))
    paths = [p for p in json_paths(state) if p and p[0] not in ("format", "version", "artifact")]
    for _ in range(draw(st.integers(1, 3))):
        path = draw(st.sampled_from(paths))
        parent = state
        try:
            for key in path[:-1]:
                parent = parent[key]
            if draw(st.integers(0, 4)):
                parent[path[-1]] = draw(VALUES)
            else:
                del parent[path[-1]]
        except (KeyError, IndexError, TypeError):
            continue
    return state


SNAPSHOTS = [snapshot_after(n) for n in range(len(SCRIPT) + 1)]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(damaged_snapshots(), st.lists(st.sampled_from(SCRIPT), max_size=3))
def test_a_damaged_snapshot_is_refused_or_continues_normally(state, more):
    try:
        run = MONITOR.restore(state)
    except RunError as error:
        assert str(error)
        return
    for tool, args, result in more:
        if run.finished or run.ended or run.stopped:
            break
        if run.propose(tool, args).executes:
            run.record(tool, args, result)
    again = MONITOR.restore(json.loads(json.dumps(run.snapshot())))
    assert again.trace.calls == run.trace.calls
    assert 0.0 <= run.finish().compliance_score <= 1.0
