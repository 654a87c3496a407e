"""`policyc graph` and `policyc explain`."""

from __future__ import annotations

import json
import shutil

import pytest
from click.testing import CliRunner

from policyc.cli import cli


def run(*args):
    return CliRunner().invoke(cli, list(args))


def test_graph_writes_dot_without_graphviz():
    out = run("graph", "examples/code_qa.altl", "--rule", "search_first")
    assert out.exit_code == 0
    assert out.output.startswith('digraph "search_first"')
    assert '[label="final_answer"]' in out.output and "violated" in out.output


def test_graph_of_a_rule_that_is_not_compiled_exits_1_with_the_reason():
    out = run("graph", "examples/code_qa.altl", "--rule", "grounded")
    assert out.exit_code == 1 and "not compiled" in out.output


def test_graph_of_an_unknown_rule_is_an_input_error():
    out = run("graph", "examples/code_qa.altl", "--rule", "nope")
    assert out.exit_code == 2 and "search_first" in out.output


def test_a_misspelled_rule_gets_a_did_you_mean():
    out = run("explain", "examples/code_qa.altl", "--rule", "serch_first")
    assert out.exit_code == 2 and "did you mean `search_first`?" in out.output


def test_svg_needs_dot_and_says_so(monkeypatch, tmp_path):
    monkeypatch.setattr(shutil, "which", lambda name: None)
    out = run("graph", "examples/code_qa.altl", "--rule", "search_first", "--format", "svg", "-o", str(tmp_path / "g.svg"))
    assert out.exit_code == 2 and "graphviz" in out.output


@pytest.mark.skipif(shutil.which("dot") is None, reason="graphviz is not installed")
def test_svg_with_dot(tmp_path):
    target = tmp_path / "g.svg"
    out = run("graph", "examples/support_desk.altl", "--rule", "eligible_before_refund", "--format", "svg", "-o", str(target))
    assert out.exit_code == 0 and target.read_text().lstrip().startswith("<?xml")


def test_explain_prints_class_bad_prefixes_and_a_satisfying_trace():
    out = run("explain", "examples/code_qa.altl", "--rule", "search_first")
    assert out.exit_code == 0
    assert "class: gateable" in out.output
    assert "bad prefixes of minimal length (1 call):\n    final_answer" in out.output
    assert "shortest satisfying trace: search -> final_answer" in out.output


def test_explain_liveness_and_json():
    out = run("explain", "examples/code_qa.altl", "--format", "json")
    infos = {i["rule"]: i for i in json.loads(out.output)}
    assert infos["reads_a_file"]["class"] == "offline-only" and infos["reads_a_file"]["liveness"]
    assert infos["reads_a_file"]["parts"][0]["bad_prefixes"] == []
    assert infos["grounded"]["parts"] == [] and "not compiled" in infos["grounded"]["reason"]
