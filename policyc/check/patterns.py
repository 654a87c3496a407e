"""Calls: event patterns with their argument and result conditions, and builtin functions.

The elaboration of `f(...)`: a tool pattern, a macro or predicate, or a builtin. Each function
takes the `Elaborator` whose state and diagnostics it uses, the node and its scope.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from policyc.check.compare import check_compatible
from policyc.check.macros import apply_function
from policyc.check.provenance import text_builtin
from policyc.check.scope import ListVal, Scope, ToolVal, TVal, Value, describe
from policyc.check.suggest import did_you_mean, unknown_fields
from policyc.check.symbols import BUILTIN_FUNCTIONS, TEXT_FUNCTIONS
from policyc.diagnostics import Label
from policyc.ir import build as b
from policyc.ir import nodes as n
from policyc.ir import types as t
from policyc.syntax import ast

if TYPE_CHECKING:
    from policyc.check.elaborate import Elaborator


def call(el: Elaborator, e: ast.Call, scope: Scope) -> Value | None:
    name = e.func
    if name in scope.params:
        target = scope.params[name]
        if isinstance(target, ToolVal):
            return pattern(el, target, e, scope, refine=True)
        el.error("E0210", f"`{name}` is {describe(target)}, not a tool, and cannot take conditions",
                 e.func_span, scope=scope)
        return None
    tool = el.tool_by_name(name, scope, e.func_span)
    if tool is not None:
        return pattern(el, tool, e, scope, refine=False)
    if name in el.syms.functions:
        return apply_function(el, name, e, scope)
    if name in TEXT_FUNCTIONS:
        return text_builtin(el, e, scope)
    if name in BUILTIN_FUNCTIONS:
        return builtin(el, e, scope)
    has_keywords = any(isinstance(a, ast.KeywordArg) for a in e.args)
    if el.not_observed(name, e.func_span, scope):
        return None
    el.unknown_name(name, e.func_span, scope, called=True, keyword=has_keywords)
    return None


def pattern(el: Elaborator, tool: ToolVal, e: ast.Call, scope: Scope, refine: bool) -> Value | None:
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
            guard = keyword_condition(el, tool, a, scope)
        elif _is_condition(el, a, tool):
            tv = el.term(a, inner)
            guard = None
            if tv is not None:
                if t.strip_optional(tv.type) not in (t.BOOL, t.ANY):
                    el.error("E0208", f"a condition must be true or false, not `{tv.type}`", a.span, scope=scope)
                else:
                    guard = tv.term
        else:
            if named is not None:
                el.error("E0209", "a value without an argument name cannot follow a named argument", a.span,
                         labels=(Label(named.name_span, "named here"),),
                         help=f"write it as `argument: value`; the signature is `{sig}`", scope=scope)
                ok = False
                continue
            if positional >= len(sig.params):
                el.error("E0209", f"`{sig.name}` takes {len(sig.params)} argument"
                         f"{'s' if len(sig.params) != 1 else ''}, but more values were given", a.span,
                         help=f"the signature is `{sig}`", scope=scope)
                ok = False
                continue
            param = sig.params[positional]
            positional += 1
            guard = argument_equals(el, tool, param, a, scope)
        if guard is None:
            ok = False
        else:
            guards.append(guard)
    if not ok:
        return None
    return ToolVal(sig, tuple(guards), e.span, tool.arg_name)


def _is_condition(el: Elaborator, a: ast.Expr, tool: ToolVal) -> bool:
    """Whether a positional argument of a pattern is a condition (`x > 1`, `result.ok`,
    `is_even(x)`) rather than the value of the next argument (`search("foo")`)."""
    if isinstance(a, (ast.Comparison, ast.Not, ast.Logic, ast.Quantifier)):
        return True
    root: ast.Expr = a
    while isinstance(root, (ast.FieldAccess, ast.Index, ast.Slice)):
        root = root.target
    if isinstance(root, ast.Name) and root.id == "result":
        return True
    if isinstance(a, ast.Name):
        param = tool.sig.param(tool.arg_name(a.id))
        if param is None:
            return a.id == "error"  # the event attribute, a condition of its own
        return t.strip_optional(param.type) is t.BOOL
    if isinstance(a, ast.Call):
        entry = el.syms.functions.get(a.func)
        is_predicate = entry is not None and isinstance(entry.decl, ast.PredicateDecl | ast.ExternDecl)
        return is_predicate or a.func in ("contains", "startswith", "endswith", "matches", "present", "absent",
                                          "flows")
    return False


def keyword_condition(el: Elaborator, tool: ToolVal, a: ast.KeywordArg, scope: Scope) -> n.Term | None:
    sig = tool.sig
    final = tool.arg_name(a.name)
    param = sig.param(final)
    if param is None and a.name in t.ATTRIBUTE_TYPES:
        target = TVal(b.attr(a.name), t.ATTRIBUTE_TYPES[a.name], a.name_span)
        value = el.term(a.value, scope)
        if value is None or not check_compatible(el, target, value, a, scope,
                                                 expected=f"the event attribute `{a.name}`"):
            return None
        return b.op("eq", target.term, value.term)
    if param is None:
        if a.name == "result":
            target = TVal(b.result(), sig.result, a.name_span)
            value = el.term(a.value, scope)
            if value is None or not check_compatible(el, target, value, a, scope,
                                                     expected=f"the result of `{sig.name}`"):
                return None
            return b.op("eq", target.term, value.term)
        el.error("E0202", f"`{sig.name}` has no argument `{a.name}`", a.name_span,
                 help=did_you_mean(a.name, [p.name for p in sig.params], "argument")
                 or f"the signature is `{sig}`", scope=scope,
                 fields={**unknown_fields(a.name, [p.name for p in sig.params]), "tool": sig.name})
        return None
    return argument_equals(el, tool, param, a.value, scope)


def argument_equals(el: Elaborator, tool: ToolVal, param: t.Param, value: ast.Expr, scope: Scope) -> n.Term | None:
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
            el.error("E0208", f"`{value.id}` is `{info.type}` here but `{tool.tool}.{param.name}` is `{ptype}`",
                     value.span, labels=(Label(info.span, f"`{value.id}` is bound here"),), scope=scope)
            return None
        return b.op("eq", b.arg(param.name), b.var(info.ir_name))
    tv = el.term(value, scope)
    if tv is None:
        return None
    outer = el.inferring.get(tv.term.name) if isinstance(tv.term, n.Var) else None
    if outer is not None:  # a macro's parameter standing for a variable being inferred
        outer.sites.append((tool.tool, (param.name,), False))
        if outer.type is None:
            outer.type = t.strip_optional(param.type)
    target = TVal(b.arg(param.name), param.type, value.span)
    if not check_compatible(el, target, tv, value, scope, expected=f"argument `{param.name}` of `{tool.tool}`"):
        return None
    return b.op("eq", target.term, tv.term)


def builtin(el: Elaborator, e: ast.Call, scope: Scope) -> Value | None:
    name = e.func
    if name == "outputs":
        tools = []
        for a in e.args:
            tv = el.elab(a, scope) if not isinstance(a, ast.KeywordArg) else None
            if not isinstance(tv, ToolVal) or tv.guards:
                el.error("E0210", "`outputs(...)` takes tool names", a.span,
                         help="e.g. `outputs(read_file)`; plain `outputs` covers every tool", scope=scope)
                return None
            tools.append(tv.tool)
        return TVal(b.outputs(tools), t.EntitySetT(), e.span)
    arity = {"len": 1, "abs": 1, "lower": 1, "upper": 1, "strip": 1, "entities": 1, "actions": 1, "min": 2,
             "max": 2,
             "contains": 2, "startswith": 2, "endswith": 2}[name]
    given = e.positional()
    if given is None or len(given) != arity:
        el.error("E0209", f"`{name}` takes {arity} argument{'s' if arity != 1 else ''}", e.span,
                 help=BUILTIN_FUNCTIONS[name], scope=scope)
        return None
    if name == "len":
        v = el.elab(given[0], scope)
        if isinstance(v, ListVal):
            return TVal(b.lit(len(v.items)), t.INT, e.span)
        tv = el.as_term(v, given[0].span, scope)
        if tv is None:
            return None
        if not t.is_collection(tv.type) or isinstance(t.strip_optional(tv.type), t.EntitySetT):
            el.error("E0208", f"`len` needs a list, object or string, not `{tv.type}`", e.args[0].span,
                     scope=scope)
            return None
        return TVal(b.op("len", tv.term), t.INT, e.span)
    maybe = [el.term(a, scope) for a in given]
    args = [a for a in maybe if a is not None]
    if len(args) != len(maybe):
        return None
    terms = [a.term for a in args]
    types_ = [t.strip_optional(a.type) for a in args]
    if name == "entities":
        if not _is_text(types_[0]):
            el.error("E0208", f"`entities` reads text, not `{args[0].type}`", e.args[0].span, scope=scope)
            return None
        return TVal(b.op("entities", terms[0]), t.ListT(t.STR), e.span)
    if name == "actions":
        if not _is_text(types_[0]):
            el.error("E0208", f"`actions` reads text, not `{args[0].type}`", e.args[0].span, scope=scope)
            return None
        if not el.syms.claims:
            el.error("E0245", "`actions(...)` needs `claims` declarations, and the policy has none",
                     e.span, help='declare the phrases that claim a tool\'s action: '
                                  '`claims "refund", "refunded" by issue_refund`', scope=scope)
            return None
        claims = {tool: list(phrases) for tool, phrases in sorted(el.syms.claims.items())}
        return TVal(b.op("actions", terms[0], b.lit(claims)), t.ListT(t.STR), e.span)
    if name in ("abs",):
        if not t.is_numeric(types_[0]):
            el.error("E0208", f"`abs` needs a number, not `{args[0].type}`", e.args[0].span, scope=scope)
            return None
        return TVal(b.op(name, *terms), types_[0], e.span)
    if name in ("min", "max"):
        return TVal(b.op(name, *terms), t.join(types_[0], types_[1]), e.span)
    for a, ty in zip(e.args, types_):
        if ty not in (t.STR, t.ANY) and not isinstance(ty, t.EnumT):
            el.error("E0208", f"`{name}` works on strings, not `{ty}`", a.span, scope=scope)
            return None
    if name in ("lower", "upper", "strip"):
        return TVal(b.op(name, *terms), t.STR, e.span)
    return TVal(b.op(name, *terms), t.BOOL, e.span)


def _is_text(ty: t.Type) -> bool:
    """A string, a list of strings, or unknown: what `entities` and `actions` read."""
    return ty in (t.STR, t.ANY) or isinstance(ty, t.ListT) and ty.elem in (t.STR, t.ANY)
