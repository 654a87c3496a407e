"""Macros, predicates and externs: binding arguments to parameters, expansion, implicit variables.

The application of `def`, `predicate` and `extern` declarations, and the variables event
patterns bind. Each function takes the `Elaborator` whose state and diagnostics it uses.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Iterable, Literal

from policyc.check.compare import check_compatible
from policyc.check.scope import EnumVal, FVal, ListVal, Scope, ToolVal, TVal, Value, VarInfo, describe
from policyc.check.suggest import did_you_mean, unknown_fields
from policyc.check.typing import Kind
from policyc.diagnostics import Span
from policyc.ir import build as b
from policyc.ir import nodes as n
from policyc.ir import types as t
from policyc.syntax import ast

if TYPE_CHECKING:
    from policyc.check.elaborate import Elaborator


MAX_EXPANSION_DEPTH = 600
CMP_OPS = ("==", "!=", "<", "<=", ">", ">=")


class ExpansionTooDeep(Exception):
    """A macro expansion went deeper than MAX_EXPANSION_DEPTH (already reported as E0219)."""


def bind_arguments(el: Elaborator, params: tuple[ast.Param, ...], args: tuple, what: str, call_span: Span,
                   scope: Scope, signature: str) -> list[tuple[ast.Param, ast.Expr]] | None:
    positional = [a for a in args if not isinstance(a, ast.KeywordArg)]
    keywords = {a.name: a for a in args if isinstance(a, ast.KeywordArg)}
    if len(positional) > len(params):
        el.error("E0209", f"{what} takes {len(params)} argument{'s' if len(params) != 1 else ''} "
                 f"but {len(args)} were given", call_span, help=f"the signature is `{signature}`", scope=scope)
        return None
    bound: list[tuple[ast.Param, ast.Expr]] = []
    for i, p in enumerate(params):
        if i < len(positional):
            if p.name in keywords:
                el.error("E0209", f"argument `{p.name}` is given twice", keywords[p.name].span, scope=scope)
                return None
            bound.append((p, positional[i]))
        elif p.name in keywords:
            bound.append((p, keywords.pop(p.name).value))
        else:
            el.error("E0209", f"{what} is missing its argument `{p.name}`", call_span,
                     help=f"the signature is `{signature}`", scope=scope)
            return None
    for extra in keywords.values():
        if extra.name not in {p.name for p in params}:
            el.error("E0209", f"{what} has no parameter `{extra.name}`", extra.name_span,
                     help=did_you_mean(extra.name, [p.name for p in params], "parameter")
                     or f"the signature is `{signature}`", scope=scope,
                     fields=unknown_fields(extra.name, [p.name for p in params]))
            return None
    return bound


def signature_text(name: str, params: tuple[ast.Param, ...]) -> str:
    def show_type(te) -> str:
        if isinstance(te, ast.OptionalType):
            return show_type(te.inner) + "?"
        if te.args:
            return f"{te.name}[{', '.join(show_type(a) for a in te.args)}]"
        return te.name

    return f"{name}({', '.join(f'{p.name}: {show_type(p.type)}' for p in params)})"


def bind_param(el: Elaborator, param: ast.Param, expected, arg: ast.Expr, scope: Scope, what: str) -> Value | None:
    """Elaborate one macro argument in the caller's scope and check it against the parameter kind."""
    value = el.elab(arg, scope)
    if value is None:
        return None

    def wrong(kind_text: str) -> None:
        el.error("E0210", f"{what} expects {kind_text} for `{param.name}`, found {describe(value)}",
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
                one = _kind_item(el, Kind(expected.name), item, arg, scope, what, param)
                if one is None:
                    return None
                out.append(one)
            return ListVal(tuple(out), arg.span)
        return _kind_item(el, expected, value, arg, scope, what, param)
    tv = el.as_term(value, arg.span, scope)
    if tv is None:
        return None
    target = TVal(b.var(param.name), expected, param.span)
    described = f"`{param.name}` of {what}"
    if not check_compatible(el, target, tv, arg, scope, expected=described):
        return None
    if t.strip_optional(expected) is t.INT and t.strip_optional(tv.type) is t.FLOAT:
        el.error("E0208", f"{described} is `int`, but the value given is `float`", arg.span,
                 help="write a whole number", scope=scope)
        return None
    return tv


def _kind_item(el: Elaborator, kind: Kind, value: Value, arg: ast.Expr, scope: Scope, what: str,
               param: ast.Param) -> Value | None:
    if kind.name == "tool":
        if not isinstance(value, ToolVal):
            el.error("E0210", f"{what} expects a tool for `{param.name}`, found {describe(value)}", arg.span,
                     help="pass a tool name or an event pattern such as `search(query: q)`", scope=scope)
            return None
        return value
    if kind.name == "cmp":
        if isinstance(value, TVal) and isinstance(value.term, n.Lit) and value.term.value in CMP_OPS:
            return value
        el.error("E0210", f"{what} expects a comparison operator for `{param.name}`", arg.span,
                 help='one of "==", "!=", "<", "<=", ">", ">="', scope=scope)
        return None
    if isinstance(value, TVal) and t.strip_optional(value.type) not in (t.BOOL, t.ANY):
        el.error("E0210", f"{what} expects {'an event' if kind.name == 'event' else 'a formula'} for "
                 f"`{param.name}`, found {describe(value)}", arg.span,
                 help="pass a tool, an event pattern such as `search(query: q)`, or a formula", scope=scope)
        return None
    f = el.as_formula(value, arg.span, scope)
    return FVal(f, value.span) if f is not None else None


def apply_function(el: Elaborator, name: str, e: ast.Call, scope: Scope, extra: tuple = ()) -> Value | None:
    entry = el.syms.functions[name]
    decl, inst = entry.decl, entry.instance
    sig_text = signature_text(name, decl.params)
    what = {ast.DefDecl: "`{}`", ast.PredicateDecl: "the predicate `{}`",
            ast.ExternDecl: "the extern predicate `{}`"}[type(decl)].format(name)
    bound = bind_arguments(el, decl.params, e.args + extra, what, e.span, scope, sig_text)
    if bound is None:
        return None
    if scope.depth >= MAX_EXPANSION_DEPTH:
        el.error("E0219", f"the expansion of `{name}` does not end within {MAX_EXPANSION_DEPTH} levels",
                 e.span, help="a recursive `def` must reach a base case through `if ... then ... else` on "
                              f"constants; counts and chains longer than {MAX_EXPANSION_DEPTH - 100} "
                              "are beyond what policyc expands",
                 scope=scope)
        raise ExpansionTooDeep(name)
    params: dict[str, Value] = {}
    for p, arg in bound:
        expected = el.types.resolve(p.type, allow_kinds=isinstance(decl, ast.DefDecl))
        if not isinstance(decl, ast.DefDecl) and isinstance(expected, Kind):
            expected = t.ANY
        value = bind_param(el, p, expected, arg, scope, what)
        if value is None:
            return None
        params[p.name] = value
    if isinstance(decl, ast.ExternDecl):
        terms = [params[p.name].term for p in decl.params]  # type: ignore[union-attr]
        return TVal(b.extern(name, *terms), t.BOOL, e.span)
    memo_key = (name, tuple((k, _value_key(v)) for k, v in params.items()))
    cached = el.expansions.get(memo_key)
    if cached is not None:
        return replace(cached, span=e.span)
    errors_before = len(el.diags)
    body_scope = Scope(inst, {}, params, None, scope.depth + 1, f"`{name}` at {e.span}")
    if isinstance(decl, ast.PredicateDecl):
        tv = el.term(decl.body, body_scope)
        if tv is None:
            return None
        if t.strip_optional(tv.type) not in (t.BOOL, t.ANY):
            el.error("E0208", f"the predicate `{name}` must be true or false, but its body is `{tv.type}`",
                     decl.body.span)
            return None
        expanded: Value | None = TVal(tv.term, t.BOOL, e.span)
    else:
        expanded = with_implicit_bindings(el, decl.body, body_scope)
    if expanded is None or isinstance(expanded, EnumVal):
        return expanded
    if len(el.diags) == errors_before:
        el.expansions[memo_key] = expanded
    return replace(expanded, span=e.span)


def counting_sugar(el: Elaborator, e: ast.Comparison, scope: Scope) -> Value | None | Literal[False]:
    """`called_n(t) >= 2` reads as `called_n(t, ">=", 2)` for macros whose last parameters are (cmp, int)."""
    call = e.left
    assert isinstance(call, ast.Call)
    entry = el.syms.functions.get(call.func)
    if entry is None or not isinstance(entry.decl, ast.DefDecl) or call.func in scope.params:
        return False
    params = entry.decl.params
    if len(params) < 2 or len(call.args) != len(params) - 2:
        return False
    cmp_type = params[-2].type
    if not (isinstance(cmp_type, ast.TypeName) and cmp_type.name == "cmp"):
        return False
    extra = (ast.Literal(e.op, "str", span=e.span), e.right)
    return apply_function(el, call.func, call, scope, extra)


# ------------------------------------------------------------ implicit bindings


def with_implicit_bindings(el: Elaborator, body: ast.Expr, scope: Scope) -> Value | None:
    """Elaborate a rule or macro body; variables first bound in event patterns are
    universally quantified at its top, over the values those patterns bind."""
    implicit = implicit_variables(el, body, scope)
    if not implicit:
        return el.elab(body, scope)
    infos = []
    inner = scope
    for name, span in implicit:
        info = VarInfo(name, el.fresh_name(name, el.captured_names(scope)), None, span, infer=True,
                       implicit=True)
        infos.append(info)
        inner = inner.with_var(info)
        el.inferring[info.ir_name] = info
    try:
        f = el.formula(body, inner)
    finally:
        for info in infos:
            el.inferring.pop(info.ir_name, None)
    if f is None:
        return None
    for info in reversed(infos):
        if info.uses <= 1:
            el.warn("W0207", f"variable `{info.name}` is bound but never used", info.span,
                    help="use `_` to accept any value, or compare the argument with a constant")
        domain = el.inferred_domain(info, scope)
        if domain is None:
            return None
        f = b.forall(info.ir_name, info.type or t.ANY, domain, f)
    return FVal(f, body.span)


def implicit_variables(el: Elaborator, body: ast.Expr, scope: Scope) -> list[tuple[str, Span]]:
    found: dict[str, Span] = {}

    def resolves(name: str, bound: set[str]) -> bool:
        return (name in bound or name in scope.vars or name in scope.params or name in el.syms.functions
                or name in el.syms.types or name in ("_", "outputs", "done", "metrics", "result", "request")
                or scope.instance.renamer.tool(name) in el.sigs)

    def visit(node, bound: set[str]) -> None:
        if isinstance(node, ast.Quantifier):
            if node.domain is not None:
                visit(node.domain, bound)
            visit(node.body, bound | {node.var})
            return
        if isinstance(node, ast.Call):
            param = scope.params.get(node.func)
            sig = param.sig if isinstance(param, ToolVal) else None if param is not None else \
                el.sigs.get(scope.instance.renamer.tool(node.func))
            for a in node.args:
                if isinstance(a, ast.KeywordArg):
                    v = a.value
                    attribute = a.name in t.ATTRIBUTE_TYPES and (sig is None or sig.param(a.name) is None)
                    if sig is not None and not attribute and isinstance(v, ast.Name) \
                            and not resolves(v.id, bound) and v.id not in found:
                        found[v.id] = v.span
                    visit(v, bound)
                else:
                    if sig is not None and isinstance(a, ast.Comparison) and a.op == "==":
                        for name, other in ((a.left, a.right), (a.right, a.left)):
                            if isinstance(name, ast.Name) and _is_call_path(other, sig) \
                                    and not resolves(name.id, bound) and name.id not in found:
                                found[name.id] = name.span  # `result.total == m` binds m
                    visit(a, bound)
            return
        for child in _ast_children(node):
            visit(child, bound)

    visit(body, set())
    return list(found.items())


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


def _is_call_path(e: ast.Expr, sig) -> bool:
    """Whether `e` is a path into a call: `result...`, or an argument of `sig` and its fields."""
    while isinstance(e, (ast.FieldAccess, ast.Index)):
        e = e.target
    return isinstance(e, ast.Name) and (e.id == "result" or sig.param(e.id) is not None)
