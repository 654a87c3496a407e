"""JSON Schema -> AgentLTL types: what a tool's input and output schemas say, as a signature.

Each construct maps to the type that accepts the same values, or, where AgentLTL has none,
to `any` with a problem saying so (never silently):

| JSON Schema | AgentLTL |
|---|---|
| `string`, `integer`, `number`, `boolean` | `str`, `int`, `float`, `bool` |
| `enum` / `const` of strings | an enum type |
| `array` with `items` | `list[T]` |
| `object` with `properties` | a named record type (a field not in `required` is `T?`) |
| `object` with only `additionalProperties` | `dict[str, T]` |
| `["T", "null"]`, `anyOf`/`oneOf` with `null`, `nullable` | `T?` |
| a local `$ref` (`#/$defs/Name`) | the type it names, declared once as `Name` |
| `{}`, `true`, no `type` at all, `"type": "any"` | `any` |
| the MCP SDK's `{"result": T}` wrapper of an output (titled `<tool>Output`) | `T` |

Gorilla/BFCL's function docs write types in a dialect (`dict`, `float`, `tuple`, `any`, and
Java's `String`, `HashMap`, `ArrayList`): each is read as its JSON Schema name (`DIALECT`).

A parameter not in `required` is optional (`T?`). Constraints that types cannot hold
(`minimum`, `pattern`, `maxItems`, ...) are reported as notes: write a rule if they matter.

>>> names = TypeNames()
>>> sig, problems = signature_from_schema("search", {"type": "object", "properties": {
...     "query": {"type": "string"}, "limit": {"type": ["integer", "null"]},
...     "filter": {"type": "object", "properties": {"lang": {"enum": ["py", "go"]}}, "required": ["lang"]}},
...     "required": ["query"]}, None, names)
>>> str(sig), problems
('tool search(query: str, limit: int?, filter: SearchFilter?)', [])
>>> [(t.name, type(t).__name__) for t in names.declared()]
[('SearchFilterLang', 'EnumT'), ('SearchFilter', 'RecordT')]
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Mapping
from urllib.parse import unquote

from policyc.ir.builtins import tool_name_reserved
from policyc.ir.types import ANY, BOOL, FLOAT, INT, STR, DictT, EnumT, ListT, OptionalT, Param, RecordT, \
    ToolSignature, Type
from policyc.trace.formats.common import json_type

MAX_DEPTH = 32  # nested schemas deeper than this are declared `any`

#: validation keywords a type cannot express (reported as notes)
CONSTRAINTS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minLength",
               "maxLength", "pattern", "minItems", "maxItems", "uniqueItems", "minProperties",
               "maxProperties", "contains", "propertyNames", "dependentRequired", "dependentSchemas")
#: keywords with no AgentLTL type at all (the value becomes `any`)
UNSUPPORTED = ("not", "if", "patternProperties", "prefixItems", "unevaluatedProperties", "$dynamicRef")

ERROR, WARNING, NOTE = "error", "warning", "note"

#: type names of the dialects tool documents are written in, as JSON Schema's: Gorilla/BFCL's
#: function docs write `dict`, `float`, `tuple` and `any`, and their Java and JavaScript sets
#: `String`, `HashMap`, `ArrayList` (names are compared without case)
DIALECT = {
    **dict.fromkeys(("object", "dict", "hashmap", "map"), "object"),
    **dict.fromkeys(("number", "float", "double"), "number"),
    **dict.fromkeys(("integer", "int", "long", "short", "byte"), "integer"),
    **dict.fromkeys(("string", "str", "char", "character"), "string"),
    **dict.fromkeys(("boolean", "bool"), "boolean"),
    **dict.fromkeys(("array", "list", "arraylist", "tuple"), "array"),
    "null": "null",
    "any": "any",
}


def type_keyword(kind: object) -> object:
    """JSON Schema's name for a `type` written in a dialect (`dict` is `object`); anything else
    as it is."""
    return DIALECT.get(kind.lower(), kind) if isinstance(kind, str) else kind


@dataclass(frozen=True, slots=True)
class SchemaProblem:
    """Something in a schema that the declaration cannot say exactly.

    `severity` is `error` (the tool cannot be declared), `warning` (a part was declared
    `any`) or `note` (a constraint that a rule, not a type, would have to state).
    """

    path: tuple          # where, inside the document the schema came from
    message: str         # one lowercase sentence, input in backticks
    severity: str = WARNING


class TypeNames:
    """The named record and enum types of one conversion, in the order they were made.

    Two structurally equal types with the same preferred name share one declaration; a name
    already taken by another type gets a number (`Hit`, `Hit2`).
    """

    def __init__(self) -> None:
        self._types: dict[str, RecordT | EnumT] = {}

    def record(self, preferred: str, fields: tuple) -> RecordT:
        return self._claim(preferred, lambda name: RecordT(name, fields))  # type: ignore[return-value]

    def enum(self, preferred: str, members: tuple[str, ...]) -> EnumT:
        return self._claim(preferred, lambda name: EnumT(name, members))  # type: ignore[return-value]

    def _claim(self, preferred: str, make) -> RecordT | EnumT:
        n = 1
        while True:
            name = preferred if n == 1 else f"{preferred}{n}"
            wanted = make(name)
            known = self._types.get(name)
            if known is None:
                self._types[name] = wanted
                return wanted
            if known == wanted:
                return known
            n += 1

    def declared(self) -> list[RecordT | EnumT]:
        """Every named type, each after the types it mentions."""
        return list(self._types.values())


def type_name(*words: str) -> str:
    """A type name made of words: `type_name("read_file", "hit")` is `ReadFileHit`.

    >>> type_name("searchOutput"), type_name("get-weather", "0days"), type_name("é")
    ('SearchOutput', 'GetWeather0days', 'T')
    """
    parts = [p for w in words for p in re.split(r"[^0-9A-Za-z]+", w) if p]
    name = "".join(p[0].upper() + p[1:] for p in parts)
    return name if name and not name[0].isdigit() else "T" + name


def is_writable_name(name: object) -> bool:
    """Whether a tool, parameter or field name can be written in a policy (in backticks if need be)."""
    return isinstance(name, str) and name != "" and "`" not in name and name.isprintable()


def tool_name_problem(name: object) -> str | None:
    """Why a policy cannot declare a tool of this name (None: it can): a name that cannot be
    written, or one the language keeps for a builtin (`result`, `called`, ...).

    >>> tool_name_problem("search"), tool_name_problem("result"), tool_name_problem("a`b")
    (None, 'the tool name `result` is reserved (a builtin of the language)', 'the tool name `a`b` cannot be written in a policy')
    """
    if not is_writable_name(name):
        return f"the tool name `{name}` cannot be written in a policy"
    if tool_name_reserved(name):  # type: ignore[arg-type]  # text, by is_writable_name
        return f"the tool name `{name}` is reserved (a builtin of the language)"
    return None


class _Converter:
    """Converts the schemas of one tool; `root` is the document `$ref`s point into."""

    def __init__(self, tool: str, root: object, root_path: tuple, names: TypeNames, problems: list[SchemaProblem]):
        self.tool = tool
        self.root = root
        self.root_path = root_path
        self.names = names
        self.problems = problems
        self.refs: list[str] = []              # the references being expanded (to find recursion)
        self.resolved: dict[str, Type] = {}     # each reference is converted once (schemas may share a lot)

    def warn(self, path: tuple, message: str, severity: str = WARNING) -> Type:
        self.problems.append(SchemaProblem(path, message, severity))
        return ANY

    # ------------------------------------------------------------ one schema

    def type_of(self, schema: object, path: tuple, hint: str, depth: int = 0) -> Type:
        if depth > MAX_DEPTH:
            return self.warn(path, f"the schema is nested deeper than {MAX_DEPTH} levels; declared `any`")
        if schema is True or schema == {}:
            return ANY
        if not isinstance(schema, dict):
            what = "`false` (no value is valid)" if schema is False else json_type(schema)
            return self.warn(path, f"a schema should be an object, got {what}; declared `any`")
        if "$ref" in schema:
            return self.ref(schema["$ref"], path + ("$ref",), depth)
        nullable = schema.get("nullable") is True
        for key in UNSUPPORTED:
            if key in schema:
                return self.warn(path + (key,), f"`{key}` has no AgentLTL type; declared `any`")
        for key in CONSTRAINTS:
            if key in schema:
                self.warn(path + (key,), f"the constraint `{key}` is not part of a type; a rule can state it", NOTE)
        if "anyOf" in schema or "oneOf" in schema:
            key = "anyOf" if "anyOf" in schema else "oneOf"
            found = self.union(schema[key], path + (key,), hint, depth)
        elif "allOf" in schema:
            parts = schema["allOf"]
            if isinstance(parts, list) and len(parts) == 1:
                found = self.type_of(parts[0], path + ("allOf", 0), hint, depth + 1)
            else:
                return self.warn(path + ("allOf",), "`allOf` of several schemas has no AgentLTL type; declared `any`")
        elif "enum" in schema or "const" in schema:
            found = self.enum(schema, path, hint)
        else:
            found, null = self.by_type(schema, path, hint, depth)
            nullable = nullable or null
        if nullable and found is not ANY and not isinstance(found, OptionalT):
            return OptionalT(found)
        return found

    def by_type(self, schema: dict, path: tuple, hint: str, depth: int) -> tuple[Type, bool]:
        """The type a schema's `type` names (inferred from `properties` or `items` when absent)."""
        declared = type_keyword(schema.get("type"))
        nullable = False
        if isinstance(declared, list):
            declared = [type_keyword(k) for k in declared]
            nullable = "null" in declared
            kinds = sorted({k for k in declared if k != "null"}, key=str)
            if kinds == ["integer", "number"]:
                kinds = ["number"]
            if len(kinds) != 1:
                listed = ", ".join(f"`{k}`" for k in kinds)
                what = "no type but `null`" if not kinds else f"several types ({listed})"
                return self.warn(path + ("type",), f"a value of {what} has no AgentLTL type; declared `any`"), False
            declared = kinds[0]
        if declared is None:
            declared = "object" if "properties" in schema else "array" if "items" in schema else None
        if declared is None or declared == "any":
            return ANY, nullable
        simple = {"string": STR, "integer": INT, "number": FLOAT, "boolean": BOOL}
        if declared in simple:
            return simple[declared], nullable
        if declared == "array":
            return self.array(schema, path, hint, depth), nullable
        if declared == "object":
            return self.object_type(schema, path, hint, depth), nullable
        if declared == "null":
            return self.warn(path + ("type",), "a value that is always `null` has no AgentLTL type; declared `any`"), False
        shown = declared if isinstance(declared, str) else json_type(declared)
        return self.warn(path + ("type",), f"unknown JSON Schema type `{shown}`; declared `any`"), False

    def array(self, schema: dict, path: tuple, hint: str, depth: int) -> Type:
        items = schema.get("items", True)
        if isinstance(items, list):  # a tuple: a list when every element has one type
            types = {self.type_of(item, path + ("items", i), hint + "Item", depth + 1) for i, item in enumerate(items)}
            if len(types) == 1:
                return ListT(types.pop())
            return ListT(self.warn(path + ("items",), "a tuple of elements of different types (`items` as an "
                                                        "array) has no AgentLTL type; its elements are declared `any`"))
        return ListT(self.type_of(items, path + ("items",), hint + "Item", depth + 1))

    def object_type(self, schema: dict, path: tuple, hint: str, depth: int, named: bool = True) -> Type:
        props = schema.get("properties")
        if props is None or props == {} and "additionalProperties" in schema:
            extra = schema.get("additionalProperties", True)
            if extra is not False:
                return DictT(self.type_of(extra, path + ("additionalProperties",), hint + "Value", depth + 1))
        if props is not None and not isinstance(props, dict):
            return self.warn(path + ("properties",), f"`properties` should be an object, got {json_type(props)}; "
                                                      "declared `any`")
        fields = self.fields(schema, path, hint, depth)
        return self.names.record(self.preferred(schema, hint), fields) if named else RecordT("", fields)

    def fields(self, schema: dict, path: tuple, hint: str, depth: int) -> tuple[tuple[str, Type], ...]:
        """The fields of an object schema; one not in `required` is optional."""
        required = self.required(schema, path)
        out = []
        for name, sub in (schema.get("properties") or {}).items():
            if not is_writable_name(name):
                self.warn(path + ("properties", name), f"the field name `{name}` cannot be written in a policy; "
                                                        "the field is left out of the record")
                continue
            t = self.type_of(sub, path + ("properties", name), hint + type_name(name), depth + 1)
            out.append((name, t if name in required or isinstance(t, OptionalT) else OptionalT(t)))
        return tuple(out)

    def required(self, schema: dict, path: tuple) -> set[str]:
        required = schema.get("required", [])
        if not isinstance(required, list):
            self.warn(path + ("required",), f"`required` should be an array of names, got {json_type(required)}; "
                                            "every field is optional")
            return set()
        return {r for r in required if isinstance(r, str)}

    @staticmethod
    def preferred(schema: dict, hint: str) -> str:
        title = schema.get("title")
        return type_name(title) if isinstance(title, str) and type_name(title) != "T" else hint

    def enum(self, schema: dict, path: tuple, hint: str) -> Type:
        key = "enum" if "enum" in schema else "const"
        values = schema[key] if key == "enum" else [schema[key]]
        if not isinstance(values, list) or not values:
            return self.warn(path + (key,), f"`{key}` should be a non-empty array; declared `any`")
        nullable = None in values
        values = [v for v in values if v is not None]
        if values and all(isinstance(v, str) for v in values):
            members = tuple(dict.fromkeys(values))
            found: Type = self.names.enum(self.preferred(schema, hint), members)
        elif values and all(isinstance(v, bool) for v in values):
            found = BOOL
        elif values and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
            found = INT if all(isinstance(v, int) for v in values) else FLOAT
            self.warn(path + (key,), f"an `{key}` of numbers is declared `{found}`; the allowed values are not "
                                     "part of the type", NOTE)
        else:
            return self.warn(path + (key,), f"an `{key}` of mixed or structured values has no AgentLTL type; "
                                            "declared `any`")
        return OptionalT(found) if nullable else found

    def union(self, branches: object, path: tuple, hint: str, depth: int) -> Type:
        if not isinstance(branches, list) or not branches:
            return self.warn(path, f"`{path[-1]}` should be a non-empty array of schemas; declared `any`")
        nullable = False
        kept: list[tuple[int, object]] = []
        for i, branch in enumerate(branches):
            if isinstance(branch, dict) and (branch.get("type") == "null" or branch.get("const", 0) is None):
                nullable = True
            else:
                kept.append((i, branch))
        if len(kept) == 1:
            i, branch = kept[0]
            found = self.type_of(branch, path + (i,), hint, depth + 1)
        else:
            types = [self.type_of(b, path + (i,), hint, depth + 1) for i, b in kept]
            if types and all(isinstance(t, EnumT) for t in types):
                members = tuple(dict.fromkeys(m for t in types for m in t.members))  # type: ignore[union-attr]
                found = self.names.enum(hint, members)
            elif types and set(types) <= {INT, FLOAT}:
                found = FLOAT
            elif len(set(types)) == 1:
                found = types[0]
            else:
                return self.warn(path, f"a choice between {len(kept)} different schemas (`{path[-1]}`) has no "
                                       "AgentLTL type; declared `any`")
        if nullable and found is not ANY and not isinstance(found, OptionalT):
            return OptionalT(found)
        return found

    def ref(self, ref: object, path: tuple, depth: int) -> Type:
        if not isinstance(ref, str) or not ref.startswith("#"):
            shown = ref if isinstance(ref, str) else json_type(ref)
            return self.warn(path, f"only references inside the schema (`#/...`) are followed, not `{shown}`; "
                                   "declared `any`")
        if ref in self.resolved:
            return self.resolved[ref]
        if ref in self.refs:
            return self.warn(path, f"the recursive type `{ref}` cannot be declared; declared `any`")
        target: object = self.root
        steps = [unquote(s).replace("~1", "/").replace("~0", "~") for s in ref[1:].split("/")[1:]]
        for step in steps:
            if isinstance(target, dict) and step in target:
                target = target[step]
            elif isinstance(target, list) and step.isdigit() and int(step) < len(target):
                target = target[int(step)]
            else:
                return self.warn(path, f"the reference `{ref}` points at nothing; declared `any`")
        self.refs.append(ref)
        try:
            found = self.type_of(target, self.root_path + tuple(int(s) if s.isdigit() else s for s in steps),
                                 type_name(steps[-1]) if steps else "Root", depth + 1)
        finally:
            self.refs.pop()
        self.resolved[ref] = found
        return found


