"""Composite templates (table 8): dynamic_expansion, forall_exists_combined,
nested_loops+branching, fan_out+loop, loop+expansion."""

from __future__ import annotations

from policyc.bench.procedure import Context, Outcome, numbered
from policyc.bench.production.fanout import QUALIFIER_MODULUS
from policyc.bench.production.loops import INNER_THRESHOLD

#: dynamic_expansion keeps (adds and expands) children whose tool_value is at least this.
HIGH_VALUE = 25


def dynamic_expansion(ctx: Context) -> Outcome:
    """BFS from node (seed mod 20d) + 1 for max_depth levels, keeping children valued >= 25.

    >>> from policyc.bench.production import run_template
    >>> calls, answer = run_template("dynamic_expansion", 1, 42)
    >>> [(c.name, c.args) for c in calls], answer
    ([('tool_expand', {'node': 3}), ('tool_value', {'node': 17})], 0)
    """
    proc, n, levels, cap = ctx.proc, ctx.names, ctx.level, ctx.cap
    start = ctx.seed % (20 * ctx.difficulty) + 1
    frontier: list[tuple[int, int | None]] = [(start, None)]
    visited, total, expanded = {start}, 0, 0
    for _ in range(levels):
        following: list[tuple[int, int | None]] = []
        for node, why in frontier:
            if cap is not None and expanded >= cap:
                proc.drop(("tool_expand", {"node": node}), proc.last)
                continue
            if why is None:
                children = proc.call("tool_expand", node=node, given=("node",))
            else:
                children = proc.call("tool_expand", node=node, after=(why,))
                proc.keep(proc.last, ("node",))
            expanded, expansion = expanded + 1, proc.last
            for child in children:
                if child in visited:
                    continue
                visited.add(child)
                value = proc.call("tool_value", node=child, after=(expansion,))
                if value >= HIGH_VALUE:
                    total += value
                    following.append((child, proc.last))
                else:
                    proc.drop(("tool_expand", {"node": child}), proc.last)
        frontier = following
    for node, _ in frontier:
        proc.drop(("tool_expand", {"node": node}), proc.last)
    limit = [f"Expand at most {cap} nodes in total; once {cap} nodes are expanded, stop."] if cap is not None else []
    steps = numbered(
        f"Set total = 0. Node {start} is visited, and the current level is [{start}].",
        f"Do the following {levels} times. For each node m of the current level, in order: call "
        f"{n.call('tool_expand', node='m')}; for each child c it returns, in order, skip c if it was visited "
        f"already, otherwise mark it visited and call {n.call('tool_value', node='c')}; if that value is at least "
        f"{HIGH_VALUE}, add it to total and put c in the next level. Then the next level becomes the current level.",
        *limit,
        f"After {levels} levels, stop: the nodes of the last level are not expanded.",
    )
    return Outcome(total, steps, ("Never expand a node twice and never value a visited node again.",),
                   "the final value of total")


def forall_exists_combined(ctx: Context) -> Outcome:
    """Per item r = tool_b(i=n, j); replace r by tool_c(x=r) when r mod 3 = 0; aggregate with tool_d.

    >>> from policyc.bench.production import run_template
    >>> run_template("forall_exists_combined", 1, 42)[1]
    101
    """
    proc, n, j, m = ctx.proc, ctx.names, ctx.j, QUALIFIER_MODULUS
    numbers = proc.call("tool_a_list", seed=ctx.seed, given=("seed",))
    source, values, feeding = proc.last, [], []
    for item in numbers:
        r = proc.call("tool_b", i=item, j=j, given=("j",), after=(source,))
        if r % m == 0:
            values.append(proc.call("tool_c", x=r, after=(proc.last,)))
            proc.keep(proc.last, ("x",))
        else:
            values.append(r)
            proc.drop(("tool_c", {"x": r}), proc.last)
        feeding.append(proc.last)
    answer = proc.call("tool_d", numbers=values, after=tuple(feeding))
    steps = numbered(
        f"Call {n.call('tool_a_list', seed=ctx.seed)} to get a list of numbers.",
        f"For each number n of the list, in order, call {n.call('tool_b', i='n', j=j)} and let r be its result.",
        f"If r mod {m} = 0, call {n.call('tool_c', x='r')} and keep its result; otherwise keep r itself.",
        f"Call {n.call('tool_d', numbers='[the kept values, in order]')} and stop.",
    )
    return Outcome(answer, steps, (f"Call {n.tool('tool_c')} only for results divisible by {m}.",),
                   f"the result of {n.tool('tool_d')}")


