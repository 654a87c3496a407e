"""What a benchmark instance is made of: gold calls, routing decisions, the instance itself.

A gold call carries, besides its name, arguments and result, the two facts the constraint
synthesis needs and a plain trace does not have: which arguments the prompt states (`given`:
literals and loop counters, as opposed to values copied from earlier tool results) and
which earlier calls it depends on (`after`: calls whose results it uses, or whose results
decided that it is made). A `Decision` is one routing choice of the procedure: the branch it
takes and the call the other branch would have made.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Mapping

from policyc.bench.tools import ToolBox
from policyc.trace import Trace


def freeze(value: Any) -> Any:
    """A hashable copy of a JSON-like value (lists become tuples).

    >>> freeze({"numbers": [1, 2]})
    (('numbers', (1, 2)),)
    """
    if isinstance(value, Mapping):
        return tuple(sorted((k, freeze(v)) for k, v in value.items()))
    if isinstance(value, (list, tuple)):
        return tuple(freeze(v) for v in value)
    return value


@dataclass(frozen=True, slots=True)
class Pattern:
    """An event pattern: a tool and some of its arguments, `tool_b(i: 8)`.

    >>> str(Pattern.of("tool_b", {"i": 8, "j": 0}))
    'tool_b(i: 8, j: 0)'
    >>> str(Pattern.of("tool_d", {"numbers": [1, 2]}))
    'tool_d(numbers: [1, 2])'
    """

    tool: str
    args: tuple[tuple[str, Any], ...] = ()

    @classmethod
    def of(cls, tool: str, args: Mapping[str, Any] | None = None) -> "Pattern":
        return cls(tool, tuple((k, freeze(v)) for k, v in (args or {}).items()))

    def __str__(self) -> str:
        if not self.args:
            return self.tool
        inner = ", ".join(f"{k}: {_literal(v)}" for k, v in self.args)
        return f"{self.tool}({inner})"

    def matches(self, name: str, args: Mapping[str, Any]) -> bool:
        return name == self.tool and all(k in args and freeze(args[k]) == v for k, v in self.args)


def _literal(value: Any) -> str:
    if isinstance(value, tuple):
        return "[" + ", ".join(_literal(v) for v in value) + "]"
    return json.dumps(value)


@dataclass(frozen=True, slots=True)
class GoldCall:
    """One call of the gold trace (appendix C.4: `{name, args, result}`) and its provenance."""

    name: str
    args: Mapping[str, Any]
    result: Mapping[str, Any]
    given: tuple[str, ...] = ()   # arguments whose values the prompt states (layer L2)
    after: tuple[int, ...] = ()   # earlier calls this one depends on (layer L4)


@dataclass(frozen=True, slots=True)
class Decision:
    """A routing decision: a branch taken, the call the other branch would make.

    `kind` is "route" (one of two tools), "skip" (a call made or not made: a filter) or
    "stop" (a loop ends: the next iteration's call must not happen). `taken` is the pattern
    of the branch's call (None when the branch calls nothing), `forbidden` that of the other
    branch's call (None when it would call nothing). `alternative` is the complete call the
    wrong branch makes, `taken_call` the index of the branch's call, and `anchor` the call
    after which the wrong branch's call would be made.
    """

    kind: str
    taken: Pattern | None
    forbidden: Pattern | None
    alternative: tuple[str, Mapping[str, Any]] | None
    taken_call: int | None
    anchor: int


@dataclass(frozen=True)
class Instance:
    """One (template, difficulty, seed) tuple and everything it determines (table 10)."""

    template: str
    mode: str                      # "production" or "simplified"
    difficulty: int
    seed: int
    prompt: str
    calls: tuple[GoldCall, ...]
    decisions: tuple[Decision, ...]
    expected_answer: int
    tools: tuple[str, ...]         # the template's tool set (table 7 / table 12)
    family: str                    # the structural type (table 8) or the simplified group
    variant: str = ""              # simplified mode: "tool_a" or "tool_c" transform, "" otherwise
    augmentation: str = "none"     # simplified mode: none, prefix, suffix, both (appendix D.3)
    capped: dict[str, int] = field(default_factory=dict)  # caps applied to fit 50 calls (C.3)
    renames: Mapping[str, tuple[str, Mapping[str, str]]] = field(default_factory=dict)  # aliases (D.4)

    @property
    def aliased(self) -> bool:
        return bool(self.renames)

    def toolbox(self) -> ToolBox:
        """The tools of a run of this instance (simplified mode builds them at difficulty 1)."""
        return ToolBox(self.seed, self.difficulty if self.mode == "production" else 1)

    @property
    def num_tool_calls_expected(self) -> int:
        return len(self.calls)

    @property
    def key(self) -> dict[str, Any]:
        """What identifies the instance in a run record."""
        out: dict[str, Any] = {"template": self.template, "difficulty": self.difficulty,
                               "seed": self.seed, "mode": self.mode}
        if self.augmentation != "none":
            out["augmentation"] = self.augmentation
        if self.variant:
            out["variant"] = self.variant
        if self.renames:
            out["aliases"] = True
        return out

    def seen(self, call: GoldCall) -> tuple[str, dict[str, Any]]:
        """A call's name and arguments as the agent sees them (through the aliases)."""
        if call.name not in self.renames:
            return call.name, dict(call.args)
        alias, arg_map = self.renames[call.name]
        return alias, {arg_map.get(k, k): v for k, v in call.args.items()}

    @property
    def tool_sequence(self) -> list[str]:
        return [self.seen(c)[0] for c in self.calls]

    def gold_trace(self) -> Trace:
        """The gold trace, with the names the agent sees."""
        return Trace.of(*(self.seen(c) + (dict(c.result),) for c in self.calls))

    def gold_records(self) -> list[dict[str, Any]]:
        """The gold trace as the paper's JSON records (appendix A.1.2)."""
        out = []
        for call in self.calls:
            name, args = self.seen(call)
            out.append({"tool_name": name, "arguments": args, "tool_result": dict(call.result)})
        return out
