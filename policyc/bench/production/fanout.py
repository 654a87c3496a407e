"""Fan-out templates (table 8): fan_out_fan_in, forall_processing, exists_selection.

Each starts from tool_a_list(seed), whose list has num_items = d + 2 numbers (table 9).
fan_out_fan_in at D1, seed 42 is the run of appendix B: the list [8, 2, 46], three
tool_b(i=n, j=0) calls returning 11 and tool_d([11, 11, 11]) -> 33. At D1, seed 2 it is the
instance of figure 2, whose synthesized constraints weigh W_total = 46.5.
"""

from __future__ import annotations

from policyc.bench.procedure import Context, Outcome, numbered

#: exists_selection and forall_exists_combined send a tool_b result r to tool_c when r mod 3 = 0.
QUALIFIER_MODULUS = 3


def fan_out_fan_in(ctx: Context) -> Outcome:
    """Per list item: tool_b(i=n, j=0) if n is even, tool_c(x=n) if odd; aggregate with tool_d.

    >>> from policyc.bench.production import run_template
    >>> calls, answer = run_template("fan_out_fan_in", 1, 42)
    >>> [c.name for c in calls], answer
    (['tool_a_list', 'tool_b', 'tool_b', 'tool_b', 'tool_d'], 33)
    """
    proc, n = ctx.proc, ctx.names
    numbers = proc.call("tool_a_list", seed=ctx.seed, given=("seed",))
    source, results, branches = proc.last, [], []
    for item in numbers:
        if item % 2 == 0:
            results.append(proc.call("tool_b", i=item, j=0, given=("j",), after=(source,)))
            proc.route(proc.last, ("i",), ("tool_c", {"x": item}))
        else:
            results.append(proc.call("tool_c", x=item, after=(source,)))
            proc.route(proc.last, ("x",), ("tool_b", {"i": item, "j": 0}))
        branches.append(proc.last)
    answer = proc.call("tool_d", numbers=results, after=tuple(branches))
    steps = numbered(
        f"Call {n.call('tool_a_list', seed=ctx.seed)} to get a list of numbers.",
        f"For each number n of the list, in order: if n is even, call {n.call('tool_b', i='n', j=0)}; "
        f"if n is odd, call {n.call('tool_c', x='n')}. Keep every result, in order.",
        f"Call {n.call('tool_d', numbers='[the results of step 2, in order]')} and stop.",
    )
    return Outcome(answer, steps, ("Process every number of the list exactly once.",),
                   f"the result of {n.tool('tool_d')}")


def forall_processing(ctx: Context) -> Outcome:
    """Apply tool_b(i=n, j) to every list item (j = seed mod 10 + 1); aggregate with tool_d.

    >>> from policyc.bench.production import run_template
    >>> calls, answer = run_template("forall_processing", 1, 42)
    >>> [c.args for c in calls[1:4]], answer
    ([{'i': 8, 'j': 3}, {'i': 2, 'j': 3}, {'i': 46, 'j': 3}], 101)
    """
    proc, n, j = ctx.proc, ctx.names, ctx.j
    numbers = proc.call("tool_a_list", seed=ctx.seed, given=("seed",))
    source, results, mapped = proc.last, [], []
    for item in numbers:
        results.append(proc.call("tool_b", i=item, j=j, given=("j",), after=(source,)))
        mapped.append(proc.last)
    answer = proc.call("tool_d", numbers=results, after=tuple(mapped))
    steps = numbered(
        f"Call {n.call('tool_a_list', seed=ctx.seed)} to get a list of numbers.",
        f"For each number n of the list, in order, call {n.call('tool_b', i='n', j=j)}. Keep every result, in order.",
        f"Call {n.call('tool_d', numbers='[the results of step 2, in order]')} and stop.",
    )
    return Outcome(answer, steps, ("Process every number of the list exactly once.",),
                   f"the result of {n.tool('tool_d')}")


def exists_selection(ctx: Context) -> Outcome:
    """Per item r = tool_b(i=n, j); if r mod 3 = 0 add tool_c(x=r), else add r itself.

    >>> from policyc.bench.production import run_template
    >>> calls, answer = run_template("exists_selection", 1, 42)
    >>> [c.name for c in calls], answer
    (['tool_a_list', 'tool_b', 'tool_b', 'tool_b'], 101)
    """
    proc, n, j, m = ctx.proc, ctx.names, ctx.j, QUALIFIER_MODULUS
    numbers = proc.call("tool_a_list", seed=ctx.seed, given=("seed",))
    source, total = proc.last, 0
    for item in numbers:
        r = proc.call("tool_b", i=item, j=j, given=("j",), after=(source,))
        if r % m == 0:
            total += proc.call("tool_c", x=r, after=(proc.last,))
            proc.keep(proc.last, ("x",))
        else:
            total += r
            proc.drop(("tool_c", {"x": r}), proc.last)
    steps = numbered(
        f"Call {n.call('tool_a_list', seed=ctx.seed)} to get a list of numbers. Set total = 0.",
        f"For each number n of the list, in order, call {n.call('tool_b', i='n', j=j)} and let r be its result.",
        f"If r mod {m} = 0, call {n.call('tool_c', x='r')} and add its result to total; "
        f"otherwise add r itself to total without calling any tool.",
        "When every number has been processed, stop.",
    )
    return Outcome(total, steps, (f"Call {n.tool('tool_c')} only for results divisible by {m}.",),
                   "the final value of total")
