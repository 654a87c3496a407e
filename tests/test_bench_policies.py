"""Synthesized policies (AgentLTL paper §3.3, table 5): they check and lint clean, the gold
trace scores exactly 1, each single perturbation loses exactly the layers it should, and an
aliased policy is the same policy through a rename map."""

from __future__ import annotations

import pytest

from policyc.bench import PRODUCTION, SIMPLIFIED, generate_instance, instance_policy, scripted_run
from policyc.bench.augment import allowed_augmentations
from policyc.bench.compliance import failed_layers, score_instance
from policyc.bench.stats import benchmark_grid
from policyc.bench.synthesize import LAYER_WEIGHTS, synthesize_rules
from policyc.trace.formats import parse_trace


def lost(instance, *faults) -> str:
    report = score_instance(instance, parse_trace(scripted_run(instance, list(faults))))
    return "".join(sorted(layer[1] for layer in failed_layers(report))) or "-"


@pytest.mark.slow
@pytest.mark.parametrize("template", [t.name for t in PRODUCTION])
def test_paper_grid_policies_check_and_the_gold_trace_scores_1(template):
    for name, difficulty, seed in benchmark_grid():
        if name != template:
            continue
        inst = generate_instance(name, difficulty, seed)
        policy = instance_policy(inst)  # raises PolicyError with the diagnostics if it does not check
        report = score_instance(inst, inst.gold_trace())
        assert report.compliance_score == 1.0, [c.name for c in report.constraints if not c.passed]
        assert not report.input_problems
        assert {r.layer for r in policy.rules} <= set(LAYER_WEIGHTS)
        assert all(r.weight == LAYER_WEIGHTS[r.layer] for r in policy.rules)


@pytest.mark.parametrize("template", SIMPLIFIED, ids=lambda t: t.name)
def test_simplified_policies_check_and_the_gold_trace_scores_1(template):
    for variant in template.variants:
        for seed in (0, 1, 42, 123):
            core = generate_instance(template.name, seed=seed, mode="simplified", variant=variant)
            for augmentation in allowed_augmentations(len(core.calls)):
                inst = generate_instance(template.name, seed=seed, mode="simplified", variant=variant,
                                         augmentation=augmentation)
                assert score_instance(inst, inst.gold_trace()).compliance_score == 1.0


# Each row: an instance, then the layers each fault (default target, see policyc/bench/faults.py)
# loses. Why, fault by fault:
#   drop      the last call: its sequence (L3), its count (L5), its exact arguments (L6), its
#             dependencies (L4); L1 when it is a routing call, L2 when the prompt states all its
#             arguments (a loop counter).
#   swap      a call and the next call, which depends on it: the order (L4), and the global
#             sequence (L3) unless both are calls of the same tool.
#   wrong     the first routing decision. Routing to the other tool: the decision (L1), the
#   branch    sequence, the dependencies of the missing call, both counts and its arguments
#             (L3 L4 L5 L6). One more loop iteration or a call for a filtered-out item: the
#             decision and a count (L1 L5), and L4 when the spurious call renumbers later calls
#             of its tool that depend on another tool.
#   change    the last argument computed from a tool result: its exact arguments (L6), and the
#   argument  decision when it is the routed value (L1). Where every argument is a loop counter
#             (loop_termination, nested_loops) the counter is prompt-given (L2) and names the
#             iteration (L1), and in loop_termination orders it (L4).
#   repeat    the last call once more: its count (L5) only.
PRODUCTION_TABLE = {
    # family: sequential
    "loop_termination": "123456 4 15 1246 5",
    "branch_selection": "13456 34 13456 16 5",
    # family: fan-out
    "fan_out_fan_in": "3456 34 13456 6 5",
    "forall_processing": "3456 34 n/a 6 5",
    "exists_selection": "3456 34 145 6 5",
    # family: nested loops
    "nested_loops": "123456 34 145 126 5",
    # family: multi-branch
    "tool_condition_branching": "13456 34 13456 16 5",
    # family: composite
    "dynamic_expansion": "3456 34 145 6 5",
    "forall_exists_combined": "3456 34 145 6 5",
    "nested_loops+branching": "13456 34 13456 16 5",
    "fan_out+loop": "3456 34 15 6 5",
    "loop+expansion": "3456 34 15 6 5",
}
FAULT_COLUMNS = ("drop", "swap", "wrong_branch", "change_argument", "repeat")


@pytest.mark.parametrize("template", sorted(PRODUCTION_TABLE))
def test_each_perturbation_loses_exactly_its_layers_production(template):
    inst = generate_instance(template, 2, 123)
    for fault, expected in zip(FAULT_COLUMNS, PRODUCTION_TABLE[template].split()):
        if expected == "n/a":
            assert not inst.decisions
            continue
        assert lost(inst, fault) == expected, fault


def test_filter_decisions_both_ways():
    # exists_selection D2 seed 123: decision 2 keeps an item (tool_c processes it), the others drop one
    inst = generate_instance("exists_selection", 2, 123)
    assert [d.taken is not None for d in inst.decisions] == [False, False, True, False]
    assert lost(inst, "wrong_branch@2") == "13456"   # the kept item's tool_c call is skipped
    assert lost(inst, "wrong_branch@3") == "15"      # a spurious tool_c after every other tool_c call
    assert lost(inst, "wrong_answer") == "-"         # a wrong answer is not a procedure violation


