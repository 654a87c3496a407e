"""`policyc import-tools FILE...`: tool declarations from OpenAI or MCP tool schemas (JSON)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import click

from policyc.cli import EXIT_FINDINGS, EXIT_INPUT, EXIT_OK
from policyc.cli.common import write_output
from policyc.terminal import printable
from policyc.inputs import InputError, read_input


def _read(path: str) -> tuple[str, object] | str:
    """(text, value) of a JSON file, or what is wrong with it."""
    try:
        data = read_input(path)  # "-": standard input; within the size cap, never waiting on a FIFO
    except InputError as exc:
        return f"it {exc.reason}"
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        return f"it is not UTF-8 text (byte {exc.start})"
    if not text.strip():
        return "it is empty; expected a JSON tool list"
    try:
        return text, json.loads(text)
    except json.JSONDecodeError as exc:
        return f"line {exc.lineno}: it is not JSON: {exc.msg}"
    except RecursionError:
        return "it is nested too deeply to read"
    except ValueError:  # an integer of thousands of digits, past what Python converts
        return "it holds a number too long to read (thousands of digits)"


def _where(file: str, text: str, path: tuple) -> str:
    from policyc.trace.errors import field_path
    from policyc.trace.jsontext import line_of, locate

    line = line_of(text, locate(text, 0, path))
    shown = field_path(path)
    return f"{file}:{line}: " + (f"`{shown}`: " if shown else "")


@click.command("import-tools")
@click.argument("files", nargs=-1, required=True)
@click.option("-o", "--output", type=click.Path(dir_okay=False, allow_dash=True), default="-", show_default=True,
              help="where to write the declarations (- for standard output)")
@click.option("--terminal", "terminals", multiple=True, metavar="TOOL",
              help="declare this tool `terminal` (the final answer; repeatable)")
def command(files: tuple[str, ...], output: str, terminals: tuple[str, ...]) -> None:
    """Write `.altl` tool declarations for the tools in FILES (JSON; - for standard input).

    \b
    Reads OpenAI function tools (chat `tools`, Responses `tools`, bare function objects) and
    MCP tool lists (`inputSchema`, `outputSchema`), alone, in arrays or in request bodies.
    Argument and result types come from JSON Schema; nested objects become named record
    types, string enums enum types. What has no AgentLTL type is declared `any` and reported.

    \b
    Exit status: 0 every tool declared exactly, 1 some part declared `any` (reported),
    2 unreadable input or a tool that cannot be declared (the others are still written).
    """
    from policyc.toolschema import import_tools
    from policyc.toolschema.render import render_declarations

    texts: dict[str, str] = {}
    documents: list[tuple[str, object]] = []
    unreadable = False
    for file in dict.fromkeys(files):  # a file named twice is one document (its tools are not declared twice)
        read = _read(file)
        if isinstance(read, str):
            click.echo(f"{file}: error: {read}", err=True)
            unreadable = True
            continue
        texts[file], value = read
        documents.append((file, value))
    imported = import_tools(documents)
    for file, problem in imported.problems:
        where = _where(file, texts[file], problem.path)
        click.echo(f"{where}{problem.severity}: {problem.message}", err=True)
    declared = {sig.name for sig, _ in imported.tools}
    unknown = [t for t in terminals if t not in declared]
    if unknown:
        click.echo(f"policyc: --terminal names `{unknown[0]}`, which no file declares", err=True)
        raise click.exceptions.Exit(EXIT_INPUT)
    tools = [(dataclasses.replace(sig, terminal=sig.name in terminals), text) for sig, text in imported.tools]
    if not tools:
        click.echo("policyc: no tool could be declared" if unreadable or imported.has_errors
                   else "policyc: the files declare no tools", err=True)
        raise click.exceptions.Exit(EXIT_INPUT)
    names = ", ".join(Path(f).name if f != "-" else "standard input" for f in files)
    text = render_declarations(tools, imported.types, [f"Tool declarations imported from {names} by "
                                                       "`policyc import-tools`."])
    if output == "-":
        click.echo(text, nl=False)
    else:
        write_output(output, text.encode("utf-8"), [f for f in files if f != "-"],  # a FIFO nobody reads: exit 2
                     writes_policy=True)
        click.echo(f"{printable(output)}: {len(tools)} tool(s), {len(imported.types)} named type(s)", err=True)
    if unreadable or imported.has_errors:
        raise click.exceptions.Exit(EXIT_INPUT)
    approximated = any(p.severity == "warning" for _, p in imported.problems)
    raise click.exceptions.Exit(EXIT_FINDINGS if approximated else EXIT_OK)
