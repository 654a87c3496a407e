"""Trace formats: each reads one record (a parsed JSON value) into a `Trace`.

| name | what a record is |
|---|---|
| `record` | the AgentLTL paper's metrics record: `tool_calls` of `tool_name`, `arguments`, `tool_result` |
| `chat` | OpenAI-style chat messages: assistant `tool_calls`, `tool` replies by `tool_call_id` |
| `responses` | OpenAI Responses API items: `function_call`, `function_call_output` by `call_id` |
| `anthropic` | Anthropic Messages API messages: `tool_use` and `tool_result` blocks |
| `langchain` | LangChain / LangGraph message dumps: AI `tool_calls`, tool messages |
| `otel` | OpenTelemetry spans under the GenAI semantic conventions (OTLP JSON, or SDK span lists) |
| `smolagents` | a smolagents agent's memory steps |
| `tau2` | one τ²-bench simulation run |

`detect_format(value)` picks the format of a record from its shape; a reader raises
`RecordProblem` naming the field that is wrong. A record in no known format, or whose content
yields no events at all, is a problem, never an empty trace.

>>> detect_format({"tool_calls": []}), detect_format([{"role": "user", "content": "hi"}])
('record', 'chat')
>>> detect_format({"id": "s", "task_id": "1", "messages": []}), detect_format(42)
('tau2', None)
>>> detect_format([{"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "f", "input": {}}]}])
'anthropic'
"""

from __future__ import annotations

from typing import Any, Callable

from policyc.trace.errors import RecordProblem
from policyc.trace.formats.anthropic import is_anthropic, parse_anthropic
from policyc.trace.formats.chat import is_chat, parse_chat
from policyc.trace.formats.langchain import is_langchain, parse_langchain
from policyc.trace.formats.otel import is_otel, parse_otel, split_otel
from policyc.trace.formats.record import is_record, parse_record
from policyc.trace.formats.responses import is_responses, parse_responses
from policyc.trace.formats.smolagents import is_smolagents, parse_smolagents
from policyc.trace.formats.tau2 import is_tau2, parse_tau2
from policyc.trace.model import Trace

READERS: dict[str, Callable[[Any, str | None], Trace]] = {
    "record": parse_record,
    "chat": parse_chat,
    "responses": parse_responses,
    "anthropic": parse_anthropic,
    "langchain": parse_langchain,
    "otel": parse_otel,
    "smolagents": parse_smolagents,
    "tau2": parse_tau2,
}
FORMATS = tuple(READERS)

# most specific first: a τ²-bench run also has `messages`, as a chat does; Anthropic messages
# have roles too, and are told apart by their tool blocks
_DETECTORS = (("record", is_record), ("tau2", is_tau2), ("smolagents", is_smolagents), ("otel", is_otel),
              ("responses", is_responses), ("anthropic", is_anthropic), ("langchain", is_langchain),
              ("chat", is_chat))


def detect_format(value: Any) -> str | None:
    """The format a record looks like, or None."""
    for name, looks_like in _DETECTORS:
        if looks_like(value):
            return name
    return None


def split_records(value: Any, format: str = "auto") -> list[Any]:
    """The runs one parsed JSON value holds: one, except for an OpenTelemetry export that
    holds several traces (one record per trace id)."""
    if format in ("auto", "otel") and is_otel(value):
        try:
            return split_otel(value)
        except RecordProblem:
            return [value]  # the reader reports it
    return [value]


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
                                    "Anthropic messages with tool blocks, LangChain messages, OpenTelemetry "
                                    "spans, smolagents `steps` or a τ²-bench simulation")
        format = found
    reader = READERS.get(format)
    if reader is None:
        raise ValueError(f"unknown trace format `{format}`; one of {', '.join(FORMATS)}")
    return reader(value, origin)


__all__ = ["FORMATS", "READERS", "detect_format", "parse_trace", "split_records"]
