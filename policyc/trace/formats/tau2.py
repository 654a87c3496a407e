"""τ²-bench simulations: one `SimulationRun` of a results file (or of a `simulations/` folder).

Every message is kept. An assistant or user message is a message event (its `content` as
text, the names of the tools it calls), followed by its `tool_calls` (`{"id", "name",
"arguments", "requestor"}`), each a call by its requestor: the agent's, or the simulated
user's own device actions in the dual-control domains. A `tool` message (or each message of a
`tool_messages` group) is the result of the call with its `id`, and its `error` flag says
whether that call failed. Events of one message share its `message_id` (the message's index).
The first user message's text is the run's request. Full-duplex runs without `messages` are
read from their `ticks` (`agent_chunk`, `user_chunk`, `agent_tool_calls`, `user_tool_calls`,
`agent_tool_results`, `user_tool_results`). The metrics μ are `task_id` (in the telecom domain
it names the faults the task injected), `trial`, `seed`, `termination_reason`, `duration`,
`agent_cost`, `user_cost`, `reward` (from `reward_info`) and `user_tool_calls` (how many calls
the user made).

A policy reads the agent's calls unless it observes more (`observe messages, user_calls`).

>>> sim = {"id": "s1", "task_id": "7", "termination_reason": "user_stop", "reward_info": {"reward": 1.0},
...        "messages": [{"role": "user", "content": "My phone has no signal."},
...                     {"role": "assistant", "tool_calls": [{"id": "t1", "name": "get_user", "arguments": {"id": 3}}]},
...                     {"role": "tool", "id": "t1", "content": "{\\"name\\": \\"Ann\\"}"}]}
>>> t = parse_tau2(sim)
>>> t.id, t.tool_sequence, t.calls[0].result, t.metrics["reward"], t.request
('s1', ['get_user'], {'name': 'Ann'}, 1.0, 'My phone has no signal.')
>>> [e.name for e in t.events]
['message', 'message', 'get_user']
"""

from __future__ import annotations

from typing import Any

from policyc.trace.errors import RecordProblem, Where
from policyc.trace.formats.common import (
    Events, json_type, message_text, parse_arguments, reject_unread_calls, require, require_list, require_object,
    texts_at,
)
from policyc.trace.model import Trace

_METRICS = ("task_id", "trial", "seed", "termination_reason", "duration", "agent_cost", "user_cost")
_ACTORS = ("assistant", "user")


def is_tau2(value: Any) -> bool:
    if not isinstance(value, dict):
        return False
    if not isinstance(value.get("messages"), list) and not isinstance(value.get("ticks"), list):
        return False
    if "task_id" in value or "termination_reason" in value:
        return True
    messages = value.get("messages") or []
    return all(isinstance(m, dict) and "role" in m for m in messages) and any(isinstance(m, dict) and isinstance(m.get("tool_calls"), list)
               and any(isinstance(c, dict) and "name" in c and "function" not in c for c in m["tool_calls"])
               for m in messages)


def _actor(value: Any, where: Where, default: str) -> str:
    if value is None:
        return default
    if value not in _ACTORS:
        raise RecordProblem(where, f"`requestor` must be \"assistant\" or \"user\", found {json_type(value)}"
                            if not isinstance(value, str) else f"unknown requestor `{value}`")
    return str(value)


def _calls(events: Events, tool_calls: list[Any], where: Where, role: str, message_id: str) -> None:
    for j, tool_call in enumerate(tool_calls):
        at = where + (j,)
        tool_call = require_object(tool_call, at, "a tool call")
        name = require(tool_call, "name", str, at, "a string")
        args = parse_arguments(tool_call.get("arguments"), at + ("arguments",))
        actor = _actor(tool_call.get("requestor"), at + ("requestor",), role)
        call_id = tool_call.get("id") if isinstance(tool_call.get("id"), str) else None
        events.call(name, args, actor, message_id, call_id=call_id)


def _result(events: Events, message: Any, where: Where) -> None:
    message = require_object(message, where, "a tool message")
    call_id = message.get("id") if isinstance(message.get("id"), str) else None
    actor = _actor(message.get("requestor"), where + ("requestor",), "assistant")
    error = message.get("error", False)
    if not isinstance(error, bool):
        raise RecordProblem(where + ("error",), f"`error` must be a boolean, found {json_type(error)}")
    if not events.result(call_id, message_text(message.get("content")) if message.get("content") is not None
                         else None, error, actor):
        raise RecordProblem(where + ("id",), f"no earlier tool call has the id `{call_id}`" if call_id
                            else "a tool result without an id, and no call waits for one")


def _message(events: Events, message: dict[str, Any], where: Where, role: str, message_id: str) -> None:
    tool_calls = require_list(message, "tool_calls", where)
    names = texts_at(tool_calls, "name")
    events.message(message_text(message.get("content")), role, message_id, names)
    _calls(events, tool_calls, where + ("tool_calls",), role, message_id)


def parse_tau2(value: Any, origin: str | None = None) -> Trace:
    sim = require_object(value, (), "a simulation (an object with `messages`)")
    reject_unread_calls(sim, ("messages", "ticks"), (), "a τ²-bench simulation")
    events = Events()
    if sim.get("messages") is not None:
        messages = require(sim, "messages", list, (), "an array of messages")
        for i, message in enumerate(messages):
            where = ("messages", i)
            message = require_object(message, where, "a message")
            reject_unread_calls(message, ("tool_calls", "tool_messages"), where, "a τ²-bench message")
            role = message.get("role")
            if role in _ACTORS:
                _message(events, message, where, role, str(i))
            elif role == "tool":
                if "tool_messages" in message:
                    for j, part in enumerate(require_list(message, "tool_messages", where)):
                        _result(events, part, where + ("tool_messages", j))
                else:
                    _result(events, message, where)
            elif role != "system":
                raise RecordProblem(where + ("role",), f"unknown role `{role}`" if isinstance(role, str)
                                    else f"`role` must be a string, found {json_type(role)}")
    else:
        ticks = require(sim, "ticks", list, (), "an array of ticks")
        for i, tick in enumerate(ticks):
            where = ("ticks", i)
            tick = require_object(tick, where, "a tick")
            for role in _ACTORS:
                side = "agent" if role == "assistant" else "user"
                chunk = tick.get(f"{side}_chunk")
                calls = require_list(tick, f"{side}_tool_calls", where)
                if chunk is not None or calls:
                    text = message_text(require_object(chunk, where + (f"{side}_chunk",), "a message").get("content")) \
                        if chunk is not None else ""
                    names = texts_at(calls, "name")
                    events.message(text, role, f"{i}.{side}", names)
                _calls(events, calls, where + (f"{side}_tool_calls",), role, f"{i}.{side}")
                for j, message in enumerate(require_list(tick, f"{side}_tool_results", where)):
                    _result(events, message, where + (f"{side}_tool_results", j))
    metrics: dict[str, Any] = {k: sim[k] for k in _METRICS if k in sim}
    reward = sim.get("reward_info")
    if isinstance(reward, dict) and "reward" in reward:
        metrics["reward"] = reward["reward"]
    metrics["user_tool_calls"] = sum(1 for e in events.items if e["kind"] == "call" and e["actor"] == "user")
    return events.trace(metrics, sim.get("id"), origin)
