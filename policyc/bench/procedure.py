"""Running a template's procedure: the gold trace is recorded as the tools are called.

A template is a small Python function that executes its procedure on the benchmark tools
through a `Procedure` (which records each call with its provenance and each routing
decision) and writes the prompt's numbered steps with the numbers inlined (§C.4 (ii)-(iii)).
Tool and argument names in the prompt go through `ToolNames`, so the same template renders
the aliased prompt of the diverse-tool split (appendix D.4).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from policyc.bench.model import Decision, GoldCall, Pattern
from policyc.bench.tools import TOOLS, ToolBox

#: tool -> (alias, {argument -> alias})
Renames = Mapping[str, tuple[str, Mapping[str, str]]]


@dataclass(frozen=True)
class ToolNames:
    """The names a prompt shows for tools and their arguments.

    >>> names = ToolNames({"tool_b": ("cross_reference", {"i": "primary_id", "j": "secondary_id"})})
    >>> names.call("tool_b", i="n", j=0)
    'cross_reference(primary_id=n, secondary_id=0)'
    >>> ToolNames().signature("tool_a_list")
    'tool_a_list(seed: int) -> {"numbers": list[int]}'
    """

    renames: Renames = field(default_factory=dict)

    def tool(self, name: str) -> str:
        return self.renames.get(name, (name, {}))[0]

    def arg(self, tool: str, arg: str) -> str:
        return self.renames.get(tool, (tool, {}))[1].get(arg, arg)

    def call(self, tool: str, **args: Any) -> str:
        inner = ", ".join(f"{self.arg(tool, k)}={v}" for k, v in args.items())
        return f"{self.tool(tool)}({inner})"

    def signature(self, tool: str) -> str:
        spec = TOOLS[tool]
        params = ", ".join(f"{self.arg(tool, p)}: {'list[int]' if p == 'numbers' else 'int'}" for p in spec.params)
        result = "list[int]" if spec.result_field in ("numbers", "children") else "int"
        return f'{self.tool(tool)}({params}) -> {{"{spec.result_field}": {result}}}'


class Procedure:
    """Executes calls on the tools and records the gold trace and its routing decisions.

    >>> proc = Procedure(ToolBox(seed=42, difficulty=1))
    >>> proc.call("tool_a", i=1, given=("i",))
    2
    >>> proc.stop(proc.last, ("i",), ("tool_a", {"i": 2}))
    >>> [str(d.forbidden) for d in proc.decisions]
    ['tool_a(i: 2)']
    """

    def __init__(self, toolbox: ToolBox):
        self.toolbox = toolbox
        self.calls: list[GoldCall] = []
        self.decisions: list[Decision] = []

    @property
    def last(self) -> int:
        return len(self.calls) - 1

    def call(self, name: str, *, given: tuple[str, ...] = (), after: tuple[int, ...] = (), **args: Any) -> Any:
        """Call a tool; `given` names the arguments the prompt states, `after` the calls it needs."""
        value = self.toolbox.value(name, args)
        result = {TOOLS[name].result_field: value}
        self.calls.append(GoldCall(name, dict(args), result, tuple(given), tuple(sorted(set(after)))))
        return value

    def _key(self, index: int, key: tuple[str, ...]) -> Pattern:
        call = self.calls[index]
        return Pattern.of(call.name, {k: call.args[k] for k in key})

    def route(self, taken: int, key: tuple[str, ...], other: tuple[str, Mapping[str, Any]]) -> None:
        """Call `taken` was made on one branch; the other branch would have made `other`."""
        self.decisions.append(Decision("route", self._key(taken, key), Pattern.of(*other), other, taken, taken - 1))

    def keep(self, taken: int, key: tuple[str, ...]) -> None:
        """A filter let an item through: call `taken` processes it (the other branch calls nothing)."""
        self.decisions.append(Decision("skip", self._key(taken, key), None, None, taken, taken - 1))

    def drop(self, other: tuple[str, Mapping[str, Any]], anchor: int) -> None:
        """A filter stopped an item after call `anchor`: the call `other` must not happen."""
        self.decisions.append(Decision("skip", None, Pattern.of(*other), other, None, anchor))

    def stop(self, last: int, key: tuple[str, ...], following: tuple[str, Mapping[str, Any]],
             anchor: int | None = None) -> None:
        """A loop ended with call `last`: its next iteration, `following`, must not happen.

        `anchor` is the last call of the final iteration (by default the last call so far).
        """
        where = self.last if anchor is None else anchor
        self.decisions.append(Decision("stop", self._key(last, key), Pattern.of(*following), following, last, where))


@dataclass(frozen=True)
class Context:
    """What a template function receives."""

    proc: Procedure
    names: ToolNames
    seed: int
    difficulty: int
    level: Any = None           # the table 9 scaling parameter at this difficulty
    cap: int | None = None      # a cap that keeps the trace within 50 calls (C.3), or None
    variant: str = ""           # simplified mode: the seed transform, "tool_a" or "tool_c"

    @property
    def j(self) -> int:
        """The seed-derived parameter j = (seed mod 10) + 1 of §C.4."""
        return self.seed % 10 + 1


@dataclass(frozen=True)
class Outcome:
    """What a template returns: the answer and the prompt's procedure text."""

    answer: int
    steps: tuple[str, ...]            # PROCEDURE (production) or the sentences (simplified)
    rules: tuple[str, ...] = ()       # template-specific RULES lines
    answer_is: str = "the final total"


@dataclass(frozen=True)
class Template:
    """A named procedural pattern (table 7 or table 12) and how difficulty scales it (table 9)."""

    name: str
    mode: str
    family: str
    tools: tuple[str, ...]
    build: Callable[[Context], Outcome]
    scaling: str = ""
    levels: tuple = ()
    cap: str | None = None          # what the cap limits, when the raw trace can exceed 50 calls
    variants: tuple[str, ...] = ("",)
    held_out: bool = False

    def level(self, difficulty: int) -> Any:
        return self.levels[difficulty - 1] if self.levels else None


def numbered(*steps: str) -> tuple[str, ...]:
    """Number the steps of a PROCEDURE block.

    >>> numbered("Call a.", "Stop.")
    ('1. Call a.', '2. Stop.')
    """
    return tuple(f"{k}. {s}" for k, s in enumerate(steps, 1))