def signature_from_schema(name: str, input_schema: object, output_schema: object | None, names: TypeNames,
                          input_path: tuple = (), output_path: tuple = (),
                          problems: list[SchemaProblem] | None = None) -> tuple[ToolSignature | None, list]:
    """The signature of a tool from its input (parameters) and output (result) schemas.

    Returns (None, problems) when the tool cannot be declared (a problem of severity `error`).
    """
    problems = [] if problems is None else problems
    refused = tool_name_problem(name)
    if refused:
        problems.append(SchemaProblem(input_path, refused, ERROR))
        return None, problems
    convert = _Converter(name, input_schema, input_path, names, problems)
    params = _params(convert, input_schema, input_path, type_name(name))
    if params is None:
        return None, problems
    result: Type = ANY
    if output_schema is not None:
        out = _Converter(name, output_schema, output_path, names, problems)
        schema = output_schema
        if isinstance(schema, dict) and sdk_wrapped(name, schema):  # the value inside `{"result": ...}`
            result = out.type_of(schema["properties"]["result"], output_path + ("properties", "result"),
                                 type_name(name, "result"))
        elif isinstance(schema, dict) and "$ref" in schema:
            result = out.type_of(schema, output_path, type_name(name, "result"))
        elif isinstance(schema, dict) and (type_keyword(schema.get("type")) == "object" or "properties" in schema) \
                and not any(k in schema for k in ("anyOf", "oneOf", "allOf", "enum", "const", *UNSUPPORTED)):
            result = out.object_type(schema, output_path, type_name(name, "result"), 0, named=False)
            if isinstance(result, RecordT) and schema.get("nullable") is True:
                result = OptionalT(result)
        else:
            result = out.type_of(schema, output_path, type_name(name, "result"))
    return ToolSignature(name, params, result), problems


