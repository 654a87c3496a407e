"""`[tool.policyc]` in pyproject.toml: a project's default options for every command.

    [tool.policyc]
    paths = ["policies"]        # the FILES of check, lint, fmt and test when none are given

    [tool.policyc.lint]
    deny = "warnings"
    allow = ["layer-weights"]
    bound = 10

    [tool.policyc.check]
    deny-warnings = true

The nearest pyproject.toml at or above the current directory is read (the first one found,
whether or not it has the section). Keys are a command's long option names without `--`;
values are what the command line takes (a list for a repeatable option, true/false for a
flag); the command line wins over the file. Paths are relative to the file's folder. A
mistake in the section (an unknown command or option, a value the option refuses) is an
input error naming the file and key (exit 2), never silently ignored.
"""

from __future__ import annotations

import os
import tomllib
from pathlib import Path
from typing import Any

import click

from policyc.terminal import printable

#: the commands whose FILES argument `paths` fills
PATH_COMMANDS = ("check", "lint", "fmt", "test")


def find_pyproject(start: Path) -> Path | None:
    for folder in (start, *start.parents):
        candidate = folder / "pyproject.toml"
        if candidate.is_file():
            return candidate
    return None


def read_section(path: Path) -> dict[str, Any]:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise click.UsageError(f"cannot read `{path}`: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise click.UsageError(f"`{path}` is not valid TOML: {exc}") from None
    except ValueError as exc:  # an integer past Python's limit on digits
        what = "an integer of thousands of digits" if "digits" in str(exc) else str(exc)
        raise click.UsageError(f"`{path}` cannot be read: it holds {what}") from None
    tool = data.get("tool", {})
    if not isinstance(tool, dict):
        raise click.UsageError(f"`{path}`: [tool] must be a table")
    section = tool.get("policyc", {})
    if not isinstance(section, dict):
        raise click.UsageError(f"`{path}`: [tool.policyc] must be a table")
    return section


def _option_names(command: click.Command) -> dict[str, click.Parameter]:
    names: dict[str, click.Parameter] = {}
    for param in command.params:
        if isinstance(param, click.Option):
            for opt in param.opts:
                if opt.startswith("--"):
                    names[opt[2:]] = param
    return names


def defaults_for(command_name: str, command: click.Command, section: dict[str, Any], where: Path,
                 ctx: click.Context) -> dict[str, Any]:
    """The default map of one command from the [tool.policyc] section."""
    from policyc.check.suggest import closest

    out: dict[str, Any] = {}
    base = where.parent
    paths = section.get("paths")
    if paths is not None and command_name in PATH_COMMANDS:
        if not (isinstance(paths, list) and all(isinstance(p, str) for p in paths)) or not paths:
            raise click.UsageError(f"`{where}`: [tool.policyc] paths must be a non-empty list of strings")
        out["files"] = tuple(os.path.relpath(base / p) for p in paths)
    table = section.get(command_name, {})
    if not isinstance(table, dict):
        raise click.UsageError(f"`{where}`: [tool.policyc.{command_name}] must be a table")
    options = _option_names(command)
    for key, value in table.items():
        param = options.get(key)
        if param is None:
            best = closest(key, list(options))
            hint = f" (did you mean `{best}`?)" if best else ""
            raise click.UsageError(f"`{where}`: [tool.policyc.{command_name}] has no option `{key}`{hint}")
        try:
            value = _as_given(param, value)
            cast = param.type_cast_value(ctx, value)
            if param.callback is not None:  # the checks the command line's value gets
                param.callback(ctx, param, cast)
        except click.BadParameter as exc:
            raise click.UsageError(f"`{where}`: [tool.policyc.{command_name}] {key}: {exc.message}") from None
        out[param.name] = value
    return out


def _as_given(param: click.Parameter, value: Any) -> Any:
    """A TOML value as the command line gives it, so the option reads it alike: true or false
    for a flag, a list of texts for a repeatable option, a text otherwise (`2.9` for an integer
    option is then refused, as `--bound 2.9` is; `true` is no number)."""
    if isinstance(param, click.Option) and param.is_flag and not param.count:
        if type(value) is not bool:
            raise click.BadParameter(f"{_shown(value)} is not true or false")
        return value
    if param.multiple:
        return [_as_text(item) for item in (value if isinstance(value, list) else [value])]
    return _as_text(value)


def _as_text(value: Any) -> str:
    if type(value) is str:
        return value
    if type(value) is bool:
        return "true" if value else "false"
    if type(value) is int:
        if value.bit_length() > 13_000:  # about 3,900 digits (str() refuses past 4,300)
            raise click.BadParameter("the number has thousands of digits")
        return str(value)
    if type(value) is float:
        return repr(value)
    raise click.BadParameter(f"{_shown(value)} is not a value an option takes")


def _shown(value: Any) -> str:
    kind = {bool: "a boolean", int: "an integer", float: "a number", str: "a text", list: "a list",
            dict: "a table"}.get(type(value), "a date or time")
    shown = repr(value)
    return f"{kind} ({printable(shown if len(shown) <= 60 else shown[:59] + '…')})"


def command_line_wins(ctx: click.Context, first: str, second: str) -> tuple[str, ...]:
    """Of two options that cannot be used together, the one the project's defaults set gives
    way when the command line sets the other: the names (of `first`, `second`) to treat as
    not set."""
    from click.core import ParameterSource

    sources = {name: ctx.get_parameter_source(name) for name in (first, second)}
    if ParameterSource.COMMANDLINE not in sources.values():
        return ()
    return tuple(name for name, source in sources.items() if source == ParameterSource.DEFAULT_MAP)

def apply_project_config(ctx: click.Context) -> None:
    """Install the defaults of the invoked command from the nearest pyproject.toml."""
    name = ctx.invoked_subcommand
    if name is None:
        return
    where = find_pyproject(Path.cwd())
    if where is None:
        return
    section = read_section(where)
    if not section:
        return
    group = ctx.command
    assert isinstance(group, click.Group)
    known = set(group.list_commands(ctx)) | {"paths"}
    for key in section:
        if key not in known:
            from policyc.check.suggest import closest

            best = closest(key, sorted(known))
            hint = f" (did you mean `{best}`?)" if best else ""
            raise click.UsageError(f"`{where}`: [tool.policyc] has no command or key `{key}`{hint}")
    command = group.get_command(ctx, name)
    if command is None:
        return
    ctx.default_map = {name: defaults_for(name, command, section, where, ctx)}
