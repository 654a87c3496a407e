"""What every trace format shares: arguments, results and the checks that name a field.

>>> parse_result('{"result": 11}'), parse_result("plain text"), parse_result("42")
({'result': 11}, 'plain text', '42')
>>> parse_arguments('{"q": "x"}', ("arguments",))
{'q': 'x'}
"""

from __future__ import annotations

import difflib
from typing import Any

from policyc.ir.ops import UNDEF
from policyc.trace.errors import RecordProblem, Where
from policyc.jsontext import decode
from policyc.trace.model import ASSISTANT, CALL, MESSAGE, MESSAGE_KIND, Call, Trace


def parse_result(value: Any) -> Any:
    """A tool result as the trace holds it: text that is a JSON object, array, `true`,
    `false` or `null` is parsed (appendix B); other text (also "42") stays text, and so does
    text that is not JSON as the standard defines it or cannot be read safely (`NaN`, `1e400`,
    half a surrogate pair, numbers of thousands of digits, nesting deeper than
    `jsontext.MAX_DEPTH`: `jsontext.decode`)."""
    if isinstance(value, str):
        text = value.strip()
        if text[:1] in ("{", "[") or text in ("true", "false", "null"):
            # not JSON (NaN, 1e400, half a surrogate pair), a number of thousands of digits, too deep
            parsed, problem, _ = decode(text)
            return value if problem is not None else parsed
    return value


def parse_arguments(value: Any, where: Where) -> dict[str, Any]:
    """Call arguments: an object, or text holding a JSON object (OpenAI style); absent means none."""
    if value is None:
        return {}
    if isinstance(value, str):
        if not value.strip():
            return {}
        value, problem, at = decode(value)  # invalid JSON, thousands of digits, too deep, NaN, ...
        if problem is not None:
            problem = problem.removeprefix("invalid JSON: ").removeprefix("the record ")
            raise RecordProblem(where, f"arguments are not valid JSON ({problem}"
                                       + (f" at column {at + 1})" if at is not None else ")"))
    if not isinstance(value, dict):
        raise RecordProblem(where, f"arguments must be an object, found {json_type(value)}")
    return value


def text_content(value: Any) -> Any:
    """Message content: text, or the text parts of a list of content parts joined."""
    if isinstance(value, list):
        return "".join(texts_at(value, "text"))
    return value


def texts_at(items: list[Any], key: str) -> list[str]:
    """The text at `key` of each object of a list that has one there (the names of tool calls,
    the text parts of content)."""
    return [text for item in items if isinstance(item, dict) and isinstance(text := item.get(key), str)]


def object_at(container: dict[str, Any], key: str) -> dict[str, Any]:
    """container[key] when it is an object, else an empty one."""
    value = container.get(key)
    return value if isinstance(value, dict) else {}


def message_text(value: Any) -> str:
    """The text of a message's content ("" when it has none)."""
    text = text_content(value)
    return text if isinstance(text, str) else ""


def require_list(container: dict[str, Any], key: str, where: Where, what: str = "an array") -> list[Any]:
    """container[key] as a list; absent or null is an empty list, anything else an error."""
    value = container.get(key)
    if value is None:
        return []
    if not isinstance(value, list):
        raise RecordProblem(where + (key,), f"`{key}` must be {what}, found {json_type(value)}")
    return value


def require(container: dict[str, Any], key: str, kind: type | tuple[type, ...], where: Where, what: str) -> Any:
    """container[key], checked to be present and of the given JSON type."""
    if key not in container:
        raise RecordProblem(where + (key,), f"missing field `{key}`")
    value = container[key]
    if not isinstance(value, kind) or isinstance(value, bool) and bool not in _as_tuple(kind):
        raise RecordProblem(where + (key,), f"`{key}` must be {what}, found {json_type(value)}")
    return value


def reject_misspelled(container: dict[str, Any], known: tuple[str, ...], where: Where) -> None:
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


#: What makes an object look like a tool call: a name, and arguments (a tool's *definition*
#: has `parameters` or a `description` instead, and is no call).
_CALL_NAMES = ("name", "tool_name", "tool", "function_name")
_CALL_ARGUMENTS = ("arguments", "args", "input", "tool_input", "tool_args")
_DEFINITION = ("parameters", "description", "input_schema", "inputSchema", "json_schema", "strict")


def is_call_shaped(value: Any) -> bool:
    """Whether a JSON value looks like a tool call: an object naming a tool and giving it
    arguments, or holding an OpenAI-style `function` that does.

    >>> is_call_shaped({"name": "delete", "arguments": {"path": "/"}}), is_call_shaped({"function": {"name": "f", "arguments": "{}"}})
    (True, True)
    >>> is_call_shaped({"name": "delete", "description": "removes a file", "parameters": {}}), is_call_shaped({"name": "x"})
    (False, False)
    """
    if not isinstance(value, dict) or any(k in value for k in _DEFINITION):
        return False
    function = value.get("function")
    if isinstance(function, dict) and isinstance(function.get("name"), str) and "arguments" in function:
        return True
    return any(isinstance(value.get(k), str) for k in _CALL_NAMES) and any(k in value for k in _CALL_ARGUMENTS)


def holds_calls(value: Any, depth: int = 3, budget: int = 10_000) -> bool:
    """Whether a JSON value is, or holds within `depth` levels of lists and objects, something
    that looks like a tool call (`is_call_shaped`); at most `budget` values are looked at."""
    stack = [(value, 0)]
    while stack and budget > 0:
        item, level = stack.pop()
        budget -= 1
        if is_call_shaped(item):
            return True
        if level < depth:
            children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else ()
            stack.extend((child, level + 1) for child in children if isinstance(child, (dict, list)))
    return False


