"""Dead tools (L0005) and call budgets (L0007).

A tool is dead when no compliant trace calls it: the policy and "the tool is called" are
unsatisfiable together; the evidence is a minimal set of rules that forbid it. A budget
finding says the shortest compliant trace is longer than the policy's `budget N`; that
question is itself bounded, so its answer is exact: the solver looks at every trace of at
most N calls. The shortest compliant trace is shown when one is found within twice the
budget.

>>> from policyc.check import check_text
>>> from policyc.lint.context import LintContext, LintOptions
>>> src = 'policy p\\ntool a()\\ntool b()\\nrule r: never(b)\\n'
>>> ctx = LintContext(check_text(src, "p.altl")[0], LintOptions(bound=4))
>>> ctx.policy_satisfiable = True
>>> [f.tools for f in check_dead_tools(ctx)]
[('b',)]
"""

from __future__ import annotations

from policyc.ir import build as b
from policyc.lint.context import LintContext
from policyc.lint.findings import Finding
from policyc.smt import EXACT, PolicySolver


def check_dead_tools(ctx: LintContext) -> list[Finding]:
    if not ctx.policy_satisfiable:
        return []
    findings = []
    everything = ctx.active_literals()
    for tool in sorted(ctx.policy.tools):
        called = b.eventually(b.event(tool))
        if ctx.shown_by_witness(called) is not None:
            ctx.note_use("dead-tool", "compliant witnesses (no solver call)")
            continue
        probe = ctx.formula_literal(f"calls:{tool}", called)
        result = ctx.solver.check([*everything, probe], witness=ctx.wants_witness)
        ctx.note_use("dead-tool", "incremental solving")
        if result.is_sat:
            ctx.remember_compliant(result.witness)
            continue
        if not result.is_unsat:
            continue
        core = ctx.solver.minimal_core(everything, fixed=[probe])
        ctx.note_use("dead-tool", "unsat cores")
        confirmed = ctx.confirm_unsat([*core, probe], exact_first=True)
        if confirmed.is_sat:
            continue
        result = confirmed if confirmed.is_unsat else result
        strength = ctx.strengthen([*core, probe], result.strength)
        rules = tuple(x.removeprefix("rule:") for x in core)
        why = f"forbidden by {', '.join(f'`{r}`' for r in rules)}" if rules else "it can never be called"
        findings.append(Finding(
            "L0005", f"tool `{tool}` can never be called in a compliant trace", rules, strength,
            help="remove the tool from the policy, or relax the rules that forbid it",
            evidence=(why,), tools=(tool,),
            labels=tuple((r, "forbids it") for r in rules[1:])))
    return findings


def check_budget(ctx: LintContext) -> list[Finding]:
    budget = ctx.policy.budget
    if budget is None or not ctx.policy_satisfiable and ctx.policy_satisfiable is not None:
        return []
    rules = ctx.active_rules
    names = [f"rule:{r.name}" for r in rules]
    solver = _solver(ctx, budget, "budget")
    within = solver.check([*names, solver.require_length_at_most(budget)])
    ctx.note_use("budget", "incremental solving (length assumptions)")
    if within.is_sat:
        ctx.remember_compliant(within.witness)
        return []
    if not within.is_unsat:
        return []
    cap = max(budget * 2, budget + 4)
    longer = _solver(ctx, cap, "shortest")
    shortest, witness = _shortest(longer, names, budget + 1, cap)
    witnesses = (("the shortest compliant trace", witness),) if witness is not None else ()
    found = (f"the shortest compliant trace has {shortest} calls" if shortest is not None
             else f"no compliant trace has at most {cap} calls")
    first = rules[0].name if rules else None
    return [Finding(
        "L0007", f"no compliant trace fits the budget of {budget} calls", (first,) if first else (), EXACT,
        help=f"raise `budget` to at least {shortest}" if shortest else "raise `budget` or relax the rules",
        evidence=(found,), witnesses=witnesses)]


def _solver(ctx: LintContext, k: int, name: str) -> PolicySolver:
    solver = ctx.new_solver(k, name)
    for r in ctx.active_rules:
        solver.require(f"rule:{r.name}", r.formula)
    return solver


def _shortest(solver: PolicySolver, names: list[str], low: int, high: int):
    """The least m in [low, high] with a compliant trace of at most m calls (binary search)."""
    best = None
    while low <= high:
        mid = (low + high) // 2
        result = solver.check([*names, solver.require_length_at_most(mid)])
        if result.is_sat:
            best = (len(result.witness), result.witness)
            high = len(result.witness) - 1
        else:
            low = mid + 1
    return best if best is not None else (None, None)
