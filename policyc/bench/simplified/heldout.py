"""The two held-out simplified patterns (appendix D.1): loop_termination and branch_selection
restricted to 3-6 calls, over tool_a, tool_b and tool_c. They are never in the training set.

loop_termination's target is 13 + (seed mod 26), in 13..38 (simplified targets stay at or
below 50, table 11); from i = 1 the loop then stops after 3 to 6 calls. branch_selection makes
2 + (seed mod 2) decisions (4 or 6 calls).
"""

from __future__ import annotations

from policyc.bench.procedure import Context, Outcome
from policyc.bench.production.sequential import BRANCH_THRESHOLD


def loop_termination(ctx: Context) -> Outcome:
    """Add tool_a(i) for i = 1, 2, ... (v if even, 2v if odd) until the total reaches the target.

    >>> from policyc.bench.simplified import run_simplified
    >>> calls, answer = run_simplified("loop_termination", 42)
    >>> len(calls), answer
    (5, 32)
    """
    proc, n, target = ctx.proc, ctx.names, 13 + ctx.seed % 26
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
    return Outcome(total, (f"Start with total = 0 and call {n.call('tool_a', i=1)}, then "
                           f"{n.call('tool_a', i=2)}, and so on.",
                           "Add each even result to total, and twice each odd result.",
                           f"Stop as soon as total is at least {target}."), answer_is="the total")


def branch_selection(ctx: Context) -> Outcome:
    """For k = 0..K-1: v = tool_a(i=j+k), routed to tool_c(x=v) if v > 4, else tool_b(i=v, j).

    >>> from policyc.bench.simplified import run_simplified
    >>> run_simplified("branch_selection", 42)[1]
    37
    """
    proc, n, j, decisions = ctx.proc, ctx.names, ctx.j, 2 + ctx.seed % 2
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
    proc.stop(source, ("i",), ("tool_a", {"i": j + decisions}))
    calls = ", ".join(n.call("tool_a", i=j + k) for k in range(decisions))
    return Outcome(total, (f"Call {calls}, in this order.",
                           f"After each one, if its result v is greater than {BRANCH_THRESHOLD} call "
                           f"{n.call('tool_c', x='v')}, otherwise {n.call('tool_b', i='v', j=j)}.",
                           "Add up the results of those routing calls."), answer_is="the sum")
