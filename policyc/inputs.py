"""Reading input files the safe way: bounded, never hanging, with one clear error.

Every file policyc reads (policies, artifacts, traces) comes from outside. `read_input`
reads one within a size cap, from a regular file, a pipe (`<(...)`) or standard input (`-`):

- a FIFO nobody writes to does not hang: it is opened without waiting and reads as empty;
- a device such as `/dev/zero` or `/dev/urandom`, or standard input that never ends, stops
  at the cap with an error instead of filling memory;
- a directory, a missing file, a symbolic link that loops are each an `InputError` with a
  one-line reason.

The cap is `limit` bytes when given (policy files: 2 MiB), else `max_input_bytes()`: 256 MiB,
or `POLICYC_MAX_INPUT_MB` mebibytes when that variable is set.

>>> import os, tempfile
>>> folder = tempfile.mkdtemp()
>>> with open(os.path.join(folder, "t.json"), "w") as f:
...     _ = f.write("{}")
>>> read_input(os.path.join(folder, "t.json"))
b'{}'
>>> read_input(os.path.join(folder, "t.json"), limit=1)
Traceback (most recent call last):
...
policyc.inputs.InputError: `...t.json` is larger than 1 byte, the most an input may be
>>> read_input(folder)
Traceback (most recent call last):
...
policyc.inputs.InputError: `...` is a directory, not a file
"""

from __future__ import annotations

import errno
import io
import os
import stat
import sys
from typing import BinaryIO

#: Inputs larger than this are refused (POLICYC_MAX_INPUT_MB overrides it).
DEFAULT_MAX_INPUT_MB = 256
ENV_MAX_INPUT = "POLICYC_MAX_INPUT_MB"
_CHUNK = 1 << 20


class InputError(Exception):
    """A file that cannot be read as input, with a one-line reason."""

    def __init__(self, message: str, reason: str = ""):
        super().__init__(message)
        self.message = message
        self.reason = reason or message  # the part after "`path` ..." (for callers that name the file)

    def __str__(self) -> str:
        return self.message


def max_input_bytes() -> int:
    """The size cap of artifacts and trace files: POLICYC_MAX_INPUT_MB mebibytes, or 256."""
    return int(env_number(ENV_MAX_INPUT, DEFAULT_MAX_INPUT_MB) * 1024 * 1024)


#: The environment variables that set a limit, and whether each is a whole number: the
#: command line refuses a value that is not a positive number (`env_problem`).
ENV_LIMITS = {ENV_MAX_INPUT: False, "POLICYC_MAX_STATES": True, "POLICYC_MAX_PRODUCT": True,
              "POLICYC_LSP_FRAME_TIMEOUT": False, "POLICYC_GATEWAY_UNREAD_GRACE": False}


def _positive(text: str, whole: bool) -> float | None:
    try:
        value = int(text) if whole else float(text)
    except ValueError:
        return None
    return value if 0 < value < float("inf") else None


def env_number(name: str, default: float) -> float:
    """A limit the environment sets (`ENV_LIMITS`), or `default` when it is unset or not a
    positive number (the command line refuses such a value first: `env_problem`)."""
    text = os.environ.get(name, "").strip()
    value = _positive(text, ENV_LIMITS.get(name, False)) if text else None
    return default if value is None else value


def env_problem() -> str | None:
    """What is wrong with a limit set in the environment, if anything: a value that is set
    but is not a positive number (a whole one where counts are meant).

    >>> os.environ["POLICYC_MAX_STATES"] = "1e3"
    >>> env_problem()
    'POLICYC_MAX_STATES is `1e3`, not a whole number above 0'
    >>> del os.environ["POLICYC_MAX_STATES"]
    """
    for name, whole in ENV_LIMITS.items():
        text = os.environ.get(name, "").strip()
        if text and _positive(text, whole) is None:
            return f"{name} is `{text[:40]}`, not a {'whole ' if whole else ''}number above 0"
    return None


def _size(n: int) -> str:
    if n >= 1024 * 1024:
        return f"{n / (1024 * 1024):g} MiB"
    return f"{n} byte" + ("s" if n != 1 else "")


