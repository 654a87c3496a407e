"""Formula progression over finite traces, with past operators kept in state variables.

A state is a residual formula plus a memory. `progress(state, letter)` returns the state for
the rest of the trace: the residual holds at position 0 of the remaining suffix exactly when
the original held at the position just read. The residual is read on the suffix with the
evaluator's conventions, including on the empty suffix (`holds_on_empty`): there no event
holds, X, U, Y, S are false and WX, R, Z, T true.

Strong next needs a next position: `X a` progresses to `a` when `a` is false on the empty
suffix, else to `a and ALIVE` (ALIVE = `F true`: the suffix is not empty); weak next to `a`
or `a or not ALIVE`. Until and release unfold once: `a U b` to `b' or (a' and a U b)`.

Past sub-formulas (operands may only be past or propositional) are evaluated at the current
position from the letter and the memory: for `Y a` and `Z a` the memory holds whether `a`
held one position back, for `a S b` and `a T b` whether they did themselves; at position 0
it holds the defaults (Y, S false; Z, T true). The memory keeps only the past sub-formulas
the residual still needs, so states that differ in irrelevant history are one state.

>>> from policyc.ir import build as b
>>> a, c = b.event("a"), b.event("c")
>>> p = Progression(b.always(b.implies(c, b.once(a))), [frozenset({a}), frozenset({c}), frozenset()])
>>> s = p.initial()
>>> p.accepting(s), p.accepting(p.step(s, 1))          # `c` before any `a` fails
(True, False)
>>> p.step(p.step(s, 0), 1) == p.step(s, 0)            # after `a`, `c` is harmless
True
>>> p.to_formula(p.step(s, 0)[0])
G (c -> O a)
"""

from __future__ import annotations

from typing import Sequence

from policyc.ir import build as b
from policyc.ir import nodes as n

from policyc.automata.bdd import BDD

ALIVE = n.Until(n.TRUE, n.TRUE)  # the suffix is not empty
DEAD = b.neg(ALIVE)

_PAST = (n.Yesterday, n.WYesterday, n.Since, n.Trigger)
_FUTURE = (n.Next, n.WNext, n.Until, n.Release)

State = tuple[int, frozenset[n.Formula]]


class NotPropositional(ValueError):
    """A formula outside what progression handles (quantifiers, data conditions, future under past)."""


def holds_on_empty(f: n.Formula) -> bool:
    """The formula's value on the empty suffix (evaluator conventions).

    >>> from policyc.ir import build as b
    >>> holds_on_empty(b.always(b.event("a"))), holds_on_empty(b.eventually(b.event("a")))
    (True, False)
    """
    cached = f._cache.get("automata.empty")
    if cached is not None:
        return cached
    if isinstance(f, n.Const):
        out = f.value
    elif isinstance(f, (n.Event, n.Next, n.Until, n.Yesterday, n.Since)):
        out = False
    elif isinstance(f, (n.WNext, n.Release, n.WYesterday, n.Trigger)):
        out = True
    elif isinstance(f, n.Not):
        out = not holds_on_empty(f.arg)
    elif isinstance(f, n.And):
        out = all(holds_on_empty(a) for a in f.args)
    elif isinstance(f, n.Or):
        out = any(holds_on_empty(a) for a in f.args)
    else:
        raise NotPropositional(f"cannot progress {type(f).__name__}")
    f._cache["automata.empty"] = out
    return out


def past_nodes(f: n.Formula) -> frozenset:
    """Past sub-formulas of `f`, nested ones included."""
    cached = f._cache.get("automata.past")
    if cached is not None:
        return cached
    out = frozenset().union(*(past_nodes(c) for c in f.children if isinstance(c, n.Formula))) \
        if f.children else frozenset()
    if isinstance(f, _PAST):
        out = out | {f}
    f._cache["automata.past"] = out
    return out


def check_progressable(f: n.Formula) -> None:
    """Raise NotPropositional unless `f` is built from events and temporal operators only,
    with no future operator below a past one."""
    stack: list[tuple[n.Node, bool]] = [(f, False)]
    seen = set()
    while stack:
        cur, under_past = stack.pop()
        if (cur, under_past) in seen:
            continue
        seen.add((cur, under_past))
        if isinstance(cur, (n.Forall, n.Exists)):
            raise NotPropositional("a quantifier below a temporal operator")
        if isinstance(cur, n.Cond):
            raise NotPropositional("a data condition on trace-wide values")
        if under_past and isinstance(cur, _FUTURE):
            raise NotPropositional("a future operator below a past operator")
        if isinstance(cur, n.Event):
            continue
        for c in cur.children:
            stack.append((c, under_past or isinstance(cur, _PAST)))


