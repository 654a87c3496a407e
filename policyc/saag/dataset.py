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

import ast
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Iterator, Mapping

from policyc.inputs import InputError, read_input
from policyc.ir.types import ToolSignature
from policyc.jsontext import decode
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
        name = data.get("name")  # absent: no name was predicted (FNEM = −1)
        args = data.get("arguments", data.get("args", {}))
        if isinstance(args, str):
            try:
                args = loads(args) if args.strip() else {}
            except (ValueError, RecursionError) as exc:
                raise DatasetError(where, f"{field}.arguments", f"is not JSON ({why_not_json(exc)})") from None
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
    """The predicted calls: JSON calls, or a model's text: Python call syntax as BFCL's models
    write it (`[get_weather(city="Paris")]`), JSON, or prose (no function name found)."""
    if isinstance(data, list):
        return tuple(call_of(c, where, f"{field}[{i}]") for i, c in enumerate(data))
    if isinstance(data, str):
        calls = python_calls(data)
        if calls is not None:
            return calls
        try:
            parsed = loads(data)
        except (ValueError, RecursionError):
            parsed = None
        if isinstance(parsed, (list, dict)) and parsed:
            try:
                return calls_of(parsed, where, field)
            except DatasetError:
                pass
        return (ToolCall(None, {}),)  # text that is no call: no function name was found
    return (call_of(data, where, field),)


def python_calls(text: str) -> tuple[ToolCall, ...] | None:
    """Calls written in Python syntax with literal keyword arguments (None when it is not that).

    >>> python_calls('[math.factorial(number=5), get_weather(city="Paris", days=(1, 2))]')
    (ToolCall(name='math.factorial', args={'number': 5}), ToolCall(name='get_weather', args={'city': 'Paris', 'days': [1, 2]}))
    >>> python_calls("The answer is 5."), python_calls("f(1)")
    (None, None)
    """
    try:
        node = ast.parse(text.strip(), mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    items = node.elts if isinstance(node, (ast.List, ast.Tuple)) else [node]
    out = []
    for item in items:
        if not isinstance(item, ast.Call) or item.args:
            return None
        name = _dotted(item.func)
        if name is None:
            return None
        args: dict[str, Any] = {}
        for kw in item.keywords:
            if kw.arg is None:  # **kwargs
                return None
            try:
                value = _json_value(ast.literal_eval(kw.value))
            except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
                return None
            if value is _OMIT:
                return None
            args[kw.arg] = value
        out.append(ToolCall(name, args))
    return tuple(out) or None


def _dotted(node: ast.AST) -> str | None:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    return ".".join([node.id, *reversed(parts)])


def _json_value(value: Any) -> Any:
    """A Python literal as JSON data (tuples become lists); `_OMIT` when it has no JSON form."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (list, tuple)):
        elements = [_json_value(v) for v in value]
        return _OMIT if any(v is _OMIT for v in elements) else elements
    if isinstance(value, dict) and all(isinstance(k, str) for k in value):
        fields = {k: _json_value(v) for k, v in value.items()}
        return _OMIT if any(v is _OMIT for v in fields.values()) else fields
    return _OMIT


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
    registry_field = next((f for f in ("function", "functions", "tools") if f in data), None)
    if registry_field is None:
        raise DatasetError(where, "function", "the record has no `function` list (the registry)")
    try:
        registry = registry_from_json(data[registry_field], registry_field, typed)
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
        text = read_input(str(path)).decode("utf-8")  # within the size cap, never waiting on a FIFO
    except InputError as exc:
        yield DatasetError(str(path), "", exc.reason)
        return
    except UnicodeDecodeError as exc:
        yield DatasetError(str(path), "", f"cannot be read ({type(exc).__name__}: {exc})")
        return
    stripped = text.lstrip()
    if not stripped:
        yield DatasetError(str(path), "", "the file is empty")
        return
    if stripped[0] == "[":
        try:
            items = loads(text)
        except (ValueError, RecursionError) as exc:  # a number of thousands of digits is a ValueError
            line = getattr(exc, "line", None) or 1
            yield DatasetError(f"{path}:{line}", "", f"not JSON ({why_not_json(exc)})")
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
            item = loads(line)
        except (ValueError, RecursionError) as exc:
            yield DatasetError(f"{path}:{n}", "", f"not JSON ({why_not_json(exc)})")
            continue
        yield _safe(item, f"{path}:{n}")


class NotJSON(ValueError):
    """Text that is not JSON as the standard defines it (`loads`); `line`: where, when one
    place is to blame."""

    def __init__(self, problem: str, line: int | None):
        super().__init__(problem)
        self.line = line


def loads(text: str) -> Any:
    """The JSON value of `text`, as the standard defines JSON (`jsontext.decode`): no `NaN`, no
    number too large for a double, no half of a surrogate pair, no nesting past its limit.
    Python's `json` reads the first three, which no record is meant to hold (an argument of
    `1e400` would be judged as an infinity and written out as `Infinity`, which is no JSON)."""
    value, problem, at = decode(text)
    if problem is not None:
        raise NotJSON(problem.removeprefix("invalid JSON: "), None if at is None else text.count("\n", 0, at) + 1)
    return value


def why_not_json(exc: Exception) -> str:
    """What `loads` found wrong, in a few words."""
    return str(exc) if isinstance(exc, NotJSON) else type(exc).__name__


def _safe(item: Any, where: str) -> Record | DatasetError:
    try:
        return read_record(item, where)
    except DatasetError as exc:
        return exc


def read_predictions(path: str | Path) -> tuple[dict[str, Any], list[DatasetError]]:
    """A model's results by record id, from a JSON or JSONL file of `{"id": ..., "result": ...}`
    (BFCL's result files) or `{"id": ..., "predicted": ...}`; malformed lines as errors."""
    found: dict[str, Any] = {}
    errors: list[DatasetError] = []
    path = Path(path)
    try:
        text = read_input(str(path)).decode("utf-8")
    except InputError as exc:
        return found, [DatasetError(str(path), "", exc.reason)]
    except UnicodeDecodeError as exc:
        return found, [DatasetError(str(path), "", f"cannot be read ({type(exc).__name__}: {exc})")]
    if text.lstrip().startswith("["):
        try:
            items = list(enumerate(loads(text)))
        except (ValueError, RecursionError) as exc:
            return found, [DatasetError(str(path), "", f"not JSON ({why_not_json(exc)})")]
        lines = [(f"{path}[{i}]", item) for i, item in items]
    else:
        lines = []
        for n, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            try:
                lines.append((f"{path}:{n}", loads(line)))
            except (ValueError, RecursionError) as exc:
                errors.append(DatasetError(f"{path}:{n}", "", f"not JSON ({why_not_json(exc)})"))
    for where, item in lines:
        key = next((k for k in ("result", "predicted") if isinstance(item, dict) and k in item), None)
        if key is None or "id" not in item:
            errors.append(DatasetError(where, "result", 'a prediction is {"id": ..., "result": ...}'))
            continue
        found[str(item["id"])] = (where, key, item[key])
    if not found and not errors:
        errors.append(DatasetError(str(path), "", "the file holds no predictions"))
    return found, errors


def with_prediction(record: Record, prediction: tuple[str, str, Any] | None) -> Record:
    """The record with a model's result as its predicted calls (none found: no function name)."""
    if prediction is None:
        return replace(record, predicted=(ToolCall(None, {}),))
    where, key, raw = prediction
    return replace(record, predicted=calls_of(raw, where, key))
