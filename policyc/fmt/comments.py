"""Where each comment goes when a module is reformatted.

The parser keeps comments apart from the AST, as (offset, text). Each comment is attached to
a declaration: a comment on the line where a declaration ends trails it; any other comment
leads the next declaration (inside a procedure, the next rule). A comment inside a
declaration (within a formula, a parameter list, a rename map) is moved above it, after its
leading comments, because the formatter rebuilds every line of a declaration. Comments after
the last declaration close the module (or the procedure). Blank lines around comments are
kept, at most one.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from policyc.syntax import ast


@dataclass
class Attached:
    """The comments of one declaration. In `leading`, None stands for a blank line."""

    leading: list[str | None] = field(default_factory=list)
    trailing: str | None = None
    blank_before: bool = False  # a blank line separates it (or its first comment) from what precedes


@dataclass
class Comments:
    by_decl: dict[int, Attached] = field(default_factory=dict)  # id(declaration) -> its comments
    closing: dict[int, list[str | None]] = field(default_factory=dict)  # id(module or procedure) -> comments

    def of(self, decl: object) -> Attached:
        return self.by_decl.get(id(decl)) or Attached()


def _blank_between(text: str, start: int, end: int) -> bool:
    return text.count("\n", start, end) >= 2


def _assign(owner: object, decls: tuple, comments: list[tuple[int, str]], text: str, start: int,
            out: Comments) -> None:
    """Attach `comments` (all within `owner`, after offset `start`) to `decls` or to the owner's end."""
    inner: dict[int, list[tuple[int, str]]] = {}
    pending: list[tuple[int, str]] = []  # comments waiting for the next declaration
    position = start  # end of the last thing placed (a declaration or a comment)
    index = 0
    for offset, raw in comments:
        comment = raw.rstrip()
        while index < len(decls) and decls[index].span.end <= offset:
            _place(decls[index], pending, text, position, out)
            position = decls[index].span.end
            pending = []
            index += 1
        if index < len(decls) and decls[index].span.start <= offset:
            inner.setdefault(index, []).append((offset, comment))
            continue
        previous = decls[index - 1] if index > 0 else None
        if previous is not None and not pending and "\n" not in text[previous.span.end : offset]:
            out.by_decl.setdefault(id(previous), Attached()).trailing = comment
            position = offset + len(raw)
            continue
        pending.append((offset, comment))
    for i in range(index, len(decls)):
        _place(decls[i], pending, text, position, out)
        position = decls[i].span.end
        pending = []
    out.closing[id(owner)] = _lines(pending, text, position, gap_first=True)
    for i, found in inner.items():
        decl = decls[i]
        if isinstance(decl, ast.ProcedureDecl):
            brace = _opening_brace(decl, text)
            out.by_decl.setdefault(id(decl), Attached()).leading.extend(c for o, c in found if o < brace)
            _assign(decl, decl.rules, [(o, c) for o, c in found if o > brace], text, brace + 1, out)
        else:
            out.by_decl.setdefault(id(decl), Attached()).leading.extend(c for _, c in found)


def _opening_brace(proc: ast.ProcedureDecl, text: str) -> int:
    """The offset of the `{` that opens a procedure's rules (comments skipped)."""
    pos = proc.params[-1].span.end if proc.params else proc.name_span.end
    while pos < len(text):
        if text[pos] == "#":
            pos = text.find("\n", pos)
            if pos < 0:
                break
        elif text[pos] == "{":
            return pos
        pos += 1
    return proc.span.end


def _lines(pending: list[tuple[int, str]], text: str, position: int, gap_first: bool = False) -> list[str | None]:
    lines: list[str | None] = []
    for offset, comment in pending:
        if (lines or gap_first) and _blank_between(text, position, offset):
            lines.append(None)
        lines.append(comment)
        position = offset + len(comment)
    return lines


def _place(decl, pending: list[tuple[int, str]], text: str, position: int, out: Comments) -> None:
    attached = out.by_decl.setdefault(id(decl), Attached())
    first = pending[0][0] if pending else decl.span.start
    attached.blank_before = _blank_between(text, position, first)
    lines = _lines(pending, text, first)
    if pending and _blank_between(text, pending[-1][0], decl.span.start):
        lines.append(None)
    attached.leading = lines + attached.leading


def attach_comments(module: ast.Module) -> Comments:
    """Decide where every comment of `module` is printed (nothing, if it has no source text)."""
    out = Comments()
    text = module.span.source.text
    if not text:
        return out
    _assign(module, module.items, sorted(module.comments), text, 0, out)
    return out
