"""Nested-loop and multi-branch templates (table 8): nested_loops, tool_condition_branching."""

from __future__ import annotations

from policyc.bench.procedure import Context, Outcome, numbered

#: nested_loops adds the tool_b results that reach this threshold; nested_loops+branching
#: routes results at or above it to tool_c and the others to tool_d.
INNER_THRESHOLD = 20


def nested_loops(ctx: Context) -> Outcome:
    """Outer i = 1..N: v = tool_a(i); inner j = 1..v: r = tool_b(i, j); add r when r >= 20.

    >>> from policyc.bench.production import run_template
    >>> calls, answer = run_template("nested_loops", 1, 42)
    >>> [c.name for c in calls], answer
    (['tool_a', 'tool_b', 'tool_b', 'tool_a', 'tool_b', 'tool_b', 'tool_b', 'tool_b', 'tool_b'], 21)
    """
    proc, n, outer, t = ctx.proc, ctx.names, ctx.level, INNER_THRESHOLD
    total = 0
    for i in range(1, outer + 1):
        v = proc.call("tool_a", i=i, given=("i",))
        bound = proc.last
        for j in range(1, v + 1):
            r = proc.call("tool_b", i=i, j=j, given=("i", "j"), after=(bound,))
            total += r if r >= t else 0
        proc.stop(proc.last, ("i", "j"), ("tool_b", {"i": i, "j": v + 1}))
        last_a = bound
    proc.stop(last_a, ("i",), ("tool_a", {"i": outer + 1}))
    steps = numbered(
        "Set total = 0.",
        f"For i = 1, 2, ..., {outer} in order: call {n.call('tool_a', i='i')} and let v be its result.",
        f"For j = 1, 2, ..., v in order: call {n.call('tool_b', i='i', j='j')}; if its result is at least {t}, "
        "add it to total.",
        f"After the inner loop of i = {outer}, stop.",
    )
    return Outcome(total, steps, ("Finish the inner loop of each i before calling tool_a again.".replace(
        "tool_a", n.tool("tool_a")),), "the final value of total")


def tool_condition_branching(ctx: Context) -> Outcome:
    """N = tool_iterations(seed); for i = 1..N: r = tool_b(i, j); even r -> tool_c, odd r -> tool_d.

    >>> from policyc.bench.production import run_template
    >>> calls, answer = run_template("tool_condition_branching", 1, 42)
    >>> len(calls), answer
    (11, 223)
    """
    proc, n, j = ctx.proc, ctx.names, ctx.j
    count = proc.call("tool_iterations", seed=ctx.seed, given=("seed",))
    source, total = proc.last, 0
    for i in range(1, count + 1):
        r = proc.call("tool_b", i=i, j=j, given=("i", "j"), after=(source,))
        last_b = proc.last
        if r % 2 == 0:
            total += proc.call("tool_c", x=r, after=(last_b,))
            proc.route(proc.last, ("x",), ("tool_d", {"numbers": [r]}))
        else:
            total += proc.call("tool_d", numbers=[r], after=(last_b,))
            proc.route(proc.last, ("numbers",), ("tool_c", {"x": r}))
    proc.stop(last_b, ("i", "j"), ("tool_b", {"i": count + 1, "j": j}))
    steps = numbered(
        f"Call {n.call('tool_iterations', seed=ctx.seed)} and let N be its result. Set total = 0.",
        f"For i = 1, 2, ..., N in order: call {n.call('tool_b', i='i', j=j)} and let r be its result.",
        f"If r is even, call {n.call('tool_c', x='r')}; if r is odd, call {n.call('tool_d', numbers='[r]')}. "
        "Add that call's result to total.",
        "After i = N, stop.",
    )
    return Outcome(total, steps, ("Route every result to exactly one tool.",), "the final value of total")
