"""Automata: every compilable rule as a minimal DFA over event classes, with exact prefix verdicts.

Construction (DESIGN.md §4): formula progression with BDD-canonical residuals and past
operators in state variables (`progress`), an alphabet of (tool, guard-atom truths) pruned
by Z3 (`alphabet`, `solver`), Moore minimisation and per-state verdicts (`construct`);
quantified rules by parametric slicing (`fragment`, `slicing`). The pure-data tables the
runtime steps are in `table`, `slicing` and `rule_table`, which import only `policyc.ir`.

>>> from policyc.ir import build as b
>>> from policyc.trace import Trace
>>> from policyc.automata import classify, first_violation
>>> rule = b.always(b.implies(b.event("refund"), b.once(b.event("check"))))
>>> first_violation(rule, Trace.of(("search", {}), ("refund", {}), ("check", {})))
2
>>> classify(rule).kind, classify(b.eventually(b.event("check"))).kind
('gateable', 'offline-only')
"""

from importlib import import_module

# Loaded on first use, so that the runtime importing only the pure-data tables
# (`policyc.automata.table`, `.slicing`, `.rule_table`) never loads the compiler.
_LAZY = {
    "RuleClass": "classes", "classify": "classes", "rule_class": "classes",
    "RuleAutomaton": "compile", "compile_policy": "compile", "compile_rule": "compile", "first_violation": "compile",
    "run_rule": "compile",
    "build_dfa": "construct", "NotCompilable": "fragment",
    "RuleRun": "rule_table", "RuleTable": "rule_table", "SliceRun": "slicing", "SliceTable": "slicing",
    "OPEN": "table", "SATISFIED": "table", "VIOLATED": "table", "Alphabet": "table", "DfaTable": "table",
    "ToolLetters": "table",
}


def __getattr__(name: str):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'policyc.automata' has no attribute {name!r}")
    loaded = import_module(f"policyc.automata.{module}")
    # bind every lazy name of that module now: importing a submodule sets the package
    # attribute of the submodule's own name, which must never hide a function of ours
    for other, home in _LAZY.items():
        if home == module:
            globals()[other] = getattr(loaded, other)
    return globals()[name]


def allowed_next(automaton, state: int) -> list[str]:
    """Tools a next call may use and keep the rule satisfiable (see `RuleAutomaton.allowed_next`)."""
    return automaton.allowed_next(state)


def shortest_continuation(automaton, state: int) -> list[str] | None:
    """Readable letters of a shortest continuation to acceptance (None: none exists)."""
    return automaton.shortest_continuation(state)


__all__ = [
    "compile_rule", "compile_policy", "first_violation", "run_rule", "classify", "rule_class", "RuleClass",
    "RuleAutomaton", "NotCompilable", "build_dfa", "allowed_next", "shortest_continuation",
    "RuleTable", "RuleRun", "SliceTable", "SliceRun", "DfaTable", "Alphabet", "ToolLetters",
    "SATISFIED", "VIOLATED", "OPEN",
]
