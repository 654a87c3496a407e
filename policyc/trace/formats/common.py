"""What every trace format shares: arguments, results and the checks that name a field.

>>> parse_result('{"result": 11}'), parse_result("plain text"), parse_result("42")
({'result': 11}, 'plain text', '42')
>>> parse_arguments('{"q": "x"}', ("arguments",))
{'q': 'x'}
"""

from __future__ import annotations

import difflib
import json
from typing import Any

from policyc.ir.ops import UNDEF
from policyc.trace.errors import RecordProblem
from policyc.trace.model import Call, Trace


def parse_result(value: Any) -> Any:
    """A tool result as the trace holds it: text that is a JSON object, array, `true`,
    `false` or `null` is parsed (appendix B); other text (also "42") stays text."""
    if isinstance(value, str):
        text = value.strip()
        if text[:1] in ("{", "[") or text in ("true", "false", "null"):
            try:
                return json.loads(text)
            except (ValueError, RecursionError):  # not JSON, a number of thousands of digits, too deep
                return value
    return value


def parse_arguments(value: Any, where: tuple) -> dict:
    """Call arguments: an object, or text holding a JSON object (OpenAI style); absent means none."""
    if value is None:
        return {}
    if isinstance(value, str):
        if not value.strip():
            return {}
        try:
            value = json.loads(value)
        except json.JSONDecodeError as exc:
            raise RecordProblem(where, f"arguments are not valid JSON ({exc.msg} at column {exc.colno})") from None
    if not isinstance(value, dict):
        raise RecordProblem(where, f"arguments must be an object, found {json_type(value)}")
    return value


def text_content(value: Any) -> Any:
    """Message content: text, or the text parts of a list of content parts joined."""
    if isinstance(value, list):
        parts = [p.get("text") for p in value if isinstance(p, dict) and isinstance(p.get("text"), str)]
        return "".join(parts)
    return value


def require(container: dict, key: str, kind: type | tuple, where: tuple, what: str) -> Any:
    """container[key], checked to be present and of the given JSON type."""
    if key not in container:
        raise RecordProblem(where + (key,), f"missing field `{key}`")
    value = container[key]
    if not isinstance(value, kind) or isinstance(value, bool) and bool not in _as_tuple(kind):
        raise RecordProblem(where + (key,), f"`{key}` must be {what}, found {json_type(value)}")
    return value


def reject_misspelled(container: dict, known: tuple[str, ...], where: tuple) -> None:
    """A key that is not one of `known` but nearly is (`argumnts`) is an error naming it:
    read as written, the field it was meant to be would silently count as absent.
    Other extra keys (`step`, `duration_ms`, ...) are ordinary data and pass.

    >>> reject_misspelled({"tool_name": "a", "argumnts": {}}, ("tool_name", "arguments"), ("tool_calls", 0))
    Traceback (most recent call last):
    policyc.trace.errors.RecordProblem: unknown field `argumnts`: did you mean `arguments`?
    """
    for key in container:
        if key in known:
            continue
        near = difflib.get_close_matches(str(key).lower(), known, n=1, cutoff=0.8)
        if near and near[0] not in container:
            raise RecordProblem(where + (key,), f"unknown field `{key}`: did you mean `{near[0]}`?")


def require_object(value: Any, where: tuple, what: str = "an object") -> dict:
    if not isinstance(value, dict):
        raise RecordProblem(where, f"expected {what}, found {json_type(value)}")
    return value


def _as_tuple(kind) -> tuple:
    return kind if isinstance(kind, tuple) else (kind,)


def json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def build_trace(calls: list[tuple[str, dict, Any]], metrics: dict, trace_id: Any, origin: str | None) -> Trace:
    """A Trace from (name, args, result) triples; result UNDEF when none was recorded."""
    out = tuple(Call(name, args, result, i) for i, (name, args, result) in enumerate(calls))
    tid = str(trace_id) if isinstance(trace_id, (str, int)) and not isinstance(trace_id, bool) else None
    return Trace(out, metrics, tid, origin)


NO_RESULT = UNDEF
