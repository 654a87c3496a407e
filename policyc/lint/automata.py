"""What the lint asks the automata instead of the solver: exact answers for every trace length.

A lint run owns one `LintAutomata` (through its `LintContext`): each formula it asks about is
compiled once, by `policyc.automata`, and every search runs on the shared product of
`policyc.tables` (`JointSpace`, `joint.satisfiable`). Where the automata cannot answer
exactly (a formula outside the compiled fragment, quantified parts, guard combinations no
compiler decided, a product beyond the budget) the answer is None and the caller falls back
to the bounded Z3 queries, saying so in the finding's strength.

The rule-class question reads a rule without the policy's terminal tools (a run ends with a
terminal call, which makes liveness rules decidable when it is proposed), so "no bad
prefix" from it is re-asked of the solver when the policy declares a terminal tool.

>>> from policyc.ir import build as b
>>> from policyc.smt import bare_tools
>>> a, t = b.event("a"), bare_tools("a", "b")
>>> auto = LintAutomata(t)
>>> at_least_3 = b.eventually(b.conj(a, b.next_(b.eventually(b.conj(a, b.next_(b.eventually(a)))))))
>>> auto.decide([(at_least_3, False)]), auto.decide([(at_least_3, True)])     # neither valid nor empty
(True, True)
>>> auto.decide([(b.eventually(a), True), (b.always(b.neg(a)), True)])
False
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

from policyc.automata import NotCompilable, compile_rule
from policyc.ir import build as b
from policyc.ir import nodes as n
from policyc.ir.types import ToolSignature
from policyc.tables.dfa import DfaTable
from policyc.tables.facts import classify_table
from policyc.tables.joint import satisfiable
from policyc.tables.product import JointSpace
from policyc.tables.rule import RuleTable

#: Joint states one exact decision may visit before it gives up (the answer is then unknown).
DECIDE_BUDGET = 200_000


@dataclass(frozen=True)
class RuleClassAnswer:
    is_enforceable: bool
    is_gateable: bool
    is_liveness: bool


class LintAutomata:
    """The automata of one lint run: every formula compiled at most once."""

    def __init__(self, tools: Mapping[str, ToolSignature], terminal: frozenset[str] = frozenset()):
        self.tools = tools
        self.terminal = terminal
        self._tables: dict[n.Formula, RuleTable | None] = {}

    def table(self, phi: n.Formula) -> RuleTable | None:
        """The formula's compiled table; None outside the compiled fragment."""
        if phi not in self._tables:
            try:
                self._tables[phi] = compile_rule(phi, self.tools).table
            except NotCompilable:
                self._tables[phi] = None
        return self._tables[phi]

    def dfa(self, phi: n.Formula) -> DfaTable | None:
        """The formula's single DFA when its alphabet is exact (every impossible guard
        combination pruned); None otherwise."""
        table = self.table(phi)
        dfa = None if table is None else table.dfa
        return dfa if dfa is not None and dfa.alphabet.exact else None

    def rule_class(self, phi: n.Formula) -> RuleClassAnswer | None:
        """The automata's exact class of a rule, or None when they cannot answer."""
        table = self.table(phi)
        if table is None:
            return None
        answer = classify_table(table)
        if not answer.exact:
            return None  # quantified parts or undecided guards: an estimate; the solver answers
        return RuleClassAnswer(answer.is_enforceable, answer.is_gateable, answer.is_liveness)

    def shortest_satisfying_length(self, phi: n.Formula) -> int | None:
        """The length of a shortest trace satisfying `phi` alone, read off its minimal DFA;
        None when it does not compile to one exact DFA, or no trace satisfies it. The DFA
        knows nothing of terminal tools: callers re-check at this length when there are some.

        >>> from policyc.smt import bare_tools
        >>> seq = b.eventually(b.conj(b.event("a"), b.next_(b.eventually(b.event("b")))))
        >>> LintAutomata(bare_tools("a", "b")).shortest_satisfying_length(seq)
        2
        """
        dfa = self.dfa(phi)
        path = None if dfa is None else dfa.shortest_continuation(dfa.initial)
        return None if path is None else len(path)

    def _space(self, claims: list[tuple[n.Formula, bool]], terminal: frozenset[str]) -> JointSpace | None:
        dfas = [self.dfa(phi if expected else b.neg(phi)) for phi, expected in claims]
        if any(d is None for d in dfas):
            return None
        return JointSpace(dfas, self.tools, terminal)

    def decide(self, claims: list[tuple[n.Formula, bool]]) -> bool | None:
        """Exactly, for runs of any length: is there a run on which every formula takes its
        truth value? Runs are calls to the declared tools, a terminal tool only as the last
        call. None when the automata cannot tell (see the module's docstring).

        The answer settles what bounded queries cannot: `called_n(search) <= 20` fails only
        on runs of 21 calls, beyond any small bound, and is not valid.
        """
        space = self._space(claims, self.terminal)
        return None if space is None else satisfiable(space, DECIDE_BUDGET)

    def proves_empty(self, claims: list[tuple[n.Formula, bool]]) -> bool:
        """Whether the automata prove that no trace, of any length, makes every formula take
        its truth value. Terminal tools only remove traces, so the proof ignores them and
        holds with them too.

        >>> from policyc.smt import bare_tools
        >>> a = b.event("a")
        >>> LintAutomata(bare_tools("a", "b")).proves_empty([(b.eventually(a), True), (b.always(b.neg(a)), True)])
        True
        """
        space = self._space(claims, frozenset())
        return space is not None and satisfiable(space, DECIDE_BUDGET) is False
