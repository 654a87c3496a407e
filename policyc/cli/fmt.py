"""`policyc fmt FILE...`: print, check or rewrite policies in their canonical form."""

from __future__ import annotations

import difflib
from pathlib import Path

import click

from policyc.cli import EXIT_FINDINGS, EXIT_INPUT, EXIT_INTERNAL, EXIT_OK
from policyc.cli.common import fail, policy_files, print_diagnostics, write_file, write_problem
from policyc.cli.config import command_line_wins
from policyc.terminal import printable

_IO_CODES = {"E0002", "E0003", "E0005"}


def _read(path: str):
    from policyc.syntax import read_source

    return read_source(Path(path), "<stdin>" if path == "-" else path)  # "-": standard input, within the cap


@click.command("fmt")
@click.argument("files", nargs=-1, required=True, type=click.Path(allow_dash=True))
@click.option("--check", "check_only", is_flag=True,
              help="change nothing; list the files that are not formatted and exit 1 if there are any")
@click.option("--write", "-w", is_flag=True, help="rewrite the files in place")
@click.option("--diff", "show_diff", is_flag=True, help="print what would change, as a unified diff")
def command(files: tuple[str, ...], check_only: bool, write: bool, show_diff: bool) -> None:
    """Format policy FILES in the canonical AgentLTL style (`-` reads standard input; a folder:
    every .altl file below it).

    Prints the formatted text (several files each under a `==> FILE <==` header), or with
    --write rewrites them, or with --check only reports which files would change. Comments
    are kept; the formatted policy always means exactly what the original did.

    \b
    Exit status: 0 done (with --check: every file is formatted), 1 a file has syntax errors
    (or, with --check, is not formatted), 2 a file could not be read.
    """
    from policyc.fmt import format_module, formatting_problem
    from policyc.syntax import parse_source

    dropped = command_line_wins(click.get_current_context(), "check_only", "write")
    check_only, write = check_only and "check_only" not in dropped, write and "write" not in dropped
    if check_only and write:
        raise click.UsageError("--check and --write cannot be used together")
    if write and "-" in files:
        raise click.UsageError("--write cannot rewrite standard input")
    unreadable = broken = unformatted = False
    files = tuple(policy_files(files, allow_dash=True))
    for path in files:
        source, diagnostics = _read(path)
        module = None
        if source is not None:
            module, diagnostics = parse_source(source)
        if module is None or source is None:
            print_diagnostics(diagnostics, err=True)
            unreadable |= any(d.code in _IO_CODES for d in diagnostics)
            broken = True
            continue
        formatted = format_module(module)
        problem = formatting_problem(module, formatted)
        if problem is not None:
            click.echo(f"policyc: internal error: cannot format `{printable(path)}`: {printable(str(problem))}", err=True)
            click.echo("this is a bug in policyc; the file was left unchanged", err=True)
            raise click.exceptions.Exit(EXIT_INTERNAL)
        changed = formatted != source.text
        unformatted |= changed
        if show_diff and changed:
            before = [line if line.endswith("\n") else line + "\n" for line in source.text.splitlines(True)]
            click.echo("".join(difflib.unified_diff(before, formatted.splitlines(True),  # every byte (`color`: none
                                                    f"{printable(path)} (original)",  # stripped off a pipe)
                                                    f"{printable(path)} (formatted)")), nl=False, color=True)
        if check_only:
            if changed:
                click.echo(f"{printable(path)}: not formatted")
        elif write:
            if changed:
                try:
                    write_file(path, formatted.encode("utf-8"))
                except OSError as exc:
                    fail(f"cannot write `{printable(path)}`: {write_problem(exc)}")
                click.echo(f"{printable(path)}: formatted", err=True)
        elif not show_diff:
            if len(files) > 1:
                click.echo(f"{'' if path == files[0] else chr(10)}==> {printable(path)} <==")
            click.echo(formatted, nl=False, color=True)  # the text as --write writes it, escape sequences too
    if unreadable:
        raise click.exceptions.Exit(EXIT_INPUT)
    if broken or check_only and unformatted:
        raise click.exceptions.Exit(EXIT_FINDINGS)
    raise click.exceptions.Exit(EXIT_OK)
