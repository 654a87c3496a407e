"""`policyc replay`: the gate's decisions on recorded runs (gate replay)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from policyc.artifact.build import build_artifact
from policyc.artifact.io import write_artifact
from policyc.check import check_file
from policyc.cli import cli

ROOT = Path(__file__).resolve().parent.parent
POLICY = str(ROOT / "examples" / "code_qa.altl")

EARLY_ANSWER = {"tool_calls": [
    {"tool_name": "final_answer", "arguments": {"answer": "x"}},
    {"tool_name": "search", "arguments": {"query": "request"}, "tool_result": "[\"src/api.py\"]"},
    {"tool_name": "read_file", "arguments": {"path": "src/api.py"},
     "tool_result": {"src/api.py": "def request(): pass"}},
    {"tool_name": "final_answer", "arguments": {"answer": "request is in src/api.py"}},
]}
COMPLIANT = {"tool_calls": EARLY_ANSWER["tool_calls"][1:]}


def invoke(*args):
    return CliRunner().invoke(cli, ["replay", *map(str, args)], env={"NO_COLOR": "1", "COLUMNS": "120"})


@pytest.fixture
def traces(tmp_path):
    early, good = tmp_path / "early.json", tmp_path / "good.json"
    early.write_text(json.dumps(EARLY_ANSWER), encoding="utf-8")
    good.write_text(json.dumps(COMPLIANT), encoding="utf-8")
    return early, good


def test_replay_shows_each_decision(traces):
    early, _ = traces
    result = invoke(POLICY, early)
    assert result.exit_code == 1, result.output
    assert "gate replay" in result.output and "search_first (violation; first call search)" in result.output
    assert "allow *" in result.output
    assert "the gate would have refused call #1" in result.output


def test_replay_json(traces):
    early, good = traces
    result = invoke(POLICY, early, good, "--format", "json")
    data = json.loads(result.output)
    first, second = data["traces"]
    assert [s["action"] for s in first["steps"]] == ["block", "allow", "allow", "allow"]
    assert [s["counterfactual"] for s in first["steps"]] == [False, True, True, True]
    assert first["first_refusal"] == 1
    assert first["steps"][0]["rules"] == ["search_first", "reads_a_file"]
    assert second["first_refusal"] is None and all(s["action"] == "allow" for s in second["steps"])
    assert result.exit_code == 1


def test_replay_of_a_compliant_run_exits_0(traces):
    _, good = traces
    assert invoke(POLICY, good).exit_code == 0


@pytest.mark.parametrize("mode,first", [("tolerate", "allow"), ("warn", "warn"), ("block", "block"),
                                        ("soft", "block"), ("stop", "stop")])
def test_replay_modes(traces, mode, first):
    early, _ = traces
    data = json.loads(invoke(POLICY, early, "--mode", mode, "--format", "json").output)
    steps = data["traces"][0]["steps"]
    assert steps[0]["action"] == first
    if mode == "stop":
        assert [s["action"] for s in steps[1:]] == ["not reached"] * 3
    if mode in ("tolerate", "warn"):  # the early answer ran and ended the gated run
        assert [s["action"] for s in steps[1:]] == ["not reached"] * 3


def test_replay_against_an_artifact(traces, tmp_path):
    early, _ = traces
    artifact = tmp_path / "code_qa.policy.json"
    write_artifact(build_artifact(check_file(POLICY)[0]), artifact)
    assert invoke(artifact, early, "--format", "json").output == invoke(POLICY, early, "--format", "json").output
    tampered = tmp_path / "tampered.json"
    tampered.write_text(artifact.read_text(encoding="utf-8").replace('"weight":4.0', '"weight":9.0'),
                        encoding="utf-8")
    result = invoke(tampered, early)
    assert result.exit_code == 2 and "was changed after it was compiled" in result.output
    assert "Traceback" not in result.output


def test_malformed_records_are_reported_and_the_rest_replayed(tmp_path):
    runs = tmp_path / "runs.jsonl"
    runs.write_text(json.dumps(COMPLIANT) + "\n{\"tool_calls\": [{\"arguments\": {}}]}\n", encoding="utf-8")
    result = invoke(POLICY, runs, "--format", "json")
    assert result.exit_code == 2
    assert "missing field `tool_name`" in result.output
    assert "missing field `tool_name`" in result.stderr
    assert len(json.loads(result.stdout)["traces"]) == 1
