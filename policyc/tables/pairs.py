"""Can two rules still hold together? Exact, in the product of their two automata.

Two rules may each be satisfiable while no continuation satisfies both (`always (a -> always
not b)` and `called(b)`, once `a` ran). The product of two minimal DFAs is small, so the
first time a pair is needed its whole product is analysed at once, backwards from the
pairs of states that both accept: the result is a table saying, for every pair of states,
whether some continuation satisfies both. Continuations respect the end of a run: after a
terminal call, nothing. A pair whose table has no state where both rules are alive alone
but not together can never conflict, and is never looked at again.

>>> from policyc.tables.dfa import Alphabet, DfaTable, ToolLetters
>>> from policyc.tables.product import JointSpace
>>> ab = Alphabet((), {"a": ToolLetters((), {0: 0}, 0), "b": ToolLetters((), {0: 1}, 0)}, other=2)
>>> after_a_no_b = DfaTable(ab, 0, ((1, 0, 0), (1, 2, 1), (2, 2, 2)), (True, True, False),
...                         ("open", "open", "violated"), (None, None, None), (0, 0, None))
>>> ab2 = Alphabet((), {"b": ToolLetters((), {0: 0}, 0)}, other=1)
>>> needs_b = DfaTable(ab2, 0, ((1, 0), (1, 1)), (False, True), ("open", "satisfied"), (0, None), (1, 0))
>>> pairs = PairChecker(JointSpace([after_a_no_b, needs_b], {"a": (), "b": ()}, frozenset()))
>>> pairs.alive(0, 1, 0, 0), pairs.alive(0, 1, 1, 0), pairs.can_conflict(0, 1)
(True, False, True)
"""

from __future__ import annotations

from collections import deque

from policyc.tables.dfa import VIOLATED
from policyc.tables.product import JointSpace


class PairTable:
    """For every pair of states of rules i and j: can some continuation satisfy both?"""

    __slots__ = ("width", "alive", "can_conflict")

    def __init__(self, width: int, alive: bytearray, can_conflict: bool):
        self.width, self.alive, self.can_conflict = width, alive, can_conflict


class PairChecker:
    """Pair tables of one product. `rivals` may give, per rule, the rules it can conflict with
    (the artifact records them at compile time); otherwise they are found on first use."""

    def __init__(self, space: JointSpace, rivals: dict[int, tuple[int, ...]] | None = None):
        self.space = space
        self._tables: dict[tuple[int, int], PairTable] = {}
        self._rivals: dict[int, tuple[int, ...]] = dict(rivals or {})
        if rivals is not None:
            for i in range(len(space.tables)):
                self._rivals.setdefault(i, ())
        self._risky: dict[int, frozenset[int]] = {}

    def _moves(self, i: int, j: int) -> list[tuple[int, int, bool]]:
        """(letter of i, letter of j, terminal) of every kind of call, deduplicated."""
        space = self.space
        seen: dict[tuple[int, int], bool] = {}
        for tool, mask, final in space.moves():
            li, lj = space.letter(i, tool, mask), space.letter(j, tool, mask)
            if li is not None and lj is not None:
                # a letter that can be final or not must be tried both ways
                seen[(li, lj)] = seen.get((li, lj), final) and final
        return [(li, lj, final) for (li, lj), final in seen.items()]

    def table(self, i: int, j: int) -> PairTable:
        """The pair's table (i < j), computed on first use."""
        found = self._tables.get((i, j))
        if found is not None:
            return found
        ti, tj = self.space.tables[i], self.space.tables[j]
        ni, nj = ti.size, tj.size
        alive = bytearray(ni * nj)
        preds: list[list[int]] = [[] for _ in range(ni * nj)]
        queue: deque[int] = deque()
        moves = self._moves(i, j)
        for a in range(ni):
            row_i = ti.delta[a]
            for b in range(nj):
                here = a * nj + b
                if ti.accepting[a] and tj.accepting[b]:
                    alive[here] = 1
                for li, lj, final in moves:
                    na, nb = row_i[li], tj.delta[b][lj]
                    if final:
                        if ti.accepting[na] and tj.accepting[nb]:
                            alive[here] = 1
                    else:
                        preds[na * nj + nb].append(here)
                if alive[here]:
                    queue.append(here)
        while queue:
            for p in preds[queue.popleft()]:
                if not alive[p]:
                    alive[p] = 1
                    queue.append(p)
        conflict = any(not alive[a * nj + b] for a in range(ni) if ti.verdict[a] != VIOLATED
                       for b in range(nj) if tj.verdict[b] != VIOLATED)
        found = self._tables[(i, j)] = PairTable(nj, alive, conflict)
        return found

    def alive(self, i: int, j: int, qi: int, qj: int) -> bool:
        """Whether some continuation from states (qi, qj) satisfies rules i and j together."""
        if i > j:
            i, j, qi, qj = j, i, qj, qi
        t = self.table(i, j)
        return bool(t.alive[qi * t.width + qj])

    def can_conflict(self, i: int, j: int) -> bool:
        return self.table(min(i, j), max(i, j)).can_conflict

    def rivals(self, i: int) -> tuple[int, ...]:
        """The rules that rule i can ever conflict with (its pairs analysed on first use)."""
        found = self._rivals.get(i)
        if found is None:
            found = self._rivals[i] = tuple(j for j in self.space.neighbours[i] if self.can_conflict(i, j))
        return found

    def risky(self, i: int) -> frozenset[int]:
        """The states of rule i in which some rival and it can be alive alone but not together."""
        found = self._risky.get(i)
        if found is None:
            ti = self.space.tables[i]
            out: set[int] = set()
            for j in self.rivals(i):
                tj = self.space.tables[j]
                t = self.table(min(i, j), max(i, j))
                for a in range(ti.size):
                    if a in out or ti.verdict[a] == VIOLATED:
                        continue
                    for b in range(tj.size):
                        here = a * t.width + b if i < j else b * t.width + a
                        if tj.verdict[b] != VIOLATED and not t.alive[here]:
                            out.add(a)
                            break
            found = self._risky[i] = frozenset(out)
        return found


def rival_pairs(space: JointSpace) -> list[tuple[int, int]]:
    """Every pair of rules (i < j) that can ever conflict: what the compiler records."""
    checker = PairChecker(space)
    return sorted({(min(i, j), max(i, j)) for i in range(len(space.tables)) for j in checker.rivals(i)})
