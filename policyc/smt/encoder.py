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

import z3

from policyc.ir import nodes as n
from policyc.ir.walk import free_vars
from policyc.smt import values as V
from policyc.smt.symtrace import SymbolicTrace
from policyc.smt.terms import TermEncoder, TermEnv
from policyc.smt.values import FALSE, TRUE, SymValue

_EMPTY = TermEnv({})


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
            out = self._memo[key] = self._encode(phi, i, env)
        return out

    def _encode(self, phi: n.Formula, i: int, env: TermEnv) -> z3.BoolRef:  # noqa: C901
        tr = self.trace
        h = self.holds
        if isinstance(phi, n.Const):
            return TRUE if phi.value else FALSE
        if isinstance(phi, n.Event):
            call = tr.is_call(i, phi.tool)
            if call is FALSE:  # no such call there (a fixed skeleton, a position past the end)
                return FALSE
            guard = V.truthy(self.terms.term(phi.guard, env.at_call(i, phi.tool)))
            return V.conj(call, guard)
        if isinstance(phi, n.Cond):
            return V.truthy(self.terms.term(phi.term, TermEnv(env.vars)))
        if isinstance(phi, n.Not):
            return V.negate(h(phi.arg, i, env))
        if isinstance(phi, n.And):
            return V.conj(*[h(a, i, env) for a in phi.args])
        if isinstance(phi, n.Or):
            return V.disj(*[h(a, i, env) for a in phi.args])
        if isinstance(phi, n.Next):
            return V.conj(tr.is_live(i + 1), h(phi.arg, i + 1, env)) if i + 1 < tr.k else FALSE
        if isinstance(phi, n.WNext):
            return V.disj(V.negate(tr.is_live(i + 1)), h(phi.arg, i + 1, env)) if i + 1 < tr.k else TRUE
        if isinstance(phi, n.Until):
            if i >= tr.k:
                return FALSE
            return V.conj(tr.is_live(i), V.disj(h(phi.right, i, env), V.conj(h(phi.left, i, env), h(phi, i + 1, env))))
        if isinstance(phi, n.Release):
            if i >= tr.k:
                return TRUE
            return V.disj(V.negate(tr.is_live(i)),
                          V.conj(h(phi.right, i, env), V.disj(h(phi.left, i, env), h(phi, i + 1, env))))
        if isinstance(phi, n.Yesterday):
            return V.conj(tr.is_live(i), h(phi.arg, i - 1, env)) if i > 0 else FALSE
        if isinstance(phi, n.WYesterday):
            return V.disj(V.negate(tr.is_live(i)), h(phi.arg, i - 1, env)) if i > 0 else TRUE
        if isinstance(phi, n.Since):
            earlier = V.conj(h(phi.left, i, env), h(phi, i - 1, env)) if i > 0 else FALSE
            return V.conj(tr.is_live(i), V.disj(h(phi.right, i, env), earlier))
        if isinstance(phi, n.Trigger):
            earlier = V.disj(h(phi.left, i, env), h(phi, i - 1, env)) if i > 0 else TRUE
            return V.disj(V.negate(tr.is_live(i)), V.conj(h(phi.right, i, env), earlier))
        if isinstance(phi, (n.Forall, n.Exists)):
            members = self.domain(phi.domain, env)
            if isinstance(phi, n.Forall):
                return V.conj(*[z3.Implies(g, h(phi.body, i, env.bind(phi.var, v))) for g, v in members
                                if g is not FALSE])
            return z3.Or([V.conj(g, h(phi.body, i, env.bind(phi.var, v))) for g, v in members] or [FALSE])
        raise TypeError(f"not a formula: {type(phi).__name__}")

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
