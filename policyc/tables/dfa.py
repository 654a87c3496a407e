"""Automata as pure data: the alphabet of event classes and a minimal DFA table.

These are what the monitor artifact embeds and the runtime steps; the module imports only
the standard library and `policyc.ir`. A call is mapped to its letter by evaluating the
guard atoms of its tool with `policyc.ir.data.eval_term` (a dictionary lookup on the truth
mask); a step is a table lookup. A proposed call whose result is not known yet maps to the
set of letters that agree with it on every atom that does not read the result.

>>> from policyc.ir import build as b
>>> atom = b.op("gt", b.arg("amount"), b.lit(100))
>>> ab = Alphabet((atom,), {"refund": ToolLetters((0,), {0: 0, 1: 1}, 0)}, other=2, var=None, exact=True)
>>> ab.letter("refund", {"amount": 250}), ab.letter("refund", {}), ab.letter("search", {"q": "x"})
(1, 0, 2)
>>> ab.describe(1)
'refund(amount > 100)'
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Mapping, cast

from policyc.ir import nodes as n
from policyc.ir.data import DataEnv, eval_term
from policyc.ir.ops import UNDEF, truthy
from policyc.ir.printer import show
from policyc.ir.serialize import dump_nodes, load_nodes

from policyc.tables.atoms import reads_result

SATISFIED, VIOLATED, OPEN = "satisfied", "violated", "open"


class AlphabetError(Exception):
    """A call produced a combination of guard truths the compiler proved impossible."""


@dataclass(frozen=True, slots=True)
class ToolLetters:
    """The letters of one tool: its guard atoms and, per truth mask, the letter."""

    atoms: tuple[int, ...]  # indices into Alphabet.atoms; bit i of a mask is atoms[i]
    letters: Mapping[int, int]  # truth mask -> letter
    result_bits: int  # bits of atoms that read the call's result


@dataclass(frozen=True)
class Alphabet:
    """Event classes: (tool, truth of that tool's guard atoms), plus one letter for any other tool."""

    atoms: tuple[n.Term, ...]
    tools: Mapping[str, ToolLetters]
    other: int
    var: str | None = None  # the quantified variable binding atoms read (sliced rules)
    exact: bool = True  # every impossible combination was pruned
    _by_known: dict = field(default_factory=dict, compare=False, repr=False)
    _plain: dict = field(default_factory=dict, compare=False, repr=False)

    @property
    def size(self) -> int:
        return self.other + 1

    def _mask(self, tool: ToolLetters, env: DataEnv, skip: int = 0) -> int:
        mask = 0
        for bit, index in enumerate(tool.atoms):
            if not skip >> bit & 1 and truthy(eval_term(self.atoms[index], env)):
                mask |= 1 << bit
        return mask

    def _env(self, args, result, value, externs) -> DataEnv:
        bound = {self.var: value} if self.var is not None else {}
        return DataEnv(bound, args, result, None, externs or {})

    def plain_letters(self) -> dict[str, int | None]:
        """Per tool of the alphabet: its letter when it has no guard atoms (any call to it is
        that letter), None when its letter depends on the call. Memoised."""
        if not self._plain and self.tools:
            self._plain.update({tool: (letters.letters.get(0) if not letters.atoms else None)
                                for tool, letters in self.tools.items()})
        return self._plain

    def letter(self, tool: str, args: Mapping[str, object], result: object = UNDEF, value: object = UNDEF,
               externs: Mapping[str, Callable[..., object]] | None = None) -> int:
        """The letter of an executed call (`value`: the binding of `var` for a slice instance)."""
        letters = self.tools.get(tool)
        if letters is None:
            return self.other
        mask = self._mask(letters, self._env(args, result, value, externs)) if letters.atoms else 0
        try:
            return letters.letters[mask]
        except KeyError:
            raise AlphabetError(f"call to `{tool}` made guard atoms true together that cannot be") from None

    def proposal_letters(self, tool: str, args: Mapping[str, object], value: object = UNDEF,
                         externs: Mapping[str, Callable[..., object]] | None = None) -> tuple[int, ...]:
        """The letters a proposed call may turn out to be, whatever its result."""
        letters = self.tools.get(tool)
        if letters is None:
            return (self.other,)
        known = self._mask(letters, self._env(args, UNDEF, value, externs), skip=letters.result_bits)
        groups = self._by_known.get(tool)
        if groups is None:
            groups = {}
            for mask, letter in letters.letters.items():
                groups.setdefault(mask & ~letters.result_bits, []).append(letter)
            groups = self._by_known[tool] = {k: tuple(sorted(v)) for k, v in groups.items()}
        return groups.get(known, ())

    def tool_of(self, letter: int) -> str | None:
        """The tool of a letter; None for the letter of any other tool."""
        for tool, letters in self.tools.items():
            if letter in letters.letters.values():
                return tool
        return None

    def truth_of(self, letter: int) -> dict[n.Term, bool]:
        """The truth of each guard atom of the letter's tool."""
        for letters in self.tools.values():
            for mask, value in letters.letters.items():
                if value == letter:
                    return {self.atoms[i]: bool(mask >> bit & 1) for bit, i in enumerate(letters.atoms)}
        return {}

    def describe(self, letter: int) -> str:
        """A readable guard: `refund(amount > 100, not order_id == o)`; `*` for any other tool."""
        tool = self.tool_of(letter)
        if tool is None:
            return "*"
        parts = [show(a) if v else f"not {show(a)}" for a, v in self.truth_of(letter).items()]
        return f"{tool}({', '.join(parts)})" if parts else tool

    # ------------------------------------------------------------------ JSON

    def to_json(self) -> dict:
        return {
            "atoms": dump_nodes(list(self.atoms)),
            "tools": {t: {"atoms": list(tl.atoms), "letters": {str(m): l for m, l in tl.letters.items()}}
                      for t, tl in self.tools.items()},
            "other": self.other,
            "var": self.var,
            "exact": self.exact,
        }

    @classmethod
    def from_json(cls, data: dict) -> "Alphabet":
        atoms = tuple(cast(n.Term, a) for a in load_nodes(data["atoms"]))
        tools = {}
        for tool, entry in data["tools"].items():
            ids = tuple(entry["atoms"])
            result_bits = sum(1 << bit for bit, i in enumerate(ids) if reads_result(atoms[i]))
            tools[tool] = ToolLetters(ids, {int(m): l for m, l in entry["letters"].items()}, result_bits)
        return cls(atoms, tools, data["other"], data.get("var"), data.get("exact", True))


@dataclass(frozen=True)
class DfaTable:
    """A complete minimal DFA over an alphabet, with the verdict of every state.

    `verdict[q]` is SATISFIED when every continuation from q is accepted, VIOLATED when none
    is, OPEN otherwise; `accepting[q]` says whether the trace ending in q satisfies the
    formula. `to_accept[q]` is the first letter of a shortest continuation to acceptance
    (None when q accepts or is violated) and `dist_accept[q]` its length.
    """

    alphabet: Alphabet
    initial: int
    delta: tuple[tuple[int, ...], ...]
    accepting: tuple[bool, ...]
    verdict: tuple[str, ...]
    to_accept: tuple[int | None, ...]
    dist_accept: tuple[int | None, ...]
    to_reject: tuple[int | None, ...] = ()
    residual: tuple[str, ...] = ()  # the residual formula of each state, printed

    @property
    def size(self) -> int:
        return len(self.delta)

    def step(self, state: int, letter: int) -> int:
        return self.delta[state][letter]

    def shortest_continuation(self, state: int) -> list[int] | None:
        """Letters of a shortest continuation from `state` to acceptance ([] if it accepts)."""
        if self.dist_accept[state] is None:
            return None
        out: list[int] = []
        while not self.accepting[state]:
            letter = self.to_accept[state]
            assert letter is not None  # a state that can reach acceptance has a first letter
            out.append(letter)
            state = self.delta[state][letter]
        return out

    def shortest_rejection(self, state: int) -> list[int] | None:
        """Letters of a shortest continuation after which the formula fails ([] if it fails now)."""
        if self.verdict[state] == SATISFIED:
            return None
        out: list[int] = []
        while self.accepting[state]:
            letter = self.to_reject[state]
            assert letter is not None  # a state that can fail has a first letter to failure
            out.append(letter)
            state = self.delta[state][letter]
        return out

    def to_json(self) -> dict:
        return {
            "alphabet": self.alphabet.to_json(),
            "initial": self.initial,
            "delta": [list(row) for row in self.delta],
            "accepting": list(self.accepting),
            "verdict": list(self.verdict),
            "to_accept": list(self.to_accept),
            "dist_accept": list(self.dist_accept),
            "to_reject": list(self.to_reject),
            "residual": list(self.residual),
        }

    @classmethod
    def from_json(cls, data: dict) -> "DfaTable":
        return cls(Alphabet.from_json(data["alphabet"]), data["initial"], tuple(tuple(r) for r in data["delta"]),
                   tuple(data["accepting"]), tuple(data["verdict"]), tuple(data["to_accept"]),
                   tuple(data["dist_accept"]), tuple(data.get("to_reject", ())), tuple(data.get("residual", ())))
