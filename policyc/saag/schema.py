"""Function documentation in JSON (BFCL's, OpenAI's tools) as policyc tool signatures.

SAAG's registry is the set of functions an agent was shown, each with its admissible
parameters A_all, the required ones A_req and their types. policyc already has that shape,
`ToolSignature`, so a JSON schema block is read into one: a parameter outside `required`
becomes optional (`T?`), and the types map as below (names compared without case, since
BFCL's Java and JavaScript sets write `String`, `Boolean`, `HashMap`):

| JSON type | policyc type |
|---|---|
| `integer`, `int`, `long`, `short`, `byte` | int |
| `number`, `float`, `double` | float |
| `string`, `str`, `char` (with `enum`: the listed strings) | str |
| `boolean`, `bool` | bool |
| `array`, `tuple`, `list`, `ArrayList` (with `items`) | list of the item type |
| `dict`, `object`, `HashMap`, `map` | dict |
| `any`, absent or anything else | any |

>>> sig = signature_from_json({"name": "get_weather", "parameters": {"type": "dict",
...     "properties": {"city": {"type": "string"}, "days": {"type": "integer"}}, "required": ["city"]}})
>>> str(sig)
'tool get_weather(city: str, days: int?)'
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Any, Iterable, Mapping

from policyc.ir.types import ANY, BOOL, FLOAT, INT, STR, DictT, EnumT, ListT, OptionalT, Param, ToolSignature, Type

_TYPES: Mapping[str, Type] = MappingProxyType({
    **dict.fromkeys(("integer", "int", "long", "short", "byte"), INT),
    **dict.fromkeys(("number", "float", "double"), FLOAT),
    **dict.fromkeys(("string", "str", "char", "character"), STR),
    **dict.fromkeys(("boolean", "bool"), BOOL),
    **dict.fromkeys(("dict", "object", "hashmap", "map"), DictT(ANY)),
})
_LISTS = ("array", "tuple", "list", "arraylist")


class SchemaError(ValueError):
    """A function document that cannot be read as a tool signature; `field` says where."""

    def __init__(self, message: str, field: str = ""):
        super().__init__(f"{field}: {message}" if field else message)
        self.field = field
        self.message = message


def type_from_schema(schema: Any, depth: int = 0) -> Type:
    """The policyc type of one JSON schema property (see the module's table).

    >>> str(type_from_schema({"type": "array", "items": {"type": "float"}}))
    'list[float]'
    >>> str(type_from_schema({"type": ["string", "null"]})), str(type_from_schema({"type": "HashMap"}))
    ('str?', 'dict[str, any]')
    """
    if not isinstance(schema, dict) or depth > 32:
        return ANY
    kind = schema.get("type")
    if isinstance(kind, list):  # JSON Schema's ["string", "null"]
        named = [k for k in kind if isinstance(k, str) and k.lower() != "null"]
        inner = type_from_schema({**schema, "type": named[0] if len(named) == 1 else "any"}, depth + 1)
        return OptionalT(inner) if len(named) < len(kind) and inner is not ANY else inner
    if not isinstance(kind, str):
        return ANY
    low = kind.lower()
    if low in _LISTS:
        return ListT(type_from_schema(schema.get("items"), depth + 1))
    base = _TYPES.get(low, ANY)
    members = schema.get("enum")
    if base is STR and isinstance(members, list) and members and all(isinstance(m, str) for m in members):
        return EnumT("one of " + ", ".join(members), tuple(members))
    return base


def signature_from_json(doc: Any, where: str = "function", typed: bool = True) -> ToolSignature:
    """The tool signature of one function document (BFCL's form, or OpenAI's `{"type": "function",
    "function": {...}}`); `SchemaError` names the field that is wrong. With `typed=False`
    every parameter has type `any` (for schemas whose values are source code, as in BFCL's
    Java and JavaScript sets, where `docFields` stands for a map)."""
    if isinstance(doc, dict) and doc.get("type") == "function" and isinstance(doc.get("function"), dict):
        doc, where = doc["function"], f"{where}.function"
    if not isinstance(doc, dict):
        raise SchemaError("a function document must be a JSON object", where)
    name = doc.get("name")
    if not isinstance(name, str) or not name:
        raise SchemaError("the function has no `name`", f"{where}.name")
    params = doc.get("parameters", {}) or {}
    if not isinstance(params, dict):
        raise SchemaError("`parameters` must be an object", f"{where}.parameters")
    props = params.get("properties", {}) or {}
    if not isinstance(props, dict):
        raise SchemaError("`properties` must be an object", f"{where}.parameters.properties")
    required = params.get("required", []) or []
    if not isinstance(required, list) or not all(isinstance(r, str) for r in required):
        raise SchemaError("`required` must be a list of parameter names", f"{where}.parameters.required")
    out = []
    for pname, pschema in props.items():
        t = type_from_schema(pschema) if typed else ANY
        if pname not in required and not isinstance(t, OptionalT):
            t = OptionalT(t)
        out.append(Param(pname, t))
    return ToolSignature(name, tuple(out), ANY)


def registry_from_json(docs: Iterable[Any], where: str = "function", typed: bool = True) -> dict[str, ToolSignature]:
    """The registry (name → signature) of a list of function documents, in their order.

    >>> sorted(registry_from_json([{"name": "a"}, {"name": "b", "parameters": {}}]))
    ['a', 'b']
    """
    if not isinstance(docs, list):
        raise SchemaError("the functions must be a list of function documents", where)
    out: dict[str, ToolSignature] = {}
    for i, doc in enumerate(docs):
        sig = signature_from_json(doc, f"{where}[{i}]", typed)
        out.setdefault(sig.name, sig)
    return out
