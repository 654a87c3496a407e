"""OpenTelemetry GenAI spans: what OpenLLMetry, Langfuse, Phoenix and the OpenTelemetry SDKs
export under the GenAI semantic conventions.

A record is an OTLP JSON export (`{"resourceSpans": [{"scopeSpans": [{"spans": [...]}]}]}`,
one per line in a collector's file export), or a list of spans (`{"spans": [...]}`) as the
SDKs write them (`span.to_json()`: flat `attributes`, `context.trace_id`). Spans of one trace
(`traceId`) are one run; an export holding several traces is read as one record per trace.
Spans are read in order of their start time:

- a tool execution span (`gen_ai.operation.name` = `execute_tool`) is a call:
  `gen_ai.tool.name`, `gen_ai.tool.call.arguments`, `gen_ai.tool.call.result`,
  `gen_ai.tool.call.id`; an `ERROR` status or an `error.type` attribute says it failed;
- a model span's output messages (`gen_ai.output.messages`, or the older
  `gen_ai.completion.N.*` attributes, or `gen_ai.choice` events) are assistant message
  events with the tools they call; when the run has no tool execution spans, those tool
  calls are its calls, with the results later input messages carry
  (`gen_ai.input.messages` `tool_call_response` parts, `gen_ai.prompt.N.*` tool messages);
- the first user message of the first model span's input (`gen_ai.input.messages`,
  `gen_ai.prompt.N.*`, `gen_ai.user.message` events) is the request and a user message event.

OpenInference's conventions are read alike: a `TOOL` span (`openinference.span.kind`) is a
call (`tool.name`, its arguments in `input.value`, its result in `output.value`), and an LLM
span's `llm.input_messages.N.*` and `llm.output_messages.N.*` are its messages. The operation
name is read in any case and with `-`, `.` or spaces for `_` (`Execute-Tool`).

Nothing that looks like a call is dropped without a word: a span naming a tool
(`gen_ai.tool.name`) under another operation, and, when the run has tool spans, a call in a
model's output that no tool span runs (matched by call id, else by tool name in order), are
errors naming the span.

The metrics μ are `trace_id`, the models (`gen_ai.request.model`) and the token totals
(`gen_ai.usage.input_tokens`, `gen_ai.usage.output_tokens`).

>>> span = {"traceId": "t1", "spanId": "s1", "startTimeUnixNano": "5", "attributes": [
...     {"key": "gen_ai.operation.name", "value": {"stringValue": "execute_tool"}},
...     {"key": "gen_ai.tool.name", "value": {"stringValue": "get_data_usage"}},
...     {"key": "gen_ai.tool.call.arguments", "value": {"stringValue": "{\\"line_id\\": \\"L1\\"}"}},
...     {"key": "gen_ai.tool.call.result", "value": {"stringValue": "{\\"data_used_gb\\": 8.7}"}}]}
>>> t = parse_otel({"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]})
>>> t.id, t.tool_sequence, t.calls[0].args, t.calls[0].result
('t1', ['get_data_usage'], {'line_id': 'L1'}, {'data_used_gb': 8.7})
"""

from __future__ import annotations

import json
import re
from collections import Counter
from typing import Any

from policyc.trace.errors import RecordProblem, Where
from policyc.trace.formats.common import Events, json_type, no_events, object_at, parse_arguments, parse_result
from policyc.jsontext import decode
from policyc.trace.model import Trace

_LEGACY = re.compile(r"gen_ai\.(prompt|completion)\.(\d+)\.(.+)")
_OPENINFERENCE = re.compile(r"llm\.(input|output)_messages\.(\d+)\.message\.(.+)")
_MODEL_OPERATIONS = ("chat", "text_completion", "generate_content", "invoke_agent", "create_agent", "embeddings")
_TOOL_NAMES = ("gen_ai.tool.name", "tool.name")


# ------------------------------------------------------------------ spans


