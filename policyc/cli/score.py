"""`policyc score POLICY TRACES...`: compliance reports for completed traces, and their aggregate."""

from __future__ import annotations

import json
import sys

import click

from policyc.cli import EXIT_FINDINGS, EXIT_INPUT, EXIT_OK
from policyc.cli import externs as extern_bindings
from policyc.cli.common import is_artifact_file, key_option, load_checked, load_monitor
from policyc.trace.formats import FORMATS

PROGRESS_FROM = 200  # records; below this a progress bar only flickers


@click.command("score")
@click.argument("policy", metavar="POLICY_OR_ARTIFACT", type=click.Path(dir_okay=False))
@click.argument("traces", nargs=-1, required=True)
@click.option("--format", "fmt", type=click.Choice(["table", "json", "jsonl"]), default="table",
              show_default=True, help="table for people; json (one document) or jsonl (a line per record) "
                                      "for machines")
@click.option("--input-format", default="auto", show_default=True,
              type=click.Choice(["auto", *FORMATS]),
              help="how to read each trace record; auto detects it from the record's shape")
@click.option("--rows", default=50, show_default=True, type=click.IntRange(min=0),
              help="table format: list at most this many traces one by one (0: all)")
@extern_bindings.option
@key_option
def command(policy: str, traces: tuple[str, ...], fmt: str, input_format: str, rows: int, externs: tuple[str, ...],
            key_file: str | None) -> None:
    """Score TRACES (files, folders, or - for standard input) against a policy (`.altl`) or
    the artifact `policyc compile` made of it.

    \b
    Each record gets the report of the AgentLTL paper's appendix B: the score, its label,
    the tool sequence and a verdict per rule; then the corpus aggregate (table 4).
    Exit status: 0 every trace fully compliant, 1 some rule violated,
    2 bad input (a malformed record, a call that does not match a signature, no records).
    """
    from policyc.scoring import CorpusTally, score_trace
    from policyc.trace import TraceError, iter_traces

    if is_artifact_file(policy):  # a compiled artifact: its tables score, nothing is compiled again
        monitor = load_monitor(policy, externs, key_file)
        compiled, bound = monitor.compiled, monitor.externs
    else:
        from policyc.automata import compile_policy

        checked, _ = load_checked(policy)
        bound = extern_bindings.bind(externs, checked.externs)
        compiled = compile_policy(checked)
    items = list(iter_traces(traces, input_format))
    tally = CorpusTally(compiled.policy, keep_reports=fmt != "jsonl")
    with _progress(len(items)) as advance:
        for item in items:
            result = item if isinstance(item, TraceError) else score_trace(compiled, item, externs=bound)
            tally.add(result)
            if fmt == "jsonl":
                click.echo(json.dumps(_jsonl_line(result), ensure_ascii=False))
            advance()
    corpus = tally.report()
    if fmt == "json":
        click.echo(json.dumps(corpus.model_dump(mode="json"), indent=2, ensure_ascii=False))
    elif fmt == "jsonl":
        click.echo(json.dumps({"aggregate": corpus.aggregate()}, ensure_ascii=False))
    else:
        from policyc.scoring.tables import print_corpus

        print_corpus(corpus, rows=rows)
    raise click.exceptions.Exit(_exit_code(corpus))


def _jsonl_line(result) -> dict:
    if hasattr(result, "to_json"):
        return {"malformed_record": result.to_json()}
    return result.model_dump(mode="json")


def _exit_code(corpus) -> int:
    bad_calls = sum(1 for r in corpus.reports if r.has_input_errors) if corpus.reports else \
        corpus.input_problems.get("registry", 0) + corpus.input_problems.get("structure", 0) \
        + corpus.input_problems.get("type", 0)
    if corpus.records == 0:
        click.echo("policyc: no trace records found", err=True)
        return EXIT_INPUT
    if corpus.malformed_records:
        click.echo(f"policyc: {corpus.malformed_records} malformed record(s) were not scored", err=True)
    if bad_calls:
        click.echo("policyc: some calls do not match the policy's tool signatures (see the input problems)",
                   err=True)
    if corpus.malformed_records or bad_calls:
        return EXIT_INPUT
    return EXIT_OK if corpus.labels.get("FULL", 0) == corpus.traces else EXIT_FINDINGS


class _progress:
    """A progress bar on standard error, for large corpora on a terminal only."""

    def __init__(self, total: int):
        self.total = total
        self.bar = None

    def __enter__(self):
        if self.total >= PROGRESS_FROM and sys.stderr.isatty():
            from rich.console import Console
            from rich.progress import Progress

            self.bar = Progress(console=Console(stderr=True), transient=True)
            self.bar.start()
            task = self.bar.add_task("scoring", total=self.total)
            return lambda: self.bar.advance(task)  # type: ignore[union-attr]
        return lambda: None

    def __exit__(self, *exc) -> None:
        if self.bar is not None:
            self.bar.stop()
