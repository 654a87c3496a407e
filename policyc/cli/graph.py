"""`policyc graph POLICY [--rule R] [--format dot|svg|png] [-o FILE]`: draw a rule's automaton."""

from __future__ import annotations

import shutil
import subprocess
import sys

import click

from policyc.cli import EXIT_INPUT, EXIT_OK
from policyc.cli.common import budget_options, load_checked, write_output
from policyc.cli.config import command_line_wins
from policyc.terminal import printable


def pick_rules(policy, rule: str | None) -> list:
    if rule is None:
        return list(policy.rules)
    try:
        return [policy.rule(rule)]
    except KeyError:
        from policyc.check.suggest import closest

        best = closest(rule, [r.name for r in policy.rules])
        names = ", ".join(f"`{r.name}`" for r in policy.rules)
        hint = f"did you mean `{best}`?" if best else f"its rules: {names}"
        click.echo(f"policyc: no rule `{printable(rule)}` in the policy ({printable(hint)})", err=True)
        raise click.exceptions.Exit(EXIT_INPUT) from None


@click.command("graph")
@click.argument("policy", type=click.Path(dir_okay=False))
@click.option("--rule", "rule", default=None, help="the rule to draw (default: every compiled rule)")
@click.option("--rules", "rules_graph", is_flag=True,
              help="the rule dependency graph instead: rules linked by shared tools, tool precedence, cycles")
@click.option("--format", "fmt", type=click.Choice(["dot", "svg", "png", "text", "json"]), default=None,
              help="dot (the default) needs nothing else; svg and png need graphviz's `dot` program; "
                   "text and json only with --rules")
@click.option("-o", "--output", type=click.Path(dir_okay=False), default=None, help="write here instead of stdout")
@budget_options
def command(policy: str, rule: str | None, rules_graph: bool, fmt: str | None, output: str | None) -> None:
    """Draw the minimal automaton of a rule of POLICY, or with --rules its rule dependency graph.

    States show their verdict (open, satisfied for good, violated for good; a double circle
    accepts: the run may end there) and their residual formula, what is still to be done.
    Edges show the calls that take them: a tool name, a guard such as
    `refund(amount > 100)`, or `*` for any tool the rule does not name.

    With --rules: rules are linked when they name a common tool (components: the groups of
    rules that constrain the same calls), and `a -> b` when a rule requires a call to `a`
    before any call to `b`. A cycle of such edges means none of its tools can ever be called.

    \b
    Exit status: 0 drawn, 1 the rule is not compiled (scored offline only) or, with --rules,
    the precedence graph has a cycle, 2 input error.
    """
    from policyc.automata import NotCompilable, compile_rule
    from policyc.automata.budget import naming_rule
    from policyc.automata.render import to_dot

    dropped = command_line_wins(click.get_current_context(), "rule", "rules_graph")
    rule, rules_graph = None if "rule" in dropped else rule, rules_graph and "rules_graph" not in dropped
    if fmt in ("text", "json") and not rules_graph:
        raise click.UsageError(f"--format {fmt} needs --rules (an automaton is drawn as dot, svg or png)")
    if rules_graph and rule is not None:
        raise click.UsageError("--rule and --rules cannot be used together")
    fmt = fmt or "dot"
    checked, _ = load_checked(policy)
    if rules_graph:
        from policyc.cli.rule_graph import show_rule_graph

        show_rule_graph(checked, fmt, output, _render, inputs=[policy, *checked.sources])
    graphs, skipped = [], []
    for r in pick_rules(checked, rule):
        try:
            with naming_rule(r.name):
                graphs.append(to_dot(compile_rule(r.formula, checked.tools), r.name))
        except NotCompilable as exc:
            skipped.append((r.name, exc.reason))
    for name, reason in skipped:
        click.echo(f"policyc: rule `{printable(name)}` is not compiled: {printable(reason)}", err=True)
    if not graphs:
        raise click.exceptions.Exit(1)
    text = "".join(graphs) if len(graphs) == 1 else _merge(graphs)
    data = text.encode() if fmt == "dot" else _render(text, fmt)
    if output:
        write_output(output, data, [policy, *checked.sources])
    elif fmt == "png":
        sys.stdout.buffer.write(data)
    else:
        click.echo(data.decode(), nl=False)
    raise click.exceptions.Exit(EXIT_OK)


def _merge(graphs: list[str]) -> str:
    """Several rules in one drawing: each graph becomes a cluster."""
    out = ["digraph policy {", "  rankdir=LR;"]
    for i, g in enumerate(graphs):
        body = g.split("\n", 1)[1].rsplit("}", 1)[0]
        body = body.replace("  q", f"  r{i}q").replace("-> q", f"-> r{i}q")
        out.append(f"  subgraph cluster_rule{i} {{\n{body}  }}")
    out.append("}")
    return "\n".join(out) + "\n"


def _render(dot_text: str, fmt: str) -> bytes:
    program = shutil.which("dot")
    if program is None:
        click.echo(f"policyc: --format {fmt} needs graphviz's `dot` program, which is not installed; "
                   "install graphviz (Debian: apt-get install graphviz) or use --format dot", err=True)
        raise click.exceptions.Exit(EXIT_INPUT)
    done = subprocess.run([program, f"-T{fmt}"], input=dot_text.encode(), capture_output=True, check=False)
    if done.returncode != 0:
        click.echo(f"policyc: `dot` failed: {printable(done.stderr.decode(errors='replace').strip())}", err=True)
        raise click.exceptions.Exit(EXIT_INPUT)
    return done.stdout
