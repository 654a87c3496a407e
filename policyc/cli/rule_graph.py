"""`policyc graph POLICY --rules`: the rule dependency graph as text, JSON or a drawing."""

from __future__ import annotations

import json
import sys
from typing import Sequence

import click

from policyc.cli import EXIT_FINDINGS, EXIT_OK
from policyc.cli.common import write_output


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def to_dot(graph) -> str:
    """Rules (boxes) joined to the tools they name (dashed), and precedence edges between tools."""
    out = ["digraph rules {", "  rankdir=LR;", "  node [fontname=Helvetica, fontsize=11];"]
    for rule in graph.rules:
        out.append(f"  {_quote('rule:' + rule)} [label={_quote(rule)}, shape=box, style=rounded];")
    tools = sorted({t for ts in graph.rules.values() for t in ts})
    in_cycle = {(p.before, p.after) for cycle in graph.cycles for p in cycle}
    for tool in tools:
        out.append(f"  {_quote('tool:' + tool)} [label={_quote(tool)}, shape=ellipse];")
    for rule, ts in graph.rules.items():
        for tool in ts:
            out.append(f"  {_quote('rule:' + rule)} -> {_quote('tool:' + tool)} [style=dashed, arrowhead=none];")
    for p in graph.precedence:
        colour = ", color=red" if (p.before, p.after) in in_cycle else ""
        out.append(f"  {_quote('tool:' + p.before)} -> {_quote('tool:' + p.after)} [label={_quote(p.rule)}{colour}];")
    out.append("}")
    return "\n".join(out) + "\n"


def to_text(graph) -> str:
    lines = [f"{len(graph.rules)} rules in {len(graph.components)} "
             f"group{'s' if len(graph.components) != 1 else ''} (rules that name a common tool, transitively):"]
    for component in graph.components:
        tools = sorted({t for r in component for t in graph.rules[r]})
        lines.append(f"  {', '.join(component)}  (tools: {', '.join(tools) or 'none'})")
    lines.append("precedence (a rule requires a call to A before any call to B):")
    lines.extend(f"  {p.before} -> {p.after}  ({p.rule})" for p in graph.precedence)
    if not graph.precedence:
        lines.append("  none")
    for rule, reason in graph.not_analysed.items():
        lines.append(f"  `{rule}` gives none: {reason}")
    if graph.cycles:
        lines.append("cycles (a run that satisfies these rules calls none of these tools):")
        for cycle in graph.cycles:
            path = " -> ".join([cycle[0].before, *(p.after for p in cycle)])
            lines.append(f"  {path}  ({', '.join(dict.fromkeys(p.rule for p in cycle))})")
    else:
        lines.append("cycles: none")
    return "\n".join(lines) + "\n"


def show_rule_graph(policy, fmt: str, output: str | None, render, inputs: Sequence[str] = ()) -> None:
    from policyc.lint.rule_graph import rule_graph

    graph = rule_graph(policy)
    if fmt == "json":
        data = (json.dumps(graph.to_json(), indent=2, ensure_ascii=False) + "\n").encode()
    elif fmt == "text":
        data = to_text(graph).encode()
    else:
        dot = to_dot(graph)
        data = dot.encode() if fmt == "dot" else render(dot, fmt)
    if output:
        write_output(output, data, inputs)  # never over an input; a missing folder is an input error
    elif fmt == "png":
        sys.stdout.buffer.write(data)
    else:
        click.echo(data.decode(), nl=False)
    raise click.exceptions.Exit(EXIT_FINDINGS if graph.cycles else EXIT_OK)
