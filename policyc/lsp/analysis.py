"""What the language server knows about one open document, as pure functions of its text.

`analyse(text, path)` checks the text as the file at `path` (imports resolve beside it) and
indexes every declaration the policy can see: its own, its imports' and the standard
library's, each with the file and span of its name. `hover` and `definition` answer for a
(line, column) of the text; `formatted` is `policyc fmt`'s output. Lines and columns here
are 0-based and count code points; the server converts to the client's UTF-16 units.

>>> text = 'policy p\\ntool search(query: str) -> list[str]\\nrule found severity block: called(search)\\n'
>>> analysis = analyse(text, "p.altl")
>>> analysis.diagnostics
[]
>>> print(hover(analysis, 2, 37))
```altl
tool search(query: str) -> list[str]
```
named by rule `found`
>>> definition(analysis, 2, 37)
('p.altl', 1, 5, 1, 11)
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from policyc.diagnostics import Diagnostic, Span
from policyc.ir.policy import Policy

_WORD = re.compile(r"`[^`\n]+`|[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")


@dataclass(frozen=True)
class Declaration:
    kind: str  # tool, predicate, extern, def, procedure, type, enum, layer, rule
    name: str
    span: Span  # the declaration
    name_span: Span  # its name (where "go to definition" lands)


@dataclass
class Analysis:
    path: str
    text: str
    diagnostics: list[Diagnostic]
    declarations: dict[str, Declaration] = field(default_factory=dict)
    policy: Policy | None = None  # the checked policy, when the text has no errors
    rules_naming: dict[str, list[str]] = field(default_factory=dict)  # tool -> rules that name it


def _name_span(decl: Any) -> Span:
    span = getattr(decl, "name_span", None)
    if span is not None and span.end > span.start:
        return span
    match = re.search(rf"\b{re.escape(decl.name)}\b", decl.span.text)  # types and layers carry no name span
    if match is None:
        return decl.span
    return Span(decl.span.source, decl.span.start + match.start(), decl.span.start + match.end())


def analyse(text: str, path: str) -> Analysis:
    """Check `text` as the file `path` and index the declarations it can see."""
    from policyc.check import check_graph
    from policyc.check.modules import load_text
    from policyc.check.symbols import collect
    from policyc.diagnostics import has_errors, sort_diagnostics
    from policyc.syntax import ast

    graph, diagnostics = load_text(text, path)
    if graph is None:
        return Analysis(path, text, sort_diagnostics(diagnostics))
    policy, more = check_graph(graph)
    out = Analysis(path, text, sort_diagnostics(diagnostics + more))
    out.policy = None if has_errors(out.diagnostics) else policy
    syms, _ = collect(graph)
    kinds = {ast.ToolDecl: "tool", ast.AliasDecl: "tool", ast.PredicateDecl: "predicate", ast.ExternDecl: "extern",
             ast.DefDecl: "def", ast.ProcedureDecl: "procedure", ast.TypeDecl: "type", ast.EnumDecl: "enum",
             ast.LayerDecl: "layer"}
    for table in (syms.tools, syms.functions, syms.procedures, syms.types, syms.layers):
        for name, entry in table.items():
            found: Any = entry.decl
            out.declarations[name] = Declaration(kinds[type(found)], name, found.span, _name_span(found))
    for rule_entry in syms.rules:
        if rule_entry.instance is graph.root:
            decl = rule_entry.decl
            out.declarations.setdefault(decl.name, Declaration("rule", decl.name, decl.span, _name_span(decl)))
    if out.policy is not None:
        from policyc.ir.walk import tools_mentioned

        for rule in out.policy.rules:
            for tool in tools_mentioned(rule.formula):
                out.rules_naming.setdefault(tool, []).append(rule.name)
    return out


def word_at(text: str, line: int, column: int) -> str | None:
    """The name under (line, column): an identifier or a backticked name; in a dotted name
    (`lookup_order.result.sku`), the parts up to the one under the cursor."""
    lines = text.split("\n")
    if not 0 <= line < len(lines):
        return None
    for m in _WORD.finditer(lines[line]):
        if m.start() <= column <= m.end():
            word = m.group(0)
            if word.startswith("`"):
                return word[1:-1]
            end = word.find(".", column - m.start())
            return word if end < 0 else word[:end]
    return None


def lookup(analysis: Analysis, line: int, column: int) -> Declaration | None:
    word = word_at(analysis.text, line, column)
    if word is None:
        return None
    for candidate in (word, word.split(".")[0]):
        found = analysis.declarations.get(candidate)
        if found is not None:
            return found
    return None


def _first_line(span: Span) -> str:
    text = span.text.strip()
    head = text.split(":=", 1)[0].rstrip() if ":=" in text else text
    return " ".join(head.split()) if len(head) < 300 else head[:300] + " ..."


def hover(analysis: Analysis, line: int, column: int) -> str | None:
    """Markdown for the name under the cursor: a tool's signature, a rule's class and severity,
    a predicate's or macro's header, a type's declaration."""
    from policyc.check.symbols import BUILTIN_FUNCTIONS

    decl = lookup(analysis, line, column)
    if decl is None:
        word = word_at(analysis.text, line, column)
        return f"builtin `{BUILTIN_FUNCTIONS[word]}`" if word in BUILTIN_FUNCTIONS else None
    if decl.kind == "rule":
        return _rule_hover(analysis, decl)
    shown = decl.span.text.strip() if decl.kind in ("tool", "type", "enum", "layer") else _first_line(decl.span)
    out = f"```altl\n{shown}\n```"
    if decl.name_span.path != analysis.path:
        out += f"\ndeclared in `{Path(decl.name_span.path).name}`"
    if decl.kind == "tool" and analysis.policy is None:  # the rules were not all checked: say nothing wrong
        out += "\nthe rules that name it are listed once the file has no errors"
    elif decl.kind == "tool":
        users = analysis.rules_naming.get(decl.name, [])
        out += "\n" + (f"named by rule{'s' if len(users) > 1 else ''} " + ", ".join(f"`{u}`" for u in users)
                       if users else "named by no rule")
    return out


