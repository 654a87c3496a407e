"""Benchmark templates (AgentLTL paper, appendix C): instances, the paper's worked examples,
difficulty scaling, the call limit, prompts, and the simplified mode of appendix D."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from policyc.automata import compile_policy
from policyc.bench import PRODUCTION, SIMPLIFIED, TRAINING, call_limit, generate_instance
from policyc.bench.augment import allowed_augmentations, prefix_seed, suffix_seed
from policyc.bench.generate import InstanceFiltered
from policyc.bench.stats import benchmark_grid
from policyc.bench.synthesize import policy_text, synthesize_rules, weight_by_layer
from policyc.check import check_file
from policyc.scoring import score_trace
from policyc.trace import load_traces

ROOT = Path(__file__).resolve().parent.parent
TABLE_7_TOOLS = {
    "loop_termination": {"tool_a"}, "branch_selection": {"tool_a", "tool_b", "tool_c"},
    "fan_out_fan_in": {"tool_a_list", "tool_b", "tool_c", "tool_d"},
    "forall_processing": {"tool_a_list", "tool_b", "tool_d"},
    "exists_selection": {"tool_a_list", "tool_b", "tool_c"}, "nested_loops": {"tool_a", "tool_b"},
    "tool_condition_branching": {"tool_iterations", "tool_b", "tool_c", "tool_d"},
    "dynamic_expansion": {"tool_expand", "tool_value"},
    "forall_exists_combined": {"tool_a_list", "tool_b", "tool_c", "tool_d"},
    "nested_loops+branching": {"tool_a", "tool_b", "tool_c", "tool_d"},
    "fan_out+loop": {"tool_a_list", "tool_b", "tool_c", "tool_d"},
    "loop+expansion": {"tool_a", "tool_expand", "tool_value"},
}


def values(instance, tool):
    return [c.result["result"] for c in instance.calls if c.name == tool]


# ---------------------------------------------------------------- the paper's worked examples

def test_c2_worked_example_loop_termination_d1_seed_42():
    inst = generate_instance("loop_termination", 1, 42)
    assert [(c.name, c.args, c.result["result"]) for c in inst.calls] == [("tool_a", {"i": 1}, 2), ("tool_a", {"i": 2}, 5)]
    assert inst.expected_answer == 12
    assert "total >= 10" in inst.prompt


def test_appendix_b_is_fan_out_fan_in_d1_seed_42():
    """Appendix B's run is fan_out_fan_in at D1, seed 42. Its record names the list tool `tool_a`
    and calls it with {"seed": 42}: that is tool_a_list with the difficulty bound when the tools
    are built (table 6's caption), under another name. Renamed so, the gold trace is the record's."""
    inst = generate_instance("fan_out_fan_in", 1, 42)
    record = load_traces(ROOT / "examples/traces/appendix_b.json").traces[0]
    renamed = [("tool_a" if c.name == "tool_a_list" else c.name, dict(c.args), dict(c.result)) for c in inst.calls]
    assert renamed == [(c.name, dict(c.args), c.result) for c in record.calls]
    assert inst.expected_answer == 33
    # the record's own six constraints (examples/fan_out_fan_in.altl) accept the renamed gold trace
    policy, _ = check_file(ROOT / "examples/fan_out_fan_in.altl")
    assert score_trace(compile_policy(policy), record).compliance_score == 1.0


def test_appendix_b_record_satisfies_the_synthesized_policy_through_a_rename(tmp_path):
    inst = generate_instance("fan_out_fan_in", 1, 42)
    (tmp_path / "base.altl").write_text(policy_text(inst))
    (tmp_path / "b.altl").write_text('import "base.altl" rename { tool_a_list -> tool_a }\npolicy appendix_b\n')
    policy, diagnostics = check_file(tmp_path / "b.altl")
    assert policy is not None, diagnostics
    record = load_traces(ROOT / "examples/traces/appendix_b.json").traces[0]
    assert score_trace(compile_policy(policy), record).compliance_score == 1.0


def test_figure_2_fan_out_fan_in_d1_seed_2():
    """Figure 2: every item is even, tool_c appears only as a forbidden-tool witness,
    W_total = 46.5 and the structural layers carry about 73 %."""
    inst = generate_instance("fan_out_fan_in", 1, 2)
    assert inst.calls[0].result == {"numbers": [28, 42, 6]}
    assert "tool_c" not in inst.tool_sequence
    rules = synthesize_rules(inst)
    mentions_c = {r.layer for r in rules if "tool_c" in r.formula}
    assert mentions_c == {"L1", "L5"} and "called_n(tool_c) == 0" in {r.formula for r in rules}
    weights = weight_by_layer(rules)
    assert sum(weights.values()) == 46.5
    assert (weights["L3"] + weights["L4"] + weights["L5"]) / 46.5 == pytest.approx(0.73, abs=0.005)


def test_gold_lengths_span_2_to_50_calls_over_the_paper_grid():
    """§4.2: gold traces range from 2 to 50 required tool calls."""
    lengths = [len(generate_instance(t, d, s).calls) for t, d, s in benchmark_grid()]
    assert min(lengths) == 2 and max(lengths) == 50


# ---------------------------------------------------------------- production instances

@pytest.mark.parametrize("template", [t.name for t in PRODUCTION])
def test_instances_are_deterministic_and_fit_the_call_limit(template):
    for difficulty in range(1, 6):
        for seed in range(0, 40, 3):
            inst = generate_instance(template, difficulty, seed)
            again = generate_instance(template, difficulty, seed)
            assert (inst.prompt, inst.calls, inst.decisions, inst.expected_answer) == \
                   (again.prompt, again.calls, again.decisions, again.expected_answer)
            assert len(inst.calls) >= 1 and len(inst.calls) <= call_limit(difficulty)
            assert set(inst.tool_sequence) <= TABLE_7_TOOLS[template]
            if inst.capped:
                (what, cap), = inst.capped.items()
                assert f"at most {cap} nodes" in inst.prompt


def test_only_dynamic_expansion_is_ever_capped():
    capped = {t for t in (x.name for x in PRODUCTION) for d in range(1, 6) for s in range(0, 60, 7)
              if generate_instance(t, d, s).capped}
    assert capped <= {"dynamic_expansion"}


@pytest.mark.parametrize("template", [t.name for t in PRODUCTION])
def test_prompt_has_the_production_blocks_and_no_difficulty(template):
    for difficulty in (1, 5):
        prompt = generate_instance(template, difficulty, 123).prompt
        blocks = [prompt.index(b) for b in ("PROCEDURE", "RULES", "ANSWER FORMAT")]
        assert blocks == sorted(blocks)
        assert "difficult" not in prompt.lower() and not re.search(r"\bD[1-5]\b", prompt)
        assert prompt.rstrip().endswith("ANSWER: <integer>")


def test_prompts_inline_the_scaling_parameter():
    assert "total >= 200" in generate_instance("loop_termination", 5, 42).prompt
    assert "k = 0, 1, ..., 8" in generate_instance("branch_selection", 5, 42).prompt
    assert "i = 1, 2, ..., 6" in generate_instance("nested_loops", 5, 42).prompt
    assert "k = 1, ..., 4" in generate_instance("fan_out+loop", 5, 42).prompt
    assert "tool_a_list(seed=42)" in generate_instance("fan_out_fan_in", 3, 42).prompt


#: Every answer can be computed from the gold trace alone (§4.1): one reading per template.
ANSWER_FROM_TRACE = {
    "loop_termination": lambda i: sum(v if v % 2 == 0 else 2 * v for v in values(i, "tool_a")),
    "branch_selection": lambda i: sum(values(i, "tool_b") + values(i, "tool_c")),
    "fan_out_fan_in": lambda i: values(i, "tool_d")[-1],
    "forall_processing": lambda i: values(i, "tool_d")[-1],
    "exists_selection": lambda i: sum(
        (i.calls[k + 1].result["result"] if k + 1 < len(i.calls) and i.calls[k + 1].name == "tool_c"
         else c.result["result"]) for k, c in enumerate(i.calls) if c.name == "tool_b"),
    "nested_loops": lambda i: sum(v for v in values(i, "tool_b") if v >= 20),
    "tool_condition_branching": lambda i: sum(values(i, "tool_c") + values(i, "tool_d")),
    "dynamic_expansion": lambda i: sum(v for v in values(i, "tool_value") if v >= 25),
    "forall_exists_combined": lambda i: values(i, "tool_d")[-1],
    "nested_loops+branching": lambda i: sum(values(i, "tool_c") + values(i, "tool_d")),
    "fan_out+loop": lambda i: values(i, "tool_d")[-1],
    "loop+expansion": lambda i: sum(values(i, "tool_a") + values(i, "tool_value")),
}


@pytest.mark.parametrize("template", sorted(ANSWER_FROM_TRACE))
def test_expected_answer_is_derivable_from_the_gold_trace(template):
    for difficulty in range(1, 6):
        for seed in (42, 123, 7):
            inst = generate_instance(template, difficulty, seed)
            assert inst.expected_answer == ANSWER_FROM_TRACE[template](inst)


def test_seed_controls_only_what_c4_says():
    # §C.4: loop_termination uses none of the seed-controlled parameters
    assert generate_instance("loop_termination", 3, 42).calls == generate_instance("loop_termination", 3, 123).calls
    assert generate_instance("fan_out_fan_in", 3, 42).calls != generate_instance("fan_out_fan_in", 3, 123).calls


@pytest.mark.parametrize("bad", [dict(template="nope"), dict(template="loop_termination", difficulty=6),
                                 dict(template="loop_termination", mode="other"),
                                 dict(template="fan_out_fan_in", mode="simplified", augmentation="sideways")])
def test_bad_requests_are_value_errors(bad):
    args = {"difficulty": 1, "seed": 1, **bad}
    with pytest.raises(ValueError):
        generate_instance(args.pop("template"), args.pop("difficulty"), args.pop("seed"), **args)


def test_instance_filtered_is_a_value_error():
    assert issubclass(InstanceFiltered, ValueError)


# ---------------------------------------------------------------- simplified mode (appendix D)

def test_seventeen_simplified_templates():
    assert len(SIMPLIFIED) == 17 and len(TRAINING) == 15
    assert [t.name for t in SIMPLIFIED if t.held_out] == ["loop_termination", "branch_selection"]
    assert sum(len(t.variants) for t in TRAINING) == 19  # 11 + 4 x 2 pattern-variant slots (D.3)
    assert sorted(t.name for t in TRAINING if len(t.variants) == 2) == [
        "branch_then_reprocess", "fanout_then_transform", "filter_then_process", "nested_loops_fixed_2x2"]


@pytest.mark.parametrize("template", [t for t in SIMPLIFIED], ids=lambda t: t.name)
def test_simplified_cores_are_short_and_use_the_four_tool_pool(template):
    low, high = (3, 6) if template.held_out else (3, 7)
    for variant in template.variants:
        for seed in range(0, 120, 7):
            inst = generate_instance(template.name, seed=seed, mode="simplified", variant=variant)
            assert low <= len(inst.calls) <= high
            assert set(inst.tool_sequence) <= {"tool_a", "tool_b", "tool_c", "tool_d"}
            if variant == "tool_c":
                assert inst.calls[0].name == "tool_c"
            for augmentation in allowed_augmentations(len(inst.calls)):
                augmented = generate_instance(template.name, seed=seed, mode="simplified", variant=variant,
                                              augmentation=augmentation)
                assert len(augmented.calls) <= 8
                extra = [v for a, v in (("prefix", prefix_seed(seed)), ("suffix", suffix_seed(seed)))
                         if augmentation in (a, "both")]
                assert augmented.expected_answer == inst.expected_answer + sum(
                    c.result["result"] for c in augmented.calls if c.name == "tool_a" and c.args["i"] in extra)


def test_prefix_and_suffix_calls():
    inst = generate_instance("fan_out_fan_in", seed=4, mode="simplified", augmentation="both")
    first, last = inst.calls[0], inst.calls[-1]
    assert (first.name, last.name) == ("tool_a", "tool_a")
    assert 1000 <= first.args["i"] <= 9999 and 10000 <= last.args["i"] <= 19999
    assert "first; its result is an addend" in inst.prompt and "last; its result is an addend" in inst.prompt
    assert 0 in inst.calls[1].after  # the prefix precedes the first core call (an L4 relation)


def test_long_cores_take_only_none_or_prefix():
    inst = generate_instance("nested_loops_fixed_2x2", seed=1, mode="simplified", variant="tool_a")
    assert len(inst.calls) == 7
    with pytest.raises(ValueError, match="not allowed"):
        generate_instance("nested_loops_fixed_2x2", seed=1, mode="simplified", variant="tool_a", augmentation="suffix")


def test_simplified_prompt_is_inline_and_production_blocks_are_absent():
    prompt = generate_instance("chain_then_branch", seed=9, mode="simplified").prompt
    assert "\n" not in prompt and "PROCEDURE" not in prompt and prompt.endswith("ANSWER: <integer>.")


def test_instance_json_fields_of_table_10(tmp_path):
    inst = generate_instance("forall_processing", 2, 7)
    assert json.loads(json.dumps(inst.gold_records()))[0]["tool_name"] == "tool_a_list"
    assert inst.num_tool_calls_expected == len(inst.calls) and inst.difficulty == 2
