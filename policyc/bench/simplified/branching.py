"""The eight branching templates of simplified mode (table 12), over tool_a, tool_b, tool_c.

Each starts from v = tool_a(i=seed). A routing step "branch(c | b)" sends a value x to
tool_c(x=x) or to tool_b(i=x, j=...) by a parity or size test; the prompt states the test.
j = (seed mod 10) + 1 unless a step fixes it.
"""

from __future__ import annotations

from policyc.bench.procedure import Context, Outcome


def branch(ctx: Context, value: int, *, to_c_when_even: bool, j: int, after: int) -> int:
    """Route `value`: to tool_c(x=value) when its parity says so, else to tool_b(i=value, j=j).

    >>> from policyc.bench.procedure import Context, Procedure, ToolNames
    >>> from policyc.bench.tools import ToolBox
    >>> ctx = Context(Procedure(ToolBox(1, 1)), ToolNames(), 1, 1)
    >>> branch(ctx, 4, to_c_when_even=True, j=2, after=0), [str(d.forbidden) for d in ctx.proc.decisions]
    (13, ['tool_b(i: 4, j: 2)'])
    """
    proc = ctx.proc
    if (value % 2 == 0) == to_c_when_even:
        result = proc.call("tool_c", x=value, after=(after,))
        proc.route(proc.last, ("x",), ("tool_b", {"i": value, "j": j}))
    else:
        result = proc.call("tool_b", i=value, j=j, given=("j",), after=(after,))
        proc.route(proc.last, ("i",), ("tool_c", {"x": value}))
    return result


def say_branch(ctx: Context, what: str, *, to_c_when_even: bool, j: int | str) -> str:
    """The sentence that states a routing step.

    >>> from policyc.bench.procedure import Context, Procedure, ToolNames
    >>> from policyc.bench.tools import ToolBox
    >>> say_branch(Context(Procedure(ToolBox(1, 1)), ToolNames(), 1, 1), "v", to_c_when_even=True, j=3)
    'If v is even, call tool_c(x=v); if it is odd, call tool_b(i=v, j=3).'
    """
    n = ctx.names
    c_case, b_case = ("even", "odd") if to_c_when_even else ("odd", "even")
    return (f"If {what} is {c_case}, call {n.call('tool_c', x=what)}; if it is {b_case}, "
            f"call {n.call('tool_b', i=what, j=j)}.")


def three_call_branch_bridge(ctx: Context) -> Outcome:
    """a -> branch(b | c) -> c.

    >>> from policyc.bench.simplified import run_simplified
    >>> [c.name for c in run_simplified("three_call_branch_bridge", 42)[0]]
    ['tool_a', 'tool_b', 'tool_c']
    """
    proc, n, j = ctx.proc, ctx.names, ctx.j
    v = proc.call("tool_a", i=ctx.seed, given=("i",))
    r = branch(ctx, v, to_c_when_even=False, j=j, after=proc.last)
    answer = proc.call("tool_c", x=r, after=(proc.last,))
    return Outcome(answer, (f"Call {n.call('tool_a', i=ctx.seed)} and let v be the result.",
                            say_branch(ctx, "v", to_c_when_even=False, j=j) + " Let r be the result.",
                            f"Then call {n.call('tool_c', x='r')}."), answer_is="the last result")


def chain_then_branch(ctx: Context) -> Outcome:
    """a -> b -> branch(c | b) -> c.

    >>> from policyc.bench.simplified import run_simplified
    >>> [c.name for c in run_simplified("chain_then_branch", 42)[0]]
    ['tool_a', 'tool_b', 'tool_b', 'tool_c']
    """
    proc, n, j = ctx.proc, ctx.names, ctx.j
    v = proc.call("tool_a", i=ctx.seed, given=("i",))
    r = proc.call("tool_b", i=v, j=j, given=("j",), after=(proc.last,))
    u = branch(ctx, r, to_c_when_even=True, j=j, after=proc.last)
    answer = proc.call("tool_c", x=u, after=(proc.last,))
    return Outcome(answer, (f"Call {n.call('tool_a', i=ctx.seed)} and let v be the result.",
                            f"Call {n.call('tool_b', i='v', j=j)} and let r be the result.",
                            say_branch(ctx, "r", to_c_when_even=True, j=j) + " Let u be the result.",
                            f"Then call {n.call('tool_c', x='u')}."), answer_is="the last result")


