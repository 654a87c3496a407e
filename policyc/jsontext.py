"""JSON text with positions: where each record of a file starts, and where a field sits.

Python's `json` gives values without positions. Elements of a JSON array are found by a
scan that follows only strings and brackets (`array_elements`), so one malformed element
(a bad byte, a missing comma, a number too long to read, nesting too deep) spoils only
itself: every element is decoded on its own (`decode`). A field inside a record is found
again only when something is wrong with it, by walking the text along the field's path.

Lines are counted at `\\n` only, as JSON Lines does: a U+2028 inside a string is a character
of that string, not a line break.

>>> text = '[\\n {"a": 1},\\n {"a": [1, 2]}\\n]'
>>> [(line_of(text, start), decode(text[start:end])[0]) for start, end in array_elements(text, 0)]
[(2, {'a': 1}), (3, {'a': [1, 2]})]
>>> line_of(text, locate(text, array_elements(text, 0)[1][0], ("a", 1)))
3
"""

from __future__ import annotations

import bisect
import json
import re
import sys
from itertools import compress
from typing import Any, Callable

_DECODER = json.JSONDecoder()
_SPACE = re.compile(r"[ \t\r\n]*")
#: the tokens a tolerant scan follows: strings (kept whole), brackets and commas
_TOKEN = re.compile(r'"(?:[^"\\\n]|\\.)*"|[\[\]{},]')
#: what undecodable bytes become when a file is read with `surrogateescape`
_BAD_BYTE = re.compile("[\udc80-\udcff]")
#: records nested deeper than this are refused: every engine may then recurse on them safely
MAX_DEPTH = 200
#: an escape of half a UTF-16 surrogate pair (a whole pair decodes to one character)
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
#: a surrogate left in a decoded string: always half of a pair
_SURROGATE = re.compile("[\ud800-\udfff]")


class _NotJson(ValueError):
    """`NaN`, `Infinity` or `-Infinity`, which Python's `json` reads and JSON does not have."""


class _Infinite(ValueError):
    """A number too large for a double (`1e400`): Python's `json` reads it as an infinity."""


def _no_constant(name: str) -> object:
    raise _NotJson(name)


def _finite(text: str) -> float:
    """A JSON number with a fraction or an exponent, as `json` reads it, unless it is too large
    for a double (told as it is read: a search of the text for long numbers took four times
    as long as decoding it)."""
    value = float(text)
    if value - value != 0.0:
        raise _Infinite(text)
    return value


#: JSON as the standard defines it: no NaN or infinities, whether written so or too large
_STRICT = json.JSONDecoder(parse_constant=_no_constant, parse_float=_finite)


def _skip(text: str, pos: int) -> int:
    return _SPACE.match(text, pos).end()  # type: ignore[union-attr]


def line_of(text: str, pos: int) -> int:
    """1-based line number of a character offset (lines end at `\\n`)."""
    return text.count("\n", 0, pos) + 1


class LineIndex:
    """Line numbers of offsets in one text, without rescanning it for each offset."""

    def __init__(self, text: str):
        self._newlines = [m.start() for m in re.finditer("\n", text)]

    def line(self, pos: int) -> int:
        return bisect.bisect_left(self._newlines, pos) + 1


def bad_byte_at(text: str) -> int | None:
    """Offset of the first byte that was not UTF-8 (read with `surrogateescape`), if any."""
    m = _BAD_BYTE.search(text)
    return None if m is None else m.start()


def bad_byte(text: str) -> str | None:
    """What is wrong when `text` (read with `surrogateescape`) holds bytes that are not UTF-8."""
    at = bad_byte_at(text)
    return None if at is None else f"not valid UTF-8: byte 0x{ord(text[at]) - 0xDC00:02x}"


def decode(text: str) -> tuple[object, str | None, int | None]:
    """(value, None, None), or (None, what is wrong, where in `text` when it is one place):
    invalid JSON, bytes that are not UTF-8, numbers too long to read, nesting deeper than
    `MAX_DEPTH`.

    >>> decode('[1, 2]'), decode('{"a": 1 "b": 2}')
    (([1, 2], None, None), (None, 'invalid JSON: expecting `,` delimiter', 8))
    """
    at = None if text.isascii() else bad_byte_at(text)  # `isascii` is told at a glance
    if at is not None:
        return None, bad_byte(text), at
    try:
        value = _STRICT.decode(text)
    except json.JSONDecodeError as exc:
        return None, f"invalid JSON: {_lower(exc.msg)}", exc.pos
    except RecursionError:
        return None, f"the record is nested more than {MAX_DEPTH} levels deep", None
    except _NotJson as exc:
        found = re.search(rf"(?<![\w\"]){exc.args[0]}", text)
        return None, f"invalid JSON: `{exc.args[0]}` is not a JSON number", None if found is None else found.start()
    except _Infinite as exc:
        found = re.search(rf"(?<![\w\".]){re.escape(exc.args[0])}(?![\w.])", text)
        return (None, "invalid JSON: a number is too large for a double (it reads as an infinity)",
                None if found is None else found.start())
    except ValueError:  # an integer of thousands of digits
        return None, f"invalid JSON: a number has more than {sys.get_int_max_str_digits()} digits", None
    if could_nest_deeper(text) and too_deep(value):
        return None, f"the record is nested more than {MAX_DEPTH} levels deep", None
    found = _SURROGATE_ESCAPE.search(text)
    if found is not None and _holds(value, _half_pair):
        return None, (f"invalid JSON: a string holds `{found.group()}`, half of a UTF-16 surrogate pair, "
                      "which is no character"), found.start()
    return value, None, None


