"""`policyc report POLICY TRACES... -o report.html`: the runs, rules and findings as one page."""

from __future__ import annotations


import click

from policyc.cli import EXIT_FINDINGS, EXIT_INPUT, EXIT_OK
from policyc.cli import externs as extern_bindings
from policyc.cli.common import budget_options, fail, key_option, load_checked, load_monitor, reads_artifact, write_output
from policyc.terminal import printable
from policyc.trace.formats import FORMATS

MODES = ["tolerate", "warn", "block", "soft", "stop"]


@click.command("report")
@click.argument("policy", metavar="POLICY_OR_ARTIFACT", type=click.Path(dir_okay=False))
@click.argument("traces", nargs=-1, required=True)
@click.option("-o", "--output", type=click.Path(dir_okay=False), default="report.html", show_default=True,
              help="the HTML file to write")
@click.option("--lint/--no-lint", "with_lint", default=True, show_default=True,
              help="lint the policy and show the findings (a policy source only: an artifact has no source)")
@click.option("--replay/--no-replay", "with_replay", default=True, show_default=True,
              help="replay every run through the gate and show its decision at each call")
@click.option("--mode", type=click.Choice(MODES), default=None,
              help="the replay enforces every rule with one severity (default: each rule's own)")
@click.option("--ledger", type=click.Path(dir_okay=False, exists=True), default=None,
              help="a ledger to show: the JSON `policyc assure --format json` writes")
@click.option("--input-format", default="auto", show_default=True, type=click.Choice(["auto", *FORMATS]),
              help="how to read each trace record; auto detects it from the record's shape")
@extern_bindings.option
@key_option
@budget_options
def command(policy: str, traces: tuple[str, ...], output: str, with_lint: bool, with_replay: bool, mode: str | None,
            ledger: str | None, input_format: str, externs: tuple[str, ...], key_file: str | None) -> None:
    """Write one self-contained HTML page about TRACES (files, folders, or -) and a policy.

    \b
    The page has the per-rule compliance and violation counts, the distribution of scores, a
    sortable and filterable list of the runs, and for each run its timeline of events, the
    event after which each broken rule was lost, with the rule's explanation, and (with
    --replay) the gate's decision at each call; the lint findings, the ledger of --ledger and
    the malformed records. It loads nothing from the network.
    Exit status: 0 every run fully compliant, 1 some rule violated, 2 bad input (a malformed
    record, an unreadable ledger; the page is still written from the rest).
    """
    from policyc.report import ReportBuilder, render_page
    from policyc.runtime.replay import replay
    from policyc.scoring import MalformedRecord, Scorer
    from policyc.trace import TraceError, iter_traces

    monitor = load_monitor(policy, externs, key_file)
    builder = ReportBuilder(monitor.compiled, source=policy)
    if with_lint and not reads_artifact(policy, key_file):
        builder.add_lint(_lint_findings(policy))
    ledger_problem = None
    if ledger is not None:
        read, ledger_problem = _read_ledger(ledger)
        if read is not None:
            builder.add_ledger(read)
        else:  # told now; the page is still written, without it
            click.echo(f"policyc: error: `{printable(ledger)}` is not a ledger: {ledger_problem}", err=True)
            click.echo("  help: give the JSON of `policyc assure --format json`", err=True)
    scorer = Scorer(monitor.compiled, externs=monitor.externs)
    for item in iter_traces(traces, input_format):
        if isinstance(item, TraceError):
            builder.add_malformed(MalformedRecord(**item.to_json()))
            continue
        if with_replay:
            replayed = replay(monitor, item, mode)
            builder.add_run(item, replayed.report, replayed)
        else:
            builder.add_run(item, scorer.score(item))
    data = builder.data()
    write_output(output, render_page(data).encode("utf-8"), [policy, *traces, *([ledger] if ledger else [])])
    aggregate = data["aggregate"]
    click.echo(f"{printable(output)}: {aggregate['traces']} run(s), {aggregate['malformed_records']} malformed "
               f"record(s), mean compliance " + ("-" if aggregate["mean_score"] is None else
                                                 f"{aggregate['mean_score']:.3f}"), err=True)
    if aggregate["records"] == 0:
        fail("no trace records found")
    if aggregate["malformed_records"] or ledger_problem is not None:
        raise click.exceptions.Exit(EXIT_INPUT)
    full = aggregate["labels"].get("FULL", 0)
    raise click.exceptions.Exit(EXIT_OK if full == aggregate["traces"] else EXIT_FINDINGS)


def _lint_findings(policy: str) -> list[dict]:
    from policyc.lint import LintOptions, lint_policy

    checked, _ = load_checked(policy)
    return [f for r in [lint_policy(checked, LintOptions())] for f in r.to_json()["findings"]]


#: the parts of a ledger the page shows, by the JSON kind each must be when present
_LEDGER_LISTS = ("entries", "rules", "union", "overlaps", "combined")
_LEDGER_SCALARS = {"runs": (int,), "tasks": (int,), "confidence": (int, float), "deployment": (str,),
                   "suite": (str,)}


def _read_ledger(path: str) -> tuple[dict | None, str | None]:
    """The ledger `policyc assure --format json` wrote, or what is wrong with the file: not JSON
    as the standard defines it (NaN, 1e400, half a surrogate pair: `jsontext.decode`), or not
    of the ledger's shape where the page reads it."""
    from policyc.inputs import InputError, read_input
    from policyc.jsontext import decode

    try:
        text = read_input(path).decode("utf-8")
    except InputError as exc:
        return None, f"it {exc.reason}"
    except UnicodeDecodeError as exc:
        return None, f"it is not UTF-8 text (byte {exc.start})"
    data, problem, _ = decode(text)
    if problem is not None:
        return None, problem
    if not isinstance(data, dict) or not isinstance(data.get("entries"), list):
        return None, "it is not an object with a list of `entries`"
    for key in _LEDGER_LISTS:
        items = data.get(key)
        if items is not None and (not isinstance(items, list) or not all(isinstance(i, dict) for i in items)):
            return None, f"`{key}` is not a list of objects"
    for key, kinds in _LEDGER_SCALARS.items():
        value = data.get(key)
        if value is not None and (not isinstance(value, kinds) or isinstance(value, bool)):
            return None, f"`{key}` is not a {'text' if kinds == (str,) else 'number'}"
    if data.get("residual") is not None and not isinstance(data["residual"], dict):
        return None, "`residual` is not an object"
    return data, None
