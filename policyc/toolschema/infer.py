"""Tool declarations inferred from recorded traces (`policyc infer-tools`).

A first policy needs its tools declared. When an agent's runs are logged already, the calls
say what the tools take and return: `infer_tools(traces)` reads every call of the agent (any
format the trace readers know) and declares each tool it saw, with

- each argument it was ever called with, of the type of every value seen (`int` and
  `float` together are `float`), optional (`T?`) when some call left it out or passed `null`;
- the result type of every result recorded (failed calls and calls without a result aside):
  objects with a few identifiers for names as records (a field some result lacks is
  optional), other objects (names that are data: paths, ids; results sharing no name) as
  `dict[str, T]`, lists of the join of their items.

Values of different types at one place (a `str` here, an `int` there) have no common type:
the place is declared `any` and reported with an example, never silently. Nothing is an
enum (the values seen are not all the values there are); rules can say more.

>>> from policyc.trace import Trace
>>> runs = [Trace.of(("search", {"query": "x", "limit": 3}, ["a.py"]), ("read", {"path": "a.py"}, "text")),
...         Trace.of(("search", {"query": "y"}, []), ("read", {"path": 7}, "text"))]
>>> inferred = infer_tools(runs)
>>> [str(sig) for sig, _ in inferred.tools]
['tool search(query: str, limit: int?) -> list[str]', 'tool read(path: any) -> str']
>>> [p.message for p in inferred.problems]
['`read.path`: values of different types were seen (str `"a.py"`, int `7`); declared `any`']
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Iterable

from policyc.ir.ops import UNDEF
from policyc.ir.types import ANY, BOOL, FLOAT, INT, NULL, STR, DictT, ListT, OptionalT, Param, Prim, RecordT, \
    ToolSignature, Type
from policyc.toolschema.convert import WARNING, SchemaProblem, is_writable_name, tool_name_problem

#: objects with more names than this, or names that are not identifiers, are `dict[str, T]`, not records
MAX_FIELDS = 24
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
#: the type of a place no value was seen at (the items of lists that were always empty)
NOTHING = Prim("nothing")  # a marker only: never part of a declared type


@dataclass
class _Tool:
    calls: int = 0
    traces: int = 0
    args: dict[str, list] = field(default_factory=dict)  # name -> [calls passing it, type, example]
    results: int = 0
    result: Type = NOTHING
    example: Any = None


@dataclass
class Inferred:
    """What the traces say about the tools: signatures (with a comment on what they were
    inferred from), problems (places declared `any`), and how much was read."""

    tools: list[tuple[ToolSignature, str]] = field(default_factory=list)
    problems: list[SchemaProblem] = field(default_factory=list)
    traces: int = 0
    calls: int = 0


def type_of(value: Any) -> Type:
    """The type of one JSON value (`NULL` for null; a list's items joined).

    >>> str(type_of({"ok": True, "hits": [1, 2.5]})), str(type_of({"src/a.py": 1}))
    ('{ok: bool, hits: list[float]}', 'dict[str, int]')
    """
    if value is None:
        return NULL
    if isinstance(value, bool):
        return BOOL
    if isinstance(value, int):
        return INT
    if isinstance(value, float):
        return FLOAT
    if isinstance(value, str):
        return STR
    if isinstance(value, list):
        elem: Type = NOTHING
        for item in value:
            elem = join(elem, type_of(item))
        return ListT(elem)
    if isinstance(value, dict):
        if len(value) <= MAX_FIELDS and all(isinstance(k, str) and _NAME.fullmatch(k) for k in value):
            return RecordT("", tuple((k, type_of(v)) for k, v in value.items()))
        values: Type = NOTHING
        for v in value.values():
            values = join(values, type_of(v))
        return DictT(values)
    return ANY


def _optional(t: Type) -> Type:
    return t if isinstance(t, OptionalT) or t in (ANY, NULL, NOTHING) else OptionalT(t)


def join(a: Type, b: Type) -> Type:
    """The least type of values of type `a` or `b` (`any` when they have none in common).

    >>> str(join(INT, FLOAT)), str(join(NULL, STR)), str(join(STR, INT))
    ('float', 'str?', 'any')
    >>> str(join(type_of({"a": 1}), type_of({"a": 2, "b": "x"})))
    '{a: int, b: str?}'
    """
    if a == b or b is NOTHING:
        return a
    if a is NOTHING:
        return b
    if ANY in (a, b):
        return ANY
    if a is NULL or b is NULL:
        return _optional(b if a is NULL else a)
    if isinstance(a, OptionalT) or isinstance(b, OptionalT):
        inner = join(a.inner if isinstance(a, OptionalT) else a, b.inner if isinstance(b, OptionalT) else b)
        return ANY if inner is ANY else _optional(inner)
    if {a, b} == {INT, FLOAT}:
        return FLOAT
    if isinstance(a, ListT) and isinstance(b, ListT):
        elem = join(a.elem, b.elem)
        return ANY if elem is ANY and ANY not in (a.elem, b.elem) else ListT(elem)
    if isinstance(a, RecordT) and isinstance(b, RecordT):
        names = list(dict.fromkeys([n for n, _ in a.fields] + [n for n, _ in b.fields]))
        shared = {n for n, _ in a.fields} & {n for n, _ in b.fields}
        if len(names) > MAX_FIELDS or not shared and a.fields and b.fields:  # keys that are data: a mapping
            return join(DictT(_values(a)), DictT(_values(b)))
        fields = []
        for name in names:
            x, y = a.field(name), b.field(name)
            if x is None or y is None:
                only = y if x is None else x
                fields.append((name, _optional(only) if only is not None else ANY))  # missing from some: optional
            else:
                fields.append((name, join(x, y)))
        return RecordT("", tuple(fields))
    if isinstance(a, (DictT, RecordT)) and isinstance(b, (DictT, RecordT)):
        values = join(a.value if isinstance(a, DictT) else _values(a), b.value if isinstance(b, DictT) else _values(b))
        return DictT(values)
    return ANY


def _values(record: RecordT) -> Type:
    out: Type = NOTHING
    for _, t in record.fields:
        out = join(out, t)
    return out


def _declared(t: Type) -> Type:
    """A joined type as it is declared: places where no value was seen are `any`."""
    if t is NOTHING or t is NULL:
        return ANY
    if isinstance(t, OptionalT):
        inner = _declared(t.inner)
        return ANY if inner is ANY else OptionalT(inner)
    if isinstance(t, ListT):
        return ListT(_declared(t.elem))
    if isinstance(t, DictT):
        return DictT(_declared(t.value))
    if isinstance(t, RecordT):
        return RecordT(t.name, tuple((n, _declared(ft)) for n, ft in t.fields))
    return t


def _shown(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 40 else text[:37] + "..."


class _Collector:
    def __init__(self) -> None:
        self.tools: dict[str, _Tool] = {}
        self.problems: list[SchemaProblem] = []
        self.conflicts: set[str] = set()

    def merge(self, where: str, old: Type, old_example: Any, value: Any) -> Type:
        new = type_of(value)
        joined = join(old, new)
        if joined is ANY and ANY not in (old, new) and where not in self.conflicts:
            self.conflicts.add(where)
            self.problems.append(SchemaProblem(
                (), f"`{where}`: values of different types were seen ({_kind(old)} `{_shown(old_example)}`, "
                    f"{_kind(new)} `{_shown(value)}`); declared `any`", WARNING))
        return joined

    def add(self, trace) -> int:
        seen: set[str] = set()
        for call in trace.calls:
            if call.is_message or getattr(call, "actor", "assistant") != "assistant":
                continue
            tool = self.tools.setdefault(call.name, _Tool())
            tool.calls += 1
            if call.name not in seen:
                seen.add(call.name)
                tool.traces += 1
            for name, value in call.args.items():
                slot = tool.args.setdefault(name, [0, NOTHING, value])
                slot[0] += 1
                slot[1] = self.merge(f"{call.name}.{name}", slot[1], slot[2], value)
            if not call.error and call.result is not UNDEF:
                tool.results += 1
                if tool.example is None:
                    tool.example = call.result
                tool.result = self.merge(f"{call.name} result", tool.result, tool.example, call.result)
        return len(trace.calls)


def _kind(t: Type) -> str:
    return "a list" if isinstance(t, ListT) else "an object" if isinstance(t, (RecordT, DictT)) else str(t)


def infer_tools(traces: Iterable, terminal: Iterable[str] = ()) -> Inferred:
    """The declarations the agent's calls in `traces` (Trace objects) imply; `terminal` names
    the tools to declare terminal (the final answer)."""
    collect = _Collector()
    out = Inferred()
    for trace in traces:
        out.traces += 1
        out.calls += collect.add(trace)
    terminals = set(terminal)
    for name, tool in collect.tools.items():
        refused = tool_name_problem(name)
        if refused:
            out.problems.append(SchemaProblem((), f"{refused}; it is left out", "error"))
            continue
        params = []
        for arg, (count, t, _) in tool.args.items():
            if not is_writable_name(arg):
                out.problems.append(SchemaProblem((), f"`{name}`: the argument name `{arg}` cannot be written in "
                                                      "a policy; it is left out", WARNING))
                continue
            declared = _declared(t)
            left_out = count < tool.calls and not isinstance(declared, OptionalT)
            params.append(Param(arg, OptionalT(declared) if left_out else declared))  # `any?` too: it may be absent
        result = _declared(tool.result)
        sig = ToolSignature(name, tuple(params), result, terminal=name in terminals)
        seen = f"seen in {tool.calls} call{'s' if tool.calls != 1 else ''} of {tool.traces} " \
               f"trace{'s' if tool.traces != 1 else ''}"
        if tool.results < tool.calls:
            seen += f", {tool.results} with a result"
        out.tools.append((sig, seen))
    out.problems = collect.problems + out.problems
    return out


__all__ = ["Inferred", "infer_tools", "join", "type_of"]
