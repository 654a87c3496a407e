"""Conformance datasets: (query, registry, predicted call[, gold call]) records in BFCL's format.

A record is a JSON object, one per line (JSONL) or in a JSON array:

| field | what |
|---|---|
| `id` | optional; the record's name in reports |
| `question` or `query` | BFCL's turns (`[[{"role": "user", "content": ...}]]`) or plain text |
| `function` (or `functions`, `tools`) | the registry: function documents (BFCL's or OpenAI's) |
| `predicted` (or `result`) | the model's call(s): `{"name": {args}}`, `{"name": ..., "arguments": ...}` or a list of them |
| `ground_truth` | optional: BFCL's possible answers, `[{"name": {"param": [alternatives]}}]` |

The query Q is the text of the user turns. A record without `predicted` is evaluated on its
gold call: for each parameter, the alternative most grounded in the query (one that matches
it exactly, else omission when BFCL allows it with `""`, else the alternative with the
smallest h); nested objects are chosen field by field.

>>> rec = read_record({"question": "Weather in Paris?", "function": [{"name": "w", "parameters":
...     {"properties": {"city": {"type": "string"}}, "required": ["city"]}}],
...     "ground_truth": [{"w": {"city": ["Paris, France", "Paris"]}}]}, "x.jsonl:1")
>>> rec.query, rec.gold[0].args, rec.predicted
('Weather in Paris?', {'city': 'Paris'}, None)
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, Mapping

from policyc.ir.types import ToolSignature
from policyc.saag import metrics as m
from policyc.saag.schema import SchemaError, registry_from_json

MAX_RECORD_BYTES = 8 * 1024 * 1024


class DatasetError(ValueError):
    """A record that cannot be read; `where` is `file:line`, `field` the JSON path inside it."""

    def __init__(self, where: str, field: str, message: str):
        super().__init__(f"{where}: {field + ': ' if field else ''}{message}")
        self.where, self.field, self.message = where, field, message


@dataclass(frozen=True, slots=True)
class ToolCall:
    """A call: the tool's name (None when none was given) and its arguments."""

    name: str | None
    args: Mapping[str, Any]

    def to_json(self) -> dict:
        return {"name": self.name, "arguments": dict(self.args)}


@dataclass(frozen=True, slots=True)
class Record:
    id: str
    query: str
    registry: Mapping[str, ToolSignature]
    gold: tuple[ToolCall, ...] | None              # one representative gold call per expected call
    alternatives: tuple[tuple[str, Mapping[str, list]], ...] | None  # BFCL's possible answers
    predicted: tuple[ToolCall, ...] | None
    where: str = ""


# ------------------------------------------------------------------ reading fields


def query_of(question: Any, where: str, field: str = "question") -> str:
    """The user text of BFCL's turns (a list of turns, each a list of messages), or plain text."""
    if isinstance(question, str):
        return question
    if not isinstance(question, list):
        raise DatasetError(where, field, "must be text or a list of turns")
    parts = []
    for i, turn in enumerate(question):
        messages = turn if isinstance(turn, list) else [turn]
        for j, msg in enumerate(messages):
            if not isinstance(msg, dict) or not isinstance(msg.get("content", ""), str):
                raise DatasetError(where, f"{field}[{i}][{j}]", "a message must be an object with text `content`")
            if msg.get("role", "user") == "user":
                parts.append(msg.get("content", ""))
    return "\n".join(parts)


def call_of(data: Any, where: str, field: str) -> ToolCall:
    """One predicted call: `{"name": {args}}` (BFCL's decoded form) or `{"name": ..., "arguments": ...}`."""
    if isinstance(data, dict) and isinstance(data.get("name"), (str, type(None))) \
            and set(data) <= {"name", "arguments", "args", "id", "type"}:
        name = data["name"]
        args = data.get("arguments", data.get("args", {}))
        if isinstance(args, str):
            try:
                args = json.loads(args) if args.strip() else {}
            except json.JSONDecodeError as exc:
                raise DatasetError(where, f"{field}.arguments", f"is not JSON ({exc.msg})") from None
        if not isinstance(args, dict):
            raise DatasetError(where, f"{field}.arguments", "must be an object")
        return ToolCall(name or None, args)
    if isinstance(data, dict) and len(data) == 1:
        (name, args), = data.items()
        if not isinstance(args, dict):
            raise DatasetError(where, f"{field}.{name}", "the arguments must be an object")
        return ToolCall(name or None, args)
    if isinstance(data, dict) and not data:
        return ToolCall(None, {})
    raise DatasetError(where, field, 'a call is {"tool": {arguments}} or {"name": ..., "arguments": ...}')


def calls_of(data: Any, where: str, field: str) -> tuple[ToolCall, ...]:
    if isinstance(data, list):
        return tuple(call_of(c, where, f"{field}[{i}]") for i, c in enumerate(data))
    if isinstance(data, str):  # an answer in text, not a call: no function name was found
        return (ToolCall(None, {}),)
    return (call_of(data, where, field),)


