"""Can the open rules still hold together? A search in the lazily built product.

Each rule alone may still be satisfiable while no single continuation satisfies them all
(`G(a -> G not b)` with `F b` after an `a`). `JointSearch.check(jid, rules)` answers True,
False, or None when the search ran out of budget (then nothing is reported). The gate asks it
with a small budget before each call; the lint asks it once, with a large one, whether any
run at all satisfies a set of claims (`satisfiable`).

The search first tries a cheap witness: the rules' own shortest continuations, one after
the other. When that fails it explores the product breadth first, within a budget. Every
witness found is remembered along its path, so a run that follows (or stays near) a
known way to comply costs no new search.
"""

from __future__ import annotations

from collections import deque

from policyc.tables.dfa import SATISFIED, VIOLATED
from policyc.tables.product import OTHER, UNTRACKED, JointSpace

#: Joint states one search may visit before it gives up (the answer is then unknown).
SEARCH_BUDGET = 256

Letter = tuple[str, int]  # (tool key, mask)


class JointSearch:
    """Searches in one product, memoised per (rules, their states) across calls and runs."""

    def __init__(self, space: JointSpace, budget: int = SEARCH_BUDGET):
        self.space = space
        self.budget = budget
        self._memo: dict[tuple, bool | None] = {}

    def pending(self, jid: int, rules: frozenset[int]) -> frozenset[int] | None:
        """The rules still to satisfy from `jid` (None if one is lost already)."""
        states = self.space.states[jid]
        tables = self.space.tables
        out = []
        for i in rules:
            s = states[i]
            if s == UNTRACKED:
                continue
            verdict = tables[i].verdict[s]
            if verdict == VIOLATED:
                return None
            if verdict != SATISFIED:
                out.append(i)
        return frozenset(out)

    def check(self, jid: int, rules: frozenset[int]) -> bool | None:
        rest = self.pending(jid, rules)
        if rest is None:
            return False
        if not rest or self.space.accepting(jid, rest):
            return True
        key = self._key(jid, rest)
        if key in self._memo:
            return self._memo[key]
        path = self._greedy(jid, rest)
        if path is not None:
            self._remember(jid, rest, path)
            return True
        answer = self._explore(jid, rest)
        self._memo[key] = answer
        return answer

    # ------------------------------------------------------------ witnesses

    def _key(self, jid: int, rules: frozenset[int]) -> tuple:
        """The answer depends only on the states of `rules`: joint states that agree on them
        share it, across runs."""
        states = self.space.states[jid]
        return rules, tuple(states[i] for i in sorted(rules))

    def _remember(self, jid: int, rules: frozenset[int], path: list[Letter]) -> None:
        """Every state along a witness path can still comply (with the rest of the path)."""
        self._memo[self._key(jid, rules)] = True
        for key, mask in path:
            nxt = self.space.step(jid, key, mask)
            rest = None if nxt is None else self.pending(nxt, rules)
            if nxt is None or rest is None:
                return
            jid = nxt
            self._memo[self._key(jid, rest)] = True

    def _realise(self, rule: int, local_letter: int) -> Letter | None:
        """A product letter that gives `rule` this letter of its own alphabet."""
        tool = self.space.letter_tools[rule][local_letter]
        if tool is None:
            return (OTHER, 0)
        for mask in self.space.letters_of(tool):
            if self.space.letter(rule, tool, mask) == local_letter:
                return (tool, mask)
        return None

    def _greedy(self, jid: int, rules: frozenset[int]) -> list[Letter] | None:
        """Satisfy the rules one after another, each by its own shortest continuation,
        taking at each step the first rule whose next move loses no rule."""
        space, tables = self.space, self.space.tables
        limit = 4 + 2 * sum(tables[i].dist_accept[space.states[jid][i]] or 0 for i in rules)
        path: list[Letter] = []
        rest = self.pending(jid, rules)
        while rest is not None and len(path) <= limit:
            if not rest or space.accepting(jid, rest):
                return path
            for i in sorted(rest):
                state = space.states[jid][i]
                letter = None if tables[i].accepting[state] else tables[i].to_accept[state]
                move = None if letter is None else self._realise(i, letter)
                nxt = None if move is None else space.step(jid, *move)
                if move is None or nxt is None:
                    continue
                after = self.pending(nxt, rest)
                if after is None or move[0] in space.terminal and not space.accepting(nxt, after):
                    continue  # this move would lose a rule, or end the run too early
                path.append(move)
                jid, rest = nxt, after
                break
            else:
                return None
        return None

    def _explore(self, jid: int, rules: frozenset[int]) -> bool | None:
        space = self.space
        moves = space.moves()
        seen = {(jid, rules)}
        queue = deque([(jid, rules)])
        while queue:
            node = queue.popleft()
            j, rest = node
            for key, mask, final in moves:
                k = space.step(j, key, mask)
                if k is None:
                    continue
                nrest = self.pending(k, rest)
                if nrest is None:
                    continue
                if not nrest or space.accepting(k, nrest):
                    return True
                if final or (k, nrest) in seen:
                    continue
                if self._memo.get(self._key(k, nrest)) is True:
                    return True
                if len(seen) >= self.budget:
                    return None
                seen.add((k, nrest))
                queue.append((k, nrest))
        return False


def satisfiable(space: JointSpace, budget: int) -> bool | None:
    """Exactly, for runs of any length: does some run satisfy every rule of the product?
    Runs are calls to the declared tools, a terminal tool only as the last call. None when
    the search exceeds `budget` joint states, or when the product's moves cannot settle the
    answer (`JointSpace.moves_complete` for "no", `moves_exact` for "yes").

    >>> from policyc.tables.dfa import Alphabet, DfaTable, ToolLetters
    >>> ab = Alphabet((), {"a": ToolLetters((), {0: 0}, 0)}, other=1)
    >>> need_a = DfaTable(ab, 0, ((1, 0), (1, 1)), (False, True), ("open", "satisfied"), (0, None), (1, 0))
    >>> never_a = DfaTable(ab, 0, ((1, 0), (1, 1)), (True, False), ("open", "violated"), (None, None), (0, None))
    >>> satisfiable(JointSpace([need_a, never_a], {"a": (), "b": ()}, frozenset()), 1000)
    False
    >>> satisfiable(JointSpace([need_a], {"a": ()}, frozenset({"a"})), 1000)   # `a` ends the run: fine
    True
    """
    found = JointSearch(space, budget).check(space.initial, frozenset(range(len(space.tables))))
    if found is False and not space.moves_complete:
        return None
    if found is True and not space.moves_exact:
        return None
    return found
