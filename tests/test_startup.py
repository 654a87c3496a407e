"""The command line starts light: `policyc --help` imports no subcommand, `policyc check`
none of the solver, numpy, networkx, rich or pydantic (what each costs in CPU is measured by
benchmarks/startup.py and stated in docs/performance.md; no test times anything)."""

from __future__ import annotations

import json
import subprocess
import sys

import click

from policyc.cli import COMMANDS, cli

PROBE = """
import json, sys
from policyc.cli import main
sys.argv = ["policyc", *sys.argv[1:]]
try:
    main()
except SystemExit:
    pass
print(json.dumps(sorted(sys.modules)), file=sys.stderr)
"""


def modules_after(*argv: str) -> set[str]:
    done = subprocess.run([sys.executable, "-c", PROBE, *argv], capture_output=True, text=True, timeout=120)
    return set(json.loads(done.stderr.strip().splitlines()[-1]))


def test_help_imports_no_subcommand_and_lists_every_one():
    loaded = modules_after("--help")
    # policyc.inputs (the standard library alone): every command first checks the limits set in the environment
    assert {m for m in loaded if m.startswith("policyc")} == {"policyc", "policyc.cli", "policyc.inputs",
                                                               "policyc.recursion"}
    for name, (module, summary) in COMMANDS.items():  # the summaries stand for commands that exist
        command = cli.get_command(click.Context(cli), name)
        assert isinstance(command, click.Command) and command.name == name, module
        assert summary and summary[0].islower() and not summary.endswith(".")


def test_check_imports_neither_the_solver_nor_the_heavy_libraries():
    loaded = modules_after("check", "examples/code_qa.altl")
    assert "policyc.check" in loaded
    assert not loaded & {"z3", "numpy", "networkx", "rich", "pydantic", "policyc.automata", "policyc.smt"}
