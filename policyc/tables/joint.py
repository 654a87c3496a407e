"""Can a set of rules still hold together? A complete search in their product, within a budget.

Each rule alone may still be satisfiable while no single continuation satisfies them all
(`G(a -> G not b)` with `F b` after an `a`). `JointSearch.check(jid, rules)` answers

- True: some continuation satisfies every rule (a witness was found on letters some call
  can produce);
- False: none does (every letter a call can produce was tried, runs ending at a terminal
  call included);
- None: not decided: the search exceeded its budget of joint states, or the letters of a
  tool two of the rules guard were not decided together (see `JointSpace.letters_exact`).

The search looks only at the rules asked about: their states, and the calls they can tell
apart (projected, deduplicated). It first tries a cheap witness, the rules' own shortest
continuations one after the other, then explores breadth first. Answers are memoised per
(rules, their states), so runs that come back to a situation pay nothing; every state along
a witness path is remembered as able to comply.

The gate asks it with a small budget before each call (and says when it did not decide);
the lint asks once, with a large budget, whether any run at all satisfies a set of claims
(`satisfiable`).
"""

from __future__ import annotations

from collections import deque

from policyc.tables.dfa import SATISFIED, VIOLATED
from policyc.tables.product import OTHER, UNTRACKED, JointSpace

#: Joint states one search may visit before it gives up (the answer is then None).
SEARCH_BUDGET = 4096

Moves = tuple[tuple[tuple[int, ...], bool], ...]  # (one letter per rule, whether the call ends the run)


