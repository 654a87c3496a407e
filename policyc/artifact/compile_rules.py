"""The bridge to the automata: each rule's monitor table and class, or why it has none.

>>> from policyc.ir import build as b
>>> from policyc.ir.policy import Policy, Rule
>>> p = Policy("p", None, {}, (Rule("r", b.always(b.implies(b.event("refund"), b.once(b.event("approve"))))),))
>>> compiled = compile_rules(p)
>>> sorted(compiled.tables["r"][0]), compiled.classes["r"]
(['rule'], 'gateable')
"""

from __future__ import annotations

from dataclasses import dataclass, field

from policyc.ir.policy import Policy


@dataclass
class CompiledRules:
    tables: dict[str, tuple[dict | None, str | None]] = field(default_factory=dict)  # rule -> (table, reason)
    classes: dict[str, str | None] = field(default_factory=dict)  # rule -> gateable | detectable | offline-only


def compile_rules(policy: Policy) -> CompiledRules:
    """Compile every rule of a policy that the automata support (`policyc.automata.compile_rule`).

    The class of each rule is the one `policyc score` reports (`policyc.scoring.violation.rule_class`),
    so a gated run's report and an offline score of the same trace agree to the letter.
    """
    from policyc.automata import NotCompilable, compile_rule
    from policyc.scoring.violation import rule_class

    out = CompiledRules()
    for rule in policy.rules:
        out.classes[rule.name] = rule_class(rule.formula, policy.tools)
        try:
            automaton = compile_rule(rule.formula, policy.tools)
        except NotCompilable as exc:
            out.tables[rule.name] = (None, exc.reason)
            continue
        out.tables[rule.name] = ({"rule": automaton.table.to_json()}, None)
    return out
