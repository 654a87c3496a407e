"""LangChain and LangGraph message dumps.

A record is a list of LangChain messages, an object with `messages` (a LangGraph state; its
other fields are the metrics μ), or a LangGraph checkpoint (`channel_values.messages`). A
message is any of the forms LangChain writes:

- `message.model_dump()` / `.dict()`: `{"type": "ai", "content": ..., "tool_calls": [...]}`;
- `messages_to_dict`: `{"type": "ai", "data": {...}}`;
- `dumpd` (serialised): `{"lc": 1, "type": "constructor", "id": [..., "AIMessage"], "kwargs": {...}}`.

A human or AI message is a message event (its text, the names of the tools it calls); each
of an AI message's `tool_calls` (`{"name", "args", "id"}`, or OpenAI-style ones in
`additional_kwargs`) follows it as a call; a tool message is the result of the call with
its `tool_call_id`, and its `status` `"error"` says that call failed. A streamed message
(an `AIMessageChunk`) whose `tool_calls` are not parsed yet has `tool_call_chunks`: the chunks
of one `index` are one call, their `args` texts joined. `invalid_tool_calls` (arguments the
model could not give as JSON) were never run and are not calls. The first human message is
the run's request. System messages are not events. A field that holds what looks like tool
calls anywhere else (a misspelt `tool_calls`, `tool_use` blocks in `content` with no
`tool_calls` beside them) is an error naming it.

>>> msgs = [{"type": "human", "content": "Refuel 1 GB on L1"},
...         {"type": "ai", "content": "", "tool_calls": [{"name": "refuel_data", "args": {"line_id": "L1",
...          "gb_amount": 1}, "id": "c1", "type": "tool_call"}]},
...         {"type": "tool", "content": "Line not found", "tool_call_id": "c1", "status": "error"}]
>>> t = parse_langchain(msgs)
>>> t.tool_sequence, t.calls[0].result, t.calls[0].error, t.request
(['refuel_data'], 'Line not found', True, 'Refuel 1 GB on L1')
"""

from __future__ import annotations

from typing import Any

from policyc.trace.errors import RecordProblem, Where
from policyc.trace.formats.common import (
    Events, holds_calls, is_call_shaped, json_type, message_text, no_events, parse_arguments, reject_unread_calls,
    require, require_list, require_object, texts_at,
)
from policyc.trace.model import Trace

_TYPES = {"human": "user", "ai": "assistant", "tool": "tool", "system": "system", "function": "function",
          "chat": "chat", "remove": "remove"}
_CLASSES = {"HumanMessage": "human", "HumanMessageChunk": "human", "AIMessage": "ai", "AIMessageChunk": "ai",
            "ToolMessage": "tool", "ToolMessageChunk": "tool", "SystemMessage": "system",
            "FunctionMessage": "function", "ChatMessage": "chat", "RemoveMessage": "remove"}


def _kind_and_data(message: Any) -> tuple[str | None, Any]:
    """A message's LangChain type (`human`, `ai`, ...) and the fields that describe it."""
    if not isinstance(message, dict):
        return None, None
    if message.get("lc") == 1 and message.get("type") == "constructor" and isinstance(message.get("id"), list):
        name = message["id"][-1] if message["id"] else None
        return _CLASSES.get(name) if isinstance(name, str) else None, message.get("kwargs")
    kind = message.get("type")
    if isinstance(kind, str) and kind.endswith("Chunk"):
        kind = kind[:-len("Chunk")].lower().replace("message", "") or None
    if isinstance(kind, str) and kind in _TYPES:
        return kind, message["data"] if isinstance(message.get("data"), dict) and "content" not in message else message
    return None, None


def _messages(value: Any) -> tuple[Any, Where]:
    if isinstance(value, dict):
        if isinstance(value.get("channel_values"), dict):
            return value["channel_values"].get("messages"), ("channel_values", "messages")
        return value.get("messages"), ("messages",)
    return value, ()


def is_langchain(value: Any) -> bool:
    messages, _ = _messages(value)
    return isinstance(messages, list) and bool(messages) and all(_kind_and_data(m)[0] is not None for m in messages)


