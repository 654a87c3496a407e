"""OpenAI Responses API items: `message`, `function_call` and `function_call_output`.

A record is a list of items (what is sent back as `input` on the next turn), or an object
holding them under `input`, `output` or `items` (a response object, a stored conversation;
its other fields are the metrics μ). Each `{"type": "function_call", "call_id", "name",
"arguments"}` item is one call, in order (arguments are a JSON string or an object); a
`{"type": "function_call_output", "call_id", "output"}` item is the result of the call with
that id. A user or assistant `message` item (or an item with a `role` and no type) is a
message event; the first user message is the run's request. Reasoning and other items are
not events.

>>> items = [{"type": "message", "role": "user", "content": "where is parse?"},
...          {"type": "function_call", "call_id": "c1", "name": "search", "arguments": "{\\"query\\": \\"parse\\"}"},
...          {"type": "function_call_output", "call_id": "c1", "output": "[\\"a.py\\"]"}]
>>> t = parse_responses(items)
>>> t.tool_sequence, t.calls[0].args, t.calls[0].result, t.request
(['search'], {'query': 'parse'}, ['a.py'], 'where is parse?')
"""

from __future__ import annotations

from typing import Any

from policyc.trace.errors import RecordProblem, Where
from policyc.trace.formats.common import (
    Events,
    message_text,
    no_events,
    parse_arguments,
    require,
    require_object,
    text_content,
)
from policyc.trace.model import Trace

CALL, OUTPUT = "function_call", "function_call_output"
CONTAINERS = ("input", "output", "items")


def _items(value: Any) -> tuple[Any, Where]:
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
    events = Events()
    for i, item in enumerate(items):
        where = prefix + (i,)
        item = require_object(item, where, "an item")
        kind = item.get("type", "message" if "role" in item else None)
        if kind == CALL:
            name = require(item, "name", str, where, "a string")
            args = parse_arguments(item.get("arguments"), where + ("arguments",))
            call_id = item.get("call_id", item.get("id"))
            events.call(name, args, call_id=call_id if isinstance(call_id, str) else f"{i}")
        elif kind == OUTPUT:
            call_id = require(item, "call_id", str, where, "a string")
            output = item.get("output")
            if not events.result(call_id, text_content(output) if output is not None else None,
                                 item.get("status") == "incomplete"):
                raise RecordProblem(where + ("call_id",), f"no earlier function call has the id `{call_id}`")
        elif kind == "message" and item.get("role") in ("user", "assistant"):
            message_id = item.get("id") if isinstance(item.get("id"), str) else str(i)
            events.message(message_text(item.get("content")), item["role"], message_id)
    if items and not len(events):
        raise no_events(prefix, len(items), "items")
    return events.trace(metrics, trace_id, origin)
