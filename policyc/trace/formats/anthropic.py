"""Anthropic's Messages API: `tool_use` and `tool_result` content blocks.

A record is a list of messages, an object with `messages` (a request body, a stored
conversation; its other fields but `messages` are the metrics μ), or one response message
(`{"type": "message", "role": "assistant", "content": [...]}`). A message's content is text
or a list of blocks. A user or assistant message with text or `tool_use` blocks is a message
event (its text blocks joined, the names of the tools it calls); each `{"type": "tool_use",
"id", "name", "input"}` block follows it as a call; a `{"type": "tool_result", "tool_use_id",
"content", "is_error"}` block (sent in the next user message) is the result of the call with
that id, and `is_error` says whether the call failed. A user message of tool results only is
not a message of the user. The first user text is the run's request. Thinking and image
blocks are not events.

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
    json_type,
    message_text,
    no_events,
    require,
    require_object,
)
from policyc.trace.model import Trace

TOOL_BLOCKS = ("tool_use", "tool_result")


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
        isinstance(m.get("content"), list) and any(isinstance(b, dict) and b.get("type") in TOOL_BLOCKS
                                                   for b in m["content"]) for m in messages)


def parse_anthropic(value: Any, origin: str | None = None) -> Trace:
    messages, prefix = _messages(value)
    if not isinstance(messages, list):
        raise RecordProblem((), "expected a list of Messages API messages, an object with `messages`, "
                                "or one response message")
    single = prefix is None
    if prefix is None:
        prefix = ()
    metrics = {k: v for k, v in value.items() if k not in ("messages", "content")} if isinstance(value, dict) else {}
    trace_id = value.get("id") if isinstance(value, dict) else None
    events = Events()
    for i, message in enumerate(messages):
        where = () if single else prefix + (i,)
        message = require_object(message, where, "a message")
        role = require(message, "role", str, where, "a string")
        if role not in ("user", "assistant"):
            raise RecordProblem(where + ("role",), f"unknown role `{role}`; messages are the user's or the assistant's")
        content = message.get("content")
        blocks = content if isinstance(content, list) else []
        if content is not None and not isinstance(content, (str, list)):
            raise RecordProblem(where + ("content",), f"`content` must be text or a list of blocks, "
                                                      f"found {json_type(content)}")
        uses = []
        for j, block in enumerate(blocks):
            at = where + ("content", j)
            block = require_object(block, at, "a content block")
            kind = block.get("type")
            if kind == "tool_use":
                name = require(block, "name", str, at, "a string")
                args = block.get("input", {})
                if not isinstance(args, dict):
                    raise RecordProblem(at + ("input",), f"`input` must be an object, found {json_type(args)}")
                uses.append((name, args, block.get("id") if isinstance(block.get("id"), str) else f"{i}.{j}"))
            elif kind == "tool_result":
                call_id = require(block, "tool_use_id", str, at, "a string")
                result = block.get("content")
                if not events.result(call_id, message_text(result) if result is not None else None,
                                     block.get("is_error") is True):
                    raise RecordProblem(at + ("tool_use_id",), f"no earlier `tool_use` block has the id `{call_id}`")
        text = message_text(content)
        only_results = blocks and not text and not uses
        if only_results:
            continue
        message_id = message.get("id") if isinstance(message.get("id"), str) else str(i)
        events.message(text, role, message_id, [u[0] for u in uses])
        for name, args, call_id in uses:
            events.call(name, args, role, message_id, call_id=call_id)
    if messages and not len(events):
        raise no_events(prefix, len(messages), "messages")
    return events.trace(metrics, trace_id, origin)
