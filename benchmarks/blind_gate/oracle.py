"""The exact oracle: after this prefix, can the run still end with every rule satisfied?

`allows(state, tool, args)` answers for a proposed call whose result is not known: is there a
result in the tool's finite domain, and a continuation over the finite pool (every tool, every
argument class, every result; terminal calls only last), after which every rule accepts when
the run ends? A terminal proposal: does the run ending with it satisfy every rule?

The search (`witness`) is exhaustive over canonical joint states (see joint.py), memoised by
state, best-first by the number of unmet obligations (the order changes how soon a witness is
found, never whether one exists). To keep the doomed cases (where the whole reachable space
must be exhausted) small, `live` refines a subset of the rules (counterexample-guided):

1. R = the rules a run ending now would fail (if none, the state is live);
2. search a continuation satisfying the rules of R alone; none: no continuation satisfies all
   rules either (each continuation that satisfies them all satisfies R) - the state is doomed;
3. replay that continuation on all rules: all accept - the state is live (a witness);
   otherwise add the rules it fails to R (rules of R behave alike in both) and go to 2.

R grows at every round, so this ends, at the latest with R = every rule, where step 2 is the
plain exhaustive search. `live_bfs` is that plain search, kept to validate `live` against.
"""

from __future__ import annotations

import heapq
import itertools
from typing import Any

from .joint import Joint
from .model import Call, Rules


class Budget(Exception):
    """A validation search went past its state limit."""


class Oracle:
    def __init__(self, rules: Rules, pool: Any, fresh: int = 2, joint_class: Any = Joint):
        self.rules, self.pool, self.fresh, self.joint_class = rules, pool, fresh, joint_class
        self.joint = joint_class(rules, fresh)
        self.subs: dict[frozenset, Joint] = {}
        self.memo: dict[Any, bool] = {}          # full canonical state -> live
        self.no_witness: set = set()              # (rule names, canonical state of them): none
        self.visited = 0

    def _sub(self, names: frozenset) -> Joint:
        if names not in self.subs:
            self.subs[names] = self.joint_class(Rules([r for r in self.rules.rules if r.name in names]), self.fresh)
        return self.subs[names]

    # ---- the search over one set of rules

    def ends_ok(self, joint: Joint, st) -> Call | bool:
        """True if a run ending here satisfies `joint`'s rules, else a terminal call that does, else False."""
        if joint.ok(st):
            return True
        for c in self.pool.calls(joint, st, terminal=True):
            if joint.ok(joint.step(st, c)):
                return c
        return False

    def witness(self, joint: Joint, st, limit: int | None = None) -> list[Call] | None:
        """A continuation from `st` after which every rule of `joint` accepts, or None if none exists.

        With `limit`, a search that visits more states raises `Budget` (validation only)."""
        start = joint.canon(st)
        tag = joint.names
        if (tag, start) in self.no_witness:
            return None
        parent: dict = {start: None}
        tie = itertools.count()
        heap = [(joint.pending(st), 0, next(tie), start, st)]
        while heap:
            _, depth, _, key, cur = heapq.heappop(heap)
            self.visited += 1
            if limit is not None and len(parent) > limit:
                raise Budget(limit)
            end = self.ends_ok(joint, cur)
            if end:
                path = [] if end is True else [end]
                while parent[key] is not None:
                    key, call = parent[key]
                    path.append(call)
                return path[::-1]
            for call in self.pool.calls(joint, cur):
                succ = joint.step(cur, call)
                if joint.dead(succ):
                    continue
                sk = joint.canon(succ)
                if sk in parent or (tag, sk) in self.no_witness:
                    continue
                parent[sk] = (key, call)
                heapq.heappush(heap, (joint.pending(succ), depth + 1, next(tie), sk, succ))
        self.no_witness.update((tag, k) for k in parent)
        return None

    # ---- the questions

    def live(self, st) -> bool:
        j = self.joint
        if j.dead(st):
            return False
        st = j.normalize(st)
        key = j.canon(st)
        if key in self.memo:
            return self.memo[key]
        names = frozenset(j.failing(st))
        answer = True
        while names:
            sub = self._sub(names)
            path = self.witness(sub, sub.normalize(j.project(st, sub)))
            if path is None:
                answer = False
                break
            end, bad = st, set()
            for call in path:
                end = j.step(end, call)
                if j.dead(end):
                    bad = set(j.dead_rules(end)) - names
                    break
            else:
                bad = set(j.failing(end)) - names
            if not bad:
                break
            names = names | bad
        self.memo[key] = answer
        return answer

    def live_bfs(self, st, limit: int | None = None) -> bool:
        """The plain exhaustive search over all rules at once (slow; for validation)."""
        j = self.joint
        return not j.dead(st) and self.witness(j, j.normalize(st), limit) is not None

    def allows(self, st, tool: str, args: dict, live=None) -> bool:
        """Is there a result of the proposed call, and a continuation, that satisfy every rule?"""
        j, live = self.joint, live or self.live
        terminal = self.pool.tools[tool].terminal
        for r in self.pool.results(j, j.normalize(st), tool):
            succ = j.step(st, Call(tool, args, r))
            if terminal:
                if j.ok(succ):
                    return True
            elif live(succ):
                return True
        return False
