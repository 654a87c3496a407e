"""OpenAI-style chat messages: assistant `tool_calls` and `tool` replies.

A record is a list of messages, or an object with a `messages` list (its other fields are the
metrics μ). Every user and assistant message is a message event (its text, the names of the
tools it calls); each assistant tool call `{"id", "function": {"name", "arguments"}}` follows
it as a call, in order (arguments are a JSON string or an object); a `{"role": "tool",
"tool_call_id", "content"}` message is the result of the call with that id. The older
`function_call` / `{"role": "function"}` pair is read the same way. The first user message is
the run's request. System and developer messages are not events. A message field that
holds what looks like tool calls but is not one of those (a misspelt `tool_calls`, a call in
`content`) is an error naming the field.

>>> msgs = [{"role": "user", "content": "hi"},
...         {"role": "assistant", "tool_calls": [{"id": "c1", "type": "function",
...          "function": {"name": "search", "arguments": "{\\"query\\": \\"x\\"}"}}]},
...         {"role": "tool", "tool_call_id": "c1", "content": "[\\"a.py\\"]"}]
>>> t = parse_chat(msgs)
>>> t.tool_sequence, t.calls[0].args, t.calls[0].result, t.request
(['search'], {'query': 'x'}, ['a.py'], 'hi')
"""

from __future__ import annotations

from typing import Any

from policyc.trace.errors import RecordProblem
from policyc.trace.formats.common import (
    Events,
    json_type,
    message_text,
    no_events,
    parse_arguments,
    reject_unread_calls,
    require,
    require_list,
    require_object,
)
from policyc.trace.model import Trace

_QUIET_ROLES = ("system", "developer")
#: content blocks that belong to Anthropic's Messages API, not to OpenAI chat
FOREIGN_BLOCKS = ("tool_use", "tool_result")


def is_chat(value: Any) -> bool:
    messages = value.get("messages") if isinstance(value, dict) else value
    return isinstance(messages, list) and all(isinstance(m, dict) and "role" in m for m in messages)


def parse_chat(value: Any, origin: str | None = None) -> Trace:
    if isinstance(value, dict):
        messages = require(value, "messages", list, (), "an array of messages")
        reject_unread_calls(value, ("messages",), (), "a chat record")
        prefix: tuple[Any, ...] = ("messages",)
        metrics = {k: v for k, v in value.items() if k != "messages"}
        trace_id = value.get("id")
    elif isinstance(value, list):
        messages, prefix, metrics, trace_id = value, (), {}, None
    else:
        raise RecordProblem((), "expected a list of chat messages or an object with `messages`")
    events = Events()
    legacy_waiting = False
    for i, message in enumerate(messages):
        where = prefix + (i,)
        message = require_object(message, where, "a message")
        role = require(message, "role", str, where, "a string")
        content = message.get("content")
        if isinstance(content, list):
            for j, block in enumerate(content):
                if isinstance(block, dict) and block.get("type") in FOREIGN_BLOCKS:
                    raise RecordProblem(where + ("content", j, "type"),
                                        f"a `{block['type']}` block belongs to Anthropic's Messages API; "
                                        "read the record with --format anthropic")
        reject_unread_calls(message, ("tool_calls", "function_call"), where, "a chat message")
        if role in ("user", "assistant"):
            tool_calls = require_list(message, "tool_calls", where) if role == "assistant" else []
            legacy = message.get("function_call") if role == "assistant" else None
            names = [c["function"]["name"] for c in tool_calls if isinstance(c, dict)
                     and isinstance(c.get("function"), dict) and isinstance(c["function"].get("name"), str)]
            if isinstance(legacy, dict) and isinstance(legacy.get("name"), str):
                names.append(legacy["name"])
            message_id = message.get("id") if isinstance(message.get("id"), str) else str(i)
            events.message(message_text(content), role, message_id, names)
            for j, tool_call in enumerate(tool_calls):
                at = where + ("tool_calls", j)
                tool_call = require_object(tool_call, at, "a tool call")
                function = require(tool_call, "function", dict, at, "an object")
                name = require(function, "name", str, at + ("function",), "a string")
                args = parse_arguments(function.get("arguments"), at + ("function", "arguments"))
                call_id = tool_call.get("id") if isinstance(tool_call.get("id"), str) else None
                events.call(name, args, "assistant", message_id, call_id=call_id or f"{i}.{j}")
            if legacy is not None:
                legacy = require_object(legacy, where + ("function_call",), "an object")
                name = require(legacy, "name", str, where + ("function_call",), "a string")
                args = parse_arguments(legacy.get("arguments"), where + ("function_call", "arguments"))
                events.call(name, args, "assistant", message_id, call_id=f"function.{i}")
                legacy_waiting = True
        elif role == "tool":
            call_id = require(message, "tool_call_id", str, where, "a string")
            if not events.result(call_id, message_text(content) if content is not None else None):
                raise RecordProblem(where + ("tool_call_id",), f"no earlier tool call has the id `{call_id}`")
        elif role == "function":
            if legacy_waiting:
                events.result(None, message_text(content) if content is not None else None)
                legacy_waiting = False
        elif role not in _QUIET_ROLES:
            raise RecordProblem(where + ("role",), f"unknown role `{role}`; chat roles are system, developer, "
                                                   "user, assistant, tool and function")
    if messages and not len(events):
        raise no_events(prefix, len(messages), "messages")
    return events.trace(metrics, trace_id, origin)


__all__ = ["is_chat", "parse_chat", "json_type"]
