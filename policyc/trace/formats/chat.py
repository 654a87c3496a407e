"""OpenAI-style chat messages: assistant `tool_calls` and `tool` replies.

A record is a list of messages, or an object with a `messages` list (its other fields are the
metrics μ). Each assistant tool call `{"id", "function": {"name", "arguments"}}` is one call,
in order (arguments are a JSON string or an object); a `{"role": "tool", "tool_call_id",
"content"}` message is the result of the call with that id. The older `function_call` /
`{"role": "function"}` pair is read the same way. Plain assistant text is not a call.

>>> msgs = [{"role": "user", "content": "hi"},
...         {"role": "assistant", "tool_calls": [{"id": "c1", "type": "function",
...          "function": {"name": "search", "arguments": "{\\"query\\": \\"x\\"}"}}]},
...         {"role": "tool", "tool_call_id": "c1", "content": "[\\"a.py\\"]"}]
>>> t = parse_chat(msgs)
>>> t.tool_sequence, t.calls[0].args, t.calls[0].result
(['search'], {'query': 'x'}, ['a.py'])
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


def is_chat(value: Any) -> bool:
    messages = value.get("messages") if isinstance(value, dict) else value
    return isinstance(messages, list) and all(isinstance(m, dict) and "role" in m for m in messages)


def parse_chat(value: Any, origin: str | None = None) -> Trace:
    if isinstance(value, dict):
        messages = require(value, "messages", list, (), "an array of messages")
        prefix: tuple = ("messages",)
        metrics = {k: v for k, v in value.items() if k != "messages"}
        trace_id = value.get("id")
    elif isinstance(value, list):
        messages, prefix, metrics, trace_id = value, (), {}, None
    else:
        raise RecordProblem((), "expected a list of chat messages or an object with `messages`")
    calls: list[list] = []
    by_id: dict[str, int] = {}
    pending_function: int | None = None
    for i, message in enumerate(messages):
        where = prefix + (i,)
        message = require_object(message, where, "a message")
        role = require(message, "role", str, where, "a string")
        if role == "assistant":
            tool_calls = message.get("tool_calls") or []
            if not isinstance(tool_calls, list):
                raise RecordProblem(where + ("tool_calls",), "`tool_calls` must be an array")
            for j, tool_call in enumerate(tool_calls):
                at = where + ("tool_calls", j)
                tool_call = require_object(tool_call, at, "a tool call")
                function = require(tool_call, "function", dict, at, "an object")
                name = require(function, "name", str, at + ("function",), "a string")
                args = parse_arguments(function.get("arguments"), at + ("function", "arguments"))
                if isinstance(tool_call.get("id"), str):
                    by_id[tool_call["id"]] = len(calls)
                calls.append([name, args, NO_RESULT])
            legacy = message.get("function_call")
            if isinstance(legacy, dict):
                name = require(legacy, "name", str, where + ("function_call",), "a string")
                args = parse_arguments(legacy.get("arguments"), where + ("function_call", "arguments"))
                pending_function = len(calls)
                calls.append([name, args, NO_RESULT])
        elif role == "tool":
            call_id = require(message, "tool_call_id", str, where, "a string")
            index = by_id.get(call_id)
            if index is None:
                raise RecordProblem(where + ("tool_call_id",), f"no earlier tool call has the id `{call_id}`")
            calls[index][2] = parse_result(text_content(message.get("content")))
        elif role == "function" and pending_function is not None:
            calls[pending_function][2] = parse_result(text_content(message.get("content")))
            pending_function = None
    return build_trace([tuple(c) for c in calls], metrics, trace_id, origin)
