"""Stepping one rule's automaton over a complete trace, visiting only the calls that move it.

Most rules name a few of a policy's tools. In a rule's minimal DFA, a letter that leaves every
state where it is (the letter of a tool the rule does not name, most often) changes nothing,
so a trace's verdict is the same when such calls are skipped. `StepPlan` works out, once per
table, which tools' letters are such *idle* letters; scoring a trace then steps the automaton
only at the positions of the other tools, read from the trace's index of positions by tool
(`PositionEvaluator.positions_of`), in order. A rule whose `other` letter (any tool its
alphabet does not list) moves some state is stepped at every call.

The verdict and the shortest bad prefix are exactly those of `RuleTable.verdict_on` (tested
on generated rules and traces): a skipped call leaves the state, hence the verdict, as it was.
Stepping stops at a state the rule has won or lost for good (every continuation accepted, or
none): the rest of the trace cannot change the verdict.

A rule whose letters depend on the tool alone (no guard atoms, nothing read of the run's
context) is walked faster (`PlainRun`): the scorer writes a trace's calls once as a `bytes`
string, a byte per tool (`ToolCodes`), and each such rule takes its letters from it with one
`bytes.translate` that maps each tool's byte to its letter and drops the idle ones.

>>> from policyc.tables.dfa import Alphabet, DfaTable, ToolLetters
>>> from policyc.tables.rule import RuleTable
>>> from policyc.trace.model import Trace
>>> ab = Alphabet((), {"a": ToolLetters((), {0: 0}, 0)}, other=1)
>>> never_a = DfaTable(ab, 0, ((1, 0), (1, 1)), (True, False), ("open", "violated"), (None, None), (0, None))
>>> plan = StepPlan.of(RuleTable(0, (never_a,)))
>>> plan.moving, plan.every_call
(('a',), False)
>>> trace = Trace.of(("b", {}), ("a", {}), ("b", {}))
>>> by_tool = {"a": [1], "b": [0, 2]}
>>> plan.verdict_on(trace.calls, lambda tool: by_tool.get(tool, ()), None)
(False, 2)
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import compress, islice
from operator import length_hint
from typing import Callable, Mapping, Sequence

from policyc.ir.data import ExternError
from policyc.tables.context import NO_CONSTANTS, Constants
from policyc.tables.dfa import SATISFIED, VIOLATED, AlphabetError, DfaTable
from policyc.tables.rule import RuleTable


@dataclass(frozen=True, slots=True)
class StepPlan:
    """The tools whose calls can move one DFA, and whether any other call can."""

    dfa: DfaTable
    moving: tuple[str, ...]  # tools of the alphabet with a letter that moves some state
    every_call: bool  # the letter of unlisted tools moves some state: step at every call
    table: RuleTable | None = None  # the rule (for its history atoms, whose tools are visited too)

    @classmethod
    def of(cls, table: RuleTable) -> "StepPlan | None":
        """The plan of a rule that is one automaton; None for a rule of sliced parts."""
        dfa = table.dfa
        if dfa is None:
            return None
        delta = dfa.delta
        states = range(len(delta))

        def idle(letter: int) -> bool:
            return all(delta[s][letter] == s for s in states)

        moving = tuple(tool for tool, letters in dfa.alphabet.tools.items()
                       if not all(idle(x) for x in letters.letters.values()))
        history = table.history()
        if history:  # the calls its history atoms ask about are read too (they move no state)
            moving += tuple(tool for tool in history.by_tool if tool not in moving)
        return cls(dfa, moving, not idle(dfa.alphabet.other), table)

    def verdict_on(self, calls: Sequence, positions_of: Callable[[str], Sequence[int]],
                   externs: Mapping[str, Callable] | None,
                   constants: Constants = NO_CONSTANTS,
                   sources: Callable[[int], object] | None = None) -> tuple[bool, int | None] | None:
        """As `RuleTable.verdict_on`: (whether the trace satisfies the rule, the length of its
        shortest bad prefix or None); None when a call cannot be read (the evaluator decides).
        `constants`: the trace's request and metrics; `sources`: its sources by position."""
        dfa = self.dfa
        table = self.table
        context = table.context(constants, externs, sources) if table is not None and table.needs_context else None
        state, delta, verdict = dfa.start_state(context), dfa.delta, dfa.verdict
        if verdict[state] == VIOLATED:
            return False, 0
        if verdict[state] == SATISFIED:
            return True, None
        alphabet = dfa.alphabet
        plain, other, letter = alphabet.plain_letters(), alphabet.other, alphabet.letter
        record = context.record if context is not None else None
        positions: Sequence[int]
        if self.every_call:
            positions = range(len(calls))
        elif len(self.moving) == 1:
            positions = positions_of(self.moving[0])
        else:
            positions = sorted([i for tool in self.moving for i in positions_of(tool)])
        try:
            for i in positions:
                call = calls[i]
                if context is not None:
                    context.position = i
                x = plain.get(call.name, other)
                if x is None:  # a tool with guard atoms: evaluate them on the call
                    x = letter(call.name, call.args, call.result, externs=externs, context=context)
                state = delta[state][x]
                settled = verdict[state]
                if settled == VIOLATED:
                    return False, i + 1
                if settled == SATISFIED:  # every continuation is accepted: the rest cannot change it
                    return True, None
                if record is not None:
                    record(call.name, call.args, call.result)
        except (ExternError, AlphabetError):
            return None
        return bool(dfa.accepting[state]), None


