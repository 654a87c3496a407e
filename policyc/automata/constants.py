"""Rules over the run's constants: one body per truth of the static atoms, and a free variant.

`always (send_money -> asks("pay"))`, `asks(w) := contains(lower(request.text), w)`: the
condition reads only the request, which is the same at every position of a run. It is a
*static atom*: for each truth of the static atoms some request can give (`satisfiable_masks`)
the rule is a plain formula (`specialise`: `true`, or `G not send_money`), compiled over one
alphabet shared by all of them. A run that knows its request starts in the start state of
its truth (`DfaTable.start_state`).

A gate may not know the constants (a run started without a request; the metrics, written
after the run). Then they are free inputs, and the rule is judged by every value they could
take: the *free variant* runs all bodies at once, and reads a call's atoms that read the
constants (`contains(request.text, file_path)`) as either truth. It is the subset
construction over the bodies with those atoms left out of each letter: a state is violated
only when every body, whatever those atoms were, is; it accepts when some body may. The free
variant's start is the table's `initial`, so whoever reads the table without the run's
constants (lint, pictures, guidance) reads it for any value they might have.

Bodies and free variant are minimised together, as one table.

>>> from policyc.ir import build as b
>>> pay = b.op("contains", b.field(b.request(), "text"), b.lit("pay"))
>>> small = b.event("send", b.op("lt", b.arg("amount"), b.lit(100)))
>>> dfa = build_constant_dfa(b.always(b.implies(b.event("send"), b.conj(small, b.cond(pay)))), (pay,))
>>> [dfa.alphabet.describe(x) for x in range(dfa.alphabet.size)]
['send(not amount < 100)', 'send(amount < 100)', '*']
>>> [dfa.verdict[dfa.step(q, 1)] for _, q in dfa.initials]    # a small payment: without "pay", with it
['violated', 'open']
>>> dfa.verdict[dfa.step(dfa.initial, 1)], dfa.verdict[dfa.step(dfa.initial, 0)]   # the request unknown
('open', 'violated')
"""

from __future__ import annotations

from collections import deque
from typing import Sequence

from policyc.ir import nodes as n
from policyc.ir.walk import subformulas

from policyc.automata.alphabet import build_alphabet, events_of
from policyc.automata.construct import explore, minimize, show_state
from policyc.automata.fragment import NotCompilable
from policyc.automata.progress import NotPropositional, Progression
from policyc.automata.solver import satisfiable_masks
from policyc.automata.specialise import specialise
from policyc.tables.atoms import reads_constants
from policyc.tables.dfa import Alphabet, DfaTable, analyse

#: The free variant gives up (the rule is not compiled) past this many states.
MAX_FREE_STATES = 4096


def build_constant_dfa(formula: n.Formula, static_atoms: Sequence[n.Term]) -> DfaTable:
    """The table of a plain formula whose static atoms (and maybe guard atoms) read the run's
    constants: a body per satisfiable truth of the static atoms, and the free variant."""
    static = tuple(static_atoms)
    masks, _ = satisfiable_masks(static) if static else ([0], True)
    bodies = {m: specialise(formula, {a: bool(m >> i & 1) for i, a in enumerate(static)}) for m in sorted(masks)}
    events = tuple(dict.fromkeys(e for f in bodies.values() for e in events_of(f)))
    alphabet, true_events = build_alphabet(n.TRUE, None, events)
    explored: dict[n.Formula, tuple] = {}
    for body in bodies.values():
        if body not in explored:
            try:
                prog = Progression(body, true_events)
            except NotPropositional as exc:  # a shape that only this truth of the static atoms has
                raise NotCompilable(str(exc)) from None
            states, delta, accepting = explore(prog, alphabet.size)
            explored[body] = (prog, states, delta, accepting)
    return _union(alphabet, static, bodies, explored)