def is_otel(value: Any) -> bool:
    if isinstance(value, dict) and isinstance(value.get("resourceSpans"), list):
        return True
    spans = value.get("spans") if isinstance(value, dict) else value
    return isinstance(spans, list) and bool(spans) and all(
        isinstance(s, dict) and "attributes" in s and ("spanId" in s or "span_id" in s or "context" in s)
        for s in spans)


def _raw_spans(value: Any) -> list[tuple[Where, Any]]:
    """(path, span) of every span of a record."""
    if isinstance(value, dict) and "resourceSpans" in value:
        out: list[tuple[Where, Any]] = []
        resources = value["resourceSpans"]
        if not isinstance(resources, list):
            raise RecordProblem(("resourceSpans",), f"`resourceSpans` must be an array, found {json_type(resources)}")
        for i, resource in enumerate(resources):
            if not isinstance(resource, dict):
                raise RecordProblem(("resourceSpans", i), f"expected an object, found {json_type(resource)}")
            key = "scopeSpans" if "scopeSpans" in resource else "instrumentationLibrarySpans"
            scopes = resource.get(key) or []
            if not isinstance(scopes, list):
                raise RecordProblem(("resourceSpans", i, key), f"`{key}` must be an array, found {json_type(scopes)}")
            for j, scope in enumerate(scopes):
                spans = scope.get("spans") if isinstance(scope, dict) else None
                if not isinstance(spans, list):
                    raise RecordProblem(("resourceSpans", i, key, j, "spans"), "`spans` must be an array")
                out.extend((("resourceSpans", i, key, j, "spans", k), s) for k, s in enumerate(spans))
        return out
    spans, prefix = (value.get("spans"), ("spans",)) if isinstance(value, dict) else (value, ())
    if not isinstance(spans, list):
        raise RecordProblem(prefix, "expected an OTLP export (`resourceSpans`) or a list of spans")
    return [(prefix + (k,), s) for k, s in enumerate(spans)]


def _value(v: Any) -> Any:
    """An OTLP AnyValue (`{"stringValue": ...}`) as a plain value; plain values stay."""
    if not isinstance(v, dict) or len(v) != 1:
        return v
    (kind, inner), = v.items()
    if kind == "intValue":
        try:
            return int(inner)
        except (TypeError, ValueError):
            return inner
    if kind in ("stringValue", "boolValue", "doubleValue", "bytesValue"):
        return inner
    if kind == "arrayValue" and isinstance(inner, dict):
        return [_value(x) for x in inner.get("values") or []]
    if kind == "kvlistValue" and isinstance(inner, dict):
        return _attributes(inner.get("values") or [], ())
    return v


def _attributes(attrs: Any, where: Where) -> dict[str, Any]:
    if attrs is None:
        return {}
    if isinstance(attrs, dict):
        return {k: _value(v) for k, v in attrs.items()}
    if not isinstance(attrs, list):
        raise RecordProblem(where, f"`attributes` must be an object or an array, found {json_type(attrs)}")
    out = {}
    for item in attrs:
        if isinstance(item, dict) and isinstance(item.get("key"), str):
            out[item["key"]] = _value(item.get("value"))
    return out


