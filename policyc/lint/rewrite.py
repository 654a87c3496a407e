"""Rebuilding formulas with one subformula replaced, through the smart constructors.

>>> from policyc.ir import build as b
>>> phi = b.always(b.implies(b.event("refund"), b.once(b.event("check"))))
>>> from policyc.ir.printer import show
>>> show(replace(phi, {b.once(b.event("check")): b.const(False)}))
'G not refund'
"""

from __future__ import annotations

from typing import Mapping

from policyc.ir import build as b
from policyc.ir import nodes as n

_UNARY = {n.Not: b.neg, n.Next: b.next_, n.WNext: b.wnext, n.Yesterday: b.yesterday, n.WYesterday: b.wyesterday}
_BINARY = {n.Until: b.until, n.Release: b.release, n.Since: b.since, n.Trigger: b.trigger}


def replace(phi: n.Formula, mapping: Mapping[n.Formula, n.Formula]) -> n.Formula:
    """`phi` with every occurrence of a key of `mapping` replaced by its value."""
    memo: dict = {}

    def go(f: n.Formula) -> n.Formula:
        if f in mapping:
            return mapping[f]
        if f in memo:
            return memo[f]
        cls = type(f)
        if cls in _UNARY:
            out = _UNARY[cls](go(f.arg))
        elif cls in _BINARY:
            out = _BINARY[cls](go(f.left), go(f.right))
        elif cls is n.And:
            out = b.conj(*(go(a) for a in f.args))
        elif cls is n.Or:
            out = b.disj(*(go(a) for a in f.args))
        elif cls is n.Forall:
            out = b.forall(f.var, f.type, f.domain, go(f.body))
        elif cls is n.Exists:
            out = b.exists(f.var, f.type, f.domain, go(f.body))
        else:
            out = f
        memo[f] = out
        return out

    return go(phi)


def implications(phi: n.Formula) -> list[tuple[n.Or, n.Formula, n.Formula, tuple[n.Formula, ...]]]:
    """Implications `trigger -> consequence` at positive polarity: (node, trigger, consequence,
    the quantifiers around the node, outermost first).

    >>> from policyc.ir import build as b
    >>> [(str(t), str(c), q) for _, t, c, q in implications(b.always(b.implies(b.event("a"), b.once(b.event("b")))))]
    [('a', 'O b', ())]
    """
    out: list = []
    seen: set = set()

    def walk(f: n.Formula, positive: bool, quantifiers: tuple) -> None:
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