def reject_unread_calls(container: dict[str, Any], read: tuple[str, ...], where: Where, what: str) -> None:
    """A field this reader does not read but that holds what looks like tool calls is an
    error naming it: read as written, those calls would be lost from the trace without a word
    (a misspelt `tool_calls`, calls in a place the format does not define).

    >>> reject_unread_calls({"tool_call": [{"name": "rm", "arguments": {}}]}, ("tool_calls",), ("steps", 2), "a step")
    Traceback (most recent call last):
    policyc.trace.errors.RecordProblem: `tool_call` holds what looks like tool calls, which a step does not hold there: they would be lost (did you mean `tool_calls`?)
    """
    for key, value in container.items():
        if key in read or not isinstance(value, (dict, list)) or not holds_calls(value):
            continue
        near = difflib.get_close_matches(str(key).lower(), read, n=1, cutoff=0.6)
        hint = f" (did you mean `{near[0]}`?)" if near else ""
        raise RecordProblem(where + (key,), f"`{key}` holds what looks like tool calls, which {what} does not hold "
                                            f"there: they would be lost{hint}")


def require_object(value: Any, where: Where, what: str = "an object") -> dict[str, Any]:
    if not isinstance(value, dict):
        raise RecordProblem(where, f"expected {what}, found {json_type(value)}")
    return value


def _as_tuple(kind: type | tuple[type, ...]) -> tuple[type, ...]:
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


def build_trace(calls: list[tuple[str, dict[str, Any], Any]], metrics: dict[str, Any], trace_id: Any,
                origin: str | None) -> Trace:
    """A Trace from (name, args, result) triples; result UNDEF when none was recorded."""
    out = tuple(Call(name, args, result, i) for i, (name, args, result) in enumerate(calls))
    return Trace(out, metrics, _trace_id(trace_id), origin)


def _trace_id(trace_id: Any) -> str | None:
    return str(trace_id) if isinstance(trace_id, (str, int)) and not isinstance(trace_id, bool) else None


NO_RESULT = UNDEF


class Events:
    """The events of one record as a reader finds them: messages, the calls they make, and
    the results (and failures) that come back for those calls later, by call id or in order.

    >>> ev = Events()
    >>> ev.message("Which line?", "user", "m0")
    >>> ev.message("", "assistant", "m1", ["get_details_by_id"])
    >>> ev.call("get_details_by_id", {"id": "L1"}, "assistant", "m1", call_id="c1")
    >>> ev.result("c1", '{"status": "Active"}')
    True
    >>> t = ev.trace({}, "run-1", None)
    >>> t.tool_sequence, t.calls[0].result, t.calls[0].message_id, t.request
    (['get_details_by_id'], {'status': 'Active'}, 'm1', 'Which line?')
    >>> [e.name for e in t.events]
    ['message', 'message', 'get_details_by_id']
    """

    def __init__(self) -> None:
        self.items: list[dict[str, Any]] = []
        self._by_id: dict[str, int] = {}
        self._waiting: list[int] = []
        self.request: str | None = None

    def message(self, text: str, actor: str, message_id: str | None = None, calls: list[str] | None = None) -> None:
        """A message (by "assistant" or "user"): its text and the names of the tools it calls.
        The first user message with text is the run's request."""
        if actor == "user" and text and self.request is None:
            self.request = text
        self.items.append({"name": MESSAGE, "args": {"text": text, "calls": list(calls or [])}, "result": UNDEF,
                           "kind": MESSAGE_KIND, "actor": actor, "message_id": message_id, "error": False})

    def call(self, name: str, args: dict[str, Any], actor: str = ASSISTANT, message_id: str | None = None,
             call_id: str | None = None, result: Any = UNDEF, error: bool = False) -> None:
        """A tool call; its result may come now or later (`result`)."""
        index = len(self.items)
        if call_id:
            self._by_id[call_id] = index
        if result is UNDEF:
            self._waiting.append(index)
        self.items.append({"name": name, "args": args, "result": result, "kind": CALL, "actor": actor,
                           "message_id": message_id, "error": error})

    def result(self, call_id: str | None, content: Any, error: bool = False, actor: str | None = None) -> bool:
        """The result of the call with this id (without one: the oldest call still waiting, of
        `actor` when given); False when no such call is known."""
        if call_id:
            index = self._by_id.get(call_id)
        else:
            index = next((i for i in self._waiting if actor is None or self.items[i]["actor"] == actor), None)
        if index is None:
            return False
        if index in self._waiting:
            self._waiting.remove(index)
        self.items[index]["result"] = parse_result(content)
        self.items[index]["error"] = bool(error)
        return True

    def __len__(self) -> int:
        return len(self.items)

    def trace(self, metrics: dict[str, Any], trace_id: Any, origin: str | None) -> Trace:
        calls = tuple(Call(e["name"], e["args"], e["result"], i, e["kind"], e["actor"], e["message_id"], e["error"])
                      for i, e in enumerate(self.items))
        return Trace.from_events(calls, metrics, _trace_id(trace_id), origin, self.request)


def no_events(where: Where, count: int, what: str) -> RecordProblem:
    """A record whose content yields no event: it is not what its shape suggested."""
    return RecordProblem(where, f"no events: none of its {count} {what} is a message or a tool call this "
                                "reader knows; name the format with --format if it was misread")