class JointSearch:
    """Searches in one product, memoised per (rules, their states) across calls and runs."""

    def __init__(self, space: JointSpace, budget: int = SEARCH_BUDGET):
        self.space = space
        self.budget = budget
        self._memo: dict[tuple[tuple[int, ...], tuple[int, ...]], bool | None] = {}
        self._moves: dict[tuple[int, ...], tuple[Moves, Moves]] = {}

    # ------------------------------------------------------------ the question

    def pending(self, jid: int, rules) -> tuple[int, ...] | None:
        """The rules still to satisfy from `jid`, sorted (None if one is lost already)."""
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
        return tuple(sorted(out))

    def check(self, jid: int, rules) -> bool | None:
        """Whether some continuation from joint state `jid` satisfies every rule of `rules`."""
        rest = self.pending(jid, rules)
        if rest is None:
            return False
        states = self.space.states[jid]
        return self.check_states(rest, tuple(states[i] for i in rest))

    def check_states(self, rules: tuple[int, ...], states: tuple[int, ...]) -> bool | None:
        """The same question for these rules (sorted) in these states of theirs."""
        tables = self.space.tables
        if all(tables[i].accepting[s] for i, s in zip(rules, states)):
            return True
        key = (rules, states)
        if key in self._memo:
            return self._memo[key]
        certain, every = self.moves(rules)
        path = self._greedy(rules, states, certain)
        if path is not None:
            self._remember(rules, states, path)
            return True
        answer = self._explore(rules, states, certain, final_answer=len(every) == len(certain))
        if answer is False and len(every) > len(certain):
            # some calls combine guards no compiler decided: with them, is there a way?
            answer = False if self._explore(rules, states, every, final_answer=True) is False else None
        self._memo[key] = answer
        return answer

    # ------------------------------------------------------------ the calls the rules tell apart

    def moves(self, rules: tuple[int, ...]) -> tuple[Moves, Moves]:
        """The distinct calls for these rules — per call, the letter of each rule and whether it
        ends the run — as (the calls certainly some call produces, every listed call). A tool
        only one of these rules guards offers that rule's own letters; one that several guard
        offers the product's letters for it, certain when the compiler decided them together."""
        found = self._moves.get(rules)
        if found is not None:
            return found
        space = self.space
        certain: dict[tuple[int, ...], bool] = {}
        every: dict[tuple[int, ...], bool] = {}
        for key in space.keys():
            if key == OTHER:
                masks: tuple[int, ...] = (0,)
                endings = space.other_endings
                sure = True
            else:
                guarded = [i for i in rules if space.guards(i, key)]
                if len(guarded) >= 2:
                    masks, sure = space.letters_of(key), space.letters_exact(key)
                else:
                    masks = space.owner_masks(key, guarded[0]) if guarded else (0,)
                    sure = not guarded or space.tables[guarded[0]].alphabet.exact
                endings = (key in space.terminal,)
            for mask in masks:
                found_letters = [space.letter(i, key, mask) for i in rules]
                if any(x is None for x in found_letters):
                    continue
                letters = tuple(x for x in found_letters if x is not None)
                for final in endings:
                    # a call that can end the run or go on is tried as going on (it can also stop there)
                    for table in ((certain, every) if sure else (every,)):
                        table[letters] = table.get(letters, final) and final
        found = self._moves[rules] = (tuple(certain.items()), tuple(every.items()))
        return found

    def complete(self, rules) -> bool:
        """Whether a "no" for these rules is certain: every tool two of them guard has all its
        letters listed."""
        space = self.space
        for key in space.keys():
            if key != OTHER and not space.letters_complete(key) and \
                    sum(1 for i in rules if space.guards(i, key)) >= 2:
                return False
        return True

    # ------------------------------------------------------------ witnesses

    def _remember(self, rules: tuple[int, ...], states: tuple[int, ...], path: list[tuple[int, ...]]) -> None:
        """Every state along a witness path can still comply (with the rest of the path)."""
        tables = self.space.tables
        self._memo[(rules, states)] = True
        for letters in path:
            states = tuple(tables[i].delta[s][x] for i, s, x in zip(rules, states, letters))
            self._memo[(rules, states)] = True

    def _greedy(self, rules: tuple[int, ...], states: tuple[int, ...], moves: Moves) -> list[tuple[int, ...]] | None:
        """Satisfy the rules one after another, each by its own shortest continuation, taking
        at each step the first rule whose next move loses no rule."""
        tables = self.space.tables
        by_letter: list[dict[int, list[tuple[tuple[int, ...], bool]]]] = [{} for _ in rules]
        for letters, final in moves:
            for k, x in enumerate(letters):
                by_letter[k].setdefault(x, []).append((letters, final))
        limit = 4 + 2 * sum(tables[i].dist_accept[s] or 0 for i, s in zip(rules, states))
        path: list[tuple[int, ...]] = []
        while len(path) <= limit:
            if all(tables[i].accepting[s] for i, s in zip(rules, states)):
                return path
            for k, (i, s) in enumerate(zip(rules, states)):
                if tables[i].accepting[s]:
                    continue
                want = tables[i].to_accept[s]
                step = None
                for letters, final in by_letter[k].get(want, ()) if want is not None else ():
                    after = tuple(tables[r].delta[q][x] for r, q, x in zip(rules, states, letters))
                    if any(tables[r].verdict[q] == VIOLATED for r, q in zip(rules, after)):
                        continue
                    if final and not all(tables[r].accepting[q] for r, q in zip(rules, after)):
                        continue  # this call would end the run too early
                    step = letters, after, final
                    break
                if step is None:
                    continue
                path.append(step[0])
                states = step[1]
                if step[2]:
                    return path
                break
            else:
                return None
        return None

    def _explore(self, rules: tuple[int, ...], states: tuple[int, ...], moves: Moves,
                 final_answer: bool) -> bool | None:
        """Breadth first from `states`. With `final_answer`, a search that runs out of moves is
        a certain "no" (when the moves are complete) and its states are remembered dead."""
        tables = self.space.tables
        memo = self._memo
        seen = {states}
        queue = deque([states])
        while queue:
            here = queue.popleft()
            for letters, final in moves:
                after = tuple(tables[r].delta[q][x] for r, q, x in zip(rules, here, letters))
                if any(tables[r].verdict[q] == VIOLATED for r, q in zip(rules, after)):
                    continue
                if all(tables[r].accepting[q] for r, q in zip(rules, after)):
                    return True
                if final or after in seen:
                    continue
                if memo.get((rules, after)) is True:
                    return True
                if len(seen) >= self.budget:
                    return None
                seen.add(after)
                queue.append(after)
        if not self.complete(rules):
            return None
        if final_answer:
            for dead in seen:  # nothing reachable from any of them accepts
                memo[(rules, dead)] = False
        return False


def satisfiable(space: JointSpace, budget: int) -> bool | None:
    """Exactly, for runs of any length: does some run satisfy every rule of the product?
    Runs are calls to the declared tools, a terminal tool only as the last call. None when
    the search exceeds `budget` joint states, or when the product's letters cannot settle the
    answer (see `JointSearch.check`).

    >>> from policyc.tables.dfa import Alphabet, DfaTable, ToolLetters
    >>> ab = Alphabet((), {"a": ToolLetters((), {0: 0}, 0)}, other=1)
    >>> need_a = DfaTable(ab, 0, ((1, 0), (1, 1)), (False, True), ("open", "satisfied"), (0, None), (1, 0))
    >>> never_a = DfaTable(ab, 0, ((1, 0), (1, 1)), (True, False), ("open", "violated"), (None, None), (0, None))
    >>> satisfiable(JointSpace([need_a, never_a], {"a": (), "b": ()}, frozenset()), 1000)
    False
    >>> satisfiable(JointSpace([need_a], {"a": ()}, frozenset({"a"})), 1000)   # `a` ends the run: fine
    True
    """
    return JointSearch(space, budget).check(space.initial, range(len(space.tables)))
