"""Proposed and recorded calls as the runtime sees them: arguments, identity, results.

>>> call_identity("search", {"b": 1, "a": [1.0, True]})
'["search",{"a":[1.0,true],"b":1}]'
>>> call_identity("search", {"a": 1}) == call_identity("search", {"a": 1.0})
False
>>> normalise_result('{"result": 11}'), normalise_result("plain text")
({'result': 11}, 'plain text')
"""

from __future__ import annotations

import json
from typing import Any, Mapping

from policyc.ir.ops import UNDEF
from policyc.trace.formats.common import parse_result


_IDENTITY = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=repr)


class RunError(Exception):
    """A run used in a way that cannot be right (a refused call recorded, a stopped run continued)."""


def as_args(args: Mapping[str, Any] | None) -> dict[str, Any]:
    """The arguments of a call as a plain dict of its own; None means no arguments."""
    if type(args) is dict:
        return dict(args)
    if args is None:
        return {}
    if not isinstance(args, Mapping):
        raise TypeError(f"tool arguments must be a mapping of names to values, not {type(args).__name__}")
    return dict(args)


def call_identity(tool: str, args: Mapping[str, Any]) -> str:
    """A call's identity for the identical-retry override: tool and arguments, byte for byte.

    Keys are sorted (a mapping has no order), values are kept exactly: `1` and `1.0` differ.
    """
    return _IDENTITY.encode([tool, args])


def normalise_result(result: Any) -> Any:
    """A tool result as the trace loaders hold it: text that is a JSON object, array or
    constant is parsed (appendix B), so a run scores as its exported trace does."""
    return parse_result(result)


def result_to_json(result: Any) -> dict:
    """A result for a snapshot: absent when no result was recorded."""
    return {} if result is UNDEF else {"result": result}


def result_from_json(data: Mapping[str, Any]) -> Any:
    return data["result"] if "result" in data else UNDEF
