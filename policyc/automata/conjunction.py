"""The DFA of a conjunction, as the product of its conjuncts' minimal DFAs (vectorised).

Policies conjoin many independent requirements (`response(a, b) and precedence(c, d) and
...`). Their minimal DFA is the product of the conjuncts' automata and may have thousands
of states, each needing one successor per letter. Progressing the whole conjunction state
by state costs a BDD composition per transition; here every conjunct is progressed and
minimised alone (a handful of states each), and the product is explored breadth-first with
numpy over integer codes (a state is a mixed-radix number, one digit per conjunct), then
minimised by Moore refinement over the whole transition matrix at once. A tuple with a
violated conjunct is the violated state: it is never explored further.

>>> from policyc.ir import build as b
>>> rules = [b.always(b.implies(b.event(f"a{i}"), b.eventually(b.event(f"b{i}")))) for i in range(3)]
>>> dfa = build_conjunction(b.conj(*rules))
>>> dfa.size, dfa.verdict.count("violated")
(8, 0)
"""

from __future__ import annotations

import gc

import numpy as np

from policyc.ir import nodes as n

from policyc.automata.alphabet import build_alphabet
from policyc.automata.budget import BudgetExceeded, current_budget
from policyc.automata.construct import explore, minimize, show_state
from policyc.automata.progress import Progression
from policyc.tables.dfa import OPEN, SATISFIED, VIOLATED, DfaTable

NAMED_STATES = 2000  # residual formulas are printed for products up to this size


def _component(formula: n.Formula, true_events, letters: int):
    prog = Progression(formula, true_events)
    states, delta, accepting = explore(prog, letters)
    block = minimize(delta, accepting)
    size = max(block) + 1
    mdelta = np.zeros((size, letters), dtype=np.int64)
    macc = np.zeros(size, dtype=bool)
    names = [""] * size
    done = [False] * size
    for q, row in enumerate(delta):
        b = block[q]
        if not done[b]:
            done[b] = True
            mdelta[b] = [block[t] for t in row]
            macc[b] = accepting[q]
            names[b] = show_state(prog, states[q])
    can_accept = _distances(mdelta, macc) < np.iinfo(np.int64).max
    dead = np.flatnonzero(~can_accept)
    return mdelta, macc, (int(dead[0]) if len(dead) else -1), names


def _distances(delta: np.ndarray, goal: np.ndarray) -> np.ndarray:
    """Length of a shortest path from each state into `goal` (int64 max: none)."""
    inf = np.iinfo(np.int64).max
    dist = np.where(goal, 0, inf)
    while True:
        succ = dist[delta].min(axis=1)
        new = np.minimum(dist, np.where(succ == inf, inf, succ + 1))
        if np.array_equal(new, dist):
            return dist
        dist = new


def _first_letters(delta: np.ndarray, dist: np.ndarray) -> list:
    inf = np.iinfo(np.int64).max
    succ = dist[delta]
    first = succ.argmin(axis=1)
    return [None if d == 0 or d == inf else int(f) for d, f in zip(dist.tolist(), first.tolist())]


