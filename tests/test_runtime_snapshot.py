"""A run survives a process restart with nothing lost, and runs are safe across threads."""

from __future__ import annotations

import json
import random
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest

from policyc.artifact.build import build_artifact
from policyc.artifact.io import write_artifact
from policyc.check import check_file
from policyc.runtime import Monitor, RunError
from runtime_helpers import drive, monitor_of

ROOT = Path(__file__).resolve().parent.parent
RULES = ("rule b_needs_a layer L3 severity block: always (b -> once a)\n"
         "rule no_c layer L5 severity soft_block(3): always not c\n"
         "rule needs_b severity warn: called(b)\n")
SCRIPT = [("c", {}), ("b", {}), ("b", {}), ("c", {"n": 1}), ("a", {}), ("b", {"n": 2}), ("c", {}),
          ("done", {"answer": "x"})]


def run_script(run, calls):
    """Drive calls and keep everything observable about each decision."""
    seen = []
    for tool, args in calls:
        d = run.propose(tool, args)
        seen.append((d.action, d.rules, d.message, d.override, d.escalated))
        if d.executes:
            run.record(tool, args, {"ok": True})
        if d.action == "stop":
            break
    return seen


@pytest.mark.parametrize("cut", range(len(SCRIPT) + 1))
def test_restoring_a_snapshot_continues_exactly(cut):
    monitor = monitor_of(RULES)
    whole = monitor.start()
    expected = run_script(whole, SCRIPT)
    first = monitor.start()
    before = run_script(first, SCRIPT[:cut])
    state = json.loads(json.dumps(first.snapshot()))
    fresh = monitor_of(RULES)  # a new process: new memo tables, same artifact
    restored = fresh.restore(state)
    after = run_script(restored, SCRIPT[cut:]) if not restored.stopped else []
    assert before + after == expected[: len(before) + len(after)]
    assert restored.events == whole.events
    assert restored.trace.calls == whole.trace.calls



@pytest.mark.parametrize("observe", ["", "observe user_calls\n"])
def test_a_user_terminal_call_does_not_end_the_run_and_its_snapshot_restores(observe):
    """Found by a sweep written from the docs alone: the user's call to a terminal tool is
    recorded and the run goes on, yet restore refused the run's own snapshot as damaged
    ("a terminal call was recorded, but `ended_by` is null"). Only the agent's ends a run."""
    monitor = monitor_of(observe + RULES)
    run = monitor.start()
    run.record("done", {"answer": "the user's"}, None, actor="user")
    assert not run.ended
    script = [("a", {}), ("b", {}), ("done", {"answer": "x"})]
    restored = monitor_of(observe + RULES).restore(json.loads(json.dumps(run.snapshot())))
    assert run_script(restored, script) == run_script(run, script)
    assert restored.ended and run.ended
    assert restored.trace.calls == run.trace.calls
    ended = json.loads(json.dumps(run.snapshot()))
    assert monitor.restore(ended).ended
    ended["ended_by"] = None  # the agent's terminal call with no end: damaged
    with pytest.raises(RunError, match="a terminal call of the agent was recorded"):
        monitor.restore(ended)


def test_a_run_an_open_question_refused_in_restores():
    """Found by a sweep written from the docs alone: a refusal by `undecided refuse` logs an
    event of kind `undecided`, which restore's schema did not list, so the run's own
    snapshot was refused as damaged."""
    policy = ("undecided refuse for deny, block\n"
              "tool lookup_order(order_id: str) -> { total: float, balance: float }\n"
              "tool issue_refund(order_id: str, amount: float)\n"
              "rule looked_up severity block:\n"
              "    always (issue_refund(order_id: o, amount: m) -> once lookup_order(order_id: o, "
              "result.total == m or result.balance == m))\n")
    monitor = monitor_of(policy, tools="")
    run = monitor.start()
    assert run.propose("lookup_order", {"order_id": "A1"}).action == "block"
    assert [e.kind for e in run.events] == ["undecided"]
    restored = monitor_of(policy, tools="").restore(json.loads(json.dumps(run.snapshot())))
    assert restored.events == run.events
    assert restored.propose("lookup_order", {"order_id": "A1"}).action == \
        run.propose("lookup_order", {"order_id": "A1"}).action == "warn"  # the override of a block

def test_a_snapshot_between_propose_and_record_keeps_the_pending_decision():
    monitor = monitor_of(RULES)
    run = monitor.start()
    assert run.propose("b", {}).action == "block"
    restored = monitor.restore(json.loads(json.dumps(run.snapshot())))
    with pytest.raises(RunError, match="refused"):
        restored.record("b", {})
    assert restored.propose("b", {}).override  # the identical retry still counts as insisting


def test_restore_in_another_process(tmp_path):
    policy, _ = check_file(ROOT / "examples" / "code_qa.altl")
    artifact = tmp_path / "code_qa.policy.json"
    write_artifact(build_artifact(policy), artifact)
    monitor = Monitor.load(artifact)
    run = monitor.start(run_id="r1")
    drive(run, [("final_answer", {"answer": "x"}), ("search", {"query": "q"}, ["a.py"])])
    state_file = tmp_path / "state.json"
    state_file.write_text(json.dumps(run.snapshot()), encoding="utf-8")
    script = textwrap.dedent("""
        import json, sys
        from policyc.runtime import Monitor
        monitor = Monitor.load(sys.argv[1])
        run = monitor.restore(json.load(open(sys.argv[2])))
        d = run.propose("read_file", {"path": "a.py"})
        run.record("read_file", {"path": "a.py"}, {"a.py": "def f(): pass"})
        e = run.propose("final_answer", {"answer": "f is in a.py"})
        print(json.dumps([d.action, e.action, run.id, [x.resolution for x in run.events]]))
    """)
    done = subprocess.run([sys.executable, "-c", script, str(artifact), str(state_file)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == ["allow", "allow", "r1", ["listened", "listened"]]


def test_a_snapshot_of_another_artifact_is_refused():
    run = monitor_of(RULES).start()
    other = monitor_of("rule r: called(a)\n")
    with pytest.raises(RunError, match="another policy artifact"):
        other.restore(run.snapshot())
    with pytest.raises(RunError, match="not a policyc run snapshot"):
        other.restore({"calls": []})


def test_runs_on_one_monitor_from_many_threads_are_independent():
    rules = RULES + "rule few_c severity warn: called_n(c) <= 12\nrule some_a severity warn: called_n(a) >= 9\n"
    monitor = monitor_of(rules)  # cold: the threads race to fill the same memo tables
    rng = random.Random(7)
    scripts = [[(rng.choice("abc"), {"n": rng.randint(0, 2)}) for _ in range(120)] for _ in range(16)]
    expected = [run_script(monitor_of(rules).start(), s) for s in scripts]
    results: list = [None] * len(scripts)

    def work(i):
        results[i] = run_script(monitor.start(), scripts[i])

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(scripts))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == expected


def test_one_run_shared_by_threads_stays_consistent():
    monitor = monitor_of("rule no_c severity block: always not c\n")
    run = monitor.start()

    def work():
        for _ in range(50):
            if run.propose("a", {}).executes:
                run.record("a", {})

    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(run.trace) == 400
    assert [c.position for c in run.trace.calls] == list(range(400))
