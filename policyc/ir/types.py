"""Value types and tool signatures, shared by the checker, the solver and the runtime.

>>> t = ListT(RecordT("Order", (("id", STR), ("amount", FLOAT))))
>>> str(t), type_from_json(type_to_json(t)) == t
('list[Order]', True)
>>> value_problems({"id": "A1", "amount": "12"}, t.elem)
['`amount` should be float, got str']
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Union, cast


@dataclass(frozen=True, slots=True)
class Prim:
    """int, float, str, bool, null or any."""

    name: str

    def __str__(self) -> str:
        return self.name


INT = Prim("int")
FLOAT = Prim("float")
STR = Prim("str")
BOOL = Prim("bool")
NULL = Prim("null")
ANY = Prim("any")
PRIMITIVES = {p.name: p for p in (INT, FLOAT, STR, BOOL, NULL, ANY)}


@dataclass(frozen=True, slots=True)
class ListT:
    elem: "Type"

    def __str__(self) -> str:
        return f"list[{self.elem}]"


@dataclass(frozen=True, slots=True)
class DictT:
    value: "Type"

    def __str__(self) -> str:
        return f"dict[str, {self.value}]"


@dataclass(frozen=True, slots=True)
class OptionalT:
    inner: "Type"

    def __str__(self) -> str:
        return f"{self.inner}?"


@dataclass(frozen=True, slots=True)
class EnumT:
    name: str
    members: tuple[str, ...]

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True, slots=True)
class RecordT:
    name: str
    fields: tuple[tuple[str, "Type"], ...]

    def __str__(self) -> str:
        if self.name:
            return self.name
        return "{" + ", ".join(f"{n}: {t}" for n, t in self.fields) + "}"

    def field(self, name: str) -> "Type | None":
        for fname, ftype in self.fields:
            if fname == name:
                return ftype
        return None


@dataclass(frozen=True, slots=True)
class EntitySetT:
    """The grounding set of `outputs`: membership is the paper's entity match (appendix H.3)."""

    def __str__(self) -> str:
        return "outputs"


Type = Union[Prim, ListT, DictT, OptionalT, EnumT, RecordT, EntitySetT]


def strip_optional(t: Type) -> Type:
    return t.inner if isinstance(t, OptionalT) else t


def is_numeric(t: Type) -> bool:
    t = strip_optional(t)
    return t in (INT, FLOAT, ANY)


def is_collection(t: Type) -> bool:
    t = strip_optional(t)
    return isinstance(t, (ListT, DictT, EntitySetT)) or t in (STR, ANY)


def element_type(t: Type) -> Type:
    """The type of `x` in `x in t` / `forall x in t`."""
    t = strip_optional(t)
    if isinstance(t, ListT):
        return t.elem
    if isinstance(t, DictT):
        return STR
    if t is STR or isinstance(t, EntitySetT):
        return STR
    return ANY


def compatible(a: Type, b: Type) -> bool:
    """Whether values of `a` and `b` may meaningfully be compared with `==`."""
    a, b = strip_optional(a), strip_optional(b)
    if ANY in (a, b) or NULL in (a, b):
        return True
    if is_numeric(a) and is_numeric(b):
        return True
    if isinstance(a, EnumT) or isinstance(b, EnumT):
        other = b if isinstance(a, EnumT) else a
        return other is STR or isinstance(other, EnumT) and a == b
    if isinstance(a, ListT) and isinstance(b, ListT):
        return compatible(a.elem, b.elem)
    if isinstance(a, (DictT, RecordT)) and isinstance(b, (DictT, RecordT)):
        return True
    return a == b


def join(a: Type, b: Type) -> Type:
    """A type that holds values of both `a` and `b` (used for list literals and domains)."""
    if a == b:
        return a
    if {a, b} == {INT, FLOAT}:
        return FLOAT
    if a is NULL:
        return OptionalT(strip_optional(b))
    if b is NULL:
        return OptionalT(strip_optional(a))
    if isinstance(a, EnumT) and b is STR or isinstance(b, EnumT) and a is STR:
        return STR
    return ANY


# ------------------------------------------------------------------ tool signatures


@dataclass(frozen=True, slots=True)
class Param:
    name: str
    type: Type

    @property
    def required(self) -> bool:
        return not isinstance(self.type, OptionalT)


@dataclass(frozen=True, slots=True)
class ToolSignature:
    """A declared tool. `alias_of` names the tool it renames, if it is an alias."""

    name: str
    params: tuple[Param, ...]
    result: Type
    terminal: bool = False
    alias_of: str | None = None

    def param(self, name: str) -> Param | None:
        for p in self.params:
            if p.name == name:
                return p
        return None

    def __str__(self) -> str:
        params = ", ".join(f"{p.name}: {p.type}" for p in self.params)
        prefix = "terminal tool" if self.terminal else "tool"
        result = "" if self.result is ANY else f" -> {self.result}"
        return f"{prefix} {self.name}({params}){result}"


