"""Regular expressions for `matches(text, pattern)`: RE2, so matching is linear in the text.

RE2 has no backreferences and no look-around, and so no pattern can make matching take
exponential time: a hostile text costs time proportional to its length. A pattern is at most
`MAX_PATTERN` characters and compiles within `MAX_PATTERN_MEMORY` bytes; anything else is an
invalid pattern, reported by the checker where the policy writes it (E0231). Only the second
argument of `matches` is a pattern, and only as a string literal: no other text is ever read
as a regular expression.

`matches` asks for the whole text to match (as `re.fullmatch`): `matches(iban, "DE[0-9]{20}")`
is an IBAN of that shape, not a text containing one; write `.*` around a pattern to find it
anywhere (`(?s)` lets `.` cross line ends).

>>> full_match("[A-Z]{2}[0-9]{2}[A-Z0-9]{11,30}", "DE89370400440532013000"), full_match("ab", "xaby")
(True, False)
>>> pattern_error("(a"), pattern_error("(a)\\\\1")
('missing ): (a', 'invalid escape sequence: \\\\1')
"""

from __future__ import annotations

from functools import lru_cache
from re import _parser as python_reading  # Python's reading of a pattern: only `examples` uses it
from re import error as PythonPatternError
from typing import Any, Iterable

import re2

#: The longest pattern a policy may write, in characters.
MAX_PATTERN = 1000
#: The memory RE2 may use to compile one pattern.
MAX_PATTERN_MEMORY = 8 << 20


def _options() -> re2.Options:
    options = re2.Options()
    options.log_errors = False  # an invalid pattern is a diagnostic, not a line on stderr
    options.max_mem = MAX_PATTERN_MEMORY
    return options


@lru_cache(maxsize=512)
def _compiled(pattern: str) -> tuple[object | None, str | None]:
    if len(pattern) > MAX_PATTERN:
        return None, f"the pattern has {len(pattern)} characters; at most {MAX_PATTERN} are allowed"
    try:
        return re2.compile(pattern, _options()), None
    except re2.error as exc:
        reason = exc.args[0] if exc.args else "invalid pattern"
        return None, reason.decode("utf-8", "replace") if isinstance(reason, bytes) else str(reason)
    except (TypeError, ValueError) as exc:  # e.g. a NUL character
        return None, str(exc)


def pattern_error(pattern: str) -> str | None:
    """Why a pattern is not one `matches` accepts (None: it is)."""
    return _compiled(pattern)[1]


def full_match(pattern: object, text: object) -> bool:
    """Whether the whole text matches the pattern (false for a text or pattern that is not a
    string, and for an invalid pattern)."""
    if not isinstance(pattern, str) or not isinstance(text, str):
        return False
    regex, _ = _compiled(pattern)
    return regex is not None and regex.fullmatch(text) is not None  # type: ignore[attr-defined]


#: The longest example text `examples` builds.
MAX_EXAMPLE = 4096


@lru_cache(maxsize=512)
def examples(pattern: str, tries: int = 4) -> tuple[str, ...]:
    """A few texts the whole of which the pattern matches, each confirmed by RE2 (the matcher
    `matches` uses); none when none was found. Built from Python's reading of the pattern
    (RE2's syntax is, but for a few escapes, a part of Python's): the k-th try takes the k-th
    choice at each alternative and character class, and repeats a part its least number of
    times (once more on odd tries). A text only Python reads as a match is left out, so an
    example is a proof that the pattern matches something.

    >>> examples("v[0-9]+[.][0-9]+[.][0-9]+")
    ('v0.0.0', 'v99.99.99')
    >>> examples("(ab|c)[^a-z]x?"), examples("a(?=b)"), examples("[^\\\\x00-\\\\x{10FFFF}]")
    (('ab0', 'c x', 'abZ', 'c_x'), (), ())
    """
    out: list[str] = []
    try:
        parsed = python_reading.parse(pattern)
        for k in range(tries):
            text = _example(parsed, k)
            if text is not None and text not in out and full_match(pattern, text):
                out.append(text)
    except (PythonPatternError, OverflowError, RecursionError, ValueError):  # Python cannot read it
        return ()
    return tuple(out)


_CATEGORY_CHARS = {"CATEGORY_DIGIT": "0", "CATEGORY_WORD": "a", "CATEGORY_SPACE": " ",
                   "CATEGORY_NOT_DIGIT": "a", "CATEGORY_NOT_WORD": " ", "CATEGORY_NOT_SPACE": "a"}
#: Characters tried for a negated class, in this order.
_ANY_CHARS = "a0 Z_#-.~9z"


def _in_class(ch: str, items: list[tuple[Any, Any]]) -> bool:
    """Whether a character is one of a (non-negated) class's items, as Python reads them."""
    code = ord(ch)
    for op, arg in items:
        name = str(op)
        if name == "LITERAL" and code == arg or name == "RANGE" and arg[0] <= code <= arg[1]:
            return True
        if name == "CATEGORY":
            cat = str(arg)
            test = {"DIGIT": ch.isdigit(), "WORD": ch.isalnum() or ch == "_", "SPACE": ch.isspace()}
            for key, value in test.items():
                if cat == f"CATEGORY_{key}" and value or cat == f"CATEGORY_NOT_{key}" and not value:
                    return True
    return False


def _class_choices(items: list[tuple[Any, Any]]) -> list[str]:
    if items and str(items[0][0]) == "NEGATE":
        rest = items[1:]
        return [c for c in _ANY_CHARS if not _in_class(c, rest)]
    out: list[str] = []
    for op, arg in items:
        name = str(op)
        if name == "LITERAL":
            out.append(chr(arg))
        elif name == "RANGE":
            out += [chr(arg[0]), chr(arg[1])]
        elif name == "CATEGORY" and str(arg) in _CATEGORY_CHARS:
            out.append(_CATEGORY_CHARS[str(arg)])
    return out


def _example(parsed: Iterable[tuple[object, Any]], k: int) -> str | None:  # noqa: C901 - one case per node
    """The k-th try of `examples` for a parsed pattern (None: a construct it does not build)."""
    out: list[str] = []
    size = 0
    for op, arg in parsed:
        name = str(op)
        if name == "LITERAL":
            piece: str | None = chr(arg)
        elif name == "NOT_LITERAL":
            piece = "a" if arg != ord("a") else "b"
        elif name == "ANY":
            piece = "a"
        elif name == "AT":
            piece = ""
        elif name == "IN":
            choices = _class_choices(arg)
            piece = choices[k % len(choices)] if choices else None
        elif name == "BRANCH":
            alternatives = arg[1]
            piece = _example(alternatives[k % len(alternatives)], k)
        elif name == "SUBPATTERN":
            piece = _example(arg[-1], k)
        elif name == "ATOMIC_GROUP":
            piece = _example(arg, k)
        elif name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
            low, high, sub = arg
            times = low + 1 if k % 2 and (high is None or int(high) > low) else low
            one = _example(sub, k)
            if one is None or len(one) * times > MAX_EXAMPLE:
                return None
            piece = one * times
        else:  # look-around, back references, conditionals: RE2 has none of them
            return None
        if piece is None:
            return None
        size += len(piece)
        if size > MAX_EXAMPLE:
            return None
        out.append(piece)
    return "".join(out)
