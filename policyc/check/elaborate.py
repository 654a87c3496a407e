"""Expressions -> typed core IR, with name resolution, type checking and macro expansion.

`Elaborator.formula(expr, scope)` resolves every name, checks types, expands `def` macros
and pure predicates in place (the standard library is such macros), and returns a core IR
formula. Problems are appended to `diagnostics` and elaboration continues, so one pass
reports everything; a sub-expression that failed yields None and stays silent upstream.
"""

from __future__ import annotations

from dataclasses import replace
from functools import cached_property, partial
from typing import Iterable, Mapping

from policyc.check import macros, operators, paths, patterns, provenance
from policyc.check.macros import CMP_OPS, MAX_EXPANSION_DEPTH, ExpansionTooDeep
from policyc.check.modules import stdlib_definitions
from policyc.check.scope import EnumVal, FVal, ListVal, Scope, ToolVal, TVal, Value, VarInfo, describe
from policyc.check.suggest import closest, did_you_mean, unknown_fields
from policyc.check.symbols import BUILTIN_FUNCTIONS, Symbols
from policyc.check.trust import TrustMap, trust_map
from policyc.check.typing import TypeResolver
from policyc.diagnostics import Diagnostic, Label, Severity, Span
from policyc.ir import build as b
from policyc.ir import nodes as n
from policyc.ir import types as t
from policyc.ir.walk import free_vars
from policyc.syntax import ast

__all__ = ["Elaborator", "ExpansionTooDeep", "CMP_OPS", "MAX_EXPANSION_DEPTH"]

_UNARY = {
    "next": b.next_, "weak_next": b.wnext, "eventually": b.eventually, "always": b.always,
    "yesterday": b.yesterday, "weak_yesterday": b.wyesterday, "once": b.once, "historically": b.historically,
}
_BINARY = {"until": b.until, "weak_until": b.weak_until, "release": b.release, "since": b.since}
_LIT_TYPES = {"int": t.INT, "float": t.FLOAT, "str": t.STR, "bool": t.BOOL, "null": t.NULL}


