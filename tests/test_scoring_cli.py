"""`policyc score`: formats, exit codes, malformed input, and never a traceback."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from policyc.cli import cli

FAN_OUT = "examples/fan_out_fan_in.altl"
APPENDIX_B = "examples/traces/appendix_b.json"
MIXED = "tests/fixtures/traces/mixed_records.jsonl"


def run(*args):
    result = CliRunner().invoke(cli, ["score", *args], env={"NO_COLOR": "1", "COLUMNS": "120"})
    assert "Traceback" not in result.output + result.stderr
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result


def test_table_for_one_trace():
    result = run(FAN_OUT, APPENDIX_B)
    assert result.exit_code == 0
    assert "compliance 1.000 FULL" in result.stdout
    assert '"tool_a" (call #1) before "tool_d" (call #5).' in result.stdout
    assert result.stderr == ""  # no progress bar when standard error is not a terminal


def test_json_for_machines():
    result = run(FAN_OUT, APPENDIX_B, "--format", "json")
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    (report,) = data["reports"]
    assert report["compliance_label"] == "FULL" and report["constraints"][2]["detail"] == \
        "Predicate returned True (3 branch calls, expected >= 3)."
    assert (data["traces"], data["malformed_records"], data["mean_score"]) == (1, 0, 1.0)


def test_violations_exit_1(tmp_path):
    trace = tmp_path / "t.json"
    trace.write_text(json.dumps({"tool_calls": [{"tool_name": "tool_a", "arguments": {"seed": 1}}]}))
    result = run(FAN_OUT, str(trace), APPENDIX_B)
    assert result.exit_code == 1
    assert "traces" in result.stdout and "layers" in result.stdout and "PARTIAL" in result.stdout


def test_malformed_records_are_reported_the_rest_scored_and_exit_2():
    result = run(FAN_OUT, MIXED, "--format", "jsonl")
    assert result.exit_code == 2
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert len(lines) == 7 + 1  # one line per record, then the aggregate
    kinds = ["malformed" if "malformed_record" in l else "aggregate" if "aggregate" in l else "trace" for l in lines]
    assert kinds == ["trace", "malformed", "malformed", "malformed", "trace", "malformed", "malformed", "aggregate"]
    assert lines[2]["malformed_record"] == {"file": MIXED, "line": 3, "field": "tool_calls[1].tool_name",
                                            "message": "missing field `tool_name`"}
    assert lines[-1]["aggregate"]["malformed_records"] == 5 and lines[-1]["aggregate"]["traces"] == 2
    assert "5 malformed record(s) were not scored" in result.stderr


def test_malformed_records_in_the_table():
    result = run(FAN_OUT, MIXED)
    assert result.exit_code == 2
    assert f"malformed: {MIXED}:3: `tool_calls[1].tool_name`: missing field `tool_name`" in result.stdout


def test_calls_that_do_not_match_signatures_exit_2(tmp_path):
    trace = tmp_path / "t.jsonl"
    trace.write_text(json.dumps({"tool_calls": [{"tool_name": "tool_z", "arguments": {}}]}) + "\n")
    result = run(FAN_OUT, str(trace))
    assert result.exit_code == 2
    assert "unknown tool `tool_z`" in result.stdout
    assert "do not match the policy's tool signatures" in result.stderr


@pytest.mark.parametrize("content", ["", "[]"])
def test_no_records_exit_2(tmp_path, content):
    trace = tmp_path / "t.json"
    trace.write_text(content)
    result = run(FAN_OUT, str(trace))
    assert result.exit_code == 2 and "no trace records found" in result.stderr


def test_missing_trace_file_is_a_malformed_record(tmp_path):
    result = run(FAN_OUT, str(tmp_path / "none.json"), "--format", "json")
    assert result.exit_code == 2
    assert json.loads(result.stdout)["malformed"][0]["message"] == "does not exist"


def test_a_policy_with_errors_exits_2(tmp_path):
    bad = tmp_path / "bad.altl"
    bad.write_text("rule r: called(nothing)\n")
    result = run(str(bad), APPENDIX_B)
    assert result.exit_code == 2 and "has errors" in result.stderr


def test_usage_errors_exit_2():
    assert run(FAN_OUT, APPENDIX_B, "--format", "xml").exit_code == 2
    assert run(FAN_OUT).exit_code == 2


def test_input_format_can_be_named():
    result = run("examples/code_qa.altl", "tests/fixtures/traces/chat_openai.json", "--input-format", "chat",
                 "--format", "json")
    report = json.loads(result.stdout)["reports"][0]
    assert report["tool_sequence"] == ["search", "read_file", "grep", "final_answer"]
    assert result.exit_code == 0, report


def test_a_compiled_artifact_scores_exactly_as_its_policy(tmp_path):
    artifact = tmp_path / "code_qa.policy.json"
    assert CliRunner().invoke(cli, ["compile", "examples/code_qa.altl", "-o", str(artifact)]).exit_code == 0
    from_policy = run("examples/code_qa.altl", "examples/traces/code_qa.jsonl", "--format", "json")
    from_artifact = run(str(artifact), "examples/traces/code_qa.jsonl", "--format", "json")
    assert from_artifact.exit_code == from_policy.exit_code == 1
    assert json.loads(from_artifact.stdout) == json.loads(from_policy.stdout)


def test_a_json_file_that_is_no_artifact_is_an_input_error(tmp_path):
    bogus = tmp_path / "bogus.json"
    bogus.write_text('{"format": "something else"}')
    result = run(str(bogus), APPENDIX_B)
    assert result.exit_code == 2 and "not a policyc monitor artifact" in result.stderr
