"""What every subcommand shares: reading policies, printing diagnostics, exit codes."""

from __future__ import annotations

import errno
import math
import os
import stat
import sys
from typing import NoReturn, Sequence

import click

from policyc.diagnostics import Diagnostic, has_errors, render_json, render_text, summary_line
from policyc.inputs import is_dir, is_file, open_output
from policyc.terminal import printable

FORMAT_TEXT_JSON = click.Choice(["text", "json"])


class FiniteFloatRange(click.FloatRange):
    """A float option within bounds; `nan` (which compares false with every bound) and the
    infinities are refused."""

    def convert(self, value, param, ctx):
        number = super().convert(value, param, ctx)
        if not math.isfinite(number):
            self.fail(f"{value!r} is not a finite number", param, ctx)
        return number


def use_color(stream=None) -> bool:
    stream = stream or sys.stdout
    return hasattr(stream, "isatty") and stream.isatty()


def print_diagnostics(diagnostics: Sequence[Diagnostic], fmt: str = "text", err: bool = False) -> None:
    if fmt == "json":
        click.echo(render_json(diagnostics))
        return
    if diagnostics:
        stream = sys.stderr if err else sys.stdout
        click.echo(render_text(diagnostics, color=use_color(stream)), nl=False, err=err)


def policy_files(paths: Sequence[str], allow_dash: bool = False) -> list[str]:
    """The files named, with each directory standing for every `.altl` file below it (sorted;
    hidden folders skipped). A directory without one is an input error (exit 2): a CI job
    pointed at the wrong folder must not pass by checking nothing."""
    from pathlib import Path

    out: list[str] = []
    for path in paths:
        folder = Path(path)
        if (path == "-" and allow_dash) or not is_dir(folder):
            out.append(path)
            continue
        found = sorted(str(p) for p in folder.rglob("*.altl")
                       if is_file(p) and not any(part.startswith(".") for part in p.relative_to(folder).parts))
        if not found:
            click.echo(f"policyc: no `.altl` file under `{path}`", err=True)
            raise click.exceptions.Exit(2)
        out.extend(found)
    return list(dict.fromkeys(out))


def is_artifact_file(path: str) -> bool:
    """Whether a file holds a compiled artifact (JSON) rather than policy text: `.altl` never
    does, `.json` always does, anything else when it starts with `{`. A regular file that is
    empty is neither (exit 2); anything that is not a regular file (a pipe, a device) is read
    as a policy, whose loader reads it within its size cap."""
    if path.endswith(".altl"):
        return False
    if path.endswith(".json"):
        return True
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return False
        with open(path, "rb") as handle:
            head = handle.read(4096)
    except OSError:
        return False  # the policy loader reports it
    if not head.strip():
        fail(f"`{printable(path)}` is empty: it is neither a policy nor an artifact")
    return head.lstrip()[:1] == b"{"


def load_checked(path: str, fmt: str = "text"):
    """Check a policy for a command that needs one; on errors print them and exit 2. A policy
    without rules is refused too: there would be nothing to compile, score or draw."""
    from policyc.check import check_file

    policy, diagnostics = check_file(path)
    if policy is None or has_errors(diagnostics):
        print_diagnostics(diagnostics, "text", err=True)
        click.echo(f"policyc: `{printable(path)}` has errors ({summary_line(diagnostics)})", err=True)
        raise click.exceptions.Exit(2)
    if not policy.rules:
        fail(f"`{printable(path)}` has no rules: it is empty or declares only tools")
    return policy, diagnostics


def fail(message: str, help: str | None = None, code: int = 2) -> NoReturn:
    """Print `policyc: message` (and a help line) on standard error and exit (2: input error)."""
    click.echo(f"policyc: {message}", err=True)
    if help:
        click.echo(f"  help: {help}", err=True)
    raise click.exceptions.Exit(code)


def budget_options(command):
    """`--max-states` and `--max-product` for a command that compiles automata: the
    construction budget (`policyc.automata.budget`) while it runs; reaching it is an input
    error (exit 2) naming the rule, never a run that eats the machine's memory."""
    import functools

    @click.option("--max-product", type=click.IntRange(min=1), default=None, metavar="N",
                  help="the most states a product of a conjunction's automata may reach (default 300,000)")
    @click.option("--max-states", type=click.IntRange(min=1), default=None, metavar="N",
                  help="the most states one automaton may reach while it is built (default 5,000)")
    @functools.wraps(command)
    def wrapped(*args, max_states: int | None, max_product: int | None, **kwargs):
        from policyc.automata.budget import BudgetExceeded, construction_budget

        given = {name: str(value) for name, value in (("POLICYC_MAX_STATES", max_states),
                                                       ("POLICYC_MAX_PRODUCT", max_product)) if value is not None}
        before = {name: os.environ.get(name) for name in given}
        os.environ.update(given)  # worker processes (--jobs) build within it too
        try:
            with construction_budget(max_states, max_product):
                return command(*args, **kwargs)
        except BudgetExceeded as exc:
            fail(printable(str(exc)), exc.help)
        finally:  # the command's budget, not the process's (a host may run several commands)
            for name, value in before.items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value
    return wrapped


key_option = click.option(
    "--key-file", type=click.Path(dir_okay=False), default=None,
    help="refuse an artifact not signed with the key in this file (default: the key in POLICYC_ARTIFACT_KEY, if set)")


