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
from contextlib import asynccontextmanager
from typing import Any, AsyncIterator, Awaitable, Callable

import anyio
from mcp import types
from mcp.shared.message import SessionMessage

from policyc.trace.jsontext import member

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


def server_answer(exc: BaseException) -> types.JSONRPCError | None:
    """A server's unreadable line, as an error answer to the request it names (None: it
    names none, so no call is waiting for it)."""
    text = frame_text(exc)
    if text is None:
        return None
    found, request_id = frame_id(text)
    if not found:
        return None
    problem = frame_problem(text, exc)
    return types.JSONRPCError(jsonrpc="2.0", id=request_id, error=types.ErrorData(
        code=INTERNAL_ERROR, message=f"the server's answer could not be read: {problem}",
        data={UNREADABLE: text[:RAW_CAP], "problem": problem, "truncated": len(text) > RAW_CAP}))


@asynccontextmanager
async def filtered(stream: Any, handle: Callable[[Any], Awaitable[Any]]) -> AsyncIterator[Any]:
    """A receive stream giving what `handle` makes of each item of `stream` (None: dropped)."""
    send, receive = anyio.create_memory_object_stream[Any](0)

    async def pump() -> None:
        async with send:
            try:
                async for item in stream:
                    out = await handle(item)
                    if out is not None:
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


def answering_server(log: Callable[[str], None]) -> Callable[[Any], Awaitable[Any]]:
    """A `filtered` handler for the server's side: an unreadable answer ends its call with an
    error that carries its raw text."""
    async def handle(item: Any) -> Any:
        if not isinstance(item, Exception):
            return item
        answer = server_answer(item)
        if answer is None:
            log("a message from the server could not be read and answers no call; ignored")
            return None
        return SessionMessage(answer)
    return handle


__all__ = ["UNREADABLE", "answering_client", "answering_server", "client_reply", "filtered", "frame_id",
           "server_answer"]
