"""The rules of a policy as one lazily built product: can they still be satisfied together?

A joint state is the tuple of the rules' DFA states, interned to an integer. Transitions
are memoised per (joint state, call letter tuple), so a warm product steps in one lookup
whatever the number of rules. `satisfiable_together(j)` searches the product from j for
a state where every rule accepts, and memoises the answer per joint state.

The search treats the letters of different rules for one tool as independent (a call may
make any guard of one rule true together with any guard of another): it can only find too
many continuations, never too few, so "no continuation satisfies all rules" is certain.

This module imports only the standard library and `policyc.ir`.

>>> from policyc.automata.table import Alphabet, DfaTable, ToolLetters
>>> ab = Alphabet((), {"a": ToolLetters((), {0: 0}, 0)}, other=1)
>>> need_a = DfaTable(ab, 0, ((1, 0), (1, 1)), (False, True), ("open", "satisfied"), (0, None), (1, 0), (None, None))
>>> never_a = DfaTable(ab, 0, ((1, 0), (1, 1)), (True, False), ("open", "violated"), (None, None), (0, None), (0, None))
>>> p = PolicyProduct([need_a, never_a])
>>> p.satisfiable_together(p.initial)      # each alone is satisfiable, together they are not
False
"""

from __future__ import annotations

from collections import deque
from itertools import product as cartesian
from typing import Callable, Mapping, Sequence

from policyc.ir.ops import UNDEF

from policyc.automata.table import VIOLATED, DfaTable


MAX_COMBINATIONS = 4096  # letter tuples per tool the search will enumerate


class PolicyProduct:
    def __init__(self, tables: Sequence[DfaTable]):
        self.tables = list(tables)
        self.states: list[tuple[int, ...]] = []
        self._ids: dict[tuple[int, ...], int] = {}
        self._delta: dict[tuple[int, tuple[int, ...]], int] = {}
        self._together: dict[int, bool] = {}
        tools = sorted({t for table in self.tables for t in table.alphabet.tools})
        # letter tuples of the search: per tool, every combination of the rules' letters
        self.search_letters: list[tuple[int, ...]] = []
        self.searchable = True  # False: too many letter combinations; only single rules are judged
        for tool in tools:
            options = [sorted(set(tb.alphabet.tools[tool].letters.values())) if tool in tb.alphabet.tools
                       else [tb.alphabet.other] for tb in self.tables]
            count = 1
            for o in options:
                count *= len(o)
            if count > MAX_COMBINATIONS:
                self.searchable = False
                break
            self.search_letters.extend(cartesian(*options))
        self.search_letters.append(tuple(tb.alphabet.other for tb in self.tables))
        self.initial = self.intern(tuple(tb.initial for tb in self.tables))

    def intern(self, states: tuple[int, ...]) -> int:
        jid = self._ids.get(states)
        if jid is None:
            jid = self._ids[states] = len(self.states)
            self.states.append(states)
        return jid

    def advance(self, jid: int, letters: tuple[int, ...]) -> int:
        key = (jid, letters)
        out = self._delta.get(key)
        if out is None:
            out = self._delta[key] = self.intern(
                tuple(tb.delta[s][l] for tb, s, l in zip(self.tables, self.states[jid], letters)))
        return out

    def step(self, jid: int, tool: str, args: Mapping, result: object = UNDEF,
             externs: Mapping[str, Callable] | None = None) -> int:
        letters = tuple(tb.alphabet.letter(tool, args, result, externs=externs) for tb in self.tables)
        return self.advance(jid, letters)

    def accepting(self, jid: int) -> bool:
        return all(tb.accepting[s] for tb, s in zip(self.tables, self.states[jid]))

    def satisfiable_together(self, jid: int) -> bool:
        """Whether some continuation from joint state `jid` satisfies every rule."""
        known = self._together.get(jid)
        if known is not None:
            return known
        if not self.searchable:
            return not any(tb.verdict[s] == VIOLATED for tb, s in zip(self.tables, self.states[jid]))
        seen = {jid}
        queue = deque([jid])
        found = False
        while queue and not found:
            j = queue.popleft()
            if self._together.get(j) is True or self.accepting(j):
                found = True
                break
            for letters in self.search_letters:
                k = self.advance(j, letters)
                if k in seen or any(tb.verdict[s] == VIOLATED for tb, s in zip(self.tables, self.states[k])):
                    continue
                seen.add(k)
                queue.append(k)
        if found:
            self._together[jid] = True
        else:
            for j in seen:  # nothing reachable from any of them accepts
                self._together[j] = False
        return found
