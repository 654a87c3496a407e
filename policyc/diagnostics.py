"""Diagnostics as data: one record, several renderers.

Every stage reports problems as `Diagnostic` values and collects them rather than raising.
Messages follow one style: a lowercase sentence, no final period, user input in backticks;
detail goes in `help` and in labelled secondary spans.

>>> src = Source("p.altl", "rule r: serch\\n")
>>> d = Diagnostic("E0201", "unknown tool `serch`", src.span(8, 13), help="did you mean `search`?")
>>> print(render_text([d], color=False))
error[E0201]: unknown tool `serch`
 --> p.altl:1:9
  |
1 | rule r: serch
  |         ^^^^^
  = help: did you mean `search`?
<BLANKLINE>
"""

from __future__ import annotations

import bisect
import json
import re
from dataclasses import dataclass, field
from enum import Enum
from typing import Iterable, Mapping, Sequence

from policyc.terminal import printable, printable_aligned


_NEWLINE = re.compile("\n")


class Severity(str, Enum):
    ERROR = "error"
    WARNING = "warning"
    NOTE = "note"


@dataclass(frozen=True, slots=True)
class Source:
    """The text of one input file, with a line index for offset -> (line, column)."""

    path: str
    text: str
    line_starts: tuple[int, ...] = field(default=(), compare=False, repr=False)

    def __post_init__(self) -> None:
        if not self.line_starts:
            starts = [0]
            starts.extend(m.end() for m in _NEWLINE.finditer(self.text))
            object.__setattr__(self, "line_starts", tuple(starts))

    def position(self, offset: int) -> tuple[int, int]:
        """1-based (line, column) of a character offset."""
        offset = max(0, min(offset, len(self.text)))
        line = bisect.bisect_right(self.line_starts, offset) - 1
        return line + 1, offset - self.line_starts[line] + 1

    def line_text(self, line: int) -> str:
        start = self.line_starts[line - 1]
        end = self.line_starts[line] - 1 if line < len(self.line_starts) else len(self.text)
        return self.text[start:end].rstrip("\r")

    def span(self, start: int, end: int) -> "Span":
        return Span(self, start, max(start, end))


@dataclass(frozen=True, slots=True)
class Span:
    """A half-open character range [start, end) of a source file."""

    source: Source = field(repr=False)
    start: int
    end: int

    @property
    def path(self) -> str:
        return self.source.path

    @property
    def line(self) -> int:
        return self.source.position(self.start)[0]

    @property
    def column(self) -> int:
        return self.source.position(self.start)[1]

    @property
    def end_line(self) -> int:
        return self.source.position(self.end)[0]

    @property
    def end_column(self) -> int:
        return self.source.position(self.end)[1]

    @property
    def text(self) -> str:
        return self.source.text[self.start : self.end]

    def cover(self, other: "Span") -> "Span":
        return Span(self.source, min(self.start, other.start), max(self.end, other.end))

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.column}"

    def to_json(self) -> dict:
        return {
            "file": self.path,
            "line": self.line,
            "column": self.column,
            "end_line": self.end_line,
            "end_column": self.end_column,
        }


NO_SOURCE = Source("<builtin>", "")
NO_SPAN = Span(NO_SOURCE, 0, 0)


@dataclass(frozen=True, slots=True)
class Label:
    """A secondary span with a short explanation, drawn under the source like the primary."""

    span: Span
    message: str


@dataclass(frozen=True, slots=True)
class Diagnostic:
    code: str
    message: str
    span: Span | None = None
    help: str | None = None
    severity: Severity = Severity.ERROR
    labels: tuple[Label, ...] = ()
    notes: tuple[str, ...] = ()
    #: What the message names, by role, for tools that act on it (an editor's quick fix, a
    #: JSON reader): the unknown `name` and its `suggestion`, the `expected` and `found`
    #: types, the `left` and `right` operands' types.
    fields: Mapping[str, str] = field(default_factory=dict, compare=False)

    @property
    def is_error(self) -> bool:
        return self.severity is Severity.ERROR

    def to_json(self) -> dict:
        out: dict = {"code": self.code, "severity": self.severity.value, "message": self.message}
        if self.span is not None:
            out["location"] = self.span.to_json()
        if self.help:
            out["help"] = self.help
        if self.labels:
            out["labels"] = [{"message": l.message, "location": l.span.to_json()} for l in self.labels]
        if self.notes:
            out["notes"] = list(self.notes)
        if self.fields:
            out["fields"] = dict(self.fields)
        return out


