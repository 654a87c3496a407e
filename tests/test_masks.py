"""A call's mask, read through argument tables, equals each atom's truth on the reference
evaluator's term semantics, for random atoms and random values (numbers near and between the
literals, huge integers, floats, strings, booleans, null, lists, missing arguments)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from policyc.ir import build as b
from policyc.ir.data import DataEnv, eval_term
from policyc.ir.ops import truthy
from policyc.tables.masks import MaskReader

NUMBERS = st.one_of(st.integers(-3, 3), st.sampled_from([0.5, -1.5, 2.0, 2**60, 2**60 + 1, 10**18]))
STRINGS = st.sampled_from(["", "a", "b", "tier1", "tier2"])
LITERALS = st.one_of(NUMBERS, STRINGS, st.sampled_from([True, None, [1]]))
VALUES = st.one_of(NUMBERS, STRINGS, st.floats(allow_nan=True, allow_infinity=True, width=32),
                   st.integers(2**60 - 2, 2**60 + 2), st.sampled_from([True, False, None, [1], {"a": 1}]))
ARGS = st.sampled_from(["x", "y"])


@st.composite
def atoms(draw):
    op = draw(st.sampled_from(["eq", "ne", "lt", "le", "gt", "ge"]))
    kind = draw(st.integers(0, 5))
    left = b.arg(draw(ARGS)) if kind else b.field(b.result(), "v")
    atom = b.op(op, left, b.lit(draw(LITERALS)))
    return atom if kind != 5 else b.op("and", atom, b.op("gt", b.arg("y"), b.lit(0)))


@pytest.mark.slow
@settings(max_examples=400, deadline=None)
@given(st.lists(atoms(), min_size=1, max_size=12, unique=True),
       st.dictionaries(ARGS, VALUES, max_size=2), st.one_of(st.none(), st.dictionaries(st.just("v"), VALUES)))
def test_the_mask_is_each_atoms_truth(pool, args, result):
    expected = sum(1 << i for i, atom in enumerate(pool) if truthy(eval_term(atom, DataEnv({}, args, result))))
    assert MaskReader(pool).read(args, result) == expected
