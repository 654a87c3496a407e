"""The trace model of appendix A.1: calls c_i = (name, args, result, position) and metrics μ."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Mapping

from policyc.grounding import EntitySet
from policyc.ir.data import path_value
from policyc.ir.ops import UNDEF, value_key


@dataclass(frozen=True, slots=True)
class Call:
    name: str
    args: Mapping[str, Any]
    result: Any = UNDEF  # UNDEF: no result recorded (or not yet known)
    position: int = 0

    def __str__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.args.items())
        return f"{self.name}({args})"


@dataclass(frozen=True)
class Trace:
    """A finite sequence of calls plus the metrics record they came with."""

    calls: tuple[Call, ...]
    metrics: Mapping[str, Any] = field(default_factory=dict)
    id: str | None = None
    origin: str | None = None  # "file:line" the record was read from

    @classmethod
    def of(cls, *calls: tuple, metrics: Mapping[str, Any] | None = None, id: str | None = None) -> "Trace":
        """Build a trace from (name, args[, result]) tuples.

        >>> Trace.of(("search", {"query": "x"}, ["a.py"]), ("final_answer", {"answer": "a.py"})).tool_sequence
        ['search', 'final_answer']
        """
        out = []
        for i, c in enumerate(calls):
            name, args, *rest = c
            out.append(Call(name, dict(args), rest[0] if rest else UNDEF, i))
        return cls(tuple(out), dict(metrics or {}), id)

    def __len__(self) -> int:
        return len(self.calls)

    @property
    def tool_sequence(self) -> list[str]:
        return [c.name for c in self.calls]

    def prefix(self, length: int) -> "Trace":
        return Trace(self.calls[:length], self.metrics, self.id, self.origin)

    @cached_property
    def globals(self) -> "TraceGlobals":
        return TraceGlobals(self)


class TraceGlobals:
    """Trace-wide domains (appendix A.2.4), each computed once per trace.

    `values(tool, path, flatten)` is the active domain of `tool.path`: the distinct values it
    takes over the calls to `tool`, in order of first appearance (⊥ and null left out; with
    `flatten`, list values contribute their elements). `outputs(tools)` is the grounding set
    of the results of `tools` (every tool when empty).
    """

    def __init__(self, trace: Trace):
        self.trace = trace
        self._values: dict = {}
        self._outputs: dict = {}

    def values(self, tool: str, path: tuple, flatten: bool) -> list:
        key = (tool, path, flatten)
        if key not in self._values:
            seen: dict[object, object] = {}
            for call in self.trace.calls:
                if call.name != tool or not path:
                    continue
                if path[0] == "result":
                    value = path_value(call.result, path[1:])
                else:
                    value = path_value(call.args.get(path[0], UNDEF), path[1:])
                if value is UNDEF or value is None:
                    continue
                for item in (value if flatten and isinstance(value, list) else [value]):
                    seen.setdefault(value_key(item), item)
            self._values[key] = list(seen.values())
        return self._values[key]

    def outputs(self, tools: tuple[str, ...]) -> EntitySet:
        if tools not in self._outputs:
            seen = EntitySet()
            for call in self.trace.calls:
                if (not tools or call.name in tools) and call.result is not UNDEF:
                    seen.add_call(dict(call.args), call.result)
            self._outputs[tools] = seen
        return self._outputs[tools]

    def metric(self, path: tuple) -> object:
        return path_value(dict(self.trace.metrics), path)
