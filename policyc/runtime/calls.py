"""Proposed and recorded calls as the runtime sees them: arguments, identity, results.

>>> call_identity("search", {"b": 1, "a": [1.0, True]})
'["search",{"a":[1.0,true],"b":1}]'
>>> call_identity("search", {"a": 1}) == call_identity("search", {"a": 1.0})
False
>>> normalise_result('{"result": 11}'), normalise_result("plain text")
({'result': 11}, 'plain text')
>>> deep = 1
>>> for _ in range(MAX_VALUE_DEPTH + 1):
...     deep = [deep]
>>> too_deep(deep), too_deep([[1]]), call_identity("a", {"x": deep})
(True, False, '["a","<arguments nested too deeply>"]')
"""

from __future__ import annotations

import json
import unicodedata
from typing import Any, Mapping

from policyc.ir.ops import UNDEF
from policyc.trace.formats.common import parse_result


_IDENTITY = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=repr)


class RunError(Exception):
    """A run used in a way that cannot be right (a refused call recorded, a stopped run continued)."""


def as_tool(tool: str) -> str:
    """A tool name as the policy spells it: in Unicode normal form C (policies read names so),
    so `café` proposed with a combining accent is the declared `café`."""
    if not isinstance(tool, str):
        raise TypeError(f"a tool name is a string, not {type(tool).__name__}")
    return tool if tool.isascii() else unicodedata.normalize("NFC", tool)


def as_args(args: Mapping[str, Any] | None) -> dict[str, Any]:
    """The arguments of a call as a plain dict of its own; None means no arguments."""
    if type(args) is dict:
        return dict(args)
    if args is None:
        return {}
    if not isinstance(args, Mapping):
        raise TypeError(f"tool arguments must be a mapping of names to values, not {type(args).__name__}")
    return dict(args)


#: Arguments and results may nest at most this deep (lists and objects): deeper ones cannot be
#: judged (a proposal is refused) or recorded (RunError).
MAX_VALUE_DEPTH = 100
_SCALARS = frozenset((str, int, float, bool, type(None)))


def too_deep(value: Any, limit: int = MAX_VALUE_DEPTH) -> bool:
    """Whether lists and mappings nest deeper than `limit` in `value` (found without recursion)."""
    kind = type(value)
    if kind in _SCALARS:
        return False
    if limit > 0 and (kind is dict or kind is list):  # most arguments and results: one flat object or list
        for item in (value.values() if kind is dict else value):
            if type(item) not in _SCALARS:
                break
        else:
            return False
    stack = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        kind = type(item)
        if kind in _SCALARS:
            continue  # most values: nothing below them (checked before the costly ABC test)
        if kind is dict or kind is not list and kind is not tuple and isinstance(item, Mapping):
            children = list(item.values())
        elif isinstance(item, (list, tuple)):
            children = list(item)
        else:
            continue
        if depth >= limit and children:
            return True
        stack.extend((child, depth + 1) for child in children)
    return False


def call_identity(tool: str, args: Mapping[str, Any]) -> str:
    """A call's identity for the identical-retry override: tool and arguments, byte for byte.

    Keys are sorted (a mapping has no order), values are kept exactly: `1` and `1.0` differ.
    Arguments nested deeper than MAX_VALUE_DEPTH have one identity per tool (such a call is
    refused whatever it holds).
    """
    if too_deep(args, MAX_VALUE_DEPTH - 1):
        return _IDENTITY.encode([tool, "<arguments nested too deeply>"])
    return _IDENTITY.encode([tool, args])


def normalise_result(result: Any) -> Any:
    """A tool result as the trace loaders hold it: text that is a JSON object, array or
    constant is parsed (appendix B), so a run scores as its exported trace does. Text that
    does not parse, holds a number too long to convert, or nests deeper than MAX_VALUE_DEPTH
    stays text."""
    parsed = parse_result(result)
    if parsed is not result and too_deep(parsed):
        return result
    return parsed


def result_to_json(result: Any) -> dict[str, object]:
    """A result for a snapshot: absent when no result was recorded."""
    return {} if result is UNDEF else {"result": result}


def result_from_json(data: Mapping[str, Any]) -> Any:
    return data["result"] if "result" in data else UNDEF
