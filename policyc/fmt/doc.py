"""A small pretty-printing document algebra (after Wadler's "prettier printer").

A document is text with possible line breaks. `group(d)` prints `d` on one line when it fits
in the remaining width (and holds no `hardline()`), and otherwise breaks every `line()`
directly inside it; `nest` and
`align` set the indentation that a broken line starts at; `fill` breaks only the separators
that must break. `render` lays a document out iteratively, so deep documents are safe.

>>> d = group(concat("f(", align(join(concat(",", line()), ["alpha", "beta", "gamma"])), ")"))
>>> render(d, width=40)
'f(alpha, beta, gamma)'
>>> print(render(d, width=12))
f(alpha,
  beta,
  gamma)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Union


@dataclass(frozen=True, slots=True)
class Line:
    """A space (or nothing, if `soft`) when its group fits on one line; else a line break."""

    soft: bool = False


@dataclass(frozen=True, slots=True)
class HardLine:
    """Always a line break."""


@dataclass(frozen=True, slots=True)
class Concat:
    parts: tuple["Doc", ...]


@dataclass(frozen=True, slots=True)
class Nest:
    """Lines broken inside `doc` start `indent` columns right of the enclosing indentation."""

    indent: int
    doc: "Doc"


@dataclass(frozen=True, slots=True)
class Align:
    """Lines broken inside `doc` start at the column where `doc` starts."""

    doc: "Doc"


@dataclass(frozen=True, slots=True)
class Group:
    doc: "Doc"


@dataclass(frozen=True, slots=True)
class IfBreak:
    """`broken` when the enclosing group is broken, else `flat`."""

    broken: str
    flat: str = ""


@dataclass(frozen=True, slots=True)
class Fill:
    """Items separated by spaces, each moved to a new line only if it does not fit."""

    items: tuple["Doc", ...]


@dataclass(frozen=True, slots=True)
class _FillBreak:
    item: "Doc"


Doc = Union[str, Line, HardLine, Concat, Nest, Align, Group, IfBreak, Fill, _FillBreak]

FLAT, BREAK = 0, 1


def concat(*parts: Doc) -> Doc:
    return Concat(tuple(p for p in parts if p != ""))


def line() -> Line:
    return Line()


def softline() -> Line:
    return Line(soft=True)


def hardline() -> HardLine:
    return HardLine()


def nest(indent: int, doc: Doc) -> Nest:
    return Nest(indent, doc)


def align(doc: Doc) -> Align:
    return Align(doc)


def group(doc: Doc) -> Group:
    return Group(doc)


def fill(items: Iterable[Doc]) -> Fill:
    return Fill(tuple(items))


def join(separator: Doc, docs: Iterable[Doc]) -> Doc:
    out: list[Doc] = []
    for i, d in enumerate(docs):
        if i:
            out.append(separator)
        out.append(d)
    return Concat(tuple(out))


Command = tuple[int, int, Doc]  # indentation, mode, document


def _fits(first: Command, width: int, rest: list[Command]) -> bool:
    """Whether `first`, printed flat, and what follows it up to the next line break fit in `width`."""
    todo = [first]
    next_rest = len(rest) - 1
    while width >= 0:
        if not todo:
            if next_rest < 0:
                return True
            todo.append(rest[next_rest])
            next_rest -= 1
        indent, mode, doc = todo.pop()
        if isinstance(doc, str):
            width -= len(doc)
        elif isinstance(doc, Concat):
            todo.extend((indent, mode, p) for p in reversed(doc.parts))
        elif isinstance(doc, (Nest, Align, Group)):
            todo.append((indent, mode, doc.doc))
        elif isinstance(doc, Line):
            if mode == BREAK:
                return True
            width -= 0 if doc.soft else 1
        elif isinstance(doc, HardLine):
            return mode == BREAK  # a group that holds a hard line break cannot be flat
        elif isinstance(doc, IfBreak):
            width -= len(doc.broken if mode == BREAK else doc.flat)
        elif isinstance(doc, Fill):
            todo.extend((indent, mode, p) for p in reversed(doc.items))
            width -= max(0, len(doc.items) - 1)
        elif isinstance(doc, _FillBreak):
            if mode == BREAK:
                return True
            todo.append((indent, mode, doc.item))
            width -= 1
    return False


def render(doc: Doc, width: int = 100) -> str:
    """Lay `doc` out in `width` columns (trailing spaces removed)."""
    out: list[str] = []
    column = 0
    stack: list[Command] = [(0, BREAK, doc)]
    while stack:
        indent, mode, d = stack.pop()
        if isinstance(d, str):
            out.append(d)
            column += len(d)
        elif isinstance(d, Concat):
            stack.extend((indent, mode, p) for p in reversed(d.parts))
        elif isinstance(d, Nest):
            stack.append((indent + d.indent, mode, d.doc))
        elif isinstance(d, Align):
            stack.append((column, mode, d.doc))
        elif isinstance(d, Group):
            flat = mode == FLAT or _fits((indent, FLAT, d.doc), width - column, stack)
            stack.append((indent, FLAT if flat else BREAK, d.doc))
        elif isinstance(d, Line) and mode == FLAT:
            if not d.soft:
                out.append(" ")
                column += 1
        elif isinstance(d, (Line, HardLine)):
            out.append("\n" + " " * indent)
            column = indent
        elif isinstance(d, IfBreak):
            text = d.broken if mode == BREAK else d.flat
            out.append(text)
            column += len(text)
        elif isinstance(d, Fill):
            stack.extend((indent, mode, _FillBreak(item)) for item in reversed(d.items[1:]))
            if d.items:
                stack.append((indent, mode, d.items[0]))
        elif isinstance(d, _FillBreak):
            if mode == FLAT or _fits((indent, FLAT, d.item), width - column - 1, stack):
                out.append(" ")
                column += 1
            else:
                out.append("\n" + " " * indent)
                column = indent
            stack.append((indent, mode, d.item))
    return "\n".join(part.rstrip() for part in "".join(out).split("\n"))
