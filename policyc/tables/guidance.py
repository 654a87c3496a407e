"""Searches in one rule's automaton: what is still owed before the run may end.

Continuations respect how runs end: a terminal tool (the final answer) can only be the
last call, so a search never continues past one.

>>> from policyc.tables.dfa import Alphabet, DfaTable, ToolLetters
>>> ab = Alphabet((), {"a": ToolLetters((), {0: 0}, 0), "done": ToolLetters((), {0: 1}, 0)}, other=2)
>>> called_a = DfaTable(ab, 0, ((1, 0, 0), (1, 1, 1)), (False, True), ("open", "satisfied"), (0, None), (1, 0))
>>> owed_before(called_a, 0, frozenset({"done"}), (1,))
['a']
"""

from __future__ import annotations

from collections import deque
from typing import Iterable, Sequence

from policyc.tables.dfa import VIOLATED, DfaTable


def owed_before(table: DfaTable, state: int, terminal: frozenset[str], final_letters: Iterable[int],
                accept: bool = True) -> list[str] | None:
    """The tools of a shortest sequence of non-terminal calls after which a call with one of
    `final_letters` satisfies the rule (`accept`) or at least leaves it satisfiable; None
    when there is none."""
    final_letters = tuple(final_letters)
    ab = table.alphabet
    tools = [ab.tool_of(letter) for letter in range(ab.size)]
    moves = [letter for letter in range(ab.size) if tools[letter] not in terminal]

    def done(q: int) -> bool:
        if accept:
            return any(table.accepting[table.delta[q][f]] for f in final_letters)
        return any(table.verdict[table.delta[q][f]] != VIOLATED for f in final_letters)

    parent: dict[int, tuple[int, int] | None] = {state: None}
    queue = deque([state])
    while queue:
        q = queue.popleft()
        if done(q):
            path = []
            step = parent[q]
            while step is not None:
                q, letter = step
                path.append(tools[letter] or "any other tool")
                step = parent[q]
            return path[::-1]
        for letter in moves:
            r = table.delta[q][letter]
            if r not in parent and table.verdict[r] != VIOLATED:
                parent[r] = (q, letter)
                queue.append(r)
    return None


def shortest_satisfying(table: DfaTable, state: int,
                        letter_tools: Sequence[str | None] | None = None) -> list[str] | None:
    """The tools of a shortest continuation after which the rule holds ([] if it holds now)."""
    letters = table.shortest_continuation(state)
    if letters is None:
        return None
    tools = letter_tools or [table.alphabet.tool_of(letter) for letter in range(table.alphabet.size)]
    return [tools[letter] or "any other tool" for letter in letters]
