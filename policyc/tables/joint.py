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
continuations one after the other; then the smaller questions, each rule with the rules that
share a tool with it (most conflicts are a few rules: a part that cannot hold is a "no" for
the whole, and its minimal core is tried first in every later question that contains it);
then it explores breadth first, a step rewriting only the rules the call moves. Answers are
memoised per whole question (the rules and their states), so runs that come back to a
situation pay nothing; a search never reads what another question found out along its way,
so an answer (None included) is the same whatever was asked before: the budget is per
question.

The gate asks it with a small budget before each call (and says when it did not decide);
the lint asks once, with a large budget, whether any run at all satisfies a set of claims
(`satisfiable`).
"""

from __future__ import annotations

from collections import deque
from typing import Any

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
        self._sparse: dict[tuple, Any] = {}  # per (rules, moves): the moves indexed for the searches

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
            self._memo[key] = True
            return True
        if self._part_fails(rules, states) is False:  # small searches first: most conflicts are few rules
            self._memo[key] = False
            return False
        answer = self._explore(rules, states, certain)
        if answer is False and len(every) > len(certain):
            # some calls combine guards no compiler decided: with them, is there a way?
            answer = False if self._explore(rules, states, every) is False else None
        self._memo[key] = answer
        return answer

    # ------------------------------------------------------------ conflicts among fewer rules

    def _part_fails(self, rules: tuple[int, ...], states: tuple[int, ...]) -> bool | None:
        """False when the rules sharing a tool with one of them already cannot hold together
        (no continuation satisfies a part, so none satisfies the whole). None otherwise."""
        mentions = self.space.mentions
        at = dict(zip(rules, states))
        tried: set[tuple[int, ...]] = set()
        for i in rules:
            part = tuple(j for j in rules if j == i or mentions[i] & mentions[j])
            if len(part) < 2 or len(part) == len(rules) or part in tried:
                continue
            tried.add(part)
            if self.check_states(part, tuple(at[j] for j in part)) is False:
                return False
        return None

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

    def _greedy(self, rules: tuple[int, ...], states: tuple[int, ...], moves: Moves) -> list[tuple[int, ...]] | None:
        """Satisfy the rules one after another, each by its own shortest continuation, taking
        at each step the first rule whose next move loses no rule."""
        tables = self.space.tables
        deltas = [tables[r].delta for r in rules]
        lost = [self.space.violated[r] for r in rules]
        accept = [tables[r].accepting for r in rules]
        toward = [tables[r].to_accept for r in rules]
        by_letter = self._by_letter(rules, moves)
        limit = 4 + 2 * sum(tables[i].dist_accept[s] or 0 for i, s in zip(rules, states))
        here = list(states)
        waiting = sum(1 for k, q in enumerate(here) if not accept[k][q])
        path: list[tuple[int, ...]] = []
        while len(path) <= limit:
            if not waiting:
                return path
            for k, q in enumerate(here):
                want = None if accept[k][q] else toward[k][q]
                if want is None:
                    continue
                step = None
                for letters, moved, final in by_letter[k].get(want, ()):
                    changes, left = [], waiting
                    for m, x in moved:
                        before = here[m]
                        after = deltas[m][before][x]
                        if after != before:
                            if lost[m][after]:
                                break
                            changes.append((m, after))
                            left += accept[m][before] - accept[m][after]
                    else:
                        if final and left:
                            continue  # this call would end the run too early
                        step = letters, changes, left, final
                        break
                if step is None:
                    continue
                path.append(step[0])
                for m, after in step[1]:
                    here[m] = after
                waiting = step[2]
                if step[3]:
                    return path if not waiting else None
                break
            else:
                return None
        return None

    def _by_letter(self, rules: tuple[int, ...], moves: Moves) -> list[dict[int, list]]:
        """Per rule (by position), the moves by that rule's letter: (letters, the rules they
        can move as in `_steps`, whether the call ends the run). Memoised like `_steps`."""
        key = (rules, len(moves), "by letter")
        found = self._sparse.get(key)
        if found is None:
            movers = self._movers(rules)
            found = [{} for _ in rules]
            for letters, final in moves:
                moved = tuple((k, x) for k, x in enumerate(letters) if x in movers[k])
                for k, x in enumerate(letters):
                    found[k].setdefault(x, []).append((letters, moved, final))
            self._sparse[key] = found
        return found

    def _steps(self, rules: tuple[int, ...], moves: Moves) -> tuple[tuple[tuple[tuple[int, int], ...], bool], ...]:
        """Per move, the (position, letter) of the rules its letters can move, and whether it
        ends the run; moves that move none of these rules are left out (from a state the search
        keeps, they lead back to it). Memoised per (rules, moves): the moves are either the
        certain or every listed call of `moves(rules)`, the first a part of the second, so
        their number tells them apart."""
        key = (rules, len(moves))
        found = self._sparse.get(key)
        if found is None:
            movers = self._movers(rules)
            found = tuple((moved, final) for moved, final in (
                (tuple((k, x) for k, x in enumerate(letters) if x in movers[k]), final) for letters, final in moves)
                if moved)
            self._sparse[key] = found
        return found

    def _movers(self, rules: tuple[int, ...]) -> list[frozenset[int]]:
        """Per rule (by position), the letters that move it out of some state. Memoised per rule."""
        out = []
        for r in rules:
            found = self._sparse.get(("movers", r))
            if found is None:
                table = self.space.tables[r]
                found = self._sparse[("movers", r)] = frozenset(
                    x for x in range(table.alphabet.size) if any(row[x] != q for q, row in enumerate(table.delta)))
            out.append(found)
        return out

    def _explore(self, rules: tuple[int, ...], states: tuple[int, ...], moves: Moves) -> bool | None:
        """Breadth first from `states`; a search that runs out of moves is a certain "no" when
        the moves are complete. A move rewrites only the rules it can move, and the count of rules not yet accepting
        is kept along, so a step costs what the call touches, not the size of the group."""
        tables = self.space.tables
        deltas = [tables[r].delta for r in rules]
        lost = [self.space.violated[r] for r in rules]
        accept = [tables[r].accepting for r in rules]
        steps = self._steps(rules, moves)
        seen = {states}
        queue = deque([(states, sum(1 for k, q in enumerate(states) if not accept[k][q]))])
        while queue:
            here, waiting = queue.popleft()
            for moved, final in steps:
                after = list(here)
                left = waiting
                for k, x in moved:
                    q = here[k]
                    p = deltas[k][q][x]
                    if p != q:
                        if lost[k][p]:
                            break
                        after[k] = p
                        left += accept[k][q] - accept[k][p]
                else:
                    if not left:
                        return True
                    if final:
                        continue
                    reached = tuple(after)
                    if reached in seen:
                        continue
                    if len(seen) >= self.budget:
                        return None
                    seen.add(reached)
                    queue.append((reached, left))
        if not self.complete(rules):
            return None
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
