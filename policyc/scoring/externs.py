"""Binding extern predicates to Python functions: the host program's decision, never the data's.

A policy may name a binding (`extern predicate vip(c: str) from "crm:is_vip"`), but policies,
artifacts and traces are data: nothing in policyc imports a module because a policy or an
artifact names it. The program that evaluates a policy passes the functions itself
(`Monitor.load(path, externs={"vip": crm.is_vip})`, `score_trace(..., externs=...)`), and the
command line binds them only when the user names each one (`--extern vip=crm:is_vip`).

>>> from policyc.ir.policy import ExternPredicate
>>> declared = {"vip": ExternPredicate("vip", (), "crm:is_vip")}
>>> sorted(bind_externs(declared, {"vip": str.isupper}))
['vip']
>>> bind_externs(declared, {"vpi": str.isupper})
Traceback (most recent call last):
...
policyc.scoring.externs.ExternBindingError: `vpi` is not an extern predicate of the policy (it declares `vip`)
>>> unbound(declared, {})
['vip']
"""

from __future__ import annotations

from typing import Callable, Mapping

from policyc.ir.policy import ExternPredicate

Externs = Mapping[str, Callable[..., object]]


class ExternBindingError(ValueError):
    """Functions given for extern predicates that do not fit the policy, with a help line."""

    def __init__(self, message: str, help: str | None = None):
        super().__init__(message)
        self.message = message
        self.help = help

    def __str__(self) -> str:
        return self.message


def bind_externs(declared: Mapping[str, ExternPredicate], given: Externs) -> dict[str, Callable[..., object]]:
    """The given functions, checked against the policy's extern predicates: each names a
    declared extern and is callable. Imports nothing; externs left unbound are not an error
    here (see `unbound`)."""
    out: dict[str, Callable[..., object]] = {}
    for name, fn in given.items():
        if name not in declared:
            names = ", ".join(f"`{n}`" for n in declared) or "none"
            raise ExternBindingError(f"`{name}` is not an extern predicate of the policy (it declares {names})")
        if not callable(fn):
            raise ExternBindingError(f"the binding of extern predicate `{name}` is a {type(fn).__name__}, "
                                     "not a function")
        out[name] = fn
    return out


def unbound(declared: Mapping[str, ExternPredicate], bound: Externs) -> list[str]:
    """The extern predicates of a policy that have no function yet, in declaration order."""
    return [name for name in declared if name not in bound]


def describe(extern: ExternPredicate) -> str:
    """`name(param: type, ...)`, as a message shows an extern predicate."""
    return f"{extern.name}({', '.join(f'{p}: {t}' for p, t in extern.params)})"


__all__ = ["ExternBindingError", "Externs", "bind_externs", "describe", "unbound"]
