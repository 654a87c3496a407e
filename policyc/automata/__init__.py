"""Automata: the compiler from rules to minimal DFAs over event classes, with exact prefix verdicts.

Construction (DESIGN.md §4): formula progression with BDD-canonical residuals and past
operators in state variables (`progress`), an alphabet of (tool, guard-atom truths) pruned
by Z3 (`alphabet`, `solver`), Moore minimisation and per-state verdicts (`construct`);
quantified rules by parametric slicing (`fragment`, `slicing`). What it produces are the
pure-data tables of `policyc.tables`, which everything downstream reads.

>>> from policyc.ir import build as b
>>> from policyc.trace import Trace
>>> rule = b.always(b.implies(b.event("refund"), b.once(b.event("check"))))
>>> first_violation(rule, Trace.of(("search", {}), ("refund", {}), ("check", {})))
2
>>> classify(rule).kind, classify(b.eventually(b.event("check"))).kind
('gateable', 'offline-only')
"""

from policyc.automata.budget import Budget, BudgetExceeded, construction_budget, current_budget
from policyc.automata.classes import classify, rule_class
from policyc.automata.compile import RuleAutomaton, compile_policy, compile_rule, first_violation, run_rule
from policyc.automata.construct import build_dfa
from policyc.automata.fragment import NotCompilable
from policyc.tables import (
    OPEN, SATISFIED, VIOLATED, Alphabet, CompiledPolicy, DfaTable, RuleClass, RuleRun, RuleTable, SliceRun, SliceTable,
    ToolLetters,
)


def allowed_next(automaton: RuleAutomaton, state: int) -> list[str]:
    """Tools a next call may use and keep the rule satisfiable (see `RuleAutomaton.allowed_next`)."""
    return automaton.allowed_next(state)


def shortest_continuation(automaton: RuleAutomaton, state: int) -> list[str] | None:
    """Readable letters of a shortest continuation to acceptance (None: none exists)."""
    return automaton.shortest_continuation(state)


__all__ = [
    "Budget", "BudgetExceeded", "construction_budget", "current_budget",
    "compile_rule", "compile_policy", "first_violation", "run_rule", "classify", "rule_class", "RuleClass",
    "RuleAutomaton", "NotCompilable", "build_dfa", "allowed_next", "shortest_continuation", "CompiledPolicy",
    "RuleTable", "RuleRun", "SliceTable", "SliceRun", "DfaTable", "Alphabet", "ToolLetters",
    "SATISFIED", "VIOLATED", "OPEN",
]
