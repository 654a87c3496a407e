"""`policyc assure POLICY TRACES...`: the assurance ledger of a suite of runs."""

from __future__ import annotations

import click

from policyc.cli import EXIT_FINDINGS, EXIT_INPUT, EXIT_OK
from policyc.cli import externs as extern_bindings
from policyc.cli.common import budget_options, fail, key_option, load_checked, load_monitor, reads_artifact, use_color, write_output
from policyc.terminal import printable
from policyc.trace.formats import FORMATS


@click.command("assure")
@click.argument("policy", metavar="POLICY_OR_ARTIFACT", type=click.Path(dir_okay=False))
@click.argument("traces", nargs=-1)
@click.option("--deployment", default="deployment", show_default=True,
              help="the deployment the runs come from (model, prompt, tools, environment)")
@click.option("--suite", default=None, help="the name of the suite the runs form (default: the trace files' names)")
@click.option("--gated", multiple=True, metavar="DEPLOYMENT",
              help="a deployment whose every call goes through the policy's gate: its refusing gateable rules "
                   "hold there exactly (repeatable)")
@click.option("--evidence", "evidence_files", multiple=True, type=click.Path(dir_okay=False, allow_dash=True),
              help="JSON evidence, capabilities and obligations from other methods (repeatable; see docs/assure.md)")
@click.option("--k", default=1, show_default=True, type=click.IntRange(min=1, max=10**9),
              help="suite contracts: the runs a rule must apply to, besides having no violation")
@click.option("--risk", type=click.FloatRange(min=0, max=1, min_open=True), default=None, metavar="EPSILON",
              help="add risk obligations: Pr(some rule violated) <= EPSILON at the confidence, on every deployment")
@click.option("--distribution", default=None,
              help="the suite's tasks are independent draws from this distribution of the deployment's runs "
                   "(so suite counts bound risks)")
@click.option("--confidence", default=0.95, show_default=True, type=click.FloatRange(min=0.5, max=0.999999),
              help="one-sided confidence of the upper bounds (at most 0.999999: δ, split over the rules, stays a number)")
@click.option("--assume", "resolved", multiple=True, metavar="NAME",
              help="an assumption checked to hold (e.g. no-override, routing; repeatable)")
@click.option("--format", "fmt", type=click.Choice(["text", "json", "markdown"]), default="text", show_default=True)
@click.option("-o", "--output", type=click.Path(dir_okay=False, allow_dash=True), default="-", show_default=True,
              help="where to write the ledger")
@click.option("--input-format", default="auto", show_default=True, type=click.Choice(["auto", *FORMATS]),
              help="how to read each trace record")
