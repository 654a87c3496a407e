"""Type expressions -> types, and tool declarations -> signatures."""

from __future__ import annotations

from dataclasses import dataclass

from policyc.check.suggest import did_you_mean, unknown_fields
from policyc.check.symbols import Symbols
from policyc.diagnostics import Diagnostic
from policyc.ir import types as t
from policyc.syntax import ast

#: Parameter kinds of macros and procedures, beyond data types.
KINDS = {
    "event": "a formula, usually a tool or an event pattern",
    "formula": "any formula",
    "tool": "a tool or an event pattern that the body may refine with more conditions",
    "cmp": 'a comparison operator, as a string: "==", "!=", "<", "<=", ">", ">="',
}


@dataclass(frozen=True, slots=True)
class Kind:
    """A macro parameter kind: `event`, `formula`, `tool`, `cmp`, or a list of one of them."""

    name: str
    is_list: bool = False

    def __str__(self) -> str:
        return f"list[{self.name}]" if self.is_list else self.name


ParamType = t.Type | Kind


class TypeResolver:
    def __init__(self, syms: Symbols, diagnostics: list[Diagnostic]):
        self.syms = syms
        self.diags = diagnostics
        self._named: dict[str, t.Type] = {}
        self._resolving: set[str] = set()

    def named(self, name: str) -> t.Type | None:
        if name in self._named:
            return self._named[name]
        entry = self.syms.types.get(name)
        if entry is None:
            return None
        decl = entry.decl
        if isinstance(decl, ast.EnumDecl):
            for i, member in enumerate(decl.members):
                if member in decl.members[:i]:
                    self.diags.append(Diagnostic("E0213", f"`{member}` is listed twice in the enum `{name}`",
                                                 decl.span, help="list each member once"))
            result: t.Type = t.EnumT(decl.name, tuple(dict.fromkeys(decl.members)))
        else:
            if name in self._resolving:
                self.diags.append(Diagnostic("E0221", f"the record type `{name}` contains itself", decl.span,
                                             help="a record cannot have a field of its own type"))
                return t.ANY
            self._resolving.add(name)
            result = t.RecordT(decl.name, self.record_fields(decl.fields, f"`{name}`"))
            self._resolving.discard(name)
        self._named[name] = result
        return result

    def resolve(self, expr: ast.TypeExpr, allow_kinds: bool = False) -> ParamType:
        if isinstance(expr, ast.RecordType):
            return t.RecordT("", self.record_fields(expr.fields, "the record"))
        if isinstance(expr, ast.OptionalType):
            inner = self.resolve(expr.inner, allow_kinds)
            if isinstance(inner, Kind):
                self.diags.append(Diagnostic("E0221", f"`{inner}` cannot be optional", expr.span))
                return inner
            return t.OptionalT(inner)
        name, args = expr.name, expr.args
        if allow_kinds and name in KINDS and not args:
            return Kind(name)
        if name in t.PRIMITIVES and not args:
            return t.PRIMITIVES[name]
        if name == "list":
            if len(args) != 1:
                self.diags.append(Diagnostic("E0221", "`list` takes one type: `list[T]`", expr.span))
                return t.ListT(t.ANY)
            inner = self.resolve(args[0], allow_kinds)
            if isinstance(inner, Kind):
                return Kind(inner.name, True)
            return t.ListT(inner)
        if name == "dict":
            if len(args) == 1:
                value = self.resolve(args[0])
            elif len(args) == 2:
                key = self.resolve(args[0])
                if key is not t.STR:
                    self.diags.append(Diagnostic("E0221", "dictionary keys are strings: `dict[str, T]`", args[0].span))
                value = self.resolve(args[1])
            else:
                self.diags.append(Diagnostic("E0221", "`dict` takes a value type: `dict[str, T]`", expr.span))
                value = t.ANY
            return t.DictT(value if not isinstance(value, Kind) else t.ANY)
        if not args:
            named = self.named(name)
            if named is not None:
                return named
        choices = list(t.PRIMITIVES) + ["list", "dict"] + list(self.syms.types) + (list(KINDS) if allow_kinds else [])
        hint = did_you_mean(name, choices)
        if name in KINDS:
            hint = f"`{name}` is a parameter kind of `def` and `procedure`, not a data type"
        self.diags.append(Diagnostic("E0221", f"unknown type `{name}`", expr.span, help=hint,
                                     fields=unknown_fields(name, choices)))
        return t.ANY

    def record_fields(self, fields: tuple[ast.FieldDecl, ...], where: str) -> tuple[tuple[str, t.Type], ...]:
        out = []
        seen: set[str] = set()
        for f in fields:
            if f.name in seen:
                self.diags.append(Diagnostic("E0213", f"field `{f.name}` is declared twice in {where}", f.span,
                                             help="give each field its own name"))
            seen.add(f.name)
            out.append((f.name, self.data_type(f.type)))
        return tuple(out)

    def data_type(self, expr: ast.TypeExpr) -> t.Type:
        resolved = self.resolve(expr)
        return resolved if not isinstance(resolved, Kind) else t.ANY


def signatures(syms: Symbols, resolver: TypeResolver, diags: list[Diagnostic]) -> dict[str, t.ToolSignature]:
    """Every tool's signature, aliases included (an alias renames its target's arguments)."""
    sigs: dict[str, t.ToolSignature] = {}

    def build(name: str, seen: tuple[str, ...] = ()) -> t.ToolSignature | None:
        if name in sigs:
            return sigs[name]
        entry = syms.tools.get(name)
        if entry is None:
            return None
        decl, inst = entry.decl, entry.instance
        if isinstance(decl, ast.ToolDecl):
            params = []
            seen_params: set[str] = set()
            for p in decl.params:
                final = inst.renamer.arg(decl.name, p.name)
                if final in seen_params:
                    diags.append(Diagnostic("E0213", f"argument `{p.name}` is declared twice", p.span))
                seen_params.add(final)
                params.append(t.Param(final, resolver.data_type(p.type)))
            result = resolver.data_type(decl.result) if decl.result is not None else t.ANY
            sig = t.ToolSignature(name, tuple(params), result, decl.terminal)
        else:
            target = inst.renamer.tool(decl.target)
            if target in seen or target == name:
                diags.append(Diagnostic("E0213", f"the alias `{decl.name}` refers to itself", decl.span))
                return None
            base = build(target, seen + (name,))
            if base is None:
                diags.append(Diagnostic("E0201", f"unknown tool `{decl.target}`", decl.span,
                                        help=did_you_mean(decl.target, syms.tools, "tool"),
                                        fields=unknown_fields(decl.target, syms.tools)))
                return None
            renames = {r.old: r.new for r in decl.renames}
            for r in decl.renames:
                if base.param(r.old) is None:
                    diags.append(Diagnostic("E0202", f"`{target}` has no argument `{r.old}`", r.span,
                                            help=did_you_mean(r.old, [p.name for p in base.params], "argument"),
                                            fields={**unknown_fields(r.old, [p.name for p in base.params]),
                                                    "tool": target}))
            renamed = tuple(t.Param(renames.get(p.name, p.name), p.type) for p in base.params)
            sig = t.ToolSignature(name, renamed, base.result, decl.terminal or base.terminal,
                                  base.alias_of or base.name)
        sigs[name] = sig
        return sig

    for name in syms.tools:
        build(name)
    return sigs
