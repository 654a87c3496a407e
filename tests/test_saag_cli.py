"""`policyc conformance` on datasets written for these tests: tables, JSON, Markdown, exit codes,
malformed records named by file, line and field."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from policyc.cli import cli
from policyc.saag.dataset import DatasetError, iter_records

PREDICTIONS = "examples/conformance/predictions.jsonl"
GOLD = "examples/conformance/gold.jsonl"
MALFORMED = "tests/fixtures/saag/malformed.jsonl"


def run(*args):
    result = CliRunner().invoke(cli, ["conformance", *args], catch_exceptions=False)
    return result.exit_code, result.stdout + result.stderr if "--format" not in args else result.stdout


def test_predictions_halt_at_the_stage_of_their_fault():
    code, out = run(PREDICTIONS, "--format", "json")
    assert code == 1
    report = json.loads(out)
    assert (report["mode"], report["records"], report["calls"], report["passed"]) == ("predicted", 6, 6, 1)
    assert [(s["stage"], s["entered"], s["halted"]) for s in report["stages"]] == [
        ("registry", 6, 2), ("structure", 4, 1), ("type", 3, 0), ("grounding", 3, 2)]
    assert report["problems"] == {"grounding/ungrounded-number": 1, "grounding/ungrounded-value": 1,
                                  "registry/no-tool": 1, "registry/unknown-tool": 1,
                                  "structure/drifted-argument": 1, "structure/missing-argument": 1}
    assert report["metrics"]["FNEM"]["n"] == 6 and report["metrics"]["NCS"]["n"] == 1
    assert report["extrinsic"]["solve rate"]["mean"] == pytest.approx(1 / 6)
    assert report["extrinsic"]["name accuracy"]["mean"] == pytest.approx(4 / 6)
    by_record = {e["record"]: e for e in report["examples"]}
    assert by_record["numeric"]["correction"] == ("The numeric values for `days` do not match what the user "
                                                  "stated. Use the exact numbers from the user's request.")


def test_gold_calls_pass_and_every_fault_is_caught():
    code, out = run(GOLD, "--faults", "--format", "json")
    assert code == 0, out
    report = json.loads(out)
    assert report["mode"] == "gold" and report["passed"] == report["calls"] == 4
    assert report["correction_leaks"] == 0
    for fault, counts in report["faults"].items():
        assert counts["caught"] == counts["injected"] > 0, fault


def test_text_and_markdown_tables():
    code, text = run(PREDICTIONS)
    assert code == 1
    assert text.startswith("Cascade (6 predicted calls of 6 records; 1 pass every stage)\nstage      entered  passed")
    assert "misspelled_name: halted at registry: unknown tool `get_wether` (did you mean `get_weather`?)" in text
    code, md = run(GOLD, "--faults", "--format", "markdown")
    assert code == 0
    assert "| stage | entered | passed | halted |" in md and "| misspelled-name | registry | 4 | 4 |" in md


def test_no_grounding_stops_after_the_type_stage():
    code, out = run(PREDICTIONS, "--no-grounding", "--format", "json")
    report = json.loads(out)
    assert [s["entered"] for s in report["stages"]] == [6, 4, 3, 0] and report["passed"] == 3 and code == 1


def test_malformed_records_are_named_and_the_rest_checked():
    code, out = run(MALFORMED, "--format", "json")
    assert code == 2
    report = json.loads(out)
    assert report["records"] == 1 and report["passed"] == 1
    assert [(m["where"], m["field"]) for m in report["malformed"]] == [
        (f"{MALFORMED}:2", ""), (f"{MALFORMED}:3", "function"),
        (f"{MALFORMED}:4", "function[0].parameters.required"), (f"{MALFORMED}:5", "predicted.get_weather")]


def test_input_errors(tmp_path):
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n")
    assert run(str(empty))[0] == 2
    assert run(str(tmp_path / "missing.jsonl"))[0] == 2
    code, out = run("bfcl:no_such_category")
    assert code == 2 and "unknown BFCL category `no_such_category`" in out
    binary = tmp_path / "binary.jsonl"
    binary.write_bytes(b"\xff\xfe\x00")
    (error,) = list(iter_records(binary))
    assert isinstance(error, DatasetError) and "cannot be read" in error.message


def test_records_in_a_json_array_and_openai_tools(tmp_path):
    path = tmp_path / "array.json"
    path.write_text(json.dumps([{
        "id": "a", "query": "Weather in Oslo",
        "tools": [{"type": "function", "function": {"name": "w", "parameters": {
            "type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}],
        "predicted": [{"name": "w", "arguments": "{\"city\": \"Oslo\"}"}]}]))
    code, out = run(str(path), "--format", "json")
    assert code == 0 and json.loads(out)["passed"] == 1


def test_a_model_s_results_by_id_are_checked_instead_of_the_gold_calls():
    code, out = run(GOLD, "--predictions", "tests/fixtures/saag/results.jsonl", "--format", "json")
    assert code == 1
    report = json.loads(out)
    assert (report["mode"], report["calls"], report["passed"]) == ("predicted", 3, 1)
    # g2 books the wrong date (loosely like the stated one); g3 has no result: no function name
    assert report["problems"] == {"grounding/loose-value": 1, "registry/no-tool": 1}
    assert report["extrinsic"]["solve rate"]["mean"] == pytest.approx(1 / 3)


def test_predictions_in_python_call_syntax_and_in_text():
    from policyc.saag.dataset import calls_of

    (call,) = calls_of("[get_weather(city='Oslo', days=2)]", "x:1", "result")
    assert (call.name, dict(call.args)) == ("get_weather", {"city": "Oslo", "days": 2})
    (call,) = calls_of('{"get_weather": {"city": "Oslo"}}', "x:1", "result")   # JSON in a string
    assert call.name == "get_weather"
    (call,) = calls_of("It will rain in Oslo.", "x:1", "result")               # prose: no call
    assert call.name is None
    (call,) = calls_of("get_weather(__import__('os'))", "x:1", "result")      # never evaluated
    assert call.name is None


@pytest.mark.parametrize("predicted, malformed", [
    ('{"get_weather": {"city": "\\ud800"}}', True),      # half of a surrogate pair: no character
    ('{"get_weather": {"city": "Oslo", "days": 1e400}}', True),  # no double: read as an infinity
    ('{"get_weather": {"city": "Oslo", "days": NaN}}', True),
    ('{}', False),                                          # no call: no name predicted
    ('{"arguments": {"city": "Oslo"}}', False),
])
def test_records_json_does_not_define_are_malformed_and_a_call_without_a_name_is_none(tmp_path, predicted, malformed):
    """Found by a sweep written from the docs alone: these were exit 3 (`\\ud800` printed,
    `KeyError: 'name'`) or a JSON report holding a bare `Infinity`."""
    fine = open(MALFORMED, encoding="utf-8").readline()
    path = tmp_path / "records.jsonl"
    path.write_text(fine.replace('"predicted": {"get_weather": {"city": "Oslo"}}', f'"predicted": {predicted}')
                    + fine, encoding="utf-8")
    for fmt in ("text", "json", "markdown"):
        code, out = run(str(path), "--format", fmt)
        assert code == (2 if malformed else 1), out
    report = json.loads(run(str(path), "--format", "json")[1], parse_constant=lambda c: pytest.fail(c))
    assert report["records"] == (1 if malformed else 2) and report["passed"] == 1
    if malformed:
        assert [m["where"] for m in report["malformed"]] == [f"{path}:1"]
