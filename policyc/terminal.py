"""Text from outside, made safe to print on a terminal.

Tool names, arguments, file names, messages and policy text all come from someone else. A
terminal acts on control characters: `ESC [ 2 J` clears the screen, `ESC ] 0 ;` retitles
the window, a carriage return overwrites a line, bidirectional overrides reorder what is
shown (so a reviewer reads another text than the one that runs). Every renderer of human
output passes such text through `printable` (one line: a name, a cell) or `printable_block`
(several lines: source code, a message), which show those characters as visible escapes.

>>> printable("search\\x1b[2J")
'search\\\\x1b[2J'
>>> printable("a\\nb\\tc\\u202ed")
'a\\\\nb\\\\tc\\\\u202ed'
>>> printable_block("line 1\\nline\\r2\\tend")
'line 1\\nline\\\\r2\\tend'
>>> printable("café → ok")
'café → ok'
"""

from __future__ import annotations

import re

# C0 controls, DEL, C1 controls, the bidirectional embeddings, overrides and isolates, and
# the Unicode line and paragraph separators
_UNSAFE = "\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069"
_LINE = re.compile(f"[{_UNSAFE}]")
_BLOCK = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


_NAMED = {"\n": "\\n", "\t": "\\t", "\r": "\\r"}


def _escape(match: re.Match) -> str:
    char = match.group()
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: str) -> str:
    """`text` on one line, every control character (newlines and tabs too) written as an escape."""
    return _LINE.sub(_escape, text) if _LINE.search(text) else text


def printable_aligned(text: str) -> str:
    """`text` on one line with every control character shown as `�`: one column each, so marks
    drawn under the text (a diagnostic's `^^^`) stay under what they mark.

    >>> printable_aligned("a\x1b[2Jb")
    'a�[2Jb'
    """
    return _LINE.sub("\ufffd", text) if _LINE.search(text) else text


def markup_safe(text: object) -> str:
    """`printable(text)` with rich's markup escaped, for a cell or line that rich renders
    (`[bold]` in a tool name stays text, it does not restyle the table).

    >>> markup_safe("[red]x\\x07")
    '\\\\[red]x\\\\x07'
    """
    from rich.markup import escape

    return escape(printable(str(text)))


def printable_block(text: str) -> str:
    """`text` with its newlines and tabs kept, every other control character written as an escape."""
    return _BLOCK.sub(_escape, text) if _BLOCK.search(text) else text


__all__ = ["markup_safe", "printable", "printable_aligned", "printable_block"]
