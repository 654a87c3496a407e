"""`policyc explain POLICY --rule R`: a rule's class, its shortest bad prefixes, its shortest satisfying trace."""

from __future__ import annotations

import json

import click

from policyc.cli import EXIT_OK
from policyc.cli.common import FORMAT_TEXT_JSON, budget_options, load_checked
from policyc.cli.graph import pick_rules
from policyc.terminal import printable_block


#: Characters of a rule's formula, written out, that explain prints (deep parts elided as `…`).
FORMULA_CHARS = 10_000


def explain_rule(rule, tools) -> dict:
    from policyc.automata import NotCompilable, classify, compile_rule
    from policyc.automata.budget import naming_rule
    from policyc.automata.render import bad_prefixes, part_dfas
    from policyc.ir.printer import show

    with naming_rule(rule.name):
        cls = classify(rule.formula, tools)
    # a rule whose macros share pieces can be exponentially long written out: elided past a page
    out = {"rule": rule.name, "source": rule.source, "formula": show(rule.formula, limit=FORMULA_CHARS), "class": cls.kind,
           "enforceable": cls.is_enforceable, "gateable": cls.is_gateable, "liveness": cls.is_liveness,
           "safety": cls.is_safety, "reason": cls.reason, "parts": []}
    try:
        with naming_rule(rule.name):
            auto = compile_rule(rule.formula, tools)
    except NotCompilable:
        return out
    for title, dfa, start in part_dfas(auto):
        shortest = dfa.shortest_continuation(start)
        out["parts"].append({
            "title": title,
            "states": dfa.size,
            "bad_prefixes": bad_prefixes(dfa, start=start),
            "shortest_satisfying": None if shortest is None else [dfa.alphabet.describe(l) for l in shortest],
        })
    return out


def render(info: dict) -> str:
    flags = ", ".join(f"{k}: {'yes' if info[k] else 'no'}" for k in ("enforceable", "gateable", "liveness", "safety"))
    written = info["source"].split(":\n", 1)[-1].strip() if info["source"] else ""
    lines = [f"rule `{info['rule']}`" + (f": {' '.join(written.split())}" if written else ""),
             f"  formula: {info['formula']}",
             f"  class: {info['class']} ({flags})",
             f"  why: {info['reason']}"]
    for part in info["parts"]:
        indent = "  "
        if part["title"]:
            lines.append(f"  {part['title']}:")
            indent = "    "
        lines.append(f"{indent}automaton: {part['states']} states")
        bad = part["bad_prefixes"]
        if not bad:
            lines.append(f"{indent}bad prefixes: none (no finite prefix makes a violation certain)")
        else:
            lines.append(f"{indent}bad prefixes of minimal length ({len(bad[0])} call{'s' if len(bad[0]) != 1 else ''}):")
            lines.extend(f"{indent}  {' -> '.join(p) or '(the empty run: the rule is unsatisfiable)'}" for p in bad)
        sat = part["shortest_satisfying"]
        if sat is None:
            lines.append(f"{indent}shortest satisfying trace: none (no run satisfies the rule)")
        else:
            lines.append(f"{indent}shortest satisfying trace: {' -> '.join(sat) or '(the empty run)'}")
    return "\n".join(lines) + "\n"


@click.command("explain")
@click.argument("policy", type=click.Path(dir_okay=False))
@click.option("--rule", "rule", default=None, help="the rule to explain (default: every rule)")
@click.option("--format", "fmt", type=FORMAT_TEXT_JSON, default="text", show_default=True,
              help="text for people, json for machines")
@budget_options
def command(policy: str, rule: str | None, fmt: str) -> None:
    """Explain how a rule of POLICY can be enforced.

    Prints its class: gateable (the gate can refuse a call that would make a violation
    certain), detectable (a violation becomes certain only once a call's result is known) or
    offline-only (liveness: no prefix is ever hopeless, so the rule is judged when the run
    ends); its bad prefixes of minimal length; and its shortest satisfying trace. Calls are
    written as tool names with guards; `*` is any tool the rule does not name.

    \b
    Exit status: 0 explained, 2 input error.
    """
    checked, _ = load_checked(policy)
    infos = [explain_rule(r, checked.tools) for r in pick_rules(checked, rule)]
    if fmt == "json":
        click.echo(json.dumps(infos if rule is None else infos[0], indent=2, ensure_ascii=False))
    else:
        click.echo(printable_block("\n".join(render(i) for i in infos)), nl=False)
    raise click.exceptions.Exit(EXIT_OK)
