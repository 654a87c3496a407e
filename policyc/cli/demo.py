"""`policyc demo`: the whole pipeline on the bundled code-QA policy, stage by stage.

check -> lint -> compile -> score -> a gated run, each by the same command a user would
type, on `examples/code_qa.altl` (the AgentLTL paper's figure 1) and its two traces.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from contextlib import contextmanager
from pathlib import Path

import click

from policyc.cli import EXIT_FINDINGS, EXIT_OK


@contextmanager
def _inside(folder: Path):
    """Run the block with `folder` as the working directory."""
    previous = os.getcwd()
    os.chdir(folder)
    try:
        yield
    finally:
        os.chdir(previous)


def _stage(title: str, command_line: str) -> None:
    click.secho(f"\n== {title}", bold=True)
    click.secho(f"$ {command_line}", dim=True)


def _run(ctx: click.Context, name: str, *args: str) -> int:
    """Run a subcommand with these command-line arguments, as the CLI would; its exit status."""
    from policyc.cli import cli

    command = cli.get_command(ctx, name)
    assert command is not None, name  # the demo runs the CLI's own subcommands
    try:
        with command.make_context(name, list(args), parent=ctx) as sub:
            command.invoke(sub)
    except click.exceptions.Exit as done:
        return done.exit_code
    return EXIT_OK


def _gated_run(artifact: Path) -> bool:
    """An agent that answers first, is refused, then does the work: the Monitor API."""
    from policyc.runtime import Monitor

    run = Monitor.load(artifact).start()
    answer = {"answer": "request is defined in src/requests/api.py"}
    script = [
        ("final_answer", answer, None),
        ("search", {"query": "def request"}, ["src/requests/api.py"]),
        ("read_file", {"path": "src/requests/api.py"},
         {"src/requests/api.py": "def request(method, url, **kwargs):\n    return session.request(method, url)\n"}),
        ("final_answer", answer, None),
    ]
    for tool, args, result in script:
        decision = run.propose(tool, args)
        colour = {"allow": "green", "warn": "yellow"}.get(decision.action, "red")
        click.echo(f"  propose {tool:<13} -> " + click.style(decision.action, fg=colour, bold=True)
                   + (f"  ({', '.join(decision.rules)})" if decision.rules else ""))
        if decision.message and not decision.executes:
            for line in decision.message.splitlines():
                click.secho(f"      {line}", dim=True)
        if decision.executes:
            run.record(tool, args, result)
    report = run.finish()
    click.echo(f"  finished: compliance {report.compliance_score:.3f} ({report.compliance_label})")
    return report.compliance_label == "FULL"


@click.command("demo")
@click.pass_context
def command(ctx: click.Context) -> None:
    """Run check, lint, compile, score and a gated run on the bundled code-QA example.

    \b
    Exit status: 0 when every stage behaved as the example intends (the policy is clean,
    the compliant trace scores 1.0, the shortcut trace is caught, the gated run complies).
    """
    from policyc.resources import examples_dir

    examples = examples_dir()
    ok = True
    with tempfile.TemporaryDirectory() as folder, _inside(Path(folder)):
        # a copy of the example in a scratch folder: every command runs as shown, on relative paths
        shutil.copy(examples / "code_qa.altl", "code_qa.altl")
        Path("traces").mkdir()
        shutil.copy(examples / "traces" / "code_qa.jsonl", "traces/code_qa.jsonl")
        policy, traces, artifact = "code_qa.altl", "traces/code_qa.jsonl", "code_qa.policy.json"

        _stage("check: parse, resolve and type-check the policy", f"policyc check {policy}")
        ok &= _run(ctx, "check", policy) == EXIT_OK

        _stage("lint: prove it consistent (Z3 and the automata)", f"policyc lint {policy}")
        ok &= _run(ctx, "lint", policy) == EXIT_OK

        _stage("compile: the monitor artifact a deployed gate loads", f"policyc compile {policy} -o {artifact}")
        ok &= _run(ctx, "compile", policy, "-o", artifact) == EXIT_OK

        _stage("score: three recorded runs (figure 1's two, and a refusal)", f"policyc score {policy} {traces}")
        # trace_b answers from memory: the score must catch it (exit 1)
        ok &= _run(ctx, "score", policy, traces) == EXIT_FINDINGS

        _stage("replay: what the gate would have done on those runs",
               f"policyc replay {artifact} {traces} --mode block")
        _run(ctx, "replay", artifact, traces, "--mode", "block")

        _stage("gate: an agent run through the Monitor API, call by call", f"Monitor.load({artifact!r}).start()")
        ok &= _gated_run(Path(artifact))

    click.secho("\nall stages behaved as expected" if ok else "\nsome stage did not behave as expected",
                fg="green" if ok else "red", bold=True)
    raise click.exceptions.Exit(EXIT_OK if ok else EXIT_FINDINGS)
