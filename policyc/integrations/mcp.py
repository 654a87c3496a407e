"""MCP: a gateway between an MCP client and a real MCP server that gates every tool call.

`policyc gateway POLICY -- COMMAND...` runs COMMAND as an MCP server over stdio and serves
its tools to the client on the gateway's own standard input and output (`serve`). Toward
the client it is a server (the `mcp` SDK's low-level `Server`), toward the real server a
client session (`ClientSession` over `stdio_client`):

- `tools/list` passes through unchanged (so do prompts and resources, when the server has
  them); at start-up the server's tools are compared with the policy's signatures
  (`policyc.toolschema.compare_tools`) and every difference is reported on standard error;
- every `tools/call` is proposed to the client session's `Monitor` run first. Allowed, it
  is forwarded and recorded with its result; warned, it is forwarded and the warning is
  appended to its content; refused (block, stop), it is not forwarded, and the client gets a
  tool error (`isError: true`) whose text is the gate's message. Calls are gated and run one
  at a time, in the order they arrive: the trace is a sequence;
- the trace log is written ahead (`policyc.integrations.mcp_journal`): each proposal,
  decision and result is appended and flushed the moment it happens, before the gateway acts
  on it, and the session's end with its compliance report; `policyc score` reads the log as
  one record per session, so a gateway killed at any point leaves every call it forwarded on
  disk. A result the run cannot hold (nested too deeply, say) is recorded as its raw text and
  marked (`recorded_raw`): the call has run. SIGTERM and SIGINT end the session cleanly;
- a message either side sends that the SDK cannot read is answered (`mcp_frames`): the
  client gets a JSON-RPC error, and a call whose answer from the server cannot be read ends
  with a tool error, recorded with the raw answer.

The recorded result of a call is what the tool returned, in the shape the policy declares
for it (`policyc.trace.results`, as every adapter and the scorer read results): its
structured content, else its text (the JSON value it holds, or each text block when a list
came as one block per item). The SDK wraps a result that is not an object as
`{"result": ...}` (its output schema says so); the value inside is recorded, unless the
policy declares the wrapper record itself. A call the server answered with an error ran:
it is recorded as failed (`error`), with the error's text as its result.
"""

from __future__ import annotations

import os
import signal
import sys
import time
import uuid
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, TextIO

import anyio
from mcp import ClientSession, StdioServerParameters, stdio_client, types
from mcp.server import Server
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError

from policyc.integrations.gating import typed_result
from policyc.integrations.mcp_frames import UNREADABLE, Requests, answering_client, answering_server, filtered
from policyc.integrations.mcp_journal import Journal, JournalError
from policyc.ir.types import ANY, Type
from policyc.runtime import Monitor, RunError
from policyc.runtime.calls import normalise_result
from policyc.terminal import printable
from policyc.toolschema import ToolSetReport, compare_tools, signatures_from_schemas
from policyc.toolschema.convert import sdk_wrapped
from policyc.trace.journal import Assembler
from policyc.trace.results import WRAPPER, shaped_result

STARTUP_TIMEOUT = 30.0  # seconds for the real server to answer `initialize` and `tools/list`


class GatewayError(Exception):
    """The gateway cannot do its job (the server does not start, answers garbage, ...)."""


# ------------------------------------------------------------------ results and records


def recorded_result(result: types.CallToolResult, declared: Type = ANY, wrapped: bool = False) -> Any:
    """What the trace keeps of a tool's result (see the module docstring); `wrapped`: the
    server's output schema is the SDK's `{"result": ...}` wrapper."""
    texts = [c.text for c in result.content if isinstance(c, types.TextContent)]
    if result.is_error:
        return "\n".join(texts)
    candidates: list[Any] = []
    structured = result.structured_content
    if structured is not None:
        inner = wrapped and isinstance(structured, dict) and list(structured) == [WRAPPER]
        candidates.append(structured[WRAPPER] if inner else structured)
    if texts:
        candidates.append(normalise_result("\n".join(texts)))
        if len(texts) > 1:
            candidates.append([normalise_result(t) for t in texts])  # a list sent as a block per item
    return typed_result([shaped_result(c, declared) for c in candidates], declared)


