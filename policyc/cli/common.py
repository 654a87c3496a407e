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


def policy_files(paths: Sequence[str], allow_dash: bool = False) -> list[str]:
    """The files named, with each directory standing for every `.altl` file below it (sorted;
    hidden folders skipped). A directory without one is an input error (exit 2): a CI job
    pointed at the wrong folder must not pass by checking nothing."""
    from pathlib import Path

    out: list[str] = []
    for path in paths:
        folder = Path(path)
        if (path == "-" and allow_dash) or not folder.is_dir():
            out.append(path)
            continue
        found = sorted(str(p) for p in folder.rglob("*.altl")
                       if p.is_file() and not any(part.startswith(".") for part in p.relative_to(folder).parts))
        if not found:
            click.echo(f"policyc: no `.altl` file under `{path}`", err=True)
            raise click.exceptions.Exit(2)
        out.extend(found)
    return list(dict.fromkeys(out))


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