def read_input(path: str, limit: int | None = None) -> bytes:
    """The bytes of a file, a pipe or `-` (standard input), at most `limit` bytes (default
    `max_input_bytes()`); InputError for anything else."""
    cap = max_input_bytes() if limit is None else limit
    if path == "-":
        stream = getattr(sys.stdin, "buffer", None)
        if stream is None:  # a text stream standing in for standard input (tests, notebooks)
            return _read_capped(io.BytesIO(sys.stdin.read(cap + 1).encode("utf-8")), path, cap)
        return _read_capped(stream, path, cap)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        raise os_error(path, exc) from None
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise InputError(f"`{path}` is a directory, not a file", "is a directory, not a file")
        if not stat.S_ISREG(mode):
            _blocking(fd)  # a pipe or device: now wait for data (a FIFO without a writer reads as empty)
        with os.fdopen(fd, "rb", closefd=True) as handle:
            fd = -1
            return _read_capped(handle, path, cap)
    except OSError as exc:
        raise os_error(path, exc) from None
    finally:
        if fd >= 0:
            os.close(fd)


def _blocking(fd: int) -> None:
    try:
        import fcntl
    except ImportError:  # not a POSIX system: the file was opened blocking
        return
    flags = fcntl.fcntl(fd, fcntl.F_GETFL)
    fcntl.fcntl(fd, fcntl.F_SETFL, flags & ~os.O_NONBLOCK)


def _read_capped(handle: BinaryIO, path: str, cap: int) -> bytes:
    chunks: list[bytes] = []
    total = 0
    shown = "standard input" if path == "-" else f"`{path}`"
    try:
        while True:
            chunk = handle.read(min(_CHUNK, cap + 1 - total))
            if not chunk:
                return b"".join(chunks)
            chunks.append(chunk)
            total += len(chunk)
            if total > cap:
                reason = f"is larger than {_size(cap)}, the most an input may be" + (
                    f" (set {ENV_MAX_INPUT} to allow more)" if cap == max_input_bytes() else "")
                raise InputError(f"{shown} {reason}", reason)
    except MemoryError:  # a cap set above what the machine can hold
        chunks.clear()
        reason = f"is larger than this machine's memory can hold ({_size(total)} were read; {ENV_MAX_INPUT} is above it)"
        raise InputError(f"{shown} {reason}", reason) from None


def os_error(path: str, exc: OSError) -> InputError:
    """The InputError of an OSError met opening or reading `path`, with a one-line reason."""
    if exc.errno == errno.ENOENT:
        reason = "does not exist"
    elif exc.errno == errno.ELOOP:
        reason = "is a symbolic link that loops (or one chain of links too long)"
    elif exc.errno == errno.EISDIR:
        reason = "is a directory, not a file"
    elif exc.errno == errno.EACCES:
        reason = "cannot be read: permission denied"
    else:
        reason = f"cannot be read: {(exc.strerror or str(exc)).lower()}"
    return InputError(f"`{path}` {reason}", reason)



def is_dir(path: str | os.PathLike[str]) -> bool:
    """`Path.is_dir`, false for a path the system cannot even look up (a name longer than it
    allows, a component that is no folder): where `is_dir` raises, the reader that opens the
    path next says what is wrong, with its name."""
    try:
        return stat.S_ISDIR(os.stat(path).st_mode)
    except (OSError, ValueError):  # (ValueError: a NUL in the path)
        return False


def is_file(path: str | os.PathLike[str]) -> bool:
    """`Path.is_file`, false where the system cannot look the path up (`is_dir`)."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False


def exists(path: str | os.PathLike[str]) -> bool:
    """`Path.exists`, false where the system cannot look the path up (`is_dir`)."""
    try:
        os.stat(path)
    except (OSError, ValueError):
        return False
    return True



def open_output(path: str | os.PathLike[str], append: bool = False) -> int:
    """A file opened for writing (or appending) without ever waiting for a reader: a FIFO
    nobody reads is an OSError (ENXIO), not a hang; a pipe or device someone reads is then
    written to as it comes (blocking again). The descriptor is the caller's to close."""
    flags = os.O_WRONLY | os.O_CREAT | (os.O_APPEND if append else os.O_TRUNC)
    flags |= getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(path, flags, 0o666)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode) and hasattr(os, "O_NONBLOCK"):
            import fcntl

            fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) & ~os.O_NONBLOCK)
    except OSError:
        os.close(fd)
        raise
    return fd

__all__ = ["DEFAULT_MAX_INPUT_MB", "ENV_LIMITS", "ENV_MAX_INPUT", "InputError", "env_number", "env_problem", "exists",
           "is_dir", "is_file", "max_input_bytes", "open_output", "os_error",
           "read_input"]
