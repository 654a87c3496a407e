"""`policyc test PATH...`: run the unit tests written beside policies (`NAME.tests.toml`)."""

from __future__ import annotations

import functools

import click

from policyc.cli import EXIT_FINDINGS, EXIT_INPUT, EXIT_OK
from policyc.cli.common import budget_options, write_output
from policyc.terminal import printable


def _print_suite(suite, quiet: bool, paint, echo=click.echo) -> None:
    shown = printable  # names, messages and tools come from the tests file and the policy: no control character reaches the terminal
    echo(f"{shown(suite.file)} ({shown(suite.policy)}): {len(suite.results)} test{'s' if len(suite.results) != 1 else ''}")
    for problem in suite.problems:
        echo(f"  {paint('ERROR', 'red')} {shown(str(problem))}")
    for result in suite.results:
        name = shown(result.test.name)
        if result.status == "passed":
            if not quiet:
                echo(f"  {paint('ok', 'green')}    {name}")
            continue
        if result.status == "error":
            echo(f"  {paint('ERROR', 'red')} {name}  ({shown(str(result.where))})")
            echo(f"        {shown(str(result.error))}")
            continue
        echo(f"  {paint('FAIL', 'red')}  {name}  ({shown(str(result.where))})")
        for line in result.mismatches:
            echo(f"        {shown(line)}")
        sequence = " -> ".join(map(shown, result.report.tool_sequence)) or "(no calls)"
        echo(f"        tool sequence: {sequence}")


@click.command("test")
@click.argument("files", nargs=-1, required=True, type=click.Path())
@click.option("--junit", "junit", type=click.Path(dir_okay=False, allow_dash=True), default=None,
              help="also write the results as JUnit XML to this file (- for standard output)")
@click.option("-q", "--quiet", is_flag=True, help="list only the tests that fail")
@budget_options
def command(files: tuple[str, ...], junit: str | None, quiet: bool) -> None:
    """Run the unit tests of policies.

    Each PATH is a tests file (`NAME.tests.toml`), a policy (its tests file beside it) or a
    folder (every tests file below it). A test scores a trace (inline `calls`, or a `trace`
    file's record) against the policy and compares the report with what it expects: rules
    that pass or fail, `violated_at`, `vacuous` rules, the `score` or `label`. See
    docs/cli.md for the format.

    \b
    Exit status: 0 every test passed, 1 some test failed, 2 a tests file, trace or policy
    could not be read or is malformed (the other tests still run).
    """
    from policyc.cli.common import use_color
    from policyc.testing import read_tests, resolve_paths, run_suite, to_junit
    from policyc.testing.run import SuiteResult, Totals

    color = use_color()

    def paint(text: str, colour: str) -> str:
        return click.style(text, fg=colour, bold=True) if color else text

    echo = functools.partial(click.echo, err=junit == "-")  # standard output is the XML
    paths, problems = resolve_paths(files)
    inputs: list[str] = [*files, *paths]  # never written over by --junit
    totals = Totals()
    for problem in problems:
        totals.add(SuiteResult(problem.file, "", (), (problem,)))
        echo(f"{paint('ERROR', 'red')} {problem}")
    for path in paths:
        suite, file_problems = read_tests(path)
        if suite is not None:
            inputs.append(str(suite.folder / suite.policy))
            inputs.extend(str(suite.folder / t.trace) for t in suite.tests if t.trace)
        result = (SuiteResult(path, "", (), tuple(file_problems)) if suite is None
                  else run_suite(suite, file_problems))
        totals.add(result)
        _print_suite(result, quiet, paint, echo)
    if junit:
        xml = to_junit(totals.suites)
        if junit == "-":
            click.echo(xml, nl=False)
        else:
            write_output(junit, xml.encode("utf-8"), inputs, "--junit")
    ran = totals.passed + totals.failed
    summary = f"{totals.passed} passed, {totals.failed} failed"
    click.echo(summary + (f", {totals.errors} error{'s' if totals.errors != 1 else ''}" if totals.errors else ""),
               err=junit == "-")
    if totals.errors or ran == 0:
        if ran == 0 and not totals.errors:
            click.echo("policyc: no tests ran", err=True)
        raise click.exceptions.Exit(EXIT_INPUT)
    raise click.exceptions.Exit(EXIT_FINDINGS if totals.failed else EXIT_OK)