def tool_error(message: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=message)], is_error=True)


def raw_result(result: types.CallToolResult) -> str:
    """A result as the text the server sent (what is recorded when its value cannot be)."""
    try:
        return result.model_dump_json(by_alias=True, exclude_none=True)
    except Exception:  # noqa: BLE001 - a result pydantic cannot write: its texts
        return "\n".join(c.text for c in result.content if isinstance(c, types.TextContent))


@dataclass
class GatedSession:
    """One client session: its policy run, and its journal (the trace log, written ahead)."""

    monitor: Monitor
    mode: str | None = None
    server: str = ""
    id: str = field(default_factory=lambda: uuid.uuid4().hex)
    started: float = field(default_factory=time.time)
    trace_log: str | Path | None = None

    wrapped: frozenset[str] = frozenset()  # the tools whose results the SDK wraps as `{"result": ...}`

    def __post_init__(self) -> None:
        self.run = self.monitor.start(mode=self.mode, run_id=self.id)
        self.lock = anyio.Lock()
        self.journal = Journal(self.trace_log, self.id)  # JournalError when the log cannot be opened
        self._events = Assembler()  # the journal as it stands, read back: the session's record
        self._line = 0
        self._record: dict | None = None
        self._proposals = 0
        self._in_flight: tuple[int, str, dict] | None = None  # forwarded, not answered yet

    def _emit(self, kind: str, **fields: Any) -> None:
        """Append an event to the journal (first: JournalError if it cannot be written), then
        to the session's own record. The session's `start` comes with its first event: a
        session in which nothing was proposed leaves nothing to score."""
        if self._line == 0:
            start = {"policy": self.monitor.name, "server": self.server, "started": self.started}
            self.journal.write("start", **start)
            self._line += 1
            self._events.feed_event(self._line, self.journal.event("start", **start))
        self.journal.write(kind, **fields)
        self._line += 1
        self._events.feed_event(self._line, self.journal.event(kind, **fields))

    async def call(self, name: str, arguments: dict | None, forward: Callable, log: Callable[[str], None]):
        """Gate one `tools/call`; `forward(name, arguments)` runs it on the real server."""
        args = dict(arguments or {})
        async with self.lock:
            seq, self._proposals = self._proposals, self._proposals + 1
            try:
                self._emit("proposal", seq=seq, tool=name, arguments=args)
            except JournalError as exc:  # nothing runs that the trace cannot show
                log(str(exc))
                return tool_error(f"`{name}` was not executed: the gateway cannot write its trace")
            try:
                decision = self.run.propose(name, args)
            except (RunError, TypeError, ValueError) as exc:
                return self._refused(seq, name, args, str(exc), log)
            try:
                self._emit("decision", seq=seq, step=decision.step, tool=name, arguments=args, action=decision.action,
                           rules=list(decision.rules), message=decision.message)
            except JournalError as exc:
                log(str(exc))
                return tool_error(f"`{name}` was not executed: the gateway cannot write its trace")
            if not decision.executes:
                log(f"{decision.action} `{name}`: {', '.join(decision.rules) or 'signature conformance'}")
                return tool_error(decision.message)
            self._in_flight = (seq, name, args)
            try:
                result = await forward(name, args)
            except MCPError as exc:
                data = exc.data if isinstance(exc.data, dict) else {}
                if UNREADABLE in data:  # the server ran the call and answered what cannot be read
                    return self._ran(seq, name, args, str(data[UNREADABLE]), True, log,
                                     f"the server's answer could not be read: {data.get('problem')}",
                                     tool_error(f"`{name}` ran, but its result could not be read: {data.get('problem')}"))
                return self._failed(seq, name, args, exc, log)
            except Exception as exc:  # noqa: BLE001 - the server died or answered garbage: the client gets an error
                return self._failed(seq, name, args, exc, log)
            except BaseException:  # the session ends (the client left, a signal) while the server works
                self._unanswered(seq, name, args, "the session ended before the server answered", log)
                raise
            declared = self.monitor.policy.tools.get(name)
            value = recorded_result(result, declared.result if declared else ANY, name in self.wrapped)
            returned = result
            if decision.action == "warn" and decision.message:
                log(f"warn `{name}`: {', '.join(decision.rules) or 'signature conformance'}")
                content = [*result.content, types.TextContent(type="text", text=decision.message)]
                returned = result.model_copy(update={"content": content})
            return self._ran(seq, name, args, value, bool(result.is_error), log, None, returned, result)

    def _refused(self, seq: int, name: str, args: dict, reason: str, log: Callable[[str], None]):
        try:
            self._emit("decision", seq=seq, step=None, tool=name, arguments=args, action="refused", rules=[],
                       message=reason)
        except JournalError as exc:
            log(str(exc))
        return tool_error(f"`{name}` was not executed: {reason}")

    def _ran(self, seq: int, name: str, args: dict, value: Any, is_error: bool, log: Callable[[str], None],
             raw: str | None, returned: types.CallToolResult, result: types.CallToolResult | None = None):
        """The call ran: record it in the run and in the journal. A value the run cannot hold
        is recorded as the raw text of the result instead, and marked so."""
        if self._in_flight is None or self._in_flight[0] != seq:
            return returned  # the session ended while the server worked: recorded as unanswered
        self._in_flight = None
        try:
            self.run.record(name, args, value, error=is_error)
        except RunError as exc:
            raw = raw or str(exc)
            value = raw_result(result) if result is not None else value
            self.run.record(name, args, value if isinstance(value, str) else str(value), error=is_error)
        if raw is not None:
            log(f"`{name}` ran; its result is recorded as raw text: {raw}")
        fields: dict[str, Any] = {"seq": seq, "tool_name": name, "arguments": args, "tool_result": value,
                                  "is_error": is_error}
        if raw is not None:
            fields["recorded_raw"] = raw
        try:
            self._emit("result", **fields)
        except JournalError as exc:
            log(str(exc))
        return returned

    def _failed(self, seq: int, name: str, args: dict, exc: BaseException, log: Callable[[str], None]):
        error = f"{type(exc).__name__}: {exc}"
        log(f"`{name}` failed on the server: {error}")
        self._unanswered(seq, name, args, error, log)
        return tool_error(f"`{name}` could not be run: the MCP server failed ({error})")

    def _unanswered(self, seq: int, name: str, args: dict, error: str, log: Callable[[str], None]) -> None:
        """A forwarded call whose answer never came: it may have run, so the run and the
        journal keep it, as a failed call."""
        if self._in_flight is None or self._in_flight[0] != seq:
            return
        self._in_flight = None
        try:
            self.run.record(name, args, error=True)
        except RunError:
            pass
        try:
            self._emit("failed", seq=seq, tool=name, arguments=args, error=error)
        except JournalError as exc:
            log(str(exc))

    def record(self, reason: str | None = None) -> dict:
        """End the session (the first call does; `reason`: what ended it, when not the
        client) and return its trace record, as `policyc score` reads it from the journal."""
        if self._record is None and self._line == 0:  # nothing was proposed
            self.journal.close()
            self._record = {"id": self.id, "policy": self.monitor.name, "server": self.server,
                            "started": self.started, "complete": True, "tool_calls": [], "decisions": []}
        if self._record is None and self._in_flight is not None:
            self._unanswered(*self._in_flight, "the session ended before the server answered", lambda _: None)
        if self._record is None:
            report = self.run.finish()
            fields: dict[str, Any] = {"ended": time.time(), "compliance_score": report.compliance_score,
                                      "compliance_label": report.compliance_label}
            if reason is not None:
                fields["reason"] = reason
            try:
                self.journal.write("end", **fields)
            except JournalError:
                pass
            self._line += 1
            [(_, record, _)] = self._events.feed_event(self._line, self.journal.event("end", **fields))
            self.journal.close()
            self._record = record or {}
        return self._record

    @property
    def calls(self) -> list[dict]:
        """The calls forwarded so far (the record's `tool_calls`)."""
        return (self._record or self._events.record(self.id) or {}).get("tool_calls", [])


