"""Compliance reports as rich tables, for people (`policyc score --format table`).

One trace: its score, tool sequence and a row per rule. Several: a row per trace, then the
aggregate: a row per rule and per layer (the paper's table 4). Malformed records and calls
that do not match the signatures are listed after.
"""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from policyc.scoring.models import CorpusReport, TraceReport
from policyc.terminal import markup_safe as safe

_STYLE = {"FULL": "green", "PARTIAL": "yellow", "NONE": "red"}


def _rate(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def _trace_name(report: TraceReport, index: int) -> str:
    return safe(report.trace_id or report.origin or f"#{index + 1}")


def _step(events: int | None, calls: int | None) -> str:
    """Where a violation became certain: `call 4`, or `event 9, call 4`."""
    if events is None:
        return ""
    return f"call {events}" if calls is None or calls == events else f"event {events}, call {calls}"


def print_trace(console: Console, report: TraceReport, index: int = 0) -> None:
    label = f"[{_STYLE[report.compliance_label]}]{report.compliance_label}[/]"
    console.print(f"[bold]{_trace_name(report, index)}[/]: compliance {report.compliance_score:.3f} {label}")
    console.print(f"tool sequence: {' → '.join(safe(t) for t in report.tool_sequence) or '(no calls)'}",
                  highlight=False)
    failed = any(not c.passed for c in report.constraints)
    table = Table(show_edge=False, pad_edge=False)
    table.add_column("rule", no_wrap=True)
    for column in ("layer", "weight", "passed") + (("violated at",) if failed else ()):
        table.add_column(column, no_wrap=True)
    table.add_column("detail", overflow="fold", ratio=1)
    for c in report.constraints:
        mark = ("[green]yes[/]" + (" (vacuous)" if c.vacuous else "")) if c.passed else "[red]no[/]"
        at = () if not failed else (_step(c.violated_at, c.violated_at_call),)
        table.add_row(safe(c.name), safe(c.layer or "-"), f"{c.weight:g}", mark, *at, safe(c.detail))
    console.print(table)
    _print_problems(console, report)


def _print_problems(console: Console, report: TraceReport) -> None:
    for p in report.input_problems:
        where = f"{p.where}: " if p.where else ""
        hint = f" ({safe(p.help)})" if p.help else ""
        console.print(f"  [yellow]{p.severity}[/]: {where}{safe(p.message)}{hint}", highlight=False)


def print_corpus(corpus: CorpusReport, console: Console | None = None, rows: int = 50,
                 problems: list[tuple[int, TraceReport]] | None = None) -> None:
    """The reports of a corpus; at most `rows` traces are listed one by one (0: all of them).
    `corpus.reports` may hold only the first reports of the corpus (`corpus.traces` counts
    them all), and `problems` the first of those with input problems, with their positions."""
    console = console or Console()
    reports = corpus.reports
    if corpus.traces == 1 and len(reports) == 1 and not corpus.malformed:
        print_trace(console, reports[0])
        return
    shown = reports if rows <= 0 else reports[:rows]
    if shown:
        table = Table(title="traces", show_edge=False, pad_edge=False)
        table.add_column("trace", no_wrap=True)
        for column in ("score", "label", "input problems"):
            table.add_column(column, no_wrap=True)
        table.add_column("violated", overflow="fold", ratio=1)
        for i, r in enumerate(shown):
            table.add_row(_trace_name(r, i), f"{r.compliance_score:.3f}",
                          f"[{_STYLE[r.compliance_label]}]{r.compliance_label}[/]",
                          str(len(r.input_problems) or "-"), ", ".join(safe(c.name) for c in r.violated) or "-")
        console.print(table)
        if len(shown) < corpus.traces:
            console.print(f"... and {corpus.traces - len(shown)} more trace(s); `--rows 0` lists them all, "
                          "`--format json` gives every report", highlight=False)
    print_aggregate(console, corpus)
    if problems is None:
        problems = [(i, r) for i, r in enumerate(reports) if r.input_problems]
    for i, r in problems if rows <= 0 else problems[:rows]:
        console.print(f"[bold]{_trace_name(r, i)}[/]:")
        _print_problems(console, r)


def print_aggregate(console: Console, corpus: CorpusReport) -> None:
    labels = ", ".join(f"{k} {v}" for k, v in corpus.labels.items())
    mean = _rate(corpus.mean_score)
    console.print(f"[bold]{safe(corpus.policy)}[/]: {corpus.traces} trace(s) scored, mean compliance {mean} ({labels}); "
                  f"{corpus.malformed_records} malformed record(s), {corpus.vacuous_passes} vacuous pass(es)",
                  highlight=False)
    if corpus.traces:  # with nothing scored, per-rule and per-layer tables would be empty rows
        _print_rate_tables(console, corpus)
    for m in corpus.malformed:
        where = safe(m.file if m.line is None else f"{m.file}:{m.line}")
        field = f" `{safe(m.field)}`:" if m.field else ""
        console.print(f"[red]malformed[/]: {where}:{field} {safe(m.message)}", highlight=False)


def _print_rate_tables(console: Console, corpus: CorpusReport) -> None:
    rules = Table(title="rules", show_edge=False, pad_edge=False)
    for column in ("rule", "layer", "weight", "pass rate", "passed", "vacuous"):
        rules.add_column(column)
    for r in corpus.rules:
        rules.add_row(safe(r.name), safe(r.layer or "-"), f"{r.weight:g}", _rate(r.pass_rate), f"{r.passed}/{r.checks}",
                      str(r.vacuous))
    console.print(rules)
    layers = Table(title="layers", show_edge=False, pad_edge=False)
    for column in ("layer", "rules", "pass rate", "share of lost weight"):
        layers.add_column(column)
    for layer in corpus.layers:
        layers.add_row(safe(layer.layer or "-"), str(layer.rules), _rate(layer.pass_rate), _rate(layer.loss_share))
    console.print(layers)
