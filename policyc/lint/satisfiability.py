"""Unsatisfiable rules (L0001) and conflicts between rules (L0002).

A rule is unsatisfiable when no trace satisfies it alone; the evidence is a minimal set of
its parts (top-level conjuncts, then the conditions of its event patterns) that already
contradict each other. A conflict is a set of satisfiable rules with no common compliant
trace; each reported set is minimal (every proper subset has a compliant trace, shown by a
witness), and when a policy has several disjoint such sets, each is reported.

>>> from policyc.check import check_text
>>> from policyc.lint.context import LintContext, LintOptions
>>> src = 'policy p\\ntool a()\\nrule must: called(a)\\nrule never_a: never(a)\\n'
>>> ctx = LintContext(check_text(src, "p.altl")[0], LintOptions(bound=4))
>>> [f.rules for f in check_conflicts(ctx)]
[('must', 'never_a')]
"""

from __future__ import annotations

from policyc.ir import build as b
from policyc.ir import nodes as n
from policyc.ir.walk import free_vars
from policyc.lint.context import LintContext
from policyc.lint.findings import Finding, quoted, rule_text
from policyc.smt import approximations


def check_rules_satisfiable(ctx: LintContext) -> list[Finding]:
    findings = []
    for rule in ctx.policy.rules:
        result = ctx.solver.check([ctx.rule_literal(rule)], witness=False)
        ctx.note_use("unsatisfiable-rule", "incremental solving")
        if not result.is_unsat:
            continue
        if _satisfiable_beyond_bound(ctx, rule):
            continue
        confirmed = ctx.confirm_unsat([ctx.rule_name(rule.name)], exact_first=True)
        if confirmed.is_sat:
            continue
        result = confirmed if confirmed.is_unsat else result
        strength = ctx.strengthen([ctx.rule_name(rule.name)], result.strength)
        ctx.unsatisfiable.add(rule.name)
        evidence = list(_conflicting_parts(ctx, rule))
        evidence.extend(f"{a}; the rule is unsatisfiable even so" for a in approximations([rule.formula]))
        findings.append(Finding(
            "L0001", f"rule `{rule.name}` can never be satisfied", (rule.name,), strength,
            help="every trace violates this rule, so every run fails it; remove the contradictory parts",
            evidence=tuple(evidence)))
    return findings


def _satisfiable_beyond_bound(ctx: LintContext, rule) -> bool:
    """A rule with no trace within the bound may just need more calls (`in_order` of 16
    tools needs 16): its own automaton gives the length of its shortest satisfying trace,
    exactly. Without terminal tools that settles it; with them, the solver re-checks at
    that length."""
    if not ctx.options.use_automata:
        return False
    length = ctx.automata.shortest_satisfying_length(rule.formula)
    if length is None:
        return False
    ctx.note_use("unsatisfiable-rule", "automata: shortest satisfying trace of the rule alone")
    if not ctx.policy.terminal_tools:
        return True
    if length <= ctx.options.bound:
        return False
    return ctx.confirm_unsat([ctx.rule_name(rule.name)], length + 2).is_sat


def check_conflicts(ctx: LintContext) -> list[Finding]:
    findings = []
    remaining = ctx.active_literals()
    first = True
    if remaining and ctx.solver.check(remaining, witness=False).is_unsat:
        _fit_bound(ctx, remaining)
        remaining = ctx.active_literals()
        if ctx.solver.check(remaining, witness=False).is_unsat and ctx.decide(remaining) is True:
            # compliant runs exist, only longer than any bound tried (`called_n(a) >= 100`)
            ctx.policy_satisfiable = True
            ctx.note_use("conflict", "automata: the whole policy is satisfiable beyond the bound")
            return findings
    while remaining:
        result = ctx.solver.check(remaining)
        if result.is_sat:
            if first:
                ctx.policy_satisfiable = True
                ctx.remember_compliant(result.witness)
            break
        if not result.is_unsat:
            break
        if first:
            ctx.policy_satisfiable = False
        first = False
        core = ctx.solver.minimal_core(remaining)
        ctx.note_use("conflict", "unsat cores (deletion-based minimal core)")
        if not core:
            break
        confirmed = ctx.confirm_unsat(core, exact_first=True)
        if not confirmed.is_sat:
            strength = ctx.strengthen(core, confirmed.strength if confirmed.is_unsat else result.strength)
            findings.append(_conflict_finding(ctx, core, strength))
        remaining = [x for x in remaining if x not in core]
    return findings


def _fit_bound(ctx: LintContext, names: list[str], cap: int = 32) -> None:
    """The policy has no compliant trace within the bound: is it the bound? Double it (up to
    `cap`) on the whole policy, and if a compliant trace appears, lint on with a bound that
    fits it (its length plus two), so that no finding is an artifact of a short bound."""
    k = ctx.options.bound
    while k < cap:
        k = min(cap, k * 2)
        longer = ctx.confirm_unsat(names, k)
        if longer.is_sat:
            ctx.grow_bound(len(longer.witness) + 2)
            ctx.note_use("conflict", "bound grown to fit the shortest compliant trace")
            return
        if not longer.is_unsat:
            return


