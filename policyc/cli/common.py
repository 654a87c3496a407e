"""What every subcommand shares: reading policies, printing diagnostics, exit codes."""

from __future__ import annotations

import sys
from typing import Sequence

import click

from policyc.diagnostics import Diagnostic, has_errors, render_json, render_text, summary_line

FORMAT_TEXT_JSON = click.Choice(["text", "json"])


def use_color(stream=None) -> bool:
    stream = stream or sys.stdout
    return hasattr(stream, "isatty") and stream.isatty()


def print_diagnostics(diagnostics: Sequence[Diagnostic], fmt: str = "text", err: bool = False) -> None:
    if fmt == "json":
        click.echo(render_json(diagnostics))
        return
    if diagnostics:
        stream = sys.stderr if err else sys.stdout
        click.echo(render_text(diagnostics, color=use_color(stream)), nl=False, err=err)


def is_artifact_file(path: str) -> bool:
    """Whether a file holds a compiled artifact (JSON) rather than policy text."""
    if path.endswith(".altl"):
        return False
    try:
        with open(path, "rb") as handle:
            return handle.read(64).lstrip()[:1] == b"{"
    except OSError:
        return False  # the policy loader reports it


def load_checked(path: str, fmt: str = "text", resolve_externs: bool = False):
    """Check a policy for a command that needs one; on errors print them and exit 2."""
    from policyc.check import check_file

    policy, diagnostics = check_file(path, resolve_externs=resolve_externs)
    if policy is None or has_errors(diagnostics):
        print_diagnostics(diagnostics, "text", err=True)
        click.echo(f"policyc: `{path}` has errors ({summary_line(diagnostics)})", err=True)
        raise click.exceptions.Exit(2)
    return policy, diagnostics
