"""The alphabet of a formula: event classes, pruned by the solver.

A position holds exactly one call, so a letter is a tool together with the truth of that
tool's guard atoms, plus one letter for any tool the formula does not mention. Combinations
no call can produce (`amount > 100` and `amount < 50`) are not letters.

>>> from policyc.ir import build as b
>>> phi = b.always(b.implies(b.event("refund", b.op("gt", b.arg("amount"), b.lit(100))),
...                          b.once(b.event("approve"))))
>>> ab, true_events = build_alphabet(phi)
>>> [ab.describe(l) for l in range(ab.size)]
['approve', 'refund(not amount > 100)', 'refund(amount > 100)', '*']
"""

from __future__ import annotations

from policyc.ir import nodes as n
from policyc.ir.walk import subformulas

from policyc.tables.atoms import guard_leaves, guard_truth, reads_result
from policyc.automata.solver import satisfiable_masks
from policyc.tables.dfa import Alphabet, ToolLetters


def events_of(formula: n.Formula) -> list[n.Event]:
    return [s for s in subformulas(formula) if isinstance(s, n.Event)]


def build_alphabet(formula: n.Formula, var: str | None = None,
                   extra_events: tuple[n.Event, ...] = ()) -> tuple[Alphabet, list[frozenset[n.Event]]]:
    """The alphabet of `formula` and, per letter, the events of the formula that hold.

    `extra_events` adds events of other formulas that must share the alphabet (the bodies
    of a sliced rule, specialised per binding, share one alphabet).
    """
    by_tool: dict[str, list[n.Event]] = {}
    for e in [*events_of(formula), *extra_events]:
        if e not in by_tool.setdefault(e.tool, []):
            by_tool[e.tool].append(e)
    atoms: list[n.Term] = []
    index: dict[n.Term, int] = {}
    tools: dict[str, ToolLetters] = {}
    true_events: list[frozenset[n.Event]] = []
    exact = True
    letter = 0
    for tool in sorted(by_tool):
        leaves: list[n.Term] = []
        for e in by_tool[tool]:
            for leaf in guard_leaves(e.guard):
                if leaf not in leaves:
                    leaves.append(leaf)
        for leaf in leaves:
            if leaf not in index:
                index[leaf] = len(atoms)
                atoms.append(leaf)
        masks, decided = satisfiable_masks(leaves)
        exact &= decided
        # a call that makes an `unreadable` atom true is one the rule cannot read: no letter
        unreadable = sum(1 << bit for bit, leaf in enumerate(leaves) if isinstance(leaf, n.Op)
                         and leaf.op == "unreadable")
        masks = [m for m in masks if not m & unreadable]
        table = {}
        for mask in sorted(masks):
            truth = {leaf: bool(mask >> bit & 1) for bit, leaf in enumerate(leaves)}
            true_events.append(frozenset(e for e in by_tool[tool] if guard_truth(e.guard, truth)))
            table[mask] = letter
            letter += 1
        result_bits = sum(1 << bit for bit, leaf in enumerate(leaves) if reads_result(leaf))
        tools[tool] = ToolLetters(tuple(index[leaf] for leaf in leaves), table, result_bits)
    true_events.append(frozenset())  # any other tool
    return Alphabet(tuple(atoms), tools, letter, var, exact), true_events
