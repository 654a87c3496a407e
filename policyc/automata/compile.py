"""Compile a rule to its monitor: the entry point of the automata stage.

>>> from policyc.ir import build as b
>>> rule = b.always(b.implies(b.event("refund"), b.once(b.event("approve"))))
>>> auto = compile_rule(rule)
>>> auto.dfa.size, auto.allowed_next(auto.dfa.initial), auto.allowed_next(auto.dfa.step(0, 0))
(3, ['*', 'approve'], ['*', 'approve', 'refund'])
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Mapping

from policyc.ir import nodes as n
from policyc.ir.policy import Policy
from policyc.ir.types import ToolSignature
from policyc.recursion import deep_recursion
from policyc.tables.context import Constants
from policyc.tables.dfa import VIOLATED, Alphabet, DfaTable
from policyc.tables.facts import classify_table, not_compiled
from policyc.tables.policy import CompiledPolicy, CompiledRule
from policyc.tables.rule import RuleRun, RuleTable
from policyc.tables.slicing import SliceTable
from policyc.trace.model import Trace

from policyc.automata.alphabet import build_alphabet, events_of
from policyc.automata.budget import BudgetExceeded, naming_rule
from policyc.automata.constants import build_constant_dfa, reads_run_constants
from policyc.automata.construct import build_dfa, explore, show_state, table_from
from policyc.automata.fragment import NotCompilable, Plan, PlainPart, SlicedPart, plan_rule
from policyc.automata.joint import joint_letters
from policyc.automata.progress import NotPropositional, Progression, State
from policyc.automata.solver import satisfiable_masks
from policyc.automata.specialise import specialise


@dataclass(frozen=True)
class RuleAutomaton:
    """A compiled rule: its plan, its pure-data table, and the tools of its policy."""

    formula: n.Formula
    plan: Plan
    table: RuleTable
    tools: Mapping[str, ToolSignature] = field(default_factory=dict)

    @property
    def dfa(self) -> DfaTable | None:
        """The minimal DFA when the rule is one plain part (exact verdicts), else None."""
        return self.table.dfa

    @property
    def is_sliced(self) -> bool:
        return any(isinstance(p, SliceTable) for p in self.table.parts)

    def start(self) -> RuleRun:
        return self.table.start()

    def allowed_next(self, state: int) -> list[str]:
        """Tools whose some call keeps acceptance reachable from DFA `state` (`*`: any tool the
        rule does not name, listed by name when the policy's tools are known)."""
        dfa = self._require_dfa()
        ab = dfa.alphabet
        ok = {l for l, t in enumerate(dfa.delta[state]) if dfa.verdict[t] != VIOLATED}
        names = {tool for tool, tl in ab.tools.items() if ok & set(tl.letters.values())}
        if ab.other in ok:
            others = [t for t in self.tools if t not in ab.tools]
            names.update(others or ["*"])
        return sorted(names)

    def shortest_continuation(self, state: int) -> list[str] | None:
        """Readable letters of a shortest continuation from `state` to acceptance."""
        dfa = self._require_dfa()
        letters = dfa.shortest_continuation(state)
        return None if letters is None else [dfa.alphabet.describe(l) for l in letters]

    def _require_dfa(self) -> DfaTable:
        if self.dfa is None:
            raise ValueError("a rule with quantified parts has no single automaton state")
        return self.dfa

    def to_json(self) -> dict:
        return self.table.to_json()


def build_slice(part: SlicedPart) -> SliceTable:
    masks, _ = satisfiable_masks(part.static_atoms) if part.static_atoms else ([0], True)
    bodies = {m: specialise(part.body, {a: bool(m >> i & 1) for i, a in enumerate(part.static_atoms)})
              for m in masks}
    events = tuple(e for f in bodies.values() for e in events_of(f))
    alphabet, true_events = build_alphabet(n.TRUE, part.var, events)
    tables = {}
    for mask, body in bodies.items():
        try:
            prog = Progression(body, true_events)
            states, delta, accepting = explore(prog, alphabet.size)
        except NotPropositional as exc:  # a shape that only this truth of the static conditions has
            raise NotCompilable(str(exc)) from None
        tables[mask] = table_from(alphabet, delta, accepting, _state_names(prog, states))
    touch: dict[str, tuple] = {}
    for tool, term in part.touch:
        touch[tool] = touch.get(tool, ()) + (term,)
    return SliceTable(part.kind, part.var, alphabet, part.static_atoms, tables, touch, part.domain, part.constants,
                      part.arity, part.components)


def _state_names(prog: Progression, states: list[State]) -> Callable[[int], str]:
    """How a table of the progression names its raw states: by their residual formulas."""
    return lambda q: show_state(prog, states[q])


def _build_plain(part: PlainPart) -> DfaTable:
    """A plain part's DFA; with a start state per truth of the run's constants when it reads them."""
    if part.static_atoms or reads_run_constants(part.formula):
        return build_constant_dfa(part.formula, part.static_atoms)
    return build_dfa(part.formula)


def compile_rule(formula: n.Formula, tools: Mapping[str, ToolSignature] | None = None) -> RuleAutomaton:
    """The monitor of a rule; raises NotCompilable (with `.reason`) outside the fragment, and
    BudgetExceeded (showing the formula) when its automaton outgrows the construction budget.

    Every call compiles afresh: callers that need a rule's automaton more than once keep it
    (a `CompiledPolicy` for a whole policy)."""
    with deep_recursion():  # counts and chains expand to formulas hundreds of levels deep
        plan = plan_rule(formula)
        try:
            parts = tuple(_build_plain(p) if isinstance(p, PlainPart) else build_slice(p) for p in plan.parts)
        except BudgetExceeded as exc:
            from policyc.ir.printer import show

            raise exc.showing(show(formula, 80)) from None
    return RuleAutomaton(formula, plan, RuleTable(plan.skeleton, parts), dict(tools or {}))


def compile_policy(policy: Policy) -> CompiledPolicy:
    """Every rule of a policy: its table and class, or why it is scored offline only.
    A rule whose automaton exceeds the construction budget (`policyc.automata.budget`) is
    a BudgetExceeded naming it.

    >>> from policyc.check import check_file
    >>> compiled = compile_policy(check_file("examples/code_qa.altl")[0])
    >>> compiled.classes, compiled.rules["grounded"].offline_reason is not None
    ({'search_first': 'gateable', 'reads_a_file': 'offline-only', 'grounded': 'offline-only'}, True)
    """
    out: dict[str, CompiledRule] = {}
    for rule in policy.rules:
        try:
            with naming_rule(rule.name):  # an error, not an offline rule: the policy is not what it says
                table = compile_rule(rule.formula, policy.tools).table
        except NotCompilable as exc:
            out[rule.name] = CompiledRule(None, not_compiled(exc.reason).kind, exc.reason)
            continue
        out[rule.name] = CompiledRule(table, classify_table(table).kind)
    plain = [c.table.dfa for c in out.values() if c.table is not None and c.table.dfa is not None]
    return CompiledPolicy(policy, out, joint_letters(plain, extra=part_alphabets(out.values())))


def part_alphabets(rules) -> list:
    """The alphabets of the parts of the rules with quantified parts, in rule order: their
    atoms join the product's pools (`policyc.tables.product.tool_atoms`)."""
    out: list[Alphabet] = []
    for c in rules:
        if c.table is not None and c.table.dfa is None:
            out.extend(p.alphabet for p in c.table.parts)
    return out


def first_violation(formula: n.Formula, trace: Trace,
                    externs: Mapping[str, Callable[..., object]] | None = None) -> int | None:
    """The length of the shortest bad prefix of `trace` (0: the rule is unsatisfiable), or
    None when no prefix is bad or the rule is not compiled.

    >>> from policyc.ir import build as b
    >>> t = Trace.of(("x", {}), ("b", {}), ("a", {}), ("b", {}))
    >>> first_violation(b.until(b.neg(b.event("b")), b.event("a")), t)   # `a` must come before any `b`
    2
    >>> first_violation(b.eventually(b.event("z")), t) is None              # liveness: never bad
    True
    """
    found = run_rule(formula, trace, externs)
    return None if found is None else found[1]


def run_rule(formula: n.Formula, trace: Trace,
             externs: Mapping[str, Callable[..., object]] | None = None) -> tuple[bool, int | None] | None:
    """In one pass of the rule's automaton over a complete trace: whether the trace satisfies
    the rule, and the length of its shortest bad prefix (None: no prefix is bad). None when
    the rule is not compiled or an extern predicate fails (the evaluator then says why).

    >>> from policyc.ir import build as b
    >>> t = Trace.of(("x", {}), ("b", {}), ("a", {}), ("b", {}))
    >>> run_rule(b.until(b.neg(b.event("b")), b.event("a")), t), run_rule(b.eventually(b.event("a")), t)
    ((False, 2), (True, None))
    """
    try:
        table = compile_rule(formula).table
    except NotCompilable:
        return None
    return table.verdict_on(trace.calls, externs, Constants.of_trace(trace), trace.globals.history)
