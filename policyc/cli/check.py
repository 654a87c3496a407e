"""`policyc check FILE...`: parse, resolve and type-check policies."""

from __future__ import annotations

import json

import click

from policyc.cli import EXIT_FINDINGS, EXIT_INPUT, EXIT_OK
from policyc.cli.common import policy_files, print_diagnostics
from policyc.diagnostics import has_errors, render_github, summary_line
from policyc.terminal import printable

_IO_CODES = {"E0002", "E0003", "E0005"}


@click.command("check")
@click.argument("files", nargs=-1, required=True, type=click.Path())
@click.option("--format", "fmt", type=click.Choice(["text", "json", "github", "sarif"]), default="text",
              show_default=True, help="text for people, json for machines, github for GitHub Actions "
                                      "annotations, sarif for code-scanning tools")
@click.option("--deny-warnings", is_flag=True, help="treat warnings as errors (exit 1)")
def command(files: tuple[str, ...], fmt: str, deny_warnings: bool) -> None:
    """Check policy FILES for syntax, name and type errors (a folder: every .altl file below it).

    \b
    Exit status: 0 no errors, 1 errors in a policy, 2 a file could not be read.
    """
    from policyc.check import check_file

    all_diagnostics = []
    unreadable = False
    results = []
    for path in policy_files(files):
        policy, diagnostics = check_file(path)
        all_diagnostics.extend(diagnostics)
        unreadable |= any(d.code in _IO_CODES and d.span is None for d in diagnostics)
        results.append({
            "file": path,
            "ok": not has_errors(diagnostics),
            "rules": [r.name for r in policy.rules] if policy else [],
            "diagnostics": [d.to_json() for d in diagnostics],
        })
        if fmt == "github":
            click.echo(render_github(diagnostics), nl=False)
        if fmt == "text":
            print_diagnostics(diagnostics)
            if policy is not None and not has_errors(diagnostics):
                click.echo(f"{printable(path)}: ok ({len(policy.rules)} rules, {len(policy.tools)} tools"
                           f"{', ' + summary_line(diagnostics) if diagnostics else ''})")
            else:
                click.echo(f"{printable(path)}: {summary_line(diagnostics)}")
    if fmt == "json":
        click.echo(json.dumps(results, indent=2, ensure_ascii=False))
    elif fmt == "sarif":
        from policyc.lint.sarif import to_sarif

        click.echo(json.dumps(to_sarif([], all_diagnostics), indent=2, ensure_ascii=False))
    if unreadable:
        raise click.exceptions.Exit(EXIT_INPUT)
    failed = has_errors(all_diagnostics) or deny_warnings and bool(all_diagnostics)
    raise click.exceptions.Exit(EXIT_FINDINGS if failed else EXIT_OK)
