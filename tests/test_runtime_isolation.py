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
BANNED = ("lark", "z3", "policyc.syntax", "policyc.check", "policyc.smt", "policyc.lint", "policyc.automata",
          "policyc.fmt")

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


def _tampered(artifact, rule: str):
    """The artifact with `rule`'s automaton made to accept everything, resealed (anyone can
    recompute a content hash)."""
    from policyc.artifact.io import seal
    from policyc.artifact.models import ArtifactBody

    data = artifact.model_dump(mode="json", by_alias=True)
    index = next(r["automaton"] for r in data["rules"] if r["name"] == rule)
    dfa = data["automata"][index]["rule"]["parts"][0]["dfa"]
    size = len(dfa["accepting"])
    dfa.update(accepting=[True] * size, verdict=["satisfied"] * size, to_accept=[None] * size,
               dist_accept=[0] * size, to_reject=[None] * size)  # consistent, or loading refuses it
    body = ArtifactBody.model_validate({k: v for k, v in data.items() if k not in ("content_hash", "signature")})
    return seal(body)


def test_one_artifact_never_changes_another_artifacts_verdicts():
    """A monitor owns its tables: a tampered artifact loaded first in the same process (same
    formulas, other tables) leaves a genuine artifact's reports and decisions as they are."""
    from policyc.artifact.build import compile_file
    from policyc.runtime import Monitor

    genuine = compile_file(ROOT / "examples" / "code_qa.altl")
    bad = Monitor(_tampered(genuine, "search_first"))
    good = Monitor(genuine)
    trace = Trace.of(("final_answer", {"answer": "x"}))
    assert bad.score(trace).constraints[0].passed                 # its own (tampered) tables
    report = good.score(trace)
    assert (report.constraints[0].name, report.constraints[0].passed, report.constraints[0].violated_at) == \
        ("search_first", False, 1)
    assert good.start().propose("final_answer", {"answer": "x"}).action == "block"
    # and the other way round
    assert Monitor(_tampered(genuine, "search_first")).score(trace).constraints[0].passed


def test_scoring_an_artifacts_policy_loads_no_compiler_and_places_violations_exactly(tmp_path):
    """`Monitor.score` hands the artifact's own tables to the scorer: in a process where the
    compiler, lark and z3 cannot load, every violation is still placed at the call that made
    it certain, however many other formulas the process has seen."""
    from policyc.artifact.build import compile_file

    write_artifact(compile_file(ROOT / "examples" / "support_desk.altl"), tmp_path / "a.json")
    calls = [list(c) for c in SUPPORT_DESK]
    script = tmp_path / "score.py"
    script.write_text(SCORE_SCRIPT.format(banned=BANNED), encoding="utf-8")
    done = subprocess.run([sys.executable, str(script), str(tmp_path / "a.json"), json.dumps(calls)],
                          capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    policy, _ = check_file(ROOT / "examples" / "support_desk.altl")
    expected = score_trace(compile_policy(policy), Trace.of(*[tuple(c) for c in calls])).model_dump(mode="json")
    assert out["loaded"] == []
    assert out["reports"] == [expected] * 3
    assert any(c["violated_at"] is not None and c["violated_at"] < len(calls) for c in expected["constraints"])


SCORE_SCRIPT = '''
import builtins, json, sys
BANNED = {banned!r}
real_import = builtins.__import__
def guarded(name, *args, **kwargs):
    if name.split(".")[0] in ("lark", "z3") or name.startswith(BANNED):
        raise ImportError("banned in this test: " + name)
    return real_import(name, *args, **kwargs)
builtins.__import__ = guarded
from policyc.ir import build as b
from policyc.runtime import Monitor
from policyc.trace import Trace
monitor = Monitor.load(sys.argv[1])
calls = [tuple(c) for c in json.loads(sys.argv[2])]
reports = [monitor.score(Trace.of(*calls)).model_dump(mode="json")]
for i in range(5000):   # many other formulas in the process change nothing
    b.always(b.implies(b.event(f"t{{i}}"), b.once(b.event("x"))))
reports += [monitor.score(Trace.of(*calls)).model_dump(mode="json") for _ in range(2)]
loaded = sorted(m for m in sys.modules if m.split(".")[0] in ("lark", "z3") or m.startswith(BANNED))
print(json.dumps({{"loaded": loaded, "reports": reports}}))
'''
