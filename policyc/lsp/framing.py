"""LSP frames read from a byte stream, answered even when they are broken.

A frame is headers (`Content-Length: N`, a blank line) and N bytes of JSON. pygls's own
reader trusts every header: a `Content-Length` that is not a number, or that is wrong, left
the server reading the next messages as the body of a broken one (deaf), and a body that did
not parse, or a request whose parameters did not fit, was only logged (never answered). This
reader:

- answers every request it cannot handle with a JSON-RPC error carrying its id when the id
  can be read (-32700 a body that is not JSON it can read, -32600 a message that is not a
  request object, the handler's own code when its parameters do not fit), and with a null id
  when it cannot;
- resynchronises after a broken header or a wrong length, at the next `Content-Length:`;
- never waits for ever on a frame that stopped half-way: after `timeout` seconds with no new
  byte, what arrived of the frame is answered as broken and dropped;
- refuses a frame announcing more than `MAX_BODY` bytes, reading on at the next header
  without keeping what it drops.

>>> frames = []
>>> reader = FrameReader(lambda body: frames.append(body), lambda rid, code, message: frames.append((rid, code)))
>>> reader.feed(b'Content-Length: 2\\r\\n\\r\\n{}Content-Length: x\\r\\n\\r\\n{"id": 4}')
>>> reader.flush_broken()
>>> frames
[b'{}', (4, -32700)]
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
from typing import Any, Callable
from urllib.parse import unquote

from policyc.inputs import env_number

#: The longest header block read (bytes), and the largest body accepted.
MAX_HEADER = 8192
MAX_BODY = 64 << 20
#: Seconds without a new byte after which a half-read frame counts as broken.
FRAME_TIMEOUT = env_number("POLICYC_LSP_FRAME_TIMEOUT", 10)
PARSE_ERROR, INVALID_REQUEST, INTERNAL_ERROR, NOT_INITIALIZED = -32700, -32600, -32603, -32002
_HEAD, _KEEP = 4096, 64  # bytes of a broken frame kept for its id; bytes kept to find a header across reads
_LENGTH = re.compile(rb"content-length[ \t]*:[ \t]*([^\r\n]*)", re.IGNORECASE)
_HEADER_START = re.compile(rb"content-length[ \t]*:", re.IGNORECASE)
_END_OF_HEADERS = re.compile(rb"\r?\n\r?\n")
_log = logging.getLogger("pygls")  # the server's log: one line each on standard error


def request_id(data: bytes) -> int | str | None:
    """The `id` at the top level of a frame's body, read without parsing the rest."""
    from policyc.jsontext import member

    text = data.decode("utf-8", "replace")
    try:
        at = member(text, 0, "id")
        if at is None:
            return None
        value, _ = json.JSONDecoder().raw_decode(text, at)
    except (ValueError, RecursionError):
        return None
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        return None
    return value


class FrameReader:
    """Frames out of bytes fed in: `on_body(bytes)` for each whole frame, `on_error(id, code,
    message)` for each broken one."""

    def __init__(self, on_body: Callable[[bytes], None], on_error: Callable[[Any, int, str], None]):
        self.buffer = bytearray()
        self.on_body = on_body
        self.on_error = on_error
        self.length: int | None = None  # the body length of the frame being read
        self.broken: str | None = None  # why the bytes up to the next header are a broken frame
        self.head = bytearray()         # the start of the broken frame (where its id is)

    @property
    def pending(self) -> bool:
        """Whether part of a frame is waiting for more bytes."""
        return bool(self.buffer.strip()) or self.length is not None or self.broken is not None

    def feed(self, data: bytes) -> None:
        self.buffer += data
        while self._step():
            pass

    def _step(self) -> bool:
        if self.broken is not None:  # a frame whose length is unknown: it ends at the next header
            found = _HEADER_START.search(self.buffer)
            cut = found.start() if found is not None else max(0, len(self.buffer) - _KEEP)
            self.head += self.buffer[:max(0, min(cut, _HEAD - len(self.head)))]
            del self.buffer[:cut]  # what is dropped is not kept: a broken frame costs no memory
            if found is None:
                return False
            self._answer_broken()
            return True
        if self.length is None:
            return self._headers()
        if len(self.buffer) < self.length:
            return False
        body = bytes(self.buffer[:self.length])
        del self.buffer[:self.length]
        self.length = None
        following = _HEADER_START.search(body)
        if following is not None and following.start() > 0 and not _parses(body):
            # the announced length ran into the next frame: this one ends where that one starts
            self.buffer[:0] = body[following.start():]
            body = body[:following.start()]
        self.on_body(body)
        return True

    def _headers(self) -> bool:
        end = _END_OF_HEADERS.search(self.buffer)
        if end is None:
            if len(self.buffer) > MAX_HEADER:
                self.broken = "its headers are longer than 8 KiB"
                start = _HEADER_START.search(self.buffer, 1)
                del self.buffer[:start.start() if start else len(self.buffer)]
                return True
            return False
        block = bytes(self.buffer[:end.start()])
        del self.buffer[:end.end()]
        # the last `Content-Length:` of the block: what precedes it is the tail of a broken frame
        start = max(_HEADER_START.finditer(block), key=lambda m: m.start(), default=None)
        if start is None:
            if block.strip():
                self.broken = "it has no Content-Length header"
            return True
        found = _LENGTH.match(block, start.start())
        value = found.group(1).strip() if found is not None else b""
        if not value.isdigit():
            self.broken = f"its Content-Length `{value[:20].decode('utf-8', 'replace')}` is not a number"
            return True
        # a number longer than any length read could be is too long, whatever its digits say
        length = int(value) if len(value.lstrip(b"0")) <= 18 else MAX_BODY + 1
        if length > MAX_BODY:
            self.broken = (f"it announces {value.decode() if len(value) <= 20 else 'a number of ' + str(len(value)) + ' digits'}"
                           f" bytes, and at most {MAX_BODY} are read")
            return True
        self.length = length
        return True

    def _answer_broken(self) -> None:
        reason, self.broken = self.broken, None
        head, self.head = bytes(self.head), bytearray()
        self.on_error(request_id(head), PARSE_ERROR, f"the frame is broken: {reason}")

    def flush_broken(self) -> None:
        """No more bytes came: what arrived of the frame being read is answered as broken and
        dropped; a frame that began after it (a length too long ran into it) is read on."""
        if not self.pending:
            return
        following = _HEADER_START.search(self.buffer, 1)
        cut = following.start() if following is not None else len(self.buffer)
        data = bytes(self.buffer[:cut])
        if self.broken is not None:
            self.head += data[:max(0, _HEAD - len(self.head))]
            self._answer_broken()
        elif self.length is not None:
            self.on_error(request_id(data), PARSE_ERROR,
                          f"the frame is broken: it announced {self.length} bytes and {len(data)} came")
        else:
            self.on_error(None, PARSE_ERROR, "the frame is broken: its headers never ended")
        del self.buffer[:cut]
        self.length = None
        while self._step():
            pass