# ------------------------------------------------------------------ the gateway


async def _list_all_tools(session: ClientSession) -> list[types.Tool]:
    tools: list[types.Tool] = []
    cursor = None
    for _ in range(1000):  # a server that pages forever is cut off
        page = await session.list_tools(params=types.PaginatedRequestParams(cursor=cursor) if cursor else None)
        tools.extend(page.tools)
        cursor = page.next_cursor
        if not cursor:
            break
    return tools


def check_server_tools(monitor: Monitor, tools: list[types.Tool]) -> ToolSetReport:
    """Compare the server's tools with the policy's signatures, each result as the gateway
    records it (the value inside the SDK's `{"result": ...}` wrapper, shaped as declared)."""
    return compare_tools(monitor.policy.tools,
                         signatures_from_schemas({t.name: (t.input_schema, t.output_schema) for t in tools}))


def wrapped_tools(tools: list[types.Tool]) -> frozenset[str]:
    """The tools whose output schema is the SDK's `{"result": ...}` wrapper."""
    return frozenset(t.name for t in tools if sdk_wrapped(t.name, t.output_schema))


def _proxy_server(upstream: ClientSession, session: GatedSession, log: Callable[[str], None]) -> Server:
    info = upstream.server_info
    caps = upstream.server_capabilities

    async def list_tools(ctx, params):
        return await upstream.list_tools(params=params)

    async def call_tool(ctx, params: types.CallToolRequestParams):
        async def forward(name, args):
            return await upstream.call_tool(name, args)

        return await session.call(params.name, params.arguments, forward, log)

    handlers: dict[str, Any] = {"on_list_tools": list_tools, "on_call_tool": call_tool}
    if caps is not None and caps.prompts is not None:
        async def list_prompts(ctx, params):
            return await upstream.list_prompts(params=params)

        async def get_prompt(ctx, params: types.GetPromptRequestParams):
            return await upstream.get_prompt(params.name, params.arguments)

        handlers.update(on_list_prompts=list_prompts, on_get_prompt=get_prompt)
    if caps is not None and caps.resources is not None:
        async def list_resources(ctx, params):
            return await upstream.list_resources(params=params)

        async def list_templates(ctx, params):
            return await upstream.list_resource_templates(params=params)

        async def read_resource(ctx, params: types.ReadResourceRequestParams):
            return await upstream.read_resource(params.uri)

        handlers.update(on_list_resources=list_resources, on_list_resource_templates=list_templates,
                        on_read_resource=read_resource)
    return Server(info.name if info else "policyc-gateway", version=info.version if info else "",
                  instructions=upstream.instructions, **handlers)


