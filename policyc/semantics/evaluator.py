"""The reference evaluator: appendix A of the AgentLTL paper, clause by clause.

This is the executable specification every other engine (automata, solver encodings,
runtime, scorer) is tested against. It is written to be read, not to be fast: each clause is
the paper's definition evaluated directly over the complete trace. Results are memoised per
(formula, position, variable binding) only so that nested temporal operators stay polynomial.

Positions range over the trace, 0 <= i < n (A.1.1). A formula may also be evaluated at
i = n: that happens for the empty trace, where no call exists; there no event holds, the
existential operators (X, F, U, Y, O, S) are false and their duals (WX, G, R, Z, H, T) true.

>>> from policyc.ir import build as b
>>> from policyc.trace import Trace
>>> t = Trace.of(("tool_a", {}), ("tool_b", {}), ("tool_d", {}))
>>> phi = b.conj(b.eventually(b.event("tool_a")), b.eventually(b.event("tool_d")))   # A.3.2
>>> evaluate(phi, t)
True
"""

from __future__ import annotations

from typing import Callable, Mapping

from policyc.ir import nodes as n
from policyc.ir.data import DataEnv, eval_term, holds
from policyc.ir.ops import UNDEF
from policyc.semantics.domains import binding_key, domain_values
from policyc.trace.model import Trace


class Evaluator:
    """Evaluates formulas over one complete trace: `Evaluator(trace).holds(phi, i)`."""

    def __init__(self, trace: Trace, externs: Mapping[str, Callable[..., object]] | None = None):
        self.trace = trace
        self.n = len(trace.calls)
        self.root_env = DataEnv({}, None, UNDEF, trace.globals, dict(externs or {}))
        self._memo: dict = {}

    # ------------------------------------------------------------ entry point

    def holds(self, phi: n.Formula, i: int = 0, env: DataEnv | None = None) -> bool:
        """τ, i ⊨ φ under the variable binding of `env` (the root binding when omitted)."""
        env = env or self.root_env
        key = (phi, i, binding_key(env.vars))
        cached = self._memo.get(key)
        if cached is None:
            cached = self._memo[key] = self._eval(phi, i, env)
        return cached

    # ------------------------------------------------------------ clauses

    def _eval(self, phi: n.Formula, i: int, env: DataEnv) -> bool:  # noqa: C901 - one case per clause
        n_ = self.n
        if isinstance(phi, n.Const):  # ⊤, ⊥ (A.2.1)
            return phi.value
        if isinstance(phi, n.Event):
            # an atomic proposition over c_i: its name is the tool and its arguments and
            # result satisfy the guard (A.2.2: a ⊑ c_i.args, match(c_i.result, r))
            if i >= n_:
                return False
            call = self.trace.calls[i]
            return call.name == phi.tool and holds(phi.guard, env.at_call(call.args, call.result))
        if isinstance(phi, n.Cond):  # a data condition: independent of the position (A.1.4: ⊥ is false)
            return holds(phi.term, env)
        if isinstance(phi, n.Not):
            return not self.holds(phi.arg, i, env)
        if isinstance(phi, n.And):
            return all(self.holds(a, i, env) for a in phi.args)
        if isinstance(phi, n.Or):
            return any(self.holds(a, i, env) for a in phi.args)
        # ---- future (A.2.3)
        if isinstance(phi, n.Next):  # X φ: i+1 < n and τ≥i+1 ⊨ φ
            return i + 1 < n_ and self.holds(phi.arg, i + 1, env)
        if isinstance(phi, n.WNext):  # weak next: i+1 >= n or τ≥i+1 ⊨ φ
            return i + 1 >= n_ or self.holds(phi.arg, i + 1, env)
        if isinstance(phi, n.Until):  # ∃j≥i. τ≥j ⊨ ψ and ∀i≤k<j. τ≥k ⊨ φ
            return any(
                self.holds(phi.right, j, env) and all(self.holds(phi.left, k, env) for k in range(i, j))
                for j in range(i, n_)
            )
        if isinstance(phi, n.Release):  # ∀j≥i. τ≥j ⊨ ψ or ∃i≤k<j. τ≥k ⊨ φ
            return all(
                self.holds(phi.right, j, env) or any(self.holds(phi.left, k, env) for k in range(i, j))
                for j in range(i, n_)
            )
        # ---- past (the mirror images, over the prefix up to i)
        if isinstance(phi, n.Yesterday):  # Y φ: i > 0 and τ, i-1 ⊨ φ
            return 0 < i < n_ and self.holds(phi.arg, i - 1, env)
        if isinstance(phi, n.WYesterday):  # Z φ: i = 0 or τ, i-1 ⊨ φ
            return i >= n_ or i == 0 or self.holds(phi.arg, i - 1, env)
        if isinstance(phi, n.Since):  # ∃j≤i. τ,j ⊨ ψ and ∀j<k≤i. τ,k ⊨ φ
            if i >= n_:
                return False
            return any(
                self.holds(phi.right, j, env) and all(self.holds(phi.left, k, env) for k in range(j + 1, i + 1))
                for j in range(0, i + 1)
            )
        if isinstance(phi, n.Trigger):  # ∀j≤i. τ,j ⊨ ψ or ∃j<k≤i. τ,k ⊨ φ
            if i >= n_:
                return True
            return all(
                self.holds(phi.right, j, env) or any(self.holds(phi.left, k, env) for k in range(j + 1, i + 1))
                for j in range(0, i + 1)
            )
        # ---- data quantifiers (A.2.4): eager instantiation over D(τ, μ); inner scopes shadow
        if isinstance(phi, n.Forall):  # ⋀ over e ∈ D: true over an empty domain
            return all(self.holds(phi.body, i, env.bind(phi.var, e)) for e in self.domain(phi.domain, env))
        if isinstance(phi, n.Exists):  # ⋁ over e ∈ D: false over an empty domain
            return any(self.holds(phi.body, i, env.bind(phi.var, e)) for e in self.domain(phi.domain, env))
        raise TypeError(f"not a formula: {type(phi).__name__}")

    def domain(self, term: n.Term, env: DataEnv) -> list:
        """D(τ, μ): the values a quantifier ranges over (see `domains.domain_values`)."""
        return domain_values(eval_term(term, env))


def evaluate(phi: n.Formula, trace: Trace, externs: Mapping[str, Callable[..., object]] | None = None) -> bool:
    """τ ⊨ φ: the formula holds at position 0 of the complete trace.

    >>> from policyc.ir import build as b
    >>> from policyc.trace import Trace
    >>> evaluate(b.always(b.event("a")), Trace.of()), evaluate(b.eventually(b.event("a")), Trace.of())
    (True, False)
    """
    return Evaluator(trace, externs).holds(phi, 0)
