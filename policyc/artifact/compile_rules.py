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
from typing import Any

from policyc.automata import compile_policy
from policyc.ir.policy import Policy
from policyc.tables.policy import CompiledPolicy


@dataclass
class CompiledRules:
    compiled: CompiledPolicy
    tables: dict[str, tuple[dict[str, Any] | None, str | None]] = field(default_factory=dict)  # rule -> (table, reason)
    classes: dict[str, str | None] = field(default_factory=dict)  # rule -> gateable | detectable | offline-only


def compile_rules(policy: Policy) -> CompiledRules:
    """Compile every rule of a policy that the automata support (`policyc.automata.compile_policy`),
    with the JSON of each table as the artifact stores it."""
    compiled = compile_policy(policy)
    out = CompiledRules(compiled)
    for rule in policy.rules:
        entry = compiled.rules[rule.name]
        out.classes[rule.name] = entry.rule_class
        out.tables[rule.name] = (None, entry.offline_reason) if entry.table is None \
            else ({"rule": entry.table.to_json()}, None)
    return out
