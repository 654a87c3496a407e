"""Specialise a formula for one truth assignment of its static atoms.

A static atom reads only the quantified variable and literals (`o == "A1"`, `n > 3`): for
one binding its truth is the same at every position, so each assignment gives a plain
formula, rebuilt with the smart constructors (which fold what became constant).

>>> from policyc.ir import build as b
>>> x = b.op("gt", b.var("n"), b.lit(3))
>>> phi = b.always(b.implies(b.cond(x), b.eventually(b.event("a"))))
>>> specialise(phi, {x: False}), specialise(phi, {x: True})
(true, G F a)
"""

from __future__ import annotations

from typing import Callable, Mapping

from policyc.ir import build as b
from policyc.ir import nodes as n

_UNARY: dict[type[n.Formula], Callable[[n.Formula], n.Formula]] = {n.Not: b.neg, n.Next: b.next_, n.WNext: b.wnext, n.Yesterday: b.yesterday, n.WYesterday: b.wyesterday}
_BINARY: dict[type[n.Formula], Callable[[n.Formula, n.Formula], n.Formula]] = {n.Until: b.until, n.Release: b.release, n.Since: b.since, n.Trigger: b.trigger}


def _term(t: n.Term, truth: Mapping[n.Term, bool]) -> n.Term:
    if t in truth:
        return b.lit(truth[t])
    if isinstance(t, n.Op) and t.op in ("and", "or", "not"):
        return b.op(t.op, *(_term(a, truth) for a in t.args))
    return t


def specialise(f: n.Formula, truth: Mapping[n.Term, bool], default: bool = True) -> n.Formula:
    """Replace static atoms by their truth; a `Cond` not covered by `truth` reads as `default`."""
    memo: dict = {}

    def go(g: n.Formula) -> n.Formula:
        out = memo.get(g)
        if out is not None:
            return out
        if isinstance(g, (n.Const,)):
            out = g
        elif isinstance(g, n.Event):
            out = b.event(g.tool, _term(g.guard, truth))
        elif isinstance(g, n.Cond):
            term = _term(g.term, truth)
            out = b.cond(term) if isinstance(term, n.Lit) else b.const(default)
        elif isinstance(g, (n.Not, n.Next, n.WNext, n.Yesterday, n.WYesterday)):
            out = _UNARY[type(g)](go(g.arg))
        elif isinstance(g, (n.Until, n.Release, n.Since, n.Trigger)):
            out = _BINARY[type(g)](go(g.left), go(g.right))
        elif isinstance(g, n.And):
            out = b.conj(*(go(a) for a in g.args))
        elif isinstance(g, n.Or):
            out = b.disj(*(go(a) for a in g.args))
        else:
            out = g  # quantifiers are rejected before specialisation
        memo[g] = out
        return out

    return go(f)
