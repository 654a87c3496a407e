"""The `policyc` command: one file per subcommand, loaded on demand.

Exit codes, for every subcommand:
  0  success: the input is clean, compliant or allowed
  1  findings: errors in a policy, rule violations, lint findings at or above the threshold
  2  usage or input error: a bad option, an unreadable or malformed file
  3  internal error: a bug in policyc (reported without a traceback; set POLICYC_DEBUG=1 to see it)
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys

import click

from policyc import __version__

EXIT_OK, EXIT_FINDINGS, EXIT_INPUT, EXIT_INTERNAL = 0, 1, 2, 3

#: command name -> (module under policyc.cli defining a click command of that name, what it does);
#: `policyc --help` lists the commands from here, without importing any of them
COMMANDS = {
    "check": ("check", "parse, resolve and type-check policies"),
    "fmt": ("fmt", "the canonical form of policies"),
    "lint": ("lint", "prove a policy consistent: conflicts, redundancy, vacuity, dead tools"),
    "compile": ("compile", "the monitor artifact a deployed gate loads"),
    "score": ("score", "compliance reports of recorded traces, and their aggregate"),
    "replay": ("replay", "what the gate would have decided, call by call, on recorded runs"),
    "report": ("report", "one self-contained HTML page about a policy and its runs"),
    "conformance": ("conformance", "single tool calls against their registry and request (SAAG)"),
    "graph": ("graph", "a rule's automaton, or the graph of the rules"),
    "explain": ("explain", "how a rule can be enforced: its class and bad prefixes"),
    "bench": ("bench", "the AgentLTL benchmark: instances, gold traces, tables"),
    "demo": ("demo", "the whole pipeline on the bundled code-QA example"),
    "test": ("test", "run the unit tests of policies"),
    "lsp": ("lsp", "the language server for editors"),
    "import-tools": ("import_tools", "tool declarations from OpenAI, MCP or BFCL tool schemas"),
    "infer-tools": ("infer_tools", "tool declarations inferred from recorded traces"),
    "assure": ("assure", "the assurance ledger of a deployment's evidence"),
    "gateway": ("gateway", "an MCP gateway that gates every tool call"),
}


class LazyGroup(click.Group):
    def _available(self) -> dict[str, str]:
        return {name: mod for name, (mod, _) in COMMANDS.items()
                if importlib.util.find_spec(f"policyc.cli.{mod}") is not None}

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(self._available())

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        module = self._available().get(name)
        if module is None:
            return None
        return importlib.import_module(f"policyc.cli.{module}").command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The command list from `COMMANDS`: `policyc --help` imports no command."""
        rows = [(name, COMMANDS[name][1]) for name in self.list_commands(ctx)]
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, prog_name="policyc")
@click.pass_context
def cli(ctx: click.Context) -> None:
    """policyc: compile, check, score and enforce AgentLTL policies for tool-using agents.

    Default options come from the [tool.policyc] section of the nearest pyproject.toml.

    \b
    Exit codes: 0 ok, 1 findings or violations, 2 usage or input error, 3 internal error.
    """
    from policyc.cli.config import apply_project_config

    apply_project_config(ctx)


def main(argv: list[str] | None = None) -> None:
    from policyc.inputs import env_problem
    from policyc.recursion import deep_recursion

    problem = env_problem()  # a limit set in the environment that is no number is a usage error, never ignored
    if problem is not None:
        from policyc.terminal import printable

        click.echo(f"policyc: {printable(problem)}", err=True)
        sys.exit(EXIT_INPUT)
    try:
        with deep_recursion():  # formulas expanded from counts and chains are hundreds of levels deep
            code = cli.main(args=argv, prog_name="policyc", standalone_mode=False)
    except click.exceptions.Abort:
        click.echo("aborted", err=True)
        code = EXIT_INPUT
    except click.ClickException as exc:
        exc.show()
        code = EXIT_INPUT
    except click.exceptions.Exit as exc:
        code = exc.exit_code
    except BrokenPipeError:
        sys.stderr.close()
        code = EXIT_OK
    except KeyboardInterrupt:
        click.echo("interrupted", err=True)
        code = 130
    except MemoryError:  # what was asked for does not fit in this machine's memory: an input problem
        click.echo("policyc: out of memory: the input is too large for this machine's memory", err=True)
        code = EXIT_INPUT
    except Exception as exc:  # noqa: BLE001 - the last line of defence: no traceback reaches a user
        if os.environ.get("POLICYC_DEBUG"):  # the traceback, and still the exit code of an internal error
            import traceback

            traceback.print_exc()
            sys.exit(EXIT_INTERNAL)
        from policyc.terminal import printable

        click.echo(f"policyc: internal error: {type(exc).__name__}: {printable(str(exc))}", err=True)
        click.echo("this is a bug in policyc; rerun with POLICYC_DEBUG=1 to see where it happened", err=True)
        code = EXIT_INTERNAL
    sys.exit(code if isinstance(code, int) else EXIT_OK)
