"""The top-level call of a rule as its author wrote it: `before(search, final_answer)`.

Reports name events as the rule does (`called_n(branch) >= 3` counts "branch" calls), so the
rule's source text is read back: the predicate, its arguments as text, and a trailing
comparison (`>= 3`). Only a rule whose whole body is one call is read; anything else is None.

>>> source_call("rule r layer L5 weight 3: called_n(tool_b or tool_c) >= 3")
SourceCall(name='called_n', args=('tool_b or tool_c',), op='>=', number=3)
>>> source_call('rule r "a: b" message "x": before(a(x: ","), d)  # why')
SourceCall(name='before', args=('a(x: ",")', 'd'), op=None, number=None)
>>> source_call("rule r: always (a -> once b)") is None
True
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

_TAIL = re.compile(r"\s*(==|!=|<=|>=|<|>)\s*(-?\d+)\s*$")
_OPEN, _CLOSE = "([{", ")]}"
_OPERATORS = frozenset("""X WX F G Y Z O H U W R S next wnext eventually always yesterday wyesterday once
    historically until unless release releases since not and or implies iff forall exists if""".split())


@dataclass(frozen=True, slots=True)
class SourceCall:
    name: str
    args: tuple[str, ...]
    op: str | None
    number: int | None


def rule_body(source: str) -> str:
    """The text after the rule header's colon, without comments."""
    text = _strip_comments(source)
    depth_quote = False
    for i, ch in enumerate(text):
        if ch == '"' and (i == 0 or text[i - 1] != "\\"):
            depth_quote = not depth_quote
        elif ch == ":" and not depth_quote:
            return text[i + 1:].strip()
    return text.strip()


def _strip_comments(text: str) -> str:
    out, quoted = [], False
    for line in text.splitlines():
        kept = []
        for i, ch in enumerate(line):
            if ch == '"' and (i == 0 or line[i - 1] != "\\"):
                quoted = not quoted
            if ch == "#" and not quoted:
                break
            kept.append(ch)
        out.append("".join(kept))
    return "\n".join(out)


def split_arguments(text: str) -> list[str]:
    """Split at top-level commas (outside brackets and strings)."""
    parts, depth, quoted, start = [], 0, False, 0
    for i, ch in enumerate(text):
        if ch == '"' and (i == 0 or text[i - 1] != "\\"):
            quoted = not quoted
        elif quoted:
            continue
        elif ch in _OPEN:
            depth += 1
        elif ch in _CLOSE:
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
    last = text[start:].strip()
    if last:
        parts.append(last)
    return parts


def _matching_close(text: str, open_at: int) -> int | None:
    depth, quoted = 0, False
    for i in range(open_at, len(text)):
        ch = text[i]
        if ch == '"' and text[i - 1] != "\\":
            quoted = not quoted
        elif quoted:
            continue
        elif ch in _OPEN:
            depth += 1
        elif ch in _CLOSE:
            depth -= 1
            if depth == 0:
                return i
    return None


@lru_cache(maxsize=4096)
def source_call(source: str) -> SourceCall | None:
    """The rule's body as `name(args) [op number]`, or None when it is not one call."""
    body = " ".join(rule_body(source).split())
    m = re.match(r"(`[^`]+`|[A-Za-z_]\w*)\s*\(", body)
    if m is None or m.group(1) in _OPERATORS:
        return None
    close = _matching_close(body, m.end() - 1)
    if close is None:
        return None
    tail = body[close + 1:]
    op = number = None
    if tail.strip():
        t = _TAIL.fullmatch(tail)
        if t is None:
            return None
        op, number = t.group(1), int(t.group(2))
    return SourceCall(m.group(1).strip("`"), tuple(split_arguments(body[m.end():close])), op, number)


@lru_cache(maxsize=4096)
def list_items(text: str) -> tuple[str, ...] | None:
    """`[a, b(x: 1)]` -> ('a', 'b(x: 1)'); None when the text is not a list literal."""
    text = text.strip()
    if not (text.startswith("[") and text.endswith("]")):
        return None
    return tuple(split_arguments(text[1:-1]))
