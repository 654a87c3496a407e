"""The 12 production templates of table 7, with the difficulty scaling of table 9.

>>> [t.name for t in PRODUCTION][:3]
['loop_termination', 'branch_selection', 'fan_out_fan_in']
>>> PRODUCTION_BY_NAME["fan_out+loop"].level(3)
(5, 3)
"""

from __future__ import annotations

from policyc.bench.procedure import Context, Procedure, Template, ToolNames
from policyc.bench.production.composite import (
    dynamic_expansion, fan_out_loop, forall_exists_combined, loop_expansion, nested_loops_branching)
from policyc.bench.production.fanout import exists_selection, fan_out_fan_in, forall_processing
from policyc.bench.production.loops import nested_loops, tool_condition_branching
from policyc.bench.production.sequential import branch_selection, loop_termination
from policyc.bench.tools import ToolBox

_T = Template
PRODUCTION: tuple[Template, ...] = (
    _T("loop_termination", "production", "sequential", ("tool_a",), loop_termination,
       "target", (10, 25, 50, 100, 200)),
    _T("branch_selection", "production", "sequential", ("tool_a", "tool_b", "tool_c"), branch_selection,
       "num_decisions", (2, 3, 5, 7, 9)),
    _T("fan_out_fan_in", "production", "fan-out", ("tool_a_list", "tool_b", "tool_c", "tool_d"), fan_out_fan_in,
       "num_items", (3, 4, 5, 6, 7)),
    _T("forall_processing", "production", "fan-out", ("tool_a_list", "tool_b", "tool_d"), forall_processing,
       "num_items", (3, 4, 5, 6, 7)),
    _T("exists_selection", "production", "fan-out", ("tool_a_list", "tool_b", "tool_c"), exists_selection,
       "num_items", (3, 4, 5, 6, 7)),
    _T("nested_loops", "production", "nested loops", ("tool_a", "tool_b"), nested_loops,
       "N (outer iterations)", (2, 3, 4, 5, 6)),
    _T("tool_condition_branching", "production", "multi-branch",
       ("tool_iterations", "tool_b", "tool_c", "tool_d"), tool_condition_branching,
       "d (passed to tool_iterations)", (1, 2, 3, 4, 5)),
    _T("dynamic_expansion", "production", "composite", ("tool_expand", "tool_value"), dynamic_expansion,
       "max_depth", (2, 3, 4, 5, 6), cap="nodes expanded"),
    _T("forall_exists_combined", "production", "composite", ("tool_a_list", "tool_b", "tool_c", "tool_d"),
       forall_exists_combined, "num_items", (3, 4, 5, 6, 7)),
    _T("nested_loops+branching", "production", "composite", ("tool_a", "tool_b", "tool_c", "tool_d"),
       nested_loops_branching, "N (outer iterations)", (2, 3, 4, 5, 6)),
    _T("fan_out+loop", "production", "composite", ("tool_a_list", "tool_b", "tool_c", "tool_d"), fan_out_loop,
       "num_items, r", ((3, 2), (4, 2), (5, 3), (6, 3), (7, 4))),
    _T("loop+expansion", "production", "composite", ("tool_a", "tool_expand", "tool_value"), loop_expansion,
       "target", (10, 25, 50, 100, 200)),
)
PRODUCTION_BY_NAME: dict[str, Template] = {t.name: t for t in PRODUCTION}


def run_template(name: str, difficulty: int, seed: int, cap: int | None = None):
    """Run a production template's procedure: (gold calls, answer). For doctests and exploration.

    >>> calls, answer = run_template("loop_termination", 1, 42)
    >>> answer
    12
    """
    template = PRODUCTION_BY_NAME[name]
    proc = Procedure(ToolBox(seed, difficulty))
    outcome = template.build(Context(proc, ToolNames(), seed, difficulty, template.level(difficulty), cap))
    return proc.calls, outcome.answer


__all__ = ["PRODUCTION", "PRODUCTION_BY_NAME", "run_template"]
