"""From a formula to its minimal DFA table: explore residuals, minimise, read off verdicts.

>>> from policyc.ir import build as b
>>> dfa = build_dfa(b.always(b.implies(b.event("refund"), b.once(b.event("approve")))))
>>> dfa.size, [dfa.verdict[q] for q in range(dfa.size)]
(3, ['open', 'satisfied', 'violated'])
"""

from __future__ import annotations

import gc
from collections import deque
from typing import Callable, Sequence

from policyc.ir import nodes as n
from policyc.ir.printer import show

from policyc.automata.alphabet import build_alphabet
from policyc.automata.budget import BudgetExceeded, current_budget
from policyc.automata.progress import ALIVE, Progression
from policyc.tables.dfa import Alphabet, DfaTable, analyse


def explore(prog: Progression, letters: int, limit: int | None = None) -> tuple[list, list[list[int]], list[bool]]:
    """Every state reachable from the initial one (index 0), with its transitions;
    BudgetExceeded once more than `limit` states (default: the current budget's) are reached."""
    limit = current_budget().states if limit is None else limit
    start = prog.initial()
    index = {start: 0}
    states = [start]
    delta: list[list[int]] = []
    queue = deque([start])
    while queue:
        state = queue.popleft()
        row = []
        for letter in range(letters):
            nxt = prog.step(state, letter)
            q = index.get(nxt)
            if q is None:
                if len(states) >= limit:
                    raise BudgetExceeded("its automaton", len(states) + 1, "--max-states")
                q = index[nxt] = len(states)
                states.append(nxt)
                queue.append(nxt)
            row.append(q)
        delta.append(row)
    return states, delta, [prog.accepting(s) for s in states]


def minimize(delta: Sequence[Sequence[int]], accepting: Sequence[bool], initial: int | Sequence[int] = 0) -> list[int]:
    """Moore partition refinement: the block (equivalence class) of every state.

    Blocks are numbered in breadth-first order from the initial state (or from several start
    states, in order: every state must be reachable from one), so equal languages give
    identical tables.
    """
    block = [1 if a else 0 for a in accepting]
    count = len(set(block))
    while True:
        signatures: dict = {}
        refined = [signatures.setdefault((block[q], *[block[t] for t in row]), len(signatures))
                   for q, row in enumerate(delta)]
        if len(signatures) == count:
            break
        block, count = refined, len(signatures)
    roots = [initial] if isinstance(initial, int) else list(initial)
    order: dict[int, int] = {}
    for root in roots:
        order.setdefault(block[root], len(order))
    queue = deque(dict.fromkeys(roots))
    seen = set(roots)
    while queue:
        q = queue.popleft()
        for t in delta[q]:
            if t not in seen:
                seen.add(t)
                order.setdefault(block[t], len(order))
                queue.append(t)
    return [order[b] for b in block]


def table_from(alphabet: Alphabet, delta, accepting, name: Callable[[int], str] | None = None) -> DfaTable:
    """Minimise an explored DFA (initial state 0) and read off its verdicts; `name(q)` prints
    the residual of raw state q (each minimal state is named by its first raw state)."""
    block = minimize(delta, accepting)
    size = max(block) + 1
    mdelta: list = [None] * size
    macc: list = [False] * size
    names: list = [""] * size
    for q, row in enumerate(delta):
        b = block[q]
        if mdelta[b] is None:
            mdelta[b] = tuple(block[t] for t in row)
            macc[b] = accepting[q]
            if name is not None:
                names[b] = name(q)
    verdict, to_acc, dist_acc, to_rej = analyse(mdelta, macc)
    return DfaTable(alphabet, 0, tuple(mdelta), tuple(macc), verdict, to_acc, dist_acc, to_rej,
                    tuple(names) if name is not None else ())


#: residual formulas label states for people; longer ones are elided
RESIDUAL_TEXT_LIMIT = 400


def show_state(prog: Progression, state) -> str:
    """The residual formula of a state as AgentLTL text (`F true`: the trace goes on), with
    the past sub-formulas its memory holds true."""
    residual, mem = state
    formula = prog.to_formula(residual)
    text = show(formula, RESIDUAL_TEXT_LIMIT) if formula is not None else "(a residual too large to print)"
    if mem:
        text += "  [" + ", ".join(sorted(show(p, RESIDUAL_TEXT_LIMIT) for p in mem)) + "]"
    return text


#: conjunctions of at least this many conjuncts are built as products of their parts
PRODUCT_FROM = 3


def build_dfa(formula: n.Formula, alphabet: Alphabet | None = None, true_events=None) -> DfaTable:
    """The minimal DFA of a propositional formula (events, temporal operators, past)."""
    collecting = gc.isenabled()
    gc.disable()  # construction allocates many small, long-lived objects: skip collections
    try:
        if alphabet is None and isinstance(formula, n.And) and len(formula.args) >= PRODUCT_FROM:
            from policyc.automata.conjunction import build_conjunction

            table = build_conjunction(formula)
            if table is not None:
                return table
        if alphabet is None:
            alphabet, true_events = build_alphabet(formula)
        prog = Progression(formula, true_events)
        states, delta, accepting = explore(prog, alphabet.size)
        return table_from(alphabet, delta, accepting, lambda q: show_state(prog, states[q]))
    finally:
        if collecting:
            gc.enable()


__all__ = ["build_dfa", "explore", "minimize", "analyse", "table_from", "ALIVE"]
