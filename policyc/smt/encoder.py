"""Formulas to Z3 over a symbolic trace of at most k calls (bounded model checking of LTLf).

`FormulaEncoder.holds(phi, i, env)` is a Z3 Boolean that is true exactly when the trace
satisfies `phi` at position i (the reference evaluator's `Evaluator.holds`). Temporal
operators unroll along the positions, past and future alike; position i may lie past the
end of the trace (then events are false, the existential operators false and their duals
true, as for the empty trace):

  X a   = live(i+1) ∧ a(i+1)              WX a = ¬live(i+1) ∨ a(i+1)
  a U b = live(i) ∧ (b(i) ∨ a(i) ∧ (a U b)(i+1))
  a R b = ¬live(i) ∨ b(i) ∧ (a(i) ∨ (a R b)(i+1))
  Y a   = i > 0 ∧ live(i) ∧ a(i-1)        Z a  = i = 0 ∨ ¬live(i) ∨ a(i-1)
  a S b = live(i) ∧ (b(i) ∨ i > 0 ∧ a(i) ∧ (a S b)(i-1))
  a T b = ¬live(i) ∨ b(i) ∧ (a(i) ∨ i = 0 ∨ (a T b)(i-1))

Data quantifiers are instantiated over their domain's members: `forall x in check.order_id`
becomes one conjunct per position (guarded by "position p holds a `check` call").

>>> from policyc.ir import build as b
>>> from policyc.smt.symtrace import SymbolicTrace
>>> enc = FormulaEncoder(SymbolicTrace({}, 3))
>>> s = z3.Solver(); s.add(enc.trace.constraints)
>>> s.add(enc.holds(b.eventually(b.event("a")), 0)); s.check()
unsat
"""

from __future__ import annotations

from typing import Any, Callable

import z3

from policyc.ir import nodes as n
from policyc.ir.dispatch import Cases
from policyc.ir.walk import free_vars
from policyc.smt import values as V
from policyc.smt.symtrace import SymbolicTrace
from policyc.smt.terms import TermEncoder, TermEnv
from policyc.smt.values import FALSE, TRUE, SymValue

_EMPTY = TermEnv({})
#: The encoding of each kind of formula at a position (a method of `FormulaEncoder` each).
_ENCODE: Cases[Callable[[FormulaEncoder, Any, int, TermEnv], z3.BoolRef]] = Cases("the formula encoding", n.FORMULAS)


