"""A compiled rule as pure data: its parts (DFA or sliced) and how their verdicts combine.

A rule whose formula is one plain part is a single `DfaTable` and its verdicts are exact.
A rule with sliced parts combines the parts' verdicts through its boolean skeleton, in
three-valued logic (satisfied / violated / open): `and` is violated when a part is, `or`
satisfied when a part is, `not` swaps. Every verdict it reports is certain.

`verdict_on(calls)` steps a rule over a complete trace in one pass: whether the trace
satisfies it, and the length of its shortest bad prefix (the scorer's `violated_at`).

A rule whose atoms read the run's constants or its history is read with a `RunContext`
(`policyc.tables.context`): the run's constants choose where it starts, and its history
stores answer the history atoms. A run made without one (`start()`) has its own, with the
constants unknown; one given by its owner (the gate) is fed by the owner.

This module imports only the standard library and `policyc.ir`.

>>> from policyc.tables.dfa import Alphabet, DfaTable, ToolLetters
>>> ab = Alphabet((), {"a": ToolLetters((), {0: 0}, 0)}, other=1)
>>> never_a = DfaTable(ab, 0, ((1, 0), (1, 1)), (True, False), ("open", "violated"), (None, None), (0, None), (0, None))
>>> run = RuleTable(0, (never_a,)).start()
>>> run.step("b", {}); run.verdict(), run.accepting()
('open', True)
>>> run.step("a", {}); run.verdict(), run.accepting()
('violated', False)
"""

from __future__ import annotations

from dataclasses import dataclass, field as field_
from typing import Any, Callable, Iterable, Mapping, Sequence, TypeVar, Union

from policyc.ir import nodes as n
from policyc.ir.data import ExternError
from policyc.ir.ops import UNDEF

from policyc.tables.atoms import constant_groups, reads_history
from policyc.tables.context import NO_CONSTANTS, Constants, RunContext
from policyc.tables.earlier import HistoryPlan, earlier_atoms
from policyc.tables.dfa import OPEN, SATISFIED, VIOLATED, AlphabetError, DfaTable
from policyc.tables.shape import TableError, check_int, field, is_int, read_list
from policyc.tables.slicing import SliceRun, SliceTable

PartTable = Union[DfaTable, SliceTable]
#: int (a part's index) | ("and"|"or", [skeleton...]) | ("not", skeleton)
Skeleton = Union[int, tuple[str, Any]]

T = TypeVar("T")


def combine(skeleton: Skeleton, values: Sequence[T], op_and: Callable[[list[T]], T], op_or: Callable[[list[T]], T],
            op_not: Callable[[T], T]) -> T:
    if isinstance(skeleton, int):
        return values[skeleton]
    kind, arg = skeleton
    if kind == "not":
        return op_not(combine(arg, values, op_and, op_or, op_not))
    parts = [combine(s, values, op_and, op_or, op_not) for s in arg]
    return op_and(parts) if kind == "and" else op_or(parts)


def and3(vs: Sequence[str]) -> str:
    """Three-valued `and` of verdicts: violated if one is, satisfied if all are."""
    return VIOLATED if VIOLATED in vs else SATISFIED if all(v == SATISFIED for v in vs) else OPEN


def or3(vs: Sequence[str]) -> str:
    """Three-valued `or` of verdicts: satisfied if one is, violated if all are."""
    return SATISFIED if SATISFIED in vs else VIOLATED if all(v == VIOLATED for v in vs) else OPEN


def not3(v: str) -> str:
    return {SATISFIED: VIOLATED, VIOLATED: SATISFIED}.get(v, OPEN)


