"""What an expression elaborates to, and the scope it is elaborated in."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Callable, Mapping, Union

from policyc.check.modules import ModuleInstance
from policyc.diagnostics import Span
from policyc.ir.nodes import Formula, Term
from policyc.ir.types import ToolSignature, Type


@dataclass(frozen=True, slots=True)
class FVal:
    """A formula."""

    formula: Formula
    span: Span


@dataclass(frozen=True, slots=True)
class TVal:
    """A data term and its type."""

    term: Term
    type: Type
    span: Span


@dataclass(frozen=True, slots=True)
class ToolVal:
    """An event pattern: a tool and the conditions its calls must meet.

    `arg_name` maps an argument name as written where the pattern appears to its final name
    (they differ inside a module imported with a rename map)."""

    sig: ToolSignature
    guards: tuple[Term, ...]
    span: Span
    arg_name: Callable[[str], str] = field(default=lambda a: a, compare=False)

    @property
    def tool(self) -> str:
        return self.sig.name


@dataclass(frozen=True, slots=True)
class ListVal:
    """A list of formulas or patterns known when the policy is compiled (`in_order([a, b])`)."""

    items: tuple["Value", ...]
    span: Span


@dataclass(frozen=True, slots=True)
class EnumVal:
    """An enum type's name, so that `Status.shipped` names a member."""

    type: Type
    span: Span


Value = Union[FVal, TVal, ToolVal, ListVal, EnumVal]


@dataclass
class VarInfo:
    """A data variable in scope.

    `infer` is set for variables whose domain is the values their event patterns bind
    (`forall x:` without `in`, and variables first bound in a pattern); `sites` collects
    those (tool, path, flatten) bindings."""

    name: str  # as written
    ir_name: str  # as in the IR (differs when a macro body renames it apart)
    type: Type | None
    span: Span
    infer: bool = False
    sites: list[tuple[str, tuple, bool]] = field(default_factory=list)
    uses: int = 0
    implicit: bool = False


@dataclass(frozen=True)
class Scope:
    instance: ModuleInstance
    vars: Mapping[str, VarInfo] = field(default_factory=dict)
    params: Mapping[str, Value] = field(default_factory=dict)
    pattern: ToolVal | None = None  # inside the conditions of this pattern
    depth: int = 0
    frame: str | None = None  # the macro or procedure being expanded, for messages

    def with_var(self, info: VarInfo) -> "Scope":
        return replace(self, vars={**self.vars, info.name: info})

    def in_pattern(self, pattern: ToolVal | None) -> "Scope":
        return replace(self, pattern=pattern)


def describe(v: Value) -> str:
    """How a value is named in messages: "a formula", "the tool `search`", ..."""
    if isinstance(v, FVal):
        return "a formula"
    if isinstance(v, ToolVal):
        return f"the tool `{v.tool}`"
    if isinstance(v, ListVal):
        return "a list of formulas"
    if isinstance(v, EnumVal):
        return f"the enum type `{v.type}`"
    return f"a value of type `{v.type}`"