class _Span:
    __slots__ = ("trace_id", "start", "order", "attrs", "events", "error", "where")

    def __init__(self, raw: Any, where: Where, order: int):
        if not isinstance(raw, dict):
            raise RecordProblem(where, f"expected a span, found {json_type(raw)}")
        context = object_at(raw, "context")
        self.trace_id = raw.get("traceId", raw.get("trace_id", context.get("trace_id")))
        start = raw.get("startTimeUnixNano", raw.get("start_time", raw.get("startTime")))
        self.start = _number(start) if start is not None else None
        self.order = order
        self.where = where
        self.attrs = _attributes(raw.get("attributes"), where + ("attributes",))
        self.events = []
        for e in raw.get("events") or []:
            if isinstance(e, dict):
                attrs = _attributes(e.get("attributes"), where + ("events",))
                body = e.get("body")
                if isinstance(body, dict):
                    attrs = {**attrs, **body}
                self.events.append((e.get("name"), attrs))
        status = object_at(raw, "status")
        code = status.get("code", status.get("status_code"))
        self.error = code in (2, "2", "STATUS_CODE_ERROR", "ERROR") or "error.type" in self.attrs

    @property
    def operation(self) -> str | None:
        """`gen_ai.operation.name`, in lower case with `_` for `-`, `.` and spaces."""
        op = self.attrs.get("gen_ai.operation.name")
        return re.sub(r"[-. ]+", "_", op.strip().lower()) if isinstance(op, str) else None

    @property
    def is_openinference_tool(self) -> bool:
        kind = self.attrs.get("openinference.span.kind")
        return isinstance(kind, str) and kind.upper() == "TOOL"

    @property
    def is_tool(self) -> bool:
        """Whether the span is a tool's execution: a call."""
        return (self.operation == "execute_tool" or self.is_openinference_tool
                or self.operation is None and "gen_ai.tool.name" in self.attrs)

    def call(self) -> tuple[str, Any, Any, Any]:
        """(tool, arguments, result, call id) of a tool span."""
        if self.is_openinference_tool and "gen_ai.tool.name" not in self.attrs:
            name = self.attrs.get("tool.name")
            if not isinstance(name, str):
                raise RecordProblem(self.where + ("attributes",), "an OpenInference tool span without `tool.name`")
            given = self.attrs.get("input.value")
            parsed = _json(given)
            arguments = parsed if isinstance(parsed, dict) else {"input": given} if given is not None else None
            return (name, arguments, self.attrs.get("output.value"),
                    self.attrs.get("tool_call.id", self.attrs.get("tool.id")))
        name = self.attrs.get("gen_ai.tool.name")
        if not isinstance(name, str):
            raise RecordProblem(self.where + ("attributes",), "a tool execution span without `gen_ai.tool.name`")
        return (name, self.attrs.get("gen_ai.tool.call.arguments"), self.attrs.get("gen_ai.tool.call.result"),
                self.attrs.get("gen_ai.tool.call.id"))


def _number(value: Any) -> float | str:
    try:
        return float(value)
    except (TypeError, ValueError):
        return str(value)  # an ISO time stamp: sorts as text


def split_otel(value: Any) -> list[Any]:
    """The traces of an export, one record each (spans grouped by trace id, in order)."""
    groups: dict[Any, list[Any]] = {}
    for _where, raw in _raw_spans(value):
        tid = None
        if isinstance(raw, dict):
            context = object_at(raw, "context")
            tid = raw.get("traceId", raw.get("trace_id", context.get("trace_id")))
        groups.setdefault(tid if isinstance(tid, (str, int)) else None, []).append(raw)
    if len(groups) <= 1:
        return [value]
    return [{"spans": spans} for spans in groups.values()]


# ------------------------------------------------------------------ messages in spans


def _json(value: Any) -> Any:
    if isinstance(value, str):
        parsed, problem, _ = decode(value)  # not JSON (NaN, 1e400, half a surrogate pair), too deep: text
        return value if problem is not None else parsed
    return value


def _message_parts(message: dict[str, Any]) -> tuple[str, list[dict[str, Any]], list[tuple[str | None, Any]]]:
    """(text, tool calls {name, arguments, id}, tool responses (id, result)) of one message."""
    texts, calls, responses = [], [], []
    parts = message.get("parts")
    if isinstance(parts, list):
        for p in parts:
            if not isinstance(p, dict):
                continue
            kind = p.get("type")
            if kind == "text" and isinstance(p.get("content"), str):
                texts.append(p["content"])
            elif kind == "tool_call":
                calls.append({"name": p.get("name"), "arguments": p.get("arguments"), "id": p.get("id")})
            elif kind == "tool_call_response":
                responses.append((p.get("id"), p.get("response", p.get("result"))))
    content = _json(message.get("content"))
    if isinstance(content, str):
        texts.append(content)
    for c in _json(message.get("tool_calls")) or []:
        if isinstance(c, dict):
            function = c["function"] if isinstance(c.get("function"), dict) else c
            calls.append({"name": function.get("name"), "arguments": function.get("arguments"), "id": c.get("id")})
    if message.get("role") == "tool":
        responses.append((message.get("tool_call_id", message.get("id")), content))
    return "".join(texts), calls, responses


