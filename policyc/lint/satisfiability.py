"""Unsatisfiable rules (L0001) and conflicts between rules (L0002).

A rule is unsatisfiable when no trace satisfies it alone; the evidence is a minimal set of
its parts (top-level conjuncts, then the conditions of its event patterns) that already
contradict each other. A conflict is a set of satisfiable rules with no common compliant
trace; each reported set is minimal (every proper subset has a compliant trace, shown by a
witness), and when a policy has several disjoint such sets, each is reported. The lint
never drops a rule it has not shown to be part of a conflict: a set is only ever shrunk by
a question whose answer is "no trace".

>>> from policyc.check import check_text
>>> from policyc.lint import LintOptions, lint_policy
>>> src = 'policy p\\ntool ping()\\nrule many: called_n(ping) >= 9\\nrule none: never(ping)\\n'
>>> [(f.code, f.rules, str(f.strength)) for f in lint_policy(check_text(src, "p.altl")[0], LintOptions(bound=4)).findings]
[('L0002', ('many', 'none'), 'exact (automata)')]
"""

from __future__ import annotations

from policyc.diagnostics import Severity
from policyc.ir import build as b
from policyc.ir import nodes as n
from policyc.ir.walk import free_vars, subformulas
from policyc.lint.claims import Claim
from policyc.lint.context import LintContext
from policyc.lint.findings import Finding, quoted, rule_text, undecided
from policyc.lint.questions import Asker
from policyc.lint.units import Phase, UnitResult
from policyc.smt import approximations


# ------------------------------------------------------------------ L0001


def check_rule(ctx: LintContext, asker: Asker, name: str) -> UnitResult:
    rule = ctx.policy.rule(name)
    answer = asker.ask([ctx.rule_claim(rule)])
    out = UnitResult()
    if answer.is_undecided:
        out.findings.append(undecided(f"whether rule `{name}` can be satisfied", (name,), answer.reason))
    elif answer.is_empty:
        assert answer.strength is not None  # an empty answer says how sure it is
        out.facts.append(("unsatisfiable", name))
        evidence = list(_conflicting_parts(asker, rule))
        evidence.extend(f"{a}; the rule is unsatisfiable even so" for a in approximations([rule.formula]))
        exact = answer.strength is not None and answer.strength.exact
        out.findings.append(Finding(
            "L0001", f"rule `{name}` can never be satisfied" if exact else
            f"rule `{name}` has no trace of up to {answer.strength.bound if answer.strength else '?'} calls",
            (name,), answer.strength,
            help="every trace violates this rule, so every run fails it; remove the contradictory parts" if exact
            else "a longer run may satisfy it: check that it needs this many calls, or raise `--bound`",
            evidence=tuple(evidence), severity=None if exact else Severity.WARNING))
    return out


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


def _conflicting_parts(asker: Asker, rule) -> list[str]:
    parts = split_parts(rule.formula)
    if len(parts) > 1:
        claims = [Claim(f"part:{rule.name}:{i}", p) for i, p in enumerate(parts)]
        answer = asker.ask(claims)
        if answer.is_empty:
            core = asker.minimal_core(claims, answer=answer)
            chosen = [parts[claims.index(c)] for c in core.claims]
            if len(chosen) > 1:
                return ["conflicting parts: " + " and ".join(f"`{quoted(p)}`" for p in chosen)]
            if len(chosen) == 1:
                parts = chosen
    conditions = _conflicting_conditions(asker, rule.name, parts[0])
    if conditions:
        return [f"conflicting conditions in `{quoted(ev)}`: " + " and ".join(f"`{quoted(c)}`" for c in conds)
                for ev, conds in conditions]
    return [f"unsatisfiable: `{quoted(parts[0])}`"]


def _conflicting_conditions(asker: Asker, rule: str, phi: n.Formula):
    """Event patterns whose conditions contradict each other: a minimal subset per pattern."""
    out = []
    for sub in subformulas(phi):
        if not isinstance(sub, n.Event) or isinstance(sub.guard, n.Lit) or free_vars(sub):
            continue
        guard = sub.guard
        conds = list(guard.args) if isinstance(guard, n.Op) and guard.op == "and" else [guard]
        if len(conds) < 2 or not _never(asker, rule, sub.tool, conds):
            continue
        keep = list(conds)
        i = 0
        while i < len(keep):
            trial = keep[:i] + keep[i + 1:]
            if trial and _never(asker, rule, sub.tool, trial):
                keep = trial
            else:
                i += 1
        out.append((sub, keep))
    return out