def sdk_wrapped(name: str, schema: object) -> bool:
    """Whether an MCP tool's output schema is the wrapper the MCP SDK makes for a result that is
    not an object (`{"result": ...}`, titled `<tool>Output`; FastMCP marks it
    `x-fastmcp-wrap-result`). The declared result is then the value inside: what the tool
    returned, and what every adapter records (`policyc.trace.results`).

    >>> wrapper = {"type": "object", "title": "searchOutput", "required": ["result"],
    ...            "properties": {"result": {"type": "array", "items": {"type": "string"}}}}
    >>> sdk_wrapped("search", wrapper), sdk_wrapped("find", wrapper)
    (True, False)
    """
    if not isinstance(schema, dict):
        return False
    props = schema.get("properties")
    if not isinstance(props, dict) or list(props) != ["result"]:
        return False
    return schema.get("x-fastmcp-wrap-result") is True or (
        type_keyword(schema.get("type")) == "object" and schema.get("required") == ["result"]
        and schema.get("title") == f"{name}Output")


def _params(convert: _Converter, schema: object, path: tuple, hint: str) -> tuple[Param, ...] | None:
    if schema is None or schema is True or schema == {}:
        return ()
    if isinstance(schema, dict) and "$ref" in schema and isinstance(schema["$ref"], str):
        resolved = convert.ref(schema["$ref"], path + ("$ref",), 0)
        if isinstance(resolved, RecordT):
            return tuple(Param(n, t) for n, t in resolved.fields)
    if not isinstance(schema, dict):
        convert.problems.append(SchemaProblem(path, f"the parameters should be a JSON Schema object, got "
                                                    f"{json_type(schema)}", ERROR))
        return None
    kind = type_keyword(schema.get("type", "object"))
    if kind != "object":
        convert.problems.append(SchemaProblem(path + ("type",), "the parameters should be an object schema "
                                              f"(`\"type\": \"object\"`), got `{kind}`", ERROR))
        return None
    props = schema.get("properties", {})
    if not isinstance(props, dict):
        convert.problems.append(SchemaProblem(path + ("properties",), f"`properties` should be an object, got "
                                              f"{json_type(props)}", ERROR))
        return None
    bad = [n for n in props if not is_writable_name(n)]
    if bad:
        convert.problems.append(SchemaProblem(path + ("properties", bad[0]), f"the parameter name `{bad[0]}` "
                                              "cannot be written in a policy", ERROR))
        return None
    extra = schema.get("additionalProperties")
    if isinstance(extra, dict) and extra:
        convert.warn(path + ("additionalProperties",), "parameters beyond the named ones "
                     "(`additionalProperties`) cannot be declared; calls that pass them are flagged")
    return tuple(Param(n, t) for n, t in convert.fields(schema, path, hint, 0))


def signatures_from_schemas(tools: Mapping[str, tuple[object, object | None]]) -> dict[str, ToolSignature | None]:
    """Signatures of live tools (name -> (input schema, output schema)), for comparing with a
    policy. A part that cannot be typed is `any`; a tool whose schema cannot be read at all
    maps to None (its arguments are then not compared).

    >>> sigs = signatures_from_schemas({"read": ({"properties": {"path": {"type": "string"}}}, None),
    ...                                 "odd": ("not a schema", None)})
    >>> str(sigs["read"]), sigs["odd"]
    ('tool read(path: str?)', None)
    """
    names = TypeNames()
    return {name: signature_from_schema(name, inputs, outputs, names)[0] for name, (inputs, outputs) in tools.items()}


__all__ = ["DIALECT", "ERROR", "NOTE", "WARNING", "SchemaProblem", "TypeNames", "sdk_wrapped", "signature_from_schema",
           "signatures_from_schemas", "type_keyword", "type_name"]