@dataclass(frozen=True)
class RuleTable:
    skeleton: Skeleton  # int | ("and"|"or", [skeleton...]) | ("not", skeleton)
    parts: tuple[PartTable, ...]
    _memo: dict[str, Any] = field_(default_factory=dict, compare=False, repr=False)

    @property
    def dfa(self) -> DfaTable | None:
        """The rule's DFA when it is a single plain part (exact verdicts), else None."""
        return self.parts[0] if self.skeleton == 0 and isinstance(self.parts[0], DfaTable) else None

    def start(self, context: RunContext | None = None) -> "RuleRun":
        """A run of the rule; `context`: the run's constants and history, fed by the caller
        (None: the run keeps its own, with the constants unknown, and feeds it itself)."""
        return RuleRun(self, context)

    def atoms(self) -> list[n.Term]:
        """Every guard and static atom of the rule's automata."""
        out: list[n.Term] = []
        for part in self.parts:
            if isinstance(part, DfaTable):
                out += [*part.alphabet.atoms, *part.static_atoms]
            else:
                out += [*part.alphabet.atoms, *part.static_atoms]
                out += [d for body in part.bodies.values() for d in body.static_atoms]
        return out

    @property
    def needs_context(self) -> bool:
        """Whether a run of the rule reads more than its calls: the run's constants, its
        history, its sources. Memoised."""
        found = self._memo.get("needs_context")
        if found is None:
            found = self._memo["needs_context"] = self.history() is not None or any(
                constant_groups(a) or reads_history(a) for a in self.atoms())
        return found

    def history(self) -> HistoryPlan | None:
        """The rule's history atoms, by the tool that feeds them (None: it has none). Memoised."""
        if "history" not in self._memo:
            atoms = earlier_atoms(self.atoms())
            self._memo["history"] = HistoryPlan(atoms) if atoms else None
        plan: HistoryPlan | None = self._memo["history"]
        return plan

    def context(self, constants: Constants = NO_CONSTANTS, externs: Mapping[str, Callable[..., object]] | None = None,
                sources: Callable[[int], object] | None = None) -> RunContext:
        """A fresh context for a run of this rule alone (stores for its history atoms;
        `sources`: the run's sources by position, for provenance)."""
        return RunContext(constants, self.history(), externs, sources)

    def verdict_on(self, calls: Iterable[Any], externs: Mapping[str, Callable[..., object]] | None = None,
                   constants: Constants = NO_CONSTANTS,
                   sources: Callable[[int], object] | None = None) -> tuple[bool, int | None] | None:
        """In one pass over a complete trace's calls (objects with name, args and result):
        whether the trace satisfies the rule, and the length of its shortest bad prefix
        (None: no prefix is bad). None when an extern predicate fails or a call makes guard
        truths the compiler ruled out: the reference evaluator then decides, and says why.
        `constants`: the trace's request and metrics (`Constants.of_trace`; unknown: the
        rule is read by every value they could take); `sources`: the trace's sources by
        position (`trace.globals.history`), for provenance.

        >>> from policyc.tables.dfa import Alphabet, ToolLetters
        >>> from policyc.trace.model import Trace
        >>> ab = Alphabet((), {"a": ToolLetters((), {0: 0}, 0)}, other=1)
        >>> never_a = DfaTable(ab, 0, ((1, 0), (1, 1)), (True, False), ("open", "violated"), (None, None), (0, None))
        >>> RuleTable(0, (never_a,)).verdict_on(Trace.of(("b", {}), ("a", {}), ("b", {})).calls)
        (False, 2)
        """
        try:
            dfa = self.dfa
            context = self.context(constants, externs, sources) if self.needs_context else None
            if dfa is not None:  # one automaton: step it directly
                state, delta, verdict, letter = dfa.start_state(context), dfa.delta, dfa.verdict, dfa.alphabet.letter
                plain, other = dfa.alphabet.plain_letters(), dfa.alphabet.other
                if verdict[state] == VIOLATED:
                    return False, 0
                record = context.record if context is not None else None
                for k, call in enumerate(calls, 1):
                    x = plain.get(call.name, other)
                    if x is None:  # a tool with guard atoms: evaluate them on the call
                        x = letter(call.name, call.args, call.result, externs=externs, context=context)
                    state = delta[state][x]
                    if verdict[state] == VIOLATED:
                        return False, k
                    if record is not None:
                        record(call.name, call.args, call.result)
                return bool(dfa.accepting[state]), None
            run = self.start(context)
            if run.verdict() == VIOLATED:
                return False, 0
            for k, call in enumerate(calls, 1):
                run.step(call.name, call.args, call.result, externs)
                if run.verdict() == VIOLATED:
                    return False, k
                if context is not None:
                    context.record(call.name, call.args, call.result)
            return run.accepting(), None
        except (ExternError, AlphabetError):
            return None

    def to_json(self) -> dict[str, Any]:
        return {"skeleton": _skeleton_json(self.skeleton),
                "parts": [{"dfa": p.to_json()} if isinstance(p, DfaTable) else {"slice": p.to_json()}
                          for p in self.parts]}

    @classmethod
    def from_json(cls, data: dict[str, Any], where: str = "rule") -> "RuleTable":
        """Read and check a rule table (`TableError` naming the field): every part, and a
        skeleton of `and`, `or` and `not` over existing parts, at most MAX_SKELETON_DEPTH deep."""
        parts: list[PartTable] = []
        for i, p in enumerate(read_list(data, "parts", where)):
            at = f"{where}.parts[{i}]"
            if not isinstance(p, dict) or len(p) != 1 or not ({"dfa", "slice"} & set(p)):
                raise TableError(f'{at}: must be {{"dfa": ...}} or {{"slice": ...}}')
            parts.append(DfaTable.from_json(p["dfa"], f"{at}.dfa") if "dfa" in p
                         else SliceTable.from_json(p["slice"], f"{at}.slice"))
        if not parts:
            raise TableError(f"{where}.parts: a rule has at least one part")
        return cls(_skeleton_load(field(data, "skeleton", where), len(parts), f"{where}.skeleton"), tuple(parts))


