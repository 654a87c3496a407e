"""The deployed runtime needs only the artifact: it imports neither lark nor z3, nor the
parser, checker, solver encodings or lint. A subprocess where those imports fail still
loads an artifact, gates a run, snapshots it and finishes the report."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

from policyc.artifact.build import build_artifact
from policyc.artifact.io import write_artifact
from policyc.check import check_file

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
    run = monitor.start()
    decisions = []
    for tool, args, result in [
        ("final_answer", {{"answer": "x"}}, None),
        ("search", {{"query": "q"}}, ["a.py"]),
        ("read_file", {{"path": "a.py"}}, {{"a.py": "def f(): pass"}}),
        ("final_answer", {{"answer": "f is in a.py"}}, None),
    ]:
        decision = run.propose(tool, args)
        decisions.append(decision.action)
        if decision.executes:
            run.record(tool, args, result)
    state = json.loads(json.dumps(run.snapshot()))
    report = monitor.restore(state).finish()
    loaded = sorted(m for m in sys.modules if any(m == b or m.startswith(b + ".") for b in BANNED))
    print(json.dumps({{"decisions": decisions, "loaded": loaded, "report": report.model_dump(mode="json")
                      if hasattr(report, "model_dump") else report}}))
""")


def test_runtime_runs_without_the_compiler(tmp_path):
    policy, _ = check_file(ROOT / "examples" / "code_qa.altl")
    artifact = tmp_path / "code_qa.policy.json"
    write_artifact(build_artifact(policy), artifact)
    script = tmp_path / "gate.py"
    script.write_text(SCRIPT.format(banned=BANNED), encoding="utf-8")
    done = subprocess.run([sys.executable, str(script), str(artifact)], capture_output=True, text=True,
                          cwd=tmp_path, timeout=120)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["loaded"] == []
    assert out["decisions"] == ["block", "allow", "allow", "allow"]
    assert out["report"]["compliance_score"] == 1.0