def parse_langchain(value: Any, origin: str | None = None) -> Trace:
    messages, prefix = _messages(value)
    if not isinstance(messages, list):
        raise RecordProblem((), "expected a list of LangChain messages or an object with `messages`")
    if isinstance(value, dict):
        reject_unread_calls(value, ("messages", "channel_values"), (), "a LangChain record")
    metrics = {k: v for k, v in value.items() if k not in ("messages", "channel_values")} \
        if isinstance(value, dict) else {}
    trace_id = value.get("id") if isinstance(value, dict) else None
    events = Events()
    for i, message in enumerate(messages):
        where = prefix + (i,)
        kind, data = _kind_and_data(message)
        if kind is None:
            raise RecordProblem(where, "not a LangChain message: expected `type` human, ai, tool or system, "
                                       "or a serialised message (`lc`, `id`, `kwargs`)")
        data = require_object(data, where, "a message")
        role = _TYPES[kind]
        if is_call_shaped(data):  # a call written as a message of its own: read as one, it would be lost
            raise RecordProblem(where, f"a LangChain `{kind}` message that names a tool and gives it arguments "
                                       "looks like a tool call, which LangChain keeps in an `ai` message's "
                                       "`tool_calls`: read as a message, the call would be lost")
        if role in ("user", "assistant"):
            reject_unread_calls(data, _READ, where, "a LangChain message")
            tool_calls = require_list(data, "tool_calls", where) if role == "assistant" else []
            if not tool_calls and role == "assistant":
                tool_calls = _chunked_calls(require_list(data, "tool_call_chunks", where), where)
            if not tool_calls and role == "assistant":
                extra = data.get("additional_kwargs")
                tool_calls = [_openai_call(c) for c in extra.get("tool_calls") or []] \
                    if isinstance(extra, dict) and isinstance(extra.get("tool_calls"), list) else []
            if not tool_calls and not data.get("invalid_tool_calls"):
                _no_hidden_calls(data, where)
            names = texts_at(tool_calls, "name")
            message_id = data.get("id") if isinstance(data.get("id"), str) else str(i)
            events.message(message_text(data.get("content")), role, message_id, names)
            for j, tool_call in enumerate(tool_calls):
                at = where + ("tool_calls", j)
                tool_call = require_object(tool_call, at, "a tool call")
                name = require(tool_call, "name", str, at, "a string")
                args = parse_arguments(tool_call.get("args"), at + ("args",))
                call_id = tool_call.get("id") if isinstance(tool_call.get("id"), str) else f"{i}.{j}"
                events.call(name, args, "assistant", message_id, call_id=call_id)
        elif role == "tool":
            call_id = require(data, "tool_call_id", str, where, "a string")
            status = data.get("status", "success")
            if status not in ("success", "error"):
                raise RecordProblem(where + ("status",), f"`status` must be \"success\" or \"error\", "
                                                         f"found {json_type(status)}")
            content = data.get("content")
            if not events.result(call_id, message_text(content) if content is not None else None, status == "error"):
                raise RecordProblem(where + ("tool_call_id",), f"no earlier tool call has the id `{call_id}`")
    if messages and not len(events):
        raise no_events(prefix, len(messages), "messages")
    return events.trace(metrics, trace_id, origin)


#: message fields whose calls are read (or, `invalid_tool_calls`, known never to have run)
_READ = ("tool_calls", "tool_call_chunks", "invalid_tool_calls", "additional_kwargs", "content")


def _chunked_calls(chunks: list[Any], where: Where) -> list[dict[str, Any]]:
    """The calls of a streamed message's `tool_call_chunks`: per `index`, the first name and
    id, and the `args` texts joined."""
    calls: dict[Any, dict[str, Any]] = {}
    for j, chunk in enumerate(chunks):
        at = where + ("tool_call_chunks", j)
        chunk = require_object(chunk, at, "a tool call chunk")
        index = chunk.get("index", j)
        call = calls.setdefault(index if isinstance(index, (int, str)) else j, {"name": None, "args": "", "id": None})
        for key in ("name", "id"):
            if call[key] is None and isinstance(chunk.get(key), str):
                call[key] = chunk[key]
        piece = chunk.get("args")
        if piece is not None and not isinstance(piece, str):
            raise RecordProblem(at + ("args",), f"`args` of a chunk must be text, found {json_type(piece)}")
        call["args"] += piece or ""
    for call in calls.values():
        if call["name"] is None:
            raise RecordProblem(where + ("tool_call_chunks",), "the chunks of a tool call never name its tool")
    return list(calls.values())


def _no_hidden_calls(data: dict[str, Any], where: Where) -> None:
    """A message with no calls read must not hold any elsewhere: in `content` (`tool_use`
    blocks of a model that LangChain did not parse), or in `additional_kwargs`."""
    extra = data.get("additional_kwargs")
    for key, value in (("content", data.get("content")), ("additional_kwargs", extra)):
        if isinstance(value, (list, dict)) and holds_calls(value):
            raise RecordProblem(where + (key,), f"`{key}` holds what looks like tool calls, and the message has no "
                                                "`tool_calls`: they would be lost")


def _openai_call(call: Any) -> Any:
    """An OpenAI-style tool call of `additional_kwargs` as a LangChain one."""
    if isinstance(call, dict) and isinstance(call.get("function"), dict):
        return {"name": call["function"].get("name"), "args": call["function"].get("arguments"), "id": call.get("id")}
    return call
