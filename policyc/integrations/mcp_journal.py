"""The gateway's write-ahead journal: each event appended and flushed before the gateway acts.

One line per event (`policyc.trace.journal` lists them), written with a single `write` on
a file opened for appending, so the operating system has every line the moment it is
written: a gateway killed by any signal leaves every proposal, decision and result before
that point on disk, and several gateways may share one file (each line names its session).
A line is flushed to the operating system, not synced to the disk: a power cut may lose the
last lines, a killed process does not. Lines are ASCII (other characters escaped), so no
reader splits one at a character some take for a line break (U+0085, U+2028).

>>> import os, tempfile
>>> path = os.path.join(tempfile.mkdtemp(), "runs.jsonl")
>>> journal = Journal(path, "s1")
>>> journal.write("start", policy="p")
>>> open(path).read()
'{"gateway_session":"s1","event":"start","policy":"p"}\\n'
"""

from __future__ import annotations

import errno
import json
import os
import re
import stat
from pathlib import Path
from typing import Any

from policyc.inputs import open_output
from policyc.trace.journal import SESSION_KEY


class JournalError(OSError):
    """The journal cannot be written (the gateway then refuses calls: nothing runs unrecorded)."""

    def __str__(self) -> str:
        return self.strerror or super().__str__()  # the message alone, without `[Errno N]`


class Journal:
    """The events of one session, appended to a trace file (None: kept in memory only)."""

    def __init__(self, path: str | Path | None, session: str):
        self.path = path
        self.session = session
        self._fd: int | None = None
        if path is not None:
            try:
                self._fd = _open(path)
            except OSError as exc:
                reason = ("it is a pipe that nobody reads" if exc.errno == errno.ENXIO
                          else exc.strerror or str(exc))
                raise JournalError(exc.errno, f"cannot write the trace to `{path}`: {reason}") from None

    def event(self, kind: str, **fields: Any) -> dict:
        """The event as the journal holds it (what `write` appends)."""
        return {SESSION_KEY: self.session, "event": kind, **fields}

    def write(self, kind: str, **fields: Any) -> None:
        """Append one event and hand it to the operating system (JournalError when it cannot)."""
        if self._fd is None:
            return
        data = (_line(self.event(kind, **fields)) + "\n").encode("ascii")
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(self._fd, view):]
        except OSError as exc:
            raise JournalError(exc.errno, f"cannot write the trace to `{self.path}`: {exc.strerror or exc}") from None

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


def _open(path: str | Path) -> int:
    """The trace file opened for appending, never waiting for a reader (a FIFO nobody reads is
    ENXIO, not a hang); a regular file whose last line was cut short (a writer killed while
    writing it) gets a line break first, so the lines appended after it stay whole."""
    fd = open_output(path, append=True)
    try:
        status = os.fstat(fd)
        if stat.S_ISREG(status.st_mode) and status.st_size > 0:
            with open(path, "rb") as existing:
                existing.seek(-1, os.SEEK_END)
                if existing.read(1) != b"\n":
                    os.write(fd, b"\n")
    except OSError:
        os.close(fd)
        raise
    return fd


def _line(event: dict) -> str:
    """One event as one line of JSON; a value JSON cannot hold (an integer of thousands of
    digits, NaN or an infinity, nesting past the interpreter's limit) is written as a note
    saying so."""
    try:
        text = json.dumps(event, separators=(",", ":"), default=str, allow_nan=False)
    except (ValueError, RecursionError):
        return json.dumps({k: _field(v) for k, v in event.items()}, separators=(",", ":"), default=str,
                          allow_nan=False)
    if _HALF_PAIR_ESCAPE.search(text) is None:
        return text
    # half a surrogate pair (a server's "\ud800") is no character: JSON readers refuse the line,
    # so it is written as U+FFFD, the replacement character, and the rest of the text is kept
    return json.dumps({k: _whole_field(v) for k, v in event.items()}, separators=(",", ":"), default=str,
                      allow_nan=False)


def _whole_field(value: Any) -> Any:
    """`_whole_characters(value)`, or a note when it nests too deeply to be walked."""
    try:
        return _whole_characters(value)
    except RecursionError:
        return {"unwritable": "nested too deeply"}


#: what `json.dumps` writes for a surrogate (a whole pair is written as two of them, and is kept)
_HALF_PAIR_ESCAPE = re.compile(r"\\ud[89a-f]")
_HALF_PAIR = re.compile("[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]")


def _whole_characters(value: Any) -> Any:
    """`value` with every half of a surrogate pair in its texts and keys replaced by U+FFFD."""
    if isinstance(value, str):
        return _HALF_PAIR.sub("\ufffd", value)
    if isinstance(value, dict):
        return {_whole_characters(k): _whole_characters(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_whole_characters(v) for v in value]
    return value


def _field(value: Any) -> Any:
    """A field of an event as it can be written: itself, or a note of why it cannot."""
    try:
        json.dumps(value, default=str, allow_nan=False)
    except RecursionError:
        return {"unwritable": "nested too deeply"}
    except ValueError:
        return {"unwritable": "not writable as JSON"}
    return value


__all__ = ["Journal", "JournalError"]
