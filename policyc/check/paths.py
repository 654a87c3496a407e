"""Field access, indexing and slicing, `[*]`, and the trace-wide paths `tool.arg` and `tool.result...`.

The elaboration of `x.f`, `x[i]`, `x[a:b]`, `list[*].f` and rooted paths (`search.query`,
`metrics.steps`): each function takes the `Elaborator` whose state and diagnostics it uses,
the node and its scope.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from policyc.check.scope import EnumVal, ListVal, Scope, ToolVal, TVal, Value
from policyc.check.suggest import closest, did_you_mean, unknown_fields
from policyc.diagnostics import Span
from policyc.ir import build as b
from policyc.ir import nodes as n
from policyc.ir import types as t
from policyc.syntax import ast

if TYPE_CHECKING:
    from policyc.check.elaborate import Elaborator


def field_access(el: Elaborator, e: ast.FieldAccess, scope: Scope) -> Value | None:
    chain = _chain(e)
    if chain is not None:
        root, steps = chain
        special = rooted_path(el, root, steps, e, scope)
        if special is not False:
            return special
    base = el.elab(e.target, scope)
    if isinstance(base, EnumVal):
        members = base.type.members  # type: ignore[union-attr]
        if e.name not in members:
            el.error("E0203", f"`{base.type}` has no member `{e.name}`", e.name_span,
                     help=did_you_mean(e.name, members, "member"), scope=scope,
                     fields={**unknown_fields(e.name, members), "type": str(base.type)})
            return None
        return TVal(b.lit(e.name), base.type, e.span)
    tv = el.as_term(base, e.target.span, scope)
    if tv is None:
        return None
    if isinstance(tv.term, n.Project):  # `rows[*].field`: the field of every row
        return projected_field(el, tv, e, scope)
    ftype = field_type(el, tv.type, e.name, e.name_span, scope)
    if ftype is None:
        return None
    return TVal(b.field(tv.term, e.name), ftype, e.span)


def field_type(el: Elaborator, base: t.Type, name: str, span: Span, scope: Scope) -> t.Type | None:
    bt = t.strip_optional(base)
    if bt is t.ANY:
        return t.ANY
    if isinstance(bt, t.RecordT):
        ft = bt.field(name)
        if ft is None:
            el.error("E0203", f"`{bt}` has no field `{name}`", span,
                     help=did_you_mean(name, [f for f, _ in bt.fields], "field"), scope=scope,
                     fields={**unknown_fields(name, [f for f, _ in bt.fields]), "type": str(bt)})
        return ft
    if isinstance(bt, t.DictT):
        return bt.value
    el.error("E0203", f"a value of type `{base}` has no field `{name}`", span, scope=scope)
    return None


def _chain(e: ast.Expr) -> tuple[ast.Name, list[tuple[str | int, Span]]] | None:
    """`a.b[0].c` as its root name and its steps (field names and constant indexes, with their spans)."""
    steps: list[tuple[str | int, Span]] = []
    cur = e
    while True:
        if isinstance(cur, ast.FieldAccess):
            steps.append((cur.name, cur.name_span))
            cur = cur.target
        elif isinstance(cur, ast.Index) and isinstance(cur.index, ast.Literal) and cur.index.kind == "int" \
                and isinstance(cur.index.value, int):
            steps.append((cur.index.value, cur.index.span))
            cur = cur.target
        elif isinstance(cur, ast.Name):
            return cur, list(reversed(steps))
        else:
            return None


def rooted_path(el: Elaborator, root: ast.Name, steps: list[tuple[str | int, Span]], e: ast.Expr,
                scope: Scope) -> Value | None | Literal[False]:
    """`tool.arg...`, `tool.result...` (trace-wide domains), `metrics...`; False: not one of these."""
    name = root.id
    if name in scope.params or name in scope.vars:
        param = scope.params.get(name)
        if not isinstance(param, ToolVal):
            return False
        tool = param
    elif scope.pattern is not None and (scope.pattern.sig.param(scope.pattern.arg_name(name)) or name == "result"):
        return False
    elif name == "metrics" and name not in el.sigs:
        return TVal(b.metric(tuple(s for s, _ in steps)), t.ANY, e.span)
    else:
        found = el.tool_by_name(name, scope, root.span)
        if found is None:
            return False
        tool = found
    first, first_span = steps[0]
    if first == "result":
        path: list = ["result"]
        ty: t.Type = tool.sig.result
    else:
        if not isinstance(first, str):
            el.error("E0202", f"`{tool.tool}` is a tool; index one of its arguments", first_span, scope=scope)
            return None
        final = tool.arg_name(first)
        declared = tool.sig.param(final)
        if declared is None:
            names = [p.name for p in tool.sig.params]
            best = closest(first, names + ["result"])
            listed = ", ".join(f"`{a}`" for a in names)
            hint = (f"did you mean `{best}`?" if best else
                    (f"the arguments of `{tool.tool}` are {listed}" if names else f"`{tool.tool}` takes no arguments")
                    + f"; its result is `{tool.tool}.result`")
            el.error("E0202", f"`{tool.tool}` has no argument `{first}`", first_span, help=hint, scope=scope,
                     fields={"name": first, **({"suggestion": best} if best else {}), "tool": tool.tool})
            return None
        path, ty = [final], declared.type
    for step, span in steps[1:]:
        if isinstance(step, int):
            inner = t.strip_optional(ty)
            if inner is not t.ANY and not isinstance(inner, t.ListT):
                el.error("E0208", f"cannot index a value of type `{ty}`", span, scope=scope)
                return None
            ty = t.element_type(inner)
        else:
            nt = field_type(el, ty, step, span, scope)
            if nt is None:
                return None
            ty = nt
        path.append(step)
    ty = t.strip_optional(ty)
    flatten = isinstance(ty, t.ListT)
    elem = ty.elem if isinstance(ty, t.ListT) else ty
    return TVal(b.values(tool.tool, tuple(path), flatten), t.ListT(elem), e.span)


def index(el: Elaborator, e: ast.Index, scope: Scope) -> Value | None:
    chain = _chain(e)
    if chain is not None:
        special = rooted_path(el, chain[0], chain[1], e, scope)
        if special is not False:
            return special
    base = el.elab(e.target, scope)
    idx = el.term(e.index, scope)
    if base is None or idx is None:
        return None
    if isinstance(base, ListVal):
        if isinstance(idx.term, n.Lit) and isinstance(idx.term.value, int):
            i = idx.term.value
            if -len(base.items) <= i < len(base.items):
                return base.items[i]
        el.error("E0208", "a list of formulas can only be indexed by a constant within its length", e.span,
                 scope=scope)
        return None
    tv = el.as_term(base, e.target.span, scope)
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
        el.error("E0208", f"cannot index a value of type `{tv.type}`", e.span, scope=scope)
        return None
    return TVal(b.index(tv.term, idx.term), ty, e.span)


def slice(el: Elaborator, e: ast.Slice, scope: Scope) -> Value | None:
    base = el.elab(e.target, scope)
    start = el.term(e.start, scope) if e.start is not None else None
    stop = el.term(e.stop, scope) if e.stop is not None else None
    if base is None:
        return None
    if isinstance(base, ListVal):
        bounds: list[int | None] = []
        for bound in (start, stop):
            if bound is None:
                bounds.append(None)
            elif isinstance(bound.term, n.Lit) and isinstance(bound.term.value, int):
                bounds.append(bound.term.value)
            else:
                el.error("E0208", "a list of formulas can only be sliced by constants", e.span, scope=scope)
                return None
        return ListVal(base.items[bounds[0]:bounds[1]], e.span)
    tv = el.as_term(base, e.target.span, scope)
    if tv is None:
        return None
    return TVal(b.slice_(tv.term, start.term if start else None, stop.term if stop else None), tv.type, e.span)


def spread(el: Elaborator, e: ast.Spread, scope: Scope) -> Value | None:
    """`list[*]`: the elements of a list, which a field access then reads each of."""
    base = el.term(e.target, scope)
    if base is None:
        return None
    if isinstance(base.term, n.Project):
        el.error("E0208", "a path takes one `[*]`", e.span,
                 help="quantify over the outer list instead: `exists t in result: exists l in t.lines: ...`",
                 scope=scope)
        return None
    bt = t.strip_optional(base.type)
    if not isinstance(bt, t.ListT) and bt is not t.ANY:
        el.error("E0208", f"`[*]` reads the elements of a list, not of a value of type `{base.type}`", e.span,
                 scope=scope)
        return None
    return TVal(b.project(base.term, ()), t.ListT(t.element_type(bt)), e.span)


def projected_field(el: Elaborator, tv: TVal, e: ast.FieldAccess, scope: Scope) -> Value | None:
    """`list[*].field`: that field of every element."""
    assert isinstance(tv.term, n.Project)
    ft = field_type(el, t.element_type(tv.type), e.name, e.name_span, scope)
    if ft is None:
        return None
    return TVal(b.project(tv.term.base, tv.term.path + (e.name,)), t.ListT(t.strip_optional(ft)), e.span)