def _legacy(attrs: dict[str, Any], side: str) -> list[dict[str, Any]]:
    """`gen_ai.prompt.N.*` / `gen_ai.completion.N.*` attributes as messages."""
    messages: dict[int, dict[str, Any]] = {}
    for key, value in attrs.items():
        m = _LEGACY.fullmatch(key)
        if m is None or m.group(1) != side:
            continue
        index, rest = int(m.group(2)), m.group(3)
        msg = messages.setdefault(index, {})
        call = re.fullmatch(r"tool_calls\.(\d+)\.(name|arguments|id)", rest)
        if call is not None:
            calls = msg.setdefault("tool_calls", {})
            calls.setdefault(int(call.group(1)), {})[call.group(2)] = value
        else:
            msg[rest] = value
    out = []
    for index in sorted(messages):
        msg = messages[index]
        if "tool_calls" in msg:
            msg["tool_calls"] = [msg["tool_calls"][j] for j in sorted(msg["tool_calls"])]
        out.append(msg)
    return out


def _openinference(attrs: dict[str, Any], side: str) -> list[dict[str, Any]]:
    """OpenInference's `llm.input_messages.N.message.*` / `llm.output_messages.N.message.*`
    attributes as messages (`tool_calls.M.tool_call.function.name|arguments`, `.id`)."""
    want = "input" if side == "prompt" else "output"
    messages: dict[int, dict[str, Any]] = {}
    for key, value in attrs.items():
        m = _OPENINFERENCE.fullmatch(key)
        if m is None or m.group(1) != want:
            continue
        msg = messages.setdefault(int(m.group(2)), {})
        call = re.fullmatch(r"tool_calls\.(\d+)\.tool_call\.(?:function\.)?(name|arguments|id)", m.group(3))
        if call is not None:
            msg.setdefault("tool_calls", {}).setdefault(int(call.group(1)), {})[call.group(2)] = value
        elif m.group(3) in ("role", "content", "tool_call_id"):
            msg[m.group(3)] = value
    out = []
    for index in sorted(messages):
        msg = messages[index]
        if "tool_calls" in msg:
            msg["tool_calls"] = [msg["tool_calls"][j] for j in sorted(msg["tool_calls"])]
        out.append(msg)
    return out


def _span_messages(span: _Span, side: str) -> list[dict[str, Any]]:
    """The input (`prompt`) or output (`completion`) messages of a model span."""
    key = "gen_ai.input.messages" if side == "prompt" else "gen_ai.output.messages"
    found = _json(span.attrs.get(key))
    if isinstance(found, list):
        return [m for m in found if isinstance(m, dict)]
    legacy = _legacy(span.attrs, side) or _openinference(span.attrs, side)
    if legacy:
        return legacy
    out = []
    for name, attrs in span.events:
        if side == "prompt" and name in ("gen_ai.user.message", "gen_ai.tool.message", "gen_ai.system.message"):
            role = {"gen_ai.user.message": "user", "gen_ai.tool.message": "tool"}.get(name, "system")
            out.append({"role": role, **attrs})
        elif side == "completion" and name == "gen_ai.choice":
            message = _json(attrs.get("message"))
            out.append({"role": "assistant", **(message if isinstance(message, dict) else attrs)})
    return out


# ------------------------------------------------------------------ the reader