def nested_loops_branching(ctx: Context) -> Outcome:
    """nested_loops whose every tool_b result r is routed: r >= 20 to tool_c, else tool_d([r]).

    >>> from policyc.bench.production import run_template
    >>> [c.name for c in run_template("nested_loops+branching", 1, 42)[0]][:5]
    ['tool_a', 'tool_b', 'tool_d', 'tool_b', 'tool_d']
    """
    proc, n, outer, t = ctx.proc, ctx.names, ctx.level, INNER_THRESHOLD
    total = 0
    for i in range(1, outer + 1):
        v = proc.call("tool_a", i=i, given=("i",))
        bound = proc.last
        for j in range(1, v + 1):
            r = proc.call("tool_b", i=i, j=j, given=("i", "j"), after=(bound,))
            inner = proc.last
            if r >= t:
                total += proc.call("tool_c", x=r, after=(inner,))
                proc.route(proc.last, ("x",), ("tool_d", {"numbers": [r]}))
            else:
                total += proc.call("tool_d", numbers=[r], after=(inner,))
                proc.route(proc.last, ("numbers",), ("tool_c", {"x": r}))
        proc.stop(inner, ("i", "j"), ("tool_b", {"i": i, "j": v + 1}))
        last_a = bound
    proc.stop(last_a, ("i",), ("tool_a", {"i": outer + 1}))
    steps = numbered(
        "Set total = 0.",
        f"For i = 1, 2, ..., {outer} in order: call {n.call('tool_a', i='i')} and let v be its result.",
        f"For j = 1, 2, ..., v in order: call {n.call('tool_b', i='i', j='j')} and let r be its result. If r is "
        f"at least {t}, call {n.call('tool_c', x='r')}; otherwise call {n.call('tool_d', numbers='[r]')}. "
        "Add that call's result to total.",
        f"After the inner loop of i = {outer}, stop.",
    )
    return Outcome(total, steps, ("Route every tool_b result before the next tool_b call.".replace(
        "tool_b", n.tool("tool_b")),), "the final value of total")


def fan_out_loop(ctx: Context) -> Outcome:
    """Per item: s = sum of tool_b(i=n, j=k) for k = 1..r; even s -> tool_c(x=s); aggregate with tool_d.

    >>> from policyc.bench.production import run_template
    >>> calls, answer = run_template("fan_out+loop", 1, 42)
    >>> len(calls), answer
    (11, 405)
    """
    proc, n, (_, repeats) = ctx.proc, ctx.names, ctx.level
    numbers = proc.call("tool_a_list", seed=ctx.seed, given=("seed",))
    source, values, feeding = proc.last, [], []
    for item in numbers:
        inner = []
        for k in range(1, repeats + 1):
            proc.call("tool_b", i=item, j=k, given=("j",), after=(source,))
            inner.append(proc.last)
        s = sum(proc.calls[c].result["result"] for c in inner)
        proc.stop(proc.last, ("i", "j"), ("tool_b", {"i": item, "j": repeats + 1}))
        if s % 2 == 0:
            values.append(proc.call("tool_c", x=s, after=tuple(inner)))
            proc.keep(proc.last, ("x",))
            feeding.append(proc.last)
        else:
            values.append(s)
            proc.drop(("tool_c", {"x": s}), proc.last)
            feeding.extend(inner)
    answer = proc.call("tool_d", numbers=values, after=tuple(feeding))
    steps = numbered(
        f"Call {n.call('tool_a_list', seed=ctx.seed)} to get a list of numbers.",
        f"For each number n of the list, in order: call {n.call('tool_b', i='n', j='k')} for k = 1, ..., {repeats} "
        "and let s be the sum of those results.",
        f"If s is even, call {n.call('tool_c', x='s')} and keep its result; if s is odd, keep s itself.",
        f"Call {n.call('tool_d', numbers='[the kept values, in order]')} and stop.",
    )
    return Outcome(answer, steps, (f"Make exactly {repeats} {n.tool('tool_b')} calls per number.",),
                   f"the result of {n.tool('tool_d')}")


def loop_expansion(ctx: Context) -> Outcome:
    """While total < target: v = tool_a(i); add v and the tool_value of each tool_expand(v) child.

    >>> from policyc.bench.production import run_template
    >>> [(c.name, c.args) for c in run_template("loop+expansion", 1, 42)[0]]
    [('tool_a', {'i': 1}), ('tool_expand', {'node': 2}), ('tool_value', {'node': 15})]
    """
    proc, n, target = ctx.proc, ctx.names, ctx.level
    total, i = 0, 1
    previous: tuple[int, ...] = ()
    while True:
        v = proc.call("tool_a", i=i, given=("i",), after=previous)
        step = proc.last
        total += v
        children = proc.call("tool_expand", node=v, after=(step,))
        expansion = proc.last
        for child in children:
            total += proc.call("tool_value", node=child, after=(expansion,))
        previous = (proc.last,)
        if total >= target:
            break
        i += 1
    proc.stop(step, ("i",), ("tool_a", {"i": i + 1}))
    steps = numbered(
        "Set total = 0 and i = 1.",
        f"Call {n.call('tool_a', i='i')}, let v be its result and add v to total.",
        f"Call {n.call('tool_expand', node='v')}; for each child c it returns, in order, call "
        f"{n.call('tool_value', node='c')} and add the value to total.",
        f"If total >= {target}, stop. Otherwise increase i by 1 and go back to step 2.",
    )
    return Outcome(total, steps, ("Finish the children of one expansion before the next tool_a call.".replace(
        "tool_a", n.tool("tool_a")),), "the final value of total")
