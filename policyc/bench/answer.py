"""Reading a final answer, and the shaped accuracy of appendix E.1.

The prompts ask for a last line `ANSWER: <integer>`. An answer is well formatted when it is
an integer (a JSON number, as a `final_answer(answer=33)` call records it), a string that is
an integer, or text containing `ANSWER: <integer>` (the last such line counts). Anything
else - no answer, prose without the line, a non-integer - is badly formatted.
"""

from __future__ import annotations

import re
from typing import Any

ANSWER_PATTERN = re.compile(r"ANSWER\s*:\s*\**\s*(-?\d+)\b", re.IGNORECASE)
INTEGER = re.compile(r"\s*(-?\d+)\s*")


def parse_answer(value: Any) -> int | None:
    """The integer an answer states, or None when it is badly formatted.

    >>> parse_answer(33), parse_answer("33"), parse_answer("so the total is 12.\\nANSWER: 12")
    (33, 33, 12)
    >>> parse_answer("about twelve"), parse_answer(None), parse_answer(12.5), parse_answer(True)
    (None, None, None, None)
    """
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return int(value) if value.is_integer() else None
    if not isinstance(value, str):
        return None
    found = ANSWER_PATTERN.findall(value)
    match = None if found else INTEGER.fullmatch(value)
    digits = found[-1] if found else match.group(1) if match else None
    if digits is None or len(digits.lstrip("+-0")) > 4000:  # thousands of digits: no answer is that long
        return None
    return int(digits)


def shaped_accuracy(answer: int | None, expected: int) -> float:
    """Acc of appendix E.1: 1.0 well formatted and right, 0.1 well formatted and wrong, 0.0 badly formatted.

    >>> shaped_accuracy(12, 12), shaped_accuracy(13, 12), shaped_accuracy(None, 12)
    (1.0, 0.1, 0.0)
    """
    if answer is None:
        return 0.0
    return 1.0 if answer == expected else 0.1
