"""`policyc gateway POLICY -- COMMAND...`: an MCP gateway that gates every tool call."""

from __future__ import annotations

import sys

import click

from policyc.cli import EXIT_INPUT, EXIT_OK
from policyc.cli import externs as extern_bindings
from policyc.cli.common import budget_options, key_option

MODES = ["tolerate", "warn", "block", "soft", "stop"]


@click.command("gateway", context_settings={"ignore_unknown_options": True})
@click.argument("policy", metavar="POLICY_OR_ARTIFACT", type=click.Path(dir_okay=False))
@click.argument("server", nargs=-1, required=True, type=click.UNPROCESSED)
@click.option("--trace", "trace_log", type=click.Path(dir_okay=False), default=None,
              help="append each session's trace (calls, results, decisions, report) to this JSONL file")
@click.option("--mode", type=click.Choice(MODES), default=None,
              help="enforce every rule with one severity (default: each rule's own)")
@click.option("--strict-tools", is_flag=True,
              help="refuse to start when the server's tools do not match the policy's signatures")
@click.option("--startup-timeout", type=click.FloatRange(min=0.1), default=30.0, show_default=True,
              help="seconds the server has to start and list its tools")
@extern_bindings.option
@key_option
@budget_options
def command(policy: str, server: tuple[str, ...], trace_log: str | None, mode: str | None, strict_tools: bool,
            startup_timeout: float, externs: tuple[str, ...], key_file: str | None) -> None:
    """Serve the tools of an MCP server (started with the command after `--`) over standard
    input and output, gating every tool call with POLICY (`.altl`, or the artifact
    `policyc compile` made of it).

    \b
    A refused call is not forwarded: the client gets a tool error (`isError: true`) whose
    text is the gate's message. Each session's trace goes to --trace when it ends; `policyc
    score POLICY TRACE` scores it. Mismatches between the server's tools and the policy's
    signatures are reported on standard error at start-up.

    \b
    Example (an MCP client's server command):
      policyc gateway support.policy.json --trace runs.jsonl -- python support_server.py

    \b
    Exit status: 0 the client ended the session, 2 the policy or the server could not be
    started (or, with --strict-tools, their tools differ).
    """
    import anyio

    from policyc.cli.common import is_artifact_file, load_monitor
    from policyc.terminal import printable
    from policyc.integrations.mcp import GatewayError, serve

    if server and server[0] == "--":
        server = server[1:]
    if not server:
        raise click.UsageError("give the MCP server's command after `--`")
    if trace_log is not None:
        _check_trace_target(trace_log, [policy, *([key_file] if key_file else [])])
    monitor = load_monitor(policy, externs, key_file)
    if not is_artifact_file(policy):
        click.echo(f"policyc gateway: compiled the policy source `{printable(policy)}` in memory; a deployed gate "
                   "loads the artifact that `policyc compile` makes of it", err=True)

    def report(checked) -> None:
        for m in checked.mismatches:
            click.echo(f"policyc gateway: {m.severity}: {printable(m.message)}", err=True)  # the server's names

    _quiet_sdk_logs()
    try:
        anyio.run(lambda: serve(monitor, server[0], list(server[1:]), mode=mode, trace_log=trace_log,
                                report=report, strict_tools=strict_tools, startup_timeout=startup_timeout,
                                handle_signals=True))
    except GatewayError as exc:
        click.echo(f"policyc gateway: {exc}", err=True)
        raise click.exceptions.Exit(EXIT_INPUT) from None
    sys.stdout.flush()
    raise click.exceptions.Exit(EXIT_OK)


def _check_trace_target(target: str, inputs: list[str]) -> None:
    """--trace is appended to, never written over; but an input of the gateway (its policy,
    its key) or a policy source (`.altl`) is not a trace: appending to it would break it."""
    from policyc.cli.common import refuse_inputs_and_sources

    refuse_inputs_and_sources(target, inputs, "append the trace to", "the gateway", "choose another file with --trace", "")


def _quiet_sdk_logs() -> None:
    """The SDK logs what it cannot parse with a traceback; the gateway's log says it in one line."""
    import logging

    class OneLine(logging.Formatter):
        def format(self, record: logging.LogRecord) -> str:
            exc = record.exc_info[1] if record.exc_info else None
            text = record.getMessage() + (f": {type(exc).__name__}" if exc is not None else "")
            return f"policyc gateway: {record.name}: {text}"

    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(OneLine())
    for name in ("mcp", "mcp_types"):
        logger = logging.getLogger(name)
        logger.handlers = [handler]
        logger.setLevel(logging.WARNING)
        logger.propagate = False
