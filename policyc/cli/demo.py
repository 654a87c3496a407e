"""`policyc demo`: the whole pipeline on the bundled code-QA example, stage by stage."""

from __future__ import annotations

import click

from policyc.cli import EXIT_OK


def _stage(title: str) -> None:
    click.secho(f"\n== {title}", bold=True)


@click.command("demo")
def command() -> None:
    """Run check on the bundled example and show each stage's output."""
    from policyc.check import check_file
    from policyc.resources import examples_dir

    policy_path = examples_dir() / "code_qa.altl"
    _stage(f"check {policy_path.name}")
    policy, diagnostics = check_file(policy_path)
    if policy is None:
        raise click.ClickException("the bundled example does not check; the installation is broken")
    for rule in policy.rules:
        click.echo(f"  {rule.name:<14} {rule.layer or '-':<3} weight {rule.weight:g}  {rule.formula}")
    raise click.exceptions.Exit(EXIT_OK)
