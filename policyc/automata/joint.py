"""The calls a policy can tell apart, per tool: satisfiable combinations of every rule's guards.

Each rule's alphabet prunes the combinations of its own guard atoms that no call can produce.
Rules judged together (the gate's conflict search, the lint's decisions) need the same for
the atoms of all rules on one tool: `amount > 1000` in one rule and `amount < 500` in
another cannot both hold, so no joint letter has them both. `joint_letters` decides that
with the solver, refining the combinations atom by atom (`solver.satisfiable_masks`), so the
cost follows the number of combinations that exist; a tool with more than
`MAX_JOINT_COMBINATIONS` of them is recorded as not decided, and searches over it say so.

Atoms that read different inputs of the call (`amount` and `note`) are independent: their
combinations are decided per group of atoms sharing an input, and multiplied; tests of one
input against literals are decided by trying values (`one_value`).

The atoms of a tool are numbered as `policyc.tables.product.tool_atoms` numbers them, so the
runtime reads the masks against the same bits.

>>> from policyc.ir import build as b
>>> from policyc.automata import compile_rule
>>> big = b.always(b.neg(b.event("pay", b.op("gt", b.arg("amount"), b.lit(1000)))))
>>> small = b.eventually(b.event("pay", b.op("lt", b.arg("amount"), b.lit(500))))
>>> joint = joint_letters([compile_rule(big).dfa, compile_rule(small).dfa])
>>> sorted(joint["pay"].masks), joint["pay"].exact     # never both bits: no amount is > 1000 and < 500
([0, 1, 2], True)
"""

from __future__ import annotations

from typing import Sequence

from policyc.automata.solver import TooManyCombinations, satisfiable_masks
from policyc.ir import nodes as n
from policyc.tables.dfa import Alphabet, DfaTable
from policyc.tables.product import JointLetters, tool_atoms

#: Satisfiable combinations of one tool's guard atoms the compiler enumerates at most.
MAX_JOINT_COMBINATIONS = 4096


def joint_letters(tables: Sequence[DfaTable], limit: int = MAX_JOINT_COMBINATIONS,
                  extra: Sequence[Alphabet] = ()) -> dict[str, JointLetters]:
    """Per tool some rule guards: the satisfiable combinations of all the rules' atoms on it
    (with the atoms of the `extra` alphabets, the parts of rules with quantified parts, that
    do not read their variable: the pool `policyc.tables.product.tool_atoms` makes).

    Tools whose atoms belong to one rule need nothing more than that rule's own alphabet; they
    are left out unless several rules guard them."""
    out: dict[str, JointLetters] = {}
    owners: dict[str, int] = {}
    pools = tool_atoms(tables, extra)
    for ab in [t.alphabet for t in tables] + list(extra):
        for tool, letters in ab.tools.items():
            if any(ab.atoms[i] in pools.get(tool, ()) for i in letters.atoms):
                # a part's atoms count twice: no single rule's letters cover the pool for it
                owners[tool] = owners.get(tool, 0) + (1 if ab.var is None else 2)
    for tool, pool in pools.items():
        if owners.get(tool, 0) < 2:
            continue
        keys = tuple(a.skey for a in pool)
        try:
            masks, exact = combinations(pool, limit)
        except TooManyCombinations:
            out[tool] = JointLetters(keys, None, False)
            continue
        out[tool] = JointLetters(keys, tuple(sorted(masks)), exact)
    return out


def combinations(pool: Sequence[n.Term], limit: int) -> tuple[list[int], bool]:
    """The satisfiable truth assignments of the pool's atoms (bit i = atom i), decided per
    group of atoms that share no value and multiplied (`solver.satisfiable_masks`).

    >>> from policyc.ir import build as b
    >>> amount, note = b.arg("amount"), b.arg("note")
    >>> pool = [b.op("gt", amount, b.lit(10)), b.op("eq", note, b.lit("x")), b.op("gt", amount, b.lit(20))]
    >>> masks, exact = combinations(pool, 100)
    >>> len(masks), 0b101 in masks, 0b100 in masks   # amount > 20 without amount > 10: impossible
    (6, True, False)
    """
    return satisfiable_masks(pool, limit)
