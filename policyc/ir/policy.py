"""A checked policy: tool signatures plus weighted rules whose bodies are core IR formulas."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol, Self, TypeVar

from policyc.diagnostics import NO_SPAN, Span
from policyc.ir.nodes import Formula
from policyc.ir.types import ToolSignature, Type


class Observable(Protocol):
    """A run that can show itself as a policy reads it (`policyc.trace.Trace`)."""

    def observed(self, observes: frozenset[str] = ...) -> Self: ...


T = TypeVar("T", bound=Observable)

#: The paper's layers (table 5) and their conventional weights.
PAPER_LAYERS: dict[str, str] = {
    "L1": "tool routing / branching",
    "L2": "prompt-derived arguments",
    "L3": "global sequence ordering",
    "L4": "pairwise / instance order",
    "L5": "call counts",
    "L6": "exact argument match",
}

#: Severities, mildest first, with the names appendix A.5.3 gives them.
SEVERITIES: dict[str, str] = {
    "tolerate": "TOLERATE: log and continue",
    "warn": "the call runs; the agent is told which rule it broke",
    "block": "BLOCK_AND_WARN: not executed; an identical retry is treated as a deliberate override",
    "deny": "not executed, however often it is retried: nothing overrides it",
    "soft_block": "SOFT_BLOCK: not executed; escalates to stop after n blocks of the same rule",
    "stop": "HARD_STOP: not executed; the run halts",
}
DEFAULT_SEVERITY = "warn"
#: Weights are relative, positive and finite; this bound keeps every sum of weights exact
#: enough that a violated rule always lowers the score.
MAX_WEIGHT = 1_000_000.0
DEFAULT_SOFT_BLOCK_LIMIT = 3


@dataclass(frozen=True, slots=True)
class Severity:
    kind: str = DEFAULT_SEVERITY
    limit: int | None = None  # soft_block(n)

    def __str__(self) -> str:
        return f"{self.kind}({self.limit})" if self.limit is not None else self.kind

    @property
    def can_block(self) -> bool:
        return self.kind in ("block", "deny", "soft_block", "stop")


@dataclass(frozen=True, slots=True)
class Rule:
    name: str
    formula: Formula
    weight: float = 1.0
    layer: str | None = None
    severity: Severity = field(default_factory=Severity)
    message: str | None = None
    description: str | None = None
    source: str = ""  # the rule's text as written
    #: when the rule is written `when ρ shall χ` (under `forall x...`): `exists x...: eventually ρ`,
    #: the runs the rule applies to ("Organising trajectory evidence", eq. 2); None: not declared
    applicability: Formula | None = None
    span: Span = field(default=NO_SPAN, compare=False, repr=False)

    def __post_init__(self) -> None:
        if not 0 < self.weight <= MAX_WEIGHT:  # also false for NaN
            raise ValueError(f"the weight of rule `{self.name}` is {self.weight!r}; "
                             f"a weight is a number greater than 0 and at most {MAX_WEIGHT:g}")


@dataclass(frozen=True, slots=True)
class ExternPredicate:
    name: str
    params: tuple[tuple[str, Type], ...]
    binding: str | None  # "module:function"


@dataclass(frozen=True, slots=True)
class Policy:
    name: str
    description: str | None
    tools: dict[str, ToolSignature]
    rules: tuple[Rule, ...]
    layers: dict[str, str] = field(default_factory=dict)
    externs: dict[str, ExternPredicate] = field(default_factory=dict)
    budget: int | None = None
    conformance: Severity = field(default_factory=Severity)
    sources: tuple[str, ...] = ()  # files the policy was built from, root first
    observes: frozenset[str] = frozenset()  # event classes read besides the agent's calls
    grounding: str = "code"  # the built-in entity extractor of `entities` and `outputs`
    #: the severities whose rules refuse a call when its joint question was not decided
    #: (`undecided refuse for ...`); the others allow it and say so
    undecided: frozenset[str] = frozenset(("deny",))
    #: whether conformance grounds a proposed call's argument values in the request and the
    #: results (`conformance SEVERITY`), or checks the signatures alone (`... signatures only`)
    ground_arguments: bool = True

    def rule(self, name: str) -> Rule:
        for r in self.rules:
            if r.name == name:
                return r
        raise KeyError(name)

    @property
    def total_weight(self) -> float:
        return sum(r.weight for r in self.rules)

    def view(self, trace: T) -> T:
        """The trace as this policy reads it: the agent's calls, plus the events it observes."""
        return trace.observed(self.observes)

    @property
    def terminal_tools(self) -> frozenset[str]:
        return frozenset(name for name, sig in self.tools.items() if sig.terminal)
