"""The four simplified templates with a transform variant (table 12, tools "a/c"): the seed
transform is tool_a(i=s) in the "tool_a" variant and tool_c(x=s) in the "tool_c" variant."""

from __future__ import annotations

from policyc.bench.procedure import Context, Outcome


def transform(ctx: Context, value: int) -> int:
    """The seed transform of the instance's variant, recorded as a prompt-given call.

    >>> from policyc.bench.procedure import Context, Procedure, ToolNames
    >>> from policyc.bench.tools import ToolBox
    >>> transform(Context(Procedure(ToolBox(4, 1)), ToolNames(), 4, 1, variant="tool_c"), 4)
    13
    """
    if ctx.variant == "tool_c":
        return ctx.proc.call("tool_c", x=value, given=("x",))
    return ctx.proc.call("tool_a", i=value, given=("i",))


def say_transform(ctx: Context, value: int) -> str:
    """How the prompt names the seed transform.

    >>> from policyc.bench.procedure import Context, Procedure, ToolNames
    >>> from policyc.bench.tools import ToolBox
    >>> say_transform(Context(Procedure(ToolBox(4, 1)), ToolNames(), 4, 1, variant="tool_a"), 4)
    'tool_a(i=4)'
    """
    if ctx.variant == "tool_c":
        return ctx.names.call("tool_c", x=value)
    return ctx.names.call("tool_a", i=value)


def two_transforms(ctx: Context) -> tuple[list[int], list[int], str]:
    """The transforms of seed and seed + 1: values, call indices, and the sentence.

    >>> from policyc.bench.procedure import Context, Procedure, ToolNames
    >>> from policyc.bench.tools import ToolBox
    >>> two_transforms(Context(Procedure(ToolBox(4, 1)), ToolNames(), 4, 1, variant="tool_a"))[:2]
    ([4, 7], [0, 1])
    """
    values, indices = [], []
    for p in range(2):
        values.append(transform(ctx, ctx.seed + p))
        indices.append(ctx.proc.last)
    text = f"Call {say_transform(ctx, ctx.seed)} (result t1), then {say_transform(ctx, ctx.seed + 1)} (result t2)."
    return values, indices, text


def nested_loops_fixed_2x2(ctx: Context) -> Outcome:
    """Two seed transforms -> tool_b(i=t, j=q) for t in (t1, t2), q in (1, 2) -> aggregate with d.

    >>> from policyc.bench.simplified import run_simplified
    >>> len(run_simplified("nested_loops_fixed_2x2", 42, variant="tool_c")[0])
    7
    """
    proc, n = ctx.proc, ctx.names
    values, indices, text = two_transforms(ctx)
    results, grid = [], []
    for value, index in zip(values, indices):
        for q in (1, 2):
            results.append(proc.call("tool_b", i=value, j=q, given=("j",), after=(index,)))
            grid.append(proc.last)
    answer = proc.call("tool_d", numbers=results, after=tuple(grid))
    return Outcome(answer, (text, f"For t = t1, then t = t2, call {n.call('tool_b', i='t', j=1)} and then "
                                  f"{n.call('tool_b', i='t', j=2)}.",
                            f"Then call {n.call('tool_d', numbers='[the four results, in order]')}."),
                   answer_is="the last result")


def filter_then_process(ctx: Context) -> Outcome:
    """Two seed transforms -> tool_b on each -> tool_c for even results -> aggregate with d.

    >>> from policyc.bench.simplified import run_simplified
    >>> run_simplified("filter_then_process", 42, variant="tool_a")[1]
    46
    """
    proc, n, j = ctx.proc, ctx.names, ctx.j
    values, indices, text = two_transforms(ctx)
    kept, feeding = [], []
    for value, index in zip(values, indices):
        r = proc.call("tool_b", i=value, j=j, given=("j",), after=(index,))
        if r % 2 == 0:
            kept.append(proc.call("tool_c", x=r, after=(proc.last,)))
            proc.keep(proc.last, ("x",))
        else:
            kept.append(r)
            proc.drop(("tool_c", {"x": r}), proc.last)
        feeding.append(proc.last)
    answer = proc.call("tool_d", numbers=kept, after=tuple(feeding))
    return Outcome(answer, (text, f"For t = t1, then t = t2, call {n.call('tool_b', i='t', j=j)}; when its result r "
                                  f"is even, replace r by the result of {n.call('tool_c', x='r')}.",
                            f"Then call {n.call('tool_d', numbers='[the two values, in order]')}."),
                   answer_is="the last result")