def _skeleton_json(s: Skeleton) -> int | list[Any]:
    if isinstance(s, int):
        return s
    kind, arg = s
    return [kind, _skeleton_json(arg)] if kind == "not" else [kind, [_skeleton_json(a) for a in arg]]


#: How deep `and`, `or` and `not` may nest in a skeleton (rules combine a few parts).
MAX_SKELETON_DEPTH = 64


def _skeleton_load(s: object, parts: int, where: str, depth: int = 0) -> Skeleton:
    if depth > MAX_SKELETON_DEPTH:
        raise TableError(f"{where}: nested more than {MAX_SKELETON_DEPTH} levels deep")
    if is_int(s):
        return check_int(s, where, 0, parts)
    if isinstance(s, list) and len(s) == 2 and s[0] == "not":
        return ("not", _skeleton_load(s[1], parts, where, depth + 1))
    if isinstance(s, list) and len(s) == 2 and s[0] in ("and", "or") and isinstance(s[1], list) and s[1]:
        return (s[0], [_skeleton_load(a, parts, where, depth + 1) for a in s[1]])
    raise TableError(f'{where}: must be a part\'s index, ["not", s] or ["and"|"or", [s, ...]]')


class RuleRun:
    """One rule stepped over one run: a state per plain part, instances per sliced part."""

    def __init__(self, table: RuleTable, context: RunContext | None = None):
        self.table = table
        # a context of its own (the run feeds it) only when the rule reads one
        self.owns = context is None and table.needs_context
        self.context: RunContext | None = table.context() if self.owns else context
        # per part: a DFA state (int) or a SliceRun
        self.states: list[Any] = [p.start_state(self.context) if isinstance(p, DfaTable) else p.start(self.context)
                                  for p in table.parts]
        self._verdict: str | None = None  # the verdict of `states`, until the next step
        self._accepting: bool | None = None  # whether `states` accept, until the next step

    def step(self, tool: str, args: Mapping[str, Any], result: object = UNDEF,
             externs: Mapping[str, Callable[..., object]] | None = None) -> None:
        self._verdict = self._accepting = None
        parts = self.table.parts
        context = self.context
        if len(parts) == 1 and not isinstance(parts[0], DfaTable):  # one sliced part (the common shape)
            self.states[0].step(tool, args, result, externs)
        else:
            for i, part in enumerate(parts):
                if isinstance(part, DfaTable):
                    letter = part.alphabet.letter(tool, args, result, externs=externs, context=context)
                    self.states[i] = part.delta[self.states[i]][letter]
                else:
                    self.states[i].step(tool, args, result, externs)
        if self.owns and context is not None:
            context.record(tool, args, result)

    @property
    def blind(self) -> bool:
        """Whether a part reads the run's constants, which the run was not given (it is not
        followed then: open, never refusing; the report reads it when the run ends)."""
        return any(getattr(s, "blind", False) for s in self.states)

    def _part_values(self, dfa_value: Callable[[DfaTable, int], T], slice_value: Callable[[SliceRun], T]) -> list[T]:
        return [dfa_value(p, s) if isinstance(p, DfaTable) else slice_value(s)
                for p, s in zip(self.table.parts, self.states)]

    def accepting(self) -> bool:
        if self._accepting is None:
            if self.table.skeleton == 0:  # one part: its value is the rule's
                part, state = self.table.parts[0], self.states[0]
                self._accepting = bool(part.accepting[state]) if isinstance(part, DfaTable) else state.accepting()
                return self._accepting
            values = self._part_values(lambda p, s: p.accepting[s], lambda r: r.accepting())
            self._accepting = combine(self.table.skeleton, values, all, any, lambda v: not v)
        return self._accepting

    def verdict(self) -> str:
        if self._verdict is None:
            if self.table.skeleton == 0:  # one part: its value is the rule's
                part, state = self.table.parts[0], self.states[0]
                self._verdict = part.verdict[state] if isinstance(part, DfaTable) else state.verdict()
                return self._verdict
            values = self._part_values(lambda p, s: p.verdict[s], lambda r: r.verdict())
            self._verdict = combine(self.table.skeleton, values, and3, or3, not3)
        return self._verdict

    def to_json(self) -> list[Any]:
        return [s if isinstance(s, int) else s.to_json() for s in self.states]

    @classmethod
    def from_json(cls, table: RuleTable, data: list[Any], context: RunContext | None = None) -> "RuleRun":
        run = cls(table, context)
        run.states = [s if isinstance(p, DfaTable) else SliceRun.from_json(p, s, run.context)
                      for p, s in zip(table.parts, data)]
        return run
