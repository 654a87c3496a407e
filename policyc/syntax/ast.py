"""The AgentLTL abstract syntax tree.

Nodes are immutable and slotted; their names match the aliases of grammar/agentltl.lark.
Every node carries a `span` that is left out of equality and hashing, so two parses of
equivalent text compare equal (the formatter's round-trip property relies on it).
Operators are stored normalised (`"until"` whether the source said `U` or `until`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Union

from policyc.diagnostics import NO_SPAN, Span


def _span() -> Span:
    return field(default=NO_SPAN, compare=False, repr=False)


# ------------------------------------------------------------------ types


@dataclass(frozen=True, slots=True)
class TypeName:
    """`int`, `str`, `list[T]`, `dict[str, T]`, a record or enum name, or a kind such as `event`."""

    name: str
    args: tuple["TypeExpr", ...] = ()
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class OptionalType:
    """`T?`: the value may be absent or null."""

    inner: "TypeExpr"
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class RecordType:
    """An anonymous record: `{ refund_id: str, amount: float }`."""

    fields: tuple["FieldDecl", ...]
    span: Span = _span()


TypeExpr = Union[TypeName, OptionalType, RecordType]


# ------------------------------------------------------------------ expressions


@dataclass(frozen=True, slots=True)
class Literal:
    """A constant; `kind` is one of int, float, str, bool, null (so `1 != true`)."""

    value: int | float | str | bool | None
    kind: str
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Name:
    id: str
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class KeywordArg:
    """`name: value` inside a call: an argument condition or binding of an event pattern."""

    name: str
    value: "Expr"
    span: Span = _span()
    name_span: Span = _span()


@dataclass(frozen=True, slots=True)
class Call:
    """`f(args)`: an event pattern, a predicate or macro application, or a builtin."""

    func: str
    args: tuple["Expr | KeywordArg", ...]
    span: Span = _span()
    func_span: Span = _span()

    def positional(self) -> tuple["Expr", ...] | None:
        """The arguments, when none is given by name (`f(a, b)`, not `f(a, x: b)`)."""
        if any(isinstance(a, KeywordArg) for a in self.args):
            return None
        return self.args  # type: ignore[return-value]  # no KeywordArg, as just checked


@dataclass(frozen=True, slots=True)
class ListLit:
    items: tuple["Expr", ...]
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class DictLit:
    entries: tuple[tuple[str, "Expr"], ...]
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class FieldAccess:
    target: "Expr"
    name: str
    span: Span = _span()
    name_span: Span = _span()


@dataclass(frozen=True, slots=True)
class Index:
    target: "Expr"
    index: "Expr"
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Slice:
    target: "Expr"
    start: "Expr | None"
    stop: "Expr | None"
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Spread:
    """`list[*]`: every element of a list, so that `result[*].recipient` is the recipients of
    every row of a result."""

    target: "Expr"
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Negative:
    operand: "Expr"
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Arithmetic:
    """`+ - * / %`."""

    op: str
    left: "Expr"
    right: "Expr"
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Comparison:
    """`== != < <= > >= in` and `not in`; `from`, `only from` and `not from`, whose right
    operand names sources (`request`, `trusted`, a tool, `tool.result.field`)."""

    op: str
    left: "Expr"
    right: "Expr"
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Not:
    operand: "Expr"
    span: Span = _span()


UNARY_TEMPORAL_OPS = (
    "next",
    "weak_next",
    "eventually",
    "always",
    "yesterday",
    "weak_yesterday",
    "once",
    "historically",
)
BINARY_TEMPORAL_OPS = ("until", "weak_until", "release", "since")
LOGIC_OPS = ("and", "or", "implies", "iff")


@dataclass(frozen=True, slots=True)
class UnaryTemporal:
    """One of UNARY_TEMPORAL_OPS applied to a formula."""

    op: str
    operand: "Expr"
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class BinaryTemporal:
    """One of BINARY_TEMPORAL_OPS."""

    op: str
    left: "Expr"
    right: "Expr"
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Logic:
    """`and`, `or`, `implies` (->) and `iff` (<->)."""

    op: str
    left: "Expr"
    right: "Expr"
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Quantifier:
    """`forall x in D: body`, `exists x in D: body`; without `in D` the variable ranges
    over the values its event patterns bind in the trace."""

    kind: str
    var: str
    domain: "Expr | None"
    body: "Expr"
    span: Span = _span()
    var_span: Span = _span()


@dataclass(frozen=True, slots=True)
class Conditional:
    """`if c then a else b`: folded when `c` is a constant, otherwise (c -> a) and (!c -> b)."""

    cond: "Expr"
    then: "Expr"
    orelse: "Expr"
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class WhenShall:
    """`when applies shall obliges`: the rule `always (applies -> obliges)`, which applies to
    a run when `applies` holds somewhere in it (a rule's body, under its `forall`s only)."""

    applies: "Expr"
    obliges: "Expr"
    span: Span = _span()


Expr = Union[
    Literal,
    Name,
    Call,
    ListLit,
    DictLit,
    FieldAccess,
    Index,
    Slice,
    Spread,
    Negative,
    Arithmetic,
    Comparison,
    Not,
    UnaryTemporal,
    BinaryTemporal,
    Logic,
    Quantifier,
    Conditional,
    WhenShall,
]


# ------------------------------------------------------------------ declarations


@dataclass(frozen=True, slots=True)
class PolicyDecl:
    name: str
    description: str | None
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class ArgRename:
    old: str
    new: str
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class ToolRename:
    old: str
    new: str
    args: tuple[ArgRename, ...]
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class ImportDecl:
    """`import "file.altl"` or `import declare` (a stdlib module), optionally renamed."""

    target: str
    is_file: bool
    renames: tuple[ToolRename, ...]
    span: Span = _span()
    target_span: Span = _span()


@dataclass(frozen=True, slots=True)
class FieldDecl:
    """A record field; `trust` is "trusted", "untrusted" or None (as the tool says)."""

    name: str
    type: TypeExpr
    trust: str | None = None
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class TypeDecl:
    """A named record type."""

    name: str
    fields: tuple[FieldDecl, ...]
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class EnumDecl:
    name: str
    members: tuple[str, ...]
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class LayerDecl:
    name: str
    description: str | None
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Param:
    name: str
    type: TypeExpr
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class ToolDecl:
    """A tool; `trust` is "trusted", "untrusted" or None (untrusted, the default)."""

    name: str
    params: tuple[Param, ...]
    result: TypeExpr | None
    terminal: bool
    trust: str | None = None
    span: Span = _span()
    name_span: Span = _span()


@dataclass(frozen=True, slots=True)
class AliasDecl:
    """`tool new = old { arg -> renamed }`: the same signature under other names."""

    name: str
    target: str
    renames: tuple[ArgRename, ...]
    terminal: bool
    trust: str | None = None
    span: Span = _span()
    name_span: Span = _span()


@dataclass(frozen=True, slots=True)
class PredicateDecl:
    """A pure predicate over data, visible to the solver."""

    name: str
    params: tuple[Param, ...]
    body: Expr
    span: Span = _span()
    name_span: Span = _span()


@dataclass(frozen=True, slots=True)
class ExternDecl:
    """A predicate implemented in Python (`from "module:function"`), opaque to the solver."""

    name: str
    params: tuple[Param, ...]
    binding: str | None
    span: Span = _span()
    name_span: Span = _span()


@dataclass(frozen=True, slots=True)
class DefDecl:
    """A formula macro, expanded where it is applied (the stdlib is written with these)."""

    name: str
    params: tuple[Param, ...]
    body: Expr
    span: Span = _span()
    name_span: Span = _span()


@dataclass(frozen=True, slots=True)
class SeverityExpr:
    name: str
    arg: int | None
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class MetaLayer:
    name: str
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class MetaWeight:
    value: float
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class MetaSeverity:
    severity: SeverityExpr
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class MetaMessage:
    text: str
    span: Span = _span()


RuleMeta = Union[MetaLayer, MetaWeight, MetaSeverity, MetaMessage]


@dataclass(frozen=True, slots=True)
class RuleDecl:
    name: str
    description: str | None
    meta: tuple[RuleMeta, ...]
    body: Expr
    span: Span = _span()
    name_span: Span = _span()


@dataclass(frozen=True, slots=True)
class ProcedureDecl:
    """Rules parameterised by tools (or any macro parameter), instantiated by `use`."""

    name: str
    params: tuple[Param, ...]
    rules: tuple[RuleDecl, ...]
    span: Span = _span()
    name_span: Span = _span()


@dataclass(frozen=True, slots=True)
class UseDecl:
    """`use proc(args) as prefix`: the procedure's rules, named `prefix.rule`."""

    name: str
    args: tuple["Expr | KeywordArg", ...]
    alias: str | None
    span: Span = _span()
    name_span: Span = _span()


@dataclass(frozen=True, slots=True)
class BudgetDecl:
    """The number of calls a run may make (the paper's 10d+10)."""

    value: int
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class ConformanceDecl:
    """The severity of signature-conformance findings on proposed calls, and what they check:
    `scope` None (signatures and the grounding of argument values) or `signatures` (written
    `signatures only`: the signatures alone)."""

    severity: SeverityExpr
    scope: str | None = None
    span: Span = _span()
    scope_span: Span = _span()


@dataclass(frozen=True, slots=True)
class UndecidedDecl:
    """`undecided refuse [for SEVERITY, ...]` or `undecided allow`: what the gate does with a
    call whose joint question it could not decide, per severity of the rules concerned."""

    action: str
    severities: tuple[str, ...] = ()
    span: Span = _span()
    action_span: Span = _span()
    severity_spans: tuple[Span, ...] = field(default=(), compare=False)


@dataclass(frozen=True, slots=True)
class ObserveDecl:
    """`observe messages, user_calls`: event classes the policy reads besides the agent's calls."""

    names: tuple[str, ...]
    span: Span = _span()
    name_spans: tuple[Span, ...] = field(default=(), compare=False)


@dataclass(frozen=True, slots=True)
class GroundingDecl:
    """`grounding prose`: the built-in extractor `entities(...)` and `outputs` use."""

    name: str
    span: Span = _span()
    name_span: Span = _span()


@dataclass(frozen=True, slots=True)
class ClaimsDecl:
    """`claims "refund", "refunded" by issue_refund`: phrases that claim a tool's action."""

    phrases: tuple[str, ...]
    tool: str
    span: Span = _span()
    phrase_spans: tuple[Span, ...] = field(default=(), compare=False)
    tool_span: Span = _span()


Decl = Union[
    PolicyDecl,
    ImportDecl,
    TypeDecl,
    EnumDecl,
    LayerDecl,
    ToolDecl,
    AliasDecl,
    PredicateDecl,
    ExternDecl,
    DefDecl,
    ProcedureDecl,
    UseDecl,
    RuleDecl,
    BudgetDecl,
    ConformanceDecl,
    UndecidedDecl,
    ObserveDecl,
    GroundingDecl,
    ClaimsDecl,
]


@dataclass(frozen=True, slots=True)
class Module:
    path: str
    items: tuple[Decl, ...]
    comments: tuple[tuple[int, str], ...] = field(default=(), compare=False, repr=False)
    span: Span = _span()
