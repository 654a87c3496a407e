"""The reference evaluator: appendix A of the AgentLTL paper, clause by clause.

This is the executable specification every other engine (automata, solver encodings,
runtime, scorer) is tested against. It is written to be read, not to be fast: each clause is
one method that evaluates the paper's definition directly over the complete trace. Results
are memoised per (formula, position, variable binding) only so that nested temporal
operators stay polynomial.

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

from typing import Any, Callable, Mapping

from policyc.ir import nodes as n
from policyc.ir.data import DataEnv, eval_term, holds
from policyc.ir.dispatch import Cases
from policyc.ir.ops import UNDEF
from policyc.recursion import deep_recursion
from policyc.semantics.domains import binding_key, domain_values
from policyc.trace.model import Trace


#: The clauses of appendix A, one method of `Evaluator` per kind of formula.
_CLAUSES: Cases[Callable[[Evaluator, Any, int, DataEnv], bool]] = Cases("the reference evaluator", n.FORMULAS)


class Evaluator:
    """Evaluates formulas over one complete trace: `Evaluator(trace).holds(phi, i)`."""

    def __init__(self, trace: Trace, externs: Mapping[str, Callable[..., object]] | None = None):
        self.trace = trace
        self.n = len(trace.calls)
        self.root_env = DataEnv({}, None, UNDEF, trace.globals, dict(externs or {}))
        self._memo: dict = {}

    def holds(self, phi: n.Formula, i: int = 0, env: DataEnv | None = None) -> bool:
        """τ, i ⊨ φ under the variable binding of `env` (the root binding when omitted)."""
        env = env or self.root_env
        key = (phi, i, binding_key(env.vars))
        cached = self._memo.get(key)
        if cached is None:
            cached = self._memo[key] = _CLAUSES[phi.__class__](self, phi, i, env)
        return cached

    def domain(self, term: n.Term, env: DataEnv) -> list:
        """D(τ, μ): the values a quantifier ranges over (see `domains.domain_values`)."""
        return domain_values(eval_term(term, env))

    # ------------------------------------------------------------ A.2.1: constants and connectives

    @_CLAUSES.on(n.Const)
    def const(self, phi: n.Const, i: int, env: DataEnv) -> bool:
        """⊤ and ⊥."""
        return phi.value

    @_CLAUSES.on(n.Not)
    def negation(self, phi: n.Not, i: int, env: DataEnv) -> bool:
        """¬φ."""
        return not self.holds(phi.arg, i, env)

    @_CLAUSES.on(n.And)
    def conjunction(self, phi: n.And, i: int, env: DataEnv) -> bool:
        """φ ∧ ψ ∧ …"""
        return all(self.holds(a, i, env) for a in phi.args)

    @_CLAUSES.on(n.Or)
    def disjunction(self, phi: n.Or, i: int, env: DataEnv) -> bool:
        """φ ∨ ψ ∨ …"""
        return any(self.holds(a, i, env) for a in phi.args)

    # ------------------------------------------------------------ A.2.2: atomic propositions

    @_CLAUSES.on(n.Event)
    def event(self, phi: n.Event, i: int, env: DataEnv) -> bool:
        """cᵢ matches the pattern: its name is the tool and its arguments and result satisfy
        the guard (a ⊑ cᵢ.args, match(cᵢ.result, r)); no call exists at i = n."""
        if i >= self.n:
            return False
        call = self.trace.calls[i]
        return call.name == phi.tool and holds(phi.guard, env.at_call(call.args, call.result, i))

    @_CLAUSES.on(n.Cond)
    def condition(self, phi: n.Cond, i: int, env: DataEnv) -> bool:
        """A data condition, independent of the position; a ⊥ operand makes it false (A.1.4)."""
        return holds(phi.term, env)

    # ------------------------------------------------------------ A.2.3: future

    @_CLAUSES.on(n.Next)
    def next(self, phi: n.Next, i: int, env: DataEnv) -> bool:
        """X φ: i + 1 < n and τ≥i+1 ⊨ φ (strong next: false at the end)."""
        return i + 1 < self.n and self.holds(phi.arg, i + 1, env)

    @_CLAUSES.on(n.WNext)
    def weak_next(self, phi: n.WNext, i: int, env: DataEnv) -> bool:
        """weak next: i + 1 ≥ n or τ≥i+1 ⊨ φ."""
        return i + 1 >= self.n or self.holds(phi.arg, i + 1, env)

    @_CLAUSES.on(n.Until)
    def until(self, phi: n.Until, i: int, env: DataEnv) -> bool:
        """φ U ψ: ∃j ≥ i. τ≥j ⊨ ψ and ∀i ≤ k < j. τ≥k ⊨ φ (F φ = ⊤ U φ)."""
        return any(self.holds(phi.right, j, env) and all(self.holds(phi.left, k, env) for k in range(i, j))
                   for j in range(i, self.n))

    @_CLAUSES.on(n.Release)
    def release(self, phi: n.Release, i: int, env: DataEnv) -> bool:
        """φ R ψ: ∀j ≥ i. τ≥j ⊨ ψ or ∃i ≤ k < j. τ≥k ⊨ φ (G φ = ⊥ R φ; vacuously true when i ≥ n)."""
        return all(self.holds(phi.right, j, env) or any(self.holds(phi.left, k, env) for k in range(i, j))
                   for j in range(i, self.n))

    # ------------------------------------------------------------ past: the mirror images

    @_CLAUSES.on(n.Yesterday)
    def yesterday(self, phi: n.Yesterday, i: int, env: DataEnv) -> bool:
        """Y φ: i > 0 and τ, i − 1 ⊨ φ."""
        return 0 < i < self.n and self.holds(phi.arg, i - 1, env)

    @_CLAUSES.on(n.WYesterday)
    def weak_yesterday(self, phi: n.WYesterday, i: int, env: DataEnv) -> bool:
        """Z φ: i = 0 or τ, i − 1 ⊨ φ."""
        return i >= self.n or i == 0 or self.holds(phi.arg, i - 1, env)

    @_CLAUSES.on(n.Since)
    def since(self, phi: n.Since, i: int, env: DataEnv) -> bool:
        """φ S ψ: ∃j ≤ i. τ, j ⊨ ψ and ∀j < k ≤ i. τ, k ⊨ φ (O φ = ⊤ S φ)."""
        if i >= self.n:
            return False
        return any(self.holds(phi.right, j, env) and all(self.holds(phi.left, k, env) for k in range(j + 1, i + 1))
                   for j in range(0, i + 1))

    @_CLAUSES.on(n.Trigger)
    def trigger(self, phi: n.Trigger, i: int, env: DataEnv) -> bool:
        """φ T ψ: ∀j ≤ i. τ, j ⊨ ψ or ∃j < k ≤ i. τ, k ⊨ φ (H φ = ⊥ T φ)."""
        if i >= self.n:
            return True
        return all(self.holds(phi.right, j, env) or any(self.holds(phi.left, k, env) for k in range(j + 1, i + 1))
                   for j in range(0, i + 1))

    # ------------------------------------------------------------ A.2.4: data quantifiers

    @_CLAUSES.on(n.Forall)
    def forall(self, phi: n.Forall, i: int, env: DataEnv) -> bool:
        """∀x ∈ D. φ: ⋀ over e ∈ D(τ, μ) of φ[x ↦ e], eagerly; true over an empty domain.
        The binding of x hides any outer x (inner scopes shadow outer ones, A.3.1)."""
        return all(self.holds(phi.body, i, env.bind(phi.var, e)) for e in self.domain(phi.domain, env))

    @_CLAUSES.on(n.Exists)
    def exists(self, phi: n.Exists, i: int, env: DataEnv) -> bool:
        """∃x ∈ D. φ: ⋁ over e ∈ D(τ, μ) of φ[x ↦ e]; false over an empty domain."""
        return any(self.holds(phi.body, i, env.bind(phi.var, e)) for e in self.domain(phi.domain, env))


_CLAUSES.complete()


def evaluate(phi: n.Formula, trace: Trace, externs: Mapping[str, Callable[..., object]] | None = None) -> bool:
    """τ ⊨ φ: the formula holds at position 0 of the complete trace.

    >>> from policyc.ir import build as b
    >>> from policyc.trace import Trace
    >>> evaluate(b.always(b.event("a")), Trace.of()), evaluate(b.eventually(b.event("a")), Trace.of())
    (True, False)
    """
    with deep_recursion():
        return Evaluator(trace, externs).holds(phi, 0)
