"""Can the open rules still hold together? A search in the lazily built product.

Each rule alone may still be satisfiable while no single continuation satisfies them all
(`G(a -> G not b)` with `F b` after an `a`). `Together.check(jid, rules)` answers True,
False, or None when the search ran out of budget (then nothing is reported).

The search first tries a cheap witness: the rules' own shortest continuations, one after
the other. When that fails it explores the product breadth first, within a budget. Every
witness found is remembered along its path, so a run that follows (or stays near) a
known way to comply costs no new search.
"""

from __future__ import annotations

from collections import deque

from policyc.automata.table import SATISFIED, VIOLATED
from policyc.runtime.product import OTHER, UNTRACKED, JointSpace

#: Joint states one search may visit before it gives up.
SEARCH_BUDGET = 2048

Letter = tuple[str, int]  # (tool key, mask)


class Together:
    def __init__(self, space: JointSpace, budget: int = SEARCH_BUDGET):
        self.space = space
        self.budget = budget
        self._memo: dict[tuple[int, frozenset[int]], bool | None] = {}

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
        key = (jid, rest)
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

    def _remember(self, jid: int, rules: frozenset[int], path: list[Letter]) -> None:
        """Every state along a witness path can still comply (with the rest of the path)."""
        self._memo[(jid, rules)] = True
        for key, mask in path:
            jid = self.space.step(jid, key, mask)
            rest = self.pending(jid, rules)
            if rest is None or jid is None:
                return
            self._memo[(jid, rest)] = True

    def _realise(self, rule: int, local_letter: int) -> Letter | None:
        """A product letter that gives `rule` this letter of its own alphabet."""
        tool = self.space.letter_tools[rule][local_letter]
        if tool is None:
            return (OTHER, 0)
        for mask in self.space.letters_of(tool):
            if self.space._letter(rule, tool, mask) == local_letter:
                return (tool, mask)
        return None

    def _greedy(self, jid: int, rules: frozenset[int]) -> list[Letter] | None:
        """Satisfy the rules one after another, each by its own shortest continuation."""
        space, tables = self.space, self.space.tables
        limit = 4 + 2 * sum(tables[i].dist_accept[space.states[jid][i]] or 0 for i in rules)
        path: list[Letter] = []
        while len(path) <= limit:
            rest = self.pending(jid, rules)
            if rest is None:
                return None
            if not rest or space.accepting(jid, rest):
                return path
            if path and path[-1][0] in space.terminal:
                return None
            lagging = next(i for i in sorted(rest) if not tables[i].accepting[space.states[jid][i]])
            letter = tables[lagging].to_accept[space.states[jid][lagging]]
            if letter is None:
                return None
            move = self._realise(lagging, letter)
            if move is None:
                return None
            nxt = space.step(jid, *move)
            if nxt is None:
                return None
            path.append(move)
            jid = nxt
        return None

    def _explore(self, jid: int, rules: frozenset[int]) -> bool | None:
        space = self.space
        moves = [(key, mask) for key in space.keys()
                 for mask in (space.letters_of(key) if key != OTHER else (0,))]
        seen = {(jid, rules)}
        queue = deque([(jid, rules)])
        while queue:
            node = queue.popleft()
            j, rest = node
            for key, mask in moves:
                k = space.step(j, key, mask)
                if k is None:
                    continue
                nrest = self.pending(k, rest)
                if nrest is None:
                    continue
                if not nrest or space.accepting(k, nrest):
                    return True
                if key in space.terminal or (k, nrest) in seen:
                    continue
                if self._memo.get((k, nrest)) is True:
                    return True
                if len(seen) >= self.budget:
                    return None
                seen.add((k, nrest))
                queue.append((k, nrest))
        return False
