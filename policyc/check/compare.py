"""Whether two typed values may be compared, and what to say when they may not (E0208)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from policyc.check.scope import Scope, TVal
from policyc.check.suggest import did_you_mean, unknown_fields
from policyc.diagnostics import Label
from policyc.ir import nodes as n
from policyc.ir import types as t
from policyc.syntax import ast

if TYPE_CHECKING:
    from policyc.check.elaborate import Elaborator


def check_compatible(el: Elaborator, left: TVal, right: TVal, e: ast.Expr | ast.KeywordArg, scope: Scope,
                     expected: str | None = None, message: str | None = None, labels: tuple[Label, ...] | None = None) -> bool:
    """Whether `left` and `right` may be compared; else E0208. `expected` names what `left`
    is ("argument `x` of `a`") when `right` is a value given for it."""
    for enum_side, other in ((left, right), (right, left)):
        et = t.strip_optional(enum_side.type)
        if isinstance(et, t.EnumT) and isinstance(other.term, n.Lit) and isinstance(other.term.value, str):
            if other.term.value not in et.members:
                el.error("E0208", f"\"{other.term.value}\" is not a member of `{et.name}`", other.span,
                         help=did_you_mean(other.term.value, et.members, "member")
                         or "the members are " + ", ".join(f"`{m}`" for m in et.members), scope=scope,
                         fields={**unknown_fields(other.term.value, et.members), "expected": str(et)})
                return False
            return True
    if t.compatible(left.type, right.type):
        return True
    if expected is not None:
        el.error("E0208", f"{expected} is `{left.type}`, but the value given is `{right.type}`", right.span,
                 help=_mismatch_hint(left, right), scope=scope,
                 fields={"expected": str(left.type), "found": str(right.type)})
        return False
    el.error("E0208", message or f"cannot compare `{left.type}` with `{right.type}`", e.span,
             labels=labels or (Label(left.span, f"this is `{left.type}`"),
                               Label(right.span, f"this is `{right.type}`")),
             help=_mismatch_hint(left, right), scope=scope, fields={"left": str(left.type), "right": str(right.type)})
    return False


def _mismatch_hint(left: TVal, right: TVal) -> str | None:
    lt, rt = t.strip_optional(left.type), t.strip_optional(right.type)
    if {lt, rt} == {t.STR, t.INT} or {lt, rt} == {t.STR, t.FLOAT}:
        lit = right.term if isinstance(right.term, n.Lit) else left.term if isinstance(left.term, n.Lit) else None
        if lit is not None and isinstance(lit.value, (int, float)):
            return f"write the number as a string: \"{lit.value}\""
        if lit is not None and isinstance(lit.value, str) and _is_number(lit.value):
            return f"write the number without quotes: {lit.value.strip()}"
    return None


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True
