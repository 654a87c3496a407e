"""The trace model of appendix A.1: calls c_i = (name, args, result, position) and metrics μ."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Mapping

from policyc.grounding import EntitySet
from policyc.ir.data import path_value
from policyc.ir.ops import UNDEF


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
    """Trace-wide domains (appendix A.2.4), computed once per trace."""

    def __init__(self, trace: Trace):
        self.trace = trace
        self._values: dict = {}
        self._outputs: dict = {}

    def values(self, tool: str, path: tuple, flatten: bool) -> list:
        key = (tool, path, flatten)
        if key not in self._values:
            out: list = []
            for call in self.trace.calls:
                if call.name != tool:
                    continue
                if path and path[0] == "result":
                    value = path_value(call.result, path[1:])
                elif path:
                    value = path_value(call.args.get(path[0], UNDEF), path[1:])
                else:
                    value = UNDEF
                if value is UNDEF or value is None:
                    continue
                items = value if flatten and isinstance(value, list) else [value]
                for item in items:
                    if not any(_same(item, seen) for seen in out):
                        out.append(item)
            self._values[key] = out
        return self._values[key]

    def outputs(self, tools: tuple[str, ...]) -> EntitySet:
        if tools not in self._outputs:
            results = [c.result for c in self.trace.calls
                       if (not tools or c.name in tools) and c.result is not UNDEF]
            self._outputs[tools] = EntitySet.from_results(results)
        return self._outputs[tools]

    def metric(self, path: tuple) -> object:
        return path_value(dict(self.trace.metrics), path)


def _same(a: object, b: object) -> bool:
    from policyc.ir.ops import values_equal

    return values_equal(a, b)
