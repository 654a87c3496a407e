"""τ²-bench simulations: one `SimulationRun` of a results file (or of a `simulations/` folder).

The agent's calls are the `tool_calls` (`{"id", "name", "arguments"}`) of assistant messages,
in order; a `tool` message (or each message of a `tool_messages` group) is the result of the
call with its `id`. Calls the simulated user makes (in user messages, in the dual-control
domains) are not the agent's and are left out; `metrics.user_tool_calls` counts them.
Full-duplex runs without `messages` are read from their `ticks` (`agent_tool_calls`,
`agent_tool_results`). The metrics μ are `task_id`, `trial`, `seed`, `termination_reason`,
`duration`, `agent_cost`, `user_cost` and `reward` (from `reward_info`).

>>> sim = {"id": "s1", "task_id": "7", "termination_reason": "user_stop", "reward_info": {"reward": 1.0},
...        "messages": [{"role": "assistant", "tool_calls": [{"id": "t1", "name": "get_user", "arguments": {"id": 3}}]},
...                     {"role": "tool", "id": "t1", "content": "{\\"name\\": \\"Ann\\"}"}]}
>>> t = parse_tau2(sim)
>>> t.id, t.tool_sequence, t.calls[0].result, t.metrics["reward"]
('s1', ['get_user'], {'name': 'Ann'}, 1.0)
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

_METRICS = ("task_id", "trial", "seed", "termination_reason", "duration", "agent_cost", "user_cost")


def is_tau2(value: Any) -> bool:
    if not isinstance(value, dict):
        return False
    if not isinstance(value.get("messages"), list) and not isinstance(value.get("ticks"), list):
        return False
    if "task_id" in value or "termination_reason" in value:
        return True
    messages = value.get("messages") or []
    return any(isinstance(m, dict) and isinstance(m.get("tool_calls"), list)
               and any(isinstance(c, dict) and "name" in c and "function" not in c for c in m["tool_calls"])
               for m in messages)


class _Calls:
    """The agent's calls so far, and which of them still wait for a result."""

    def __init__(self) -> None:
        self.calls: list[list] = []
        self.by_id: dict[str, int] = {}
        self.waiting: list[int] = []
        self.user_ids: set[str] = set()
        self.user_calls = 0

    def add(self, tool_call: Any, where: tuple, by_user: bool) -> None:
        tool_call = require_object(tool_call, where, "a tool call")
        name = require(tool_call, "name", str, where, "a string")
        args = parse_arguments(tool_call.get("arguments"), where + ("arguments",))
        call_id = tool_call.get("id") if isinstance(tool_call.get("id"), str) else ""
        if by_user or tool_call.get("requestor") == "user":
            self.user_calls += 1
            self.user_ids.add(call_id)
            return
        if call_id:
            self.by_id[call_id] = len(self.calls)
        self.waiting.append(len(self.calls))
        self.calls.append([name, args, NO_RESULT])

    def result(self, message: Any, where: tuple) -> None:
        message = require_object(message, where, "a tool message")
        call_id = message.get("id") if isinstance(message.get("id"), str) else ""
        if message.get("requestor") == "user" or call_id and call_id in self.user_ids:
            return
        index = self.by_id.get(call_id) if call_id else (self.waiting[0] if self.waiting else None)
        if index is None:
            raise RecordProblem(where + ("id",), f"no earlier tool call of the agent has the id `{call_id}`")
        if index in self.waiting:
            self.waiting.remove(index)
        self.calls[index][2] = parse_result(text_content(message.get("content")))


def parse_tau2(value: Any, origin: str | None = None) -> Trace:
    sim = require_object(value, (), "a simulation (an object with `messages`)")
    calls = _Calls()
    if sim.get("messages") is not None:
        messages = require(sim, "messages", list, (), "an array of messages")
        for i, message in enumerate(messages):
            where = ("messages", i)
            message = require_object(message, where, "a message")
            role = message.get("role")
            if role in ("assistant", "user"):
                for j, tool_call in enumerate(message.get("tool_calls") or []):
                    calls.add(tool_call, where + ("tool_calls", j), by_user=role == "user")
            elif role == "tool":
                group = message.get("tool_messages")
                if isinstance(group, list):
                    for j, part in enumerate(group):
                        calls.result(part, where + ("tool_messages", j))
                else:
                    calls.result(message, where)
    else:
        ticks = require(sim, "ticks", list, (), "an array of ticks")
        for i, tick in enumerate(ticks):
            tick = require_object(tick, ("ticks", i), "a tick")
            for j, tool_call in enumerate(tick.get("agent_tool_calls") or []):
                calls.add(tool_call, ("ticks", i, "agent_tool_calls", j), by_user=False)
            for j, message in enumerate(tick.get("agent_tool_results") or []):
                calls.result(message, ("ticks", i, "agent_tool_results", j))
    metrics: dict[str, Any] = {k: sim[k] for k in _METRICS if k in sim}
    reward = sim.get("reward_info")
    if isinstance(reward, dict) and "reward" in reward:
        metrics["reward"] = reward["reward"]
    metrics["user_tool_calls"] = calls.user_calls
    return build_trace([tuple(c) for c in calls.calls], metrics, sim.get("id"), origin)