def _half_pair(v: object) -> bool:
    """Whether a decoded string holds half of a surrogate pair (a whole pair decodes to one
    character, so any surrogate left is half of one)."""
    return type(v) is str and _SURROGATE.search(v) is not None


def could_nest_deeper(text: str, limit: int = MAX_DEPTH) -> bool:
    """Whether JSON text could nest deeper than `limit`: it holds more than `limit` brackets
    (told at C speed; False proves the value is shallow enough, True says nothing).

    >>> could_nest_deeper("[[1]]", 2), could_nest_deeper("[[[1]]]", 2)
    (False, True)
    """
    return text.count("[") + text.count("{") > limit


def _holds(value: object, bad: Callable[[object], bool]) -> bool:
    """Whether a decoded value holds, at any depth, a key or a value `bad` says is bad."""
    stack = [value]
    while stack:
        v = stack.pop()
        if type(v) is dict:
            for key, item in v.items():
                if bad(key):
                    return True
                stack.append(item)
        elif type(v) is list:
            stack.extend(v)
        elif bad(v):
            return True
    return False


def where(text: str, pos: int) -> tuple[int, int]:
    """(line, column) of an offset, both from 1."""
    return line_of(text, pos), pos - text.rfind("\n", 0, pos)


def _lower(message: str) -> str:
    message = message.replace("',' delimiter", "`,` delimiter").replace("':' delimiter", "`:` delimiter")
    return message[:1].lower() + message[1:]


def too_deep(value: object, limit: int = MAX_DEPTH) -> bool:
    """Whether lists and objects nest deeper than `limit`, for a value `json` decoded (its
    containers are exactly `dict` and `list`). Checked without recursion, a level at a time:
    each level's values are gathered by `extend`, and the containers among them kept by
    `compress` on their types, so no Python code runs per value.

    >>> too_deep([[1]], 2), too_deep([[[1]]], 2), too_deep({"a": [{}]}, 2), too_deep(3, 0)
    (False, True, True, False)
    """
    if not _is_container(type(value)):
        return False
    level: list[Any] = [value]
    depth = 1
    while level:
        if depth > limit:
            return True
        children: list[object] = []
        for item in level:
            children.extend(item.values() if type(item) is dict else item)
        level = list(compress(children, map(_is_container, map(type, children))))
        depth += 1
    return False


#: whether a type is one of a JSON value's containers
_is_container = frozenset((dict, list)).__contains__


def array_elements(text: str, pos: int) -> list[tuple[int, int]]:
    """(start, end) of each element of the array whose `[` is at or after `pos`, found by
    following strings and brackets only: an element ends at the next comma (or the closing
    bracket) outside strings and brackets, whatever is wrong inside it. An unterminated
    array runs to the end of the text."""
    pos = _skip(text, pos)
    if not text.startswith("[", pos):
        return []
    out: list[tuple[int, int]] = []
    start, depth = pos + 1, 0
    for m in _TOKEN.finditer(text, pos + 1):
        token = m.group()
        if token in "[{":
            depth += 1
        elif token in "]}":
            if depth == 0:
                _add(out, text, start, m.start())
                return out
            depth -= 1
        elif token == "," and depth == 0:
            _add(out, text, start, m.start(), empty_too=True)
            start = m.end()
    _add(out, text, start, len(text))
    return out


def _add(out: list[tuple[int, int]], text: str, start: int, end: int, empty_too: bool = False) -> None:
    start = _skip(text, start)
    while end > start and text[end - 1] in " \t\r\n":
        end -= 1
    if end > start or empty_too:
        out.append((start, end))


def member(text: str, pos: int, key: str) -> int | None:
    """Offset of the value of `key` in the object whose `{` is at or after `pos`, found by
    the same tolerant scan; None when there is no such member."""
    pos = _skip(text, pos)
    if not text.startswith("{", pos):
        return None
    depth = 0
    for m in _TOKEN.finditer(text, pos + 1):
        token = m.group()
        if token in "[{":
            depth += 1
        elif token in "]}":
            if depth == 0:
                return None
            depth -= 1
        elif depth == 0 and token.startswith('"'):
            after = _skip(text, m.end())
            if text.startswith(":", after):
                try:
                    name = json.loads(token)
                except ValueError:
                    continue
                if name == key:
                    return _skip(text, after + 1)
    return None


def locate(text: str, pos: int, path: tuple[str | int, ...]) -> int:
    """Offset of the value at `path` inside the JSON value at `pos` (as deep as it can go)."""
    try:
        for step in path:
            pos = _skip(text, pos)
            if isinstance(step, str):
                found = member(text, pos, step)
            elif isinstance(step, int) and text.startswith("[", pos):
                items = array_elements(text, pos)
                found = items[step][0] if 0 <= step < len(items) else None
            else:
                found = None
            if found is None:
                return pos
            pos = found
    except (IndexError, RecursionError):
        return pos
    return pos
