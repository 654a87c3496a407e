"""One shape per tool result: the reading of a recorded result that has the declared type.

Frameworks hand the same tool result over in different shapes. An MCP server built with the
SDK returns a list as the structured content `{"result": [...]}` (and its items as text
blocks), LangChain puts a tool's return value in a `ToolMessage` as JSON text, the OpenAI
Agents SDK and smolagents hand over the Python value itself, and a log may hold any of
these. A rule reads one shape: the one the tool's signature declares. `shaped_result`
picks it, so the same policy decides the same way whichever adapter recorded the run and
whichever reader loaded the trace:

1. a result that has the declared type is kept as it is;
2. else each other reading is tried, in order, and the first that has the declared type is
   taken: the JSON value that text holds (`"41"` is 41 for an `int`), the inner value of
   `{"result": v}` (the MCP SDK's wrapper, when the policy declares `v`'s type), and the
   wrapped value `{"result": v}` (when the policy declares that record);
3. else the result is kept as it is (and scoring reports it as not having its type).

A result of type `any`, and a tool the policy does not declare, are kept as they are.

>>> from policyc.ir.types import INT, STR, ListT, RecordT
>>> shaped_result({"result": ["a.py"]}, ListT(STR)), shaped_result(["a.py"], RecordT("", (("result", ListT(STR)),)))
(['a.py'], {'result': ['a.py']})
>>> shaped_result("41", INT), shaped_result("41", STR), shaped_result({"result": 3}, STR)
(41, '41', {'result': 3})
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any, Callable, Iterator, Mapping

from policyc.ir.ops import UNDEF
from policyc.ir.types import ANY, OptionalT, RecordT, ToolSignature, Type, type_check
from policyc.trace.conformance import Signatures
from policyc.jsontext import decode
from policyc.trace.model import MESSAGE_KIND, Call, Trace

#: the field the MCP SDK wraps a result that is not an object in
WRAPPER = "result"
#: text read as a JSON scalar (a number or a constant), short enough to convert safely
_SCALAR = re.compile(r"-?(?:0|[1-9]\d{0,30})(?:\.\d{1,30})?(?:[eE][-+]?\d{1,3})?|true|false|null")


def is_wrapper(t: Type) -> bool:
    """Whether a declared result type is a record whose one required field is `result`
    (what `{"result": v}` has)."""
    inner = t.inner if isinstance(t, OptionalT) else t
    if not isinstance(inner, RecordT) or inner.field(WRAPPER) is None:
        return False
    return all(isinstance(ft, OptionalT) or ft is ANY for name, ft in inner.fields if name != WRAPPER)


def _parsed(text: str) -> Any:
    """The JSON value text holds, or UNDEF."""
    stripped = text.strip()
    if stripped[:1] in ("{", "[") or _SCALAR.fullmatch(stripped):
        value, problem, _ = decode(stripped)  # not JSON (NaN, 1e400, half a surrogate pair), too deep
        return UNDEF if problem is not None else value
    return UNDEF


def readings(value: Any, declared: Type) -> Iterator[Any]:
    """The other readings of a result, in the order `shaped_result` tries them."""
    seen = [value]
    if isinstance(value, str):
        parsed = _parsed(value)
        if parsed is not UNDEF:
            seen.append(parsed)
            yield parsed
    for v in list(seen):
        if isinstance(v, dict) and len(v) == 1 and WRAPPER in v:
            inner = v[WRAPPER]
            yield inner
            if isinstance(inner, str):
                parsed = _parsed(inner)
                if parsed is not UNDEF:
                    yield parsed
    if is_wrapper(declared):
        for v in seen:
            if not (isinstance(v, dict) and WRAPPER in v):
                yield {WRAPPER: v}


def shaped_result(value: Any, declared: Type, check: Callable[[object], bool] | None = None) -> Any:
    """The reading of `value` that has the `declared` type (see the module docstring);
    `check`: `type_check(declared)`, when the caller keeps it."""
    if value is UNDEF or declared is ANY:
        return value
    found = typed_reading(value, declared, check or type_check(declared))
    return value if found is UNDEF else found


def typed_reading(value: Any, declared: Type, check: Callable[[object], bool]) -> Any:
    """The first reading of `value` (itself, then `readings`) that passes `check`, the
    `declared` type's check; UNDEF when none does."""
    if check(value):
        return value
    return next((candidate for candidate in readings(value, declared) if check(candidate)), UNDEF)


class ResultShapes:
    """`shaped_result` for the tools of one policy, with the common case (a result that
    certainly has its type) told at a glance."""

    def __init__(self, tools: Mapping[str, ToolSignature], signatures: Signatures | None = None):
        self.tools = tools
        self.signatures = signatures or Signatures(tools)

    def result(self, tool: str, value: Any) -> Any:
        """The shaped result of one call of `tool`."""
        if self.signatures.result_conforms(tool, value):
            return value
        sig = self.tools.get(tool)
        return value if sig is None else shaped_result(value, sig.result, self.signatures.result_checks[tool])

    def trace(self, trace: Trace, misfits: list[int] | None = None) -> Trace:
        """The trace with every call's result shaped (the same trace when none changes). A
        failed call's result is its error, and is kept as it is. `misfits`, when given, gets
        the index (in `calls`) of each of the agent's calls whose result has no reading of its
        declared type: the results `check_trace` would report (`check_result`), found without
        checking each result's type a second time."""
        calls = trace.calls
        shaped = None
        sure_results = self.signatures._sure_result  # `Signatures.result_conforms`, in the loop
        checks = self.signatures.result_checks
        for i, call in enumerate(calls):
            result = call.result
            if result is UNDEF or call.error or call.kind == MESSAGE_KIND:
                continue
            types = sure_results.get(call.name, None)
            if types is None or type(result) in types:
                continue
            value = typed_reading(result, self.tools[call.name].result, checks[call.name])
            if value is UNDEF:  # no reading has the type: kept as it is
                if misfits is not None and call.actor == "assistant":
                    misfits.append(i)
                continue
            if value is not result:
                if shaped is None:
                    shaped = list(calls)
                shaped[i] = replace(call, result=value)
        if shaped is None:
            return trace
        positions = tuple(trace.event_positions)  # found by identity: before the calls change
        if trace.events is trace.calls:
            events: tuple[Call, ...] = tuple(shaped)
        else:
            at = {k: j for j, k in enumerate(positions)}
            events = tuple(shaped[at[k]] if k in at else e for k, e in enumerate(trace.events or ()))
        return replace(trace, calls=tuple(shaped), events=events, positions=positions, index=None)


__all__ = ["ResultShapes", "WRAPPER", "is_wrapper", "readings", "shaped_result", "typed_reading"]