def rebranch_after_c(ctx: Context) -> Outcome:
    """a -> c -> branch(b | c) -> b.

    >>> from policyc.bench.simplified import run_simplified
    >>> [c.name for c in run_simplified("rebranch_after_c", 42)[0]]
    ['tool_a', 'tool_c', 'tool_c', 'tool_b']
    """
    proc, n, j = ctx.proc, ctx.names, ctx.j
    v = proc.call("tool_a", i=ctx.seed, given=("i",))
    w = proc.call("tool_c", x=v, after=(proc.last,))
    u = branch(ctx, w, to_c_when_even=False, j=j, after=proc.last)
    answer = proc.call("tool_b", i=u, j=j, given=("j",), after=(proc.last,))
    return Outcome(answer, (f"Call {n.call('tool_a', i=ctx.seed)} and let v be the result.",
                            f"Call {n.call('tool_c', x='v')} and let w be the result.",
                            say_branch(ctx, "w", to_c_when_even=False, j=j) + " Let u be the result.",
                            f"Then call {n.call('tool_b', i='u', j=j)}."), answer_is="the last result")


def join_then_branch(ctx: Context) -> Outcome:
    """a; b and c both from a; join the two with b; a final branch(c | b).

    >>> from policyc.bench.simplified import run_simplified
    >>> [c.name for c in run_simplified("join_then_branch", 42)[0]]
    ['tool_a', 'tool_b', 'tool_c', 'tool_b', 'tool_c']
    """
    proc, n, j = ctx.proc, ctx.names, ctx.j
    v = proc.call("tool_a", i=ctx.seed, given=("i",))
    source = proc.last
    p = proc.call("tool_b", i=v, j=j, given=("j",), after=(source,))
    left = proc.last
    q = proc.call("tool_c", x=v, after=(source,))
    m = proc.call("tool_b", i=p, j=q, after=(left, proc.last))
    answer = branch(ctx, m, to_c_when_even=True, j=j, after=proc.last)
    return Outcome(answer, (f"Call {n.call('tool_a', i=ctx.seed)} and let v be the result.",
                            f"Call {n.call('tool_b', i='v', j=j)} (result p), then {n.call('tool_c', x='v')} (result q).",
                            f"Call {n.call('tool_b', i='p', j='q')} and let m be the result.",
                            say_branch(ctx, "m", to_c_when_even=True, j=j)), answer_is="the last result")


def dual_branch_merge(ctx: Context) -> Outcome:
    """a; a parity branch and a size branch from a; merge the two results with b.

    >>> from policyc.bench.simplified import run_simplified
    >>> [(c.name, c.args) for c in run_simplified("dual_branch_merge", 42)[0]][1:]
    [('tool_b', {'i': 6, 'j': 1}), ('tool_b', {'i': 6, 'j': 2}), ('tool_b', {'i': 17, 'j': 23})]
    """
    proc, n = ctx.proc, ctx.names
    v = proc.call("tool_a", i=ctx.seed, given=("i",))
    source = proc.last
    if v % 2 == 0:
        left = proc.call("tool_b", i=v, j=1, given=("j",), after=(source,))
        proc.route(proc.last, ("i", "j"), ("tool_c", {"x": v}))
    else:
        left = proc.call("tool_c", x=v, after=(source,))
        proc.route(proc.last, ("x",), ("tool_b", {"i": v, "j": 1}))
    first = proc.last
    if v > 3:
        right = proc.call("tool_b", i=v, j=2, given=("j",), after=(source,))
        proc.route(proc.last, ("i", "j"), ("tool_c", {"x": v + 1}))
    else:
        right = proc.call("tool_c", x=v + 1, after=(source,))
        proc.route(proc.last, ("x",), ("tool_b", {"i": v, "j": 2}))
    answer = proc.call("tool_b", i=left, j=right, after=(first, proc.last))
    return Outcome(answer, (f"Call {n.call('tool_a', i=ctx.seed)} and let v be the result.",
                            f"Left: if v is even call {n.call('tool_b', i='v', j=1)}, otherwise "
                            f"{n.call('tool_c', x='v')}; call the result L.",
                            f"Right: if v > 3 call {n.call('tool_b', i='v', j=2)}, otherwise "
                            f"{n.call('tool_c', x='v + 1')}; call the result R.",
                            f"Then call {n.call('tool_b', i='L', j='R')}."), answer_is="the last result")


