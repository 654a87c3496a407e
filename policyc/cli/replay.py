"""`policyc replay POLICY_OR_ARTIFACT TRACE`: what the gate would have decided on a recorded run."""

from __future__ import annotations

import json
import sys

import click

from policyc.cli import EXIT_FINDINGS, EXIT_INPUT, EXIT_OK
from policyc.cli import externs as extern_bindings
from policyc.cli.common import budget_options, key_option, load_monitor, use_color
from policyc.terminal import markup_safe as safe
from policyc.terminal import printable
from policyc.trace.formats import FORMATS

MODES = ["tolerate", "warn", "block", "soft", "stop"]
_STYLE = {"allow": "green", "warn": "yellow", "block": "red", "stop": "bold red", "not reached": "dim"}


def _call_text(call, width: int = 48) -> str:
    args = ", ".join(f"{k}={json.dumps(v, ensure_ascii=False, default=str)}" for k, v in call.args.items())
    text = printable(f"{call.name}({args})")
    return safe(text if len(text) <= width else text[: width - 1] + "…")


def _why(step) -> str:
    d = step.decision
    if d is None:
        return "the gated run is already over"
    parts = []
    for f in d.findings:
        if f.kind == "conformance":
            parts.append(f.detail)
        elif f.kind == "conflict":
            parts.append(f"conflict: {', '.join(f.rules)}")
        elif f.kind == "undecided":
            parts.append(f"undecided: {', '.join(f.rules)}")
        else:
            parts.append(f"{f.rule} ({f.kind}" + (f"; first call {', '.join(f.owed)}" if f.owed else "") + ")")
    if d.override:
        parts.append("identical retry: deliberate override")
    return safe("; ".join(parts))


def render_table(replayed, policy_name: str, mode: str | None) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console(no_color=not use_color(), soft_wrap=False)
    title = safe(f"gate replay: {replayed.trace.id or replayed.trace.origin or 'trace'} against {policy_name}")
    table = Table(title=title + (f" (mode {mode})" if mode else ""), title_justify="left")
    trace = replayed.trace
    numbered = "#" if trace.events_are_calls else "event, call"
    table.add_column(numbered, justify="right")
    table.add_column("call")
    table.add_column("decision")
    table.add_column("why", overflow="fold")
    for step in replayed.steps:
        call = trace.calls[step.position]
        action = step.action + (" *" if step.counterfactual and step.decision is not None else "")
        where = trace.step(step.position).replace("event ", "").replace("call ", "")
        table.add_row(where, _call_text(call), f"[{_STYLE[step.action]}]{action}[/]", _why(step))
    console.print(table)
    first = replayed.first_refusal
    if first is None:
        console.print("the gate would have let every call run")
    else:
        console.print(f"the gate would have refused {trace.step(first)}; * marks calls after a refusal "
                      "(counterfactual: the gated agent would have been told and acted otherwise)")
    score = getattr(replayed.report, "compliance_score", None)
    if score is None and isinstance(replayed.report, dict):
        score = replayed.report.get("compliance_score")
    if score is not None:
        console.print(f"compliance of the recorded run: {score:.3f}")


@click.command("replay")
@click.argument("policy", metavar="POLICY_OR_ARTIFACT", type=click.Path(dir_okay=False))
@click.argument("traces", nargs=-1, required=True, type=click.Path())
@click.option("--mode", type=click.Choice(MODES), default=None,
              help="enforce every rule with one severity (default: each rule's own)")
@click.option("--format", "fmt", type=click.Choice(["table", "json"]), default="table", show_default=True,
              help="a table for people, JSON for machines")
@click.option("--trace-format", default="auto", show_default=True, type=click.Choice(["auto", *FORMATS]),
              help="how to read each trace record; auto detects it from the record's shape")
@extern_bindings.option
@key_option
@budget_options
def command(policy: str, traces: tuple[str, ...], mode: str | None, fmt: str, trace_format: str,
            externs: tuple[str, ...], key_file: str | None) -> None:
    """Replay recorded runs (TRACES) through the gate, call by call.

    Shows, for every recorded call, what the gate would have decided before it ran: allow,
    warn, block or stop, and which rules were involved. Calls after the first refusal are
    marked: the gated agent would have been told, so they are counterfactual.

    \b
    Exit status: 0 every call allowed, 1 some call warned or refused,
    2 unreadable input (the readable records are still replayed).
    """
    from policyc.runtime.replay import replay
    from policyc.trace import iter_traces
    from policyc.trace.errors import TraceError

    monitor = load_monitor(policy, externs, key_file)
    results, errors = [], []
    for item in iter_traces(list(traces), trace_format):
        if isinstance(item, TraceError):
            errors.append(item)
            continue
        results.append(replay(monitor, item, mode))
    for e in errors:
        click.echo(f"policyc: {printable(str(e))}", err=True)
    if fmt == "json":
        click.echo(json.dumps({
            "policy": monitor.name, "mode": mode,
            "traces": [{"id": r.trace.id, "origin": r.trace.origin,
                        "first_refusal": None if r.first_refusal is None else r.first_refusal + 1,
                        "first_refusal_call": None if r.first_refusal is None else
                        r.trace.calls_through(r.first_refusal + 1),
                        "steps": [{**s.to_json(r.trace.calls[s.position]),
                                   "call": r.trace.calls_through(s.position + 1)} for s in r.steps],
                        "events": [e.to_json() for e in r.events],
                        "report": _report_json(r.report)} for r in results],
            "errors": [e.to_json() for e in errors],
        }, indent=2, ensure_ascii=False, default=str))
    else:
        for r in results:
            render_table(r, monitor.name, mode)
    sys.stdout.flush()
    if not results and not errors:
        click.echo("policyc: no trace records found", err=True)
        raise click.exceptions.Exit(EXIT_INPUT)
    if errors:
        raise click.exceptions.Exit(EXIT_INPUT)
    raise click.exceptions.Exit(EXIT_OK if all(r.all_allowed for r in results) else EXIT_FINDINGS)


def _report_json(report):
    if hasattr(report, "model_dump"):
        return report.model_dump(mode="json")
    if hasattr(report, "to_json"):
        return report.to_json()
    return report
