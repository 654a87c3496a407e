"""`policyc infer-tools TRACES...`: tool declarations inferred from recorded traces."""

from __future__ import annotations

import click

from policyc.cli import EXIT_FINDINGS, EXIT_INPUT, EXIT_OK
from policyc.cli.common import write_output
from policyc.terminal import printable
from policyc.trace.formats import FORMATS


@click.command("infer-tools")
@click.argument("traces", nargs=-1, required=True)
@click.option("-o", "--output", type=click.Path(dir_okay=False, allow_dash=True), default="-", show_default=True,
              help="where to write the declarations (- for standard output)")
@click.option("--terminal", "terminals", multiple=True, metavar="TOOL",
              help="declare this tool `terminal` (the final answer; repeatable)")
@click.option("--input-format", default="auto", show_default=True, type=click.Choice(["auto", *FORMATS]),
              help="how to read each trace record; auto detects it from the record's shape")
@click.option("--force", is_flag=True, help="replace OUT when it is an existing policy source (`.altl`)")
def command(traces: tuple[str, ...], output: str, terminals: tuple[str, ...], input_format: str,
            force: bool) -> None:
    """Write `.altl` tool declarations for the tools the agent called in TRACES (files,
    folders, or - for standard input; every format `policyc score` reads).

    \b
    Each tool is declared with every argument it was called with, typed by the values seen
    (`int` and `float` together are `float`), optional when some call left it out or passed
    null; its result typed by the results recorded (objects as records, a field some result
    lacks optional). A place where values of different types were seen is declared `any` and
    reported. Nothing is made an enum: a rule can say more.

    \b
    Exit status: 0 every place typed, 1 some place declared `any` (reported), 2 unreadable
    input or malformed records (reported; the other records are still read), or no calls.
    """
    from policyc.toolschema.infer import infer_tools
    from policyc.toolschema.render import render_declarations
    from policyc.trace import TraceError, iter_traces

    malformed: list[TraceError] = []

    def readable():
        for item in iter_traces(traces, input_format):
            if isinstance(item, TraceError):
                malformed.append(item)
                click.echo(f"{printable(str(item))}", err=True)
            else:
                yield item

    inferred = infer_tools(readable(), terminals)
    for problem in inferred.problems:
        click.echo(f"policyc: {problem.severity}: {printable(problem.message)}", err=True)
    declared = {sig.name for sig, _ in inferred.tools}
    unknown = [t for t in terminals if t not in declared]
    if unknown:
        click.echo(f"policyc: --terminal names `{printable(unknown[0])}`, which no trace calls", err=True)
        raise click.exceptions.Exit(EXIT_INPUT)
    if not inferred.tools:
        click.echo("policyc: the traces hold no calls of the agent's tools" + (
            f" ({len(malformed)} malformed record(s))" if malformed else ""), err=True)
        raise click.exceptions.Exit(EXIT_INPUT)
    header = [f"Tool declarations inferred by `policyc infer-tools` from {inferred.calls} call(s) in "
              f"{inferred.traces} trace(s)."]
    text = render_declarations(inferred.tools, [], header)
    if output == "-":
        click.echo(text, nl=False)
    else:
        write_output(output, text.encode("utf-8"), [t for t in traces if t != "-"], writes_policy=True, force=force)
        click.echo(f"{printable(output)}: {len(inferred.tools)} tool(s)", err=True)
    if malformed:
        click.echo(f"policyc: {len(malformed)} malformed record(s) were not read", err=True)
        raise click.exceptions.Exit(EXIT_INPUT)
    if any(p.severity == "error" for p in inferred.problems):
        raise click.exceptions.Exit(EXIT_INPUT)
    raise click.exceptions.Exit(EXIT_FINDINGS if inferred.problems else EXIT_OK)
