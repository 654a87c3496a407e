"""One search over the rules' product: can these rules still hold together, and by which run?

Each rule alone may still be satisfiable while no single continuation satisfies them all
(`G(a -> G not b)` with `F b` after an `a`). The gate and the lint ask the same product of
`policyc.tables.product` about it, and one search answers both (`JointSearch.explore`):

- the gate, before each call, per group of rules that can constrain one another:
  `JointSearch.check(jid, rules)` is True when some continuation satisfies every rule (a
  witness was found on letters some call can produce), False when none does (every letter a
  call can produce was tried, runs ending at a terminal call included), None when it was not
  decided: the search exceeded its budget, or the letters of a tool two of the rules guard
  were not decided together (see `JointSpace.letters_exact`). Budget: `SEARCH_BUDGET` joint
  states (of the rules asked about) *per question*: each smaller question it asks first has
  a budget of its own.
- the lint, once per set of claims: `JointSearch.run(jid, rules, order, budget)`, a run that
  satisfies every rule, as calls of the product (`Move`s): a shortest one (`SHORTEST`, A*
  with the largest distance of a rule to acceptance as the estimate) or the one a greedy
  search meets first (`GREEDY`, the sum of the distances as the guide); or none (exact); or
  not decided. Budget: the caller's, in joint states (the lint gives `SEARCH_ENTRIES`
  automaton states, joint states times automata, `policyc.lint.automata`).

The search looks only at the rules asked about: their states, and the calls they can tell
apart (projected, deduplicated); a step rewrites only the rules the call moves. A run that
ends at a terminal call ends there. The gate first tries a cheap witness, the rules' own
shortest continuations one after the other; then the smaller questions, each rule with the
rules that share a tool with it (most conflicts are a few rules: a part that cannot hold is
a "no" for the whole, and its minimal core is tried first in every later question that
contains it); then it explores breadth first (`BREADTH`). Its answers are memoised per whole
question (the rules and their states), so runs that come back to a situation pay nothing; a
search never reads what another question found out along its way, so an answer (None
included) is the same whatever was asked before.
"""

from __future__ import annotations

import heapq
from collections import deque
from dataclasses import dataclass
from typing import Any, Collection, Iterable, Sequence

from policyc.tables.dfa import SATISFIED, VIOLATED, DfaTable
from policyc.tables.product import OTHER, UNTRACKED, JointSpace, Move

#: The gate's budget: joint states one question may visit before it gives up (the answer is then None).
SEARCH_BUDGET = 4096

#: The orders of the search: breadth first (the gate's yes or no), A* (the lint's shortest
#: run), greedy toward acceptance (the lint's any run, much faster on large products).
BREADTH, SHORTEST, GREEDY = "breadth", "shortest", "greedy"

#: Why a search did not decide: it outgrew its budget; a tool's letters are not all listed.
OVER_BUDGET, LETTERS_UNKNOWN = "budget", "letters"

Moves = tuple[tuple[tuple[int, ...], bool], ...]  # (one letter per rule, whether the call ends the run)


@dataclass(frozen=True)
class Found:
    """The answer of one search: `answer` True (a run, `calls`: one product move per call),
    False (no run: exact), None (not decided, `why`: `OVER_BUDGET` or `LETTERS_UNKNOWN`);
    `explored`: the joint states it visited."""

    answer: bool | None
    calls: tuple[Move, ...] = ()
    explored: int = 0
    why: str = ""


