"""The eight benchmark tools of the AgentLTL paper (appendix C, table 6), as pure functions.

Every tool is a deterministic integer function. Three of them (`tool_a_list`,
`tool_iterations`, `tool_expand`) also depend on the run's seed `s` and difficulty `d`; the
paper binds those "at construction time", so the agent-facing tool takes only the argument
the agent passes (`seed` or `node`) and a `ToolBox` supplies the rest.

What an agent sees is a JSON object, the shape of the paper's appendix B records:
`{"result": 11}` for the integer tools, `{"numbers": [8, 2, 46]}` for `tool_a_list` and
`{"children": [...]}` for `tool_expand`. `bench_tools.altl` declares exactly these
signatures; a test checks that the two agree.

>>> tool_a(1), tool_a(2), tool_b(8, 0), tool_d([11, 11, 11])
(2, 5, 11, 33)
>>> tool_a_list(42, 1)
[8, 2, 46]
>>> ToolBox(seed=42, difficulty=1).call("tool_a_list", {"seed": 42})
{'numbers': [8, 2, 46]}
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping

#: The signature file shipped next to this module (`import "bench_tools.altl"`).
SIGNATURES_PATH = Path(__file__).with_name("bench_tools.altl")


def tool_a(i: int) -> int:
    """(3i + 5) mod 7 + 1, in 1..7.

    >>> [tool_a(i) for i in range(1, 8)]
    [2, 5, 1, 4, 7, 3, 6]
    """
    return (3 * i + 5) % 7 + 1


def tool_b(i: int, j: int) -> int:
    """(i·j + 11) mod 100, in 0..99.

    >>> tool_b(8, 0), tool_b(7, 3)
    (11, 32)
    """
    return (i * j + 11) % 100


def tool_c(x: int) -> int:
    """3x + 1.

    >>> tool_c(5)
    16
    """
    return 3 * x + 1


def tool_d(numbers: list[int]) -> int:
    """The sum of the numbers.

    >>> tool_d([1, 2, 3])
    6
    """
    return sum(numbers)


def tool_a_list(seed: int, difficulty: int) -> list[int]:
    """[((s(k+1)·7 + 13) mod 50) + 1 for k = 0..d+1]: d+2 numbers in 1..50.

    >>> tool_a_list(2, 1)
    [28, 42, 6]
    """
    return [((seed * (k + 1) * 7 + 13) % 50) + 1 for k in range(difficulty + 2)]


def tool_iterations(seed: int, difficulty: int) -> int:
    """(s mod 5) + d + 2, at least 3.

    >>> tool_iterations(42, 1)
    5
    """
    return seed % 5 + difficulty + 2


def tool_expand(node: int, seed: int, difficulty: int) -> list[int]:
    """min(d, 3) children, the k-th being ((n·s + 7(k+1) + 3) mod 20d) + 1.

    >>> tool_expand(5, 42, 3)
    [41, 48, 55]
    """
    return [((node * seed + 7 * (k + 1) + 3) % (20 * difficulty)) + 1 for k in range(min(difficulty, 3))]


def tool_value(node: int) -> int:
    """(13n + 3) mod 50, in 0..49.

    >>> tool_value(41)
    36
    """
    return (13 * node + 3) % 50


@dataclass(frozen=True, slots=True)
class BenchTool:
    """One tool as an agent sees it: its parameters, the result field, the function."""

    name: str
    params: tuple[str, ...]
    result_field: str
    run: Callable[..., Any]  # (args..., seed, difficulty) -> value


TOOLS: dict[str, BenchTool] = {
    "tool_a": BenchTool("tool_a", ("i",), "result", lambda i, s, d: tool_a(i)),
    "tool_b": BenchTool("tool_b", ("i", "j"), "result", lambda i, j, s, d: tool_b(i, j)),
    "tool_c": BenchTool("tool_c", ("x",), "result", lambda x, s, d: tool_c(x)),
    "tool_d": BenchTool("tool_d", ("numbers",), "result", lambda numbers, s, d: tool_d(numbers)),
    "tool_a_list": BenchTool("tool_a_list", ("seed",), "numbers", lambda seed, s, d: tool_a_list(seed, d)),
    "tool_iterations": BenchTool("tool_iterations", ("seed",), "result", lambda seed, s, d: tool_iterations(seed, d)),
    "tool_expand": BenchTool("tool_expand", ("node",), "children", lambda node, s, d: tool_expand(node, s, d)),
    "tool_value": BenchTool("tool_value", ("node",), "result", lambda node, s, d: tool_value(node)),
}


class ToolCallError(ValueError):
    """A call the benchmark tools cannot execute (unknown tool, missing or ill-typed argument)."""


def _check_int(tool: str, name: str, value: Any) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ToolCallError(f"`{tool}` needs an integer `{name}`, got {value!r}")


@dataclass(frozen=True, slots=True)
class ToolBox:
    """The tools of one run: the seed and difficulty the stateful tools were built with.

    >>> box = ToolBox(seed=42, difficulty=1)
    >>> box.call("tool_b", {"i": 8, "j": 0})
    {'result': 11}
    >>> box.value("tool_iterations", {"seed": 42})
    5
    """

    seed: int
    difficulty: int

    def value(self, name: str, args: Mapping[str, Any]) -> Any:
        """The tool's plain value (an int or a list of ints)."""
        tool = TOOLS.get(name)
        if tool is None:
            raise ToolCallError(f"no benchmark tool named `{name}`")
        if set(args) != set(tool.params):
            expected = ", ".join(tool.params)
            raise ToolCallError(f"`{name}` takes ({expected}), got ({', '.join(args)})")
        for param in tool.params:
            value = args[param]
            if param == "numbers":
                if not isinstance(value, list):
                    raise ToolCallError(f"`{name}` needs a list of integers `numbers`, got {value!r}")
                for item in value:
                    _check_int(name, param, item)
            else:
                _check_int(name, param, value)
        return tool.run(*(args[p] for p in tool.params), self.seed, self.difficulty)

    def call(self, name: str, args: Mapping[str, Any]) -> dict[str, Any]:
        """The JSON object the agent receives."""
        return {TOOLS[name].result_field if name in TOOLS else "result": self.value(name, args)}


def result_value(name: str, result: Mapping[str, Any]) -> Any:
    """The plain value inside a tool's result object.

    >>> result_value("tool_a_list", {"numbers": [1, 2]})
    [1, 2]
    """
    return result[TOOLS[name].result_field]