SIMPLIFIED_TABLE = {
    # group: branching
    "three_call_branch_bridge": "3456 34 13456 6 5", "chain_then_branch": "3456 34 13456 6 5",
    "rebranch_after_c": "3456 34 13456 6 5", "join_then_branch": "13456 34 13456 16 5",
    "dual_branch_merge": "3456 4 13456 46 5", "loop2_then_branch": "13456 34 13456 16 5",
    "branch_verify_finalize": "13456 34 13456 16 5", "six_call_double_rebranch": "3456 34 13456 6 5",
    # group: fan-out
    "fan_out_fan_in": "3456 34 13456 6 5", "forall_processing": "3456 34 n/a 6 5",
    # group: transform (both variants)
    "nested_loops_fixed_2x2": "3456 34 n/a 6 5", "fanout_then_transform": "3456 34 13456 6 5",
    "branch_then_reprocess": "3456 34 13456 6 5",
    # group: held out
    "loop_termination": "123456 4 15 1246 5", "branch_selection": "13456 34 13456 16 5",
}


@pytest.mark.parametrize("template", sorted(SIMPLIFIED_TABLE))
def test_each_perturbation_loses_exactly_its_layers_simplified(template):
    spec = next(t for t in SIMPLIFIED if t.name == template)
    for variant in spec.variants:
        inst = generate_instance(template, seed=42, mode="simplified", variant=variant)
        for fault, expected in zip(FAULT_COLUMNS, SIMPLIFIED_TABLE[template].split()):
            if expected != "n/a":
                assert lost(inst, fault) == expected, (variant, fault)


def test_dual_branch_merge_change_argument_reaches_the_order_rule():
    # the merge call tool_b(i=L, j=R) is told apart from the branch's tool_b only by computed
    # arguments, so its L4 rule names them: an arithmetic error there also breaks the order rule
    inst = generate_instance("dual_branch_merge", seed=42, mode="simplified")
    merge = inst.calls[-1]
    assert merge.name == "tool_b" and not merge.given
    assert any(r.layer == "L4" and f"i: {merge.args['i']}" in r.formula for r in synthesize_rules(inst))


# ---------------------------------------------------------------- aliases (appendix D.4)

@pytest.mark.parametrize("template,mode,difficulty", [
    ("fan_out_fan_in", "simplified", 1), ("branch_then_reprocess", "simplified", 1),
    ("tool_condition_branching", "production", 1), ("dynamic_expansion", "production", 2),
    ("loop+expansion", "production", 2)])
def test_aliased_policy_scores_a_renamed_trace_exactly_as_the_original(template, mode, difficulty):
    base = generate_instance(template, difficulty, 11, mode=mode)
    aliased = generate_instance(template, difficulty, 11, mode=mode, aliases=True)
    assert set(base.tool_sequence).isdisjoint(aliased.tool_sequence)
    base_policy, aliased_policy = instance_policy(base), instance_policy(aliased)
    assert [r.name for r in base_policy.rules] == [r.name for r in aliased_policy.rules]
    faults = [[], ["drop"], ["swap"], ["change_argument"], ["repeat"]] + ([["wrong_branch"]] if base.decisions else [])
    for chosen in faults:
        a = score_instance(base, parse_trace(scripted_run(base, chosen)))
        b = score_instance(aliased, parse_trace(scripted_run(aliased, chosen)))
        assert a.compliance_score == b.compliance_score
        assert [c.passed for c in a.constraints] == [c.passed for c in b.constraints]


def test_a_base_tool_name_in_an_aliased_run_is_no_match():
    inst = generate_instance("fan_out_fan_in", seed=3, mode="simplified", aliases=True)
    run = scripted_run(inst)
    for call in run["tool_calls"]:
        call["tool_name"] = "tool_a" if call["step"] == 1 else call["tool_name"]
    assert score_instance(inst, parse_trace(run)).compliance_score < 1.0


# ---------------------------------------------------------------- lint

EXPECTED_LINT_WARNINGS = {
    "L0003",  # redundant-rule: the layers restate facts on purpose, so each failure mode is scored on its own
    "L0005",  # dead-tool: the forbidden branch's tool, whose L5 count is 0
    "L0008",  # layer-weights: a layer that carries more than half the weight (L4 in long fan-outs)
}


def test_synthesized_policy_lints_with_only_the_expected_warnings():
    lint = pytest.importorskip("policyc.lint", reason="the lint package is not built yet")
    from policyc.diagnostics import Severity

    inst = generate_instance("fan_out_fan_in", 1, 42)
    report = lint.lint_policy(instance_policy(inst), lint.LintOptions(bound=max(8, len(inst.calls))))
    assert not report.at_or_above(Severity.ERROR)
    assert {f.code for f in report.findings} <= EXPECTED_LINT_WARNINGS
    assert {f.code for f in report.findings} >= {"L0003", "L0005"}


@pytest.mark.slow
@pytest.mark.parametrize("template,mode", [(t.name, "production") for t in PRODUCTION]
                         + [(t, "simplified") for t in ("six_call_double_rebranch", "branch_then_reprocess",
                                                        "exists_selection")])
def test_synthesized_policies_lint_without_errors(template, mode):
    lint = pytest.importorskip("policyc.lint", reason="the lint package is not built yet")
    from policyc.diagnostics import Severity

    # every analysis but redundancy, which is slow on the longer D1 policies and only warns;
    # the bounded queries look at traces as long as the gold trace (a compliant run is that long)
    analyses = {kind.slug for kind in lint.KINDS.values()} - {"redundant-rule"}
    inst = generate_instance(template, 1, 42, mode=mode)
    report = lint.lint_policy(instance_policy(inst), lint.LintOptions(bound=max(8, len(inst.calls))), analyses)
    assert not report.at_or_above(Severity.ERROR), [f.message for f in report.findings]
    assert {f.code for f in report.findings} <= EXPECTED_LINT_WARNINGS
