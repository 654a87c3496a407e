"""A small reduced ordered BDD: the canonical form of residual formulas.

Progression keeps a residual as a boolean function of its temporal sub-formulas. Sorting
and flattening conjunctions is not enough to make equivalent residuals one state (`a or (a
and b)` and `a` differ as formulas), and without a canonical form progression can produce
ever longer residuals. A BDD over those sub-formulas is canonical: equivalent residuals are
one node, and there are finitely many.

>>> m = BDD()
>>> a, b = m.var("a"), m.var("b")
>>> m.or_(a, m.and_(a, b)) == a, m.and_(a, m.not_(a)) == BDD.FALSE
(True, True)
"""

from __future__ import annotations

from typing import Callable, Generic, Hashable, TypeVar

L = TypeVar("L", bound=Hashable)


class BDD(Generic[L]):
    FALSE = 0
    TRUE = 1

    def __init__(self) -> None:
        self.nodes: list[tuple[int, int, int]] = [(-1, 0, 0), (-1, 1, 1)]  # (level, low, high)
        self._unique: dict[tuple[int, int, int], int] = {}
        self._ite: dict[tuple[int, int, int], int] = {}
        self.labels: list[L] = []  # level -> what the variable stands for
        self._level: dict[L, int] = {}

    def var(self, label: L) -> int:
        level = self._level.get(label)
        if level is None:
            level = self._level[label] = len(self.labels)
            self.labels.append(label)
        return self._mk(level, self.FALSE, self.TRUE)

    def _mk(self, level: int, low: int, high: int) -> int:
        if low == high:
            return low
        key = (level, low, high)
        node = self._unique.get(key)
        if node is None:
            node = self._unique[key] = len(self.nodes)
            self.nodes.append(key)
        return node

    def ite(self, f: int, g: int, h: int) -> int:
        """if f then g else h."""
        if f == self.TRUE:
            return g
        if f == self.FALSE:
            return h
        if g == h:
            return g
        if g == self.TRUE and h == self.FALSE:
            return f
        key = (f, g, h)
        out = self._ite.get(key)
        if out is not None:
            return out
        level = min(self._top(f), self._top(g), self._top(h))
        f0, f1 = self._cofactors(f, level)
        g0, g1 = self._cofactors(g, level)
        h0, h1 = self._cofactors(h, level)
        out = self._mk(level, self.ite(f0, g0, h0), self.ite(f1, g1, h1))
        self._ite[key] = out
        return out

    def _top(self, u: int) -> int:
        return self.nodes[u][0] if u > 1 else 1 << 30

    def _cofactors(self, u: int, level: int) -> tuple[int, int]:
        if u > 1 and self.nodes[u][0] == level:
            return self.nodes[u][1], self.nodes[u][2]
        return u, u

    def not_(self, f: int) -> int:
        return self.ite(f, self.FALSE, self.TRUE)

    def and_(self, f: int, g: int) -> int:
        return self.ite(f, g, self.FALSE)

    def or_(self, f: int, g: int) -> int:
        return self.ite(f, self.TRUE, g)

    def compose(self, u: int, subst: Callable[[int], int], memo: dict) -> int:
        """Replace every variable (by level) with the BDD `subst(level)`, simultaneously."""
        if u <= 1:
            return u
        out = memo.get(u)
        if out is None:
            level, low, high = self.nodes[u]
            out = memo[u] = self.ite(subst(level), self.compose(high, subst, memo), self.compose(low, subst, memo))
        return out

    def evaluate(self, u: int, value: Callable[[int], bool]) -> bool:
        while u > 1:
            level, low, high = self.nodes[u]
            u = high if value(level) else low
        return u == self.TRUE

    def support(self, u: int, memo: dict) -> frozenset[int]:
        """The levels a node depends on."""
        if u <= 1:
            return frozenset()
        out = memo.get(u)
        if out is None:
            level, low, high = self.nodes[u]
            out = memo[u] = self.support(low, memo) | self.support(high, memo) | {level}
        return out

    def paths(self, u: int, to: int = TRUE) -> list[list[tuple[int, bool]]]:
        """The paths from `u` to the terminal `to`, as (level, value) lists."""
        if u <= 1:
            return [[]] if u == to else []
        level, low, high = self.nodes[u]
        return [[(level, False), *p] for p in self.paths(low, to)] + [[(level, True), *p] for p in self.paths(high, to)]