async def serve(monitor: Monitor, command: str, args: list[str], *, mode: str | None = None,
                trace_log: str | Path | None = None, log: Callable[[str], None] | None = None,
                report: Callable[[ToolSetReport], None] | None = None, strict_tools: bool = False,
                startup_timeout: float = STARTUP_TIMEOUT, errlog: TextIO = sys.stderr,
                handle_signals: bool = False) -> dict:
    """Run the gateway on this process's standard input and output until the client leaves;
    returns the session's trace record (its events written ahead to `trace_log`). With
    `handle_signals` (the command line's gateway), SIGTERM and SIGINT close the session's
    trace and end the process."""
    log = log or (lambda text: print(f"policyc gateway: {printable(text)}", file=errlog, flush=True))  # a server's names
    params = StdioServerParameters(command=command, args=list(args), env=_environment())
    try:
        session = GatedSession(monitor, mode, " ".join([command, *args]), trace_log=trace_log)
    except JournalError as exc:
        raise GatewayError(str(exc)) from None
    try:
        async with anyio.create_task_group() as group:
            if handle_signals:
                group.start_soon(_stop_on_signals, session, log)
            await _serve(session, command, params, log, report, strict_tools, startup_timeout, errlog)
            group.cancel_scope.cancel()
    except BaseExceptionGroup as group:  # an error inside the SDK's task groups: the first one says it
        raise _first_error(group) from None
    finally:
        session.record()
    return session.record()


