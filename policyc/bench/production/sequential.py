"""Sequential templates (table 8): loop_termination and branch_selection.

loop_termination is the worked example of §C.2: at D1 (target 10) it calls tool_a(i=1) -> 2
and tool_a(i=2) -> 5 and answers 12. §C.4 lists what the seed controls (the BFS start node,
j = (seed mod 10) + 1, the lists of tool_a_list, the loop counts of tool_iterations); none of
them occurs in loop_termination, so its instances do not depend on the seed.
"""

from __future__ import annotations

from policyc.bench.procedure import Context, Outcome, numbered

#: branch_selection routes to tool_c when tool_a's value exceeds this threshold.
BRANCH_THRESHOLD = 4


def loop_termination(ctx: Context) -> Outcome:
    """While-loop: add tool_a(i) (v if even, 2v if odd) until the total reaches the target.

    >>> from policyc.bench.production import run_template
    >>> calls, answer = run_template("loop_termination", 1, 42)
    >>> [(c.args["i"], c.result["result"]) for c in calls], answer
    ([(1, 2), (2, 5)], 12)
    """
    proc, n, target = ctx.proc, ctx.names, ctx.level
    total, i = 0, 1
    previous: tuple[int, ...] = ()
    while True:
        v = proc.call("tool_a", i=i, given=("i",), after=previous)
        total += v if v % 2 == 0 else 2 * v
        previous = (proc.last,)
        if total >= target:
            break
        i += 1
    proc.stop(proc.last, ("i",), ("tool_a", {"i": i + 1}))
    steps = numbered(
        "Set total = 0 and i = 1.",
        f"Call {n.call('tool_a', i='i')} and let v be its result.",
        "If v is even, add v to total; if v is odd, add 2*v to total.",
        f"If total >= {target}, stop. Otherwise increase i by 1 and go back to step 2.",
    )
    return Outcome(total, steps, ("Stop calling tools as soon as the total reaches the target.",),
                   "the final value of total")


def branch_selection(ctx: Context) -> Outcome:
    """For k = 0..K-1: v = tool_a(i=j+k); route v to tool_c if v > 4, else to tool_b(i=v, j).

    >>> from policyc.bench.production import run_template
    >>> calls, answer = run_template("branch_selection", 1, 42)
    >>> [c.name for c in calls], answer
    (['tool_a', 'tool_b', 'tool_a', 'tool_b'], 37)
    """
    proc, n, decisions, j = ctx.proc, ctx.names, ctx.level, ctx.j
    total = 0
    for k in range(decisions):
        v = proc.call("tool_a", i=j + k, given=("i",))
        source = proc.last
        if v > BRANCH_THRESHOLD:
            total += proc.call("tool_c", x=v, after=(source,))
            proc.route(proc.last, ("x",), ("tool_b", {"i": v, "j": j}))
        else:
            total += proc.call("tool_b", i=v, j=j, given=("j",), after=(source,))
            proc.route(proc.last, ("i",), ("tool_c", {"x": v}))
        last_a = source
    proc.stop(last_a, ("i",), ("tool_a", {"i": j + decisions}))
    steps = numbered(
        "Set total = 0.",
        f"For k = 0, 1, ..., {decisions - 1} in order: call {n.call('tool_a', i=f'{j} + k')} and let v be its result.",
        f"If v > {BRANCH_THRESHOLD}, call {n.call('tool_c', x='v')}; otherwise call "
        f"{n.call('tool_b', i='v', j=j)}. Add that call's result to total, then go on with the next k.",
        f"After k = {decisions - 1}, stop.",
    )
    return Outcome(total, steps, ("Make exactly one routing call after each tool_a call.".replace(
        "tool_a", n.tool("tool_a")),), "the final value of total")