class JointSearch:
    """Searches in one product; the gate's answers memoised per (rules, their states) across
    calls and runs.

    >>> from policyc.tables.dfa import Alphabet, DfaTable, ToolLetters
    >>> ab = Alphabet((), {"a": ToolLetters((), {0: 0}, 0)}, other=1)
    >>> need_a = DfaTable(ab, 0, ((1, 0), (1, 1)), (False, True), ("open", "satisfied"), (0, None), (1, 0))
    >>> never_a = DfaTable(ab, 0, ((1, 0), (1, 1)), (True, False), ("open", "violated"), (None, None), (0, None))
    >>> both = JointSpace([need_a, never_a], {"a": (), "b": ()}, frozenset())
    >>> JointSearch(both).check(both.initial, (0, 1)), JointSearch(both).run(both.initial, (0, 1)).answer
    (False, False)
    >>> alone = JointSpace([need_a], {"a": (), "b": ()}, frozenset({"a"}))   # `a` ends the run: fine
    >>> JointSearch(alone).run(alone.initial, (0,)).calls
    (('a', 0, True),)
    """

    def __init__(self, space: JointSpace, budget: int = SEARCH_BUDGET):
        self.space = space
        self.budget = budget
        self._memo: dict[tuple[tuple[int, ...], tuple[int, ...]], bool | None] = {}
        self._moves: dict[tuple[int, ...], tuple[Moves, Moves]] = {}
        # per rules: per (letters, whether the call ends the run), the first call that is such a move
        self._calls: dict[tuple[int, ...], dict[tuple[tuple[int, ...], bool], Move]] = {}
        self._sparse: dict[tuple[object, ...], Any] = {}  # per (rules, moves): the moves indexed for the searches

    # ------------------------------------------------------------ the question

    def pending(self, jid: int, rules: Iterable[int]) -> tuple[int, ...] | None:
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

    def check(self, jid: int, rules: Iterable[int]) -> bool | None:
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
        answer = self.explore(rules, states, certain).answer
        if answer is False and len(every) > len(certain):
            # some calls combine guards no compiler decided: with them, is there a way?
            answer = False if self.explore(rules, states, every).answer is False else None
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
        calls: dict[tuple[tuple[int, ...], bool], Move] = {}
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
                    calls.setdefault((letters, final), (key, mask, final))
        self._calls[rules] = calls
        found = self._moves[rules] = (tuple(certain.items()), tuple(every.items()))
        return found

    def call_of(self, rules: tuple[int, ...], letters: tuple[int, ...], final: bool) -> Move:
        """A call of the product that is this move of `moves(rules)` (the first listed)."""
        self.moves(rules)
        return self._calls[rules][(letters, final)]

    def complete(self, rules: Collection[int]) -> bool:
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

    def _by_letter(self, rules: tuple[int, ...], moves: Moves) -> list[
            dict[int, list[tuple[tuple[int, ...], tuple[tuple[int, int], ...], bool]]]]:
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

    def _steps(self, rules: tuple[int, ...], moves: Moves) -> tuple[
            tuple[tuple[tuple[int, int], ...], bool, tuple[int, ...]], ...]:
        """Per move, the (position, letter) of the rules its letters can move, whether it ends
        the run, and its letters; moves that move none of these rules are left out (from a
        state the search keeps, they lead back to it). Memoised per (rules, moves): the moves
        are either the certain or every listed call of `moves(rules)`, the first a part of the
        second, so their number tells them apart."""
        key = (rules, len(moves))
        found = self._sparse.get(key)
        if found is None:
            movers = self._movers(rules)
            found = tuple((moved, final, letters) for moved, final, letters in (
                (tuple((k, x) for k, x in enumerate(letters) if x in movers[k]), final, letters)
                for letters, final in moves) if moved)
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

    # ------------------------------------------------------------ the search

    def run(self, jid: int, rules: Sequence[int], order: str = SHORTEST, budget: int | None = None) -> Found:
        """A run from joint state `jid` after which every rule of `rules` accepts, over every
        call the product lists (a run on combinations of guards no compiler decided is a
        candidate: the lint makes it concrete and replays it), in the `order` given; every
        rule asked about stays in the question, satisfied ones included (their letters still
        say which calls can happen). `budget`: joint states (default: the search's)."""
        asked = tuple(sorted(rules))
        states = self.space.states[jid]
        return self.explore(asked, tuple(states[i] for i in asked), self.moves(asked)[1], order, budget)

    def explore(self, rules: tuple[int, ...], states: tuple[int, ...], moves: Moves, order: str = BREADTH,
                budget: int | None = None) -> Found:
        """The one search: from `states` of `rules` over `moves`, for a state where every rule
        accepts, a call ending the run only where it accepts. A state where a rule is lost is
        never kept; a search that runs out of states is a certain "no" when the moves are
        complete. `BREADTH` answers yes or no (no run in `Found.calls`) and tests a state as it
        is reached; `SHORTEST` and `GREEDY` find the run, testing a state as it is taken from
        the queue, in the order of their estimates (ties: fewer calls first, then the order
        reached). A move rewrites only the rules it can move, and the count of rules not yet
        accepting (or the estimates) is kept along, so a step costs what the call touches, not
        the size of the group."""
        budget = self.budget if budget is None else budget
        tables = self.space.tables
        deltas = [tables[r].delta for r in rules]
        lost = [self.space.violated[r] for r in rules]
        accept = [tables[r].accepting for r in rules]
        steps = self._steps(rules, moves)
        guide, real = self._estimates(rules) if order != BREADTH else ([], [])
        shortest = order == SHORTEST
        if any(lost[k][q] for k, q in enumerate(states)):
            return self._none(rules, 1)
        start = tuple(states)
        waiting = sum(1 for k, q in enumerate(start) if not accept[k][q])
        if order == BREADTH:  # a yes or a no: the states seen, not the way to them
            if not waiting:
                return Found(True, explored=1)
            seen = {start}
            queue = deque([(start, waiting)])
            while queue:
                here, waiting = queue.popleft()
                for moved, final, _ in steps:
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
                            return Found(True, explored=len(seen))
                        if final:
                            continue
                        reached = tuple(after)
                        if reached in seen:
                            continue
                        if len(seen) >= budget:
                            return Found(None, explored=len(seen), why=OVER_BUDGET)
                        seen.add(reached)
                        queue.append((reached, left))
            return self._none(rules, len(seen))
        # best first: the queue holds (priority, calls, tick, state, its estimates, whether the
        # run ends there); `best`: the fewest calls to each state kept; `parent`: the way back
        best = {start: 0}
        parent: dict[Any, tuple[tuple[int, ...], int] | None] = {start: None}

        def found(at: Any) -> Found:
            path = []
            step = parent[at]
            while step is not None:
                at, i = step
                path.append(i)
                step = parent[at]
            return Found(True, tuple(self.call_of(rules, steps[i][2], steps[i][1]) for i in reversed(path)), len(best))

        h0 = [sum(g[q] for g, q in zip(guide, start)), sum(d[q] or 0 for d, q in zip(real, start))]
        if shortest:
            h0[0] = max((g[q] for g, q in zip(guide, start)), default=0)
        heap: list[tuple[Any, ...]] = [((h0[0], 0) if shortest else tuple(h0), 0, 0, start, h0, False)]
        tick = 1
        while heap:
            _, g, _, here, (total, rest), ended = heapq.heappop(heap)
            if ended:
                return found(("end", here))
            if g > best.get(here, g):
                continue
            if all(accept[k][q] for k, q in enumerate(here)):
                return found(here)
            for i, (moved, final, _) in enumerate(steps):
                after = list(here)
                t, r = total, rest
                changed = False
                for k, x in moved:
                    q = here[k]
                    p = deltas[k][q][x]
                    if p != q:
                        if lost[k][p]:
                            break
                        after[k] = p
                        changed = True
                        t += guide[k][p] - guide[k][q]
                        r += (real[k][p] or 0) - (real[k][q] or 0)
                else:
                    if not changed:
                        continue
                    reached = tuple(after)
                    if final:
                        if ("end", reached) not in parent and all(accept[k][q] for k, q in enumerate(reached)):
                            parent[("end", reached)] = (here, i)
                            heapq.heappush(heap, ((g + 1, 0) if shortest else (-1, -1), g + 1, tick, reached,
                                                  (0, 0), True))
                            tick += 1
                        continue
                    if g + 1 < best.get(reached, g + 2) if shortest else reached not in best:
                        if reached not in best and len(best) >= budget:
                            return Found(None, explored=len(best), why=OVER_BUDGET)
                        best[reached] = g + 1
                        parent[reached] = (here, i)
                        if shortest:
                            t = max(gd[q] for gd, q in zip(guide, reached))
                        heapq.heappush(heap, ((g + 1 + t, 0) if shortest else (t, r), g + 1, tick, reached,
                                              (t, r), False))
                        tick += 1
        return self._none(rules, len(best))

    def _none(self, rules: tuple[int, ...], explored: int) -> Found:
        """No state left to look at: no run, when every letter was listed."""
        if not self.complete(rules):
            return Found(None, explored=explored, why=LETTERS_UNKNOWN)
        return Found(False, explored=explored)

    def _estimates(self, rules: tuple[int, ...]) -> tuple[list[tuple[int, ...]], list[tuple[int | None, ...]]]:
        """Per rule: its distance to acceptance as a guide (`distance_guide`, finite where the
        rule is not lost), and its real distance. Memoised per rule."""
        guide, real = [], []
        for r in rules:
            found = self._sparse.get(("guide", r))
            if found is None:
                found = self._sparse[("guide", r)] = distance_guide(self.space.tables[r], self.space)
            guide.append(found)
            real.append(self.space.tables[r].dist_accept)
        return guide, real


def distance_guide(dfa: DfaTable, space: JointSpace) -> tuple[int, ...]:
    """Per state, its distance to acceptance, counting as nothing the terminal call that ends a
    run (one call ends it for every automaton at once: counted per automaton, it would make
    every open obligation that the final answer discharges look like work still to do); -1
    where acceptance is out of reach (the rule is lost there, and the search never keeps
    such a state)."""
    ab = dfa.alphabet
    finals = [letter for tool, letters in ab.tools.items() if tool in space.terminal
              for letter in letters.letters.values()]
    if any(t in space.terminal and t not in ab.tools for t in space.declared):
        finals.append(ab.other)
    out: list[int] = []
    for q, d in enumerate(dfa.dist_accept):
        if d is not None and d > 0 and any(dfa.accepting[dfa.delta[q][letter]] for letter in finals):
            d = 0
        out.append(-1 if d is None else d)
    return tuple(out)
