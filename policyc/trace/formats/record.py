"""The AgentLTL paper's metrics record (appendix A.1.3 and B).

    {"num_steps": 7, ..., "tool_calls": [
        {"step": 2, "tool_name": "tool_a", "arguments": {"seed": 42}, "tool_result": "{\\"numbers\\": [8]}"}]}

Each entry of `tool_calls` becomes one call: `tool_name` (required, a string), `arguments`
(an object, or text holding one; absent means none), `tool_result` (a string holding JSON is
parsed; absent means no result was recorded). Every other field of the record is kept as the
metrics μ, readable in rules as `metrics.<field>`.

>>> t = parse_record({"num_steps": 2, "tool_calls": [{"tool_name": "a", "arguments": {}, "tool_result": "[1]"}]})
>>> t.tool_sequence, t.calls[0].result, dict(t.metrics)
(['a'], [1], {'num_steps': 2})
"""

from __future__ import annotations

from typing import Any

from policyc.trace.formats.common import (
    NO_RESULT,
    build_trace,
    parse_arguments,
    parse_result,
    reject_misspelled,
    require,
    require_object,
)
from policyc.trace.model import Trace


CALL_FIELDS = ("tool_name", "arguments", "tool_result")


def is_record(value: Any) -> bool:
    """Whether a JSON value has the shape of a metrics record."""
    if not isinstance(value, dict) or "messages" in value or "steps" in value or "tool_calls" not in value:
        return False
    calls = value["tool_calls"]
    return not isinstance(calls, list) or all(not isinstance(c, dict) or "function" not in c for c in calls)


def parse_record(value: Any, origin: str | None = None) -> Trace:
    record = require_object(value, (), "a metrics record (an object with `tool_calls`)")
    entries = require(record, "tool_calls", list, (), "an array")
    calls = []
    for i, entry in enumerate(entries):
        where = ("tool_calls", i)
        entry = require_object(entry, where, "a tool call (an object with `tool_name`)")
        reject_misspelled(entry, CALL_FIELDS, where)
        name = require(entry, "tool_name", str, where, "a string")
        args = parse_arguments(entry.get("arguments"), where + ("arguments",))
        result = parse_result(entry["tool_result"]) if "tool_result" in entry else NO_RESULT
        calls.append((name, args, result))
    metrics = {k: v for k, v in record.items() if k != "tool_calls"}
    return build_trace(calls, metrics, record.get("id", record.get("trace_id")), origin)
