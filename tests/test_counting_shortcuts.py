"""The counting search's shortcuts answer as the search does, on the blind gate scenarios'
policies (S1 at 25 and 50 rules, S2; written by someone who did not write the search) and
their agents' runs:

the one-value check (`CountingSpace._can_finish`), which steps only the automata a call's
letters move, tries each call only with the slots its view reads, and keeps its answers per
view and state across questions and sets of rules, gives the answer of the plain
breadth-first search over every automaton and every call of the set, done afresh.
"""

from __future__ import annotations

import sys
from collections import Counter, deque
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.blind_gate.harness import run_scenario  # noqa: E402
from benchmarks.blind_gate.scenarios import SCENARIOS  # noqa: E402
from policyc import Monitor, compile_file  # noqa: E402
from policyc.tables.counting import CountingSpace, Rules, ValueMove, _subsets  # noqa: E402

pytestmark = pytest.mark.slow  # whole agent runs through the gate


def plain_moves(rules: Rules, tables_at: tuple[int, ...], parts_at: tuple[int, ...]) -> list[ValueMove]:
    """The one-value check's calls as first written: every call of the set, with every way the
    value may sit in all the set's slots on its tool."""
    out: list[ValueMove] = []
    for key, mask, final, letters, slots, _ in rules.moves()[0]:
        picked = tuple(letters[k] for k in tables_at)
        optional = rules.space.optional(key, slots)
        named = []
        for filled in _subsets(list(slots)):
            for absent in _subsets([s for s in slots if s in optional and s not in filled]):
                row = []
                for k in parts_at:
                    shape = rules.shapes[k]
                    sits = frozenset(filled) & shape.slots.get(key, frozenset())
                    x = shape.letter(key, mask, sits, frozenset(absent))
                    row.append(None if x is None else (x, 1 if sits & shape.domain.get(key, frozenset()) else 0))
                if None not in row:
                    named.append(tuple(row))
        if named:
            out.append((final, picked, tuple(dict.fromkeys(named))))
    return out


def plain_search(rules: Rules, plain: tuple[int, ...], profile: Any) -> bool:
    """`_can_finish` as first written: every automaton stepped on every call."""
    tables_at, parts_at = rules.one_value_view(profile)
    start = (tuple(plain[k] for k in tables_at), () if profile is None else tuple(profile[k] for k in parts_at))
    tables = [rules.tables[k] for k in tables_at]
    violated = [rules.violated[k] for k in tables_at]
    shapes = [rules.shapes[k] for k in parts_at]
    forall = [j for j, k in enumerate(parts_at) if k in rules.simple_parts]
    bad = [rules.bad_entries[k] for k in parts_at]

    def done(p: tuple[int, ...], prof: tuple[int, ...]) -> bool:
        return all(t.accepting[q] for t, q in zip(tables, p)) and \
            all(not prof[j] & 1 or shapes[j].dfa.accepting[prof[j] >> 1] for j in forall)

    seen, queue = {start}, deque([start])
    while queue:
        here_plain, here = queue.popleft()
        if done(here_plain, here):
            return True
        for final, letters, named in plain_moves(rules, tables_at, parts_at):
            after_plain = tuple(t.delta[q][x] for t, q, x in zip(tables, here_plain, letters))
            if any(v[q] for v, q in zip(violated, after_plain)):
                continue
            for part_letters in named:
                moved = tuple(2 * shapes[j].dfa.delta[e >> 1][x] + (e & 1 | d)
                              for j, (e, (x, d)) in enumerate(zip(here, part_letters)))
                if any(e in b for e, b in zip(moved, bad)):
                    continue
                if final:
                    if done(after_plain, moved):
                        return True
                    continue
                nxt = (after_plain, moved)
                if nxt not in seen:
                    if len(seen) >= 2000:
                        return True
                    seen.add(nxt)
                    queue.append(nxt)
    return False


@pytest.mark.parametrize("scenario", ["S1:0", "S1:1", "S2:0"])
def test_counting_shortcuts_answer_as_the_search(monkeypatch: pytest.MonkeyPatch, scenario: str) -> None:
    name, index = scenario.split(":")
    sc = SCENARIOS[name][int(index)]
    seen: Counter[str] = Counter()
    can_finish = CountingSpace._can_finish

    def checked_finish(self: CountingSpace, rules: Rules, plain: tuple[int, ...], profile: Any) -> bool:
        answer = can_finish(self, rules, plain, profile)
        assert answer == plain_search(rules, plain, profile)
        seen[f"finish {answer}"] += 1
        return answer

    monkeypatch.setattr(CountingSpace, "_can_finish", checked_finish)
    run_scenario(sc, 8, 3, monitor=Monitor(compile_file(str(sc.policy))))
    assert seen["finish True"] and seen["finish False"], seen
