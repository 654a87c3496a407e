"""Proposed and recorded calls as the runtime sees them: arguments, identity, results.

>>> call_identity("search", {"b": 1, "a": [1.0, True]})
'["search",{"a":[1.0,true],"b":1}]'
>>> call_identity("search", {"a": 1}) == call_identity("search", {"a": 1.0})
False
>>> normalise_result('{"result": 11}'), normalise_result("plain text")
({'result': 11}, 'plain text')
>>> deep = 1
>>> for _ in range(MAX_VALUE_DEPTH + 1):
...     deep = [deep]
>>> too_deep(deep), too_deep([[1]])
(True, False)
>>> value_problem({"x": deep}), value_problem({"x": b"raw"}), value_problem({"x": [1, {"y": None}]})
('nest more than 100 levels deep', 'hold a `bytes` value, which is not JSON data', None)
>>> value_problem({"amount": float("nan")})
'hold a number that is not finite (NaN or an infinity), which is not JSON data'
>>> call_identity("a", {"x": deep[0][0]}) == call_identity("a", {"x": deep[0][0][0]})   # no depth cut
False
"""

from __future__ import annotations

import json
import math
import re
import unicodedata
from typing import Any, Callable, Mapping

from policyc.ir.ops import UNDEF
from policyc.ir.types import (
    ANY, BOOL, FLOAT, INT, NULL, STR, DictT, EnumT, ListT, OptionalT, RecordT, ToolSignature, Type, sure_types,
)
from policyc.trace.formats.common import parse_result


_IDENTITY = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)


class RunError(Exception):
    """A run used in a way that cannot be right (a refused call recorded, a stopped run continued)."""


def as_tool(tool: str) -> str:
    """A tool name as the policy spells it: in Unicode normal form C (policies read names so),
    so `café` proposed with a combining accent is the declared `café`."""
    if not isinstance(tool, str):
        raise TypeError(f"a tool name is a string, not {type(tool).__name__}")
    return tool if tool.isascii() else unicodedata.normalize("NFC", tool)


def as_args(args: Mapping[str, Any] | None) -> dict[str, Any]:
    """The arguments of a call as a plain dict of its own; None means no arguments."""
    if type(args) is dict:
        return dict(args)
    if args is None:
        return {}
    if not isinstance(args, Mapping):
        raise TypeError(f"tool arguments must be a mapping of names to values, not {type(args).__name__}")
    return dict(args)


#: Arguments and results may nest at most this deep (lists and objects): deeper ones cannot be
#: judged (a proposal is refused) or recorded (RunError).
MAX_VALUE_DEPTH = 100
_SCALARS = frozenset((str, int, float, bool, type(None)))


def too_deep(value: Any, limit: int = MAX_VALUE_DEPTH) -> bool:
    """Whether lists and mappings nest deeper than `limit` in `value` (found without recursion)."""
    kind = type(value)
    if kind in _SCALARS:
        return False
    if limit > 0 and (kind is dict or kind is list):  # most arguments and results: one flat object or list
        for item in (value.values() if kind is dict else value):
            if type(item) not in _SCALARS:
                break
        else:
            return False
    stack = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        kind = type(item)
        if kind in _SCALARS:
            continue  # most values: nothing below them (checked before the costly ABC test)
        if kind is dict or kind is not list and kind is not tuple and isinstance(item, Mapping):
            children = list(item.values())
        elif isinstance(item, (list, tuple)):
            children = list(item)
        else:
            continue
        if depth >= limit and children:
            return True
        stack.extend((child, depth + 1) for child in children)
    return False


#: Integers in arguments and results have at most this many bits (about 4,000 decimal digits,
#: within what Python converts to text): a longer one can be neither identified nor snapshotted.
MAX_INT_BITS = 13_000
_TEXT_SCALARS: frozenset[type] = frozenset((str, bool, type(None)))  # floats: finite ones only


def value_problem(value: Any, limit: int = MAX_VALUE_DEPTH) -> str | None:
    """Why `value` is not JSON data the runtime can judge, identify and snapshot (None: it is).

    JSON data is text, numbers, booleans and None in lists, tuples and mappings keyed by text,
    nested at most `limit` levels, its integers at most MAX_INT_BITS bits. The answer completes
    "the arguments of `tool` ..."; it is found without recursion."""
    if limit <= MAX_VALUE_DEPTH and _plain_json(value, 0, limit):  # the common case: plain data, not too deep
        return None
    return _value_problem(value, limit)