#: The signature of message events: a message's text ("" when it has none) and the names of
#: the tools it calls, in order. A policy that observes messages has it as a tool.
MESSAGE_SIGNATURE = ToolSignature("message", (Param("text", STR), Param("calls", ListT(STR))), ANY)
#: The attributes of every event, readable inside its pattern, and their types.
ATTRIBUTE_TYPES: dict[str, "Type"] = {"actor": STR, "message_id": OptionalT(STR), "error": BOOL}
#: `request`: the user's request that started the run.
REQUEST_TYPE = RecordT("request", (("text", STR),))


# ------------------------------------------------------------------ values


def type_of_value(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float"
    if isinstance(value, str):
        return "str"
    if isinstance(value, list):
        return "list"
    if isinstance(value, dict):
        return "dict"
    return type(value).__name__


def value_problems(value: object, t: Type, where: str = "") -> list[str]:
    """Ways in which a JSON value does not have type `t` (empty when it conforms)."""
    label = f"`{where}` " if where else ""
    if t is ANY:
        return []
    if isinstance(t, OptionalT):
        return [] if value is None else value_problems(value, t.inner, where)
    actual = type_of_value(value)
    if t is FLOAT:
        ok = actual in ("int", "float")
    elif t in (INT, STR, BOOL, NULL):
        ok = actual == t.name
    elif isinstance(t, EnumT):
        if actual == "str" and value not in t.members:
            return [f"{label}should be one of {', '.join(t.members)}, got \"{value}\""]
        ok = actual == "str"
    elif isinstance(t, ListT):
        if actual != "list":
            ok = False
        else:
            out: list[str] = []
            for i, item in enumerate(cast(list[object], value)):
                out.extend(value_problems(item, t.elem, f"{where}[{i}]"))
            return out
    elif isinstance(t, DictT):
        if actual != "dict":
            ok = False
        else:
            out = []
            for key, item in cast(dict[str, object], value).items():
                out.extend(value_problems(item, t.value, f"{where}.{key}" if where else key))
            return out
    elif isinstance(t, RecordT):
        if actual != "dict":
            ok = False
        else:
            out = []
            for fname, ftype in t.fields:
                path = f"{where}.{fname}" if where else fname
                if fname not in value:  # type: ignore[operator]
                    if not isinstance(ftype, OptionalT) and ftype is not ANY:
                        out.append(f"`{path}` is missing")
                    continue
                out.extend(value_problems(value[fname], ftype, path))  # type: ignore[index]
            return out
    else:
        ok = True
    return [] if ok else [f"{label}should be {t}, got {actual}"]


def has_type(value: object, t: Type) -> bool:
    """Whether a JSON value has type `t`: `not value_problems(value, t)`, told at the first
    problem without writing any. To ask it of many values, make the check once (`type_check`),
    as the tools' signatures do (`policyc.trace.conformance.Signatures`).

    >>> order = RecordT("Order", (("id", STR), ("amount", FLOAT)))
    >>> has_type([{"id": "A1", "amount": 12}], ListT(order)), has_type({"id": "A1"}, order)
    (True, False)
    """
    return type_check(t)(value)


def _is_int(v: object) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_number(v: object) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def sure_types(t: Type) -> frozenset[type]:
    """The Python types whose every value has type `t`: only scalar types are listed, so that
    a value of one of them is told at a glance (`type(v) in sure`); a value of any other
    Python type is asked of the type's check.

    >>> sorted(k.__name__ for k in sure_types(OptionalT(FLOAT))), sure_types(ListT(INT))
    (['NoneType', 'float', 'int'], frozenset())
    """
    optional = isinstance(t, OptionalT)
    inner = t.inner if isinstance(t, OptionalT) else t
    found: frozenset[type] = frozenset()
    for scalar, kinds in ((INT, (int,)), (STR, (str,)), (BOOL, (bool,)), (FLOAT, (int, float)), (NULL, (type(None),))):
        if inner == scalar:
            found = frozenset(kinds)
    return found | {type(None)} if optional else found


_MISSING = object()


def type_check(t: Type) -> Callable[[object], bool]:
    """`has_type(·, t)` as one function, in `value_problems`'s order of cases. Scalars inside a
    list or a record are told by their Python type where it settles it (`sure_types`), without
    a call of their check per value."""
    if t is ANY:
        return lambda v: True
    if isinstance(t, OptionalT):
        inner = type_check(t.inner)
        return lambda v: v is None or inner(v)
    if t is FLOAT:
        return _is_number
    if t in (INT, STR, BOOL, NULL):
        return {"int": _is_int, "str": lambda v: isinstance(v, str), "bool": lambda v: isinstance(v, bool),
                "null": lambda v: v is None}[t.name]
    if isinstance(t, EnumT):
        members = t.members
        return lambda v: isinstance(v, str) and v in members
    if isinstance(t, ListT):
        elem, sure = type_check(t.elem), sure_types(t.elem)
        if sure:
            return lambda v: isinstance(v, list) and (sure.issuperset(map(type, v)) or all(map(elem, v)))
        return lambda v: isinstance(v, list) and all(map(elem, v))
    if isinstance(t, DictT):
        item = type_check(t.value)
        return lambda v: isinstance(v, dict) and all(map(item, v.values()))
    if isinstance(t, RecordT):
        # each field that can be wrong: its name, whether it must be there, the types that
        # settle it at a glance, and its check (a field of type `any` cannot be wrong)
        fields = tuple((name, not isinstance(ft, OptionalT), sure_types(ft), type_check(ft))
                       for name, ft in t.fields if ft is not ANY)

        def record(v: object) -> bool:
            if not isinstance(v, dict):
                return False
            for name, required, sure, check in fields:
                value = v.get(name, _MISSING)
                if value is _MISSING:
                    if required:
                        return False
                elif type(value) not in sure and not check(value):
                    return False
            return True
        return record
    return lambda v: True


# ------------------------------------------------------------------ JSON form (for the artifact)


def type_to_json(t: Type) -> object:
    if isinstance(t, Prim):
        return t.name
    if isinstance(t, ListT):
        return {"list": type_to_json(t.elem)}
    if isinstance(t, DictT):
        return {"dict": type_to_json(t.value)}
    if isinstance(t, OptionalT):
        return {"optional": type_to_json(t.inner)}
    if isinstance(t, EnumT):
        return {"enum": t.name, "members": list(t.members)}
    if isinstance(t, RecordT):
        return {"record": t.name, "fields": [[n, type_to_json(ft)] for n, ft in t.fields]}
    if isinstance(t, EntitySetT):
        return "outputs"
    raise TypeError(f"not a type: {t!r}")


def type_from_json(data: object) -> Type:
    """A type from its JSON form; ValueError for anything that is not one (artifacts are data
    from outside).

    >>> type_from_json({"optional": "int"})
    OptionalT(inner=Prim(name='int'))
    >>> type_from_json({"list": "integer"})
    Traceback (most recent call last):
    ...
    ValueError: not a type: 'integer'
    """
    if isinstance(data, str):
        if data == "outputs":
            return EntitySetT()
        if data in PRIMITIVES:
            return PRIMITIVES[data]
    elif isinstance(data, dict) and len(data) == 1:
        (key, inner), = data.items()
        if key == "list":
            return ListT(type_from_json(inner))
        if key == "dict":
            return DictT(type_from_json(inner))
        if key == "optional":
            return OptionalT(type_from_json(inner))
    elif isinstance(data, dict) and set(data) == {"enum", "members"}:
        members = data["members"]
        if isinstance(data["enum"], str) and isinstance(members, list) and all(isinstance(m, str) for m in members):
            return EnumT(data["enum"], tuple(members))
    elif isinstance(data, dict) and set(data) == {"record", "fields"}:
        fields = data["fields"]
        if isinstance(data["record"], str) and isinstance(fields, list) and all(
                isinstance(f, list) and len(f) == 2 and isinstance(f[0], str) for f in fields):
            return RecordT(data["record"], tuple((n, type_from_json(ft)) for n, ft in fields))
    shown = repr(data) if len(repr(data)) <= 60 else repr(data)[:57] + "..."
    raise ValueError(f"not a type: {shown}")


def signature_to_json(sig: ToolSignature) -> dict[str, Any]:
    return {
        "name": sig.name,
        "params": [{"name": p.name, "type": type_to_json(p.type)} for p in sig.params],
        "result": type_to_json(sig.result),
        "terminal": sig.terminal,
        "alias_of": sig.alias_of,
    }


def signature_from_json(data: dict[str, Any]) -> ToolSignature:
    params = data["params"]
    if not isinstance(data["name"], str) or not isinstance(params, list):
        raise ValueError("a tool signature has a name and a list of parameters")
    alias_of = data.get("alias_of")
    if alias_of is not None and not isinstance(alias_of, str):
        raise ValueError("`alias_of` names a tool")
    return ToolSignature(
        data["name"],
        tuple(Param(p["name"], type_from_json(p["type"])) for p in params),
        type_from_json(data["result"]),
        bool(data.get("terminal", False)),
        alias_of,
    )
