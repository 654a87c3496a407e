"""`policyc compile POLICY -o FILE`: write the monitor artifact a deployed gate loads."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import click

from policyc.cli import EXIT_INPUT, EXIT_OK
from policyc.cli.common import FORMAT_TEXT_JSON, budget_options, fail, load_checked, policy_files, write_output
from policyc.inputs import exists, is_dir
from policyc.terminal import printable


def default_output(policy_path: str) -> str:
    """`code_qa.altl` -> `code_qa.policy.json`, next to the policy."""
    path = Path(policy_path)
    return str(path.with_name(path.stem + ".policy.json"))


@click.command("compile")
@click.argument("policies", metavar="POLICY...", nargs=-1, required=True, type=click.Path())
@click.option("-o", "--output", type=click.Path(allow_dash=True), default=None,
              help="where to write the artifact (default: POLICY with the suffix .policy.json; "
                   "- for standard output, the summary then goes to standard error); "
                   "with several policies, a folder to write them all into")
@click.option("--format", "fmt", type=FORMAT_TEXT_JSON, default="text", show_default=True,
              help="text for people, json for machines")
@click.option("--sign-key-file", type=click.Path(dir_okay=False), default=None,
              help="sign each artifact (HMAC-SHA256) with the key in this file; Monitor.load(path, key=...) "
                   "then refuses an artifact not signed with it")
@budget_options
def command(policies: tuple[str, ...], output: str | None, fmt: str, sign_key_file: str | None) -> None:
    """Compile each POLICY (a folder: every .altl file below it) into a self-contained
    monitor artifact (JSON).

    The artifact holds the tool signatures, the rules with their metadata and class, the
    automata the gate steps per call, and the formulas of rules scored only offline. Load it
    with `Monitor.load(FILE)` or replay a recorded run against it with `policyc replay`.

    Extern predicates are recorded by name only: the program that loads the artifact binds
    them (`Monitor.load(FILE, externs={...})`, or `--extern` on `policyc score` and `replay`).

    \b
    Exit status: 0 written, 2 a policy has errors or a file cannot be written.
    """
    from policyc.artifact.errors import ArtifactError
    from policyc.artifact.io import read_key_file

    key = None
    if sign_key_file:
        try:
            key = read_key_file(sign_key_file)
        except ArtifactError as exc:
            fail(printable(str(exc)), exc.help)
    files = policy_files(policies)
    several = len(files) > 1 or any(is_dir(p) for p in policies)
    if several and output == "-":
        raise click.UsageError("-o - writes one artifact; give one policy, or -o a folder")
    if several and output is not None and exists(output) and not is_dir(output):
        raise click.UsageError(f"-o `{output}` is a file; with several policies give a folder")
    if several and output is not None:
        names = [Path(default_output(f)).name for f in files]
        clash = next((n for n in names if names.count(n) > 1), None)
        if clash is not None:
            raise click.UsageError(f"two policies would both be written to `{clash}` in `{output}`")
    summaries, failed = [], False
    for policy in files:
        target = output
        if several and output is not None:
            Path(output).mkdir(parents=True, exist_ok=True)
            target = str(Path(output) / Path(default_output(policy)).name)
        try:
            summaries.append(compile_one(policy, target or default_output(policy), fmt, key))
        except click.exceptions.Exit:
            if not several:
                raise
            failed = True
    if fmt == "json":
        click.echo(json.dumps(summaries if several else summaries[0], indent=2), err=output == "-")
    raise click.exceptions.Exit(EXIT_INPUT if failed else EXIT_OK)


def compile_one(policy: str, target: str, fmt: str, key: bytes | None = None) -> dict:
    """Compile one policy to `target` (never one of its own source files); its summary."""
    from policyc.artifact.build import build_artifact
    from policyc.artifact.io import dump_artifact
    from policyc.artifact.policy import compiled_of

    checked, _ = load_checked(policy)
    artifact = build_artifact(checked, key=key)
    if target == "-":
        click.echo(dump_artifact(artifact))
    else:
        write_output(target, (dump_artifact(artifact) + "\n").encode("utf-8"), [policy, *checked.sources])
    classes = Counter(r.rule_class for r in artifact.rules)
    limits = compiled_of(artifact).joint_limits()
    stepwise = judged_on_prefixes(checked, {r.name for r in artifact.rules if r.automaton is None})
    class_counts = {k: classes.get(k, 0) for k in ("gateable", "detectable", "offline-only")}
    # what the automata do not compile, and why (the gate judges these with the evaluator
    # where it can, the scorer at the end): the exception, rule by rule
    not_compiled = {r.name: r.offline_reason for r in artifact.rules if r.automaton is None}
    summary: dict[str, object] = {
        "artifact": target,
        "policy": artifact.policy.name,
        "rules": len(artifact.rules),
        "classes": class_counts,
        "automata": len(artifact.automata),
        "externs": [e.name for e in artifact.externs],
        "signed": artifact.signature is not None,
        "source_hash": artifact.source_hash,
        "content_hash": artifact.content_hash,
        "not_decided_jointly": limits,
        "not_compiled": not_compiled,
        "offline_only_judged_at_each_call": stepwise,
    }
    if fmt == "text":
        counts = ", ".join(f"{n} {k}" for k, n in class_counts.items())
        click.echo(f"{printable(target)}: {summary['rules']} rules ({counts}), {summary['automata']} automata"
                   + (", signed" if key is not None else ""), err=target == "-")
    if fmt == "text":  # in JSON, the summary's `not_compiled` says it
        for name, reason in not_compiled.items():
            click.echo(f"note: rule `{printable(name)}` is not compiled: {printable(str(reason))}", err=True)
    for note in joint_limit_notes(limits):
        click.echo(note, err=True)
    if stepwise:
        names = ", ".join(f"`{printable(n)}`" for n in stepwise)
        one = len(stepwise) == 1
        click.echo(f"note: {names} {'has' if one else 'have'} no automaton (offline-only), yet the gate judges "
                   f"{'it' if one else 'them'} at each proposal on the reference evaluator and refuses a call after "
                   f"which {'it' if one else 'one'} can no longer hold", err=True)
    if artifact.externs:
        names = ", ".join(f"`{printable(e.name)}`" for e in artifact.externs)
        click.echo(f"note: extern predicates {names} are recorded by name: the program that loads the "
                   "artifact binds them", err=True)
    return summary


def judged_on_prefixes(policy, offline: set[str]) -> list[str]:
    """The offline-only rules (no automaton) that the gate still decides call by call: those
    whose failure on a prefix is final and that do not read the metrics record
    (`policyc.runtime.judge_final` evaluates them at each proposal)."""
    from policyc.ir import nodes as n
    from policyc.ir.walk import subformulas
    from policyc.scoring.certain import is_final_on_prefixes

    return [r.name for r in policy.rules if r.name in offline and is_final_on_prefixes(r.formula)
            and not any(isinstance(s, n.Metric) for s in subformulas(r.formula))]


def joint_limit_notes(limits: dict[str, list[str]]) -> list[str]:
    """What the gate's joint conflict search cannot settle (`CompiledPolicy.joint_limits`), as
    notes for a terminal: `compile` and `lint` both say it."""
    notes = [f"note: the guards on `{printable(tool)}` combine in more ways than the compiler enumerates: "
             "a conflict among the rules guarding it is reported as undecided, not refused"
             for tool in limits["tools_over_budget"]]
    notes += [f"note: the solver cannot see into some guards on `{printable(tool)}` (extern predicates, "
              "membership, arithmetic): a conflict that needs them is reported as undecided"
              for tool in limits["tools_not_understood"]]
    if limits["per_value_rules"]:
        reasons = limits.get("per_value_reasons") or [""] * len(limits["per_value_rules"])
        names = ", ".join(f"`{printable(n)}`" + (f" ({why})" if why else "")
                          for n, why in zip(limits["per_value_rules"], reasons))
        many = len(limits["per_value_rules"]) > 1
        notes.append(f"note: {names} {'are' if many else 'is'} judged apart (per value): the joint search does not "
                     f"read {'them' if many else 'it'}, so a decision that may set "
                     f"{'one' if many else 'it'} in conflict with other rules lists it as undecided")
    return notes
