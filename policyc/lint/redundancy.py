"""Vacuous rules (L0004) and redundant rules (L0003).

Vacuous: the rule holds on every trace (no trace violates it), or the trigger of one of its
implications never happens in a compliant trace: no trace satisfies the policy and has the
trigger at some position (for some value of the quantifiers around it). The finding says
exactly that, and the evidence names the rules that forbid the trigger (a minimal set).

Redundant: the other rules imply it (no trace satisfies them and violates it); the evidence
is a minimal implying set. Rules are tried last-written first, and a rule found redundant
is dropped before the next is tried, so of two equivalent rules only the later one is
reported. The expensive question (the rule against all the others) is asked for every rule
at once, in parallel; only the rules it finds redundant are revisited in order.

>>> from policyc.check import check_text
>>> from policyc.lint import LintOptions, lint_policy
>>> src = 'policy p\\ntool a()\\ntool b()\\nrule r1: never(a)\\nrule r2: count(a) <= 1\\n'
>>> [(f.code, f.rules) for f in lint_policy(check_text(src, "p.altl")[0], LintOptions(bound=4)).findings]
[('L0005', ('r1',)), ('L0003', ('r2', 'r1'))]
"""

from __future__ import annotations

from policyc.lint.claims import Claim, trigger_happens
from policyc.lint.context import LintContext
from policyc.lint.findings import Finding, quoted, rule_text, undecided
from policyc.lint.questions import Asker
from policyc.lint.rewrite import implications
from policyc.lint.units import Phase, UnitResult
from policyc.smt import approximations


# ------------------------------------------------------------------ L0004: true on every trace


def check_valid(ctx: LintContext, asker: Asker, name: str) -> UnitResult:
    rule = ctx.policy.rule(name)
    answer = asker.ask([ctx.negated_claim(rule)])
    out = UnitResult()
    if answer.is_undecided:
        out.findings.append(undecided(f"whether rule `{name}` can fail", (name,), answer.reason))
    elif answer.is_empty:
        assert answer.strength is not None  # an empty answer says how sure it is
        out.facts.append(("valid", (name, answer.strength)))
        out.findings.append(Finding(
            "L0004", f"rule `{name}` holds on every trace", (name,), answer.strength,
            help="a rule that cannot fail tests nothing; state what the procedure requires",
            evidence=(f"`{rule_text(rule)}` is true whatever the agent does",)))
    return out


# ------------------------------------------------------------------ L0004: a trigger that never happens


def trigger_items(ctx: LintContext) -> list[str]:
    if not ctx.policy_satisfiable:
        return []
    return [r.name for r in ctx.active_rules if r.name not in ctx.valid]


def check_triggers(ctx: LintContext, asker: Asker, name: str) -> UnitResult:
    rule = ctx.policy.rule(name)
    everything = ctx.active_claims()
    out = UnitResult()
    seen: set = set()
    for _node, trigger, consequence, quantifiers in implications(rule.formula):
        happens = trigger_happens(trigger, quantifiers)
        if happens in seen:
            continue
        seen.add(happens)
        probe = Claim(f"trigger:{name}:{happens.skey}", happens)
        answer = asker.ask([*everything, probe], focus=[probe])
        if answer.is_sat:
            continue
        if answer.is_undecided:
            out.findings.append(undecided(f"whether `{quoted(trigger)}` (in rule `{name}`) can happen in a "
                                          f"compliant trace", (name,), answer.reason))
            break
        core = asker.minimal_core(everything, fixed=[probe], answer=answer)
        blockers = tuple(ctx.rule_of(c) for c in core.claims)
        others = tuple(r for r in blockers if r != name)
        evidence = [f"no compliant trace has `{quoted(trigger)}`" + (
            f": it is excluded by {', '.join(f'`{r}`' for r in others)}" if others else "")]
        evidence += [f"{a}; the trigger is impossible even so" for a in approximations([rule.formula])]
        out.facts.append(("vacuous", name))
        out.findings.append(Finding(
            "L0004", f"rule `{name}` is vacuous: `{quoted(trigger)}` never happens in a compliant trace",
            (name, *others), core.strength,
            help=f"the rule's condition `{quoted(consequence)}` is never tested; remove the rule or "
                 f"the rule that forbids its trigger",
            evidence=tuple(evidence),
            labels=tuple((r, "forbids the trigger") for r in others)))
        break
    return out


# ------------------------------------------------------------------ L0003


def redundancy_items(ctx: LintContext) -> list[str]:
    if not ctx.policy_satisfiable:
        return []
    return [r.name for r in ctx.active_rules if r.name not in ctx.valid and r.name not in ctx.vacuous]