def _never(asker: Asker, rule: str, tool: str, conds: list[n.Term]) -> bool:
    event = b.event(tool, b.op("and", *conds) if len(conds) > 1 else conds[0])
    return asker.ask([Claim(f"pattern:{rule}:{event.skey}", b.eventually(event))]).is_empty


# ------------------------------------------------------------------ L0002


def check_conflicts(ctx: LintContext, asker: Asker, _item=None) -> UnitResult:
    """Minimal conflicting sets, disjoint, until the rules left have a compliant trace. A set
    shown only up to a length is a warning, and its rules are set aside: the later analyses
    reason about the others (a rule implied, a trigger or a tool excluded by some of them is
    so by all of them), instead of being switched off."""
    out = UnitResult()
    remaining = ctx.active_claims()
    answer = asker.ask(remaining)
    if answer.is_undecided:
        out.facts.append(("policy", None))
        out.findings.append(undecided(
            "whether the policy has a compliant trace", tuple(ctx.rule_of(c) for c in remaining), answer.reason,
            "vacuity, redundancy and dead tools were not analysed: each needs a compliant trace"))
        return out
    exact = False
    while remaining and answer.is_empty:
        core = asker.minimal_core(remaining, answer=answer)
        if not core.claims:
            break
        out.findings.append(_conflict_finding(ctx, core))
        names = {c.name for c in core.claims}
        if core.strength.exact:
            exact = True
        else:
            out.facts.extend(("set_aside", ctx.rule_of(c)) for c in core.claims)
        remaining = [c for c in remaining if c.name not in names]
        answer = asker.ask(remaining)
        if answer.is_undecided:
            out.findings.append(undecided(
                "whether the other rules have a compliant trace", tuple(ctx.rule_of(c) for c in remaining),
                answer.reason))
    if exact:
        out.facts.append(("policy", False))
    elif answer.is_sat:
        out.facts.append(("policy", True))
        assert answer.witness is not None  # a satisfiable answer comes with its trace
        out.witnesses.append(answer.witness)
    else:
        out.facts.append(("policy", None))
    return out


def _conflict_finding(ctx: LintContext, core) -> Finding:
    rules = tuple(ctx.rule_of(c) for c in core.claims)
    witnesses = [(f"without `{ctx.rule_of(c)}` the others allow", core.witnesses[c.name])
                 for c in core.claims if c.name in core.witnesses and len(core.claims) > 1]
    names = ", ".join(f"`{r}`" for r in rules)
    formulas = [ctx.policy.rule(r).formula for r in rules]
    evidence = tuple(f"`{r}`: {rule_text(ctx.policy.rule(r))}" for r in rules)
    evidence += tuple(f"{a}; the rules conflict even so" for a in approximations(formulas))
    if not core.minimal:
        evidence += ("a smaller set may conflict too: removing some rule could not be decided",)
    if not core.strength.exact:
        return Finding(
            "L0002", f"rules {names} have no common trace of up to {core.strength.bound} calls", rules,
            core.strength, help="a longer run may comply with all of them: check that the procedure needs this many "
                                "calls, or raise `--bound`",
            evidence=evidence + ("the later analyses leave these rules aside",), witnesses=tuple(witnesses[:1]),
            labels=tuple((r, f"conflicts with `{rules[0]}`") for r in rules[1:]), severity=Severity.WARNING)
    return Finding(
        "L0002", f"rules {names} cannot all hold on one trace", rules, core.strength,
        help="no run can comply with all of these rules; drop or weaken one of them",
        evidence=evidence, witnesses=tuple(witnesses[:1]),
        labels=tuple((r, f"conflicts with `{rules[0]}`") for r in rules[1:]))


PHASES = (
    Phase("unsatisfiable-rule", "rules alone", lambda ctx: [r.name for r in ctx.policy.rules], check_rule,
          question=lambda ctx, name: (f"whether rule `{name}` can be satisfied", (name,))),
    Phase("conflict", "the whole policy", lambda ctx: [None], check_conflicts,
          question=lambda ctx, _: ("whether the policy has a compliant trace", tuple(r.name for r in ctx.active_rules))),
)