def _value_problem(value: Any, limit: int) -> str | None:
    """`value_problem` by the definition, for any value."""
    stack = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, float) and not math.isfinite(item):
            return "hold a number that is not finite (NaN or an infinity), which is not JSON data"
        if isinstance(item, (str, float, bool)) or item is None:
            continue
        if isinstance(item, int):
            if item.bit_length() > MAX_INT_BITS:
                return "hold an integer of more than 4,000 digits"
            continue
        if isinstance(item, Mapping):
            for key in item:
                if not isinstance(key, str):
                    return f"hold a mapping key that is not text (a `{type(key).__name__}`)"
            children: Any = item.values()
        elif isinstance(item, (list, tuple)):
            children = item
        else:
            return f"hold a `{type(item).__name__}` value, which is not JSON data"
        if depth >= limit and children:
            return f"nest more than {limit} levels deep"
        stack.extend((child, depth + 1) for child in children)
    return None


def as_data(value: Any) -> Any:
    """`value` itself when it is JSON data (no `value_problem`), else its text, so that
    whatever a harness was handed can be written out as JSON.

    >>> as_data({"rows": [1, 2]}), as_data(float("nan")), as_data(b"raw"), as_data(10 ** 5000)
    ({'rows': [1, 2]}, 'nan', "b'raw'", '(an int too large to show as text)')
    """
    if value_problem(value) is None:
        return value
    try:
        return str(value)
    except Exception:  # noqa: BLE001 - nesting or digits past the interpreter's limits, a user's `__str__`
        kind = type(value).__name__
        return f"({'an' if kind[:1] in 'aeiou' else 'a'} {kind} too large to show as text)"


def _plain_json(value: Any, depth: int, limit: int) -> bool:
    """Whether `value` is JSON data made of plain `dict`, `list`, `str`, `int`, `float`, `bool`
    and None only, within the depth and integer limits: then `value_problem` finds nothing
    (False says nothing; the full check decides). One call per container, nothing allocated
    for a scalar."""
    kind = type(value)
    items: Any
    if kind is dict:
        for key in value:
            if type(key) is not str:
                return False
        items = value.values()
    elif kind is list:
        items = value
    elif kind in _TEXT_SCALARS:
        return True
    elif kind is float:
        return bool(value - value == 0.0)  # not NaN nor an infinity
    else:
        return kind is int and value.bit_length() <= MAX_INT_BITS
    if depth >= limit and items:
        return False
    for item in items:
        kind = type(item)
        if kind in _TEXT_SCALARS:
            continue
        if kind is float:
            if item - item != 0.0:
                return False
        elif kind is int:
            if item.bit_length() > MAX_INT_BITS:
                return False
        elif not _plain_json(item, depth + 1, limit):
            return False
    return True


#: `typed_plain`'s check: (value, its depth) -> True when the value is plain JSON of the type
PlainCheck = Callable[[Any, int], bool]


def typed_plain(t: Type) -> PlainCheck:
    """A check of `t` and of `_plain_json` in one walk: True says that the value (at the given
    depth) is plain JSON data within MAX_VALUE_DEPTH and MAX_INT_BITS (`value_problem` finds
    nothing) and has type `t` (`ir.types.type_check(t)` passes); False says nothing, and the
    two checks decide. Made once per tool, for the result its signature declares.

    >>> from policyc.ir.types import ListT, RecordT
    >>> check = typed_plain(ListT(RecordT("Row", (("id", INT), ("note", OptionalT(STR))))))
    >>> check([{"id": 1}, {"id": 2, "note": None, "extra": [True]}], 0), check([{"id": True}], 0)
    (True, False)
    >>> check([{"id": 1, 2: "a key that is not text"}], 0), check([{"id": 1 << 20_000}], 0)
    (False, False)
    """
    limit = MAX_VALUE_DEPTH
    if t is ANY:
        return lambda v, depth: _plain_json(v, depth, limit)
    if isinstance(t, OptionalT):
        inner = typed_plain(t.inner)
        return lambda v, depth: v is None or inner(v, depth)
    if t is FLOAT:
        return lambda v, depth: type(v) is float and v - v == 0.0 or type(v) is int and v.bit_length() <= MAX_INT_BITS
    if t is INT:
        return lambda v, depth: type(v) is int and v.bit_length() <= MAX_INT_BITS
    if t is STR:
        return lambda v, depth: type(v) is str
    if t is BOOL:
        return lambda v, depth: type(v) is bool
    if t is NULL:
        return lambda v, depth: v is None
    if isinstance(t, EnumT):
        members = frozenset(t.members)
        return lambda v, depth: type(v) is str and v in members
    if isinstance(t, ListT):
        return _plain_list(typed_plain(t.elem), limit)
    if isinstance(t, DictT):
        return _plain_dict(typed_plain(t.value), limit)
    if isinstance(t, RecordT) and len({name for name, _ in t.fields}) == len(t.fields):
        return _plain_record(t, limit)
    return lambda v, depth: False  # any other type: the two checks decide


