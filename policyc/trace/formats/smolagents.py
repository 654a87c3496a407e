"""smolagents agent memory: the steps of `agent.memory.get_full_steps()` (or `get_succinct_steps()`).

A record is that list of step objects, or an object with a `steps` list. Every action step
(`step_number`) contributes its `tool_calls` (`{"id", "function": {"name", "arguments"}}`) in
order. A step with one tool call gives it the step's `observations` as result (for the
`final_answer` tool, `action_output` when there is no observation); a step with several calls
joins their observations into one text, so those calls get no result; a step that ended in
an `error` gives its call no result. Arguments that are not an object (a CodeAgent's code, a
single bare value) are kept under the name `input`. The metrics μ are the task (`task`), the
number of action steps (`num_steps`), token totals (`input_tokens`, `output_tokens`) and the
final answer (`final_output`), when present. A step field other than `tool_calls` that holds
what looks like tool calls (a misspelt `tool_calls`), or a step whose model output calls tools
while the step, without an error, has no `tool_calls`, is an error naming the field.

>>> steps = [{"task": "add"}, {"step_number": 1, "tool_calls": [{"id": "1", "type": "function",
...          "function": {"name": "add", "arguments": {"a": 1}}}], "observations": "2",
...          "token_usage": {"input_tokens": 10, "output_tokens": 2}}]
>>> t = parse_smolagents(steps)
>>> t.tool_sequence, t.calls[0].result, t.metrics["task"], t.metrics["input_tokens"]
(['add'], '2', 'add', 10)
"""

from __future__ import annotations

from typing import Any

from policyc.trace.errors import RecordProblem
from policyc.trace.formats.common import (
    NO_RESULT,
    Events,
    message_text,
    is_call_shaped,
    parse_result,
    reject_unread_calls,
    require,
    require_list,
    require_object,
)
from policyc.jsontext import decode
from policyc.trace.model import Trace

_STEP_KEYS = ("step_number", "task", "plan", "system_prompt")
#: step fields whose calls are read, or are the model's messages around them
_READ = ("tool_calls", "model_input_messages", "model_output_message")


def is_smolagents(value: Any) -> bool:
    steps = value.get("steps") if isinstance(value, dict) else value
    return (isinstance(steps, list) and all(isinstance(s, dict) for s in steps)
            and any("step_number" in s for s in steps)
            and all(any(k in s for k in _STEP_KEYS) or "output" in s for s in steps))


def _arguments(value: Any) -> dict[str, Any]:
    if isinstance(value, dict):
        return value
    if isinstance(value, str):
        parsed, problem, _ = decode(value)
        if problem is not None:  # not JSON (NaN, 1e400, half a surrogate pair), thousands of digits, too deep: text
            return {"input": value}
        if isinstance(parsed, dict):
            return parsed
    return {} if value is None else {"input": value}


def parse_smolagents(value: Any, origin: str | None = None) -> Trace:
    if isinstance(value, dict):
        steps = require(value, "steps", list, (), "an array of steps")
        reject_unread_calls(value, ("steps",), (), "a smolagents record")
        prefix: tuple[Any, ...] = ("steps",)
        trace_id = value.get("id")
    elif isinstance(value, list):
        steps, prefix, trace_id = value, (), None
    else:
        raise RecordProblem((), "expected a list of smolagents steps or an object with `steps`")
    events = Events()
    metrics: dict[str, Any] = {}
    tokens = {"input_tokens": 0, "output_tokens": 0}
    action_steps = 0
    for i, step in enumerate(steps):
        where = prefix + (i,)
        step = require_object(step, where, "a step")
        if is_call_shaped(step) and not any(k in step for k in (*_STEP_KEYS, "output")):
            raise RecordProblem(where, "a tool call where a step should be: smolagents' calls are a step's `tool_calls`")
        reject_unread_calls(step, _READ, where, "a smolagents step")
        if "task" in step and "task" not in metrics:
            metrics["task"] = step["task"]
            if isinstance(step["task"], str):
                events.message(step["task"], "user", str(i))
        if "output" in step and "step_number" not in step:
            metrics["final_output"] = step["output"]
        if "step_number" not in step:
            continue
        action_steps += 1
        usage = step.get("token_usage")
        if isinstance(usage, dict):
            for key in tokens:
                if isinstance(usage.get(key), int) and not isinstance(usage.get(key), bool):
                    tokens[key] += usage[key]
        tool_calls = require_list(step, "tool_calls", where)
        said = step.get("model_output_message")
        if not tool_calls and not step.get("error") and isinstance(said, dict) and said.get("tool_calls"):
            raise RecordProblem(where + ("model_output_message", "tool_calls"),
                                "the model's output calls tools, but the step (without an error) has no `tool_calls`")
        parsed = []
        for j, tool_call in enumerate(tool_calls):
            at = where + ("tool_calls", j)
            tool_call = require_object(tool_call, at, "a tool call")
            function = require(tool_call, "function", dict, at, "an object")
            name = require(function, "name", str, at + ("function",), "a string")
            result = NO_RESULT
            if len(tool_calls) == 1 and not step.get("error"):
                if step.get("observations") is not None:
                    result = parse_result(step["observations"])
                elif "action_output" in step:
                    result = step["action_output"]
            parsed.append((name, _arguments(function.get("arguments")), result))
        events.message(message_text(step.get("model_output")), "assistant", str(i), [p[0] for p in parsed])
        failed = bool(step.get("error")) and len(parsed) == 1
        for name, args, result in parsed:
            events.call(name, args, "assistant", str(i), result=result, error=failed)
        if step.get("is_final_answer") and "action_output" in step:
            metrics["final_output"] = step["action_output"]
    metrics["num_steps"] = action_steps
    metrics.update({k: v for k, v in tokens.items() if v})
    return events.trace(metrics, trace_id, origin)
