"""Room for deep recursion over formulas.

Formulas expanded from recursive macros (`called_n(t) >= 150`, `in_order` of many tools)
are hundreds of operators deep, and the passes that walk them recurse a few Python frames
per level. Python-to-Python calls do not grow the C stack (3.11+), so raising the
interpreter's recursion limit while such a pass runs is safe.
"""

from __future__ import annotations

import sys
from contextlib import contextmanager
from typing import Iterator

RECURSION_LIMIT = 12_000


@contextmanager
def deep_recursion(limit: int = RECURSION_LIMIT) -> Iterator[None]:
    """Raise the recursion limit to at least `limit` for the duration of the block.

    >>> with deep_recursion(5000):
    ...     sys.getrecursionlimit() >= 5000
    True
    """
    previous = sys.getrecursionlimit()
    sys.setrecursionlimit(max(previous, limit))
    try:
        yield
    finally:
        sys.setrecursionlimit(previous)
