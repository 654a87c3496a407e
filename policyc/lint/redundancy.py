"""Vacuous rules (L0004) and redundant rules (L0003).

Vacuous: the rule holds on every trace (its negation is unsatisfiable), or its trigger can
never occur in a compliant trace: for an implication `trigger -> consequence` inside the
rule, replacing the consequence by `false` changes nothing on compliant traces (the
vacuity of Beer et al., over the policy). The evidence names the rules that forbid the
trigger (a minimal core).

Redundant: the other rules imply it (they and its negation are unsatisfiable together);
the evidence is a minimal implying set. Rules are tried last-written first, and a rule
found redundant is dropped before the next is tried, so of two equivalent rules only the
later one is reported.

>>> from policyc.check import check_text
>>> from policyc.lint.context import LintContext, LintOptions
>>> src = 'policy p\\ntool a()\\ntool b()\\nrule r1: never(a)\\nrule r2: count(a) <= 1\\n'
>>> ctx = LintContext(check_text(src, "p.altl")[0], LintOptions(bound=4))
>>> ctx.policy_satisfiable = True
>>> [(f.rules) for f in check_redundant_rules(ctx)]
[('r2', 'r1')]
"""

from __future__ import annotations

from policyc.ir import build as b
from policyc.lint.context import LintContext
from policyc.lint.findings import Finding, quoted, rule_text
from policyc.lint.rewrite import implications, replace
from policyc.smt import approximations


def check_vacuous_rules(ctx: LintContext) -> list[Finding]:
    findings = []
    ctx.valid = getattr(ctx, "valid", set())
    for rule in ctx.active_rules:
        name = ctx.formula_literal(f"not:{rule.name}", rule.formula, expected=False)
        result = ctx.solver.check([name], witness=False)
        if result.is_unsat:
            confirmed = ctx.confirm_unsat([name], exact_first=True)
            if confirmed.is_sat:
                continue
            result = confirmed if confirmed.is_unsat else result
            strength = ctx.strengthen([name], result.strength)
            ctx.valid.add(rule.name)
            findings.append(Finding(
                "L0004", f"rule `{rule.name}` holds on every trace", (rule.name,), strength,
                help="a rule that cannot fail tests nothing; state what the procedure requires",
                evidence=(f"`{rule_text(rule)}` is true whatever the agent does",)))
    if not ctx.policy_satisfiable:
        return findings
    everything = ctx.active_literals()
    for rule in ctx.active_rules:
        if rule.name in ctx.valid:
            continue
        for node, trigger, consequence in implications(rule.formula):
            never = replace(rule.formula, {node: b.neg(trigger)})
            if never is rule.formula:
                continue
            if ctx.shown_by_witness(b.neg(never)) is not None:
                ctx.note_use("vacuous-rule", "compliant witnesses (no solver call)")
                continue
            probe = ctx.formula_literal(f"trigger:{rule.name}:{never.skey}", never, expected=False)
            result = ctx.solver.check([*everything, probe], witness=ctx.wants_witness)
            ctx.note_use("vacuous-rule", "incremental solving")
            if result.is_sat:
                ctx.remember_compliant(result.witness)
                continue
            if not result.is_unsat:
                continue
            core = [x for x in ctx.solver.minimal_core(everything, fixed=[probe])]
            ctx.note_use("vacuous-rule", "unsat cores")
            confirmed = ctx.confirm_unsat([*core, probe], exact_first=True)
            if confirmed.is_sat:
                continue
            result = confirmed if confirmed.is_unsat else result
            strength = ctx.strengthen([*core, probe], result.strength)
            blockers = tuple(x.removeprefix("rule:") for x in core)
            others = tuple(r for r in blockers if r != rule.name)
            evidence = [f"no compliant trace has `{quoted(trigger)}`" + (
                f": it is excluded by {', '.join(f'`{r}`' for r in others)}" if others else "")]
            evidence += [f"{a}; the trigger is impossible even so" for a in approximations([rule.formula])]
            ctx.vacuous.add(rule.name)
            findings.append(Finding(
                "L0004", f"rule `{rule.name}` is vacuous: `{quoted(trigger)}` never happens in a compliant trace",
                (rule.name, *others), strength,
                help=f"the rule's condition `{quoted(consequence)}` is never tested; remove the rule or "
                     f"the rule that forbids its trigger",
                evidence=tuple(evidence),
                labels=tuple((r, "forbids the trigger") for r in others)))
            break
    return findings


def check_redundant_rules(ctx: LintContext) -> list[Finding]:
    if not ctx.policy_satisfiable:
        return []
    findings = []
    valid = getattr(ctx, "valid", set())
    dropped: set[str] = set()
    for rule in reversed(ctx.active_rules):
        if rule.name in valid or rule.name in ctx.vacuous:
            continue
        others = ctx.active_literals(exclude=dropped | {rule.name} | valid)
        if not others:
            continue
        negation = ctx.formula_literal(f"not:{rule.name}", rule.formula, expected=False)
        result = ctx.solver.check([*others, negation], witness=False)
        ctx.note_use("redundant-rule", "incremental solving")
        if not result.is_unsat:
            continue
        core = ctx.solver.minimal_core(others, fixed=[negation])
        ctx.note_use("redundant-rule", "unsat cores")
        confirmed = ctx.confirm_unsat([*core, negation], exact_first=True)
        if confirmed.is_sat:
            continue
        result = confirmed if confirmed.is_unsat else result
        strength = ctx.strengthen([*core, negation], result.strength)
        implying = tuple(x.removeprefix("rule:") for x in core)
        dropped.add(rule.name)
        names = ", ".join(f"`{r}`" for r in implying)
        findings.append(Finding(
            "L0003", f"rule `{rule.name}` is implied by {names}", (rule.name, *implying), strength,
            help="a trace that breaks it breaks those rules too; remove it, or keep it only for its own weight "
                 "and message",
            evidence=tuple(f"{a}; the implication holds even so" for a in approximations(
                [ctx.policy.rule(r).formula for r in (rule.name, *implying)])),
            labels=tuple((r, "implies it") for r in implying)))
    return findings
