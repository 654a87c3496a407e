"""Counts and chains expand to formulas hundreds of levels deep (`called_n(a) >= 190` is
190 nested `eventually`s): every stage handles them through its Python API, not only the CLI."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from policyc.automata import compile_policy
from policyc.artifact.build import build_artifact
from policyc.check import check_text
from policyc.cli import cli
from policyc.lint import lint_policy
from policyc.runtime import Monitor
from policyc.scoring import score_trace
from policyc.trace import Trace

SOURCE = """policy deep
tool a(n: int) -> int
tool b(n: int) -> int

rule many layer L1: called_n(a) >= 190
rule few layer L2: called_n(b) <= 150
"""


@pytest.mark.slow
def test_every_stage_takes_a_count_of_190():
    policy, diagnostics = check_text(SOURCE, "deep.altl")
    assert policy is not None, diagnostics
    artifact = build_artifact(policy)
    assert all(r.automaton is not None for r in artifact.rules)
    monitor = Monitor(artifact)
    run = monitor.start(mode="tolerate")
    for _ in range(190):
        assert run.propose("a", {"n": 1}).action == "allow"
        run.record("a", {"n": 1}, 1)
    report = run.finish()
    assert report.compliance_score == 1.0
    short = score_trace(compile_policy(policy), Trace.of(*[("a", {"n": 1}, 1)] * 189))
    assert [c.passed for c in short.constraints] == [False, True]
    assert short.constraints[0].violated_at == 189  # liveness: lost at the end
    assert [f.kind.code for f in lint_policy(policy).findings] == []


@pytest.mark.slow
def test_the_cli_compiles_and_lints_it(tmp_path):
    path = tmp_path / "deep.altl"
    path.write_text(SOURCE, encoding="utf-8")
    runner = CliRunner()
    assert runner.invoke(cli, ["compile", str(path), "-o", str(tmp_path / "deep.json")]).exit_code == 0
    linted = runner.invoke(cli, ["lint", str(path)])
    assert linted.exit_code == 0, linted.output


def test_counts_up_to_500_check_and_beyond_the_limit_say_so():
    policy, diagnostics = check_text("policy p\ntool a()\nrule r: called_n(a) <= 500\n", "p.altl")
    assert policy is not None and not diagnostics
    policy, diagnostics = check_text("policy p\ntool a()\nrule r: called_n(a) >= 700\n", "p.altl")
    assert policy is None and [d.code for d in diagnostics] == ["E0219"]
    assert "counts and chains longer than 500" in diagnostics[0].help
