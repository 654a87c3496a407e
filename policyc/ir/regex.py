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