class ToolCodes:
    """One byte per tool that some rule's letters read (the rest share one byte): a trace's
    calls as a `bytes` string, made once per trace from its tool sequence, from which each rule of plain letters
    takes the calls that move it with one `bytes.translate` (`PlainRun`).

    >>> codes = ToolCodes(["a", "b"])
    >>> codes.of(["b", "z", "a"])
    b'\\x01\\x02\\x00'
    """

    __slots__ = ("code", "other")

    #: at most this many tools get a byte of their own (one more is every other tool's)
    LIMIT = 255

    def __init__(self, tools: Sequence[str]):
        self.code = {tool: i for i, tool in enumerate(dict.fromkeys(tools))}
        self.other = len(self.code)
        if self.other > self.LIMIT:
            raise ValueError(f"{self.other} tools: at most {self.LIMIT} get a code")

    def of(self, tools: Sequence[str]) -> bytes:
        """The codes of the calls to these tools (a trace's `tool_sequence`)."""
        get, other = self.code.get, self.other
        return bytes([get(tool, other) for tool in tools])


@dataclass(frozen=True, slots=True)
class PlainRun:
    """A rule that is one automaton whose letters depend on the tool alone (no guard atoms, no
    run context): its run over a trace is a walk over the letters of the calls that move it,
    read from the trace's codes (`ToolCodes`) by one `bytes.translate` that maps each tool's
    code to its letter and drops the calls whose letter moves no state. Its answer is exactly
    `StepPlan.verdict_on`'s (tested on generated rules and traces)."""

    table: bytes  # code -> letter
    idle: bytes  # the codes of calls that move no state (dropped)
    kept: bytes  # code -> 1 for a call that is kept, 0 for one dropped
    delta: tuple[tuple[int, ...], ...]  # the DFA's, a move into a state won or lost for good as ~state
    start: int
    violated: tuple[bool, ...]  # per state: lost for good
    accepting: tuple[bool, ...]
    fixed: tuple[bool, int | None] | None  # the answer of a rule won or lost from the start

    @classmethod
    def of(cls, plan: StepPlan, codes: ToolCodes) -> "PlainRun | None":
        """The plain run of a rule's step plan; None when its letters read more than the tool."""
        table, dfa = plan.table, plan.dfa
        if table is None or table.needs_context or dfa.initials:
            return None
        alphabet = dfa.alphabet
        plain = alphabet.plain_letters()
        letters = {tool: letter for tool, letter in plain.items() if letter is not None}
        if len(letters) < len(plain) or max([alphabet.other, *letters.values()]) > 255 \
                or any(tool not in codes.code for tool in letters):
            return None
        delta = dfa.delta
        states = range(len(delta))
        letter_of = [alphabet.other] * (codes.other + 1)
        for tool, letter in letters.items():
            letter_of[codes.code[tool]] = letter
        still = {x for x in set(letter_of) if all(delta[s][x] == s for s in states)}  # letters that move no state
        idle = bytes(code for code, letter in enumerate(letter_of) if letter in still)
        kept = bytearray(b"\x01") * 256
        for code in idle:
            kept[code] = 0
        settled = [v in (SATISFIED, VIOLATED) for v in dfa.verdict]
        signed = [~t if settled[t] else t for t in states]  # a state won or lost for good as ~state
        violated = tuple(v == VIOLATED for v in dfa.verdict)
        start = dfa.initial
        fixed = ((False, 0) if violated[start] else (True, None)) if settled[start] else None
        return cls(bytes(letter_of) + bytes(256 - len(letter_of)), idle, bytes(kept),
                   tuple(tuple(map(signed.__getitem__, row)) for row in delta), start, violated,
                   tuple(bool(a) for a in dfa.accepting), fixed)

    def verdict_on(self, codes: bytes) -> tuple[bool, int | None]:
        """(whether the trace of these codes satisfies the rule, the length of its shortest bad
        prefix or None)."""
        if self.fixed is not None:
            return self.fixed
        state, delta = self.start, self.delta
        letters = codes.translate(self.table, self.idle)
        steps = iter(letters)
        for x in steps:
            state = delta[state][x]
            if state < 0:  # won or lost for good
                if not self.violated[~state]:
                    return True, None
                k = len(letters) - length_hint(steps) - 1  # the letter just read
                kept = compress(range(len(codes)), codes.translate(self.kept))  # the positions of the calls kept
                return False, next(islice(kept, k, None)) + 1
        return self.accepting[state], None
