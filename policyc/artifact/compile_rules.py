"""The bridge to the automata: each rule's monitor table and class, or why it has none.

>>> from policyc.ir import build as b
>>> from policyc.ir.policy import Policy, Rule
>>> p = Policy("p", None, {}, (Rule("r", b.always(b.implies(b.event("refund"), b.once(b.event("approve"))))),))
>>> compiled = compile_rules(p)
>>> compiled.classes, sorted(compiled.tables["r"][0])
({'r': 'gateable'}, ['dfa'])
"""

from __future__ import annotations

from dataclasses import dataclass, field

from policyc.ir.policy import Policy


@dataclass
class CompiledRules:
    tables: dict[str, tuple[dict | None, str | None]] = field(default_factory=dict)  # rule -> (table, reason)
    classes: dict[str, str] = field(default_factory=dict)  # rule -> gateable | detectable | offline-only


def compile_rules(policy: Policy) -> CompiledRules:
    """Compile every rule of a policy that the automata support."""
    from policyc.automata.construct import build_dfa
    from policyc.automata.progress import NotPropositional
    from policyc.automata.table import VIOLATED

    out = CompiledRules()
    for rule in policy.rules:
        try:
            dfa = build_dfa(rule.formula)
        except (NotPropositional, ValueError, TypeError) as exc:
            out.tables[rule.name] = (None, f"outside the compiled fragment: {exc}")
            out.classes[rule.name] = "offline-only"
            continue
        out.tables[rule.name] = ({"dfa": dfa.to_json()}, None)
        if VIOLATED not in dfa.verdict:
            out.classes[rule.name] = "offline-only"
        elif any(letters.result_bits for letters in dfa.alphabet.tools.values()):
            out.classes[rule.name] = "detectable"
        else:
            out.classes[rule.name] = "gateable"
    return out
