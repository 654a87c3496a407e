"""`policyc lsp`: the language server, over standard input and output."""

from __future__ import annotations

import importlib.util

import click

from policyc.cli import EXIT_INPUT, EXIT_OK


@click.command("lsp")
@click.option("--stdio", is_flag=True, help="talk over standard input and output (the default; editors pass it)")
def command(stdio: bool) -> None:
    """Run the AgentLTL language server for editors: diagnostics as you type, hover (tool
    signatures, a rule's class and severity), go to definition and formatting.

    It speaks the Language Server Protocol over standard input and output; configure the
    editor to start `policyc lsp` for `.altl` files (docs/editors.md). Needs the `lsp`
    extra: pip install "policyc[lsp]".

    \b
    Exit status: 0 when the editor shuts it down, 2 pygls is not installed.
    """
    if importlib.util.find_spec("pygls") is None or importlib.util.find_spec("lsprotocol") is None:
        click.echo('policyc: the language server needs pygls and lsprotocol: pip install "policyc[lsp]"', err=True)
        raise click.exceptions.Exit(EXIT_INPUT)
    from policyc.lsp.server import serve_stdio

    serve_stdio()
    raise click.exceptions.Exit(EXIT_OK)