def _others(ctx: LintContext, name: str, dropped: set[str]) -> list[Claim]:
    return ctx.active_claims(exclude=dropped | {name} | set(ctx.valid))


def check_implied(ctx: LintContext, asker: Asker, name: str) -> UnitResult:
    """Is the rule implied by all the other rules? (the first pass, in parallel)"""
    rule = ctx.policy.rule(name)
    others = _others(ctx, name, set())
    out = UnitResult()
    if not others:
        out.data = ("sat", None)
        return out
    negation = ctx.negated_claim(rule)
    answer = asker.ask([*others, negation], focus=[negation])
    if answer.is_empty:
        core = asker.minimal_core(others, fixed=[negation], answer=answer)
        out.data = ("empty", core)
    else:
        out.data = (answer.status, answer.reason)
    return out


def merge_implied(ctx: LintContext, asker: Asker, results: list[UnitResult]) -> UnitResult:
    """In reverse rule order, keep the rules the first pass found redundant. When an implying
    set needs a rule dropped meanwhile, that rule is replaced by its own implying set (the
    implication is transitive, and as strong as the weaker of the two), and a minimal set is
    taken from the result; only when that fails is the question asked again."""
    out = UnitResult()
    names = redundancy_items(ctx)
    dropped: dict[str, tuple] = {}  # rule -> (its implying claims, strength)
    for name, result in reversed(list(zip(names, results))):
        status, detail = result.data
        if status == "sat":
            continue
        rule = ctx.policy.rule(name)
        negation = ctx.negated_claim(rule)
        if status == "undecided" and not dropped:
            out.findings.append(undecided(f"whether rule `{name}` is implied by the other rules", (name,), detail))
            continue
        core = detail if status == "empty" else None
        if core is not None and {ctx.rule_of(c) for c in core.claims} & dropped.keys():
            core = _through_dropped(ctx, asker, core, negation, dropped)
        if core is None:
            others = _others(ctx, name, set(dropped))
            answer = asker.ask([*others, negation], focus=[negation]) if others else None
            if answer is None or answer.is_sat:
                continue
            if answer.is_undecided:
                out.findings.append(undecided(f"whether rule `{name}` is implied by the other rules", (name,),
                                              answer.reason))
                continue
            core = asker.minimal_core(others, fixed=[negation], answer=answer)
        if not core.claims:
            continue
        implying = tuple(ctx.rule_of(c) for c in core.claims)
        dropped[name] = (core.claims, core.strength)
        listed = ", ".join(f"`{r}`" for r in implying)
        out.findings.append(Finding(
            "L0003", f"rule `{name}` is implied by {listed}", (name, *implying), core.strength,
            help="a trace that breaks it breaks those rules too; remove it, or keep it only for its own weight "
                 "and message",
            evidence=tuple(f"{a}; the implication holds even so" for a in approximations(
                [ctx.policy.rule(r).formula for r in (name, *implying)])),
            labels=tuple((r, "implies it") for r in implying)))
    return out


def _through_dropped(ctx: LintContext, asker: Asker, core, negation: Claim, dropped: dict):
    """The implying set with every dropped rule replaced by the rules that imply it (each
    dropped rule expanded once), asked again as a whole and shrunk to a minimal set; None
    when the chain leads back to the rule itself or the shrinking cannot confirm it."""
    claims: dict[str, Claim] = {}
    todo = list(core.claims)
    expanded: set[str] = set()
    own = ctx.rule_of(negation)
    while todo:
        c = todo.pop(0)
        rule = ctx.rule_of(c)
        if rule == own:
            return None  # the chain leads back to the rule itself: ask the question again
        if rule in dropped:
            if rule in expanded:
                continue
            expanded.add(rule)
            implying, _strength = dropped[rule]
            todo.extend(implying)
        else:
            claims.setdefault(c.name, c)
    answer = asker.ask([*claims.values(), negation], focus=[negation])
    if not answer.is_empty:
        return None
    found = asker.minimal_core(list(claims.values()), fixed=[negation], answer=answer)
    return found if found.minimal else None


VALID = Phase("vacuous-rule", "rules that cannot fail", lambda ctx: [r.name for r in ctx.active_rules], check_valid,
              question=lambda ctx, name: (f"whether rule `{name}` can fail", (name,)))
TRIGGERS = Phase("vacuous-rule", "triggers", trigger_items, check_triggers,
                 question=lambda ctx, name: (f"whether the triggers of rule `{name}` can happen in a compliant trace",
                                             (name,)))
REDUNDANT = Phase("redundant-rule", "implied rules", redundancy_items, check_implied, merge_implied,
                  question=lambda ctx, name: (f"whether rule `{name}` is implied by the other rules", (name,)))