def build_conjunction(formula: n.And) -> DfaTable | None:
    """The minimal DFA of a conjunction; None when the product's codes would not fit 63 bits."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _build(formula)
    finally:
        if collecting:
            gc.enable()


def _build(formula: n.And) -> DfaTable | None:
    alphabet, true_events = build_alphabet(formula)
    letters = alphabet.size
    comps = [_component(c, true_events, letters) for c in formula.args]
    sizes = [c[0].shape[0] for c in comps]
    radix = np.ones(len(comps), dtype=np.int64)
    total = 1
    for i, s in enumerate(sizes):
        radix[i] = total
        total *= s
        if total >= 1 << 62:
            return None
    deltas = [c[0] for c in comps]
    dead = np.array([c[2] for c in comps], dtype=np.int64)

    def successors(codes: np.ndarray) -> np.ndarray:
        """(len(codes), letters) successor codes; -1 for the violated state."""
        out = np.zeros((len(codes), letters), dtype=np.int64)
        lost = np.zeros((len(codes), letters), dtype=bool)
        for i, d in enumerate(deltas):
            digit = (codes // radix[i]) % sizes[i]
            nxt = d[digit]
            out += nxt * radix[i]
            if dead[i] >= 0:
                lost |= nxt == dead[i]
        out[lost] = -1
        return out

    start = 0  # every component starts in its state 0
    start_dead = any(d == 0 for d in dead)
    seen = np.array([-1 if start_dead else start], dtype=np.int64)
    frontier = seen[seen >= 0]
    limit = current_budget().product
    while len(frontier):
        nxt = np.unique(successors(frontier))
        fresh = np.setdiff1d(nxt, seen, assume_unique=True)
        seen = np.union1d(seen, fresh)
        if len(seen) > limit:
            raise BudgetExceeded("the product of its conjuncts' automata", len(seen), "--max-product")
        frontier = fresh[fresh >= 0]
    codes = seen  # sorted; -1 (violated) first when reached
    succ = successors(codes[codes >= 0])
    if codes[0] == -1:
        succ = np.vstack([np.full((1, letters), -1, dtype=np.int64), succ])
    delta = np.searchsorted(codes, succ)
    accepting = np.ones(len(codes), dtype=bool)
    for i, c in enumerate(comps):
        accepting &= c[1][(np.maximum(codes, 0) // radix[i]) % sizes[i]]
    accepting &= codes >= 0
    initial = int(np.searchsorted(codes, -1 if start_dead else start))
    return _minimal_table(alphabet, delta, accepting, initial, codes, comps, radix, sizes)


def _minimal_table(alphabet, delta, accepting, initial, codes, comps, radix, sizes) -> DfaTable:
    block = accepting.astype(np.int64)
    count = len(np.unique(block))
    while True:
        # the class of (block, block of each successor), one column at a time: exact, and
        # one-dimensional uniques are far cheaper than uniques of rows
        refined = block
        succ = block[delta]
        step = 2 if len(block) * count * count < 1 << 62 else 1  # two columns per unique when they fit
        for column in range(0, succ.shape[1], step):
            key = refined * count + succ[:, column]
            if step == 2 and column + 1 < succ.shape[1]:
                key = key * count + succ[:, column + 1]
            _, refined = np.unique(key, return_inverse=True)
            refined = refined.reshape(-1)
        new_count = int(refined.max()) + 1
        block = refined
        if new_count == count:
            break
        count = new_count
    # number blocks with the initial state's block first, keeping the rest in order
    order = np.arange(count)
    b0 = block[initial]
    order[b0], order[0] = 0, b0
    block = order[block]
    _, reps = np.unique(block, return_index=True)
    mdelta = block[delta[reps]]
    macc = accepting[reps]
    dist_acc = _distances(mdelta, macc)
    dist_rej = _distances(mdelta, ~macc)
    inf = np.iinfo(np.int64).max
    verdict = tuple(VIOLATED if a == inf else SATISFIED if r == inf else OPEN
                    for a, r in zip(dist_acc.tolist(), dist_rej.tolist()))
    names: tuple = ()
    if count <= NAMED_STATES:
        parts = []
        for code in codes[reps].tolist():
            if code < 0:
                parts.append("false")
                continue
            texts = [c[3][(code // int(radix[i])) % sizes[i]] for i, c in enumerate(comps)]
            texts = [t for t in texts if t != "true"]
            parts.append(" and ".join(f"({t})" if len(texts) > 1 else t for t in texts) or "true")
        names = tuple(parts)
    return DfaTable(alphabet, 0, tuple(map(tuple, mdelta.tolist())), tuple(macc.tolist()), verdict,
                    tuple(_first_letters(mdelta, dist_acc)),
                    tuple(None if d == inf else d for d in dist_acc.tolist()),
                    tuple(_first_letters(mdelta, dist_rej)), names)
