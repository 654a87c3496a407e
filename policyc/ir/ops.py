"""The data layer: operators over JSON values, with the paper's undefined value ⊥.

A term evaluates to a JSON value or `UNDEF` (⊥: a missing argument or field, an index out of
range, a division by zero, an operation on values of the wrong type). Appendix A.1.4:
a predicate that depends on a ⊥ operand is false; so comparisons, membership and predicates
with a ⊥ operand are false. Boolean connectives read ⊥ and non-booleans as false.

Equality is JSON equality: numbers compare by value (`1 == 1.0`), booleans are not numbers
(`true != 1`), lists and objects compare element-wise.

>>> apply_op("add", 2, 3), apply_op("div", 1, 0) is UNDEF, apply_op("eq", 1, 1.0), apply_op("eq", True, 1)
(5, True, True, False)
>>> apply_op("lt", UNDEF, 3), apply_op("not", UNDEF)
(False, True)
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any, Callable

from policyc.grounding.kinds import FINDERS, KINDS


class _Undef:
    __slots__ = ()

    def __repr__(self) -> str:
        return "⊥"

    def __bool__(self) -> bool:
        return False

    def __reduce__(self) -> str:
        return "UNDEF"  # one ⊥ per process: a pickled ⊥ loads as this module's `UNDEF`


UNDEF = _Undef()

#: A JSON value or ⊥, as the operators take and give them: their cases test types as they go.
Value = Any
Fn = Callable[..., Value]


def is_number(v: object) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def values_equal(a: object, b: object) -> bool:
    if type(a) is str:  # the common case, first: two texts (any other kind differs from one)
        return type(b) is str and a == b
    if a is UNDEF or b is UNDEF:
        return False
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if is_number(a) and is_number(b):
        return a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(values_equal(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(values_equal(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


def value_key(value: object) -> object:
    """A hashable key equal for JSON-equal values and different otherwise."""
    if value is UNDEF:
        return ("undef",)
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, bool):
        return ("bool", value)
    if isinstance(value, (int, float)):
        if isinstance(value, float) and math.isfinite(value) and value.is_integer():
            return ("num", int(value))
        return ("num", value)
    if isinstance(value, list):
        return ("list",) + tuple(value_key(v) for v in value)
    if isinstance(value, dict):
        return ("dict",) + tuple((k, value_key(value[k])) for k in sorted(value))
    try:
        return ("json", json.dumps(value, sort_keys=True, default=repr))
    except (TypeError, ValueError):
        return ("repr", repr(value))


def domain_values(value: object) -> list[Value]:
    """The elements a quantifier instantiates its variable with, in order: a list's elements,
    an object's keys, nothing for ⊥ or null, the members of the grounding set, one value
    otherwise (appendix A.2.4)."""
    if isinstance(value, list):
        return value
    if isinstance(value, dict):
        return list(value)
    if value is UNDEF or value is None:
        return []
    if not isinstance(value, str) and hasattr(value, "__iter__"):
        return list(value)
    return [value]


def truthy(v: object) -> bool:
    """How a value reads as a condition: only `true` is true."""
    return v is True


def _arith(fn: Fn) -> Fn:
    def run(a: Value, b: Value) -> Value:
        if is_number(a) and is_number(b):
            try:
                out = fn(a, b)
            except (ZeroDivisionError, OverflowError, ValueError):
                return UNDEF
            if isinstance(out, float) and not math.isfinite(out):
                return UNDEF
            return out
        return UNDEF

    return run


def _add(a: Value, b: Value) -> Value:
    if is_number(a) and is_number(b):
        return a + b
    if isinstance(a, str) and isinstance(b, str):
        return a + b
    if isinstance(a, list) and isinstance(b, list):
        return a + b
    return UNDEF


def _div(a: Value, b: Value) -> Value:
    if isinstance(a, int) and isinstance(b, int) and b != 0 and a % b == 0:
        return a // b
    return a / b


def _mod(a: Value, b: Value) -> Value:
    if isinstance(a, float) or isinstance(b, float):
        return math.fmod(a, b) if b else UNDEF
    return a % b


def _order(fn: Fn) -> Fn:
    def run(a: Value, b: Value) -> Value:
        if is_number(a) and is_number(b) or isinstance(a, str) and isinstance(b, str):
            return fn(a, b)
        return False

    return run


def member(x: Value, coll: Value) -> bool:
    if x is UNDEF or coll is UNDEF:
        return False
    if isinstance(coll, list):
        return any(values_equal(x, e) for e in coll)
    if isinstance(coll, dict):
        return isinstance(x, str) and x in coll
    if isinstance(coll, str):
        return isinstance(x, str) and x in coll
    contains = getattr(coll, "contains", None)  # the grounding set of `outputs`
    if contains is not None:
        return bool(contains(x))
    return False


def _length(v: Value) -> Value:
    if isinstance(v, (list, dict, str)):
        return len(v)
    return UNDEF


def _str_fn(fn: Fn, arity: int) -> Fn:
    """A string method as an operator of `arity` operands: false (a test) or ⊥ (a function)
    when an operand is not a string."""
    otherwise = False if fn in (str.__contains__, str.startswith, str.endswith) else UNDEF
    if arity == 1:
        def one(a: Value) -> Value:
            return fn(a) if isinstance(a, str) else otherwise
        return one

    def two(a: Value, b: Value) -> Value:
        return fn(a, b) if isinstance(a, str) and isinstance(b, str) else otherwise
    return two


def _neg(a: Value) -> Value:
    return -a if is_number(a) else UNDEF


def _abs(a: Value) -> Value:
    return abs(a) if is_number(a) else UNDEF


def _minmax(fn: Fn) -> Fn:
    def run(a: Value, b: Value) -> Value:
        if is_number(a) and is_number(b) or isinstance(a, str) and isinstance(b, str):
            return fn(a, b)
        return UNDEF

    return run


def _entities(text: Value) -> Value:
    from policyc.grounding import entities

    return entities(text)  # the default extractor; `eval_term` applies the one an evaluation is given


def _kind(name: str) -> Fn:
    """A typed entity kind as an operator: the entities of a text (⊥ for a value that is not one)."""
    finder = FINDERS[name]

    def find(text: Value) -> Value:
        found = finder(text)
        return UNDEF if found is None else found

    return find


def _matches(text: Value, pattern: Value) -> Value:
    from policyc.ir.regex import full_match

    return full_match(pattern, text)


def _actions(text: Value, claims: Value) -> Value:
    from policyc.grounding.actions import claimed_actions

    return claimed_actions(text, claims) if isinstance(claims, dict) else UNDEF  # the default reader


def _unreadable(value: Value) -> bool:
    """Whether membership in `value` reads more than a list's elements: a text (`x in text`:
    its substrings) or an object (its keys). Made only by the compiler: a rule that binds a
    variable by `x in v` cannot read a call whose `v` is one (`policyc.automata.trigger`)."""
    return isinstance(value, (str, dict))


def _make_list(*items: Value) -> Value:
    return list(items)


def _make_dict(*kv: Value) -> Value:
    return {kv[i]: kv[i + 1] for i in range(0, len(kv), 2)}


@dataclass(frozen=True, slots=True)
class OpSpec:
    name: str
    symbol: str  # how the printer writes it
    arity: int  # -1: variadic
    fn: Fn
    strict: bool  # ⊥ in, ⊥ out (False for ops that handle ⊥ themselves)
    kind: str  # arith, compare, bool, builtin, ctor


OPS: dict[str, OpSpec] = {
    s.name: s
    for s in (
        OpSpec("add", "+", 2, _add, True, "arith"),
        OpSpec("sub", "-", 2, _arith(lambda a, b: a - b), True, "arith"),
        OpSpec("mul", "*", 2, _arith(lambda a, b: a * b), True, "arith"),
        OpSpec("div", "/", 2, _arith(_div), True, "arith"),
        OpSpec("mod", "%", 2, _arith(_mod), True, "arith"),
        OpSpec("neg", "-", 1, _neg, True, "arith"),
        OpSpec("eq", "==", 2, values_equal, False, "compare"),
        OpSpec("ne", "!=", 2, lambda a, b: a is not UNDEF and b is not UNDEF and not values_equal(a, b), False,
               "compare"),
        OpSpec("lt", "<", 2, _order(lambda a, b: a < b), False, "compare"),
        OpSpec("le", "<=", 2, _order(lambda a, b: a <= b), False, "compare"),
        OpSpec("gt", ">", 2, _order(lambda a, b: a > b), False, "compare"),
        OpSpec("ge", ">=", 2, _order(lambda a, b: a >= b), False, "compare"),
        OpSpec("in", "in", 2, member, False, "compare"),
        OpSpec("and", "and", -1, lambda *xs: all(truthy(x) for x in xs), False, "bool"),
        OpSpec("or", "or", -1, lambda *xs: any(truthy(x) for x in xs), False, "bool"),
        OpSpec("not", "not", 1, lambda x: not truthy(x), False, "bool"),
        OpSpec("len", "len", 1, _length, True, "builtin"),
        OpSpec("abs", "abs", 1, _abs, True, "builtin"),
        OpSpec("min", "min", 2, _minmax(min), True, "builtin"),
        OpSpec("max", "max", 2, _minmax(max), True, "builtin"),
        OpSpec("contains", "contains", 2, _str_fn(str.__contains__, 2), False, "builtin"),
        OpSpec("startswith", "startswith", 2, _str_fn(str.startswith, 2), False, "builtin"),
        OpSpec("endswith", "endswith", 2, _str_fn(str.endswith, 2), False, "builtin"),
        OpSpec("lower", "lower", 1, _str_fn(str.lower, 1), True, "builtin"),
        OpSpec("upper", "upper", 1, _str_fn(str.upper, 1), True, "builtin"),
        OpSpec("strip", "strip", 1, _str_fn(str.strip, 1), True, "builtin"),
        OpSpec("entities", "entities", 1, _entities, True, "builtin"),
        OpSpec("matches", "matches", 2, _matches, False, "builtin"),
        *(OpSpec(kind, kind, 1, _kind(kind), True, "builtin") for kind in KINDS),
        OpSpec("actions", "actions", 2, _actions, True, "builtin"),
        OpSpec("unreadable", "unreadable", 1, _unreadable, False, "builtin"),
        OpSpec("list", "list", -1, _make_list, True, "ctor"),
        OpSpec("dict", "dict", -1, _make_dict, True, "ctor"),
    )
}

#: comparison operators by their surface symbol
COMPARE_BY_SYMBOL = {"==": "eq", "!=": "ne", "<": "lt", "<=": "le", ">": "gt", ">=": "ge", "in": "in"}
ARITH_BY_SYMBOL = {"+": "add", "-": "sub", "*": "mul", "/": "div", "%": "mod"}
NEGATED_COMPARE = {"eq": "ne", "ne": "eq", "lt": "ge", "le": "gt", "gt": "le", "ge": "lt"}


def apply_op(name: str, *args: Value) -> Value:
    spec = OPS[name]
    if spec.strict and any(a is UNDEF for a in args):
        return UNDEF
    if spec.name in ("contains", "startswith", "endswith") and any(a is UNDEF for a in args):
        return False
    try:
        return spec.fn(*args)
    except (TypeError, ValueError, OverflowError, RecursionError):
        return UNDEF


def get_field(base: Value, name: str) -> Value:
    if isinstance(base, dict) and name in base:
        return base[name]
    return UNDEF


def get_index(base: Value, index: Value) -> Value:
    if isinstance(base, list) and isinstance(index, int) and not isinstance(index, bool):
        if -len(base) <= index < len(base):
            return base[index]
        return UNDEF
    if isinstance(base, dict) and isinstance(index, str):
        return base.get(index, UNDEF)
    if isinstance(base, str) and isinstance(index, int) and not isinstance(index, bool):
        if -len(base) <= index < len(base):
            return base[index]
    return UNDEF


def get_slice(base: Value, start: Value, stop: Value) -> Value:
    def ok(v: Value) -> bool:
        return v is None or isinstance(v, int) and not isinstance(v, bool)

    if isinstance(base, (list, str)) and ok(start) and ok(stop):
        return base[start:stop]
    return UNDEF