def _rule_hover(analysis: Analysis, decl: Declaration) -> str:
    header = decl.span.text.split(":\n", 1)[0] if ":\n" in decl.span.text else _first_line(decl.span)
    lines = [f"```altl\n{' '.join(header.split())}\n```"]
    policy = analysis.policy
    rule = None if policy is None else next((r for r in policy.rules if r.name == decl.name), None)
    if policy is None or rule is None:
        lines.append("(its class is known once the policy has no errors)")
        return "\n".join(lines)
    from policyc.automata import BudgetExceeded, classify

    try:
        cls = classify(rule.formula, policy.tools)
        lines.append(f"**{cls.kind}**: {cls.reason}")
    except BudgetExceeded as exc:
        lines.append(f"**not compiled**: {exc}")
    lines.append(f"severity `{rule.severity}`, weight {rule.weight:g}" + (f", layer `{rule.layer}`" if rule.layer else ""))
    if rule.message:
        lines.append(f"message: {rule.message}")
    return "\n\n".join(lines)


def definition(analysis: Analysis, line: int, column: int) -> tuple[str, int, int, int, int] | None:
    """(file, start line, start column, end line, end column) of the declaration of the name
    under the cursor, 0-based; None for a name that is not declared (a variable, a keyword)."""
    decl = lookup(analysis, line, column)
    if decl is None:
        return None
    span = decl.name_span
    return span.path, span.line - 1, span.column - 1, span.end_line - 1, span.end_column - 1


def formatted(text: str, path: str) -> str | None:
    """`policyc fmt`'s output for the text, or None when it does not parse (nothing to do)."""
    from policyc.diagnostics import Source
    from policyc.fmt import format_module, formatting_problem
    from policyc.syntax import parse_source

    module, _ = parse_source(Source(path, text))
    if module is None:
        return None
    out = format_module(module)
    return None if formatting_problem(module, out) is not None else out