class FormulaEncoder:
    """Encodes formulas over one `SymbolicTrace`, sharing every repeated subterm."""

    def __init__(self, trace: SymbolicTrace):
        self.trace = trace
        self.terms = TermEncoder(trace)
        self._memo: dict = {}

    def derive(self) -> "FormulaEncoder":
        """An encoder that starts from everything this one encoded (its terms are reused, not
        rebuilt) and records what it encodes next apart from it: several questions can start
        from one encoding of a policy, each as if it had encoded the policy itself."""
        trace = self.trace.derive()
        child = FormulaEncoder(trace)
        child.terms = self.terms.derive(trace)
        child._memo = dict(self._memo)
        return child

    @property
    def approx(self) -> set[str]:
        return self.terms.approx

    def holds(self, phi: n.Formula, i: int = 0, env: TermEnv = _EMPTY) -> z3.BoolRef:
        fv = free_vars(phi)
        key = (phi, i, tuple(sorted((v, id(env.vars[v])) for v in fv if v in env.vars)))
        out = self._memo.get(key)
        if out is None:
            out = self._memo[key] = _ENCODE[phi.__class__](self, phi, i, env)
        return out

    # ------------------------------------------------------------ one case per kind of formula

    @_ENCODE.on(n.Const)
    def _const(self, phi: n.Const, i: int, env: TermEnv) -> z3.BoolRef:
        return TRUE if phi.value else FALSE

    @_ENCODE.on(n.Event)
    def _event(self, phi: n.Event, i: int, env: TermEnv) -> z3.BoolRef:
        call = self.trace.is_call(i, phi.tool)
        if call is FALSE:  # no such call there (a fixed skeleton, a position past the end)
            return FALSE
        guard = V.truthy(self.terms.term(phi.guard, env.at_call(i, phi.tool)))
        return V.conj(call, guard)

    @_ENCODE.on(n.Cond)
    def _cond(self, phi: n.Cond, i: int, env: TermEnv) -> z3.BoolRef:
        return V.truthy(self.terms.term(phi.term, TermEnv(env.vars)))

    @_ENCODE.on(n.Not)
    def _not(self, phi: n.Not, i: int, env: TermEnv) -> z3.BoolRef:
        return V.negate(self.holds(phi.arg, i, env))

    @_ENCODE.on(n.And)
    def _and(self, phi: n.And, i: int, env: TermEnv) -> z3.BoolRef:
        return V.conj(*[self.holds(a, i, env) for a in phi.args])

    @_ENCODE.on(n.Or)
    def _or(self, phi: n.Or, i: int, env: TermEnv) -> z3.BoolRef:
        return V.disj(*[self.holds(a, i, env) for a in phi.args])

    @_ENCODE.on(n.Next)
    def _next(self, phi: n.Next, i: int, env: TermEnv) -> z3.BoolRef:
        tr = self.trace
        return V.conj(tr.is_live(i + 1), self.holds(phi.arg, i + 1, env)) if i + 1 < tr.k else FALSE

    @_ENCODE.on(n.WNext)
    def _wnext(self, phi: n.WNext, i: int, env: TermEnv) -> z3.BoolRef:
        tr = self.trace
        return V.disj(V.negate(tr.is_live(i + 1)), self.holds(phi.arg, i + 1, env)) if i + 1 < tr.k else TRUE

    @_ENCODE.on(n.Until)
    def _until(self, phi: n.Until, i: int, env: TermEnv) -> z3.BoolRef:
        tr, h = self.trace, self.holds
        if i >= tr.k:
            return FALSE
        return V.conj(tr.is_live(i), V.disj(h(phi.right, i, env), V.conj(h(phi.left, i, env), h(phi, i + 1, env))))

    @_ENCODE.on(n.Release)
    def _release(self, phi: n.Release, i: int, env: TermEnv) -> z3.BoolRef:
        tr, h = self.trace, self.holds
        if i >= tr.k:
            return TRUE
        return V.disj(V.negate(tr.is_live(i)),
                      V.conj(h(phi.right, i, env), V.disj(h(phi.left, i, env), h(phi, i + 1, env))))

    @_ENCODE.on(n.Yesterday)
    def _yesterday(self, phi: n.Yesterday, i: int, env: TermEnv) -> z3.BoolRef:
        return V.conj(self.trace.is_live(i), self.holds(phi.arg, i - 1, env)) if i > 0 else FALSE

    @_ENCODE.on(n.WYesterday)
    def _wyesterday(self, phi: n.WYesterday, i: int, env: TermEnv) -> z3.BoolRef:
        return V.disj(V.negate(self.trace.is_live(i)), self.holds(phi.arg, i - 1, env)) if i > 0 else TRUE

    @_ENCODE.on(n.Since)
    def _since(self, phi: n.Since, i: int, env: TermEnv) -> z3.BoolRef:
        h = self.holds
        earlier = V.conj(h(phi.left, i, env), h(phi, i - 1, env)) if i > 0 else FALSE
        return V.conj(self.trace.is_live(i), V.disj(h(phi.right, i, env), earlier))

    @_ENCODE.on(n.Trigger)
    def _trigger(self, phi: n.Trigger, i: int, env: TermEnv) -> z3.BoolRef:
        h = self.holds
        earlier = V.disj(h(phi.left, i, env), h(phi, i - 1, env)) if i > 0 else TRUE
        return V.disj(V.negate(self.trace.is_live(i)), V.conj(h(phi.right, i, env), earlier))

    @_ENCODE.on(n.Forall)
    def _forall(self, phi: n.Forall, i: int, env: TermEnv) -> z3.BoolRef:
        members = self.domain(phi.domain, env)
        return V.conj(*[z3.Implies(g, self.holds(phi.body, i, env.bind(phi.var, v))) for g, v in members
                        if g is not FALSE])

    @_ENCODE.on(n.Exists)
    def _exists(self, phi: n.Exists, i: int, env: TermEnv) -> z3.BoolRef:
        members = self.domain(phi.domain, env)
        return z3.Or([V.conj(g, self.holds(phi.body, i, env.bind(phi.var, v))) for g, v in members] or [FALSE])

    # ------------------------------------------------------------ quantifiers' domains

    def domain(self, term: n.Term, env: TermEnv) -> list[tuple[z3.BoolRef, SymValue]]:
        """The members of a quantifier's domain, as (exists, value) pairs (`Evaluator._domain`)."""
        key = ("domain", term, tuple(sorted((v, id(env.vars[v])) for v in free_vars(term) if v in env.vars)))
        cached = self._memo.get(key)
        if cached is not None:
            return cached
        value = self.terms.term(term, TermEnv(env.vars))
        if value.kind == "family":
            out = list(value.members)
        elif value.kind == "list":
            out = [(V.item_live(value, j), e) for j, e in enumerate(value.items)]
        elif value.kind == "dict":
            out = [(V.item_live(value, j), SymValue("str", value=k)) for j, k in enumerate(value.keys)]
        elif value.kind == "record":
            out = [(z3.And(value.present, f.defined), self.terms.lit(name)) for name, f in value.fields]
        elif value.kind in ("outputs", "done"):
            self.approx.add(f"quantifiers over `{value.kind}`")
            fresh = self.terms._fresh_list(value.kind)
            out = [(V.item_live(fresh, j), e) for j, e in enumerate(fresh.items)]
        elif value.kind == "dyn":
            self.approx.add("quantifiers over untyped values")
            out = [(value.present, value)]
        else:
            out = [(value.present, value)]
        self._memo[key] = out
        return out


_ENCODE.complete()
