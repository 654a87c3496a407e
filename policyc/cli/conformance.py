"""`policyc conformance DATASET...`: the SAAG cascade over (query, registry, call) records."""

from __future__ import annotations

from typing import Iterator

import click

from policyc.cli import EXIT_FINDINGS, EXIT_INPUT, EXIT_OK


@click.command("conformance")
@click.argument("datasets", nargs=-1, required=True)
@click.option("--faults", is_flag=True, help="also inject each fault into every gold call that passes every "
                                              "stage, and check the stage that catches it")
@click.option("--no-grounding", is_flag=True, help="stop after the type stage, as the gate does for a run "
                                                    "without a context")
@click.option("--predictions", type=click.Path(dir_okay=False), default=None,
              help="a model's results by record id (JSONL of {\"id\", \"result\"}, BFCL's result files): "
                   "they are checked instead of the gold calls; a record without one predicted no call")
@click.option("--limit", type=click.IntRange(min=1), default=None, help="read at most this many records per dataset")
@click.option("--seed", type=int, default=0, show_default=True, help="the fault injector's seed")
@click.option("--format", "fmt", type=click.Choice(["text", "json", "markdown"]), default="text", show_default=True)
def command(datasets: tuple[str, ...], faults: bool, no_grounding: bool, predictions: str | None,
            limit: int | None, seed: int, fmt: str) -> None:
    """Check tool calls against their registry and query, stage by stage (SAAG): registry
    conformance, structural completeness, types, argument grounding.

    \b
    DATASET is a JSON or JSONL file of records in BFCL's format (question, function,
    predicted call, optional ground_truth), or `bfcl` / `bfcl:simple_python,multiple` for
    the data of the installed bfcl-eval package. A record without a predicted call is
    checked on its gold call.
    Exit status: 0 every call passes every stage (and every injected fault is caught at its
    stage), 1 some call halts the cascade, 2 bad input (a malformed record, no records).
    """
    from itertools import islice

    from policyc.saag.bfcl import BfclMissing, is_spec, iter_category, parse_spec
    from policyc.saag.dataset import DatasetError, Record, iter_records, read_predictions, with_prediction
    from policyc.saag.evaluate import evaluate_record, fault_rows
    from policyc.saag.report import Tally, render

    sources: list[tuple[str, Iterator[Record | DatasetError]]] = []
    try:
        for name in datasets:
            if is_spec(name):
                sources.extend((category, iter_category(category)) for category in parse_spec(name))
            else:
                sources.append((name, iter_records(name)))
    except BfclMissing as exc:
        raise click.UsageError(str(exc)) from None
    tally = Tally()
    results = None
    if predictions is not None:
        results, errors = read_predictions(predictions)
        for error in errors:
            tally.add_malformed(error)
    try:
        for group, items in sources:
            for item in islice(items, limit):
                if isinstance(item, DatasetError):
                    tally.add_malformed(item)
                    continue
                try:
                    checked = item if results is None else with_prediction(item, results.get(item.id))
                except DatasetError as exc:
                    tally.add_malformed(exc)
                    continue
                tally.add_record()
                for row in evaluate_record(checked, group, grounding=not no_grounding):
                    tally.add(row)
                if faults:
                    for frow in fault_rows(item, group, seed=seed, grounding=not no_grounding):
                        tally.add_fault(frow)
    except BfclMissing as exc:
        raise click.UsageError(str(exc)) from None
    report = tally.report()
    click.echo(render(report, fmt), nl=False)
    if report.malformed:
        click.echo(f"policyc: {len(report.malformed)} malformed record(s) were not checked", err=True)
        raise click.exceptions.Exit(EXIT_INPUT)
    if report.records == 0:
        click.echo("policyc: no records found", err=True)
        raise click.exceptions.Exit(EXIT_INPUT)
    raise click.exceptions.Exit(EXIT_OK if report.clean else EXIT_FINDINGS)
