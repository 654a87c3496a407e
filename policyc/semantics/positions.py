"""All positions at once: the truth of a formula at every position of a trace, in linear time.

The reference evaluator (`evaluator.py`) states each clause as the paper writes it and is
quadratic or worse on nested temporal operators. This engine computes, for each subformula,
the list of its truth values at positions 0..n-1 in one pass, using the expansion laws that
follow from those clauses on finite traces:

    φ U ψ  at i  =  ψ(i) or (φ(i) and (φ U ψ)(i+1)),   false at i = n
    φ R ψ  at i  =  ψ(i) and (φ(i) or (φ R ψ)(i+1)),   true at i = n
    φ S ψ  at i  =  ψ(i) or (φ(i) and (φ S ψ)(i-1)),   false at i = -1
    φ T ψ  at i  =  ψ(i) and (φ(i) or (φ T ψ)(i-1)),   true at i = -1

Vectors are memoised per subformula and per binding of the variables free in it, so a
subformula that does not mention a quantified variable is computed once for all its values.
The scorer uses this engine; tests check it against the reference evaluator on random
formulas and traces. On the empty trace it defers to the reference evaluator (position 0 = n).

>>> from policyc.ir import build as b
>>> from policyc.trace import Trace
>>> t = Trace.of(("a", {}), ("b", {}), ("a", {}))
>>> PositionEvaluator(t).vector(b.eventually(b.event("b")))
[True, True, False]
>>> PositionEvaluator(t).holds(b.always(b.implies(b.event("a"), b.eventually(b.event("b")))))
False
"""

from __future__ import annotations

from typing import Callable, Mapping

from policyc.ir import nodes as n
from policyc.ir.data import DataEnv, eval_term, holds
from policyc.ir.ops import UNDEF
from policyc.ir.walk import free_vars
from policyc.semantics.domains import domain_values, value_key
from policyc.semantics.evaluator import Evaluator
from policyc.trace.model import Trace


class PositionEvaluator:
    """Truth vectors of formulas over one complete trace."""

    def __init__(self, trace: Trace, externs: Mapping[str, Callable[..., object]] | None = None):
        self.trace = trace
        self.n = len(trace.calls)
        self.root_env = DataEnv({}, None, UNDEF, trace.globals, dict(externs or {}))
        self._memo: dict = {}
        self._reference = Evaluator(trace, externs) if self.n == 0 else None

    def holds(self, phi: n.Formula, i: int = 0, env: DataEnv | None = None) -> bool:
        """τ, i ⊨ φ, like `Evaluator.holds`."""
        if self._reference is not None:
            return self._reference.holds(phi, i, env)
        return self.vector(phi, env)[i]

    def vector(self, phi: n.Formula, env: DataEnv | None = None) -> list[bool]:
        """[τ, i ⊨ φ for i in 0..n-1] (an empty list for the empty trace)."""
        env = env or self.root_env
        free = free_vars(phi)
        key = (phi, tuple(sorted((v, value_key(env.vars.get(v, UNDEF))) for v in free)))
        cached = self._memo.get(key)
        if cached is None:
            cached = self._memo[key] = self._compute(phi, env)
        return cached

    def domain(self, term: n.Term, env: DataEnv) -> list:
        return domain_values(eval_term(term, env))

    def _compute(self, phi: n.Formula, env: DataEnv) -> list[bool]:  # noqa: C901 - one case per operator
        size = self.n
        if isinstance(phi, n.Const):
            return [phi.value] * size
        if isinstance(phi, n.Event):
            return [c.name == phi.tool and holds(phi.guard, env.at_call(c.args, c.result)) for c in self.trace.calls]
        if isinstance(phi, n.Cond):
            return [holds(phi.term, env)] * size
        if isinstance(phi, n.Not):
            return [not x for x in self.vector(phi.arg, env)]
        if isinstance(phi, n.And):
            out = [True] * size
            for arg in phi.args:
                out = [x and y for x, y in zip(out, self.vector(arg, env))]
            return out
        if isinstance(phi, n.Or):
            out = [False] * size
            for arg in phi.args:
                out = [x or y for x, y in zip(out, self.vector(arg, env))]
            return out
        if isinstance(phi, (n.Next, n.WNext)):
            arg = self.vector(phi.arg, env)
            return arg[1:] + [isinstance(phi, n.WNext)]
        if isinstance(phi, (n.Yesterday, n.WYesterday)):
            arg = self.vector(phi.arg, env)
            return [isinstance(phi, n.WYesterday)] + arg[:-1]
        if isinstance(phi, (n.Until, n.Release)):
            return _scan(self.vector(phi.left, env), self.vector(phi.right, env),
                         reverse=True, release=isinstance(phi, n.Release))
        if isinstance(phi, (n.Since, n.Trigger)):
            return _scan(self.vector(phi.left, env), self.vector(phi.right, env),
                         reverse=False, release=isinstance(phi, n.Trigger))
        if isinstance(phi, (n.Forall, n.Exists)):
            universal = isinstance(phi, n.Forall)
            out = [universal] * size
            for value in self.domain(phi.domain, env):
                body = self.vector(phi.body, env.bind(phi.var, value))
                out = [x and y for x, y in zip(out, body)] if universal else [x or y for x, y in zip(out, body)]
            return out
        raise TypeError(f"not a formula: {type(phi).__name__}")


def _scan(left: list[bool], right: list[bool], reverse: bool, release: bool) -> list[bool]:
    """Until/Since (release=False) or Release/Trigger (release=True) by one pass."""
    size = len(right)
    out = [False] * size
    carry = release  # the value beyond the end (future) or before the start (past)
    order = range(size - 1, -1, -1) if reverse else range(size)
    for i in order:
        if release:
            carry = right[i] and (left[i] or carry)
        else:
            carry = right[i] or (left[i] and carry)
        out[i] = carry
    return out
