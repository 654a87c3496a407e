"""A call's mask: the truth of every guard atom of its tool, read fast.

Real policies put many atoms on one argument (`amount > 100`, `amount > 1000`, ...,
`note == "tier1"`, `note == "tier2"`, ...). Comparisons of one argument with literals are
read together, through a table per argument:

- number literals cut the number line into points (the literals) and the open intervals
  between them; every atom has one truth value on each piece, so the atoms' mask on each
  piece is computed once, and a number is placed with one binary search;
- string literals compared by `==` and `!=` are a dictionary from the string to the mask of
  the atoms it makes true;
- any other kind of value (a string against number literals, a number against string
  literals, a list, null, a missing argument) has one mask per kind, computed once.

Every other atom (result fields, extern predicates, arithmetic) is evaluated on its own, by
a closure (`policyc.ir.closures`). The masks agree with the reference evaluator's truth of
each atom: a property test draws atoms and values and compares.

>>> from policyc.ir import build as b
>>> amount = b.arg("amount")
>>> pool = (b.op("gt", amount, b.lit(100)), b.op("gt", amount, b.lit(1000)), b.op("eq", b.arg("note"), b.lit("x")))
>>> reader = MaskReader(pool)
>>> [bin(reader.read({"amount": a, "note": n})) for a, n in ((50, "x"), (500, "y"), (5000, None))]
['0b100', '0b1', '0b11']
"""

from __future__ import annotations

import operator
from bisect import bisect_left
from fractions import Fraction
from types import MappingProxyType
from typing import Any, Callable, Mapping, Sequence, cast

from policyc.ir import nodes as n
from policyc.ir import ops
from policyc.ir.closures import compile_term
from policyc.ir.data import DataEnv
from policyc.ir.ops import UNDEF, get_field, truthy

_NUMBER_OPS = ("eq", "ne", "lt", "le", "gt", "ge")
_STRING_OPS = ("eq", "ne")
#: Comparisons of two numbers, or of two strings, as the language's operators make them.
_DIRECT: Mapping[str, Callable[[Any, Any], bool]] = MappingProxyType({"eq": operator.eq, "ne": operator.ne, "lt": operator.lt, "le": operator.le,
                           "gt": operator.gt, "ge": operator.ge})

Reader = Callable[[Mapping[str, Any], object, "DataEnv | None"], bool]


def _is_number(v: object) -> bool:
    return type(v) in (int, float)


def argument_comparison(atom: n.Term) -> tuple[str, str, object] | None:
    """(argument, operator, literal) when the atom compares an argument with a number or a
    string literal in a way an argument table reads; None otherwise."""
    if not (isinstance(atom, n.Op) and len(atom.args) == 2 and isinstance(atom.args[0], n.Arg)
            and isinstance(atom.args[1], n.Lit)):
        return None
    literal = atom.args[1].value
    if _is_number(literal) and atom.op in _NUMBER_OPS or type(literal) is str and atom.op in _STRING_OPS:
        return atom.args[0].name, atom.op, literal
    return None


def atom_reader(atom: n.Term, externs: Mapping[str, Callable[..., object]] | None = None) -> Reader:
    """The atom as a function of (args, result, env) returning its truth; `env` carries the
    run's constants and history stores (`policyc.tables.context`), None for none."""
    if isinstance(atom, n.Op) and len(atom.args) == 2 and ops.OPS[atom.op].kind == "compare" and atom.op != "in" \
            and isinstance(atom.args[1], n.Lit):
        path: list[str] = []
        base = atom.args[0]
        while isinstance(base, n.Field):
            path.append(base.name)
            base = base.base
        if isinstance(base, (n.Arg, n.Result)):
            compare, literal = ops.OPS[atom.op].fn, atom.args[1].value
            name = base.name if isinstance(base, n.Arg) else None
            path.reverse()

            def compare_input(args: Mapping[str, Any], result: object, env: DataEnv | None = None) -> bool:
                value = args.get(name, UNDEF) if name is not None else result
                for step in path:
                    value = get_field(value, step)
                try:
                    return compare(value, literal) is True
                except (TypeError, ValueError, OverflowError, RecursionError):
                    return False  # as the evaluator: an operation that fails is ⊥, not true
            return compare_input
    fixed, compiled = DataEnv({}, None, UNDEF, None, dict(externs or {})), compile_term(atom)

    def evaluate(args: Mapping[str, Any], result: object, env: DataEnv | None = None) -> bool:
        return truthy(compiled(fixed if env is None else env, args, result))
    return evaluate


