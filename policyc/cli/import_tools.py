"""`policyc import-tools FILE...`: tool declarations from OpenAI or MCP tool schemas (JSON)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import click

from policyc.cli import EXIT_FINDINGS, EXIT_INPUT, EXIT_OK
from policyc.cli.common import write_output
from policyc.terminal import printable
from policyc.inputs import InputError, read_input


def _read(path: str) -> tuple[str, list[tuple[int, object]]] | str:
    """(text, [(offset, value)]) of a JSON file (one value at offset 0) or a JSON Lines file
    (a value per line, as BFCL ships its function docs), or what is wrong with it."""
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
    value, problem, line = _decoded(text)
    if problem is None:
        return text, [(0, value)]
    if problem != "extra data":
        return f"line {line}: {problem}" if problem.startswith("it is not JSON") else problem
    values: list[tuple[int, object]] = []
    offset = 0
    for n, text_line in enumerate(text.split("\n"), 1):  # JSON Lines: one value per line
        if text_line.strip():
            value, problem, _ = _decoded(text_line)
            if problem is not None:
                return f"line {n}: " + problem.replace("it is not JSON", "it is neither JSON nor JSON Lines")
            values.append((offset, value))
        offset += len(text_line) + 1
    return text, values


def _decoded(text: str) -> tuple[object, str | None, int]:
    """(value, None, 0), or (None, what is wrong, the line it is on) by the strict reader of
    JSON (`jsontext.decode`: no NaN, no number too large for a double, no half of a surrogate
    pair, which no output can hold); the problem is "extra data" when more values follow."""
    from policyc.jsontext import decode, line_of

    value, problem, at = decode(text)
    if problem is None:
        return value, None, 0
    line = line_of(text, at) if at is not None else 1
    if problem == "invalid JSON: extra data":
        return None, "extra data", line
    if "nested more than" in problem:
        return None, "it is nested too deeply to read", line
    if "digits" in problem:
        return None, "it holds a number too long to read (thousands of digits)", line
    return None, f"it is not JSON: {problem.removeprefix('invalid JSON: ')}", line


def _where(file: str, text: str, offset: int, path: tuple) -> str:
    from policyc.trace.errors import field_path
    from policyc.jsontext import line_of, locate

    line = line_of(text, locate(text, offset, path))
    shown = field_path(path)
    return f"{printable(file)}:{line}: " + (f"`{shown}`: " if shown else "")


@click.command("import-tools")
@click.argument("files", nargs=-1, required=True)
@click.option("-o", "--output", type=click.Path(dir_okay=False, allow_dash=True), default="-", show_default=True,
              help="where to write the declarations (- for standard output)")
@click.option("--terminal", "terminals", multiple=True, metavar="TOOL",
              help="declare this tool `terminal` (the final answer; repeatable)")
@click.option("--force", is_flag=True, help="replace OUT when it is an existing policy source (`.altl`)")
def command(files: tuple[str, ...], output: str, terminals: tuple[str, ...], force: bool) -> None:
    """Write `.altl` tool declarations for the tools in FILES (JSON; - for standard input).

    \b
    Reads OpenAI function tools (chat `tools`, Responses `tools`, bare function objects), MCP
    tool lists (`inputSchema`, `outputSchema`) and Gorilla/BFCL function docs (`parameters`,
    `response`, types such as `dict`, `float`, `tuple`), alone, in arrays, in request bodies
    or one per line (JSON Lines). Argument and result types come from JSON Schema; nested
    objects become named record types, string enums enum types. What has no AgentLTL type is
    declared `any` and reported. A tool declared twice with different signatures is an error
    (the first is kept), never a merge.

    \b
    Exit status: 0 every tool declared exactly, 1 some part declared `any` (reported),
    2 unreadable input or a tool that cannot be declared (the others are still written).
    """
    from policyc.toolschema import import_tools
    from policyc.toolschema.render import render_declarations

    texts: dict[str, str] = {}
    documents: list[tuple[tuple[str, int], object]] = []
    unreadable = False
    for file in files:
        read = _read(file)
        if isinstance(read, str):
            click.echo(f"{printable(file)}: error: {read}", err=True)
            unreadable = True
            continue
        texts[file], values = read
        documents.extend(((file, offset), value) for offset, value in values)

    def where(label: tuple[str, int], path: tuple) -> str:
        return _where(label[0], texts[label[0]], label[1], path).split(": ")[0]  # file:line

    imported = import_tools(documents, where)
    for (file, offset), problem in imported.problems:
        click.echo(f"{_where(file, texts[file], offset, problem.path)}{problem.severity}: {problem.message}", err=True)
    if imported.problems or imported.repeated:
        click.echo(f"policyc: {imported.summary()}", err=True)
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
                     writes_policy=True, force=force)
        click.echo(f"{printable(output)}: {len(tools)} tool(s), {len(imported.types)} named type(s)", err=True)
    if unreadable or imported.has_errors:
        raise click.exceptions.Exit(EXIT_INPUT)
    approximated = any(p.severity == "warning" for _, p in imported.problems)
    raise click.exceptions.Exit(EXIT_FINDINGS if approximated else EXIT_OK)
