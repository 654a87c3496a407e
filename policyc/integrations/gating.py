"""What every framework adapter shares: the stop signal, the tool-set check, call values.

>>> from policyc.artifact.build import compile_file
>>> from policyc.runtime import Monitor
>>> monitor = Monitor(compile_file("examples/code_qa.altl"))
>>> schemas = {"search": ({"type": "object", "properties": {"query": {"type": "string"}},
...                        "required": ["query"]}, None)}
>>> report = check_tool_set(monitor, schemas, on_mismatch="ignore")
>>> [m.tool for m in report.errors]
['list_directory', 'read_file', 'grep', 'final_answer']
"""

from __future__ import annotations

import json
import os
import warnings
from typing import Any, Mapping

from policyc.ir.types import ANY, Type, value_problems
from policyc.runtime import Decision, Monitor
from policyc.runtime.calls import as_data
from policyc.toolschema import ToolSetMismatch, ToolSetReport, compare_tools, signatures_from_schemas

ON_MISMATCH = ("error", "warn", "ignore")


def load_policy(policy: "Monitor | str | os.PathLike[str]") -> Monitor:
    """The monitor an adapter gates with: a loaded `Monitor`, or the path of an artifact or of
    a policy source (`.altl`, compiled in memory with a `PolicySourceWarning`, and refused
    when a signing key is configured: see `Monitor.load`)."""
    if isinstance(policy, Monitor):
        return policy
    if isinstance(policy, (str, os.PathLike)):
        return Monitor.load(os.fspath(policy))
    raise TypeError(f"policy must be a Monitor or the path of a policy or an artifact, not {type(policy).__name__}")


class PolicyStop(Exception):
    """The gate stopped the run (a `stop` decision); carries the decision."""

    def __init__(self, decision: Decision):
        super().__init__(decision.message or f"the policy stopped the run at `{decision.tool}`")
        self.decision = decision


class PolicyToolWarning(UserWarning):
    """The agent's tools and the policy's signatures differ in a way that may flag some calls."""


def check_tool_set(monitor: Monitor, schemas: Mapping[str, tuple[object, object | None]],
                   names: Mapping[str, str] | None = None, on_mismatch: str = "error",
                   where: str = "the agent") -> ToolSetReport:
    """Compare the live tools (name -> (input JSON Schema, output JSON Schema or None)) with the
    policy's signatures. `on_mismatch`: `error` raises `ToolSetMismatch` when a tool or a
    required argument is missing or extra and warns for the rest; `warn` warns for
    everything; `ignore` only returns the report."""
    if on_mismatch not in ON_MISMATCH:
        raise ValueError(f"on_mismatch must be one of {', '.join(ON_MISMATCH)}, not `{on_mismatch}`")
    report = compare_tools(monitor.policy.tools, signatures_from_schemas(schemas), names)
    if on_mismatch == "ignore":
        return report
    if on_mismatch == "error" and report.errors:
        raise ToolSetMismatch(report, where)
    for mismatch in report.mismatches:
        warnings.warn(f"{where}'s tools and the policy: {mismatch.message}", PolicyToolWarning, stacklevel=3)
    return report


def return_schema(function: Any) -> dict | None:
    """The JSON Schema of what a Python function returns, from its return annotation (None
    when it has none, or one that has no schema): what an adapter records as its result."""
    import inspect

    try:
        annotation = inspect.signature(function, eval_str=True).return_annotation
    except (TypeError, ValueError, NameError):  # no signature, or an annotation that does not resolve
        return None
    if annotation is inspect.Signature.empty or annotation is Any:
        return None
    from pydantic import TypeAdapter

    try:
        schema = TypeAdapter(annotation).json_schema(mode="serialization")
    except Exception:  # noqa: BLE001 - a type pydantic has no schema for says nothing about the result
        return None
    return schema or None


def as_arguments(arguments: Any) -> dict:
    """A call's arguments as a mapping (a JSON object in text is parsed)."""
    if isinstance(arguments, Mapping):
        return dict(arguments)
    if isinstance(arguments, str):
        try:
            parsed = json.loads(arguments) if arguments.strip() else {}
        except (ValueError, RecursionError):  # not JSON, thousands of digits, too deep: kept as text
            return {"input": arguments}
        return parsed if isinstance(parsed, dict) else {"input": parsed}
    return {} if arguments is None else {"input": arguments}


def failure_text(exc: BaseException) -> str:
    """What the trace keeps of a tool that raised: the exception's kind and message.

    >>> failure_text(ValueError("no such order"))
    'ValueError: no such order'
    """
    try:
        return f"{type(exc).__name__}: {exc}"[:10_000]
    except Exception:  # noqa: BLE001 - an exception whose text cannot be made: its kind alone
        return type(exc).__name__


def recorded(result: Any) -> Any:
    """A tool's return value as the trace keeps it (JSON values; anything else as text: a run
    holds only what it can snapshot, so NaN, a number of thousands of digits or nesting past
    the runtime's limit is recorded as its text, never refused once the tool has run).

    >>> recorded({"rows": [1, 2]}), recorded(float("nan")), recorded({"mean": float("inf")})
    ({'rows': [1, 2]}, 'nan', "{'mean': inf}")
    """
    if hasattr(result, "model_dump") and not isinstance(result, (str, int, float, bool, list, dict)):
        try:
            return as_data(result.model_dump(mode="json"))
        except Exception:  # noqa: BLE001 - a model that cannot be dumped is kept as its text
            return as_data(result)
    return as_data(result)


def typed_result(candidates: list, declared: Type = ANY) -> Any:
    """The first reading of a result that has the policy's declared result type (else the
    first reading): a framework that hands results over as text says `41` for the number 41.

    >>> from policyc.ir.types import INT, STR
    >>> typed_result(["41", 41], INT), typed_result(["41", 41], STR), typed_result([], INT)
    (41, '41', None)
    """
    for value in candidates:
        if not value_problems(value, declared):
            return value
    return candidates[0] if candidates else None


__all__ = ["PolicyStop", "PolicyToolWarning", "ToolSetMismatch", "as_arguments", "check_tool_set", "load_policy",
           "recorded", "return_schema", "typed_result"]
