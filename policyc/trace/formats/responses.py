"""OpenAI Responses API items: `message`, `function_call` and `function_call_output`.

A record is a list of items (what is sent back as `input` on the next turn), or an object
holding them under `input`, `output` or `items` (a response object, a stored conversation;
its other fields are the metrics μ). Each `{"type": "function_call", "call_id", "name",
"arguments"}` item is one call, in order (arguments are a JSON string or an object); a
`{"type": "function_call_output", "call_id", "output"}` item is the result of the call with
that id. The other calls the API defines are read too: a `custom_tool_call` (its free-form
`input` as the argument `input`, its `custom_tool_call_output`), a `local_shell_call` (the
tool `local_shell`, its `action` as arguments, its `local_shell_call_output`), an `mcp_call`
(its `name` and `arguments`, with its `output` or `error` inline), and every built-in tool's
`*_call` item (`web_search_call` is the tool `web_search`, its `action` the arguments, its
`output`, `outputs` or `results` inline; a `*_call_output` item by `call_id`); a failed status
or an `error` marks a call failed. A user or assistant `message` item (or an item with a
`role` and no type) is a message event; the first user message is the run's request.
Reasoning items, MCP tool listings and approval requests (a call not made yet) are not
events; an item of another type that looks like a tool call is an error naming it.

>>> items = [{"type": "message", "role": "user", "content": "where is parse?"},
...          {"type": "function_call", "call_id": "c1", "name": "search", "arguments": "{\\"query\\": \\"parse\\"}"},
...          {"type": "function_call_output", "call_id": "c1", "output": "[\\"a.py\\"]"}]
>>> t = parse_responses(items)
>>> t.tool_sequence, t.calls[0].args, t.calls[0].result, t.request
(['search'], {'query': 'parse'}, ['a.py'], 'where is parse?')
"""

from __future__ import annotations

from typing import Any, TypeGuard

from policyc.trace.errors import RecordProblem, Where
from policyc.trace.formats.common import (
    Events,
    is_call_shaped,
    message_text,
    no_events,
    parse_arguments,
    reject_unread_calls,
    require,
    require_object,
    text_content,
)
from policyc.trace.model import Trace

CALL, OUTPUT = "function_call", "function_call_output"
CONTAINERS = ("input", "output", "items")
#: items that are no event (an approval request asks before an MCP call is made)
QUIET = ("message", "reasoning", "mcp_list_tools", "mcp_approval_request", "mcp_approval_response",
         "item_reference", "compaction")
_INLINE_RESULTS = ("output", "outputs", "results", "result")
_READ = ("arguments", "input", "action", *_INLINE_RESULTS)
_NOT_ARGUMENTS = ("type", "id", "call_id", "status", "error", *_INLINE_RESULTS)


#: the calls the API defines besides `function_call`: custom tools, MCP, and built-in tools
#: (a built-in's tool is its type without `_call`), and the items that carry their outputs
CALLS = ("custom_tool_call", "mcp_call", "local_shell_call", "web_search_call", "file_search_call", "computer_call",
         "code_interpreter_call", "image_generation_call", "shell_call", "apply_patch_call")
OUTPUTS = (OUTPUT, "custom_tool_call_output", "local_shell_call_output", "computer_call_output",
           "shell_call_output", "apply_patch_call_output")


def _is_call(kind: Any) -> TypeGuard[str]:
    return kind in CALLS  # the names of call items: strings


def _is_output(kind: Any) -> bool:
    return kind in OUTPUTS


def _failed(item: dict[str, Any]) -> bool:
    return item.get("status") in ("failed", "incomplete") or item.get("error") not in (None, "", {})


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
            and any(i.get("type") == CALL or _is_call(i.get("type")) or _is_output(i.get("type")) for i in items))


def parse_responses(value: Any, origin: str | None = None) -> Trace:
    items, prefix = _items(value)
    if not isinstance(items, list):
        raise RecordProblem((), "expected a list of Responses API items, or an object with "
                                "`input`, `output` or `items`")
    if isinstance(value, dict):
        reject_unread_calls(value, CONTAINERS, (), "a Responses API record")
    metrics = {k: v for k, v in value.items() if k not in prefix} if isinstance(value, dict) else {}
    trace_id = value.get("id") if isinstance(value, dict) else None
    events = Events()
    for i, item in enumerate(items):
        where = prefix + (i,)
        item = require_object(item, where, "an item")
        reject_unread_calls(item, _READ, where, "an item")
        kind = item.get("type", "message" if "role" in item else None)
        if kind == CALL:
            name = require(item, "name", str, where, "a string")
            args = parse_arguments(item.get("arguments"), where + ("arguments",))
            call_id = item.get("call_id", item.get("id"))
            events.call(name, args, call_id=call_id if isinstance(call_id, str) else f"{i}")
        elif _is_output(kind):
            call_id = item.get("call_id", item.get("id"))
            if not isinstance(call_id, str):
                raise RecordProblem(where + ("call_id",), "missing field `call_id`" if call_id is None
                                    else "`call_id` must be a string")
            output = item.get("output")
            if not events.result(call_id, text_content(output) if output is not None else None,
                                 item.get("status") == "incomplete"):
                raise RecordProblem(where + ("call_id",), f"no earlier function call has the id `{call_id}`")
        elif _is_call(kind):
            _other_call(events, item, kind, where, i)
        elif kind == "message" and item.get("role") in ("user", "assistant"):
            message_id = item.get("id") if isinstance(item.get("id"), str) else str(i)
            events.message(message_text(item.get("content")), item["role"], message_id)
        elif kind not in QUIET and (is_call_shaped(item) or isinstance(kind, str) and "call" in kind):
            raise RecordProblem(where + ("type",), f"an item of type `{kind}` looks like a tool call, and this "
                                                   "reader does not know it: its call would be lost")
    if items and not len(events):
        raise no_events(prefix, len(items), "items")
    return events.trace(metrics, trace_id, origin)


def _other_call(events: Events, item: dict[str, Any], kind: str, where: Where, i: int) -> None:
    """A call item other than `function_call`: custom tools, the local shell, MCP, built-ins."""
    call_id = item.get("call_id", item.get("id"))
    call_id = call_id if isinstance(call_id, str) else f"{i}"
    if kind == "custom_tool_call":
        name = require(item, "name", str, where, "a string")
        given = item.get("input")
        args = {"input": given} if given is not None else {}
    elif kind == "mcp_call":
        name = require(item, "name", str, where, "a string")
        args = parse_arguments(item.get("arguments"), where + ("arguments",))
    else:
        name = kind[:-len("_call")]
        action = item.get("action")
        args = dict(action) if isinstance(action, dict) else {k: v for k, v in item.items() if k not in _NOT_ARGUMENTS}
    inline = next((item[k] for k in _INLINE_RESULTS if item.get(k) is not None), None)
    events.call(name, args, call_id=call_id)
    if inline is not None or _failed(item):
        error = item.get("error")
        events.result(call_id, inline if inline is not None else error if isinstance(error, str) else None,
                      _failed(item))
