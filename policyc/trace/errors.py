"""Problems with trace input, as data: which file, which line, which field, what is wrong.

A record that cannot be read as a trace becomes one `TraceError`; loading goes on with the
next record. Messages follow the project's style: one lowercase sentence, no final period,
input in backticks.

>>> e = TraceError("runs.jsonl", 3, "tool_calls[1].tool_name", "missing field `tool_name`")
>>> str(e)
'runs.jsonl:3: `tool_calls[1].tool_name`: missing field `tool_name`'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence


@dataclass(frozen=True, slots=True)
class TraceError:
    """A malformed record (or an unreadable file): it is reported and not scored."""

    file: str
    line: int | None
    field: str | None  # a JSON path inside the record, e.g. `tool_calls[2].arguments`
    message: str

    def __str__(self) -> str:
        where = self.file if self.line is None else f"{self.file}:{self.line}"
        return f"{where}: `{self.field}`: {self.message}" if self.field else f"{where}: {self.message}"

    def to_json(self) -> dict[str, Any]:
        return {"file": self.file, "line": self.line, "field": self.field, "message": self.message}


#: Where inside a record: its path of keys and indexes, `("tool_calls", 2, "arguments")`.
Where = tuple[str | int, ...]


class RecordProblem(Exception):
    """Raised by a format reader: what is wrong, and where inside the record (a JSON path)."""

    def __init__(self, path: Sequence[str | int], message: str):
        super().__init__(message)
        self.path = tuple(path)
        self.message = message


def field_path(path: Sequence[str | int]) -> str | None:
    """`("tool_calls", 2, "arguments")` -> `tool_calls[2].arguments`.

    >>> field_path(("tool_calls", 2, "arguments")), field_path(()), field_path((0, "role"))
    ('tool_calls[2].arguments', None, '[0].role')
    """
    out = ""
    for step in path:
        out += f"[{step}]" if isinstance(step, int) else (f".{step}" if out else str(step))
    return out or None
