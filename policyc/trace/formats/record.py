"""The AgentLTL paper's metrics record (appendix A.1.3 and B).

    {"num_steps": 7, ..., "tool_calls": [
        {"step": 2, "tool_name": "tool_a", "arguments": {"seed": 42}, "tool_result": "{\\"numbers\\": [8]}"}]}

Each entry of `tool_calls` becomes one event: `tool_name` (required, a string), `arguments`
(an object, or text holding one; absent means none), `tool_result` (a string holding JSON is
parsed; absent means no result was recorded). An entry may also say who made it (`actor`:
"assistant", the default, or "user"), in which message (`message_id`) and whether it failed
(`error`); an entry named `message` is a message event (`arguments`: `text` and `calls`).
Every other field of the record is kept as the metrics μ, readable in rules as
`metrics.<field>`; `request` (text) is the user's request. A metrics field that holds what
looks like tool calls (`messages` of a chat with `tool_calls`, a misspelt `tool_calls`) is an
error naming it: those calls would otherwise be left out of the trace without a word. Only
`decisions` (what `policyc gateway` records: each proposal and the gate's decision
on it) may: it holds proposals, not calls, and the calls that ran are in `tool_calls`.

>>> t = parse_record({"num_steps": 2, "tool_calls": [{"tool_name": "a", "arguments": {}, "tool_result": "[1]"}]})
>>> t.tool_sequence, t.calls[0].result, dict(t.metrics)
(['a'], [1], {'num_steps': 2})
"""

from __future__ import annotations

from typing import Any

from policyc.trace.errors import RecordProblem
from policyc.trace.formats.common import (
    NO_RESULT,
    json_type,
    parse_arguments,
    parse_result,
    is_call_shaped,
    reject_misspelled,
    reject_unread_calls,
    require,
    require_object,
)
from policyc.trace.model import CALL, MESSAGE, MESSAGE_KIND, Call, Trace

CALL_FIELDS = ("tool_name", "arguments", "tool_result", "actor", "message_id", "error")
#: What other logs call a call's fields: in a metrics record they are ordinary data, so the
#: field they were meant to be would silently count as absent (a result never read).
OTHER_NAMES = {"result": "tool_result", "output": "tool_result", "tool_output": "tool_result",
               "args": "arguments", "input": "arguments", "tool_input": "arguments"}
KNOWN_FIELDS = frozenset(CALL_FIELDS)
#: the fields of an entry read by the fast path: whatever else it holds is read field by field
_PLAIN_FIELDS = frozenset(("tool_name", "arguments", "tool_result"))


def is_record(value: Any) -> bool:
    """Whether a JSON value has the shape of a metrics record: `tool_calls`, not in OpenAI's
    shape; beside `messages` or `steps` (which a chat or an agent's memory has), only when the
    calls are the paper's (`tool_name`)."""
    if not isinstance(value, dict) or "tool_calls" not in value:
        return False
    calls = value["tool_calls"]
    if "messages" in value or "steps" in value:
        return isinstance(calls, list) and bool(calls) and all(isinstance(c, dict) and "tool_name" in c for c in calls)
    return not isinstance(calls, list) or all(not isinstance(c, dict) or "function" not in c for c in calls)


def parse_record(value: Any, origin: str | None = None) -> Trace:
    record = require_object(value, (), "a metrics record (an object with `tool_calls`)")
    entries = require(record, "tool_calls", list, (), "an array")
    reject_unread_calls(record, ("tool_calls", "decisions"), (), "a metrics record")
    events = []
    for i, entry in enumerate(entries):
        # the common entry, told at a glance: a name, arguments as an object, maybe a result
        if type(entry) is dict and entry.keys() <= _PLAIN_FIELDS and type(entry.get("tool_name")) is str \
                and type(entry.get("arguments")) is dict:
            name = entry["tool_name"]
            result = parse_result(entry["tool_result"]) if "tool_result" in entry else NO_RESULT
            events.append(Call(name, entry["arguments"], result, i, MESSAGE_KIND if name == MESSAGE else CALL))
            continue
        where = ("tool_calls", i)
        entry = require_object(entry, where, "a tool call (an object with `tool_name`)")
        if not entry.keys() <= KNOWN_FIELDS:  # a field besides the call's own: misspelt, or another log's
            reject_misspelled(entry, CALL_FIELDS, where)
            for other, field in OTHER_NAMES.items():
                if other in entry and field not in entry:
                    raise RecordProblem(where + (other,), f"`{other}` is not a field of a metrics record's call: "
                                                          f"it names its {field.replace('_', ' ')} `{field}`")
        if "tool_name" not in entry and is_call_shaped(entry):
            raise RecordProblem(where, "a tool call without `tool_name`: the metrics record names a call's tool "
                                       "with `tool_name` (read an OpenAI or other log with its own --format)")
        name = require(entry, "tool_name", str, where, "a string")
        args = parse_arguments(entry.get("arguments"), where + ("arguments",))
        result = parse_result(entry["tool_result"]) if "tool_result" in entry else NO_RESULT
        actor = entry.get("actor", "assistant")
        if actor not in ("assistant", "user"):
            raise RecordProblem(where + ("actor",), "`actor` must be \"assistant\" or \"user\""
                                if isinstance(actor, str) else f"`actor` must be a string, found {json_type(actor)}")
        message_id = entry.get("message_id")
        if message_id is not None and not isinstance(message_id, (str, int)) or isinstance(message_id, bool):
            raise RecordProblem(where + ("message_id",), f"`message_id` must be a string, found {json_type(message_id)}")
        error = entry.get("error", False)
        if not isinstance(error, bool):
            raise RecordProblem(where + ("error",), f"`error` must be a boolean, found {json_type(error)}")
        kind = MESSAGE_KIND if name == MESSAGE else CALL
        events.append(Call(name, args, result, i, kind, actor, None if message_id is None else str(message_id), error))
    metrics = {k: v for k, v in record.items() if k != "tool_calls"}
    trace_id = record.get("id", record.get("trace_id"))
    request = record.get("request") if isinstance(record.get("request"), str) else None
    tid = str(trace_id) if isinstance(trace_id, (str, int)) and not isinstance(trace_id, bool) else None
    return Trace.from_events(tuple(events), metrics, tid, origin, request)
