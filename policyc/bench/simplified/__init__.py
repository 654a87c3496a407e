"""The 17 simplified-mode templates of appendix D.1: 15 for training (table 12) and the two
held-out patterns (simplified loop_termination and branch_selection).

Simplified mode uses the four-tool pool {tool_a, tool_b, tool_c, tool_d}, short inline
prompts and 3-7 core calls (table 11). Difficulty does not scale a simplified template; an
instance's difficulty is derived from its call count (§C.5: <= 5 calls -> D1, <= 15 -> D2).

>>> len(SIMPLIFIED), len(TRAINING), [t.name for t in SIMPLIFIED if t.held_out]
(17, 15, ['loop_termination', 'branch_selection'])
>>> sum(len(t.variants) for t in TRAINING)
19
"""

from __future__ import annotations

from policyc.bench.procedure import Context, Procedure, Template, ToolNames
from policyc.bench.simplified import branching, fanout, heldout, transforms
from policyc.bench.tools import ToolBox

ABC = ("tool_a", "tool_b", "tool_c")
ABCD = ("tool_a", "tool_b", "tool_c", "tool_d")
TRANSFORMS = ("tool_a", "tool_c")


def _t(name, family, tools, build, variants=("",), held_out=False) -> Template:
    return Template(name, "simplified", family, tools, build, variants=variants, held_out=held_out)


SIMPLIFIED: tuple[Template, ...] = (
    _t("three_call_branch_bridge", "branching", ABC, branching.three_call_branch_bridge),
    _t("chain_then_branch", "branching", ABC, branching.chain_then_branch),
    _t("rebranch_after_c", "branching", ABC, branching.rebranch_after_c),
    _t("join_then_branch", "branching", ABC, branching.join_then_branch),
    _t("dual_branch_merge", "branching", ABC, branching.dual_branch_merge),
    _t("loop2_then_branch", "branching", ABC, branching.loop2_then_branch),
    _t("branch_verify_finalize", "branching", ABC, branching.branch_verify_finalize),
    _t("six_call_double_rebranch", "branching", ABC, branching.six_call_double_rebranch),
    _t("fan_out_fan_in", "fan-out", ABCD, fanout.fan_out_fan_in),
    _t("forall_processing", "fan-out", ("tool_a", "tool_b", "tool_d"), fanout.forall_processing),
    _t("exists_selection", "fan-out", ABCD, fanout.exists_selection),
    _t("nested_loops_fixed_2x2", "transform", ("tool_a", "tool_c", "tool_b", "tool_d"),
       transforms.nested_loops_fixed_2x2, TRANSFORMS),
    _t("filter_then_process", "transform", ABCD, transforms.filter_then_process, TRANSFORMS),
    _t("fanout_then_transform", "transform", ABCD, transforms.fanout_then_transform, TRANSFORMS),
    _t("branch_then_reprocess", "transform", ABCD, transforms.branch_then_reprocess, TRANSFORMS),
    _t("loop_termination", "held-out", ABC, heldout.loop_termination, held_out=True),
    _t("branch_selection", "held-out", ABC, heldout.branch_selection, held_out=True),
)
SIMPLIFIED_BY_NAME: dict[str, Template] = {t.name: t for t in SIMPLIFIED}
TRAINING: tuple[Template, ...] = tuple(t for t in SIMPLIFIED if not t.held_out)


def run_simplified(name: str, seed: int, variant: str = ""):
    """Run a simplified template's core procedure: (gold calls, answer).

    >>> calls, answer = run_simplified("three_call_branch_bridge", 42)
    >>> answer
    88
    """
    template = SIMPLIFIED_BY_NAME[name]
    proc = Procedure(ToolBox(seed, 1))
    chosen = variant or template.variants[0]
    outcome = template.build(Context(proc, ToolNames(), seed, 1, variant=chosen))
    return proc.calls, outcome.answer


__all__ = ["SIMPLIFIED", "SIMPLIFIED_BY_NAME", "TRAINING", "run_simplified"]