def _parses(body: bytes) -> bool:
    try:
        json.loads(body)
    except (ValueError, RecursionError):
        return False
    return True


class Dispatcher:
    """Bodies handed to a pygls protocol; whatever it cannot handle is answered.

    Before `initialize`, a request is answered with -32002 and a notification other than
    `exit` dropped, as the protocol says; a message with an id and no method, result or
    error is answered as an invalid request; a change to a document never opened is dropped
    (there is nothing to change), where pygls would show the editor a KeyError."""

    def __init__(self, protocol: Any):
        self.protocol = protocol
        self.initialized = False

    def error(self, rid: Any, code: int, message: str) -> None:
        self.protocol._send_data({"jsonrpc": "2.0", "id": rid, "error": {"code": code, "message": message}})

    def body(self, data: bytes) -> None:
        try:
            value = json.loads(data)
        except (ValueError, RecursionError) as exc:
            reason = "it is nested too deeply" if isinstance(exc, RecursionError) else "it is not JSON this server reads"
            self.error(request_id(data), PARSE_ERROR, f"the message cannot be read: {reason}")
            return
        if not isinstance(value, dict):
            self.error(None, INVALID_REQUEST, "the message is not a JSON-RPC object (batches are not supported)")
            return
        rid = value.get("id")
        is_request = "id" in value and "method" in value
        method = value.get("method")
        if "method" not in value:
            if "id" in value and "result" not in value and "error" not in value:
                self.error(rid if _is_id(rid) else None, INVALID_REQUEST,
                           "the message has an id but no method: it is neither a request nor a response")
                return
        elif not self.initialized and method not in ("initialize", "exit"):
            if is_request:
                self.error(rid if _is_id(rid) else None, NOT_INITIALIZED,
                           "the server is not initialized: send `initialize` first")
            return
        elif method == "textDocument/didChange" and not self._opened(value.get("params")):
            _log.warning("a change to a document that was never opened was dropped")
            return
        if isinstance(method, str) and "params" not in value and self.protocol.get_message_type(method) is None:
            value["params"] = None  # JSON-RPC lets a message leave its params out; pygls's generic ones need them
        try:
            message = self.protocol.structure_message(value)
        except Exception as exc:  # noqa: BLE001 - the message's parameters do not fit its method
            if is_request:
                self.error(rid, getattr(exc, "code", INVALID_REQUEST),
                           f"the request cannot be handled: {getattr(exc, 'message', '') or type(exc).__name__}")
            return
        try:
            self.protocol.handle_message(message)
        except Exception as exc:  # noqa: BLE001 - a handler failed outright: the request is still answered
            if is_request:
                self.error(rid, INTERNAL_ERROR, f"the request failed: {type(exc).__name__}")
            return
        if method == "initialize":
            self.initialized = True

    def _opened(self, params: Any) -> bool:
        """Whether a didChange's document is open (its parameters are checked by pygls)."""
        document = params.get("textDocument") if isinstance(params, dict) else None
        uri = document.get("uri") if isinstance(document, dict) else None
        return not isinstance(uri, str) or unquote(uri) in self.protocol.workspace.text_documents


def _is_id(value: Any) -> bool:
    return isinstance(value, (int, str)) and not isinstance(value, bool)


async def read_frames(read: Callable[[], Any], protocol: Any, stop: Any, timeout: float = FRAME_TIMEOUT) -> None:
    """Serve `protocol` from `read()` (an awaitable giving the next bytes, b"" at the end)
    until the input ends or `stop` is set."""
    dispatcher = Dispatcher(protocol)
    reader = FrameReader(dispatcher.body, dispatcher.error)
    waiting: asyncio.Future | None = None
    while not stop.is_set():
        if waiting is None:
            waiting = asyncio.ensure_future(read())
        try:
            data = await asyncio.wait_for(asyncio.shield(waiting), timeout if reader.pending else None)
        except asyncio.TimeoutError:
            reader.flush_broken()
            continue
        waiting = None
        if not data:
            reader.flush_broken()
            return
        reader.feed(data)


__all__ = ["FrameReader", "MAX_BODY", "read_frames", "request_id"]
