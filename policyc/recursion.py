"""Room for deep recursion over formulas.

Formulas expanded from recursive macros (`called_n(t) >= 150`, `in_order` of many tools)
are hundreds of operators deep, and the passes that walk them recurse a few Python frames
per level. Python-to-Python calls do not grow the C stack (3.11+), so raising the
interpreter's recursion limit while such a pass runs is safe.

The limit is one setting of the whole interpreter, shared by every thread. `deep_recursion`
therefore counts the blocks that are running in any thread: the first one in raises the
limit, the last one out puts back what it found, and a limit that someone else changed in
the meantime is left alone. Threads running such blocks at once never lower the limit under
one another, and the limit is always restored.
"""

from __future__ import annotations

import sys
import threading
from contextlib import contextmanager
from typing import Iterator

RECURSION_LIMIT = 12_000


class _Room:
    """The interpreter-wide bookkeeping of the blocks that need a raised limit."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.active = 0
        self.saved = 0      # the limit found by the first block in
        self.raised = 0     # the limit the blocks set


_ROOM = _Room()


@contextmanager
def deep_recursion(limit: int = RECURSION_LIMIT) -> Iterator[None]:
    """Raise the recursion limit to at least `limit` for the duration of the block.

    >>> with deep_recursion(5000):
    ...     sys.getrecursionlimit() >= 5000
    True
    """
    with _ROOM.lock:
        if _ROOM.active == 0:
            _ROOM.saved = sys.getrecursionlimit()
            _ROOM.raised = _ROOM.saved
        _ROOM.active += 1
        if sys.getrecursionlimit() < limit:
            sys.setrecursionlimit(limit)
        _ROOM.raised = max(_ROOM.raised, sys.getrecursionlimit())
    try:
        yield
    finally:
        with _ROOM.lock:
            _ROOM.active -= 1
            if _ROOM.active == 0 and sys.getrecursionlimit() == _ROOM.raised:
                sys.setrecursionlimit(_ROOM.saved)
