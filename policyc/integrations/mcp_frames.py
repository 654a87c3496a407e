"""JSON-RPC frames the MCP SDK cannot read: answered, never dropped, in both directions.

The SDK reads one message per line and hands a line it cannot read (not JSON, nested past
its parser's limit, a number too long, not a JSON-RPC message) to the session as an
exception, which the session logs and drops. A dropped request is never answered, so the
peer waits forever. The gateway looks at what was dropped:

- from the client: a request whose id can still be found gets a JSON-RPC error with that id
  (-32700 when the line is not JSON it can read, -32600 when it is JSON but no request the
  SDK accepts); a line that is not JSON at all gets -32700 with a null id, as JSON-RPC
  says; a notification (no id) is only logged, since notifications are never answered;
- from the server: an answer whose id can still be found is handed to the session as a
  JSON-RPC error for that request, carrying the raw line (`UNREADABLE`), so the pending call
  ends at once and the gateway records that the server ran it and what it said.

>>> frame_id('{"jsonrpc": "2.0", "id": 7, "params": [[[[')
(True, 7)
>>> frame_id('{"params": {"id": 3}}'), frame_id("garbage")
((False, None), (False, None))
"""

from __future__ import annotations

import json
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass
from typing import Any, AsyncIterator, Awaitable, Callable

import anyio
from mcp import types
from mcp.shared.message import SessionMessage

from policyc.inputs import env_number
from policyc.jsontext import member

#: `ErrorData.data` key under which an unreadable answer of the server reaches the gateway.
UNREADABLE = "policyc_unreadable_answer"
#: How much of an unreadable answer is kept (its raw text) in the trace.
RAW_CAP = 1 << 20
PARSE_ERROR, INVALID_REQUEST, INTERNAL_ERROR = -32700, -32600, -32603


def frame_text(exc: BaseException) -> str | None:
    """The line an SDK parse error was raised for, when the error keeps it."""
    errors = getattr(exc, "errors", None)
    if not callable(errors):
        return None
    try:
        found = errors()
    except Exception:  # noqa: BLE001 - not a pydantic error after all
        return None
    for error in found:
        given = error.get("input")
        if isinstance(given, str):
            return given
    for error in found:
        given = error.get("input")
        if isinstance(given, dict) and "jsonrpc" in given:
            try:
                return json.dumps(given)
            except (TypeError, ValueError, RecursionError):
                return None
    return None


def frame_id(text: str) -> tuple[bool, int | str | None]:
    """(whether the frame is an object with an `id` at its top level, that id), read
    without parsing the rest (which may be what could not be read)."""
    try:
        at = member(text, 0, "id")
    except RecursionError:
        return False, None
    if at is None:
        return False, None
    try:
        value, _ = json.JSONDecoder().raw_decode(text, at)
    except (ValueError, RecursionError):
        return False, None
    if isinstance(value, bool) or not isinstance(value, (int, str)) or isinstance(value, int) and abs(value) > 2 ** 53:
        return False, None
    return True, value


def frame_problem(text: str | None, exc: BaseException) -> str:
    """What is wrong with a frame, in a few words."""
    detail = str(exc).lower()
    if "recursion limit" in detail or "too deep" in detail:
        return "it is nested too deeply"
    if "number out of range" in detail or "exceeds the limit" in detail:
        return "it holds a number too long to read"
    if text is None:
        return "it could not be read"
    try:
        value = json.loads(text)
    except RecursionError:
        return "it is nested too deeply"
    except ValueError:
        return "it is not JSON"
    if not isinstance(value, dict):
        return "it is not a JSON-RPC message object (batches are not supported)"
    return "it is not a valid JSON-RPC message"


def client_reply(exc: BaseException) -> types.JSONRPCError | None:
    """The error a client gets for a line of its own the SDK could not read (None: it was a
    notification, which gets no answer)."""
    text = frame_text(exc)
    problem = frame_problem(text, exc)
    try:
        value = json.loads(text) if text is not None else None
        parsed = True
    except (ValueError, RecursionError):
        value, parsed = None, False
    if parsed and isinstance(value, dict) and "id" not in value and "method" in value:
        return None  # a notification: never answered
    found, request_id = frame_id(text) if text is not None else (False, None)
    code = INVALID_REQUEST if parsed else PARSE_ERROR
    return types.JSONRPCError(jsonrpc="2.0", id=request_id if found else None,
                              error=types.ErrorData(code=code, message=f"the gateway cannot read this message: {problem}"))


def server_answer(exc: BaseException, request_id: int | str | None = None) -> types.JSONRPCError | None:
    """A server's unreadable line, as an error answer to the request it names, or to
    `request_id` when it names none (None: it names none, and none was given)."""
    text = frame_text(exc)
    found, named = frame_id(text) if text is not None else (False, None)
    if found:
        request_id = named
    elif request_id is None:
        return None
    problem = frame_problem(text, exc)
    raw = text or ""
    return types.JSONRPCError(jsonrpc="2.0", id=request_id, error=types.ErrorData(
        code=INTERNAL_ERROR, message=f"the server's answer could not be read: {problem}",
        data={UNREADABLE: raw[:RAW_CAP], "problem": problem, "truncated": len(raw) > RAW_CAP}))


