"""`policyc bench`: generate, scripted, score (the paper's tables), list, stats, trainset."""

from __future__ import annotations

import json

from click.testing import CliRunner

from policyc.bench import generate_instance, scripted_run
from policyc.bench.stats import benchmark_grid, weight_statistics
from policyc.check import check_file
from policyc.cli import cli


def invoke(*args: str):
    return CliRunner().invoke(cli, ["bench", *args], catch_exceptions=False)


def test_generate_writes_the_instance(tmp_path):
    out = tmp_path / "inst"
    result = invoke("generate", "--template", "fan_out_fan_in", "--difficulty", "1", "--seed", "42", "-o", str(out))
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in out.iterdir()) == ["gold_trace.json", "instance.json", "policy.altl", "prompt.txt"]
    instance = json.loads((out / "instance.json").read_text())
    assert instance["expected_answer"] == 33 and instance["num_tool_calls_expected"] == 5
    assert sum(c["weight"] for c in instance["constraints"]) == 46.5  # all even, as in figure 2
    policy, diagnostics = check_file(out / "policy.altl")
    assert policy is not None and not diagnostics
    assert (out / "prompt.txt").read_text().startswith("You can call these tools:")
    scored = invoke("score", str(out / "gold_trace.json"))
    assert scored.exit_code == 0 and "fan_out_fan_in" in scored.output


def test_generate_aliased_writes_a_rename_map(tmp_path):
    out = tmp_path / "alias"
    result = invoke("generate", "-t", "forall_processing", "-s", "3", "--mode", "simplified", "--aliases", "-o", str(out))
    assert result.exit_code == 0, result.output
    text = (out / "policy.altl").read_text()
    assert "rename {" in text and "tool_b ->" in text
    policy, diagnostics = check_file(out / "policy.altl")
    assert policy is not None and not diagnostics and "tool_b" not in policy.tools


def test_unknown_template_is_a_usage_error():
    result = invoke("generate", "-t", "loop_terminator")
    assert result.exit_code == 2 and "known: loop_termination" in result.output


def runs_file(tmp_path, rows):
    path = tmp_path / "runs.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_score_prints_the_three_tables(tmp_path):
    rows = []
    for template in ("loop_termination", "fan_out_fan_in", "nested_loops"):
        inst = generate_instance(template, 1, 42)
        rows += [scripted_run(inst, [], model="m", setting="baseline"),
                 scripted_run(inst, ["swap"], model="m", setting="baseline"),
                 scripted_run(inst, ["wrong_answer"], model="m", setting="block_and_warn"),
                 scripted_run(inst, [], model="m", setting="block_and_warn")]
    result = invoke("score", str(runs_file(tmp_path, rows)))
    assert result.exit_code == 0, result.output
    assert "Compliance and accuracy per template" in result.output
    assert "Per-layer pass rates" in result.output and "Compliance per enforcement setting" in result.output
    data = json.loads(invoke("score", str(runs_file(tmp_path, rows)), "--format", "json").output)
    per_setting = data["tables"][2]
    assert per_setting["header"] == ["model", "baseline", "block_and_warn"]
    baseline, warned = per_setting["rows"][0][1:]
    assert warned == 1.0 and baseline < 1.0   # the swapped runs lost ordering weight
    layers = data["tables"][1]
    baseline_row = next(r for r in layers["rows"] if r[1] == "baseline")
    assert baseline_row[2:4] == [1.0, 1.0] and baseline_row[5] < 1.0  # L1, L2 intact; L4 lost by the swaps
    assert layers["rows"][1][-1] == 0.5    # half the block_and_warn runs answered wrong


def test_single_setting_prints_no_table_1(tmp_path):
    inst = generate_instance("branch_selection", 2, 5)
    result = invoke("score", str(runs_file(tmp_path, [scripted_run(inst)])))
    assert result.exit_code == 0 and "Compliance per enforcement setting" not in result.output


def test_malformed_records_are_reported_and_the_rest_scored(tmp_path):
    good = scripted_run(generate_instance("loop_termination", 1, 42))
    rows = [good, {"tool_calls": []}, {**good, "instance": {"template": "nope"}},
            {**good, "instance": {"template": "loop_termination", "seed": "x"}}]
    result = CliRunner().invoke(cli, ["bench", "score", str(runs_file(tmp_path, rows))])
    assert result.exit_code == 2
    assert "loop_termination" in result.stdout
    assert "runs.jsonl:2: `instance`: missing field" in result.stderr
    assert "runs.jsonl:3: `instance`: no production template named `nope`" in result.stderr
    assert "runs.jsonl:4: `instance.seed`" in result.stderr


def test_no_runs_is_an_input_error(tmp_path):
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    assert invoke("score", str(empty)).exit_code == 2


def test_scripted_appends_run_records(tmp_path):
    path = tmp_path / "runs.jsonl"
    for fault in ("drop", "repeat"):
        assert invoke("scripted", "-t", "fan_out_fan_in", "--fault", fault, "-o", str(path)).exit_code == 0
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert [r["faults"] for r in lines] == [["drop"], ["repeat"]]
    assert invoke("scripted", "-t", "forall_processing", "--fault", "wrong_branch").exit_code == 2


def test_list_and_trainset(tmp_path):
    listed = json.loads(invoke("list", "--format", "json").output)
    assert len([t for t in listed if t["mode"] == "production"]) == 12
    assert len([t for t in listed if t["mode"] == "simplified"]) == 17
    out = tmp_path / "train.jsonl"
    assert invoke("trainset", "--size", "30", "--cores", "3", "--min", "2", "--max", "4", "-o", str(out)).exit_code == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(rows) == 30 and rows[0]["prompt"][0]["role"] == "user" and json.loads(rows[0]["instance"])


def test_stats_prints_the_structural_share():
    result = invoke("stats", "--seed", "2", "--format", "json")
    assert result.exit_code == 0
    shown = json.loads(result.output)["all"]["structural_share"]
    assert shown == weight_statistics(benchmark_grid((2,))).structural_share
    text = invoke("stats", "--seed", "2").output
    assert f"{shown:.1%}" in text.splitlines()[-1]


def test_trainset_that_cannot_be_balanced_is_an_input_error():
    result = invoke("trainset", "--size", "30")
    assert result.exit_code == 2 and "cannot draw 30 examples" in result.output


def test_docs_record_the_measured_structural_share():
    """docs/benchmark.md states the share of L3+L4+L5 over the paper's grid: it must be the measured one."""
    from pathlib import Path

    text = Path(__file__).resolve().parent.parent.joinpath("docs", "benchmark.md").read_text(encoding="utf-8")
    stats = weight_statistics()
    assert f"carry **{stats.structural_share:.1%}**".replace("%", " %") in text
    shares = stats.layer_shares()
    stated = ", ".join(f"{layer} {share:.1%}".replace("%", " %") for layer, share in shares.items())
    assert f"({stated})" in text.replace("\n", " ")
