"""Anthropic's Messages API: `tool_use` and `tool_result` content blocks.

A record is a list of messages, an object with `messages` (a request body, a stored
conversation; its other fields but `messages` are the metrics μ), or one response message
(`{"type": "message", "role": "assistant", "content": [...]}`). A message's content is text
or a list of blocks. A user or assistant message with text or `tool_use` blocks is a message
event (its text blocks joined, the names of the tools it calls); each `{"type": "tool_use",
"id", "name", "input"}` block follows it as a call; a `{"type": "tool_result", "tool_use_id",
"content", "is_error"}` block (sent in the next user message) is the result of the call with
that id, and `is_error` says whether the call failed. Calls Anthropic runs itself are read
the same way: `server_tool_use` (web search, code execution, ...) and `mcp_tool_use` (the MCP
connector) blocks are calls, and a `*_tool_result` block (`web_search_tool_result`,
`mcp_tool_result`, ...) is the result of the call its `tool_use_id` names (an error when it
says so: `is_error`, or content of a `*_error` type). A user message of tool results only is
not a message of the user. The first user text is the run's request. Thinking, image and
document blocks are not events; a block of another type that names a tool, or whose type
speaks of one, is an error naming it, never skipped.

>>> msgs = [{"role": "user", "content": "Is line L1 active?"},
...         {"role": "assistant", "content": [{"type": "text", "text": "Let me look."},
...          {"type": "tool_use", "id": "tu1", "name": "get_details_by_id", "input": {"id": "L1"}}]},
...         {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "tu1",
...          "content": [{"type": "text", "text": "{\\"status\\": \\"Active\\"}"}]}]}]
>>> t = parse_anthropic(msgs)
>>> t.tool_sequence, t.calls[0].args, t.calls[0].result, t.request, [e.name for e in t.events]
(['get_details_by_id'], {'id': 'L1'}, {'status': 'Active'}, 'Is line L1 active?', ['message', 'message', 'get_details_by_id'])
"""

from __future__ import annotations

from typing import Any

from policyc.trace.errors import RecordProblem, Where
from policyc.trace.formats.common import (
    Events,
    is_call_shaped,
    json_type,
    message_text,
    no_events,
    reject_unread_calls,
    require,
    require_object,
)
from policyc.trace.model import Trace

TOOL_BLOCKS = ("tool_use", "tool_result")
#: blocks that are calls: the client's tools, Anthropic's server tools, the MCP connector's
CALL_BLOCKS = ("tool_use", "server_tool_use", "mcp_tool_use")
#: blocks that are no event
QUIET_BLOCKS = ("text", "thinking", "redacted_thinking", "image", "document", "search_result", "container_upload")


def _is_result_block(kind: Any) -> bool:
    return isinstance(kind, str) and (kind == "tool_result" or kind.endswith("_tool_result"))


def _is_tool_block(kind: Any) -> bool:
    return kind in CALL_BLOCKS or _is_result_block(kind)


def _messages(value: Any) -> tuple[Any, Where | None]:
    if isinstance(value, dict):
        if value.get("type") == "message" and "content" in value:
            return [value], None  # one response message
        return value.get("messages"), ("messages",)
    return value, ()


def is_anthropic(value: Any) -> bool:
    """A conversation with `tool_use` or `tool_result` blocks, or one response message."""
    if isinstance(value, dict) and value.get("type") == "message" and isinstance(value.get("content"), list):
        return True
    messages, _ = _messages(value)
    return isinstance(messages, list) and all(isinstance(m, dict) and "role" in m for m in messages) and any(
        isinstance(m.get("content"), list) and any(isinstance(b, dict) and _is_tool_block(b.get("type"))
                                                   for b in m["content"]) for m in messages)


def parse_anthropic(value: Any, origin: str | None = None) -> Trace:
    messages, prefix = _messages(value)
    if not isinstance(messages, list):
        raise RecordProblem((), "expected a list of Messages API messages, an object with `messages`, "
                                "or one response message")
    single = prefix is None
    if prefix is None:
        prefix = ()
    if isinstance(value, dict) and not single:
        reject_unread_calls(value, ("messages",), (), "a Messages API record")
    metrics = {k: v for k, v in value.items() if k not in ("messages", "content")} if isinstance(value, dict) else {}
    trace_id = value.get("id") if isinstance(value, dict) else None
    events = Events()
    for i, message in enumerate(messages):
        where = () if single else prefix + (i,)
        message = require_object(message, where, "a message")
        role = require(message, "role", str, where, "a string")
        if role not in ("user", "assistant"):
            raise RecordProblem(where + ("role",), f"unknown role `{role}`; messages are the user's or the assistant's")
        reject_unread_calls(message, ("content",), where, "a message")
        content = message.get("content")
        blocks = content if isinstance(content, list) else []
        if content is not None and not isinstance(content, (str, list)):
            raise RecordProblem(where + ("content",), f"`content` must be text or a list of blocks, "
                                                      f"found {json_type(content)}")
        uses, results = [], []
        for j, block in enumerate(blocks):
            at = where + ("content", j)
            block = require_object(block, at, "a content block")
            reject_unread_calls(block, ("input", "content"), at, "a content block")
            kind = block.get("type")
            if kind in CALL_BLOCKS:
                name = require(block, "name", str, at, "a string")
                args = block.get("input", {})
                if not isinstance(args, dict):
                    raise RecordProblem(at + ("input",), f"`input` must be an object, found {json_type(args)}")
                uses.append((name, args, block.get("id") if isinstance(block.get("id"), str) else f"{i}.{j}"))
            elif _is_result_block(kind):
                call_id = require(block, "tool_use_id", str, at, "a string")
                result = block.get("content")
                failed = block.get("is_error") is True or isinstance(result, dict) and \
                    str(result.get("type", "")).endswith("_error")
                if kind in ("tool_result", "mcp_tool_result"):
                    result = message_text(result) if result is not None else None
                results.append((at, call_id, result, failed))
            elif kind not in QUIET_BLOCKS and (is_call_shaped(block) or isinstance(kind, str) and "tool" in kind):
                raise RecordProblem(at + ("type",), f"a `{kind}` block looks like a tool call or result, and this "
                                                    "reader does not know it: its call would be lost")
        text = message_text(content)
        if not (blocks and not text and not uses):  # a user message of tool results only is no message
            message_id = message.get("id") if isinstance(message.get("id"), str) else str(i)
            events.message(text, role, message_id, [u[0] for u in uses])
            for name, args, call_id in uses:
                events.call(name, args, role, message_id, call_id=call_id)
        for at, call_id, result, failed in results:  # a server tool's result may follow its call in one message
            if not events.result(call_id, result, failed):
                raise RecordProblem(at + ("tool_use_id",), f"no earlier `tool_use` block has the id `{call_id}`")
    if messages and not len(events):
        raise no_events(prefix, len(messages), "messages")
    return events.trace(metrics, trace_id, origin)
