"""`policyc compile POLICY -o FILE`: write the monitor artifact a deployed gate loads."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import click

from policyc.cli import EXIT_INPUT, EXIT_OK
from policyc.cli.common import FORMAT_TEXT_JSON, load_checked


def default_output(policy_path: str) -> str:
    """`code_qa.altl` -> `code_qa.policy.json`, next to the policy."""
    path = Path(policy_path)
    return str(path.with_name(path.stem + ".policy.json"))


@click.command("compile")
@click.argument("policy", type=click.Path(dir_okay=False))
@click.option("-o", "--output", type=click.Path(dir_okay=False, allow_dash=True), default=None,
              help="where to write the artifact (default: POLICY with the suffix .policy.json; "
                   "- for standard output, the summary then goes to standard error)")
@click.option("--format", "fmt", type=FORMAT_TEXT_JSON, default="text", show_default=True,
              help="text for people, json for machines")
def command(policy: str, output: str | None, fmt: str) -> None:
    """Compile POLICY into a self-contained monitor artifact (JSON).

    The artifact holds the tool signatures, the rules with their metadata and class, the
    automata the gate steps per call, and the formulas of rules scored only offline. Load it
    with `Monitor.load(FILE)` or replay a recorded run against it with `policyc replay`.

    \b
    Exit status: 0 written, 2 the policy has errors or the file cannot be written.
    """
    from policyc.artifact.build import build_artifact
    from policyc.artifact.io import dump_artifact, write_artifact

    checked, _ = load_checked(policy)
    artifact = build_artifact(checked)
    target = output or default_output(policy)
    try:
        if target == "-":
            click.echo(dump_artifact(artifact))
        else:
            write_artifact(artifact, target)
    except OSError as exc:
        click.echo(f"policyc: cannot write `{target}`: {exc.strerror or exc}", err=True)
        raise click.exceptions.Exit(EXIT_INPUT) from None
    classes = Counter(r.rule_class for r in artifact.rules)
    summary = {
        "artifact": target,
        "policy": artifact.policy.name,
        "rules": len(artifact.rules),
        "classes": {k: classes.get(k, 0) for k in ("gateable", "detectable", "offline-only")},
        "automata": len(artifact.automata),
        "source_hash": artifact.source_hash,
        "content_hash": artifact.content_hash,
    }
    to_stderr = target == "-"
    if fmt == "json":
        click.echo(json.dumps(summary, indent=2), err=to_stderr)
    else:
        counts = ", ".join(f"{n} {k}" for k, n in summary["classes"].items())
        click.echo(f"{target}: {summary['rules']} rules ({counts}), {summary['automata']} automata", err=to_stderr)
    raise click.exceptions.Exit(EXIT_OK)