class Elaborator:
    """The state of one policy's elaboration: its symbols, signatures and types, the
    diagnostics found so far, the macro expansions made, and the variables whose domain is
    being inferred. The constructs are elaborated by functions of their own modules
    (`operators`, `paths`, `patterns`, `macros`, `provenance`), which take the elaborator."""

    def __init__(self, syms: Symbols, sigs: dict[str, t.ToolSignature], resolver: TypeResolver,
                 diagnostics: list[Diagnostic]):
        self.syms = syms
        self.sigs = sigs
        self.types = resolver
        self.diags = diagnostics
        self._fresh = 0
        self.expansions: dict = {}
        # variables whose domain is being inferred, by IR name: a macro's data parameter bound
        # to one of them (`account_write(c)`) binds it where the macro's patterns use it
        self.inferring: dict[str, VarInfo] = {}
        # the `when ... shall ...` a rule's body is (under its `forall`s), and what it became
        self.rule_when: ast.WhenShall | None = None
        self.rule_when_value: tuple[n.Formula, n.Formula] | None = None  # (applies, always (applies -> obliges))

    @cached_property
    def trust(self) -> TrustMap:
        """The policy's trust declarations, resolved (`policyc.check.trust`)."""
        return trust_map(self.syms)

    # ------------------------------------------------------------ reporting

    def error(self, code: str, message: str, span: Span, help: str | None = None,
              labels: Iterable[Label] = (), scope: Scope | None = None,
              fields: Mapping[str, str] | None = None) -> None:
        notes: tuple[str, ...] = ()
        if scope is not None and scope.frame:
            notes = (f"in the expansion of {scope.frame}",)
        self.diags.append(Diagnostic(code, message, span, help=help, labels=tuple(labels), notes=notes,
                                     fields=dict(fields or {})))

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
            self.error("E0220", f"expected a formula, found {describe(v)}", span,
                       help="compare it with something to make a condition, e.g. `x > 0`", scope=scope)
            return None
        self.error("E0220", f"expected a formula, found {describe(v)}", span, scope=scope)
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
        self.error("E0220", f"expected a value, found {describe(v)}", span, scope=scope)
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
            return patterns.call(self, e, scope)
        if isinstance(e, ast.FieldAccess):
            return paths.field_access(self, e, scope)
        if isinstance(e, ast.Comparison):
            return operators.comparison(self, e, scope)
        if isinstance(e, ast.Logic):
            return operators.logic(self, e, scope)
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
        if isinstance(e, ast.WhenShall):
            return self.when_shall(e, scope)
        if isinstance(e, ast.Arithmetic):
            return operators.arithmetic(self, e, scope)
        if isinstance(e, ast.Negative):
            v = self.term(e.operand, scope)
            if v is None:
                return None
            if not t.is_numeric(v.type):
                self.error("E0208", f"cannot negate a value of type `{v.type}`", e.span, scope=scope)
                return None
            return TVal(b.op("neg", v.term), v.type, e.span)
        if isinstance(e, ast.ListLit):
            return operators.list_literal(self, e, scope)
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
            return paths.index(self, e, scope)
        if isinstance(e, ast.Slice):
            return paths.slice(self, e, scope)
        if isinstance(e, ast.Spread):
            return paths.spread(self, e, scope)
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
        return ToolVal(sig, (), span, partial(renamer.arg, name))

    def name(self, e: ast.Name, scope: Scope) -> Value | None:
        name = e.id
        if scope.pattern is not None:
            pat = scope.pattern
            if name == "result":  # the call's result, even where an argument has the name (`tool(result: v)` tests it)
                return TVal(b.result(), pat.sig.result, e.span)
            final = pat.arg_name(name)
            param = pat.sig.param(final)
            if param is not None:
                return TVal(b.arg(final), param.type, e.span)
            if name in t.ATTRIBUTE_TYPES:
                return TVal(b.attr(name), t.ATTRIBUTE_TYPES[name], e.span)
        if name in scope.params:
            value = scope.params[name]
            return replace(value, span=e.span) if not isinstance(value, EnumVal) else value
        info = scope.vars.get(name)
        if info is not None:
            info.uses += 1
            return TVal(b.var(info.ir_name), info.type or t.ANY, e.span)
        if name == "outputs":
            return TVal(b.outputs(), t.EntitySetT(), e.span)
        if name == "done" and scope.instance.renamer.tool(name) not in self.sigs:  # a tool `done` keeps its name
            return TVal(b.done(tool for tool, sig in self.sigs.items() if sig.terminal), t.ListT(t.STR), e.span)
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
            return macros.apply_function(self, name, ast.Call(name, (), e.span, e.span), scope)
        if name in self.syms.types:
            ty = self.types.named(name)
            if isinstance(ty, t.EnumT):
                return EnumVal(ty, e.span)
        if name == "request":
            return TVal(b.request(), t.REQUEST_TYPE, e.span)
        if name in t.ATTRIBUTE_TYPES:
            self.error("E0226", f"`{name}` is an attribute of the event a pattern matches, inside that pattern",
                       e.span, help=f"write the condition inside the pattern: `tool({name} == ...)`", scope=scope)
            return None
        if self.not_observed(name, e.span, scope):
            return None
        self.unknown_name(name, e.span, scope)
        return None

    def not_observed(self, name: str, span: Span, scope: Scope) -> bool:
        """`message` in a policy that does not observe messages: say how to observe them."""
        if name != "message" or "message" in self.sigs:
            return False
        self.error("E0227", "the policy does not observe messages", span,
                   help="add `observe messages` to read the agent's and the user's messages as events",
                   scope=scope)
        return True

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
                       scope=scope, fields={"name": name, "module": module})
        elif called and (keyword or best_tool and not best_fn):
            self.error("E0201", f"unknown tool `{name}`", span, help=did_you_mean(name, tools, "tool"), scope=scope,
                       fields=unknown_fields(name, tools))
        elif called:
            self.error("E0205", f"unknown predicate `{name}`", span,
                       help=did_you_mean(name, functions + tools), scope=scope,
                       fields=unknown_fields(name, functions + tools))
        elif best_var or not best_tool and (variables or pattern_args):
            self.error("E0206", f"unbound variable `{name}`", span,
                       help=f"did you mean `{best_var}`?" if best_var else self._binding_hint(name),
                       scope=scope, fields={"name": name, **({"suggestion": best_var} if best_var else {})})
        else:
            self.error("E0201", f"unknown tool `{name}`", span,
                       help=did_you_mean(name, tools + variables, "tool")
                       or "declare it: `tool name(arg: type) -> type`", scope=scope,
                       fields=unknown_fields(name, tools + variables))

    def _binding_hint(self, name: str) -> str:
        """How to bind a name; when it is (nearly) a tool's argument, how to reach that argument."""
        owners: dict[str, str] = {}
        for tool, sig in self.sigs.items():
            for param in sig.params:
                owners.setdefault(param.name, tool)
        arg = closest(name, owners)
        if arg is not None:
            tool = owners[arg]
            return (f"`{arg}` is an argument of `{tool}`, readable only inside its pattern: bind it there, "
                    f"`{tool}({arg}: v)`, and use `v`")
        return f"bind it with `forall {name} in ...:` or in an event pattern `tool(arg: {name})`"

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
        if scope.pattern is not None:  # over a list the call carries: a condition of the pattern
            return provenance.pattern_quantifier(self, e, scope, ir_name)
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
            self.inferring[ir_name] = info
            body = self.formula(e.body, scope.with_var(info))
            self.inferring.pop(ir_name, None)
            if body is None:
                return None
            inferred = self.inferred_domain(info, scope)
            if inferred is None:
                return None
            domain_term = inferred
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
        domain: n.Term = terms[0]
        for term in terms[1:]:
            domain = b.op("add", domain, term)
        return domain

    def when_shall(self, e: ast.WhenShall, scope: Scope) -> Value | None:
        """`when ρ shall χ` is `always (ρ -> χ)`, and only a rule's body (under its `forall`s):
        the rule applies to a run when ρ holds somewhere in it, for some values of those
        variables (`policyc.check.policy.applicability`)."""
        if e is not self.rule_when:
            self.error("E0228", "`when ... shall ...` must be the body of a rule", e.span,
                       help="write it as the rule's formula, under its `forall`s only: "
                            "`rule r: forall x: when p(x) shall q(x)`; elsewhere, write `always (p -> q)`",
                       scope=scope)
            return None
        applies, obliges = self.formula(e.applies, scope), self.formula(e.obliges, scope)
        if applies is None or obliges is None:
            return None
        formula = b.always(b.implies(applies, obliges))
        self.rule_when_value = (applies, formula)
        return FVal(formula, e.span)

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
