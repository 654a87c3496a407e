"""Stage: AST -> canonical source text (`policyc fmt`).

`format_module(module)` prints a parsed module in the one canonical form: keyword spellings
(`always`, `weak until`, `->`), four-space indentation, parentheses only where precedence
needs them, long formulas broken before their operators, one blank line between declarations
(consecutive one-line declarations of a kind stay together when they were written so), and
every comment kept. Parsing the result gives back the same AST, and formatting is idempotent.

>>> from policyc.syntax import parse
>>> module, _ = parse('tool a(x:int)\\nrule r weight 2:G(a(x:1)->(F a))  # note')
>>> print(format_module(module), end="")
tool a(x: int)
<BLANKLINE>
rule r weight 2:
    always (a(x: 1) -> eventually a)  # note
"""

from __future__ import annotations

from collections import Counter

from policyc.diagnostics import Diagnostic, Source
from policyc.fmt.comments import attach_comments
from policyc.fmt.decls import declaration, group_key, rule
from policyc.fmt.doc import Doc, concat, hardline, render
from policyc.syntax import ast
from policyc.syntax.parser import parse_source

WIDTH = 100

Entry = tuple[str, "str | None", bool]  # code, trailing comment, may align its comment with neighbours


def _procedure_body(comments, proc: ast.ProcedureDecl) -> Doc | None:
    parts: list[Doc] = []
    for i, r in enumerate(proc.rules):
        attached = comments.of(r)
        if i:
            parts.extend((hardline(), hardline()))
        for c in attached.leading:
            parts.extend((c or "", hardline()))
        parts.append(concat(rule(r), f"  {attached.trailing}") if attached.trailing else rule(r))
    for i, c in enumerate(comments.closing.get(id(proc), [])):
        if parts or i:
            parts.append(hardline())
        parts.append(c or "")
    return concat(*parts) if parts else None


def _aligned(entries: list[Entry]) -> list[str]:
    """Entries as lines; trailing comments of consecutive one-line declarations share a column."""
    lines: list[str] = []
    i = 0
    while i < len(entries):
        j = i
        while j < len(entries) and entries[j][1] is not None and entries[j][2]:
            j += 1
        if j > i:
            column = max(len(code) for code, _, _ in entries[i:j]) + 2
            lines.extend(f"{code:<{column}}{comment}" for code, comment, _ in entries[i:j])
            i = j
            continue
        code, comment, _ = entries[i]
        lines.append(f"{code}  {comment}" if comment is not None else code)
        i += 1
    return lines


def format_module(module: ast.Module, width: int = WIDTH) -> str:
    """The canonical text of `module` (see the module docstring)."""
    comments = attach_comments(module)
    has_source = bool(module.span.source.text)
    entries: list[Entry] = []
    previous: tuple[ast.Decl, bool] | None = None
    for decl in module.items:
        attached = comments.of(decl)
        lines = render(declaration(decl, lambda p: _procedure_body(comments, p)), width).split("\n")
        single = len(lines) == 1
        if previous is not None:
            before, before_single = previous
            together = (has_source and not attached.blank_before and single and before_single
                        and group_key(before) == group_key(decl))
            if not together:
                entries.append(("", None, False))
        entries.extend((c or "", None, False) for c in attached.leading)
        entries.extend((text, None, False) for text in lines[:-1])
        entries.append((lines[-1], attached.trailing, single))
        previous = (decl, single)
    closing = comments.closing.get(id(module), [])
    if closing and not entries and closing[0] is None:
        closing = closing[1:]
    entries.extend((c or "", None, False) for c in closing)
    text = "\n".join(_aligned(entries))
    return text + "\n" if text else ""


def format_source(source: Source) -> tuple[str | None, list[Diagnostic]]:
    """Parse and format; None and the syntax errors when the text does not parse."""
    module, diagnostics = parse_source(source)
    if module is None:
        return None, diagnostics
    return format_module(module), diagnostics


def formatting_problem(module: ast.Module, formatted: str) -> str | None:
    """Why `formatted` is not a faithful rendering of `module` (None when it is): a safety
    check run before any file is rewritten."""
    again, diagnostics = parse_source(Source(module.path, formatted))
    if again is None:
        return f"the formatted text does not parse: {diagnostics[0].message if diagnostics else '?'}"
    if again.items != module.items:
        return "the formatted text does not mean the same as the original"
    if Counter(c.rstrip() for _, c in again.comments) != Counter(c.rstrip() for _, c in module.comments):
        return "the formatted text lost or changed a comment"
    return None


__all__ = ["format_module", "format_source", "formatting_problem", "WIDTH"]