class ArgumentTable:
    """The masks of the comparisons of one argument with literals (bits of the tool's pool)."""

    def __init__(self, name: str, atoms: Sequence[tuple[int, str, object]]):
        self.name = name
        numbers: list[tuple[int, str, float]] = [(bit, op, cast(float, lit)) for bit, op, lit in atoms
                                                 if _is_number(lit)]
        strings: list[tuple[int, str, str]] = [(bit, op, lit) for bit, op, lit in atoms if type(lit) is str]
        self.cuts: list[float] = sorted({lit for _, _, lit in numbers})
        # pieces: below the first cut, each cut, between two cuts, ..., above the last; one value
        # per piece (exact midpoints: cuts may be huge integers)
        samples: list[float | Fraction] = []
        for i, cut in enumerate(self.cuts):
            samples.append(cut - 1 if i == 0 else (Fraction(self.cuts[i - 1]) + Fraction(cut)) / 2)
            samples.append(cut)
        if self.cuts:
            samples.append(self.cuts[-1] + 1)
        self.number_masks = [self._mask(numbers, v) for v in samples]
        self.eq_masks: dict[str, int] = {}
        self.ne_masks: dict[str, int] = {}
        self.ne_all = 0
        for bit, op, text in strings:
            table = self.eq_masks if op == "eq" else self.ne_masks
            table[text] = table.get(text, 0) | 1 << bit
            if op == "ne":
                self.ne_all |= 1 << bit
        # a value of another kind than a number-literal atom's: only `!=` holds (a defined value
        # differs from the literal); of another kind than a string-literal atom's: likewise
        self.numbers_other = sum(1 << bit for bit, op, _ in numbers if op == "ne")
        self.strings_other = self.ne_all

    @staticmethod
    def _mask(atoms: Sequence[tuple[int, str, float]], value: float | Fraction) -> int:
        mask = 0
        for bit, op, lit in atoms:
            if _DIRECT[op](value, lit):
                mask |= 1 << bit
        return mask

    def read(self, args: Mapping[str, Any]) -> int:
        value = args.get(self.name, UNDEF)
        kind = type(value)
        if kind is int or kind is float:
            if value != value:  # NaN: no order, equal to nothing
                return self.numbers_other | self.strings_other
            i = bisect_left(self.cuts, value)
            piece = 2 * i + 1 if i < len(self.cuts) and self.cuts[i] == value else 2 * i
            return (self.number_masks[piece] if self.cuts else 0) | self.strings_other
        if kind is str:
            return self.numbers_other | self.eq_masks.get(value, 0) | (self.ne_all & ~self.ne_masks.get(value, 0))
        if value is UNDEF:
            return 0
        return self.numbers_other | self.strings_other


class MaskReader:
    """Reads the mask of one tool's pool of atoms from a call's arguments and result."""

    def __init__(self, pool: Sequence[n.Term], externs: Mapping[str, Callable[..., object]] | None = None):
        grouped: dict[str, list[tuple[int, str, object]]] = {}
        self.others: list[tuple[int, Reader]] = []
        self.reads_result = 0
        for bit, atom in enumerate(pool):
            found = argument_comparison(atom)
            if found is None:
                self.others.append((bit, atom_reader(atom, externs)))
            else:
                grouped.setdefault(found[0], []).append((bit, found[1], found[2]))
        self.tables = [ArgumentTable(name, atoms) for name, atoms in grouped.items()]

    def read(self, args: Mapping[str, Any], result: object = UNDEF, skip: int = 0, env: DataEnv | None = None) -> int:
        """The mask of a call (`skip`: bits left false, e.g. atoms on a result not yet known;
        `env`: the run's constants and history, for the atoms that read them)."""
        mask = 0
        for table in self.tables:
            mask |= table.read(args)
        for bit, reader in self.others:
            if not skip >> bit & 1 and reader(args, result, env):
                mask |= 1 << bit
        return mask & ~skip