def alternatives_of(data: Any, where: str, field: str = "ground_truth") -> tuple[tuple[str, dict], ...]:
    """BFCL's possible answers: a list of `{"tool": {"param": [alternatives]}}`."""
    if not isinstance(data, list):
        raise DatasetError(where, field, "must be a list of calls")
    out = []
    for i, item in enumerate(data):
        if not isinstance(item, dict) or len(item) != 1:
            raise DatasetError(where, f"{field}[{i}]", 'each gold call is {"tool": {"param": [alternatives]}}')
        (name, params), = item.items()
        if not isinstance(params, dict) or not all(isinstance(a, list) for a in params.values()):
            raise DatasetError(where, f"{field}[{i}].{name}", "each parameter must list its acceptable values")
        out.append((name, params))
    return tuple(out)


# ------------------------------------------------------------------ choosing the gold call

_OMIT = object()


def choose_value(alternatives: list, query: str, required: bool) -> Any:
    """The acceptable value most grounded in the query (`_OMIT` when leaving it out is best)."""
    options = [_resolve(a, query) for a in alternatives if a != ""]
    omissible = "" in alternatives and not required
    exact = [v for v in options if m.exact_match(v, query)]
    if exact:
        return exact[0]
    if omissible or not options:  # only "": BFCL wants it left out, whatever the schema says
        return _OMIT
    return min(options, key=lambda v: (m.hallucination(v, query) or 0.0))


def _resolve(value: Any, query: str) -> Any:
    """A nested object of alternatives (`{"field": [alternatives]}`) resolved field by field."""
    if isinstance(value, dict) and value and all(isinstance(a, list) for a in value.values()):
        out = {}
        for k, alts in value.items():
            v = choose_value(alts, query, required=False)
            if v is not _OMIT:
                out[k] = v
        return out
    return value


def gold_call(name: str, params: Mapping[str, list], query: str, registry: Mapping[str, ToolSignature]) -> ToolCall:
    sig = registry.get(name)
    args = {}
    for pname, alts in params.items():
        p = sig.param(pname) if sig is not None else None
        v = choose_value(alts, query, required=p is not None and p.required)
        if v is not _OMIT:
            args[pname] = v
    return ToolCall(name, args)


# ------------------------------------------------------------------ records


def read_record(data: Any, where: str, answers: Any = None, typed: bool = True) -> Record:
    """One record (with BFCL's possible answers given apart, as its package ships them);
    `typed=False` reads every parameter as `any` (`schema.signature_from_json`)."""
    if not isinstance(data, dict):
        raise DatasetError(where, "", "a record must be a JSON object")
    rid = str(data.get("id", where))
    if "question" in data or "query" in data:
        field = "question" if "question" in data else "query"
        query = query_of(data[field], where, field)
    else:
        raise DatasetError(where, "question", "the record has no `question` (or `query`)")
    field = next((f for f in ("function", "functions", "tools") if f in data), None)
    if field is None:
        raise DatasetError(where, "function", "the record has no `function` list (the registry)")
    try:
        registry = registry_from_json(data[field], field, typed)
    except SchemaError as exc:
        raise DatasetError(where, exc.field, exc.message) from None
    truth = answers if answers is not None else data.get("ground_truth")
    alternatives = alternatives_of(truth, where) if truth is not None else None
    gold = tuple(gold_call(n, p, query, registry) for n, p in alternatives) if alternatives is not None else None
    pfield = next((f for f in ("predicted", "result") if f in data), None)
    predicted = calls_of(data[pfield], where, pfield) if pfield is not None else None
    if predicted is None and gold is None:
        raise DatasetError(where, "predicted", "the record has neither a `predicted` call nor a `ground_truth`")
    return Record(rid, query, registry, gold, alternatives, predicted, where)


def iter_records(path: str | Path) -> Iterator[Record | DatasetError]:
    """The records of a JSON array or JSONL file; a malformed one is yielded as its error."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        yield DatasetError(str(path), "", f"cannot be read ({type(exc).__name__}: {exc})")
        return
    stripped = text.lstrip()
    if not stripped:
        yield DatasetError(str(path), "", "the file is empty")
        return
    if stripped[0] == "[":
        try:
            items = json.loads(text)
        except (json.JSONDecodeError, RecursionError) as exc:
            line = getattr(exc, "lineno", 1)
            yield DatasetError(f"{path}:{line}", "", f"not JSON ({getattr(exc, 'msg', 'too deeply nested')})")
            return
        for i, item in enumerate(items):
            yield _safe(item, f"{path}[{i}]")
        return
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        if len(line) > MAX_RECORD_BYTES:
            yield DatasetError(f"{path}:{n}", "", f"the record is longer than {MAX_RECORD_BYTES} bytes")
            continue
        try:
            item = json.loads(line)
        except (json.JSONDecodeError, RecursionError) as exc:
            yield DatasetError(f"{path}:{n}", "", f"not JSON ({getattr(exc, 'msg', 'too deeply nested')})")
            continue
        yield _safe(item, f"{path}:{n}")


def _safe(item: Any, where: str) -> Record | DatasetError:
    try:
        return read_record(item, where)
    except DatasetError as exc:
        return exc
