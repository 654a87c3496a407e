"""All positions at once: the truth of a formula at every position of a trace.

The reference evaluator (`evaluator.py`) states each clause as the paper writes it and is
quadratic or worse on nested temporal operators. This engine computes, for each subformula,
its truth at positions 0..n-1 as the bits of one integer (bit i: position i), using the
expansion laws that follow from those clauses on finite traces:

    φ U ψ  at i  =  ψ(i) or (φ(i) and (φ U ψ)(i+1)),   false at i = n   (least fixpoint)
    φ R ψ  at i  =  ψ(i) and (φ(i) or (φ R ψ)(i+1)),   true at i = n    (greatest fixpoint)
    φ S ψ  at i  =  ψ(i) or (φ(i) and (φ S ψ)(i-1)),   false at i = -1
    φ T ψ  at i  =  ψ(i) and (φ(i) or (φ T ψ)(i-1)),   true at i = -1

X shifts the bits down, Y up; F, G, O and H are read off the highest or lowest set bit.
Results are memoised per subformula and per binding of the variables free in it, so a
subformula that does not mention a quantified variable is computed once for all its values.
The scorer uses this engine; tests check it against the reference evaluator at every
position of random formulas and traces. On the empty trace it defers to the reference
evaluator (position 0 = n): it has no positions, so every bit vector is 0 and every
`vector` empty.

>>> from policyc.ir import build as b
>>> from policyc.trace import Trace
>>> t = Trace.of(("a", {}), ("b", {}), ("a", {}))
>>> PositionEvaluator(t).vector(b.eventually(b.event("b")))
[True, True, False]
>>> PositionEvaluator(t).holds(b.always(b.implies(b.event("a"), b.eventually(b.event("b")))))
False
"""

from __future__ import annotations

from typing import Callable, Mapping, Sequence

from policyc.ir import build as b
from policyc.ir import nodes as n
from policyc.ir.data import DataEnv, eval_term, holds
from policyc.ir.ops import UNDEF, member
from policyc.ir.walk import free_vars, subformulas
from policyc.semantics.domains import domain_values, value_key
from policyc.semantics.evaluator import Evaluator
from policyc.ir.closures import compile_term, reads_history
from policyc.trace.model import Trace