class PolicyError(ValueError):
    """A policy that does not check, raised by the Python entry points that need a checked one
    (`compile_file`). `diagnostics` holds every problem found; the message renders them.

    >>> src = Source("p.altl", "rule r: serch\\n")
    >>> error = PolicyError("p.altl", [Diagnostic("E0201", "unknown tool `serch`", src.span(8, 13))])
    >>> print(error)
    p.altl has errors (1 error):
    error[E0201]: unknown tool `serch`
     --> p.altl:1:9
      |
    1 | rule r: serch
      |         ^^^^^
    """

    def __init__(self, path: str, diagnostics: Sequence[Diagnostic]) -> None:
        self.path = path
        self.diagnostics = tuple(diagnostics)
        super().__init__(f"{path} has errors ({summary_line(self.diagnostics)}):\n"
                         f"{render_text(self.diagnostics).rstrip()}")


def has_errors(diagnostics: Iterable[Diagnostic]) -> bool:
    return any(d.is_error for d in diagnostics)


def sort_diagnostics(diagnostics: Iterable[Diagnostic]) -> list[Diagnostic]:
    """Order by file and position, dropping exact repeats (same code, message and span)."""
    seen: set = set()
    unique = []
    for d in diagnostics:
        key = (d.code, d.message, d.span.path if d.span else "", d.span.start if d.span else -1)
        if key not in seen:
            seen.add(key)
            unique.append(d)
    return sorted(unique, key=lambda d: (d.span.path if d.span else "", d.span.start if d.span else -1))


# ------------------------------------------------------------------ text rendering

_STYLE = {Severity.ERROR: "bold red", Severity.WARNING: "bold yellow", Severity.NOTE: "bold cyan"}
_MAX_SNIPPET_LINES = 4
_MAX_LINE_WIDTH = 120


def _underline(span: Span, line: int) -> tuple[int, int]:
    """Columns (0-based start, length) of the mark under `span` on `line`."""
    text = span.source.line_text(line)
    start_col = span.column - 1 if line == span.line else len(text) - len(text.lstrip())
    end_col = span.end_column - 1 if line == span.end_line else len(text)
    return start_col, max(1, end_col - start_col)


def _marked_lines(marks: list[tuple[Span, str, str]]) -> list[int]:
    lines: set[int] = set()
    for span, _, _ in marks:
        lines.update(range(span.line, min(span.end_line, span.line + _MAX_SNIPPET_LINES - 1) + 1))
    return sorted(lines)


