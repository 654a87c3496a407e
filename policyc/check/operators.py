"""Comparisons, arithmetic, connectives and list literals: type checks and their messages."""

from __future__ import annotations

from policyc.check.macros import CMP_OPS
from policyc.check.scope import FVal, ListVal, Scope, TVal, Value
from policyc.check.suggest import did_you_mean
from policyc.diagnostics import Label
from policyc.ir import build as b
from policyc.ir import nodes as n
from policyc.ir import types as t
from policyc.ir.ops import ARITH_BY_SYMBOL, COMPARE_BY_SYMBOL
from policyc.syntax import ast


class OperatorsMixin:
    """Elaborator methods for `== < in`, `+ - * / %`, `and or -> <->` and `[...]`."""

    # ------------------------------------------------------------ operators

    def comparison(self, e: ast.Comparison, scope: Scope) -> Value | None:
        if e.op in ("from", "only from", "not from"):
            return self.provenance(e, scope)
        if e.op in CMP_OPS and isinstance(e.left, ast.Call):
            sugar = self.counting_sugar(e, scope)
            if sugar is not False:
                return sugar  # type: ignore[return-value]
        left, right = self.term(e.left, scope), self.term(e.right, scope)
        if left is None or right is None:
            return None
        if e.op in ("in", "not in"):
            if not t.is_collection(right.type):
                self.error("E0208", f"`{e.op}` needs a list, object or string on its right, found `{right.type}`",
                           e.right.span, scope=scope)
                return None
            element = TVal(right.term, t.element_type(right.type), right.span)
            if not self.check_compatible(left, element, e, scope,
                                         message=f"cannot look for `{left.type}` in `{right.type}`",
                                         labels=(Label(left.span, f"this is `{left.type}`"),
                                                 Label(right.span, f"this is `{right.type}`"))):
                return None
            term = b.op("in", left.term, right.term)
            return TVal(term if e.op == "in" else b.op("not", term), t.BOOL, e.span)
        if not self.check_compatible(left, right, e, scope):
            return None
        if e.op == "==":
            self.null_comparison(e, left, right, scope)
        if e.op == "==" and scope.pattern is not None:
            self.bind_call_path(e, left, right, scope)
        if e.op not in ("==", "!="):
            for side in (left, right):
                st = t.strip_optional(side.type)
                if not (t.is_numeric(st) or st in (t.STR, t.ANY) or isinstance(st, t.EnumT)):
                    self.error("E0208", f"`{e.op}` compares numbers or strings, not `{side.type}`", side.span,
                               scope=scope)
                    return None
        return TVal(b.op(COMPARE_BY_SYMBOL[e.op], left.term, right.term), t.BOOL, e.span)

    def bind_call_path(self, e: ast.Comparison, left: TVal, right: TVal, scope: Scope) -> None:
        """`result.total == m` inside a pattern: the values of that path are binding sites of an
        implicit (or domain-less) variable m, as an argument `tool(amount: m)` is."""
        for name, this, other in ((e.left, left, right), (e.right, right, left)):
            info = scope.vars.get(name.id) if isinstance(name, ast.Name) else None
            if info is None and isinstance(this.term, n.Var):
                info = self.inferring.get(this.term.name)  # through a macro's parameter
            path = _call_path(other.term)
            if info is None or not info.infer or path is None:
                continue
            info.sites.append((scope.pattern.tool, path, False))  # type: ignore[union-attr]
            if info.type is None and t.strip_optional(other.type) is not t.ANY:
                info.type = t.strip_optional(other.type)

    def check_compatible(self, left: TVal, right: TVal, e: ast.Expr, scope: Scope, expected: str | None = None,
                         message: str | None = None, labels: tuple[Label, ...] | None = None) -> bool:
        """Whether `left` and `right` may be compared; else E0208. `expected` names what `left`
        is ("argument `x` of `a`") when `right` is a value given for it."""
        for enum_side, other in ((left, right), (right, left)):
            et = t.strip_optional(enum_side.type)
            if isinstance(et, t.EnumT) and isinstance(other.term, n.Lit) and isinstance(other.term.value, str):
                if other.term.value not in et.members:
                    self.error("E0208", f"\"{other.term.value}\" is not a member of `{et.name}`", other.span,
                               help=did_you_mean(other.term.value, et.members, "member")
                               or "the members are " + ", ".join(f"`{m}`" for m in et.members), scope=scope)
                    return False
                return True
        if t.compatible(left.type, right.type):
            return True
        if expected is not None:
            self.error("E0208", f"{expected} is `{left.type}`, but the value given is `{right.type}`", right.span,
                       help=self._mismatch_hint(left, right), scope=scope)
            return False
        self.error("E0208", message or f"cannot compare `{left.type}` with `{right.type}`", e.span,
                   labels=labels or (Label(left.span, f"this is `{left.type}`"),
                                     Label(right.span, f"this is `{right.type}`")),
                   help=self._mismatch_hint(left, right), scope=scope)
        return False

    @staticmethod
    def _mismatch_hint(left: TVal, right: TVal) -> str | None:
        lt, rt = t.strip_optional(left.type), t.strip_optional(right.type)
        if {lt, rt} == {t.STR, t.INT} or {lt, rt} == {t.STR, t.FLOAT}:
            lit = right if isinstance(right.term, n.Lit) else left if isinstance(left.term, n.Lit) else None
            if lit is not None and isinstance(lit.term.value, (int, float)):
                return f"write the number as a string: \"{lit.term.value}\""
            if lit is not None and isinstance(lit.term.value, str) and _is_number(lit.term.value):
                return f"write the number without quotes: {lit.term.value.strip()}"
        return None

    def arithmetic(self, e: ast.Arithmetic, scope: Scope) -> Value | None:
        left, right = self.term(e.left, scope), self.term(e.right, scope)
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
            self.error("E0208", f"`{e.op}` cannot combine `{left.type}` and `{right.type}`", e.span,
                       labels=(Label(left.span, f"`{left.type}`"), Label(right.span, f"`{right.type}`")),
                       scope=scope)
            return None
        return TVal(b.op(ARITH_BY_SYMBOL[e.op], left.term, right.term), ty, e.span)

    def logic(self, e: ast.Logic, scope: Scope) -> Value | None:
        left, right = self.elab(e.left, scope), self.elab(e.right, scope)
        if left is None or right is None:
            return None
        if isinstance(left, TVal) and isinstance(right, TVal):
            lt, rt = self.as_term(left, e.left.span, scope), self.as_term(right, e.right.span, scope)
            for side in (left, right):
                if t.strip_optional(side.type) not in (t.BOOL, t.ANY):
                    self.error("E0208", f"`{e.op}` combines conditions, not values of type `{side.type}`",
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
        lf, rf = self.as_formula(left, e.left.span, scope), self.as_formula(right, e.right.span, scope)
        if lf is None or rf is None:
            return None
        combine = {"and": b.conj, "or": b.disj, "implies": b.implies, "iff": b.iff}[e.op]
        return FVal(combine(lf, rf), e.span)

    def list_literal(self, e: ast.ListLit, scope: Scope) -> Value | None:
        items = [self.elab(i, scope) for i in e.items]
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



def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


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
