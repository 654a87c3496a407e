"""`policyc compile POLICY -o FILE`: write the monitor artifact a deployed gate loads."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import click

from policyc.cli import EXIT_OK
from policyc.cli.common import FORMAT_TEXT_JSON, fail, load_checked, write_output
from policyc.terminal import printable


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
@click.option("--sign-key-file", type=click.Path(dir_okay=False), default=None,
              help="sign the artifact (HMAC-SHA256) with the key in this file; Monitor.load(path, key=...) "
                   "then refuses an artifact not signed with it")
def command(policy: str, output: str | None, fmt: str, sign_key_file: str | None) -> None:
    """Compile POLICY into a self-contained monitor artifact (JSON).

    The artifact holds the tool signatures, the rules with their metadata and class, the
    automata the gate steps per call, and the formulas of rules scored only offline. Load it
    with `Monitor.load(FILE)` or replay a recorded run against it with `policyc replay`.

    Extern predicates are recorded by name only: the program that loads the artifact binds
    them (`Monitor.load(FILE, externs={...})`, or `--extern` on `policyc score` and `replay`).

    \b
    Exit status: 0 written, 2 the policy has errors or the file cannot be written.
    """
    from policyc.artifact.build import build_artifact
    from policyc.artifact.errors import ArtifactError
    from policyc.artifact.io import dump_artifact, read_key_file

    key = None
    if sign_key_file:
        try:
            key = read_key_file(sign_key_file)
        except ArtifactError as exc:
            fail(printable(str(exc)), exc.help)
    checked, _ = load_checked(policy)
    artifact = build_artifact(checked, key=key)
    target = output or default_output(policy)
    if target == "-":
        click.echo(dump_artifact(artifact))
    else:
        write_output(target, (dump_artifact(artifact) + "\n").encode("utf-8"), [policy, *checked.sources])
    classes = Counter(r.rule_class for r in artifact.rules)
    summary = {
        "artifact": target,
        "policy": artifact.policy.name,
        "rules": len(artifact.rules),
        "classes": {k: classes.get(k, 0) for k in ("gateable", "detectable", "offline-only")},
        "automata": len(artifact.automata),
        "externs": [e.name for e in artifact.externs],
        "signed": artifact.signature is not None,
        "source_hash": artifact.source_hash,
        "content_hash": artifact.content_hash,
    }
    to_stderr = target == "-"
    if fmt == "json":
        click.echo(json.dumps(summary, indent=2), err=to_stderr)
    else:
        counts = ", ".join(f"{n} {k}" for k, n in summary["classes"].items())
        click.echo(f"{printable(target)}: {summary['rules']} rules ({counts}), {summary['automata']} automata"
                   + (", signed" if key is not None else ""), err=to_stderr)
        if artifact.externs:
            names = ", ".join(f"`{e.name}`" for e in artifact.externs)
            click.echo(f"note: extern predicates {names} are recorded by name: the program that loads the "
                       "artifact binds them", err=True)
    raise click.exceptions.Exit(EXIT_OK)