def _window(text: str, columns: list[tuple[int, int]]) -> tuple[str, int]:
    """A long line cut to the part around its marks: (shown text, columns dropped on the left)."""
    if len(text) <= _MAX_LINE_WIDTH:
        return text, 0
    first = min(start for start, _ in columns)
    left = max(0, first - _MAX_LINE_WIDTH // 4)
    shown = text[left : left + _MAX_LINE_WIDTH]
    prefix = "..." if left > 0 else ""
    suffix = "..." if left + _MAX_LINE_WIDTH < len(text) else ""
    return prefix + shown + suffix, left - len(prefix)


def _snippet(source: Source, marks: list[tuple[Span, str, str]], width: int, paint) -> list[str]:
    """The marked lines of one file, each followed by a row per mark on it (`^` primary, `-` labels)."""
    out: list[str] = []
    previous = None
    for line in _marked_lines(marks):
        if previous is not None and line > previous + 1:
            out.append(paint(f"{'...':>{width}}", "bold blue"))
        previous = line
        on_line = [(span, caret, message) for span, caret, message in marks
                   if span.line <= line <= min(span.end_line, span.line + _MAX_SNIPPET_LINES - 1)]
        columns = [_underline(span, line) for span, _, _ in on_line]
        text, shift = _window(printable_aligned(source.line_text(line).replace("\t", " ")), columns)
        out.append(f"{paint(f'{line:>{width}} |', 'bold blue')} {text}")
        for (span, caret, message), (start, length) in zip(on_line, columns):
            start = max(0, start - shift)
            length = min(length, max(1, len(text) - start))
            row = " " * start + caret * length
            last_line = min(span.end_line, span.line + _MAX_SNIPPET_LINES - 1)
            if message and line == last_line:
                row += " " + printable(message)
            out.append(f"{paint(' ' * width + ' |', 'bold blue')} {paint(row, 'bold red' if caret == '^' else 'bold blue')}")
    return out


def _paint_with(color: bool):
    if not color:
        return lambda text, style: text
    from rich.console import Console
    from rich.text import Text

    console = Console(force_terminal=True, color_system="standard", width=10_000)

    def paint(text: str, style: str) -> str:
        with console.capture() as cap:
            console.print(Text(text, style=style), end="")
        return cap.get()

    return paint


def render_one(d: Diagnostic, color: bool = False) -> str:
    paint = _paint_with(color)
    head = f"{d.severity.value}[{d.code}]"
    lines = [f"{paint(head, _STYLE[d.severity])}{paint(': ' + printable(d.message), 'bold')}"]
    pad = ""
    if d.span is not None and d.span.source is not NO_SOURCE:
        shown = [l for l in d.labels if l.span.source is not NO_SOURCE]
        here = [(d.span, "^", "")] + [(l.span, "-", l.message) for l in shown if l.span.source is d.span.source]
        elsewhere: dict[Source, list] = {}
        for l in shown:
            if l.span.source is not d.span.source:
                elsewhere.setdefault(l.span.source, []).append((l.span, "-", l.message))
        width = max(len(str(line)) for marks in [here, *elsewhere.values()] for line in _marked_lines(marks))
        pad = " " * width
        lines.append(f"{pad}{paint('-->', 'bold blue')} {printable(str(d.span))}")
        lines.append(paint(pad + " |", "bold blue"))
        lines.extend(_snippet(d.span.source, here, width, paint))
        for source, marks in elsewhere.items():
            lines.append(f"{pad}{paint('::>', 'bold blue')} {printable(str(marks[0][0]))}")
            lines.append(paint(pad + " |", "bold blue"))
            lines.extend(_snippet(source, marks, width, paint))
        for l in d.labels:
            if l.span.source is NO_SOURCE:
                lines.append(f"{pad} = note: {printable(l.message)}")
    else:
        for l in d.labels:
            lines.append(f" = note: {printable(l.message)}"
                         + (f" ({printable(str(l.span))})" if l.span.source is not NO_SOURCE else ""))
    for note in d.notes:
        lines.append(f"{pad} = note: {printable(note)}")
    if d.help:
        lines.append(f"{pad} = {paint('help', 'bold')}: {printable(d.help)}")
    return "\n".join(lines) + "\n"


def render_text(diagnostics: Sequence[Diagnostic], color: bool = False) -> str:
    return "\n".join(render_one(d, color) for d in diagnostics)


def summary_line(diagnostics: Sequence[Diagnostic]) -> str:
    errors = sum(1 for d in diagnostics if d.severity is Severity.ERROR)
    warnings = sum(1 for d in diagnostics if d.severity is Severity.WARNING)
    parts = []
    if errors:
        parts.append(f"{errors} error{'s' if errors != 1 else ''}")
    if warnings:
        parts.append(f"{warnings} warning{'s' if warnings != 1 else ''}")
    return ", ".join(parts) if parts else "no problems"


_GITHUB_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.NOTE: "notice"}


def _github_escape(text: str, is_property: bool = False) -> str:
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return text.replace(":", "%3A").replace(",", "%2C") if is_property else text


def render_github(diagnostics: Sequence[Diagnostic]) -> str:
    """GitHub Actions workflow commands: each diagnostic an annotation on its file and line.

    >>> src = Source("p.altl", "rule r: serch\\n")
    >>> d = Diagnostic("E0201", "unknown tool `serch`", src.span(8, 13), help="did you mean `search`?")
    >>> print(render_github([d]), end="")
    ::error file=p.altl,line=1,col=9,endLine=1,endColumn=14,title=E0201::unknown tool `serch`%0Ahelp: did you mean `search`?
    """
    lines = []
    for d in diagnostics:
        props = []
        if d.span is not None and d.span.source is not NO_SOURCE:
            props += [f"file={_github_escape(d.span.path, True)}", f"line={d.span.line}", f"col={d.span.column}",
                      f"endLine={d.span.end_line}", f"endColumn={d.span.end_column}"]
        props.append(f"title={_github_escape(d.code, True)}")
        text = "\n".join([d.message, *(f"note: {n}" for n in d.notes), *([f"help: {d.help}"] if d.help else [])])
        lines.append(f"::{_GITHUB_LEVEL[d.severity]} {','.join(props)}::{_github_escape(text)}\n")
    return "".join(lines)


def render_json(diagnostics: Sequence[Diagnostic]) -> str:
    return json.dumps([d.to_json() for d in diagnostics], indent=2, ensure_ascii=False)
