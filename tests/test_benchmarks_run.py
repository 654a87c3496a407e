"""The benchmark scripts still run against the current API (small sizes, no peers): a
benchmark that breaks silently measures nothing. Their figures are not checked here."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # each benchmark script runs in a subprocess

ROOT = Path(__file__).resolve().parent.parent

RUNS = {
    "declare": (["benchmarks/declare.py", "--quick", "--peers-python", "/nonexistent"],
                "policyc score_corpus (full reports)"),
    "lint": (["benchmarks/lint.py", "--sizes", "10"], "10 rules:"),
    "runtime": (["benchmarks/runtime.py", "--quick", "--no-peers"], "A support desk"),
    "grounding": (["benchmarks/grounding.py", "--sizes", "20000", "--repeat", "1"], "Entity extraction"),
    "gate_grounding": (["benchmarks/gate_grounding.py", "--results", "20", "--answer", "2000", "--repeat", "1"],
                       "Final answer of 2,000 characters"),
    "conformance": (["benchmarks/conformance.py", "--quick"], "The gate on the code-QA example"),
    "corpus": (["benchmarks/corpus.py", "--quick", "--runs", "300", "--engines", "local", "jobs"], "output identical"),
    "action_claims": (["benchmarks/action_claims.py", "--split", "dev"], "Unsupported claims of actions"),
    "automata": (["benchmarks/automata.py", "--quick", "--peers", "", "--families", "counting", "--repeat", "1"],
                 "counting"),
    "budget": (["benchmarks/budget.py", "--sizes", "4", "--limit", "60"], "| 4 | 32 |"),
    "startup": (["benchmarks/startup.py", "--repeat", "1"], "policyc --help"),
    "ir_walk": (["benchmarks/ir_walk.py", "--repeat", "1", "--rounds", "1"], "eval_term"),
    "load": (["benchmarks/load.py", "--repeat", "1"], "s1_support_50"),
    "hot_path": (["benchmarks/hot_path.py", "--example", "code_qa"], "cold blocked"),
}


@pytest.mark.parametrize("name", sorted(RUNS))
def test_benchmark_script_runs(name):
    args, expected = RUNS[name]
    done = subprocess.run([sys.executable, *args], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert expected in done.stdout