def parse_otel(value: Any, origin: str | None = None) -> Trace:
    raw_spans = _raw_spans(value)
    spans = sorted((_Span(raw, where, i) for i, (where, raw) in enumerate(raw_spans)),
                   key=lambda s: (s.start is None, str(type(s.start)), s.start or 0, s.order))
    events = Events()
    ran = [span.call() for span in spans if span.is_tool]  # what the tool spans say ran
    tools_run = bool(ran)
    unrun = _Unrun(ran)
    seen_user = False
    metrics: dict[str, Any] = {}
    tokens = {"input_tokens": 0, "output_tokens": 0}
    for span in spans:
        for key in tokens:
            count = span.attrs.get(f"gen_ai.usage.{key}")
            if isinstance(count, int) and not isinstance(count, bool):
                tokens[key] += count
        model = span.attrs.get("gen_ai.request.model")
        if isinstance(model, str):
            metrics.setdefault("models", [])
            if model not in metrics["models"]:
                metrics["models"].append(model)
        if span.is_tool:
            name, arguments, result, call_id = span.call()
            args = parse_arguments(_json_object(_json(arguments)) if not isinstance(arguments, str) else arguments,
                                   span.where + ("attributes",))
            events.call(name, args, call_id=call_id if isinstance(call_id, str) else None,
                        result=parse_result(result) if result is not None else None, error=span.error)
            continue
        if any(k in span.attrs for k in _TOOL_NAMES) and span.operation not in _MODEL_OPERATIONS:
            raise RecordProblem(span.where + ("attributes",),
                                f"a span names a tool (`{next(k for k in _TOOL_NAMES if k in span.attrs)}`) under the "
                                f"operation `{span.attrs.get('gen_ai.operation.name')}`, not `execute_tool`: its call "
                                "would be lost")
        inputs, outputs = _span_messages(span, "prompt"), _span_messages(span, "completion")
        if not inputs and not outputs and span.operation not in _MODEL_OPERATIONS:
            continue
        for message in inputs:
            text, _, responses = _message_parts(message)
            if message.get("role") == "user" and text and not seen_user:
                events.message(text, "user")
                seen_user = True
            if not tools_run:
                for call_id, result in responses:
                    events.result(call_id if isinstance(call_id, str) else None,
                                  result if isinstance(result, str) else json.dumps(result) if result is not None
                                  else None)
        for message in outputs:
            text, calls, _ = _message_parts(message)
            names = [c["name"] for c in calls if isinstance(c.get("name"), str)]
            events.message(text, "assistant", calls=names)
            for c in calls:
                if not isinstance(c.get("name"), str):
                    continue
                if tools_run:
                    unrun.check(c["name"], c.get("id"), span.where + ("attributes",))
                else:
                    events.call(c["name"], parse_arguments(_json_object(c.get("arguments")), span.where),
                                call_id=c["id"] if isinstance(c.get("id"), str) else None)
    if raw_spans and not len(events):
        raise no_events((), len(raw_spans), "spans")
    trace_id = next((s.trace_id for s in spans if s.trace_id is not None), None)
    if trace_id is not None:
        metrics["trace_id"] = trace_id
    metrics.update({k: v for k, v in tokens.items() if v})
    return events.trace(metrics, trace_id, origin)


class _Unrun:
    """The calls tool spans ran, against which a model's requested calls are matched: by call
    id when both have one, else by tool name, each span answering one request."""

    def __init__(self, ran: list[tuple[str, Any, Any, Any]]):
        self.ids = {call_id for _, _, _, call_id in ran if isinstance(call_id, str)}
        self.by_name = Counter(name for name, _, _, _ in ran)

    def check(self, name: str, call_id: Any, where: Where) -> None:
        if isinstance(call_id, str) and call_id in self.ids:
            self.ids.discard(call_id)
            self.by_name[name] -= 1
            return
        if self.by_name[name] > 0:
            self.by_name[name] -= 1
            return
        raise RecordProblem(where, f"a model's output calls `{name}`, and no tool span of the run runs it: if it ran, "
                                   "its span is missing, and the call would be lost")


def _json_object(value: Any) -> Any:
    return value if isinstance(value, (dict, str)) or value is None else {"input": value}
