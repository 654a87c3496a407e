"""Trace formats: each reads one record (a parsed JSON value) into a `Trace`.

| name | what a record is |
|---|---|
| `record` | the AgentLTL paper's metrics record: `tool_calls` of `tool_name`, `arguments`, `tool_result` |
| `chat` | OpenAI-style chat messages: assistant `tool_calls`, `tool` replies by `tool_call_id` |
| `responses` | OpenAI Responses API items: `function_call`, `function_call_output` by `call_id` |
| `smolagents` | a smolagents agent's memory steps |
| `tau2` | one τ²-bench simulation run |

`detect_format(value)` picks the format of a record from its shape; a reader raises
`RecordProblem` naming the field that is wrong.

>>> detect_format({"tool_calls": []}), detect_format([{"role": "user", "content": "hi"}])
('record', 'chat')
>>> detect_format({"id": "s", "task_id": "1", "messages": []}), detect_format(42)
('tau2', None)
"""

from __future__ import annotations

from typing import Any, Callable

from policyc.trace.errors import RecordProblem
from policyc.trace.formats.chat import is_chat, parse_chat
from policyc.trace.formats.record import is_record, parse_record
from policyc.trace.formats.responses import is_responses, parse_responses
from policyc.trace.formats.smolagents import is_smolagents, parse_smolagents
from policyc.trace.formats.tau2 import is_tau2, parse_tau2
from policyc.trace.model import Trace

READERS: dict[str, Callable[[Any, str | None], Trace]] = {
    "record": parse_record,
    "chat": parse_chat,
    "responses": parse_responses,
    "smolagents": parse_smolagents,
    "tau2": parse_tau2,
}
FORMATS = tuple(READERS)

# most specific first: a τ²-bench run also has `messages`, as a chat does
_DETECTORS = (("record", is_record), ("tau2", is_tau2), ("smolagents", is_smolagents), ("responses", is_responses),
              ("chat", is_chat))


def detect_format(value: Any) -> str | None:
    """The format a record looks like, or None."""
    for name, looks_like in _DETECTORS:
        if looks_like(value):
            return name
    return None


def parse_trace(value: Any, format: str = "auto", origin: str | None = None) -> Trace:
    """One record -> Trace; raises RecordProblem (with the field's path) when it is malformed.

    >>> parse_trace({"tool_calls": [{"tool_name": "a"}]}).tool_sequence
    ['a']
    """
    if format == "auto":
        found = detect_format(value)
        if found is None:
            raise RecordProblem((), "not a trace record: expected an object with `tool_calls` "
                                    "(the paper's metrics record), chat `messages`, Responses API items, "
                                    "smolagents `steps` or a τ²-bench simulation")
        format = found
    reader = READERS.get(format)
    if reader is None:
        raise ValueError(f"unknown trace format `{format}`; one of {', '.join(FORMATS)}")
    return reader(value, origin)


__all__ = ["FORMATS", "READERS", "detect_format", "parse_trace"]