def _message(item: Any) -> Any:
    """The JSON-RPC message a `SessionMessage` carries (the SDK's older versions wrap it in a
    root model)."""
    message = getattr(item, "message", None)
    return getattr(message, "root", message)


class Requests:
    """The requests sent to the server that no answer has come for yet, by id: its send
    stream, with the ids of the requests that pass through it kept (`waiting`)."""

    def __init__(self, stream: Any):
        self.stream = stream
        self.waiting: set[int | str] = set()

    async def send(self, item: Any) -> None:
        message = _message(item)
        if isinstance(message, types.JSONRPCRequest):
            self.waiting.add(message.id)
        await self.stream.send(item)

    def answered(self, item: Any) -> None:
        message = _message(item)
        if isinstance(message, (types.JSONRPCResponse, types.JSONRPCError)):
            self.waiting.discard(message.id)

    def take(self, request_id: int | str) -> bool:
        """Whether the request still waits for its answer; it no longer does after this."""
        if request_id not in self.waiting:
            return False
        self.waiting.discard(request_id)
        return True

    async def aclose(self) -> None:
        await self.stream.aclose()

    async def __aenter__(self) -> "Requests":
        await self.stream.__aenter__()
        return self

    async def __aexit__(self, *exc: Any) -> Any:
        return await self.stream.__aexit__(*exc)

    def __getattr__(self, name: str) -> Any:  # the stream's other methods, as they are
        return getattr(self.stream, name)


@asynccontextmanager
async def filtered(stream: Any, handle: Callable[[Any], Awaitable[Any]]) -> AsyncIterator[Any]:
    """A receive stream giving what `handle` makes of each item of `stream` (None: dropped; a
    `Later`: its item, after its delay, if it is still due then)."""
    send, receive = anyio.create_memory_object_stream[Any](0)

    async def later(out: Later) -> None:
        await anyio.sleep(out.seconds)
        if out.due():
            with suppress(anyio.ClosedResourceError, anyio.BrokenResourceError):  # the session has ended
                await send.send(out.item)

    async def pump() -> None:
        async with send:
            try:
                async for item in stream:
                    out = await handle(item)
                    if isinstance(out, Later):
                        group.start_soon(later, out)
                    elif out is not None:
                        await send.send(out)
            except (anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream):
                pass

    async with anyio.create_task_group() as group:
        group.start_soon(pump)
        try:
            yield receive
        finally:
            group.cancel_scope.cancel()


def answering_client(write: Any, log: Callable[[str], None]) -> Callable[[Any], Awaitable[Any]]:
    """A `filtered` handler for the client's side: unreadable requests are answered on
    `write`; everything else goes on to the session."""
    async def handle(item: Any) -> Any:
        if not isinstance(item, Exception):
            return item
        reply = client_reply(item)
        if reply is None:
            log("a notification from the client could not be read; ignored")
            return None
        log(f"answered a message the client sent that could not be read ({reply.error.message})")
        try:
            await write.send(SessionMessage(reply))
        except (anyio.ClosedResourceError, anyio.BrokenResourceError):
            pass
        return None
    return handle


#: Seconds an unreadable line that names no request leaves the one request waiting to be
#: answered after all (a server that prints a stray line, then answers), before the line
#: ends it with an error.
UNREAD_GRACE = env_number("POLICYC_GATEWAY_UNREAD_GRACE", 10)


@dataclass(frozen=True)
class Later:
    """What `filtered` sends after `seconds`, if `due()` says it is still due then."""

    item: Any
    seconds: float
    due: Callable[[], bool]


def answering_server(log: Callable[[str], None], requests: Requests | None = None) -> Callable[[Any], Awaitable[Any]]:
    """A `filtered` handler for the server's side: an unreadable answer ends its call with an
    error that carries its raw text. One that names no request ends the one request waiting,
    when only one is (calls are forwarded one at a time), unless its answer comes within
    UNREAD_GRACE seconds: without it that call would wait for ever."""
    async def handle(item: Any) -> Any:
        if not isinstance(item, Exception):
            if requests is not None:
                requests.answered(item)
            return item
        answer = server_answer(item)
        if answer is not None:
            if requests is not None:
                requests.waiting.discard(answer.id)
            return SessionMessage(answer)
        if requests is None or len(requests.waiting) != 1:
            log("a message from the server could not be read and answers no call; ignored")
            return None
        (waiting,) = requests.waiting
        ending = server_answer(item, waiting)
        assert ending is not None  # given an id, it always answers
        log(f"a message from the server could not be read; the call waiting is ended with it unless "
            f"its answer comes within {UNREAD_GRACE:g} s")
        return Later(SessionMessage(ending), UNREAD_GRACE, lambda: requests.take(waiting))
    return handle


__all__ = ["UNREADABLE", "Requests", "answering_client", "answering_server", "client_reply", "filtered", "frame_id",
           "server_answer"]
