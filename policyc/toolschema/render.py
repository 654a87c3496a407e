"""Signatures -> `.altl` declarations, in the formatter's canonical form.

Named record and enum types come first, each before the types that use it, then the tools
in the order given, each under its description as a comment.

>>> from policyc.ir.types import STR, INT, EnumT, OptionalT, Param, RecordT, ToolSignature
>>> lang = EnumT("Lang", ("py", "c++"))
>>> sig = ToolSignature("get-file", (Param("path", STR), Param("lang", OptionalT(lang))),
...                     RecordT("", (("lines", INT),)))
>>> print(render_declarations([(sig, "Read a file.\\n\\nMore detail.")], [lang]), end="")
enum Lang { py, "c++" }
<BLANKLINE>
# Read a file.
tool `get-file`(path: str, lang: Lang?) -> { lines: int }
"""

from __future__ import annotations

import textwrap
from typing import Sequence

from policyc.fmt import format_module
from policyc.ir.types import ANY, DictT, EnumT, ListT, OptionalT, Prim, RecordT, ToolSignature, Type
from policyc.syntax import ast

COMMENT_WIDTH = 96


def type_expr(t: Type) -> ast.TypeExpr:
    """The source form of a type: named records and enums by name."""
    if isinstance(t, Prim):
        return ast.TypeName(t.name)
    if isinstance(t, OptionalT):
        return ast.OptionalType(type_expr(t.inner))
    if isinstance(t, ListT):
        return ast.TypeName("list", (type_expr(t.elem),))
    if isinstance(t, DictT):
        return ast.TypeName("dict", (ast.TypeName("str"), type_expr(t.value)))
    if isinstance(t, EnumT) or isinstance(t, RecordT) and t.name:
        return ast.TypeName(t.name)
    if isinstance(t, RecordT):
        return ast.RecordType(tuple(ast.FieldDecl(n, type_expr(ft)) for n, ft in t.fields))
    raise TypeError(f"no source form for {t!r}")


def declaration(t: RecordT | EnumT) -> ast.Decl:
    if isinstance(t, EnumT):
        return ast.EnumDecl(t.name, t.members)
    return ast.TypeDecl(t.name, tuple(ast.FieldDecl(n, type_expr(ft)) for n, ft in t.fields))


def tool_declaration(sig: ToolSignature) -> ast.ToolDecl:
    params = tuple(ast.Param(p.name, type_expr(p.type)) for p in sig.params)
    return ast.ToolDecl(sig.name, params, None if sig.result is ANY else type_expr(sig.result), sig.terminal)


def comment(text: str | None) -> list[str]:
    """A description's first paragraph as comment lines."""
    if not text or not text.strip():
        return []
    paragraph = text.strip().split("\n\n")[0]
    words = " ".join(paragraph.split())
    return ["# " + line for line in textwrap.wrap(words, COMMENT_WIDTH)]


def _one(decl: ast.Decl) -> str:
    return format_module(ast.Module("<declarations>", (decl,))).rstrip("\n")


def render_declarations(tools: Sequence[tuple[ToolSignature, str | None]], types: Sequence[RecordT | EnumT],
                        header: Sequence[str] = ()) -> str:
    """The text of a declarations file: `header` comment lines, the named types, the tools."""
    blocks: list[str] = []
    if header:
        blocks.append("\n".join("# " + line for line in header))
    if types:
        blocks.append("\n".join(_one(declaration(t)) for t in types))
    for sig, description in tools:
        blocks.append("\n".join(comment(description) + [_one(tool_declaration(sig))]))
    return "\n\n".join(blocks) + "\n" if blocks else ""


__all__ = ["render_declarations", "type_expr"]