def artifact_key(key_file: str | None) -> bytes | None:
    """The key artifacts must be signed with: the key file's, else POLICYC_ARTIFACT_KEY's, else
    None (exit 2 when the key cannot be read)."""
    from policyc.artifact.errors import ArtifactError
    from policyc.artifact.io import read_key_file, resolve_key

    try:
        return read_key_file(key_file) if key_file else resolve_key(None)
    except ArtifactError as exc:
        fail(printable(str(exc)), exc.help)


def reads_artifact(path: str, key_file: str | None) -> bool:
    """Whether a command's POLICY is read as an artifact: always when a key is configured
    (a signed artifact is then the only thing it accepts, whatever the file is named), else
    when the file looks like one (`is_artifact_file`)."""
    return artifact_key(key_file) is not None or is_artifact_file(path)


def load_monitor(path: str, extern_specs: tuple[str, ...] = (), key_file: str | None = None):
    """A monitor from a policy (`.altl`, compiled in memory) or from an artifact file (verified,
    with its signature when a key is given), its extern predicates bound by `--extern`. With a
    key (--key-file or POLICYC_ARTIFACT_KEY) only an artifact signed with it is accepted: a
    policy source is refused, never compiled in its place."""
    from policyc.artifact.errors import ArtifactError
    from policyc.artifact.io import read_verified
    from policyc.cli import externs
    from policyc.ir.policy import ExternPredicate
    from policyc.runtime import Monitor

    key = artifact_key(key_file)
    if key is None and not is_artifact_file(path):
        from policyc.artifact.build import build_artifact

        policy, _ = load_checked(path)
        return Monitor(build_artifact(policy), externs.bind(extern_specs, policy.externs))
    try:
        verified = read_verified(path, key)  # decoded and checked once; the monitor uses it as is
    except ArtifactError as exc:
        if key is not None and not is_artifact_file(path):
            fail(f"`{printable(path)}` is not a signed artifact, and a signing key is configured: only artifacts signed "
                 "with it are loaded", "compile and sign it: `policyc compile POLICY -o FILE --sign-key-file KEY`")
        fail(printable(str(exc)), exc.help)
    declared = {e.name: ExternPredicate(e.name, (), None) for e in verified.artifact.externs}
    return Monitor(verified, externs.bind(extern_specs, declared), key=key)


def write_output(target: str, data: bytes, inputs: Sequence[str], option: str = "-o",
                 writes_policy: bool = False, force: bool = False) -> None:
    """Write a command's output file (named by `option`); exit 2, with a message, when it is
    one of the command's inputs (a policy, a file it imports), an existing policy source
    (`.altl`: replaced only by a policy output with `force`, never silently: it may hold
    rules), or cannot be written."""
    if writes_policy:  # a policy output replaces a source when told to
        why_not, more = (None, "") if force else ("which may hold rules", ", or pass --force to replace it")
    else:
        why_not, more = "and this output is not a policy", ""
    refuse_inputs_and_sources(target, inputs, "write over", "this command", f"choose another output file with {option}",
                              why_not, more)
    try:
        _unshare(target)
        write_file(target, data)
    except OSError as exc:
        fail(f"cannot write `{printable(target)}`: {write_problem(exc)}")


def refuse_inputs_and_sources(target: str, inputs: Sequence[str], verb: str, owner: str, hint: str,
                              why_not: str | None, more_help: str = "") -> None:
    """Exit 2 when an output file is one of the command's inputs (`owner`'s), or, unless
    `why_not` is None, an existing policy source (`.altl`, or a link to one): writing to it
    would break it. `verb`: what the output does to the file ("write over", "append the
    trace to"); `why_not`: what follows "it is a policy source"."""
    for source in inputs:
        if same_file(target, source):
            fail(f"refusing to {verb} `{printable(source)}`, an input of {owner}", hint)
    if why_not is None:
        return
    real = os.path.realpath(target)
    if (target.endswith(".altl") or real.endswith(".altl")) and os.path.isfile(target):
        what = "it is a policy source" if target.endswith(".altl") else \
            f"it links to `{printable(real)}`, a policy source"  # (a link is followed when written)
        fail(f"refusing to {verb} `{printable(target)}`: {what}{', ' + why_not if why_not else ''}", hint + more_help)


def _unshare(target: str) -> None:
    """A regular file with other names (hard links) is replaced, not written through: what
    the other names hold, a policy source perhaps, stays as it was."""
    try:
        info = os.lstat(target)
    except (OSError, ValueError):
        return
    if stat.S_ISREG(info.st_mode) and info.st_nlink > 1:
        os.unlink(target)


def write_file(target: str, data: bytes, append: bool = False) -> None:
    """Write (or append) bytes to a file without ever waiting for a reader: a FIFO nobody
    reads is an OSError (ENXIO), not a hang. A pipe or device someone reads is written to."""
    fd = open_output(target, append)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
    finally:
        os.close(fd)


def write_problem(exc: OSError) -> str:
    """Why a file could not be written, in a few words."""
    if exc.errno == errno.ENXIO:
        return "it is a pipe that nobody reads"
    if exc.errno == errno.ENOENT:
        return "its folder does not exist"
    return (exc.strerror or str(exc)).lower()


def same_file(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except (OSError, ValueError):
        return os.path.abspath(a) == os.path.abspath(b)