def fanout_then_transform(ctx: Context) -> Outcome:
    """Two seed transforms -> per item branch(c | b) -> per item tool_b(i=u, j=1) -> aggregate with d.

    >>> from policyc.bench.simplified import run_simplified
    >>> [c.name for c in run_simplified("fanout_then_transform", 42, variant="tool_c")[0]][:4]
    ['tool_c', 'tool_c', 'tool_b', 'tool_c']
    """
    proc, n, j = ctx.proc, ctx.names, ctx.j
    values, indices, text = two_transforms(ctx)
    routed, routes = [], []
    for value, index in zip(values, indices):
        if value % 2 == 0:
            routed.append(proc.call("tool_c", x=value, after=(index,)))
            proc.route(proc.last, ("x",), ("tool_b", {"i": value, "j": j}))
        else:
            routed.append(proc.call("tool_b", i=value, j=j, given=("j",), after=(index,)))
            proc.route(proc.last, ("i",), ("tool_c", {"x": value}))
        routes.append(proc.last)
    results, finals = [], []
    for value, index in zip(routed, routes):
        results.append(proc.call("tool_b", i=value, j=1, given=("j",), after=(index,)))
        finals.append(proc.last)
    answer = proc.call("tool_d", numbers=results, after=tuple(finals))
    return Outcome(answer, (text, f"Route t1, then t2: an even t goes to {n.call('tool_c', x='t')}, an odd one to "
                                  f"{n.call('tool_b', i='t', j=j)} (results u1, u2).",
                            f"Call {n.call('tool_b', i='u1', j=1)}, then {n.call('tool_b', i='u2', j=1)}.",
                            f"Then call {n.call('tool_d', numbers='[those two results]')}."),
                   answer_is="the last result")


def branch_then_reprocess(ctx: Context) -> Outcome:
    """Transform -> branch(c | b) -> tool_b(i=r, j=1) -> second branch(c | b) -> aggregate with d.

    >>> from policyc.bench.simplified import run_simplified
    >>> [c.name for c in run_simplified("branch_then_reprocess", 42, variant="tool_a")[0]]
    ['tool_a', 'tool_c', 'tool_b', 'tool_c', 'tool_d']
    """
    proc, n, j = ctx.proc, ctx.names, ctx.j
    t = transform(ctx, ctx.seed)
    source = proc.last
    if t % 2 == 0:
        r = proc.call("tool_c", x=t, after=(source,))
        proc.route(proc.last, ("x",), ("tool_b", {"i": t, "j": j}))
    else:
        r = proc.call("tool_b", i=t, j=j, given=("j",), after=(source,))
        proc.route(proc.last, ("i", "j"), ("tool_c", {"x": t}))
    first = proc.last
    u = proc.call("tool_b", i=r, j=1, given=("j",), after=(first,))
    if u % 2 == 0:
        w = proc.call("tool_c", x=u, after=(proc.last,))
        proc.route(proc.last, ("x",), ("tool_b", {"i": u, "j": 2}))
    else:
        w = proc.call("tool_b", i=u, j=2, given=("j",), after=(proc.last,))
        proc.route(proc.last, ("i", "j"), ("tool_c", {"x": u}))
    answer = proc.call("tool_d", numbers=[r, w], after=(first, proc.last))
    return Outcome(answer, (f"Call {say_transform(ctx, ctx.seed)} and let t be the result.",
                            f"If t is even call {n.call('tool_c', x='t')}, otherwise {n.call('tool_b', i='t', j=j)}; "
                            "let r be the result.",
                            f"Call {n.call('tool_b', i='r', j=1)} and let u be the result.",
                            f"If u is even call {n.call('tool_c', x='u')}, otherwise {n.call('tool_b', i='u', j=2)}; "
                            "let w be the result.",
                            f"Then call {n.call('tool_d', numbers='[r, w]')}."), answer_is="the last result")
