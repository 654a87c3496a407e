"""`--extern NAME=MODULE:FUNCTION`: the user, not the policy, binds extern predicates.

A policy file or an artifact may come from someone else, so no command imports a module
because a policy names it. The commands that evaluate rules (`score`, `replay`) refuse a
policy with extern predicates until the user binds each one on the command line; the
message says which, with the binding the policy suggests:

    policyc score p.altl traces.jsonl --extern is_vip=crm:is_vip

`check`, `lint`, `compile`, `graph` and `explain` never call an extern predicate (to the
solver it is an unknown function; the artifact records only its name) and need no binding.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from typing import Callable, Mapping, NoReturn

import click

from policyc.cli import EXIT_INPUT
from policyc.ir.policy import ExternPredicate

option = click.option(
    "--extern", "externs", multiple=True, metavar="NAME=MODULE:FUNCTION",
    help="bind extern predicate NAME to a Python function, imported from MODULE (repeatable); "
         "nothing a policy names is imported otherwise")


def bind(specs: tuple[str, ...], declared: Mapping[str, ExternPredicate]) -> dict[str, Callable[..., object]]:
    """Import the functions the user named, one per extern predicate of the policy; exit 2 on
    a malformed or unknown name, an import that fails, or an extern left unbound."""
    out: dict[str, Callable[..., object]] = {}
    for spec in specs:
        name, sep, binding = spec.partition("=")
        module_name, colon, attr = binding.partition(":")
        if not sep or not colon or not name or not all(p.isidentifier() for p in module_name.split(".") + [attr]):
            _fail(f"`--extern {spec}` is not of the form NAME=MODULE:FUNCTION")
        if name not in declared:
            names = ", ".join(f"`{n}`" for n in declared) or "none"
            _fail(f"`--extern {spec}`: the policy has no extern predicate `{name}` (it declares {names})")
        out[name] = _import(name, module_name, attr)
    missing = [name for name in declared if name not in out]
    if missing:
        flags = " ".join(f"--extern {m}={declared[m].binding or 'MODULE:FUNCTION'}" for m in missing)
        _fail(f"the policy uses extern predicate{'s' if len(missing) > 1 else ''} "
              f"{', '.join(f'`{m}`' for m in missing)}, bound to Python code; policyc runs no code a policy "
              f"names unless you bind it yourself", f"if you trust it: {flags}")
    return out


def _import(name: str, module_name: str, attr: str) -> Callable[..., object]:
    cwd = str(Path.cwd())
    added = cwd not in sys.path
    if added:  # as `python -m`: a module next to the user's files imports
        sys.path.insert(0, cwd)
    try:
        module = importlib.import_module(module_name)
    except Exception as exc:  # noqa: BLE001 - the user's module failed to import: report it
        _fail(f"extern predicate `{name}`: `{module_name}` cannot be imported ({type(exc).__name__}: {exc})")
    finally:
        if added:
            sys.path.remove(cwd)
    fn = getattr(module, attr, None)
    if not callable(fn):
        _fail(f"extern predicate `{name}`: `{module_name}` has no function `{attr}`")
    return fn


def _fail(message: str, help: str | None = None) -> NoReturn:
    click.echo(f"policyc: {message}", err=True)
    if help:
        click.echo(f"  help: {help}", err=True)
    raise click.exceptions.Exit(EXIT_INPUT)


__all__ = ["bind", "option"]