class PositionEvaluator:
    """Truth values of formulas at every position of one complete trace."""

    def __init__(self, trace: Trace, externs: Mapping[str, Callable[..., object]] | None = None):
        self.trace = trace
        self.n = len(trace.calls)
        self.mask = (1 << self.n) - 1
        self.root_env = DataEnv({}, None, UNDEF, trace.globals, dict(externs or {}))
        self._memo: dict = {}
        #: the positions of each tool's calls, in order (read it, do not change it)
        self.by_tool: dict[str, list[int]] = {}
        by_tool = self.by_tool
        for i, c in enumerate(trace.calls):
            calls = by_tool.get(c.name)
            if calls is None:
                by_tool[c.name] = [i]
            else:
                calls.append(i)
        self._reference = Evaluator(trace, externs) if self.n == 0 else None

    def positions_of(self, tool: str) -> Sequence[int]:
        """The positions of the calls to `tool`, in order (do not modify the list)."""
        return self.by_tool.get(tool, ())

    def holds(self, phi: n.Formula, i: int = 0, env: DataEnv | None = None) -> bool:
        """τ, i ⊨ φ, like `Evaluator.holds`."""
        if self._reference is not None:
            return self._reference.holds(phi, i, env)
        return bool(self.bits(phi, env) >> i & 1)

    def vector(self, phi: n.Formula, env: DataEnv | None = None) -> list[bool]:
        """[τ, i ⊨ φ for i in 0..n-1] (an empty list for the empty trace)."""
        if self.n == 0:
            return []
        value = self.bits(phi, env)
        # bit i of `value` is position i: read the binary digits backwards (linear, where
        # shifting a long integer once per position would be quadratic)
        digits = format(value & ((1 << self.n) - 1), f"0{self.n}b")
        return [d == "1" for d in reversed(digits)]

    def domain(self, term: n.Term, env: DataEnv) -> list:
        return domain_values(eval_term(term, env))

    def bits(self, phi: n.Formula, env: DataEnv | None = None) -> int:
        """The positions where φ holds, as the set bits of an integer (none on the empty trace)."""
        if self.n == 0:
            return 0
        env = env or self.root_env
        free = _sorted_free_vars(phi)
        key = (phi, tuple([value_key(env.vars.get(v, UNDEF)) for v in free])) if free else phi
        cached = self._memo.get(key)
        if cached is None:
            cached = self._memo[key] = self._compute(phi, env)
        return cached

    def _compute(self, phi: n.Formula, env: DataEnv) -> int:  # noqa: C901 - one case per operator
        mask = self.mask
        if isinstance(phi, n.Const):
            return mask if phi.value else 0
        if isinstance(phi, n.Event):
            out = 0
            calls = self.trace.calls
            guard = None if phi.guard is b.LIT_TRUE else compile_term(phi.guard)
            at = reads_history(phi.guard)  # provenance: the guard reads the sources before its position
            for i in self.by_tool.get(phi.tool, ()):
                if guard is None or guard(env.at_call(env.args, env.result, i) if at else env, calls[i].args,
                                          calls[i].result) is True:
                    out |= 1 << i
            return out
        if isinstance(phi, n.Cond):
            return mask if holds(phi.term, env) else 0
        if isinstance(phi, n.Not):
            return mask & ~self.bits(phi.arg, env)
        if isinstance(phi, n.And):
            out = mask
            for arg in phi.args:
                out &= self.bits(arg, env)
                if not out:
                    break
            return out
        if isinstance(phi, n.Or):
            out = 0
            for arg in phi.args:
                out |= self.bits(arg, env)
            return out
        if isinstance(phi, n.Next):
            return self.bits(phi.arg, env) >> 1
        if isinstance(phi, n.WNext):
            return self.bits(phi.arg, env) >> 1 | 1 << (self.n - 1)
        if isinstance(phi, n.Yesterday):
            return self.bits(phi.arg, env) << 1 & mask
        if isinstance(phi, n.WYesterday):
            return (self.bits(phi.arg, env) << 1 | 1) & mask
        if isinstance(phi, (n.Until, n.Release, n.Since, n.Trigger)):
            return self._binary(phi, self.bits(phi.left, env), self.bits(phi.right, env))
        if isinstance(phi, (n.Forall, n.Exists)):
            universal = isinstance(phi, n.Forall)
            if isinstance(phi.body, n.Cond):  # the same at every position: one test per value
                values = self.domain(phi.domain, env)
                term = phi.body.term
                if isinstance(term, n.Op) and term.op == "in" and term.args[0] == n.Var(phi.var) \
                        and isinstance(term.args[1], n.Outputs):  # grounding: each value in the set
                    seen = eval_term(term.args[1], env)
                    contains = getattr(seen, "contains", None)  # a grounding set: asked directly
                    found = map(contains, values) if callable(contains) else (member(value, seen) for value in values)
                else:
                    test = compile_term(term)
                    found = (test(env.bind(phi.var, value), None, UNDEF) is True for value in values)
                return mask if (all(found) if universal else any(found)) else 0
            out = mask if universal else 0
            for value in self.domain(phi.domain, env):
                body = self.bits(phi.body, env.bind(phi.var, value))
                out = out & body if universal else out | body
            return out
        raise TypeError(f"not a formula: {type(phi).__name__}")

    def _binary(self, phi: n.Formula, left: int, right: int) -> int:
        mask, top = self.mask, 1 << (self.n - 1)
        if isinstance(phi, n.Until):
            if left == mask:  # F ψ: up to the last ψ
                return (1 << right.bit_length()) - 1
            step = lambda r: right | left & r >> 1  # noqa: E731
        elif isinstance(phi, n.Release):
            if left == 0:  # G ψ: after the last ¬ψ
                gaps = mask & ~right
                return mask & ~((1 << gaps.bit_length()) - 1)
            step = lambda r: right & (left | r >> 1 | top)  # noqa: E731
        elif isinstance(phi, n.Since):
            if left == mask:  # O ψ: from the first ψ on
                return mask & ~((right & -right) - 1) if right else 0
            step = lambda r: (right | left & r << 1) & mask  # noqa: E731
        else:
            if left == 0:  # H ψ: before the first ¬ψ
                gaps = mask & ~right
                return (gaps & -gaps) - 1 if gaps else mask
            step = lambda r: right & (left | r << 1 | 1)  # noqa: E731
        value = right
        while True:  # each round settles at least one more position
            following = step(value)
            if following == value:
                return value
            value = following


def _sorted_free_vars(phi: n.Formula) -> tuple[str, ...]:
    cached = phi._cache.get("sorted_free_vars")
    if cached is None:
        cached = phi._cache["sorted_free_vars"] = tuple(sorted(free_vars(phi)))
    return cached


def prepare(phi: n.Formula) -> None:
    """Fill the memos this engine keeps on the nodes of `phi` (each subformula's free
    variables, each event guard compiled), so that the first evaluation finds them: the gate
    prepares the rules it evaluates when a monitor is made, not at the first proposal. The
    memos are pure functions of the (hash-consed) nodes; preparing changes no value. A guard
    nested too deeply to compile here is left to the evaluation, which says so.

    >>> from policyc.ir import build as b
    >>> rule = b.always(b.implies(b.event("a", b.op("eq", b.arg("n"), b.lit(1))), b.eventually(b.event("b"))))
    >>> prepare(rule)
    >>> PositionEvaluator(Trace.of(("a", {"n": 1}), ("b", {}))).holds(rule)
    True
    """
    for node in subformulas(phi):  # children first: each memo below is one step from its children's
        free_vars(node)
        if isinstance(node, n.Formula):
            _sorted_free_vars(node)
        if isinstance(node, n.Event) and node.guard is not b.LIT_TRUE:
            try:
                compile_term(node.guard)
                reads_history(node.guard)
            except RecursionError:
                continue