class Progression:
    """Progression of one formula over an alphabet given as the events true per letter.

    A state is (residual, memory): the residual a node of a BDD whose variables are the
    formula's events, temporal and past sub-formulas (so equivalent residuals are one
    state), the memory the past sub-formulas that held one position back.
    """

    def __init__(self, formula: n.Formula, true_events: Sequence[frozenset]):
        check_progressable(formula)
        self.formula = formula
        self.true_events = list(true_events)
        self.bdd: BDD[n.Formula] = BDD()
        self._prog: dict = {}
        self._compose: dict = {}
        self._to_bdd: dict = {}
        self._support: dict = {}
        self._past_of: dict = {}
        self._empty: dict = {}
        self._paths: dict = {}
        self._origin: dict = {}  # BDD node -> the formula it was first built from

    # ------------------------------------------------------------------ formulas <-> BDDs

    def to_bdd(self, f: n.Formula) -> int:
        out = self._to_bdd.get(f)
        if out is None:
            m = self.bdd
            if isinstance(f, n.Const):
                out = m.TRUE if f.value else m.FALSE
            elif isinstance(f, n.Not):
                out = m.not_(self.to_bdd(f.arg))
            elif isinstance(f, n.And):
                out = m.TRUE
                for a in f.args:
                    out = m.and_(out, self.to_bdd(a))
            elif isinstance(f, n.Or):
                out = m.FALSE
                for a in f.args:
                    out = m.or_(out, self.to_bdd(a))
            else:
                out = m.var(f)
            self._to_bdd[f] = out
            self._origin.setdefault(out, f)
        return out

    def to_formula(self, u: int) -> n.Formula | None:
        """A readable formula for a residual: the formula it was built from, else the shorter
        of its DNF and negated DNF; None when both have more than 16 terms."""
        origin = self._origin.get(u)
        if origin is not None:
            return origin
        m = self.bdd
        if self._count_paths(u) > 32:
            return None
        labels = m.labels
        pos, neg = m.paths(u, m.TRUE), m.paths(u, m.FALSE)

        def dnf(paths):
            return b.disj(*(b.conj(*(labels[l] if v else b.neg(labels[l]) for l, v in p)) for p in paths))

        return dnf(pos) if len(pos) <= len(neg) + 1 else b.neg(dnf(neg))

    def _count_paths(self, u: int) -> int:
        """Paths to either terminal below u (to bound the size of a printed residual)."""
        if u <= 1:
            return 1
        out = self._paths.get(u)
        if out is None:
            _, low, high = self.bdd.nodes[u]
            out = self._paths[u] = min(self._count_paths(low) + self._count_paths(high), 1 << 20)
        return out

    def _past_needed(self, u: int) -> frozenset:
        out = self._past_of.get(u)
        if out is None:
            labels = self.bdd.labels
            out = frozenset().union(*(past_nodes(labels[l]) for l in self.bdd.support(u, self._support)))
            self._past_of[u] = out
        return out

    # ------------------------------------------------------------------ states

    def initial(self) -> State:
        u = self.to_bdd(self.formula)
        return u, frozenset(p for p in self._past_needed(u) if isinstance(p, (n.WYesterday, n.Trigger)))

    def accepting(self, state: State) -> bool:
        u = state[0]
        out = self._empty.get(u)
        if out is None:
            labels = self.bdd.labels
            out = self._empty[u] = self.bdd.evaluate(u, lambda level: holds_on_empty(labels[level]))
        return out

    def step(self, state: State, letter: int) -> State:
        u, mem = state
        if u <= 1:
            return state
        key = (u, letter, mem)
        cached = self._compose.get(key)
        if cached is not None:
            return cached
        events = self.true_events[letter]
        past_cache: dict = {}
        m = self.bdd
        memo = self._prog

        def past(f: n.Formula) -> bool:
            v = past_cache.get(f)
            if v is None:
                if isinstance(f, n.Const):
                    v = f.value
                elif isinstance(f, n.Event):
                    v = f in events
                elif isinstance(f, n.Not):
                    v = not past(f.arg)
                elif isinstance(f, n.And):
                    v = all(past(a) for a in f.args)
                elif isinstance(f, n.Or):
                    v = any(past(a) for a in f.args)
                elif isinstance(f, (n.Yesterday, n.WYesterday)):
                    v = f in mem
                elif isinstance(f, n.Since):
                    v = past(f.right) or past(f.left) and f in mem
                elif isinstance(f, n.Trigger):
                    v = past(f.right) and (past(f.left) or f in mem)
                else:
                    raise NotPropositional(f"{type(f).__name__} below a past operator")
                past_cache[f] = v
            return v

        def prog(f: n.Formula) -> int:
            """The residual (a BDD) of formula f after the current letter."""
            key = (f, letter, mem) if past_nodes(f) else (f, letter)
            out = memo.get(key)
            if out is not None:
                return out
            if isinstance(f, n.Const):
                out = m.TRUE if f.value else m.FALSE
            elif isinstance(f, n.Event):
                out = m.TRUE if f in events else m.FALSE
            elif isinstance(f, _PAST):
                out = m.TRUE if past(f) else m.FALSE
            elif isinstance(f, n.Not):
                out = m.not_(prog(f.arg))
            elif isinstance(f, n.And):
                out = m.TRUE
                for a in f.args:
                    out = m.and_(out, prog(a))
                    if out == m.FALSE:
                        break
            elif isinstance(f, n.Or):
                out = m.FALSE
                for a in f.args:
                    out = m.or_(out, prog(a))
                    if out == m.TRUE:
                        break
            elif isinstance(f, n.Next):
                out = self.to_bdd(f.arg)
                if holds_on_empty(f.arg):
                    out = m.and_(out, self.to_bdd(ALIVE))
            elif isinstance(f, n.WNext):
                out = self.to_bdd(f.arg)
                if not holds_on_empty(f.arg):
                    out = m.or_(out, m.not_(self.to_bdd(ALIVE)))
            elif isinstance(f, n.Until):
                out = m.or_(prog(f.right), m.and_(prog(f.left), self.to_bdd(f)))
            elif isinstance(f, n.Release):
                out = m.and_(prog(f.right), m.or_(prog(f.left), self.to_bdd(f)))
            else:
                raise NotPropositional(f"cannot progress {type(f).__name__}")
            memo[key] = out
            return out

        labels = m.labels
        nxt = m.compose(u, lambda level: prog(labels[level]), {})
        new_mem = frozenset(
            p for p in self._past_needed(nxt)
            if (past(p.arg) if isinstance(p, (n.Yesterday, n.WYesterday)) else past(p))
        )
        out = self._compose[key] = (nxt, new_mem)
        return out