async def _stop_on_signals(session: GatedSession, log: Callable[[str], None]) -> None:
    """SIGTERM and SIGINT end the session: its trace is closed (a call in flight recorded as
    unanswered, the end with the report) and the process exits at once, since the SDK's
    reader of standard input cannot be interrupted. The server sees its input close."""
    with anyio.open_signal_receiver(signal.SIGTERM, signal.SIGINT) as signals:
        async for number in signals:
            reason = f"stopped by {signal.Signals(number).name}"
            session.record(reason)
            log(f"{reason}; the session's trace is closed")
            os._exit(0)


async def _serve(session: GatedSession, command: str, params: StdioServerParameters, log, report,
                 strict_tools: bool, startup_timeout: float, errlog: TextIO) -> None:
    failure: GatewayError | None = None
    async with AsyncExitStack() as stack:
        try:
            read, write = await stack.enter_async_context(stdio_client(params, errlog=errlog))
            write = Requests(write)  # which requests wait for an answer: an unreadable one may end the one
            read = await stack.enter_async_context(filtered(read, answering_server(log, write)))
            upstream = await stack.enter_async_context(ClientSession(read, write))
            with anyio.fail_after(startup_timeout):
                await upstream.initialize()
                tools = await _list_all_tools(upstream)
        except TimeoutError:
            failure = GatewayError(f"the MCP server `{command}` did not answer within {startup_timeout:g} s")
        except OSError as exc:
            failure = GatewayError(f"cannot start the MCP server `{command}`: {exc.strerror or exc}")
        except Exception as exc:  # noqa: BLE001 - whatever the SDK raised, the server did not start
            failure = GatewayError(f"the MCP server `{command}` did not start: {type(exc).__name__}: {exc}")
        if failure is None:
            session.wrapped = wrapped_tools(tools)
            checked = check_server_tools(session.monitor, tools)
            if report is not None:
                report(checked)
            if strict_tools and not checked.matches:
                failure = GatewayError("the server's tools do not match the policy (--strict-tools)")
        if failure is None:
            server = _proxy_server(upstream, session, log)
            async with stdio_server() as (client_read, client_write):
                async with filtered(client_read, answering_client(client_write, log)) as readable:
                    await server.run(readable, client_write, server.create_initialization_options())
    if failure is not None:
        raise failure


def _first_error(group: BaseExceptionGroup) -> BaseException:
    for exc in group.exceptions:
        if isinstance(exc, BaseExceptionGroup):
            return _first_error(exc)
        if isinstance(exc, (GatewayError, KeyboardInterrupt)):
            return exc
        return GatewayError(f"the gateway stopped: {type(exc).__name__}: {exc}")
    return GatewayError("the gateway stopped")


def _environment() -> dict[str, str]:
    """The server runs with the gateway's environment (its keys and settings), as if started directly."""
    import os

    return {k: v for k, v in os.environ.items() if not v.startswith("()")}


__all__ = ["GatedSession", "GatewayError", "check_server_tools", "raw_result", "recorded_result", "serve", "tool_error",
           "wrapped_tools"]
