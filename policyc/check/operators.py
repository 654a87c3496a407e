"""Comparisons, arithmetic, connectives and list literals: type checks and their messages.

The elaboration of `== < in`, `+ - * / %`, `and or -> <->` and `[...]`: each function takes
the `Elaborator` whose state and diagnostics it uses, the node and its scope.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from policyc.check.compare import check_compatible
from policyc.check.macros import CMP_OPS, counting_sugar
from policyc.check.provenance import from_source, null_comparison
from policyc.check.scope import FVal, ListVal, Scope, TVal, Value
from policyc.diagnostics import Label
from policyc.ir import build as b
from policyc.ir import nodes as n
from policyc.ir import types as t
from policyc.ir.ops import ARITH_BY_SYMBOL, COMPARE_BY_SYMBOL
from policyc.syntax import ast

if TYPE_CHECKING:
    from policyc.check.elaborate import Elaborator

_CONNECTIVES: dict[str, Callable[[n.Formula, n.Formula], n.Formula]] = {
    "and": b.conj, "or": b.disj, "implies": b.implies, "iff": b.iff}


def comparison(el: Elaborator, e: ast.Comparison, scope: Scope) -> Value | None:
    if e.op in ("from", "only from", "not from"):
        return from_source(el, e, scope)
    if e.op in CMP_OPS and isinstance(e.left, ast.Call):
        sugar = counting_sugar(el, e, scope)
        if sugar is not False:
            return sugar
    left, right = el.term(e.left, scope), el.term(e.right, scope)
    if left is None or right is None:
        return None
    if e.op in ("in", "not in"):
        if not t.is_collection(right.type):
            el.error("E0208", f"`{e.op}` needs a list, object or string on its right, found `{right.type}`",
                     e.right.span, scope=scope)
            return None
        element = TVal(right.term, t.element_type(right.type), right.span)
        if not check_compatible(el, left, element, e, scope,
                                message=f"cannot look for `{left.type}` in `{right.type}`",
                                labels=(Label(left.span, f"this is `{left.type}`"),
                                        Label(right.span, f"this is `{right.type}`"))):
            return None
        term = b.op("in", left.term, right.term)
        return TVal(term if e.op == "in" else b.op("not", term), t.BOOL, e.span)
    if not check_compatible(el, left, right, e, scope):
        return None
    if e.op == "==":
        null_comparison(el, e, left, right, scope)
    if e.op == "==" and scope.pattern is not None:
        bind_call_path(el, e, left, right, scope)
    if e.op not in ("==", "!="):
        for side in (left, right):
            st = t.strip_optional(side.type)
            if not (t.is_numeric(st) or st in (t.STR, t.ANY) or isinstance(st, t.EnumT)):
                el.error("E0208", f"`{e.op}` compares numbers or strings, not `{side.type}`", side.span,
                         scope=scope)
                return None
    return TVal(b.op(COMPARE_BY_SYMBOL[e.op], left.term, right.term), t.BOOL, e.span)


def bind_call_path(el: Elaborator, e: ast.Comparison, left: TVal, right: TVal, scope: Scope) -> None:
    """`result.total == m` inside a pattern: the values of that path are binding sites of an
    implicit (or domain-less) variable m, as an argument `tool(amount: m)` is."""
    for name, this, other in ((e.left, left, right), (e.right, right, left)):
        info = scope.vars.get(name.id) if isinstance(name, ast.Name) else None
        if info is None and isinstance(this.term, n.Var):
            info = el.inferring.get(this.term.name)  # through a macro's parameter
        path = _call_path(other.term)
        if info is None or not info.infer or path is None:
            continue
        info.sites.append((scope.pattern.tool, path, False))  # type: ignore[union-attr]
        if info.type is None and t.strip_optional(other.type) is not t.ANY:
            info.type = t.strip_optional(other.type)


def arithmetic(el: Elaborator, e: ast.Arithmetic, scope: Scope) -> Value | None:
    left, right = el.term(e.left, scope), el.term(e.right, scope)
    if left is None or right is None:
        return None
    lt, rt = t.strip_optional(left.type), t.strip_optional(right.type)
    if t.is_numeric(lt) and t.is_numeric(rt):
        if e.op == "/" or t.FLOAT in (lt, rt):
            ty: t.Type = t.FLOAT if t.ANY not in (lt, rt) else t.ANY
        else:
            ty = t.INT if t.ANY not in (lt, rt) else t.ANY
    elif e.op == "+" and lt == rt and (lt is t.STR or isinstance(lt, t.ListT)):
        ty = lt
    else:
        el.error("E0208", f"`{e.op}` cannot combine `{left.type}` and `{right.type}`", e.span,
                 labels=(Label(left.span, f"`{left.type}`"), Label(right.span, f"`{right.type}`")),
                 scope=scope, fields={"left": str(left.type), "right": str(right.type)})
        return None
    return TVal(b.op(ARITH_BY_SYMBOL[e.op], left.term, right.term), ty, e.span)


def logic(el: Elaborator, e: ast.Logic, scope: Scope) -> Value | None:
    left, right = el.elab(e.left, scope), el.elab(e.right, scope)
    if left is None or right is None:
        return None
    if isinstance(left, TVal) and isinstance(right, TVal):
        lt, rt = el.as_term(left, e.left.span, scope), el.as_term(right, e.right.span, scope)
        for side in (left, right):
            if t.strip_optional(side.type) not in (t.BOOL, t.ANY):
                el.error("E0208", f"`{e.op}` combines conditions, not values of type `{side.type}`",
                         side.span, scope=scope)
                return None
        a, c = lt.term, rt.term  # type: ignore[union-attr]
        if e.op == "and":
            term = b.op("and", a, c)
        elif e.op == "or":
            term = b.op("or", a, c)
        elif e.op == "implies":
            term = b.op("or", b.op("not", a), c)
        else:
            term = b.op("or", b.op("and", a, c), b.op("and", b.op("not", a), b.op("not", c)))
        return TVal(term, t.BOOL, e.span)
    lf, rf = el.as_formula(left, e.left.span, scope), el.as_formula(right, e.right.span, scope)
    if lf is None or rf is None:
        return None
    combine: Callable[[n.Formula, n.Formula], n.Formula] = _CONNECTIVES[e.op]
    return FVal(combine(lf, rf), e.span)


def list_literal(el: Elaborator, e: ast.ListLit, scope: Scope) -> Value | None:
    items = [el.elab(i, scope) for i in e.items]
    if any(v is None for v in items):
        return None
    if not items:
        return TVal(b.lit([]), t.ListT(t.ANY), e.span)
    if all(isinstance(v, TVal) for v in items):
        elem = items[0].type  # type: ignore[union-attr]
        for v in items[1:]:
            elem = t.join(elem, v.type)  # type: ignore[union-attr]
        return TVal(b.op("list", *(v.term for v in items)), t.ListT(elem), e.span)  # type: ignore[union-attr]
    return ListVal(tuple(items), e.span)  # type: ignore[arg-type]


def _call_path(term: n.Term) -> tuple | None:
    """The path of a term into the current call (`("result", "total")`, `("amount",)`), if it is one."""
    steps: list = []
    while isinstance(term, (n.Field, n.Index)):
        if isinstance(term, n.Field):
            steps.append(term.name)
        elif isinstance(term.index, n.Lit) and isinstance(term.index.value, int) and term.index.value >= 0:
            steps.append(term.index.value)
        else:
            return None
        term = term.base
    if isinstance(term, n.Result):
        return ("result",) + tuple(reversed(steps))
    if isinstance(term, n.Arg):
        return (term.name,) + tuple(reversed(steps))
    return None
