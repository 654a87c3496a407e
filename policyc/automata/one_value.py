"""Guard atoms that test one value against literals, decided by trying values.

A group of atoms that all test the same value (an argument, a path into the result, a
metrics field, a piece the solver cannot see into such as `len(calls)` or `lower(text)`)
against literals — `==`, `!=`, `<`, `<=`, `>`, `>=`, `in` a literal list or text,
`contains`, `startswith`, `endswith`, `matches` a pattern — is decided by evaluating the
atoms, with the evaluator's own operators, on candidate values: ⊥ (unless the value is a
bound variable), null, both booleans, an object, numbers at, between and beyond the numeric
literals, the text literals, a text equal to none of them, texts built from the literals an
assignment needs, and texts each pattern matches (`policyc.ir.regex.examples`, confirmed by
the matcher itself). A combination some candidate gives is possible: the candidate is a
witness. When the tests are only equalities and orderings of numbers and equalities of
texts, the candidates meet every class of values the tests can tell apart, so a
combination no candidate gives is impossible (`complete`); otherwise the caller asks the
solver about the combinations without a witness.

>>> from policyc.ir import build as b
>>> amount = b.arg("amount")
>>> group = OneValue.of([b.op("gt", amount, b.lit(100)), b.op("lt", amount, b.lit(50))])
>>> sorted(group.masks), group.complete, group.exact
([0, 1, 2], True, True)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Sequence

from policyc.ir import nodes as n
from policyc.ir.ops import UNDEF, apply_op, is_number, value_key
from policyc.ir.regex import examples

_COMPARE = ("eq", "ne", "lt", "le", "gt", "ge")
_FLIPPED = {"eq": "eq", "ne": "ne", "lt": "gt", "le": "ge", "gt": "lt", "ge": "le"}
_TEXT = ("contains", "startswith", "endswith")
#: What is tried between the literals a built text needs (readable first: such a text may end
#: up in a counterexample; then marks unlikely to be in a literal; then nothing).
_MARKS = (" ", "\x00", "\x1f#\x1f", "")
#: The largest code point of a text the solver's strings hold.
_MAX_CHAR = 0x2FFFF


def _scalar(v: object) -> bool:
    if isinstance(v, float):
        return math.isfinite(v)
    if isinstance(v, str):
        return all(ord(c) <= _MAX_CHAR for c in v)
    return v is None or isinstance(v, (bool, int))


def _boolean_op(op: str) -> bool:
    return op in ("and", "or", "not", *_COMPARE, "in", *_TEXT)


def path_shape(t: n.Term) -> str:
    """What a path step asks of its base: "object" (`.name`, `["name"]`), "list" (`[i]` with a
    literal integer: a list's item or a text's character) or "either" (an index known only on
    the call)."""
    if isinstance(t, n.Field):
        return "object"
    index = t.index  # type: ignore[attr-defined]
    if isinstance(index, n.Lit) and isinstance(index.value, str):
        return "object"
    if isinstance(index, n.Lit) and isinstance(index.value, int) and not isinstance(index.value, bool):
        return "list"
    return "either"


def free_value(t: n.Term) -> tuple[bool, bool] | None:
    """Whether the solver's encoding lets `t` be any JSON value: (whether it may be ⊥, whether
    the encoding understood it); None when its values are constrained (a literal, a negation,
    a condition, a path into one of those)."""
    if isinstance(t, (n.Arg, n.Result, n.Metric, n.Request)):
        return True, True
    if isinstance(t, n.Var):
        return False, True
    if isinstance(t, (n.Field, n.Index)):
        base = free_value(t.base)
        if base is None:
            return None
        return True, base[1] and isinstance(t.base, (n.Arg, n.Result, n.Request, n.Field, n.Index, n.Var)) \
            and path_shape(t) != "either"
    if isinstance(t, (n.Lit, n.Extern)) or isinstance(t, n.Op) and (t.op == "neg" or _boolean_op(t.op)):
        return None  # an extern is a free condition of its own, not a value
    return True, False  # a piece the solver does not see into: a fresh, unconstrained value


@dataclass
class _Test:
    """One atom read as a test of the subject: `fn(value)` is its truth. `kind`: equal (`==`,
    `!=`, `in` a list), order (`<`...), text (substring tests), truth (the subject itself);
    `op` and `first` (whether the subject is the first operand) for texts built to pass it."""

    fn: Callable[[object], bool]
    literals: tuple = ()
    kind: str = "order"
    op: str = ""
    first: bool = True
    examples: tuple = ()  # texts a pattern matches (kind "pattern"), candidates of their own


def _test(atom: n.Term, subject: n.Term) -> _Test | None:  # noqa: C901 - one case per form
    if atom == subject:
        return _Test(lambda v: v is True, (), "truth")
    if not isinstance(atom, n.Op) or len(atom.args) != 2:
        return None
    x, y = atom.args
    op = atom.op
    if op == "matches":
        if x != subject or not (isinstance(y, n.Lit) and isinstance(y.value, str)):
            return None
        pattern = y.value
        return _Test(lambda v: apply_op("matches", v, pattern) is True, (), "pattern", op,
                     examples=examples(pattern))
    if op in _COMPARE or op in _TEXT:
        if x == subject and isinstance(y, n.Lit) and _scalar(y.value):
            lit, first = y.value, True
        elif y == subject and isinstance(x, n.Lit) and _scalar(x.value):
            lit, first = x.value, False
        else:
            return None
        if op in _TEXT:
            text_op = op
            fn: Callable[[object], bool] = (lambda v: apply_op(text_op, v, lit) is True) if first \
                else (lambda v: apply_op(text_op, lit, v) is True)
            return _Test(fn, (lit,), "text", op, first)
        ordered = op if first else _FLIPPED[op]
        return _Test(lambda v: apply_op(ordered, v, lit) is True, (lit,),
                     "equal" if ordered in ("eq", "ne") else "order", ordered)
    if op == "in" and x == subject and isinstance(y, n.Lit):
        coll = y.value
        if isinstance(coll, list) and all(_scalar(v) for v in coll):
            items = coll
            return _Test(lambda v: apply_op("in", v, items) is True, tuple(coll), "equal", "in")
        if isinstance(coll, str) and _scalar(coll):  # a piece of the literal text
            text = coll
            return _Test(lambda v: apply_op("in", v, text) is True, (coll,), "text", "contains", False)
    return None


@dataclass
class OneValue:
    """The atoms of a group over one subject, with the combinations candidates witness."""

    subject: n.Term
    tests: list[_Test]
    witnesses: dict[int, object]  # combinations witnessed so far (bit i: atom i holds), each with its value
    candidates: list[object]
    complete: bool  # every combination no candidate gives is impossible
    exact: bool  # the solver's encoding understands every atom (as `solver.satisfiable_masks` reports)
    real: bool = False  # every candidate is a value the subject can take: a witness is a real call
    image: Callable[[object], bool] | None = None  # the values the subject can take, when it is a function

    def __post_init__(self) -> None:
        # `mask` reads the equalities with literals through one lookup (a policy may test one
        # argument against hundreds of values), the other tests one by one
        self._equal: dict[object, int] = {}
        self._equal_bits = 0  # the equalities with one literal
        self._key_of: dict[int, object] = {}  # their literal's key, by bit
        # per set of known bits, the witnesses by what they give there (`witness`: a search asks
        # about every prefix of the atoms, hundreds of times each, for a group of hundreds)
        self._by_known: dict[int, tuple[int, dict[int, int]]] = {}
        self._others: list[tuple[int, _Test]] = []
        for i, t in enumerate(self.tests):
            if t.kind == "equal" and t.op == "eq" and len(t.literals) == 1:
                key = value_key(t.literals[0])
                self._equal[key] = self._equal.get(key, 0) | 1 << i
                self._equal_bits |= 1 << i
                self._key_of[i] = key
            else:
                self._others.append((i, t))

    @property
    def masks(self) -> set[int]:
        return set(self.witnesses)

    @classmethod
    def of(cls, atoms: Sequence[n.Term]) -> OneValue | None:
        """The group's decision by candidates; None when the atoms do not all test one free
        value against literals."""
        subject = _subject(atoms[0]) if atoms else None
        if subject is None:
            return None
        free = free_value(subject)
        if free is None:
            return None
        tests = [_test(a, subject) for a in atoms]
        if any(t is None for t in tests):
            return None
        may_be_undefined, exact = free
        image = _image(subject)
        if image is not None:  # a function of a value the encoding understands: values it can give are real
            may_be_undefined = True
        checked: list[_Test] = [t for t in tests if t is not None]
        numbers = sorted({v for t in checked for v in t.literals if is_number(v)})
        texts = sorted({v for t in checked for v in t.literals if isinstance(v, str)})
        points, dense = _numbers(numbers)
        candidates: list[object] = [None, True, False, {}, *points, "", *texts,
                                    "#" * (1 + max((len(s) for s in texts), default=0)),
                                    *(v for t in checked for v in t.examples)]
        if may_be_undefined:
            candidates.append(UNDEF)
        for s in texts:  # neighbours in the order of texts
            candidates += [s + "\x00", s[:-1], s + "~"]
        complete = dense and not any(t.kind in ("text", "pattern") or t.kind == "order" and isinstance(t.literals[0], str)
                                     for t in checked)
        if image is not None:
            candidates = [v for v in candidates if image(v)]
            complete = False  # values outside the image were dropped: the solver settles the rest
        # the solver sees no pattern (a free condition): only witnesses can make such a group exact
        understood = exact and not any(t.kind == "pattern" for t in checked)
        group = cls(subject, checked, {}, candidates, complete, understood, exact or image is not None, image)
        for v in candidates:
            group.witnesses.setdefault(group.mask(v), v)
        return group

    def mask(self, value: object) -> int:
        """The tests `value` passes, as bits. An equality with a literal holds exactly for the
        values JSON-equal to it (`values_equal`: 1 and 1.0, not true), as `value_key` keys them."""
        equal = self._equal.get(value_key(value), 0) if self._equal and value is not UNDEF else 0
        return equal | sum(1 << i for i, t in self._others if t.fn(value))

    def witness(self, mask: int, known: int) -> int | None:
        """A witnessed combination agreeing with `mask` on the bits of `known`, trying texts
        built for it when no candidate so far gives one; None when none is found."""
        index = self._by_known.get(known)
        if index is None or index[0] != len(self.witnesses):  # (witnesses are only ever added)
            if len(self._by_known) >= 4096:
                self._by_known.clear()
            table: dict[int, int] = {}
            for m in self.witnesses:  # the first witness agreeing, in the order they were found
                table.setdefault(m & known, m)
            index = self._by_known[known] = (len(self.witnesses), table)
        found = index[1].get(mask & known)
        if found is not None:
            return found
        equal = mask & known & self._equal_bits
        if equal & (equal - 1) and self._equal[self._key_of[(equal & -equal).bit_length() - 1]] & equal != equal:
            return None  # equal to two different literals: no value is
        for text in self._built(mask, known):
            if self.image is not None and not self.image(text):
                continue
            m = self.mask(text)
            if m & known == mask & known:
                self.witnesses[m] = text
                return m
        return None

    def value(self, mask: int, accept: Callable[[object], bool] = lambda v: True) -> tuple[bool, object]:
        """(True, a value `accept`ed that gives exactly `mask`), or (False, None) when none of
        the candidates and texts built for it is one.

        >>> from policyc.ir import build as b
        >>> task = b.metric(("task_id",))
        >>> group = OneValue.of([b.op("contains", task, b.lit("a")), b.op("startswith", task, b.lit("[x]"))])
        >>> group.value(0b11), group.value(0b00), group.value(0b00, lambda v: isinstance(v, str))
        ((True, '[x] a'), (True, None), (True, ''))
        """
        everything = (1 << len(self.tests)) - 1
        for v in [*self.candidates, *self._built(mask, everything)]:
            if accept(v) and (self.image is None or self.image(v)) and self.mask(v) == mask:
                return True, v
        return False, None

    def _built(self, mask: int, known: int) -> list[str]:
        """Texts meant to pass the tests `mask` sets among the `known` bits: a literal it must
        equal, or the longest prefix and suffix it must have around the pieces it must contain;
        a literal it must be a piece of."""
        wanted, bits = [], known & mask
        while bits:  # the set bits alone: a group may hold hundreds of tests, a mask sets few
            low = bits & -bits
            wanted.append(self.tests[low.bit_length() - 1])
            bits ^= low
        equal = [v for t in wanted if t.kind == "equal" and t.op in ("eq", "in") for v in t.literals
                 if isinstance(v, str)]
        if equal:
            return equal
        texts = [t for t in wanted if t.kind == "text" and isinstance(t.literals[0], str)]
        whole = [t.literals[0] for t in texts if not t.first]  # the subject is a piece of these
        prefix = max((t.literals[0] for t in texts if t.first and t.op == "startswith"), key=len, default="")
        suffix = max((t.literals[0] for t in texts if t.first and t.op == "endswith"), key=len, default="")
        middle = [t.literals[0] for t in texts if t.first and t.op == "contains"]
        pieces = [p for p in (prefix, *middle, suffix) if p]
        return [*whole, *(mark.join(pieces) for mark in _MARKS), *(mark.join(["", *pieces, ""]) for mark in _MARKS)]


#: Functions of one text whose values are exactly the texts they leave unchanged (and ⊥, from
#: a value that is not a text): `lower(x)` is any text without capitals, `x` being that text.
_TEXT_FUNCTIONS: dict[str, Callable[[str], str]] = {"lower": str.lower, "upper": str.upper, "strip": str.strip}


def _image(subject: n.Term) -> Callable[[object], bool] | None:
    """For `lower(x)`, `upper(x)`, `strip(x)` and `len(x)` over a value `x` the encoding
    understands: which values the subject can take (a value in the image is given by some
    `x`, so a candidate in it is a real witness). None for any other subject."""
    if not (isinstance(subject, n.Op) and len(subject.args) == 1):
        return None
    inner = free_value(subject.args[0])
    if inner is None or not inner[1]:
        return None
    fn = _TEXT_FUNCTIONS.get(subject.op)
    if fn is not None:
        return lambda v: v is UNDEF or isinstance(v, str) and fn(v) == v and _scalar(v)
    if subject.op == "len":
        return lambda v: v is UNDEF or type(v) is int and 0 <= v <= 10_000
    return None


def _subject(atom: n.Term) -> n.Term | None:
    """The non-literal operand of an atom of the forms `OneValue` reads (or the atom itself)."""
    if isinstance(atom, n.Op) and len(atom.args) == 2 and (atom.op in _COMPARE or atom.op in _TEXT
                                                            or atom.op in ("in", "matches")):
        x, y = atom.args
        if isinstance(y, n.Lit) and not isinstance(x, n.Lit):
            return x
        if isinstance(x, n.Lit) and not isinstance(y, n.Lit) and atom.op != "in":
            return y
        return None
    return atom if free_value(atom) is not None else None


def _numbers(lits: list) -> tuple[list, bool]:
    """A number in each class the numeric literals tell apart (each literal, one between each
    two, one below and one above them), and whether every class got one."""
    if not lits:
        return [0], True
    points: list = []
    dense = True
    below = lits[0] - 1
    if below < lits[0]:  # (not so for a float too large to move by 1)
        points.append(below)
    else:
        dense = False
    for lo, hi in zip(lits, lits[1:]):
        points.append(lo)
        try:
            mid = lo + 1 if isinstance(lo, int) and isinstance(hi, int) and hi - lo >= 2 else (lo + hi) / 2
        except OverflowError:
            mid = lo
        if lo < mid < hi:
            points.append(mid)
        else:
            dense = False
    points.append(lits[-1])
    above = lits[-1] + 1
    if above > lits[-1]:
        points.append(above)
    else:
        dense = False
    return points, dense
