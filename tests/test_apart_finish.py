"""The one-value check over automata alone (`policyc.tables.counting._apart_can_finish`)
answers as a plain breadth-first search over every automaton together: True when a state
with every automaton accepting, or one a final call takes there, is reachable, or when more
than 2,000 states are; False otherwise. Its groups, its best-first order and its early stop
change how much it explores, never what it answers: checked on generated automata and calls,
and on a case where the finish lies behind many calls that move only counters."""

from __future__ import annotations

import os
from collections import deque
from dataclasses import dataclass
from typing import Any, Sequence

from hypothesis import given, settings, strategies as st

from policyc.tables import counting

NIGHTLY = bool(os.environ.get("POLICYC_NIGHTLY"))


@dataclass(frozen=True)
class Automaton:
    """What the check reads of an automaton: its transitions and accepting states."""

    delta: tuple[tuple[int, ...], ...]
    accepting: tuple[bool, ...]


Call = tuple[tuple[bool, tuple[int, ...], tuple[Any, ...]], tuple[tuple[int, int], ...]]


def apart(tables: Sequence[Automaton], violated: Sequence[Sequence[bool]], calls: Sequence[Call],
          start: tuple[int, ...], guided: bool = False) -> bool:
    """The check under test, on these automata (it reads their transitions and accepting states
    alone), with the guide computed apart when `guided`."""
    read: Any = tables
    guide = counting._apart_guide(read, violated, calls) if guided else None
    return counting._apart_can_finish(read, violated, calls, start, guide)


def product_search(tables: Sequence[Automaton], violated: Sequence[Sequence[bool]], calls: Sequence[Call],
                   start: tuple[int, ...]) -> bool:
    """Every automaton stepped on every call, breadth first, from the start."""

    def step(here: tuple[int, ...], moves: tuple[tuple[int, int], ...]) -> tuple[int, ...] | None:
        out = list(here)
        for j, x in moves:
            out[j] = tables[j].delta[out[j]][x]
            if violated[j][out[j]]:
                return None
        return tuple(out)

    seen, queue = {start}, deque([start])
    while queue:
        here = queue.popleft()
        if all(t.accepting[q] for t, q in zip(tables, here)):
            return True
        for (final, _, _), moves in calls:
            nxt = step(here, moves)
            if nxt is None:
                continue
            if final:
                if all(t.accepting[q] for t, q in zip(tables, nxt)):
                    return True
            elif nxt not in seen:
                seen.add(nxt)
                if len(seen) > 2000:
                    return True
                queue.append(nxt)
    return False


@st.composite
def problems(draw: Any) -> tuple[list[Automaton], list[list[bool]], list[Call], tuple[int, ...]]:
    n = draw(st.integers(1, 5))
    tables, violated, letters = [], [], []
    for _ in range(n):
        states = draw(st.integers(1, 9))
        width = draw(st.integers(1, 3))
        delta = tuple(tuple(draw(st.integers(0, states - 1)) for _ in range(width)) for _ in range(states))
        accepting = tuple(draw(st.booleans()) for _ in range(states))
        bad = [draw(st.integers(0, 5)) == 0 for _ in range(states)]
        tables.append(Automaton(delta, accepting))
        violated.append(bad)
        letters.append(width)
    start = []
    for j in range(n):
        fine = [q for q in range(len(tables[j].delta)) if not violated[j][q]]
        if not fine:
            violated[j][0] = False
            fine = [0]
        start.append(draw(st.sampled_from(fine)))
    calls: list[Call] = []
    for _ in range(draw(st.integers(0, 7))):
        final = draw(st.integers(0, 4)) == 0
        moved = sorted(draw(st.sets(st.integers(0, n - 1), max_size=min(n, 3))))
        moves = tuple((j, draw(st.integers(0, letters[j] - 1))) for j in moved)
        calls.append(((final, (), ()), moves))
    return tables, violated, calls, tuple(start)


@settings(max_examples=3000 if NIGHTLY else 300, deadline=None, derandomize=not NIGHTLY)
@given(problems())
def test_the_check_answers_as_the_search_over_every_automaton(problem: Any) -> None:
    tables, violated, calls, start = problem
    expected = product_search(tables, violated, calls, start)
    assert apart(tables, violated, calls, start) == expected
    assert apart(tables, violated, calls, start, guided=True) == expected


def counter(size: int) -> Automaton:
    """Counts calls of one letter up to `size - 1`, accepting everywhere."""
    return Automaton(tuple((min(q + 1, size - 1),) for q in range(size)), (True,) * size)


def test_a_finish_behind_calls_that_move_counters_is_found_not_given_up() -> None:
    # automaton 0 accepts only after three calls of its own (then a final call keeps it there);
    # five counters of eight states each make the states reachable far more than 2,000, so a
    # search that visits them all first would give up ("cannot tell") before it found the finish
    chain = Automaton(((1,), (2,), (3,), (3,)), (False, False, False, True))
    tables = [chain] + [counter(8) for _ in range(5)]
    violated = [[False] * len(t.delta) for t in tables]
    calls: list[Call] = [((False, (), ()), ((j, 0),)) for j in range(len(tables))]
    calls.append(((True, (), ()), ((0, 0),)))
    start = (0,) * len(tables)
    assert apart(tables, violated, calls, start) is True
    # and when the chain's last state is violated instead, no finish exists: with 8**5 states
    # reachable the answer is "cannot tell" (True), as the plain search says
    violated[0][3] = True
    assert apart(tables, violated, calls, start) is product_search(tables, violated, calls, start) is True
    # the chain's three states with counters of 8, 8 and 8 states: 1,536 states, every one seen,
    # none finishing: no; one more counter of two states makes 3,072: cannot tell
    for sizes, answer in (((8, 8, 8), False), ((8, 8, 8, 2), True)):
        tables = [chain] + [counter(k) for k in sizes]
        violated = [[False, False, False, True]] + [[False] * k for k in sizes]
        calls = [((False, (), ()), ((j, 0),)) for j in range(len(tables))]
        calls.append(((True, (), ()), ((0, 0),)))
        start = (0,) * len(tables)
        assert product_search(tables, violated, calls, start) is answer
        assert apart(tables, violated, calls, start) is answer
