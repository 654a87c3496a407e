"""`policyc lint FILE...`: prove policies consistent before they are deployed."""

from __future__ import annotations

import dataclasses
import json
import sys
import time
from typing import TYPE_CHECKING

import click

from policyc.cli import EXIT_FINDINGS, EXIT_INPUT, EXIT_OK
from policyc.cli.common import FiniteFloatRange, budget_options, policy_files, print_diagnostics, use_color
from policyc.cli.compile import joint_limit_notes
from policyc.diagnostics import Severity, has_errors, render_github, render_text, summary_line
from policyc.terminal import printable

if TYPE_CHECKING:
    from rich.progress import Progress, TaskID

_DENY = {"errors": Severity.ERROR, "warnings": Severity.WARNING, "notes": Severity.NOTE}


def _finding_names(ctx: click.Context, param: click.Parameter, names: tuple[str, ...]) -> tuple[str, ...]:
    """--allow and --only name kinds of finding (a code or a name): each one must be one."""
    if names:
        from policyc.lint import kind_by_name

        for name in names:
            try:
                kind_by_name(name)
            except KeyError:
                raise click.BadParameter(f"no finding is called `{printable(name)}`") from None
    return names


@click.command("lint")
@click.argument("files", nargs=-1, type=click.Path())
@click.option("--format", "fmt", type=click.Choice(["text", "json", "sarif", "github"]), default="text",
              show_default=True, help="text for people, json for machines, sarif for CI systems and editors, "
                                      "github for GitHub Actions annotations")
@click.option("--deny", type=click.Choice(sorted(_DENY)), default="errors", show_default=True,
              help="exit 1 on findings at or above this level")
@click.option("--allow", "allowed", multiple=True, metavar="CODE", callback=_finding_names,
              help="do not analyse or report this kind of finding (code or name)")
@click.option("--only", "only", multiple=True, metavar="NAME", callback=_finding_names, help="run only this analysis (code or name)")
@click.option("--bound", type=click.IntRange(1, 64), default=8, show_default=True,
              help="longest trace the bounded queries consider")
@click.option("--jobs", type=click.IntRange(0, 256), default=1, show_default=True,
              help="processes to run the analyses' independent questions in (0: every core); the report is the same")
@click.option("--progress/--no-progress", default=None,
              help="draw a progress bar on standard error when a lint takes over a second (default: on a terminal)")
@click.option("--rlimit", type=click.IntRange(1), default=None, metavar="STEPS",
              help="solver steps one question may take, a joint state of the automata counting as 200 "
                   "(default: 10,000,000); a question past it is not decided (L0009)")
@click.option("--budget", type=click.IntRange(1), default=None, metavar="STEPS",
              help="solver steps the whole lint may take (default: 200,000,000); the questions left when it is "
                   "spent are not decided (L0009)")
@click.option("--max-layer-share", type=FiniteFloatRange(0, 1), default=0.5, show_default=True,
              help="weight share above which a layer is said to dominate")
