"""JSON text with positions: where each record of a file starts, and where a field sits.

Python's `json` gives values without positions. Records of a JSON array are split with
`raw_decode`, which reports where each element ends; a field inside a record is found again
only when something is wrong with it, by walking the text along the field's path.

>>> text = '[\\n {"a": 1},\\n {"a": [1, 2]}\\n]'
>>> [(line_of(text, pos), value) for pos, value in split_array(text, 0)]
[(2, {'a': 1}), (3, {'a': [1, 2]})]
>>> line_of(text, locate(text, split_array(text, 0)[1][0], ("a", 1)))
3
"""

from __future__ import annotations

import bisect
import json
import re

_DECODER = json.JSONDecoder()
_SPACE = re.compile(r"\s*")


def _skip(text: str, pos: int) -> int:
    return _SPACE.match(text, pos).end()  # type: ignore[union-attr]


def line_of(text: str, pos: int) -> int:
    """1-based line number of a character offset."""
    return text.count("\n", 0, pos) + 1


class LineIndex:
    """Line numbers of offsets in one text, without rescanning it for each offset."""

    def __init__(self, text: str):
        self._newlines = [i for i, ch in enumerate(text) if ch == "\n"]

    def line(self, pos: int) -> int:
        return bisect.bisect_left(self._newlines, pos) + 1


def split_array(text: str, pos: int) -> list[tuple[int, object]]:
    """(offset, value) of each element of the JSON array starting at `pos`.

    Raises json.JSONDecodeError (with its position) when an element is not valid JSON.
    """
    pos = _skip(text, pos)
    if not text.startswith("[", pos):
        raise json.JSONDecodeError("expected an array", text, pos)
    pos = _skip(text, pos + 1)
    out: list[tuple[int, object]] = []
    if text.startswith("]", pos):
        return out
    while True:
        value, end = _DECODER.raw_decode(text, pos)
        out.append((pos, value))
        pos = _skip(text, end)
        if text.startswith(",", pos):
            pos = _skip(text, pos + 1)
        elif text.startswith("]", pos):
            return out
        else:
            raise json.JSONDecodeError("expected `,` or `]`", text, pos)


def locate(text: str, pos: int, path: tuple) -> int:
    """Offset of the value at `path` inside the JSON value at `pos` (as deep as it can go)."""
    try:
        for step in path:
            pos = _skip(text, pos)
            found = _member(text, pos, step)
            if found is None:
                return pos
            pos = found
    except (json.JSONDecodeError, IndexError):
        return pos  # malformed below this point: as deep as it could go
    return pos


def _member(text: str, pos: int, step: object) -> int | None:
    opener = text[pos]
    if opener == "{" and isinstance(step, str):
        pos = _skip(text, pos + 1)
        while not text.startswith("}", pos):
            key, pos = _DECODER.raw_decode(text, pos)
            pos = _skip(text, _skip(text, pos) + 1)  # past the colon
            if key == step:
                return pos
            pos = _skip(text, _DECODER.raw_decode(text, pos)[1])
            if text.startswith(",", pos):
                pos = _skip(text, pos + 1)
        return None
    if opener == "[" and isinstance(step, int):
        items = split_array(text, pos)
        return items[step][0] if 0 <= step < len(items) else None
    return None
