"""Helpers shared by the hostile-input suites: a hang detector and the paths into JSON data."""

from __future__ import annotations

import signal
from contextlib import contextmanager


@contextmanager
def hang_guard(what: str, seconds: int = 120):
    """Fail with `what` instead of waiting forever: a hang detector, not a timing assertion
    (each example takes milliseconds; only a loop that never ends reaches the alarm)."""
    def expired(*_):
        raise AssertionError(what)

    previous = signal.signal(signal.SIGALRM, expired)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def json_paths(value, prefix=()):
    """Every path into nested JSON data (keys and indexes), the root's `()` first."""
    yield prefix
    if isinstance(value, dict):
        for k, v in value.items():
            yield from json_paths(v, prefix + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from json_paths(v, prefix + (i,))