def _plain_list(elem: PlainCheck, limit: int) -> PlainCheck:
    def check(v: Any, depth: int) -> bool:
        if type(v) is not list or depth >= limit and v:
            return False
        for item in v:
            if not elem(item, depth + 1):
                return False
        return True
    return check


def _plain_dict(item: PlainCheck, limit: int) -> PlainCheck:
    def check(v: Any, depth: int) -> bool:
        if type(v) is not dict or depth >= limit and v:
            return False
        for key, value in v.items():
            if type(key) is not str or not item(value, depth + 1):
                return False
        return True
    return check


def _plain_record(t: RecordT, limit: int) -> PlainCheck:
    # per field: the Python types whose values certainly pass (told without a call), its check
    fields = {name: (_sure_plain(ft), typed_plain(ft)) for name, ft in t.fields}
    required = frozenset(name for name, ft in t.fields if not isinstance(ft, OptionalT) and ft is not ANY)

    def check(v: Any, depth: int) -> bool:
        if type(v) is not dict or depth >= limit and v:
            return False
        for key, value in v.items():
            if type(key) is not str:
                return False
            field = fields.get(key)
            if field is None:  # a field the type does not declare: plain JSON of any type
                if type(value) not in _TEXT_SCALARS and not _plain_json(value, depth + 1, limit):
                    return False
            elif type(value) not in field[0] and not field[1](value, depth + 1):
                return False
        return required.issubset(v)
    return check


def typed_args(sig: ToolSignature) -> Callable[[Any], bool]:
    """A check of a call's arguments against its tool's signature and of `_plain_json`, in
    one walk: True says that they are a plain dict of plain JSON data within the limits
    (`value_problem` finds nothing) that `trace.conformance.Signatures.conforms` passes (every
    argument declared and of its type, every required one given); False says nothing, and
    the two checks decide. Made once per tool, when the monitor loads.

    >>> from policyc.ir.types import Param
    >>> pay = ToolSignature("pay", (Param("to", STR), Param("amount", FLOAT), Param("memo", OptionalT(STR))), STR)
    >>> check = typed_args(pay)
    >>> check({"to": "Bob", "amount": 3}), check({"to": "Bob"}), check({"to": "Bob", "amount": 3, "x": 1})
    (True, False, False)
    """
    params = {p.name: (_sure_plain(p.type), typed_plain(p.type)) for p in sig.params}
    required = frozenset(p.name for p in sig.params if p.required)

    def check(args: Any) -> bool:
        if type(args) is not dict:
            return False
        for key, value in args.items():
            param = params.get(key) if type(key) is str else None
            if param is None or type(value) not in param[0] and not param[1](value, 1):
                return False
        return required.issubset(args)
    return check


def _sure_plain(t: Type) -> frozenset[type]:
    """The Python types whose every value is plain JSON of type `t`: the scalars `sure_types`
    lists, without numbers (an integer's size and a float's finiteness are checked); text,
    booleans and None for `any`."""
    if (t.inner if isinstance(t, OptionalT) else t) is ANY:
        return _TEXT_SCALARS
    return sure_types(t) - _NUMBERS


_NUMBERS: frozenset[type] = frozenset((int, float))


#: Text pydantic's lax mode (the OpenAI Agents SDK, LangGraph, pydantic-based tools) reads as
#: a number: Python's own number syntax (a sign, digit groups with `_`, an exponent, `inf`,
#: `infinity`, `nan`), spaces around it; and as a boolean (any case).
_NUMBER = re.compile(r"[+-]?(?:(?:[0-9](?:_?[0-9])*)?(?:\.(?:[0-9](?:_?[0-9])*)?)?(?:[eE][+-]?[0-9](?:_?[0-9])*)?"
                     r"|inf|infinity|nan)", re.IGNORECASE)
