"""Can two rules still hold together? An exact search in the product of their two automata.

Two rules may each be satisfiable while no continuation satisfies both (`always (a -> always
not b)` and `called(b)`, once `a` ran). The product of two minimal DFAs is small, so the
answer for a pair of states is computed once, by a forward search that stops at the first
joint acceptance, and memoised with everything the search learnt: states on a path to
acceptance can still comply, and every state reachable from a state that cannot comply
cannot either. Continuations respect the end of a run: after a terminal call, nothing.

>>> from policyc.automata.table import Alphabet, DfaTable, ToolLetters
>>> from policyc.runtime.product import JointSpace
>>> ab = Alphabet((), {"a": ToolLetters((), {0: 0}, 0), "b": ToolLetters((), {0: 1}, 0)}, other=2)
>>> after_a_no_b = DfaTable(ab, 0, ((1, 0, 0), (1, 2, 1), (2, 2, 2)), (True, True, False),
...                         ("open", "open", "violated"), (None, None, None), (0, 0, None))
>>> ab2 = Alphabet((), {"b": ToolLetters((), {0: 0}, 0)}, other=1)
>>> needs_b = DfaTable(ab2, 0, ((1, 0), (1, 1)), (False, True), ("open", "satisfied"), (0, None), (1, 0))
>>> pairs = PairChecker(JointSpace([after_a_no_b, needs_b], {"a": (), "b": ()}, frozenset()))
>>> pairs.alive(0, 1, 0, 0), pairs.alive(0, 1, 1, 0)
(True, False)
"""

from __future__ import annotations

from collections import deque

from policyc.automata.table import SATISFIED, VIOLATED
from policyc.runtime.product import OTHER, JointSpace


class PairChecker:
    def __init__(self, space: JointSpace):
        self.space = space
        self._alive: dict[tuple[int, int, int, int], bool] = {}
        self._moves: dict[tuple[int, int], list[tuple[int, int, bool]]] = {}

    def _pair_moves(self, i: int, j: int) -> list[tuple[int, int, bool]]:
        """(letter of i, letter of j, terminal) of every call, deduplicated."""
        key = (i, j)
        moves = self._moves.get(key)
        if moves is None:
            space = self.space
            seen: dict[tuple[int, int], bool] = {}
            keys = sorted(space.mentions[i] | space.mentions[j]) + [OTHER]
            for tool in keys:
                final = tool in space.terminal
                for mask in space.letters_of(tool) if tool != OTHER else (0,):
                    li, lj = space._letter(i, tool, mask), space._letter(j, tool, mask)
                    if li is None or lj is None:
                        continue
                    # a letter that can be final or not must be tried both ways
                    seen[(li, lj)] = seen.get((li, lj), final) and final
            moves = self._moves[key] = [(li, lj, final) for (li, lj), final in seen.items()]
        return moves

    def alive(self, i: int, j: int, qi: int, qj: int) -> bool:
        """Whether some continuation from states (qi, qj) satisfies rules i and j together."""
        if i > j:
            i, j, qi, qj = j, i, qj, qi
        key = (i, j, qi, qj)
        known = self._alive.get(key)
        if known is not None:
            return known
        ti, tj = self.space.tables[i], self.space.tables[j]
        if ti.verdict[qi] == VIOLATED or tj.verdict[qj] == VIOLATED:
            return self._remember(key, False)
        if ti.verdict[qi] == SATISFIED or tj.verdict[qj] == SATISFIED or ti.accepting[qi] and tj.accepting[qj]:
            return self._remember(key, True)
        moves = self._pair_moves(i, j)
        parent: dict[tuple[int, int], tuple[int, int] | None] = {(qi, qj): None}
        queue = deque([(qi, qj)])
        while queue:
            a, b = queue.popleft()
            for li, lj, final in moves:
                na, nb = ti.delta[a][li], tj.delta[b][lj]
                if ti.accepting[na] and tj.accepting[nb]:
                    node: tuple[int, int] | None = (a, b)
                    while node is not None:  # every state on the way can comply
                        self._alive[(i, j, *node)] = True
                        node = parent[node]
                    return True
                if final or (na, nb) in parent or ti.verdict[na] == VIOLATED or tj.verdict[nb] == VIOLATED:
                    continue
                known = self._alive.get((i, j, na, nb))
                if known is True:
                    node = (a, b)
                    while node is not None:
                        self._alive[(i, j, *node)] = True
                        node = parent[node]
                    return True
                if known is False:
                    continue
                parent[(na, nb)] = (a, b)
                queue.append((na, nb))
        for a, b in parent:  # nothing reachable complies
            self._alive[(i, j, a, b)] = False
        return False

    def _remember(self, key, value: bool) -> bool:
        self._alive[key] = value
        return value
