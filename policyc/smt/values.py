"""Symbolic JSON values: how one data value of a trace looks to Z3.

A `SymValue` mirrors a value of the reference evaluator (`policyc.ir.data`): it may be
undefined (⊥: a missing argument or field), JSON `null`, or a value of a statically known
kind. The kind comes from the tool signatures, so Z3 sees typed terms:

  int -> Int, float -> Real, str and enums -> String, bool -> Bool,
  records and dict literals -> a fixed set of named fields,
  lists -> at most `list_bound` elements and a symbolic length (a bounded model),
  dict[str, T] -> at most `list_bound` (key, value) entries with distinct keys,
  any -> the `Dyn` datatype (null, bool, number, string, or an opaque other value),
  a domain such as `check.order_id` -> a *family*: (guard, value) pairs, one per call.

Floats are modelled as exact rationals (so `0.1 + 0.2 == 0.3` holds for Z3 and not for
Python): findings never depend on rounding, but a witness may not replay when it does.

>>> v = lit_value(3)
>>> v.kind, str(v.value)
('int', '3')
>>> z3.simplify(values_equal(v, lit_value(3.0)))
True
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import z3

TRUE = z3.BoolVal(True)
FALSE = z3.BoolVal(False)


def _make_dyn() -> z3.DatatypeSortRef:
    d = z3.Datatype("Dyn")
    d.declare("d_null")
    d.declare("d_bool", ("d_b", z3.BoolSort()))
    d.declare("d_num", ("d_r", z3.RealSort()))
    d.declare("d_str", ("d_s", z3.StringSort()))
    d.declare("d_other", ("d_id", z3.IntSort()))
    return d.create()


#: the sort of values of type `any`
Dyn = _make_dyn()

#: tool enumeration sorts by tool set (Z3 declares each name once per context)
SORTS: dict = {}


class NeedsStrings(Exception):
    """A string operation other than equality met strings coded as integers.

    When a policy compares strings only for equality, strings are coded as integers (one code
    per literal, any other integer a fresh string), which Z3 decides much faster; a term
    that needs real strings (`contains`, `<`, `+`, `len`, ...) raises this, and the caller
    encodes the policy again with the string theory."""


def is_coded(v: "SymValue") -> bool:
    """A string value coded as an integer."""
    return v.kind == "str" and v.value is not None and v.value.sort() == z3.IntSort()


def require_text(*vs: "SymValue") -> None:
    if any(is_coded(v) for v in vs):
        raise NeedsStrings()


@dataclass(frozen=True, eq=False)
class SymValue:
    """A symbolic value: `defined` is false for ⊥, `null` is true for JSON null.

    `kind` is one of int real str bool null list record dict dyn family outputs done.
    Scalars keep their Z3 term in `value`; lists keep `items` and a `length`; records keep
    `fields` (name -> value); dicts keep `keys` (String terms) with `items` and `length`;
    families keep `members`, pairs (guard, value) of which those with a true guard exist.
    """

    kind: str
    defined: z3.BoolRef = TRUE
    null: z3.BoolRef = FALSE
    # Z3 terms (z3 has no annotations mypy reads): a scalar's value, a list's or dict's length
    value: Any = None
    items: tuple["SymValue", ...] = ()
    length: Any = None
    fields: tuple[tuple[str, "SymValue"], ...] = ()
    keys: tuple[z3.ExprRef, ...] = ()
    members: tuple[tuple[z3.BoolRef, "SymValue"], ...] = ()
    approx: frozenset[str] = field(default=frozenset())

    @property
    def present(self) -> z3.BoolRef:
        """Defined and not null: an actual value of the kind."""
        if self.null is FALSE:
            return self.defined
        return conj(self.defined, z3.Not(self.null))

    def field(self, name: str) -> "SymValue | None":
        for fname, value in self.fields:
            if fname == name:
                return value
        return None


def conj(*parts: z3.BoolRef) -> z3.BoolRef:
    """`z3.And` without the constant `true` operands (the encodings are full of them)."""
    kept = []
    for p in parts:
        if p is TRUE:
            continue
        if p is FALSE:
            return FALSE
        kept.append(p)
    if not kept:
        return TRUE
    return kept[0] if len(kept) == 1 else z3.And(kept)


def disj(*parts: z3.BoolRef) -> z3.BoolRef:
    """`z3.Or` without the constant `false` operands."""
    kept = []
    for p in parts:
        if p is FALSE:
            continue
        if p is TRUE:
            return TRUE
        kept.append(p)
    if not kept:
        return FALSE
    return kept[0] if len(kept) == 1 else z3.Or(kept)


def negate(p: z3.BoolRef) -> z3.BoolRef:
    """`z3.Not`, folding the constants."""
    return FALSE if p is TRUE else TRUE if p is FALSE else z3.Not(p)


def undefined() -> SymValue:
    """⊥ (appendix A.1.4)."""
    return SymValue("null", defined=FALSE)


def boolean(term: z3.BoolRef) -> SymValue:
    return SymValue("bool", value=term)


def _real_val(x: float | int) -> z3.ArithRef:
    f = Fraction(x)
    return z3.RealVal(f"{f.numerator}/{f.denominator}") if f.denominator != 1 else z3.RealVal(f.numerator)


def lit_value(value: object) -> SymValue:
    """The symbolic value of a JSON constant."""
    if value is None:
        return SymValue("null", null=TRUE)
    if isinstance(value, bool):
        return boolean(z3.BoolVal(value))
    if isinstance(value, int):
        return SymValue("int", value=z3.IntVal(value))
    if isinstance(value, float):
        return SymValue("real", value=_real_val(value))
    if isinstance(value, str):
        return SymValue("str", value=z3.StringVal(value))
    if isinstance(value, list):
        items = tuple(lit_value(v) for v in value)
        return SymValue("list", items=items, length=z3.IntVal(len(items)))
    if isinstance(value, dict):
        return SymValue("record", fields=tuple((k, lit_value(v)) for k, v in value.items()))
    return undefined()


# ------------------------------------------------------------------ reading values


def is_numeric(v: SymValue) -> bool:
    return v.kind in ("int", "real")


def as_real(v: SymValue) -> z3.ArithRef:
    return z3.ToReal(v.value) if v.kind == "int" else v.value


def as_scalar(v: SymValue, kind: str) -> SymValue:
    """An untyped value (`metrics.x`, a result of type `any`) read where an operator needs a
    `str`, a number (`real`) or a `bool`: defined only when the value is of that kind, as the
    evaluator's operators are. Typed values are returned unchanged.

    >>> d = SymValue("dyn", value=Dyn.d_str(z3.StringVal("ab")))
    >>> z3.simplify(as_scalar(d, "str").value), z3.simplify(as_scalar(d, "real").defined)
    ("ab", False)
    """
    if v.kind != "dyn":
        return v
    d = v.value
    if kind == "str":
        return SymValue("str", conj(v.present, Dyn.is_d_str(d)), FALSE, Dyn.d_s(d))
    if kind == "real":
        return SymValue("real", conj(v.present, Dyn.is_d_num(d)), FALSE, Dyn.d_r(d))
    if kind == "bool":
        return SymValue("bool", conj(v.present, Dyn.is_d_bool(d)), FALSE, Dyn.d_b(d))
    raise ValueError(kind)


def scalar_like(v: SymValue, other: SymValue) -> SymValue:
    """An untyped value read as the kind of a typed operand (unchanged otherwise)."""
    if v.kind != "dyn":
        return v
    if other.kind == "str":
        return as_scalar(v, "str")
    if is_numeric(other):
        return as_scalar(v, "real")
    if other.kind == "bool":
        return as_scalar(v, "bool")
    return v


def dyn_of(v: SymValue) -> z3.ExprRef | None:
    """A typed scalar as an untyped value (None for composite values)."""
    if v.kind == "dyn":
        return v.value
    if is_numeric(v):
        return Dyn.d_num(as_real(v))
    if v.kind == "str" and not is_coded(v):
        return Dyn.d_str(v.value)
    if v.kind == "bool":
        return Dyn.d_bool(v.value)
    return None


def truthy(v: SymValue) -> z3.BoolRef:
    """How a value reads as a condition: only `true` is true."""
    if v.kind == "bool":
        return conj(v.present, v.value)
    if v.kind == "dyn":
        return z3.And(v.present, Dyn.is_d_bool(v.value), Dyn.d_b(v.value))
    return FALSE


def item_live(v: SymValue, j: int) -> z3.BoolRef:
    """Whether element j of a bounded list or dict exists."""
    return z3.And(v.present, j < v.length)


def dyn_matches(d: SymValue, v: SymValue) -> z3.BoolRef:
    """Equality of a `Dyn` value with a typed scalar (both assumed present)."""
    if is_numeric(v):
        return z3.And(Dyn.is_d_num(d.value), Dyn.d_r(d.value) == as_real(v))
    if v.kind == "str":
        require_text(v)
        return z3.And(Dyn.is_d_str(d.value), Dyn.d_s(d.value) == v.value)
    if v.kind == "bool":
        return z3.And(Dyn.is_d_bool(d.value), Dyn.d_b(d.value) == v.value)
    if v.kind == "dyn":
        return d.value == v.value
    return FALSE  # lists and objects inside `any` are opaque: never equal to a typed one


def values_equal(a: SymValue, b: SymValue) -> z3.BoolRef:
    """JSON equality with ⊥ (`policyc.ir.ops.values_equal`)."""
    if a.null is FALSE and b.null is FALSE and a.kind == b.kind and a.kind in ("int", "real", "str", "bool"):
        return conj(a.defined, b.defined, a.value == b.value)  # the common case, without null tests
    both = z3.And(a.defined, b.defined)
    nulls = z3.And(a.null, b.null)
    return z3.And(both, z3.Or(nulls, z3.And(z3.Not(a.null), z3.Not(b.null), _equal_present(a, b))))


def _equal_present(a: SymValue, b: SymValue) -> z3.BoolRef:  # noqa: C901 - one case per kind pair
    if a.kind == "dyn" or b.kind == "dyn":
        return dyn_matches(a, b) if a.kind == "dyn" else dyn_matches(b, a)
    if is_numeric(a) and is_numeric(b):
        return a.value == b.value if a.kind == b.kind else as_real(a) == as_real(b)
    if a.kind != b.kind:
        return FALSE
    if a.kind in ("str", "bool"):
        return a.value == b.value
    if a.kind == "null":
        return TRUE
    if a.kind == "list":
        parts = [a.length == b.length]
        for j in range(min(len(a.items), len(b.items))):
            parts.append(z3.Implies(j < a.length, values_equal(a.items[j], b.items[j])))
        for j in range(min(len(a.items), len(b.items)), max(len(a.items), len(b.items))):
            parts.append(a.length <= j)
        return z3.And(parts)
    if a.kind == "record":
        names = dict.fromkeys([n for n, _ in a.fields] + [n for n, _ in b.fields])
        parts = []
        for name in names:
            fa, fb = a.field(name), b.field(name)
            da = fa.defined if fa is not None else FALSE
            db = fb.defined if fb is not None else FALSE
            parts.append(da == db)
            if fa is not None and fb is not None:
                parts.append(z3.Implies(da, values_equal(fa, fb)))
        return z3.And(parts)
    if a.kind == "dict":
        return _dict_equal(a, b)
    return FALSE


def _dict_equal(a: SymValue, b: SymValue) -> z3.BoolRef:
    """Same keys, same values: every live entry of one has an equal entry in the other."""

    def covered(x: SymValue, y: SymValue) -> z3.BoolRef:
        parts = []
        for i, (kx, vx) in enumerate(zip(x.keys, x.items)):
            match = z3.Or([z3.And(j < y.length, kx == ky, values_equal(vx, vy))
                           for j, (ky, vy) in enumerate(zip(y.keys, y.items))] or [FALSE])
            parts.append(z3.Implies(i < x.length, match))
        return z3.And(parts) if parts else TRUE

    return z3.And(a.length == b.length, covered(a, b), covered(b, a))


def ordered(op: str, a: SymValue, b: SymValue) -> z3.BoolRef:
    """`<`, `<=`, `>`, `>=`: numbers with numbers, strings with strings, else false."""
    cmp = {"lt": lambda x, y: x < y, "le": lambda x, y: x <= y,
           "gt": lambda x, y: x > y, "ge": lambda x, y: x >= y}[op]
    guard = conj(a.present, b.present)
    if is_numeric(a) and is_numeric(b):
        x, y = (a.value, b.value) if a.kind == b.kind else (as_real(a), as_real(b))
        return conj(guard, cmp(x, y))
    if a.kind == "str" and b.kind == "str":
        require_text(a, b)
        return z3.And(guard, cmp(a.value, b.value))
    if "dyn" in (a.kind, b.kind):
        d, other, flip = (a, b, False) if a.kind == "dyn" else (b, a, True)
        if other.kind == "dyn":  # two untyped values: numbers with numbers, strings with strings
            a_, b_ = a.value, b.value
            nums = z3.And(Dyn.is_d_num(a_), Dyn.is_d_num(b_), cmp(Dyn.d_r(a_), Dyn.d_r(b_)))
            strs = z3.And(Dyn.is_d_str(a_), Dyn.is_d_str(b_), cmp(Dyn.d_s(a_), Dyn.d_s(b_)))
            return z3.And(guard, z3.Or(nums, strs))
        if is_numeric(other):
            x, y = Dyn.d_r(d.value), as_real(other)
            test = Dyn.is_d_num(d.value)
        elif other.kind == "str":
            require_text(other)
            x, y = Dyn.d_s(d.value), other.value
            test = Dyn.is_d_str(d.value)
        else:
            return FALSE
        return z3.And(guard, test, cmp(y, x) if flip else cmp(x, y))
    return FALSE


def membership(x: SymValue, coll: SymValue, opaque=None) -> z3.BoolRef:
    """`x in coll` (`policyc.ir.ops.member`). `opaque(x, coll)` answers for an untyped
    collection that is neither a string nor a scalar (a list or an object inside `any`: not
    modelled, so the caller gives an unconstrained answer and records the approximation)."""
    if coll.kind == "dyn":
        as_text = as_scalar(coll, "str")
        inner = scalar_like(x, as_text)
        text = FALSE
        if inner.kind == "str":
            require_text(inner)
            text = z3.And(inner.present, as_text.present, z3.Contains(as_text.value, inner.value))
        other = z3.And(coll.present, Dyn.is_d_other(coll.value), x.defined, opaque(x, coll)) \
            if opaque is not None else FALSE
        return z3.Or(text, other)
    if coll.kind in ("str", "record", "dict"):
        x = as_scalar(x, "str")  # only a string can be a substring or a key
    if coll.kind == "family":
        return z3.Or([z3.And(g, values_equal(x, v)) for g, v in coll.members] or [FALSE])
    if coll.kind == "list":
        parts = [z3.And(item_live(coll, j), values_equal(x, e)) for j, e in enumerate(coll.items)]
        return z3.And(x.defined, z3.Or(parts or [FALSE]))
    if coll.kind == "str":
        if x.kind != "str":
            return FALSE
        require_text(x, coll)
        return z3.And(x.present, coll.present, z3.Contains(coll.value, x.value))
    if coll.kind == "record":
        if x.kind != "str":
            return FALSE
        require_text(x)
        return z3.And(x.present, coll.present,
                      z3.Or([z3.And(v.defined, x.value == z3.StringVal(n)) for n, v in coll.fields] or [FALSE]))
    if coll.kind == "dict":
        if x.kind != "str":
            return FALSE
        return z3.And(x.present, z3.Or([z3.And(item_live(coll, j), x.value == k)
                                        for j, k in enumerate(coll.keys)] or [FALSE]))
    return FALSE
