"""Declarations -> documents, in the canonical spelling.

A rule's body always starts on its own line, indented by four; the rule's metadata stays on
the header line while it fits and continues on lines indented by eight. Parameter lists,
records, enums and rename maps are one line when they fit, else one item per line with a
trailing comma.
"""

from __future__ import annotations

from typing import Callable

from policyc.fmt.doc import Doc, concat, fill, group, hardline, line, nest
from policyc.fmt.exprs import argument, body, braced, field, parenthesized, type_expr
from policyc.syntax import ast
from policyc.syntax.lexical import PLAIN_NAME, show_label, show_name, show_string

#: Formats the rules of a procedure with their comments, None if it has nothing inside
#: (provided by the module formatter, which knows the comments).
RuleBlock = Callable[[ast.ProcedureDecl], "Doc | None"]


def number(value: int | float) -> str:
    return repr(value)


def severity(s: ast.SeverityExpr) -> str:
    return show_label(s.name) + (f"({s.arg})" if s.arg is not None else "")


def _described(head: Doc, description: str | None) -> Doc:
    return concat(head, " ", show_string(description)) if description is not None else head


def _params(params: tuple[ast.Param, ...]) -> Doc:
    return parenthesized([field(p) for p in params])


def _arg_renames(renames: tuple[ast.ArgRename, ...]) -> Doc:
    return braced([f"{show_name(r.old)} -> {show_name(r.new)}" for r in renames])


def _enum_member(member: str) -> str:
    return member if PLAIN_NAME.match(member) else show_string(member)


def _meta(m: ast.RuleMeta) -> Doc:
    if isinstance(m, ast.MetaLayer):
        return f"layer {show_label(m.name)}"
    if isinstance(m, ast.MetaWeight):
        return f"weight {number(m.value)}"
    if isinstance(m, ast.MetaSeverity):
        return f"severity {severity(m.severity)}"
    return f"message {show_string(m.text)}"


def rule(r: ast.RuleDecl) -> Doc:
    words: list[Doc] = [concat("rule ", show_label(r.name))]
    if r.description is not None:
        words.append(show_string(r.description))
    words.extend(_meta(m) for m in r.meta)
    words[-1] = concat(words[-1], ":")
    header = nest(8, fill(words))
    return concat(header, nest(4, concat(hardline(), body(r.body))))


def _definition(keyword: str, name: str, params: tuple[ast.Param, ...], definition: ast.Expr) -> Doc:
    head = concat(keyword, " ", show_name(name), _params(params), " :=")
    return group(concat(head, nest(4, concat(line(), body(definition)))))


def declaration(d: ast.Decl, rules: RuleBlock) -> Doc:  # noqa: C901 - one case per declaration
    if isinstance(d, ast.RuleDecl):
        return rule(d)
    if isinstance(d, ast.ToolDecl):
        head = concat("terminal " if d.terminal else "", f"{d.trust} " if d.trust else "", "tool ",
                      show_name(d.name), _params(d.params))
        return concat(head, concat(" -> ", type_expr(d.result)) if d.result is not None else "")
    if isinstance(d, ast.AliasDecl):
        head = concat("terminal " if d.terminal else "", f"{d.trust} " if d.trust else "", "tool ",
                      show_name(d.name), " = ", show_name(d.target))
        return concat(head, concat(" ", _arg_renames(d.renames)) if d.renames else "")
    if isinstance(d, ast.PolicyDecl):
        return _described(f"policy {show_label(d.name)}", d.description)
    if isinstance(d, ast.ImportDecl):
        target = show_string(d.target) if d.is_file else ".".join(show_label(p) for p in d.target.split("."))
        if not d.renames:
            return f"import {target}"
        renames = [concat(f"{show_name(r.old)} -> {show_name(r.new)}",
                          concat(" ", _arg_renames(r.args)) if r.args else "") for r in d.renames]
        return concat(f"import {target} rename ", braced(renames))
    if isinstance(d, ast.TypeDecl):
        return concat(f"type {show_label(d.name)} = ", braced([field(f) for f in d.fields]))
    if isinstance(d, ast.EnumDecl):
        return concat(f"enum {show_label(d.name)} ", braced([_enum_member(m) for m in d.members]))
    if isinstance(d, ast.LayerDecl):
        return _described(f"layer {show_label(d.name)}", d.description)
    if isinstance(d, ast.PredicateDecl):
        return _definition("predicate", d.name, d.params, d.body)
    if isinstance(d, ast.DefDecl):
        return _definition("def", d.name, d.params, d.body)
    if isinstance(d, ast.ExternDecl):
        head = concat("extern predicate ", show_name(d.name), _params(d.params))
        return concat(head, f" from {show_string(d.binding)}" if d.binding is not None else "")
    if isinstance(d, ast.ProcedureDecl):
        head = concat("procedure ", show_label(d.name), _params(d.params), " {")
        body = rules(d)
        if body is None:
            return concat(head, "}")
        return concat(head, nest(4, concat(hardline(), body)), hardline(), "}")
    if isinstance(d, ast.UseDecl):
        call = concat("use ", show_label(d.name), parenthesized([argument(a) for a in d.args]))
        return concat(call, f" as {show_label(d.alias)}" if d.alias is not None else "")
    if isinstance(d, ast.BudgetDecl):
        return f"budget {d.value}"
    if isinstance(d, ast.ConformanceDecl):
        return f"conformance {severity(d.severity)}" + (f" {d.scope} only" if d.scope is not None else "")
    if isinstance(d, ast.UndecidedDecl):
        kinds = f" for {', '.join(show_label(k) for k in d.severities)}" if d.severities else ""
        return f"undecided {show_label(d.action)}{kinds}"
    if isinstance(d, ast.ObserveDecl):
        return "observe " + ", ".join(show_label(name) for name in d.names)
    if isinstance(d, ast.GroundingDecl):
        return f"grounding {show_label(d.name)}"
    if isinstance(d, ast.ClaimsDecl):
        return f"claims {', '.join(show_string(p) for p in d.phrases)} by {show_name(d.tool)}"
    raise TypeError(f"cannot format {type(d).__name__}")


def group_key(d: ast.Decl) -> str:
    """Declarations of one kind that stay together, without blank lines, when written so."""
    if isinstance(d, ast.ToolDecl | ast.AliasDecl):
        return "tool"
    if isinstance(d, ast.TypeDecl | ast.EnumDecl):
        return "type"
    if isinstance(d, ast.BudgetDecl | ast.ConformanceDecl | ast.UndecidedDecl | ast.ObserveDecl | ast.GroundingDecl):
        return "setting"
    if isinstance(d, ast.ClaimsDecl):
        return "claims"
    if isinstance(d, ast.DefDecl | ast.PredicateDecl):
        return "def"
    return type(d).__name__


