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

#: command name -> module under policyc.cli defining a click command of that name
COMMANDS = {
    "check": "check",
    "fmt": "fmt",
    "lint": "lint",
    "compile": "compile",
    "score": "score",
    "replay": "replay",
    "report": "report",
    "conformance": "conformance",
    "graph": "graph",
    "explain": "explain",
    "bench": "bench",
    "demo": "demo",
    "test": "test",
    "lsp": "lsp",
    "import-tools": "import_tools",
    "infer-tools": "infer_tools",
    "assure": "assure",
    "gateway": "gateway",
}


class LazyGroup(click.Group):
    def _available(self) -> dict[str, str]:
        return {name: mod for name, mod in COMMANDS.items()
                if importlib.util.find_spec(f"policyc.cli.{mod}") is not None}

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(self._available())

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        module = self._available().get(name)
        if module is None:
            return None
        return importlib.import_module(f"policyc.cli.{module}").command


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
    from policyc.recursion import deep_recursion

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
    except Exception as exc:  # the last line of defence: no traceback reaches a user
        if os.environ.get("POLICYC_DEBUG"):
            raise
        from policyc.terminal import printable

        click.echo(f"policyc: internal error: {type(exc).__name__}: {printable(str(exc))}", err=True)
        click.echo("this is a bug in policyc; rerun with POLICYC_DEBUG=1 to see where it happened", err=True)
        code = EXIT_INTERNAL
    sys.exit(code if isinstance(code, int) else EXIT_OK)
