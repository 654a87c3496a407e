"""The deployed runtime needs only the artifact: it imports neither lark nor z3, nor the
parser, checker, solver encodings or lint. A subprocess where those imports fail still
loads an artifact, gates a run, snapshots and restores it, and finishes the report, and
that report is the one `policyc score` gives (violation steps included)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from policyc.automata import compile_policy
from policyc.artifact.build import build_artifact
from policyc.artifact.io import write_artifact
from policyc.check import check_file
from policyc.scoring import score_trace
from policyc.trace import Trace

ROOT = Path(__file__).resolve().parent.parent
BANNED = ("lark", "z3", "policyc.syntax", "policyc.check", "policyc.smt", "policyc.lint")

SCRIPT = textwrap.dedent("""
    import importlib.abc, json, sys

    BANNED = {banned!r}

    class Blocker(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if any(name == b or name.startswith(b + ".") for b in BANNED):
                raise ImportError(f"{{name}} is not available to the runtime")
            return None

    sys.meta_path.insert(0, Blocker())

    from policyc.runtime import Monitor

    monitor = Monitor.load(sys.argv[1])
    calls = json.loads(sys.argv[2])
    gated, tolerated = monitor.start(), monitor.start(mode="tolerate")
    decisions = []
    for tool, args, result in calls:
        decision = gated.propose(tool, args)
        decisions.append(decision.action)
        if decision.executes:
            gated.record(tool, args, result)
        tolerated.propose(tool, args)
        tolerated.record(tool, args, result)
    state = json.loads(json.dumps(tolerated.snapshot()))
    report = monitor.restore(state).finish()
    loaded = sorted(m for m in sys.modules if any(m == b or m.startswith(b + ".") for b in BANNED))
    print(json.dumps({{"decisions": decisions, "loaded": loaded, "report": report.model_dump(mode="json")}}))
""")

CODE_QA = [
    ["read_file", {"path": "a.py"}, {"a.py": "def f(): pass"}],
    ["grep", {"pattern": "f"}, ["a.py:1"]],
    ["final_answer", {"answer": "f is in a.py"}, None],
]
SUPPORT_DESK = [
    ["get_customer", {"email": "x@y.org"}, {"customer_id": "c1", "email": "x@y.org"}],
    ["issue_refund", {"order_id": "A1", "amount": 10.0}, {"refund_id": "r1"}],
    ["lookup_order", {"order_id": "A1"},
     {"order_id": "A1", "customer_id": "c1", "sku": "s", "total": 10.0, "refunded": False}],
    ["reply", {"text": "done"}, None],
]


@pytest.mark.parametrize("example,calls,decisions", [
    ("code_qa", CODE_QA, ["allow", "allow", "block"]),
    ("support_desk", SUPPORT_DESK, ["allow", "block", "allow", "block"]),
])
def test_runtime_runs_without_the_compiler(tmp_path, example, calls, decisions):
    policy, _ = check_file(ROOT / "examples" / f"{example}.altl")
    artifact = tmp_path / f"{example}.policy.json"
    write_artifact(build_artifact(policy), artifact)
    script = tmp_path / "gate.py"
    script.write_text(SCRIPT.format(banned=BANNED), encoding="utf-8")
    done = subprocess.run([sys.executable, str(script), str(artifact), json.dumps(calls)], capture_output=True,
                          text=True, cwd=tmp_path, timeout=120)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["loaded"] == []
    assert out["decisions"] == decisions
    expected = score_trace(compile_policy(policy), Trace.of(*[tuple(c) for c in calls])).model_dump(mode="json")
    assert out["report"] == expected