def _letter_classes(alphabet: Alphabet) -> list[tuple[int, ...]]:
    """Per letter, the letters that differ from it only in atoms reading the run's constants
    (those the free variant cannot tell apart)."""
    out: list[tuple[int, ...]] = [()] * alphabet.size
    out[alphabet.other] = (alphabet.other,)
    for letters in alphabet.tools.values():
        const = sum(1 << bit for bit, i in enumerate(letters.atoms) if reads_constants(alphabet.atoms[i]))
        groups: dict[int, list[int]] = {}
        for mask, letter in letters.letters.items():
            groups.setdefault(mask & ~const, []).append(letter)
        for group in groups.values():
            for letter in group:
                out[letter] = tuple(sorted(group))
    return out


def _union(alphabet: Alphabet, static: tuple[n.Term, ...], bodies: dict[int, n.Formula],
           explored: dict[n.Formula, tuple]) -> DfaTable:
    """Every body's states, side by side, then the free variant's subsets of them; minimised
    as one table whose start states are the bodies' and the free variant's."""
    letters = alphabet.size
    offset: dict[n.Formula, int] = {}
    delta: list[tuple[int, ...]] = []
    accepting: list[bool] = []
    names: list[str] = []
    for body, (prog, states, rows, acc) in explored.items():
        base = offset[body] = len(delta)
        delta.extend(tuple(base + t for t in row) for row in rows)
        accepting.extend(acc)
        names.extend(show_state(prog, s) for s in states)
    classes = _letter_classes(alphabet)
    start = frozenset(offset[body] for body in bodies.values())
    index = {start: len(delta)}
    subsets = [start]
    queue = deque([start])
    free_rows: list[tuple[int, ...]] = []
    while queue:
        subset = queue.popleft()
        row = []
        for letter in range(letters):
            nxt = frozenset(delta[q][x] for q in subset for x in classes[letter])
            target = index.get(nxt)
            if target is None:
                if len(subsets) >= MAX_FREE_STATES:
                    raise NotCompilable(f"the rule read without the run's constants has more than "
                                        f"{MAX_FREE_STATES} states")
                target = index[nxt] = len(delta) + len(subsets)
                subsets.append(nxt)
                queue.append(nxt)
            row.append(target)
        free_rows.append(tuple(row))
    delta.extend(free_rows)
    accepting.extend(any(accepting[q] for q in subset) for subset in subsets)
    names.extend(_free_name(names, subset) for subset in subsets)
    roots = [index[start]] + [offset[body] for body in bodies.values()]
    block = minimize(delta, accepting, roots)
    size = max(block) + 1
    mdelta: list = [None] * size
    macc: list = [False] * size
    mnames: list = [""] * size
    for q, targets in enumerate(delta):
        k = block[q]
        if mdelta[k] is None:
            mdelta[k] = tuple(block[t] for t in targets)
            macc[k] = accepting[q]
            mnames[k] = names[q]
    verdict, to_acc, dist_acc, to_rej = analyse(mdelta, macc)
    initials = tuple((mask, block[offset[body]]) for mask, body in bodies.items())
    return DfaTable(alphabet, block[index[start]], tuple(mdelta), tuple(macc), verdict, to_acc, dist_acc, to_rej,
                    tuple(mnames), static, initials)


def _free_name(names: list[str], subset: frozenset[int]) -> str:
    """A free-variant state, printed: the residuals it may be in."""
    shown = sorted({names[q] for q in subset})
    text = " | ".join(shown[:3]) + (" | ..." if len(shown) > 3 else "")
    return f"one of: {text}" if len(shown) > 1 else text


def reads_run_constants(formula: n.Formula) -> bool:
    """Whether a plain formula's guards read the run's constants."""
    return any(isinstance(e, n.Event) and reads_constants(e.guard) for e in events_of(formula)) \
        or any(isinstance(c, n.Cond) for c in _conds(formula))


def _conds(formula: n.Formula) -> list[n.Cond]:
    return [s for s in subformulas(formula) if isinstance(s, n.Cond)]


__all__ = ["build_constant_dfa", "reads_run_constants", "MAX_FREE_STATES"]