_TRUE, _FALSE = frozenset(("true", "1", "yes", "on", "t", "y")), frozenset(("false", "0", "no", "off", "f", "n"))


def coerced_args(sig: ToolSignature, args: Mapping[str, Any]) -> dict[str, Any] | None:
    """The arguments as a tool that converts them to its declared types would receive them
    (None: the same), as pydantic's lax mode converts (the OpenAI Agents SDK, LangGraph's
    tool calling, pydantic-based tools): text that reads as a number where the signature
    declares a number (`"1000"`, `"+1_000"`, `"1e3"`, `"Infinity"`), and a boolean there (as 1
    or 0); text that reads as a boolean where it declares one (`"true"`, `"yes"`, `"on"`,
    `"1"`, ...), and the numbers 1 and 0 there. A rule must hold on these values too: a
    `deny` of `pay(amount > 100)` is not passed by `{"amount": "+1_000"}`.

    >>> from policyc.ir.types import Param
    >>> pay = ToolSignature("pay", (Param("amount", FLOAT), Param("to", STR), Param("now", OptionalT(BOOL))), STR)
    >>> coerced_args(pay, {"amount": " 1_000 ", "to": "7", "now": "Yes"}), coerced_args(pay, {"amount": 3})
    ({'amount': 1000, 'to': '7', 'now': True}, None)
    >>> coerced_args(pay, {"amount": "Infinity", "now": 0})
    {'amount': inf, 'now': False}
    """
    out: dict[str, Any] | None = None
    for param in sig.params:
        value = args.get(param.name)
        kind = type(value)
        if kind not in (str, bool, int, float):
            continue
        t = param.type.inner if isinstance(param.type, OptionalT) else param.type
        new: Any = value
        if t in (INT, FLOAT):
            if kind is bool:
                new = 1 if value else 0
            elif kind is str:
                text = str(value).strip()
                try:
                    number = float(text) if len(text) <= 400 and _NUMBER.fullmatch(text) else None
                except ValueError:  # the pattern's parts without a digit (`e5`, `.`)
                    number = None
                if number is not None:
                    new = int(number) if number.is_integer() and abs(number) < 2 ** 53 else number
        elif t is BOOL:
            if kind is str:
                text = str(value).strip().lower()
                new = True if text in _TRUE else False if text in _FALSE else value
            elif kind in (int, float) and value in (0, 1):
                new = bool(value)
        if new is not value:
            out = dict(args) if out is None else out
            out[param.name] = new
    return out


def call_identity(tool: str, args: Mapping[str, Any], *, checked: bool = False) -> str:
    """A call's identity for the identical-retry override: tool and arguments, byte for byte,
    as canonical JSON (keys sorted, since a mapping has no order; values exact: `1` and `1.0`
    differ). Two calls share an identity exactly when they are the same call: there is no cut
    at any depth. Defined for arguments without a `value_problem` only (ValueError otherwise):
    a call whose arguments have one is refused before any identity matters. `checked`: the
    caller has just found the arguments free of one, so they are not walked again."""
    problem = None if checked else value_problem(args)
    if problem is not None:
        raise ValueError(f"the arguments {problem}")
    return _IDENTITY.encode([tool, args])


def unidentified(tool: str, problem: str) -> str:
    """What the enforcement log holds for a call refused because its arguments have a
    `value_problem`: never the identity of any call (identities are JSON arrays), so nothing
    can be overridden by it."""
    return f"<`{tool}`: arguments that {problem}>"


def normalise_result(result: Any) -> Any:
    """A tool result as the trace loaders hold it: text that is a JSON object, array or
    constant is parsed (appendix B), so a run scores as its exported trace does. Text that
    does not parse, holds a number too long to convert, or nests deeper than MAX_VALUE_DEPTH
    stays text."""
    parsed = parse_result(result)
    if parsed is not result and too_deep(parsed):
        return result
    return parsed


def result_to_json(result: Any) -> dict[str, object]:
    """A result for a snapshot: absent when no result was recorded."""
    return {} if result is UNDEF else {"result": result}


def result_from_json(data: Mapping[str, Any]) -> Any:
    return data["result"] if "result" in data else UNDEF
