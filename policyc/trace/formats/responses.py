"""OpenAI Responses API items: `function_call` and `function_call_output`.

A record is a list of items (what is sent back as `input` on the next turn), or an object
holding them under `input`, `output` or `items` (a response object, a stored conversation;
its other fields are the metrics μ). Each `{"type": "function_call", "call_id", "name",
"arguments"}` item is one call, in order (arguments are a JSON string or an object); a
`{"type": "function_call_output", "call_id", "output"}` item is the result of the call with
that id. Messages, reasoning and other items are not calls.

>>> items = [{"type": "message", "role": "user", "content": "where is parse?"},
...          {"type": "function_call", "call_id": "c1", "name": "search", "arguments": "{\\"query\\": \\"parse\\"}"},
...          {"type": "function_call_output", "call_id": "c1", "output": "[\\"a.py\\"]"}]
>>> t = parse_responses(items)
>>> t.tool_sequence, t.calls[0].args, t.calls[0].result
(['search'], {'query': 'parse'}, ['a.py'])
"""

from __future__ import annotations

from typing import Any

from policyc.trace.errors import RecordProblem
from policyc.trace.formats.common import (
    NO_RESULT,
    build_trace,
    parse_arguments,
    parse_result,
    require,
    require_object,
    text_content,
)
from policyc.trace.model import Trace

CALL, OUTPUT = "function_call", "function_call_output"
CONTAINERS = ("input", "output", "items")


def _items(value: Any) -> tuple[Any, tuple]:
    """The item list of a record, and its path inside the record."""
    if isinstance(value, dict):
        for key in CONTAINERS:
            if isinstance(value.get(key), list):
                return value[key], (key,)
        return None, ()
    return value, ()


def is_responses(value: Any) -> bool:
    items, _ = _items(value)
    return (isinstance(items, list) and bool(items) and all(isinstance(i, dict) for i in items)
            and any(i.get("type") in (CALL, OUTPUT) for i in items))


def parse_responses(value: Any, origin: str | None = None) -> Trace:
    items, prefix = _items(value)
    if not isinstance(items, list):
        raise RecordProblem((), "expected a list of Responses API items, or an object with "
                                "`input`, `output` or `items`")
    metrics = {k: v for k, v in value.items() if k not in prefix} if isinstance(value, dict) else {}
    trace_id = value.get("id") if isinstance(value, dict) else None
    calls: list[list] = []
    by_id: dict[str, int] = {}
    for i, item in enumerate(items):
        where = prefix + (i,)
        item = require_object(item, where, "an item")
        kind = item.get("type")
        if kind == CALL:
            name = require(item, "name", str, where, "a string")
            args = parse_arguments(item.get("arguments"), where + ("arguments",))
            call_id = item.get("call_id", item.get("id"))
            if isinstance(call_id, str):
                by_id[call_id] = len(calls)
            calls.append([name, args, NO_RESULT])
        elif kind == OUTPUT:
            call_id = require(item, "call_id", str, where, "a string")
            index = by_id.get(call_id)
            if index is None:
                raise RecordProblem(where + ("call_id",), f"no earlier function call has the id `{call_id}`")
            calls[index][2] = parse_result(text_content(item.get("output")))
    return build_trace([tuple(c) for c in calls], metrics, trace_id, origin)