@click.option("--explain", "explain_code", metavar="CODE", help="describe a finding, with a wrong and a fixed example")
@budget_options
def command(files, fmt, deny, allowed, only, bound, jobs, progress, rlimit, budget, max_layer_share,
            explain_code) -> None:
    """Lint policy FILES (a folder: every .altl file below it): conflicts, unsatisfiable, redundant and vacuous rules, dead tools,
    unenforceable severities, budgets and layer weights.

    \b
    Exit status: 0 clean, 1 findings at or above --deny, 2 a file could not be read or checked.
    """
    from policyc.automata.budget import BudgetExceeded
    from policyc.check import check_file
    from policyc.lint import LintOptions, kind_by_name, lint_policy
    from policyc.lint.sarif import to_sarif

    if explain_code:
        from policyc.lint.explain import explain

        try:
            click.echo(explain(explain_code), nl=False)
        except KeyError:
            raise click.BadParameter(f"no finding is called `{explain_code}`", param_hint="--explain") from None
        raise click.exceptions.Exit(EXIT_OK)
    if not files:
        raise click.UsageError("give at least one policy file (or --explain CODE)")
    skip = {kind_by_name(a).code for a in allowed}  # (each a finding's name: `_finding_names`)
    selected = {kind_by_name(o).slug for o in only} or None
    if selected is None and skip:  # an allowed kind is not even analysed
        from policyc.lint import KINDS

        selected = {k.slug for code, k in KINDS.items() if code not in skip}
    limits = {name: v for name, v in (("rlimit", rlimit), ("budget", budget)) if v is not None}
    options = LintOptions(bound=bound, max_layer_share=max_layer_share, jobs=jobs, **limits)
    show = progress if progress is not None else sys.stderr.isatty()
    reports, failed_input, not_checked = [], False, []
    for path in policy_files(files):
        policy, diagnostics = check_file(path)
        if policy is None or has_errors(diagnostics):
            if fmt == "github":
                click.echo(render_github(diagnostics), nl=False)
            else:
                print_diagnostics(diagnostics, "text", err=True)
            not_checked.extend(diagnostics)
            click.echo(f"policyc: `{printable(path)}` has errors ({summary_line(diagnostics)}); fix them before linting",
                       err=True)
            failed_input = True
            continue
        with _Bar(path, show) as bar:
            try:
                report = lint_policy(policy, options, selected, progress=bar)
            except BudgetExceeded as exc:  # say which rule, when the automaton was one rule's
                from policyc.ir.printer import show as show_formula

                raise next((exc.naming(r.name) for r in policy.rules
                            if exc.formula is not None and show_formula(r.formula, 80) == exc.formula), exc) from None
        report = dataclasses.replace(report, findings=tuple(f for f in report.findings if f.code not in skip))
        reports.append(report)
        # the checker's warnings (an unused variable, `x == null` on a value that may be left out)
        # are the lint's too
        warned = [d for d in diagnostics if d.severity == Severity.WARNING]
        if fmt == "github":
            click.echo(render_github(warned + report.diagnostics()), nl=False)
        elif fmt == "text":
            diags = warned + report.diagnostics()
            if diags:
                click.echo(render_text(diags, color=use_color()), nl=False)
                click.echo()
            click.echo(f"{printable(path)}: {summary_line(diags) if diags else 'clean'} "
                       f"(bounded queries up to {report.bound} calls)")
            for note in joint_limit_notes(report.gate_limits) if report.gate_limits else ():
                click.echo(note, err=True)
    if fmt == "json":
        click.echo(json.dumps([r.to_json() for r in reports], indent=2, ensure_ascii=False, default=str))
    elif fmt == "sarif":
        click.echo(json.dumps(to_sarif(reports, not_checked), indent=2, ensure_ascii=False, default=str))
    if failed_input:
        raise click.exceptions.Exit(EXIT_INPUT)
    threshold = _DENY[deny]
    failing = any(r.at_or_above(threshold) for r in reports)
    raise click.exceptions.Exit(EXIT_FINDINGS if failing else EXIT_OK)


class _Bar:
    """A rich progress bar on standard error, drawn once a lint has taken a second."""

    def __init__(self, path: str, enabled: bool):
        self.path, self.enabled = printable(path), enabled
        self.start = time.monotonic()
        self.bar: Progress | None = None
        self.task: TaskID | None = None

    def __enter__(self) -> "_Bar":
        return self

    def __exit__(self, *exc) -> None:
        if self.bar is not None:
            self.bar.stop()

    def __call__(self, label: str, done: int, total: int) -> None:
        if not self.enabled:
            return
        if self.bar is None:
            if time.monotonic() - self.start < 1.0:
                return
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

            self.bar = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                                TimeElapsedColumn(), console=Console(stderr=True), transient=True)
            self.bar.start()
            self.task = self.bar.add_task("", total=total)
        assert self.task is not None
        self.bar.update(self.task, description=f"{self.path}: {label}", completed=done, total=max(total, 1))