def loop2_then_branch(ctx: Context) -> Outcome:
    """a -> b(v, 1), b(v, 2) -> aggregate with b -> branch(c | b).

    >>> from policyc.bench.simplified import run_simplified
    >>> run_simplified("loop2_then_branch", 42)[1]
    7
    """
    proc, n, j = ctx.proc, ctx.names, ctx.j
    v = proc.call("tool_a", i=ctx.seed, given=("i",))
    source = proc.last
    r1 = proc.call("tool_b", i=v, j=1, given=("j",), after=(source,))
    first = proc.last
    r2 = proc.call("tool_b", i=v, j=2, given=("j",), after=(source,))
    g = proc.call("tool_b", i=r1, j=r2, after=(first, proc.last))
    answer = branch(ctx, g, to_c_when_even=True, j=j, after=proc.last)
    return Outcome(answer, (f"Call {n.call('tool_a', i=ctx.seed)} and let v be the result.",
                            f"Call {n.call('tool_b', i='v', j=1)} (result r1) and {n.call('tool_b', i='v', j=2)} "
                            "(result r2).",
                            f"Call {n.call('tool_b', i='r1', j='r2')} and let g be the result.",
                            say_branch(ctx, "g", to_c_when_even=True, j=j)), answer_is="the last result")


def branch_verify_finalize(ctx: Context) -> Outcome:
    """a -> branch(c | b) -> verify with b -> branch(c | b).

    >>> from policyc.bench.simplified import run_simplified
    >>> [c.name for c in run_simplified("branch_verify_finalize", 42)[0]]
    ['tool_a', 'tool_b', 'tool_b', 'tool_c']
    """
    proc, n, j = ctx.proc, ctx.names, ctx.j
    v = proc.call("tool_a", i=ctx.seed, given=("i",))
    r = branch(ctx, v, to_c_when_even=False, j=j, after=proc.last)
    u = proc.call("tool_b", i=r, j=1, given=("j",), after=(proc.last,))
    answer = branch(ctx, u, to_c_when_even=True, j=j, after=proc.last)
    return Outcome(answer, (f"Call {n.call('tool_a', i=ctx.seed)} and let v be the result.",
                            say_branch(ctx, "v", to_c_when_even=False, j=j) + " Let r be the result.",
                            f"Verify with {n.call('tool_b', i='r', j=1)} and let u be the result.",
                            say_branch(ctx, "u", to_c_when_even=True, j=j)), answer_is="the last result")


def six_call_double_rebranch(ctx: Context) -> Outcome:
    """a -> b -> branch(c | b) -> b -> branch(c | b) -> c.

    >>> from policyc.bench.simplified import run_simplified
    >>> len(run_simplified("six_call_double_rebranch", 42)[0])
    6
    """
    proc, n, j = ctx.proc, ctx.names, ctx.j
    v = proc.call("tool_a", i=ctx.seed, given=("i",))
    r = proc.call("tool_b", i=v, j=j, given=("j",), after=(proc.last,))
    u = branch(ctx, r, to_c_when_even=True, j=1, after=proc.last)
    w = proc.call("tool_b", i=u, j=2, given=("j",), after=(proc.last,))
    z = branch(ctx, w, to_c_when_even=True, j=1, after=proc.last)
    answer = proc.call("tool_c", x=z, after=(proc.last,))
    return Outcome(answer, (f"Call {n.call('tool_a', i=ctx.seed)} and let v be the result.",
                            f"Call {n.call('tool_b', i='v', j=j)} and let r be the result.",
                            say_branch(ctx, "r", to_c_when_even=True, j=1) + " Let u be the result.",
                            f"Call {n.call('tool_b', i='u', j=2)} and let w be the result.",
                            say_branch(ctx, "w", to_c_when_even=True, j=1) + " Let z be the result.",
                            f"Then call {n.call('tool_c', x='z')}."), answer_is="the last result")
