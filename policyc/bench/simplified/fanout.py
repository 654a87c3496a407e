"""Simplified fan-out templates (table 12): the list comes from k sequential tool_a(seed + p)
calls, one per element (table 11: "fan-out init."), instead of one tool_a_list call.

k = 2 + (seed mod 2) for fan_out_fan_in and forall_processing (5 or 7 calls); k = 2 for
exists_selection, whose optional tool_c calls would otherwise pass the 7-call core budget.
"""

from __future__ import annotations

from policyc.bench.procedure import Context, Outcome
from policyc.bench.simplified.branching import branch


def fan_out(ctx: Context, k: int) -> tuple[list[int], list[int]]:
    """The k fan-out calls tool_a(i=seed+p): their values and call indices.

    >>> from policyc.bench.procedure import Context, Procedure, ToolNames
    >>> from policyc.bench.tools import ToolBox
    >>> fan_out(Context(Procedure(ToolBox(42, 1)), ToolNames(), 42, 1), 2)
    ([6, 2], [0, 1])
    """
    values, indices = [], []
    for p in range(k):
        values.append(ctx.proc.call("tool_a", i=ctx.seed + p, given=("i",)))
        indices.append(ctx.proc.last)
    return values, indices


def say_fan_out(ctx: Context, k: int) -> str:
    """The sentence that states the fan-out calls.

    >>> from policyc.bench.procedure import Context, Procedure, ToolNames
    >>> from policyc.bench.tools import ToolBox
    >>> say_fan_out(Context(Procedure(ToolBox(5, 1)), ToolNames(), 5, 1), 2)
    'Call tool_a(i=5), tool_a(i=6), in this order; their results are the items.'
    """
    calls = ", ".join(ctx.names.call("tool_a", i=ctx.seed + p) for p in range(k))
    return f"Call {calls}, in this order; their results are the items."


def fan_out_fan_in(ctx: Context) -> Outcome:
    """k fan-out calls -> per item branch(c | b) -> aggregate with d.

    >>> from policyc.bench.simplified import run_simplified
    >>> [c.name for c in run_simplified("fan_out_fan_in", 42)[0]]
    ['tool_a', 'tool_a', 'tool_b', 'tool_b', 'tool_d']
    """
    n, j, k = ctx.names, ctx.j, 2 + ctx.seed % 2
    values, indices = fan_out(ctx, k)
    results, branches = [], []
    for value, index in zip(values, indices):
        results.append(branch(ctx, value, to_c_when_even=False, j=j, after=index))
        branches.append(ctx.proc.last)
    answer = ctx.proc.call("tool_d", numbers=results, after=tuple(branches))
    return Outcome(answer, (say_fan_out(ctx, k),
                            f"For each item x in order: if x is odd call {n.call('tool_c', x='x')}, if it is even "
                            f"call {n.call('tool_b', i='x', j=j)}.",
                            f"Then call {n.call('tool_d', numbers='[those results, in order]')}."),
                   answer_is="the last result")


def forall_processing(ctx: Context) -> Outcome:
    """k fan-out calls -> tool_b on every item -> aggregate with d.

    >>> from policyc.bench.simplified import run_simplified
    >>> run_simplified("forall_processing", 42)[1]
    46
    """
    proc, n, j, k = ctx.proc, ctx.names, ctx.j, 2 + ctx.seed % 2
    values, indices = fan_out(ctx, k)
    results, mapped = [], []
    for value, index in zip(values, indices):
        results.append(proc.call("tool_b", i=value, j=j, given=("j",), after=(index,)))
        mapped.append(proc.last)
    answer = proc.call("tool_d", numbers=results, after=tuple(mapped))
    return Outcome(answer, (say_fan_out(ctx, k),
                            f"Call {n.call('tool_b', i='x', j=j)} for each item x, in order.",
                            f"Then call {n.call('tool_d', numbers='[those results, in order]')}."),
                   answer_is="the last result")


def exists_selection(ctx: Context) -> Outcome:
    """k fan-out calls -> tool_b per item -> tool_c for the results divisible by 3 -> aggregate with d.

    >>> from policyc.bench.simplified import run_simplified
    >>> [c.name for c in run_simplified("exists_selection", 42)[0]]
    ['tool_a', 'tool_a', 'tool_b', 'tool_b', 'tool_d']
    """
    proc, n, j, k = ctx.proc, ctx.names, ctx.j, 2
    values, indices = fan_out(ctx, k)
    kept, feeding = [], []
    for value, index in zip(values, indices):
        r = proc.call("tool_b", i=value, j=j, given=("j",), after=(index,))
        if r % 3 == 0:
            kept.append(proc.call("tool_c", x=r, after=(proc.last,)))
            proc.keep(proc.last, ("x",))
        else:
            kept.append(r)
            proc.drop(("tool_c", {"x": r}), proc.last)
        feeding.append(proc.last)
    answer = proc.call("tool_d", numbers=kept, after=tuple(feeding))
    return Outcome(answer, (say_fan_out(ctx, k),
                            f"Call {n.call('tool_b', i='x', j=j)} for each item x; when a result r is divisible "
                            f"by 3, replace it by the result of {n.call('tool_c', x='r')}.",
                            f"Then call {n.call('tool_d', numbers='[the values, in order]')}."),
                   answer_is="the last result")
