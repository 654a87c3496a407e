"""Rebuilding formulas with one subformula replaced, through the smart constructors.

>>> from policyc.ir import build as b
>>> phi = b.always(b.implies(b.event("refund"), b.once(b.event("check"))))
>>> from policyc.ir.printer import show
>>> show(replace(phi, {b.once(b.event("check")): b.const(False)}))
'G not refund'
"""

from __future__ import annotations

from typing import Callable, Mapping

from policyc.ir import build as b
from policyc.ir import nodes as n

_UNARY: dict[type[n.Formula], Callable[[n.Formula], n.Formula]] = {
    n.Not: b.neg, n.Next: b.next_, n.WNext: b.wnext, n.Yesterday: b.yesterday, n.WYesterday: b.wyesterday}
_BINARY: dict[type[n.Formula], Callable[[n.Formula, n.Formula], n.Formula]] = {
    n.Until: b.until, n.Release: b.release, n.Since: b.since, n.Trigger: b.trigger}
Quantifier = n.Forall | n.Exists


def rebuild(f: n.Formula, go: Callable[[n.Formula], n.Formula]) -> n.Formula:
    """`f` rebuilt through the smart constructors with each immediate subformula passed
    through `go` (a quantifier's domain kept); events, conditions and constants as they are."""
    if isinstance(f, (n.Not, n.Next, n.WNext, n.Yesterday, n.WYesterday)):
        return _UNARY[type(f)](go(f.arg))
    if isinstance(f, (n.Until, n.Release, n.Since, n.Trigger)):
        return _BINARY[type(f)](go(f.left), go(f.right))
    if isinstance(f, n.And):
        return b.conj(*(go(a) for a in f.args))
    if isinstance(f, n.Or):
        return b.disj(*(go(a) for a in f.args))
    if isinstance(f, n.Forall):
        return b.forall(f.var, f.type, f.domain, go(f.body))
    if isinstance(f, n.Exists):
        return b.exists(f.var, f.type, f.domain, go(f.body))
    return f


def replace(phi: n.Formula, mapping: Mapping[n.Formula, n.Formula]) -> n.Formula:
    """`phi` with every occurrence of a key of `mapping` replaced by its value."""
    memo: dict = {}

    def go(f: n.Formula) -> n.Formula:
        if f in mapping:
            return mapping[f]
        if f not in memo:
            memo[f] = rebuild(f, go)
        return memo[f]

    return go(phi)


def implications(phi: n.Formula) -> list[tuple[n.Or, n.Formula, n.Formula, tuple[Quantifier, ...]]]:
    """Implications `trigger -> consequence` at positive polarity: (node, trigger, consequence,
    the quantifiers around the node, outermost first).

    >>> from policyc.ir import build as b
    >>> [(str(t), str(c), q) for _, t, c, q in implications(b.always(b.implies(b.event("a"), b.once(b.event("b")))))]
    [('a', 'O b', ())]
    """
    out: list = []
    seen: set = set()

    def walk(f: n.Formula, positive: bool, quantifiers: tuple[Quantifier, ...]) -> None:
        if (f, positive, quantifiers) in seen:
            return
        seen.add((f, positive, quantifiers))
        if isinstance(f, n.Or) and positive:
            neg = [a.arg for a in f.args if isinstance(a, n.Not)]
            pos = [a for a in f.args if not isinstance(a, n.Not)]
            if neg and pos:
                out.append((f, b.conj(*neg), b.disj(*pos), quantifiers))
        if isinstance(f, n.Not):
            walk(f.arg, not positive, quantifiers)
            return
        inner = quantifiers + (f,) if isinstance(f, (n.Forall, n.Exists)) else quantifiers
        for child in f.children:
            if isinstance(child, n.Formula):
                walk(child, positive, inner)

    walk(phi, True, ())
    return out
