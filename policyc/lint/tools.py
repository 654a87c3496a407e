"""Dead tools (L0005) and call budgets (L0007).

A tool is dead when no compliant trace calls it: the policy and "the tool is called" have no
common trace; the evidence is a minimal set of rules that forbid it. A budget finding says
the shortest compliant trace is longer than the policy's `budget N`; that question is itself
about traces of at most N calls, so its answer is exact (the solver, when the automata do
not answer, looks at every trace of at most N calls). The shortest compliant trace is shown:
the automata find it exactly; otherwise the solver searches up to twice the budget.

>>> from policyc.check import check_text
>>> from policyc.lint import LintOptions, lint_policy
>>> src = 'policy p\\ntool a()\\ntool b()\\nrule r: never(b)\\n'
>>> [f.tools for f in lint_policy(check_text(src, "p.altl")[0], LintOptions(bound=4)).findings]
[('b',)]
"""

from __future__ import annotations

from policyc.ir import build as b
from policyc.ir import nodes as n
from policyc.lint.claims import Claim
from policyc.lint.context import LintContext
from policyc.lint.findings import Finding, undecided
from policyc.lint.questions import Asker
from policyc.lint.units import Phase, UnitResult
from policyc.smt import EXACT


def dead_tool_items(ctx: LintContext) -> list[str]:
    return sorted(ctx.policy.tools) if ctx.policy_satisfiable else []


def check_dead_tool(ctx: LintContext, asker: Asker, tool: str) -> UnitResult:
    everything = ctx.active_claims()
    probe = ctx.calls_claim(tool)
    answer = asker.ask([*everything, probe], focus=[probe])
    out = UnitResult()
    if answer.is_sat:
        assert answer.witness is not None  # a satisfiable answer comes with its trace
        out.witnesses.append(answer.witness)  # a compliant trace that calls the tool: later phases reuse it
        return out
    if answer.is_undecided:
        out.findings.append(undecided(f"whether a compliant trace can call tool `{tool}`", (), answer.reason))
        return out
    core = asker.minimal_core(everything, fixed=[probe], answer=answer)
    rules = tuple(ctx.rule_of(c) for c in core.claims)
    why = f"forbidden by {', '.join(f'`{r}`' for r in rules)}" if rules else "it can never be called"
    out.findings.append(Finding(
        "L0005", f"tool `{tool}` can never be called in a compliant trace", rules, core.strength,
        help="remove the tool from the policy, or relax the rules that forbid it",
        evidence=(why,), tools=(tool,),
        labels=tuple((r, "forbids it") for r in rules[1:])))
    return out


def at_most(m: int) -> n.Formula:
    """"The trace has at most m calls": there is no position m."""
    exists = b.eventually(b.const(True))  # position 0 exists
    for _ in range(m):
        exists = b.next_(exists)
    return b.neg(exists)


def _length_claim(m: int) -> Claim:
    return Claim(f"length<={m}", at_most(m))


def check_budget(ctx: LintContext, asker: Asker, _item=None) -> UnitResult:
    out = UnitResult()
    budget = ctx.policy.budget
    if budget is None or ctx.policy_satisfiable is False:
        return out
    rules = ctx.active_claims()
    within = asker.ask([*rules, _length_claim(budget)], min_bound=budget)
    if within.is_sat:
        return out
    if within.is_undecided:
        out.findings.append(undecided(f"whether a compliant trace fits the budget of {budget} calls",
                                      tuple(ctx.rule_of(c) for c in rules[:1]), within.reason))
        return out
    shortest, witness, cap = _shortest(ctx, asker, rules, budget)
    witnesses = (("the shortest compliant trace", witness),) if witness is not None else ()
    found = (f"the shortest compliant trace has {shortest} calls" if shortest is not None
             else f"no compliant trace has at most {cap} calls")
    first = rules[0] if rules else None
    # every trace of at most `budget` calls was looked at: exact, unless Z3 bounded its lists too
    strength = within.strength if within.strength is not None and within.strength.list_bound is not None else EXACT
    out.findings.append(Finding(
        "L0007", f"no compliant trace fits the budget of {budget} calls", (ctx.rule_of(first),) if first else (),
        strength, help=f"raise `budget` to at least {shortest}" if shortest else "raise `budget` or relax the rules",
        evidence=(found,), witnesses=witnesses))
    return out


def _shortest(ctx: LintContext, asker: Asker, rules: list[Claim], budget: int):
    """(length, witness, the longest length looked at) of a shortest compliant trace: exact from
    the automata when they compile every rule, else the least length the questions find."""
    cap = max(budget * 2, budget + 4)
    w = asker.shortest_run(rules)
    if w is not None:
        return len(w), w, len(w)
    best = None
    low, high = budget + 1, cap
    while low <= high:
        mid = (low + high) // 2
        found = asker.ask([*rules, _length_claim(mid)], min_bound=mid)
        if found.is_sat and found.witness is not None:
            best = (len(found.witness), found.witness)
            high = len(found.witness) - 1
        else:
            low = mid + 1
    return (*best, cap) if best is not None else (None, None, cap)


DEAD_TOOLS = Phase("dead-tool", "tools", dead_tool_items, check_dead_tool,
                   question=lambda ctx, tool: (f"whether a compliant trace can call tool `{tool}`", ()))
BUDGET = Phase("budget", "the budget", lambda ctx: [None], check_budget,
               question=lambda ctx, _: (f"whether a compliant trace fits the budget of {ctx.policy.budget} calls",
                                        tuple(r.name for r in ctx.active_rules[:1])))
