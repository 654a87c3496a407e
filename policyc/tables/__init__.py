"""Compiled automaton tables as pure data, and every search over them.

The compiler (`policyc.automata`) turns each rule into a `RuleTable`; everything downstream
(the artifact builder, the scorer, the lint and the runtime gate) reads those tables through
this package and nothing else. It imports only the standard library and `policyc.ir`, so a
deployed gate that loads an artifact needs neither the compiler, Z3 nor lark.

| module | what it holds |
|---|---|
| `dfa` | the alphabet of event classes and a minimal DFA with its verdicts |
| `atoms` | guard atoms: their leaves and what they read |
| `slicing` | quantified parts: one automaton instance per value |
| `rule` | a rule as parts combined by a boolean skeleton; stepping it over a trace |
| `facts` | a rule's class read off its tables (enforceable, gateable, liveness, safety) |
| `policy` | `CompiledPolicy`: a policy with every rule's table (or why it has none) |
| `product` | the rules' DFAs as one lazily built product (`JointSpace`) |
| `joint` | the one search in the product: can a set of rules still hold together (the gate), which run satisfies them (the lint), within a budget |
| `guidance` | searches in one rule's DFA: what is still owed |

Compiled tables are values: whoever holds a `CompiledPolicy` passes it on; nothing here
keeps state between calls except the memo tables of a product, which belong to the object
that made them.
"""

from policyc.tables.dfa import OPEN, SATISFIED, VIOLATED, Alphabet, AlphabetError, DfaTable, ToolLetters
from policyc.tables.facts import DETECTABLE, GATEABLE, OFFLINE_ONLY, RuleClass, classify_table, not_compiled
from policyc.tables.policy import CompiledPolicy, CompiledRule
from policyc.tables.rule import RuleRun, RuleTable
from policyc.tables.slicing import SliceRun, SliceTable

__all__ = [
    "OPEN", "SATISFIED", "VIOLATED", "Alphabet", "AlphabetError", "DfaTable", "ToolLetters",
    "DETECTABLE", "GATEABLE", "OFFLINE_ONLY", "RuleClass", "classify_table", "not_compiled",
    "CompiledPolicy", "CompiledRule", "RuleRun", "RuleTable", "SliceRun", "SliceTable",
]
