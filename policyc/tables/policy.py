"""A policy with its compiled tables: the value every consumer of the automata is handed.

The compiler (`policyc.automata.compile_policy`) or a loaded artifact
(`policyc.artifact.compiled_of`) makes one; the scorer, the gate and the lint receive it.
Each rule has its table, or none and the reason (the rule is then decided by the reference
evaluator on the complete trace), and its class.

>>> from policyc.ir import build as b
>>> from policyc.ir.policy import Policy, Rule
>>> p = Policy("p", None, {}, (Rule("r", b.eventually(b.event("a"))),))
>>> compiled = CompiledPolicy(p, {"r": CompiledRule(None, "offline-only", "not compiled here")})
>>> compiled.table("r") is None, compiled.rule_class("r")
(True, 'offline-only')
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

from policyc.ir.policy import Policy
from policyc.tables.facts import OFFLINE_ONLY
from policyc.tables.product import JointLetters
from policyc.tables.rule import RuleTable


@dataclass(frozen=True)
class CompiledRule:
    """One rule's compiled form."""

    table: RuleTable | None
    rule_class: str  # gateable | detectable | offline-only
    offline_reason: str | None = None  # why it has no table


@dataclass(frozen=True)
class CompiledPolicy:
    """A checked policy and, per rule name, its compiled form; `joint`: per tool several
    single-automaton rules guard, the guard combinations the compiler decided together."""

    policy: Policy
    rules: Mapping[str, CompiledRule]
    joint: Mapping[str, JointLetters] = field(default_factory=dict)

    def __post_init__(self) -> None:
        missing = [r.name for r in self.policy.rules if r.name not in self.rules]
        if missing:
            raise ValueError(f"no compiled form for rule(s) {', '.join(missing)}")

    def table(self, name: str) -> RuleTable | None:
        return self.rules[name].table

    def rule_class(self, name: str) -> str:
        found = self.rules.get(name)
        return found.rule_class if found is not None else OFFLINE_ONLY

    @property
    def classes(self) -> dict[str, str]:
        return {name: r.rule_class for name, r in self.rules.items()}

    def uncounted(self) -> dict[str, str]:
        """The per-value rules the joint search does not read, each with why
        (`policyc.tables.counting.uncounted`)."""
        from policyc.tables.counting import uncounted

        return uncounted(self)

    def joint_limits(self) -> dict[str, list[str]]:
        """What the gate's joint conflict search cannot settle, known before any run: tools
        whose guard combinations exceeded the compiler's budget, tools with guards the solver
        cannot see into (a conflict that needs them is undecided), and the per-value rules the
        joint search does not read (`policyc.tables.counting.PartShape.countable`: they are
        judged alone, and a decision that may set one in conflict says so; `per_value_reasons`:
        why each is not read, in the same order)."""
        apart = self.uncounted()
        return {
            "tools_over_budget": sorted(t for t, j in self.joint.items() if j.masks is None),
            "tools_not_understood": sorted(t for t, j in self.joint.items() if j.masks is not None and not j.exact),
            "per_value_rules": list(apart),
            "per_value_reasons": list(apart.values()),  # why, in the same order
        }
