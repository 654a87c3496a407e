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
- when the session ends, its trace (the executed calls with results, every decision, the
  compliance report) is appended as one JSON line to the trace log, a record that
  `policyc score` reads.

The recorded result of a call is what the tool returned, in the shape the policy declares
for it (`policyc.trace.results`, as every adapter and the scorer read results): its
structured content, else its text (the JSON value it holds, or each text block when a list
came as one block per item). The SDK wraps a result that is not an object as
`{"result": ...}` (its output schema says so); the value inside is recorded, unless the
policy declares the wrapper record itself. A call the server answered with an error ran:
it is recorded as failed (`error`), with the error's text as its result.
"""

from __future__ import annotations

import json
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

from policyc.integrations.gating import typed_result
from policyc.ir.types import ANY, Type
from policyc.runtime import Monitor, RunError
from policyc.runtime.calls import normalise_result
from policyc.toolschema import ToolSetReport, compare_tools, signatures_from_schemas
from policyc.toolschema.convert import sdk_wrapped
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


@dataclass
class GatedSession:
    """One client session: its policy run and everything the trace log keeps of it."""

    monitor: Monitor
    mode: str | None = None
    server: str = ""
    id: str = field(default_factory=lambda: uuid.uuid4().hex)
    started: float = field(default_factory=time.time)

    wrapped: frozenset[str] = frozenset()  # the tools whose results the SDK wraps as `{"result": ...}`

    def __post_init__(self) -> None:
        self.run = self.monitor.start(mode=self.mode, run_id=self.id)
        self.calls: list[dict] = []
        self.decisions: list[dict] = []
        self.lock = anyio.Lock()
        self._record: dict | None = None

    async def call(self, name: str, arguments: dict | None, forward: Callable, log: Callable[[str], None]):
        """Gate one `tools/call`; `forward(name, arguments)` runs it on the real server."""
        args = dict(arguments or {})
        async with self.lock:
            try:
                decision = self.run.propose(name, args)
            except RunError as exc:
                self.decisions.append({"tool": name, "arguments": args, "action": "refused", "message": str(exc)})
                return tool_error(f"`{name}` was not executed: {exc}")
            entry = {"step": decision.step, "tool": name, "arguments": args, "action": decision.action,
                     "rules": list(decision.rules), "message": decision.message}
            self.decisions.append(entry)
            if not decision.executes:
                log(f"{decision.action} `{name}`: {', '.join(decision.rules) or 'signature conformance'}")
                return tool_error(decision.message)
            try:
                result = await forward(name, args)
            except Exception as exc:  # noqa: BLE001 - the server died or answered garbage: the client gets an error
                entry["error"] = f"{type(exc).__name__}: {exc}"
                log(f"`{name}` failed on the server: {entry['error']}")
                return tool_error(f"`{name}` could not be run: the MCP server failed ({entry['error']})")
            declared = self.monitor.policy.tools.get(name)
            value = recorded_result(result, declared.result if declared else ANY, name in self.wrapped)
            failed = bool(result.is_error)
            self.run.record(name, args, value, error=failed)
            call = {"step": len(self.calls), "tool_name": name, "arguments": args, "tool_result": value}
            self.calls.append({**call, "error": True} if failed else call)
            if decision.action == "warn" and decision.message:
                log(f"warn `{name}`: {', '.join(decision.rules) or 'signature conformance'}")
                content = [*result.content, types.TextContent(type="text", text=decision.message)]
                return result.model_copy(update={"content": content})
            return result

    def record(self) -> dict:
        """The session as a trace record (the paper's record format, which `policyc score` reads);
        the first call ends the run."""
        if self._record is None:
            report = self.run.finish()
            self._record = {"id": self.id, "policy": self.monitor.name, "server": self.server,
                            "started": self.started, "ended": time.time(),
                            "compliance_score": report.compliance_score, "compliance_label": report.compliance_label,
                            "tool_calls": self.calls, "decisions": self.decisions}
        return self._record


def append_record(path: str | Path, record: dict) -> None:
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(json.dumps(record, ensure_ascii=False, default=str) + "\n")


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
                startup_timeout: float = STARTUP_TIMEOUT, errlog: TextIO = sys.stderr) -> dict:
    """Run the gateway on this process's standard input and output until the client leaves;
    returns the session's trace record (also appended to `trace_log`)."""
    log = log or (lambda text: print(f"policyc gateway: {text}", file=errlog, flush=True))
    params = StdioServerParameters(command=command, args=list(args), env=_environment())
    session = GatedSession(monitor, mode, " ".join([command, *args]))
    try:
        await _serve(session, command, params, trace_log, log, report, strict_tools, startup_timeout, errlog)
    except BaseExceptionGroup as group:  # an error inside the SDK's task groups: the first one says it
        raise _first_error(group) from None
    return session.record()


async def _serve(session: GatedSession, command: str, params: StdioServerParameters, trace_log, log, report,
                 strict_tools: bool, startup_timeout: float, errlog: TextIO) -> None:
    failure: GatewayError | None = None
    if trace_log is not None:
        try:
            open(trace_log, "a", encoding="utf-8").close()
        except OSError as exc:
            raise GatewayError(f"cannot write the trace to `{trace_log}`: {exc.strerror or exc}") from None
    async with AsyncExitStack() as stack:
        try:
            read, write = await stack.enter_async_context(stdio_client(params, errlog=errlog))
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
            try:
                async with stdio_server() as (client_read, client_write):
                    await server.run(client_read, client_write, server.create_initialization_options())
            finally:
                if trace_log is not None:
                    try:
                        append_record(trace_log, session.record())
                    except OSError as exc:
                        log(f"cannot write the trace to `{trace_log}`: {exc.strerror or exc}")
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


__all__ = ["GatedSession", "GatewayError", "check_server_tools", "recorded_result", "serve", "tool_error",
           "wrapped_tools"]