def _conflict_finding(ctx: LintContext, core: list[str], strength) -> Finding:
    rules = tuple(x.removeprefix("rule:") for x in core)
    witnesses = []
    for name in core:
        rest = [x for x in core if x != name]
        sub = ctx.solver.check(rest)
        if sub.is_sat and rest:
            witness = _shortest_witness(ctx, rest, sub.witness)
            witnesses.append((f"without `{name.removeprefix('rule:')}` the others allow", witness))
    names = ", ".join(f"`{r}`" for r in rules)
    formulas = [ctx.policy.rule(r).formula for r in rules]
    evidence = tuple(f"`{r}`: {rule_text(ctx.policy.rule(r))}" for r in rules)
    evidence += tuple(f"{a}; the rules conflict even so" for a in approximations(formulas))
    return Finding(
        "L0002", f"rules {names} cannot all hold on one trace", rules, strength,
        help="no run can comply with all of these rules; drop or weaken one of them",
        evidence=evidence, witnesses=tuple(witnesses[:1]) if len(witnesses) > 1 else tuple(witnesses),
        labels=tuple((r, f"conflicts with `{rules[0]}`") for r in rules[1:]))


def _shortest_witness(ctx: LintContext, names: list[str], witness):
    """A shortest trace satisfying `names`, searched upward with length assumptions."""
    for m in range(len(witness)):
        shorter = ctx.solver.check([*names, ctx.solver.require_length_at_most(m)])
        if shorter.is_sat and shorter.witness.confirmed:
            return shorter.witness
    return witness


# ------------------------------------------------------------------ why a rule is unsatisfiable


def split_parts(phi: n.Formula) -> list[n.Formula]:
    """Top-level conjuncts, distributing `G` and `forall` over `and`.

    >>> from policyc.ir import build as b
    >>> from policyc.ir.printer import show
    >>> [show(p) for p in split_parts(b.always(b.conj(b.event("a"), b.event("a", b.op("gt", b.arg("x"), b.lit(1))))))]
    ['G a', 'G a(x > 1)']
    """
    if isinstance(phi, n.And):
        return [p for a in phi.args for p in split_parts(a)]
    if b.is_always(phi) and isinstance(phi.right, n.And):
        return [b.always(p) for p in split_parts(phi.right)]
    if isinstance(phi, n.Forall) and isinstance(phi.body, n.And):
        return [b.forall(phi.var, phi.type, phi.domain, p) for p in split_parts(phi.body)]
    return [phi]


def _conflicting_parts(ctx: LintContext, rule) -> list[str]:
    parts = split_parts(rule.formula)
    if len(parts) > 1:
        names = [ctx.formula_literal(f"part:{rule.name}:{i}", p) for i, p in enumerate(parts)]
        core = ctx.solver.minimal_core(names)
        if len(core) > 1:
            chosen = [parts[names.index(c)] for c in core]
            return ["conflicting parts: " + " and ".join(f"`{quoted(p)}`" for p in chosen)]
        if len(core) == 1:
            parts = [parts[names.index(core[0])]]
    conditions = _conflicting_conditions(ctx, rule.name, parts[0])
    if conditions:
        return [f"conflicting conditions in `{quoted(ev)}`: " + " and ".join(f"`{quoted(c)}`" for c in conds)
                for ev, conds in conditions]
    return [f"unsatisfiable: `{quoted(parts[0])}`"]


def _conflicting_conditions(ctx: LintContext, rule: str, phi: n.Formula):
    """Event patterns whose conditions contradict each other: a minimal subset per pattern."""
    out = []
    seen = 0
    for sub in _events(phi):
        guard = sub.guard
        conds = list(guard.args) if isinstance(guard, n.Op) and guard.op == "and" else [guard]
        if len(conds) < 2 or free_vars(sub):
            continue
        seen += 1
        probe = f"guard:{rule}:{seen}"
        if not ctx.solver.check([ctx.formula_literal(probe, b.eventually(sub))]).is_unsat:
            continue
        keep = list(conds)
        i = 0
        while i < len(keep):
            trial = keep[:i] + keep[i + 1:]
            event = b.event(sub.tool, b.op("and", *trial) if len(trial) > 1 else trial[0])
            name = ctx.formula_literal(f"{probe}:{len(trial)}:{event.skey}", b.eventually(event))
            if trial and ctx.solver.check([name]).is_unsat:
                keep = trial
            else:
                i += 1
        out.append((sub, keep))
    return out


def _events(phi: n.Formula):
    from policyc.ir.walk import subformulas

    return [s for s in subformulas(phi) if isinstance(s, n.Event) and not isinstance(s.guard, n.Lit)]