@extern_bindings.option
@key_option
@budget_options
def command(policy: str, traces: tuple[str, ...], deployment: str, suite: str | None, gated: tuple[str, ...],
            evidence_files: tuple[str, ...], k: int, risk: float | None, distribution: str | None,
            confidence: float, resolved: tuple[str, ...], fmt: str, output: str, input_format: str,
            externs: tuple[str, ...], key_file: str | None) -> None:
    """The assurance ledger of TRACES, one deployment's suite of runs (files, folders, or -).

    \b
    The inventory (each rule on the suite with a suite(k) contract, the outcome, the gated
    deployments' rules, the policy's risk, with a contract when --risk names one, the
    requirements outside the policy, and the obligations of --evidence files) is classified
    against the evidence of the rule checker, the outcome oracle, the gate and the imported
    methods: established, addressed but not established, or unaddressed, with the reason.
    Without TRACES, the inventory alone: every obligation unaddressed until evidence comes.
    Then the run-level union of the methods, their pairwise overlap, Prop. 3.4's bounds and
    the residual.
    Exit status: 0 every obligation asked for established (the standing ones of the
    inventory aside), 1 some not, 2 bad input (a malformed trace record or evidence record,
    a method naming no rule, TRACES given without a record; the ledger is still written from
    the rest).
    """
    from policyc.assure import Options, RunRecord, assure, read_evidence, render_markdown, render_text, run_record
    from policyc.scoring import Scorer
    from policyc.trace import TraceError, iter_traces

    for name, value in (("--risk", risk), ("--confidence", confidence)):
        if value is not None and value != value:
            raise click.BadParameter("nan is not a number", param_hint=f"'{name}'")
    for name, text in (("--deployment", deployment), ("--suite", suite), ("--distribution", distribution),
                       *(("--gated", g) for g in gated)):
        if text is not None and not 0 < len(text) <= 200:
            raise click.BadParameter("a name has 1 to 200 characters", param_hint=f"'{name}'")
    if deployment in gated:
        fail(f"`{printable(deployment)}` is both the suite's deployment and a gated one",
             "a gated deployment is a different system: give it its own name")
    if reads_artifact(policy, key_file):
        monitor = load_monitor(policy, externs, key_file)
        compiled, bound = monitor.compiled, monitor.externs
    else:
        from policyc.automata import compile_policy

        checked, _ = load_checked(policy)
        bound = extern_bindings.bind(externs, checked.externs)
        compiled = compile_policy(checked)
    problems: list[str] = []
    runs: list[RunRecord] = []
    scorer = Scorer(compiled, externs=bound)  # one for every run
    for item in iter_traces(traces, input_format):
        if isinstance(item, TraceError):
            problems.append(f"malformed trace record, not scored: {item}")
            continue
        runs.append(run_record(item, scorer.score(item), len(runs)))
    imported = []
    for path in evidence_files:
        read = read_evidence(path)
        imported.append(read.file)
        problems.extend(f"evidence record not used: {p}" for p in read.problems)
    inputs_bad = bool(problems)
    if traces and not runs:
        fail("no trace records found" if not problems else "no trace record could be read",
             None if not problems else problems[0])
    ids = [r.id for r in runs]
    if len(set(ids)) != len(ids):
        problems.append("some runs share an id; run-level counts treat them as one run")
        inputs_bad = True
    options = Options(deployment=deployment, suite=suite or _suite_name(traces), gated=gated, k=k,
                      risk=None if risk is None else (risk, 1.0 - confidence), distribution=distribution,
                      confidence=confidence, resolved=resolved, lineage=tuple(traces), imported=tuple(imported))
    ledger = assure(compiled, runs, options, problems)
    if len(ledger.problems) > len(problems):  # flagged runs that are not in the suite
        inputs_bad = True
    if fmt == "json":
        text = ledger.model_dump_json(indent=2) + "\n"
    elif fmt == "markdown":
        text = render_markdown(ledger)
    else:
        text = render_text(ledger, color=output == "-" and use_color())
    if output == "-":
        click.echo(text, nl=False)
    else:
        write_output(output, text.encode("utf-8"), [policy, *traces, *evidence_files])
    for problem in ledger.problems:
        click.echo(f"policyc: {printable(problem)}", err=True)
    for warning in ledger.warnings:
        click.echo(f"policyc: warning: {printable(warning)}", err=True)
    raise click.exceptions.Exit(EXIT_INPUT if inputs_bad else EXIT_OK if ledger.established else EXIT_FINDINGS)


def _suite_name(traces: tuple[str, ...]) -> str:
    """The suite's name when --suite gives none: the trace files' names, within the 200
    characters a name may have (a long name cut, and how many files are left out).

    >>> _suite_name(("a.jsonl", "b.jsonl")), _suite_name(())
    ('a.jsonl, b.jsonl', '(no runs)')
    >>> _suite_name(tuple(f"run_{i}.jsonl" for i in range(99)))[-38:]
    'run_12.jsonl, run_13.jsonl and 85 more'
    """
    names = [t if len(t) <= 150 else t[:149] + "…" for t in traces]
    kept: list[str] = []
    for name in names:
        left = len(names) - len(kept) - 1
        if len(", ".join([*kept, name]) + (f" and {left} more" if left else "")) > 200:
            break
        kept.append(name)
    left = len(names) - len(kept)
    return (", ".join(kept) + (f" and {left} more" if left else "")) or "(no runs)"
