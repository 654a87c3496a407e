"""Expressions -> typed core IR, with name resolution, type checking and macro expansion.

`Elaborator.formula(expr, scope)` resolves every name, checks types, expands `def` macros
and pure predicates in place (the standard library is such macros), and returns a core IR
formula. Problems are appended to `diagnostics` and elaboration continues, so one pass
reports everything; a sub-expression that failed yields None and stays silent upstream.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Iterable

from policyc.check.modules import stdlib_definitions
from policyc.check.scope import EnumVal, FVal, ListVal, Scope, ToolVal, TVal, Value, VarInfo
from policyc.check.suggest import closest, did_you_mean
from policyc.check.symbols import BUILTIN_FUNCTIONS, Symbols
from policyc.check.typing import Kind, TypeResolver
from policyc.diagnostics import Diagnostic, Label, Severity, Span
from policyc.ir import build as b
from policyc.ir import nodes as n
from policyc.ir import types as t
from policyc.ir.ops import ARITH_BY_SYMBOL, COMPARE_BY_SYMBOL
from policyc.ir.walk import free_vars
from policyc.syntax import ast

MAX_EXPANSION_DEPTH = 200
CMP_OPS = ("==", "!=", "<", "<=", ">", ">=")
_UNARY = {
    "next": b.next_, "weak_next": b.wnext, "eventually": b.eventually, "always": b.always,
    "yesterday": b.yesterday, "weak_yesterday": b.wyesterday, "once": b.once, "historically": b.historically,
}
_BINARY = {"until": b.until, "weak_until": b.weak_until, "release": b.release, "since": b.since}
_LIT_TYPES = {"int": t.INT, "float": t.FLOAT, "str": t.STR, "bool": t.BOOL, "null": t.NULL}


class ExpansionTooDeep(Exception):
    pass


def _describe(v: Value) -> str:
    if isinstance(v, FVal):
        return "a formula"
    if isinstance(v, ToolVal):
        return f"the tool `{v.tool}`"
    if isinstance(v, ListVal):
        return "a list of formulas"
    if isinstance(v, EnumVal):
        return f"the enum type `{v.type}`"
    return f"a value of type `{v.type}`"


def _mentions_call(term: n.Term) -> bool:
    stack = [term]
    while stack:
        cur = stack.pop()
        if isinstance(cur, (n.Arg, n.Result)):
            return True
        stack.extend(cur.children)
    return False


class Elaborator:
    def __init__(self, syms: Symbols, sigs: dict[str, t.ToolSignature], resolver: TypeResolver,
                 diagnostics: list[Diagnostic]):
        self.syms = syms
        self.sigs = sigs
        self.types = resolver
        self.diags = diagnostics
        self._fresh = 0
        self._expansions: dict = {}

    # ------------------------------------------------------------ reporting

    def error(self, code: str, message: str, span: Span, help: str | None = None,
              labels: Iterable[Label] = (), scope: Scope | None = None) -> None:
        notes: tuple[str, ...] = ()
        if scope is not None and scope.frame:
            notes = (f"in the expansion of {scope.frame}",)
        self.diags.append(Diagnostic(code, message, span, help=help, labels=tuple(labels), notes=notes))

    def warn(self, code: str, message: str, span: Span, help: str | None = None) -> None:
        self.diags.append(Diagnostic(code, message, span, help=help, severity=Severity.WARNING))

    # ------------------------------------------------------------ coercions

    def as_formula(self, v: Value | None, span: Span, scope: Scope) -> n.Formula | None:
        if v is None:
            return None
        if isinstance(v, FVal):
            return v.formula
        if isinstance(v, ToolVal):
            return b.event(v.tool, b.op("and", *v.guards) if v.guards else b.LIT_TRUE)
        if isinstance(v, TVal):
            if v.type in (t.BOOL, t.ANY) or isinstance(v.type, t.OptionalT) and v.type.inner is t.BOOL:
                return b.cond(v.term)
            self.error("E0220", f"expected a formula, found {_describe(v)}", span,
                       help="compare it with something to make a condition, e.g. `x > 0`", scope=scope)
            return None
        self.error("E0220", f"expected a formula, found {_describe(v)}", span, scope=scope)
        return None

    def as_term(self, v: Value | None, span: Span, scope: Scope) -> TVal | None:
        if v is None:
            return None
        if isinstance(v, TVal):
            return v
        if isinstance(v, FVal):
            if isinstance(v.formula, n.Cond):
                return TVal(v.formula.term, t.BOOL, v.span)
            if isinstance(v.formula, n.Const):
                return TVal(b.lit(v.formula.value), t.BOOL, v.span)
            self.error("E0220", "a temporal formula cannot be used as a value", span,
                       help="formulas hold or not at a position; compare data values instead", scope=scope)
            return None
        if isinstance(v, ToolVal):
            params = ", ".join(f"`{v.tool}.{p.name}`" for p in v.sig.params[:3]) or f"`{v.tool}.result`"
            self.error("E0220", f"the tool `{v.tool}` is not a value", span,
                       help=f"to use what its calls carried, write e.g. {params}", scope=scope)
            return None
        self.error("E0220", f"expected a value, found {_describe(v)}", span, scope=scope)
        return None

    def formula(self, e: ast.Expr, scope: Scope) -> n.Formula | None:
        return self.as_formula(self.elab(e, scope), e.span, scope)

    def term(self, e: ast.Expr, scope: Scope) -> TVal | None:
        return self.as_term(self.elab(e, scope), e.span, scope)

    # ------------------------------------------------------------ dispatch

    def elab(self, e: ast.Expr, scope: Scope) -> Value | None:  # noqa: C901 - one case per node
        if isinstance(e, ast.Literal):
            return TVal(b.lit(e.value), _LIT_TYPES[e.kind], e.span)
        if isinstance(e, ast.Name):
            return self.name(e, scope)
        if isinstance(e, ast.Call):
            return self.call(e, scope)
        if isinstance(e, ast.FieldAccess):
            return self.field_access(e, scope)
        if isinstance(e, ast.Comparison):
            return self.comparison(e, scope)
        if isinstance(e, ast.Logic):
            return self.logic(e, scope)
        if isinstance(e, ast.Not):
            v = self.elab(e.operand, scope)
            if isinstance(v, TVal):
                return TVal(b.op("not", v.term), t.BOOL, e.span)
            f = self.as_formula(v, e.operand.span, scope)
            return FVal(b.neg(f), e.span) if f is not None else None
        if isinstance(e, ast.UnaryTemporal):
            f = self.formula(e.operand, scope)
            return FVal(_UNARY[e.op](f), e.span) if f is not None else None
        if isinstance(e, ast.BinaryTemporal):
            left, right = self.formula(e.left, scope), self.formula(e.right, scope)
            if left is None or right is None:
                return None
            return FVal(_BINARY[e.op](left, right), e.span)
        if isinstance(e, ast.Quantifier):
            return self.quantifier(e, scope)
        if isinstance(e, ast.Conditional):
            return self.conditional(e, scope)
        if isinstance(e, ast.Arithmetic):
            return self.arithmetic(e, scope)
        if isinstance(e, ast.Negative):
            v = self.term(e.operand, scope)
            if v is None:
                return None
            if not t.is_numeric(v.type):
                self.error("E0208", f"cannot negate a value of type `{v.type}`", e.span, scope=scope)
                return None
            return TVal(b.op("neg", v.term), v.type, e.span)
        if isinstance(e, ast.ListLit):
            return self.list_literal(e, scope)
        if isinstance(e, ast.DictLit):
            parts: list[n.Term] = []
            vtype: t.Type | None = None
            for key, value in e.entries:
                tv = self.term(value, scope)
                if tv is None:
                    return None
                parts.extend((b.lit(key), tv.term))
                vtype = tv.type if vtype is None else t.join(vtype, tv.type)
            return TVal(b.op("dict", *parts), t.DictT(vtype or t.ANY), e.span)
        if isinstance(e, ast.Index):
            return self.index(e, scope)
        if isinstance(e, ast.Slice):
            return self.slice(e, scope)
        raise TypeError(f"unexpected node {type(e).__name__}")

    # ------------------------------------------------------------ names

    def lookup_var(self, name: str, scope: Scope) -> VarInfo | None:
        return scope.vars.get(name)

    def tool_by_name(self, name: str, scope: Scope, span: Span) -> ToolVal | None:
        final = scope.instance.renamer.tool(name)
        sig = self.sigs.get(final)
        if sig is None:
            return None
        renamer = scope.instance.renamer
        return ToolVal(sig, (), span, lambda a, _t=name: renamer.arg(_t, a))

    def name(self, e: ast.Name, scope: Scope) -> Value | None:
        name = e.id
        if scope.pattern is not None:
            pat = scope.pattern
            final = pat.arg_name(name)
            param = pat.sig.param(final)
            if param is not None:
                return TVal(b.arg(final), param.type, e.span)
            if name == "result":
                return TVal(b.result(), pat.sig.result, e.span)
        if name in scope.params:
            value = scope.params[name]
            return replace(value, span=e.span) if not isinstance(value, EnumVal) else value
        info = scope.vars.get(name)
        if info is not None:
            info.uses += 1
            return TVal(b.var(info.ir_name), info.type or t.ANY, e.span)
        if name == "outputs":
            return TVal(b.outputs(), t.EntitySetT(), e.span)
        if name == "result":
            self.error("E0226", "`result` names the result of a call, inside an event pattern", e.span,
                       help="write the condition inside the pattern: `tool(result.ok == true)`, "
                            "or refer to all results of a tool: `tool.result`", scope=scope)
            return None
        tool = self.tool_by_name(name, scope, e.span)
        if tool is not None:
            return tool
        entry = self.syms.functions.get(name)
        if entry is not None and isinstance(entry.decl, ast.DefDecl | ast.PredicateDecl) and not entry.decl.params:
            return self.apply_function(name, ast.Call(name, (), e.span, e.span), scope)
        if name in self.syms.types:
            ty = self.types.named(name)
            if isinstance(ty, t.EnumT):
                return EnumVal(ty, e.span)
        self.unknown_name(name, e.span, scope)
        return None

    def unknown_name(self, name: str, span: Span, scope: Scope, called: bool = False,
                     keyword: bool = False) -> None:
        tools = list(self.sigs)
        variables = list(scope.vars) + list(scope.params)
        functions = list(self.syms.functions) + list(BUILTIN_FUNCTIONS)
        pattern_args = [p.name for p in scope.pattern.sig.params] if scope.pattern else []
        best_tool = closest(name, tools)
        best_var = closest(name, variables + pattern_args)
        best_fn = closest(name, functions)
        module = stdlib_definitions().get(name)
        if called and module is not None and name not in functions:
            self.error("E0205", f"unknown predicate `{name}`", span,
                       help=f"`{name}` is defined in the standard library module `{module}`: add `import {module}`",
                       scope=scope)
        elif called and (keyword or best_tool and not best_fn):
            self.error("E0201", f"unknown tool `{name}`", span, help=did_you_mean(name, tools, "tool"), scope=scope)
        elif called:
            self.error("E0205", f"unknown predicate `{name}`", span,
                       help=did_you_mean(name, functions + tools), scope=scope)
        elif best_var or not best_tool and (variables or pattern_args):
            self.error("E0206", f"unbound variable `{name}`", span,
                       help=f"did you mean `{best_var}`?" if best_var
                       else f"bind it with `forall {name} in ...:` or in an event pattern `tool(arg: {name})`",
                       scope=scope)
        else:
            self.error("E0201", f"unknown tool `{name}`", span,
                       help=did_you_mean(name, tools + variables, "tool")
                       or "declare it: `tool name(arg: type) -> type`", scope=scope)

    # ------------------------------------------------------------ field access and domains

    def field_access(self, e: ast.FieldAccess, scope: Scope) -> Value | None:
        chain = self._chain(e)
        if chain is not None:
            root, steps = chain
            special = self.rooted_path(root, steps, e, scope)
            if special is not False:
                return special  # type: ignore[return-value]
        base = self.elab(e.target, scope)
        if isinstance(base, EnumVal):
            members = base.type.members  # type: ignore[union-attr]
            if e.name not in members:
                self.error("E0203", f"`{base.type}` has no member `{e.name}`", e.name_span,
                           help=did_you_mean(e.name, members, "member"), scope=scope)
                return None
            return TVal(b.lit(e.name), base.type, e.span)
        tv = self.as_term(base, e.target.span, scope)
        if tv is None:
            return None
        ftype = self.field_type(tv.type, e.name, e.name_span, scope)
        if ftype is None:
            return None
        return TVal(b.field(tv.term, e.name), ftype, e.span)

    def field_type(self, base: t.Type, name: str, span: Span, scope: Scope) -> t.Type | None:
        bt = t.strip_optional(base)
        if bt is t.ANY:
            return t.ANY
        if isinstance(bt, t.RecordT):
            ft = bt.field(name)
            if ft is None:
                self.error("E0203", f"`{bt}` has no field `{name}`", span,
                           help=did_you_mean(name, [f for f, _ in bt.fields], "field"), scope=scope)
            return ft
        if isinstance(bt, t.DictT):
            return bt.value
        self.error("E0203", f"a value of type `{base}` has no field `{name}`", span, scope=scope)
        return None

    @staticmethod
    def _chain(e: ast.Expr) -> tuple[ast.Name, list] | None:
        steps: list = []
        cur = e
        while True:
            if isinstance(cur, ast.FieldAccess):
                steps.append((cur.name, cur.name_span))
                cur = cur.target
            elif isinstance(cur, ast.Index) and isinstance(cur.index, ast.Literal) and cur.index.kind == "int":
                steps.append((cur.index.value, cur.index.span))
                cur = cur.target
            elif isinstance(cur, ast.Name):
                return cur, list(reversed(steps))
            else:
                return None

    def rooted_path(self, root: ast.Name, steps: list, e: ast.Expr, scope: Scope):
        """`tool.arg...`, `tool.result...` (trace-wide domains), `metrics...`; False: not one of these."""
        name = root.id
        if name in scope.params or name in scope.vars:
            param = scope.params.get(name)
            if not isinstance(param, ToolVal):
                return False
            tool = param
        elif scope.pattern is not None and (scope.pattern.sig.param(scope.pattern.arg_name(name)) or name == "result"):
            return False
        elif name == "metrics" and name not in self.sigs:
            return TVal(b.metric(tuple(s for s, _ in steps)), t.ANY, e.span)
        else:
            tool = self.tool_by_name(name, scope, root.span)
            if tool is None:
                return False
        first, first_span = steps[0]
        if first == "result":
            path: list = ["result"]
            ty: t.Type = tool.sig.result
        else:
            if not isinstance(first, str):
                self.error("E0202", f"`{tool.tool}` is a tool; index one of its arguments", first_span, scope=scope)
                return None
            final = tool.arg_name(first)
            param = tool.sig.param(final)
            if param is None:
                names = [p.name for p in tool.sig.params]
                best = closest(first, names + ["result"])
                listed = ", ".join(f"`{a}`" for a in names)
                hint = (f"did you mean `{best}`?" if best else
                        (f"the arguments of `{tool.tool}` are {listed}" if names else f"`{tool.tool}` takes no arguments")
                        + f"; its result is `{tool.tool}.result`")
                self.error("E0202", f"`{tool.tool}` has no argument `{first}`", first_span, help=hint, scope=scope)
                return None
            path, ty = [final], param.type
        for step, span in steps[1:]:
            if isinstance(step, int):
                inner = t.strip_optional(ty)
                if inner is not t.ANY and not isinstance(inner, t.ListT):
                    self.error("E0208", f"cannot index a value of type `{ty}`", span, scope=scope)
                    return None
                ty = t.element_type(inner)
            else:
                nt = self.field_type(ty, step, span, scope)
                if nt is None:
                    return None
                ty = nt
            path.append(step)
        ty = t.strip_optional(ty)
        flatten = isinstance(ty, t.ListT)
        elem = ty.elem if isinstance(ty, t.ListT) else ty
        return TVal(b.values(tool.tool, tuple(path), flatten), t.ListT(elem), e.span)

    # ------------------------------------------------------------ operators

    def comparison(self, e: ast.Comparison, scope: Scope) -> Value | None:
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
        if e.op not in ("==", "!="):
            for side in (left, right):
                st = t.strip_optional(side.type)
                if not (t.is_numeric(st) or st in (t.STR, t.ANY) or isinstance(st, t.EnumT)):
                    self.error("E0208", f"`{e.op}` compares numbers or strings, not `{side.type}`", side.span,
                               scope=scope)
                    return None
        return TVal(b.op(COMPARE_BY_SYMBOL[e.op], left.term, right.term), t.BOOL, e.span)

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

    def index(self, e: ast.Index, scope: Scope) -> Value | None:
        chain = self._chain(e)
        if chain is not None:
            special = self.rooted_path(chain[0], chain[1], e, scope)
            if special is not False:
                return special  # type: ignore[return-value]
        base = self.elab(e.target, scope)
        idx = self.term(e.index, scope)
        if base is None or idx is None:
            return None
        if isinstance(base, ListVal):
            if isinstance(idx.term, n.Lit) and isinstance(idx.term.value, int):
                i = idx.term.value
                if -len(base.items) <= i < len(base.items):
                    return base.items[i]
            self.error("E0208", "a list of formulas can only be indexed by a constant within its length", e.span,
                       scope=scope)
            return None
        tv = self.as_term(base, e.target.span, scope)
        if tv is None:
            return None
        bt = t.strip_optional(tv.type)
        if isinstance(bt, t.ListT):
            ty: t.Type = bt.elem
        elif isinstance(bt, t.DictT):
            ty = bt.value
        elif bt is t.STR:
            ty = t.STR
        elif bt is t.ANY:
            ty = t.ANY
        else:
            self.error("E0208", f"cannot index a value of type `{tv.type}`", e.span, scope=scope)
            return None
        return TVal(b.index(tv.term, idx.term), ty, e.span)

    def slice(self, e: ast.Slice, scope: Scope) -> Value | None:
        base = self.elab(e.target, scope)
        start = self.term(e.start, scope) if e.start is not None else None
        stop = self.term(e.stop, scope) if e.stop is not None else None
        if base is None:
            return None
        if isinstance(base, ListVal):
            bounds = []
            for bound in (start, stop):
                if bound is None:
                    bounds.append(None)
                elif isinstance(bound.term, n.Lit) and isinstance(bound.term.value, int):
                    bounds.append(bound.term.value)
                else:
                    self.error("E0208", "a list of formulas can only be sliced by constants", e.span, scope=scope)
                    return None
            return ListVal(base.items[bounds[0]:bounds[1]], e.span)
        tv = self.as_term(base, e.target.span, scope)
        if tv is None:
            return None
        return TVal(b.slice_(tv.term, start.term if start else None, stop.term if stop else None), tv.type, e.span)

    # ------------------------------------------------------------ quantifiers and conditionals

    def fresh_name(self, name: str, avoid: Iterable[str]) -> str:
        avoid = set(avoid)
        candidate = name
        while candidate in avoid:
            self._fresh += 1
            candidate = f"{name}_{self._fresh}"
        return candidate

    def captured_names(self, scope: Scope) -> set[str]:
        """Variables free in the arguments of the macro being expanded (renamed apart)."""
        out: set[str] = set()
        for value in scope.params.values():
            out |= self._value_vars(value)
        return out

    def _value_vars(self, value: Value) -> set[str]:
        if isinstance(value, FVal):
            return set(free_vars(value.formula))
        if isinstance(value, TVal):
            return set(free_vars(value.term))
        if isinstance(value, ToolVal):
            return set().union(*(free_vars(g) for g in value.guards)) if value.guards else set()
        if isinstance(value, ListVal):
            return set().union(*(self._value_vars(v) for v in value.items)) if value.items else set()
        return set()

    def quantifier(self, e: ast.Quantifier, scope: Scope) -> Value | None:
        ir_name = self.fresh_name(e.var, self.captured_names(scope)) if scope.params else e.var
        if e.domain is not None:
            dom = self.term(e.domain, scope)
            if dom is None:
                return None
            dt = t.strip_optional(dom.type)
            if not t.is_collection(dt):
                self.error("E0211", f"`{e.var}` cannot range over a value of type `{dom.type}`", e.domain.span,
                           help="quantify over a list: a tool's argument or result (`tool.arg`, `tool.result.items`),"
                                " a list literal, `entities(...)` or `outputs`", scope=scope)
                return None
            info = VarInfo(e.var, ir_name, t.element_type(dt), e.var_span)
            body = self.formula(e.body, scope.with_var(info))
            domain_term = dom.term
        else:
            info = VarInfo(e.var, ir_name, None, e.var_span, infer=True)
            body = self.formula(e.body, scope.with_var(info))
            if body is None:
                return None
            domain_term = self.inferred_domain(info, scope)
            if domain_term is None:
                return None
        if body is None:
            return None
        if info.uses == 0:
            self.warn("W0207", f"variable `{e.var}` is never used", e.var_span,
                      help=f"remove the quantifier, or use `{e.var}` in its body")
        make = b.forall if e.kind == "forall" else b.exists
        return FVal(make(ir_name, info.type or t.ANY, domain_term, body), e.span)

    def inferred_domain(self, info: VarInfo, scope: Scope) -> n.Term | None:
        if not info.sites:
            self.error("E0212", f"cannot tell what `{info.name}` ranges over", info.span,
                       help=f"write `forall {info.name} in tool.arg: ...`, or bind it in an event pattern "
                            f"such as `tool(arg: {info.name})`", scope=scope)
            return None
        terms = [b.values(tool, path, flatten) for tool, path, flatten in dict.fromkeys(info.sites)]
        domain = terms[0]
        for term in terms[1:]:
            domain = b.op("add", domain, term)
        return domain

    def conditional(self, e: ast.Conditional, scope: Scope) -> Value | None:
        c = self.elab(e.cond, scope)
        if c is None:
            return None
        if isinstance(c, TVal) and isinstance(c.term, n.Lit):
            return self.elab(e.then if c.term.value is True else e.orelse, scope)
        if isinstance(c, FVal) and isinstance(c.formula, n.Const):
            return self.elab(e.then if c.formula.value else e.orelse, scope)
        cf = self.as_formula(c, e.cond.span, scope)
        then, orelse = self.formula(e.then, scope), self.formula(e.orelse, scope)
        if cf is None or then is None or orelse is None:
            return None
        return FVal(b.conj(b.implies(cf, then), b.implies(b.neg(cf), orelse)), e.span)

    # ------------------------------------------------------------ calls

    def call(self, e: ast.Call, scope: Scope) -> Value | None:
        name = e.func
        if name in scope.params:
            target = scope.params[name]
            if isinstance(target, ToolVal):
                return self.pattern(target, e, scope, refine=True)
            self.error("E0210", f"`{name}` is {_describe(target)}, not a tool, and cannot take conditions",
                       e.func_span, scope=scope)
            return None
        tool = self.tool_by_name(name, scope, e.func_span)
        if tool is not None:
            return self.pattern(tool, e, scope, refine=False)
        if name in self.syms.functions:
            return self.apply_function(name, e, scope)
        if name in BUILTIN_FUNCTIONS:
            return self.builtin(e, scope)
        has_keywords = any(isinstance(a, ast.KeywordArg) for a in e.args)
        self.unknown_name(name, e.func_span, scope, called=True, keyword=has_keywords)
        return None

    def pattern(self, tool: ToolVal, e: ast.Call, scope: Scope, refine: bool) -> Value | None:
        """`tool(arg: value, condition, ...)`: an event pattern, or a refinement of one."""
        sig = tool.sig
        guards = list(tool.guards)
        inner = scope.in_pattern(tool)
        positional = 0
        named: ast.KeywordArg | None = None
        ok = True
        for a in e.args:
            if isinstance(a, ast.KeywordArg):
                named = named or a
                guard = self.keyword_condition(tool, a, scope)
            elif self._is_condition(a, tool):
                tv = self.term(a, inner)
                guard = None
                if tv is not None:
                    if t.strip_optional(tv.type) not in (t.BOOL, t.ANY):
                        self.error("E0208", f"a condition must be true or false, not `{tv.type}`", a.span, scope=scope)
                    else:
                        guard = tv.term
            else:
                if named is not None:
                    self.error("E0209", "a value without an argument name cannot follow a named argument", a.span,
                               labels=(Label(named.name_span, "named here"),),
                               help=f"write it as `argument: value`; the signature is `{sig}`", scope=scope)
                    ok = False
                    continue
                if positional >= len(sig.params):
                    self.error("E0209", f"`{sig.name}` takes {len(sig.params)} argument"
                               f"{'s' if len(sig.params) != 1 else ''}, but more values were given", a.span,
                               help=f"the signature is `{sig}`", scope=scope)
                    ok = False
                    continue
                param = sig.params[positional]
                positional += 1
                guard = self.argument_equals(tool, param, a, scope)
            if guard is None:
                ok = False
            else:
                guards.append(guard)
        if not ok:
            return None
        return ToolVal(sig, tuple(guards), e.span, tool.arg_name)

    def _is_condition(self, a: ast.Expr, tool: ToolVal) -> bool:
        """Whether a positional argument of a pattern is a condition (`x > 1`, `result.ok`,
        `is_even(x)`) rather than the value of the next argument (`search("foo")`)."""
        if isinstance(a, (ast.Comparison, ast.Not, ast.Logic)):
            return True
        root = a
        while isinstance(root, (ast.FieldAccess, ast.Index, ast.Slice)):
            root = root.target
        if isinstance(root, ast.Name) and root.id == "result":
            return True
        if isinstance(a, ast.Name):
            param = tool.sig.param(tool.arg_name(a.id))
            return param is not None and t.strip_optional(param.type) is t.BOOL
        if isinstance(a, ast.Call):
            entry = self.syms.functions.get(a.func)
            is_predicate = entry is not None and isinstance(entry.decl, ast.PredicateDecl | ast.ExternDecl)
            return is_predicate or a.func in ("contains", "startswith", "endswith")
        return False

    def keyword_condition(self, tool: ToolVal, a: ast.KeywordArg, scope: Scope) -> n.Term | None:
        sig = tool.sig
        final = tool.arg_name(a.name)
        param = sig.param(final)
        if param is None:
            if a.name == "result":
                target = TVal(b.result(), sig.result, a.name_span)
                value = self.term(a.value, scope)
                if value is None or not self.check_compatible(target, value, a, scope,
                                                              expected=f"the result of `{sig.name}`"):
                    return None
                return b.op("eq", target.term, value.term)
            self.error("E0202", f"`{sig.name}` has no argument `{a.name}`", a.name_span,
                       help=did_you_mean(a.name, [p.name for p in sig.params], "argument")
                       or f"the signature is `{sig}`", scope=scope)
            return None
        return self.argument_equals(tool, param, a.value, scope)

    def argument_equals(self, tool: ToolVal, param: t.Param, value: ast.Expr, scope: Scope) -> n.Term | None:
        """The condition `arg == value`; a variable whose domain is inferred is bound here."""
        if isinstance(value, ast.Name) and value.id == "_":
            return b.op("ne", b.arg(param.name), b.lit(None))
        if isinstance(value, ast.Name) and value.id in scope.vars and value.id not in scope.params:
            info = scope.vars[value.id]
            info.uses += 1
            ptype = t.strip_optional(param.type)
            if info.infer:
                info.sites.append((tool.tool, (param.name,), False))
            if info.type is None:
                info.type = ptype
            elif not t.compatible(info.type, ptype):
                self.error("E0208", f"`{value.id}` is `{info.type}` here but `{tool.tool}.{param.name}` is `{ptype}`",
                           value.span, labels=(Label(info.span, f"`{value.id}` is bound here"),), scope=scope)
                return None
            return b.op("eq", b.arg(param.name), b.var(info.ir_name))
        tv = self.term(value, scope)
        if tv is None:
            return None
        target = TVal(b.arg(param.name), param.type, value.span)
        if not self.check_compatible(target, tv, value, scope, expected=f"argument `{param.name}` of `{tool.tool}`"):
            return None
        return b.op("eq", target.term, tv.term)

    def builtin(self, e: ast.Call, scope: Scope) -> Value | None:
        name = e.func
        if name == "outputs":
            tools = []
            for a in e.args:
                tv = self.elab(a, scope) if not isinstance(a, ast.KeywordArg) else None
                if not isinstance(tv, ToolVal) or tv.guards:
                    self.error("E0210", "`outputs(...)` takes tool names", a.span,
                               help="e.g. `outputs(read_file)`; plain `outputs` covers every tool", scope=scope)
                    return None
                tools.append(tv.tool)
            return TVal(b.outputs(tools), t.EntitySetT(), e.span)
        arity = {"len": 1, "abs": 1, "lower": 1, "upper": 1, "entities": 1, "min": 2, "max": 2,
                 "contains": 2, "startswith": 2, "endswith": 2}[name]
        if len(e.args) != arity or any(isinstance(a, ast.KeywordArg) for a in e.args):
            self.error("E0209", f"`{name}` takes {arity} argument{'s' if arity != 1 else ''}", e.span,
                       help=BUILTIN_FUNCTIONS[name], scope=scope)
            return None
        if name == "len":
            v = self.elab(e.args[0], scope)
            if isinstance(v, ListVal):
                return TVal(b.lit(len(v.items)), t.INT, e.span)
            tv = self.as_term(v, e.args[0].span, scope)
            if tv is None:
                return None
            if not t.is_collection(tv.type) or isinstance(t.strip_optional(tv.type), t.EntitySetT):
                self.error("E0208", f"`len` needs a list, object or string, not `{tv.type}`", e.args[0].span,
                           scope=scope)
                return None
            return TVal(b.op("len", tv.term), t.INT, e.span)
        args = [self.term(a, scope) for a in e.args]
        if any(a is None for a in args):
            return None
        terms = [a.term for a in args]  # type: ignore[union-attr]
        types_ = [t.strip_optional(a.type) for a in args]  # type: ignore[union-attr]
        if name == "entities":
            if types_[0] not in (t.STR, t.ANY) and types_[0] != t.ListT(t.STR) and not (
                    isinstance(types_[0], t.ListT) and types_[0].elem in (t.STR, t.ANY)):
                self.error("E0208", f"`entities` reads text, not `{args[0].type}`", e.args[0].span, scope=scope)
                return None
            return TVal(b.op("entities", terms[0]), t.ListT(t.STR), e.span)
        if name in ("abs",):
            if not t.is_numeric(types_[0]):
                self.error("E0208", f"`abs` needs a number, not `{args[0].type}`", e.args[0].span, scope=scope)
                return None
            return TVal(b.op(name, *terms), types_[0], e.span)
        if name in ("min", "max"):
            return TVal(b.op(name, *terms), t.join(types_[0], types_[1]), e.span)
        for a, ty in zip(e.args, types_):
            if ty not in (t.STR, t.ANY) and not isinstance(ty, t.EnumT):
                self.error("E0208", f"`{name}` works on strings, not `{ty}`", a.span, scope=scope)
                return None
        if name in ("lower", "upper"):
            return TVal(b.op(name, *terms), t.STR, e.span)
        return TVal(b.op(name, *terms), t.BOOL, e.span)

    # ------------------------------------------------------------ macros, predicates, externs

    def bind_arguments(self, params: tuple[ast.Param, ...], args: tuple, what: str, call_span: Span,
                       scope: Scope, signature: str) -> list[tuple[ast.Param, ast.Expr]] | None:
        positional = [a for a in args if not isinstance(a, ast.KeywordArg)]
        keywords = {a.name: a for a in args if isinstance(a, ast.KeywordArg)}
        if len(positional) > len(params):
            self.error("E0209", f"{what} takes {len(params)} argument{'s' if len(params) != 1 else ''} "
                       f"but {len(args)} were given", call_span, help=f"the signature is `{signature}`", scope=scope)
            return None
        bound: list[tuple[ast.Param, ast.Expr]] = []
        for i, p in enumerate(params):
            if i < len(positional):
                if p.name in keywords:
                    self.error("E0209", f"argument `{p.name}` is given twice", keywords[p.name].span, scope=scope)
                    return None
                bound.append((p, positional[i]))
            elif p.name in keywords:
                bound.append((p, keywords.pop(p.name).value))
            else:
                self.error("E0209", f"{what} is missing its argument `{p.name}`", call_span,
                           help=f"the signature is `{signature}`", scope=scope)
                return None
        for extra in keywords.values():
            if extra.name not in {p.name for p in params}:
                self.error("E0209", f"{what} has no parameter `{extra.name}`", extra.name_span,
                           help=did_you_mean(extra.name, [p.name for p in params], "parameter")
                           or f"the signature is `{signature}`", scope=scope)
                return None
        return bound

    @staticmethod
    def signature_text(name: str, params: tuple[ast.Param, ...]) -> str:
        def show_type(te) -> str:
            if isinstance(te, ast.OptionalType):
                return show_type(te.inner) + "?"
            if te.args:
                return f"{te.name}[{', '.join(show_type(a) for a in te.args)}]"
            return te.name

        return f"{name}({', '.join(f'{p.name}: {show_type(p.type)}' for p in params)})"

    def bind_param(self, param: ast.Param, expected, arg: ast.Expr, scope: Scope, what: str) -> Value | None:
        """Elaborate one macro argument in the caller's scope and check it against the parameter kind."""
        value = self.elab(arg, scope)
        if value is None:
            return None

        def wrong(kind_text: str) -> None:
            self.error("E0210", f"{what} expects {kind_text} for `{param.name}`, found {_describe(value)}",
                       arg.span, scope=scope)

        if isinstance(expected, Kind):
            if expected.is_list:
                if isinstance(value, TVal) and isinstance(value.term, n.Lit) and value.term.value == []:
                    return ListVal((), arg.span)
                if not isinstance(value, ListVal):
                    wrong(f"a list of {expected.name}s, e.g. `[a, b, c]`")
                    return None
                out = []
                for item in value.items:
                    one = self._kind_item(Kind(expected.name), item, arg, scope, what, param)
                    if one is None:
                        return None
                    out.append(one)
                return ListVal(tuple(out), arg.span)
            return self._kind_item(expected, value, arg, scope, what, param)
        tv = self.as_term(value, arg.span, scope)
        if tv is None:
            return None
        target = TVal(b.var(param.name), expected, param.span)
        described = f"`{param.name}` of {what}"
        if not self.check_compatible(target, tv, arg, scope, expected=described):
            return None
        if t.strip_optional(expected) is t.INT and t.strip_optional(tv.type) is t.FLOAT:
            self.error("E0208", f"{described} is `int`, but the value given is `float`", arg.span,
                       help="write a whole number", scope=scope)
            return None
        return tv

    def _kind_item(self, kind: Kind, value: Value, arg: ast.Expr, scope: Scope, what: str,
                   param: ast.Param) -> Value | None:
        if kind.name == "tool":
            if not isinstance(value, ToolVal):
                self.error("E0210", f"{what} expects a tool for `{param.name}`, found {_describe(value)}", arg.span,
                           help="pass a tool name or an event pattern such as `search(query: q)`", scope=scope)
                return None
            return value
        if kind.name == "cmp":
            if isinstance(value, TVal) and isinstance(value.term, n.Lit) and value.term.value in CMP_OPS:
                return value
            self.error("E0210", f"{what} expects a comparison operator for `{param.name}`", arg.span,
                       help='one of "==", "!=", "<", "<=", ">", ">="', scope=scope)
            return None
        if isinstance(value, TVal) and t.strip_optional(value.type) not in (t.BOOL, t.ANY):
            self.error("E0210", f"{what} expects {'an event' if kind.name == 'event' else 'a formula'} for "
                       f"`{param.name}`, found {_describe(value)}", arg.span,
                       help="pass a tool, an event pattern such as `search(query: q)`, or a formula", scope=scope)
            return None
        f = self.as_formula(value, arg.span, scope)
        return FVal(f, value.span) if f is not None else None

    def apply_function(self, name: str, e: ast.Call, scope: Scope, extra: tuple = ()) -> Value | None:
        entry = self.syms.functions[name]
        decl, inst = entry.decl, entry.instance
        sig_text = self.signature_text(name, decl.params)
        what = {ast.DefDecl: "`{}`", ast.PredicateDecl: "the predicate `{}`",
                ast.ExternDecl: "the extern predicate `{}`"}[type(decl)].format(name)
        bound = self.bind_arguments(decl.params, e.args + extra, what, e.span, scope, sig_text)
        if bound is None:
            return None
        if scope.depth >= MAX_EXPANSION_DEPTH:
            self.error("E0219", f"the expansion of `{name}` does not end", e.span,
                       help="a recursive `def` must reach a base case through `if ... then ... else` on constants",
                       scope=scope)
            raise ExpansionTooDeep(name)
        params: dict[str, Value] = {}
        for p, arg in bound:
            expected = self.types.resolve(p.type, allow_kinds=isinstance(decl, ast.DefDecl))
            if not isinstance(decl, ast.DefDecl) and isinstance(expected, Kind):
                expected = t.ANY
            value = self.bind_param(p, expected, arg, scope, what)
            if value is None:
                return None
            params[p.name] = value
        if isinstance(decl, ast.ExternDecl):
            terms = [params[p.name].term for p in decl.params]  # type: ignore[union-attr]
            return TVal(b.extern(name, *terms), t.BOOL, e.span)
        memo_key = (name, tuple((k, _value_key(v)) for k, v in params.items()))
        cached = self._expansions.get(memo_key)
        if cached is not None:
            return replace(cached, span=e.span)
        errors_before = len(self.diags)
        body_scope = Scope(inst, {}, params, None, scope.depth + 1, f"`{name}` at {e.span}")
        if isinstance(decl, ast.PredicateDecl):
            tv = self.term(decl.body, body_scope)
            if tv is None:
                return None
            if t.strip_optional(tv.type) not in (t.BOOL, t.ANY):
                self.error("E0208", f"the predicate `{name}` must be true or false, but its body is `{tv.type}`",
                           decl.body.span)
                return None
            value: Value | None = TVal(tv.term, t.BOOL, e.span)
        else:
            value = self.with_implicit_bindings(decl.body, body_scope)
        if value is None or isinstance(value, EnumVal):
            return value
        if len(self.diags) == errors_before:
            self._expansions[memo_key] = value
        return replace(value, span=e.span)

    def counting_sugar(self, e: ast.Comparison, scope: Scope):
        """`called_n(t) >= 2` reads as `called_n(t, ">=", 2)` for macros whose last parameters are (cmp, int)."""
        call = e.left
        assert isinstance(call, ast.Call)
        entry = self.syms.functions.get(call.func)
        if entry is None or not isinstance(entry.decl, ast.DefDecl) or call.func in scope.params:
            return False
        params = entry.decl.params
        if len(params) < 2 or len(call.args) != len(params) - 2:
            return False
        cmp_type = params[-2].type
        if not (isinstance(cmp_type, ast.TypeName) and cmp_type.name == "cmp"):
            return False
        extra = (ast.Literal(e.op, "str", span=e.span), e.right)
        return self.apply_function(call.func, call, scope, extra)

    # ------------------------------------------------------------ implicit bindings

    def with_implicit_bindings(self, body: ast.Expr, scope: Scope) -> Value | None:
        """Elaborate a rule or macro body; variables first bound in event patterns are
        universally quantified at its top, over the values those patterns bind."""
        implicit = self.implicit_variables(body, scope)
        if not implicit:
            return self.elab(body, scope)
        infos = []
        inner = scope
        for name, span in implicit:
            info = VarInfo(name, self.fresh_name(name, self.captured_names(scope)), None, span, infer=True,
                           implicit=True)
            infos.append(info)
            inner = inner.with_var(info)
        f = self.formula(body, inner)
        if f is None:
            return None
        for info in reversed(infos):
            if info.uses <= 1:
                self.warn("W0207", f"variable `{info.name}` is bound but never used", info.span,
                          help="use `_` to accept any value, or compare the argument with a constant")
            domain = self.inferred_domain(info, scope)
            if domain is None:
                return None
            f = b.forall(info.ir_name, info.type or t.ANY, domain, f)
        return FVal(f, body.span)

    def implicit_variables(self, body: ast.Expr, scope: Scope) -> list[tuple[str, Span]]:
        found: dict[str, Span] = {}

        def resolves(name: str, bound: set[str]) -> bool:
            return (name in bound or name in scope.vars or name in scope.params or name in self.syms.functions
                    or name in self.syms.types or name in ("_", "outputs", "metrics", "result")
                    or scope.instance.renamer.tool(name) in self.sigs)

        def visit(node, bound: set[str]) -> None:
            if isinstance(node, ast.Quantifier):
                if node.domain is not None:
                    visit(node.domain, bound)
                visit(node.body, bound | {node.var})
                return
            if isinstance(node, ast.Call):
                is_pattern = (node.func in scope.params and isinstance(scope.params[node.func], ToolVal)) or (
                    node.func not in scope.params and scope.instance.renamer.tool(node.func) in self.sigs)
                for a in node.args:
                    if isinstance(a, ast.KeywordArg):
                        v = a.value
                        if is_pattern and isinstance(v, ast.Name) and not resolves(v.id, bound) and v.id not in found:
                            found[v.id] = v.span
                        visit(v, bound)
                    else:
                        visit(a, bound)
                return
            for child in _ast_children(node):
                visit(child, bound)

        visit(body, set())
        return list(found.items())


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _value_key(v: Value) -> object:
    if isinstance(v, FVal):
        return ("F", v.formula)
    if isinstance(v, TVal):
        return ("T", v.term, v.type)
    if isinstance(v, ToolVal):
        return ("tool", v.sig, v.guards)
    if isinstance(v, ListVal):
        return ("list", tuple(_value_key(i) for i in v.items))
    return ("enum", v.type)


def _ast_children(node) -> Iterable:
    for name in getattr(node, "__dataclass_fields__", {}):
        if name in ("span", "name_span", "func_span", "var_span"):
            continue
        value = getattr(node, name)
        if isinstance(value, tuple):
            for v in value:
                if isinstance(v, tuple):
                    yield from (x for x in v if not isinstance(x, str))
                elif not isinstance(v, str):
                    yield v
        elif value is not None and not isinstance(value, (str, int, float, bool)):
            yield value

