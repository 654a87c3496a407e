"""`has_type` is `not value_problems`: the runtime's quick test of a recorded result (and of an
argument that is not a scalar) against its declared type says what the full check says."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from policyc.runtime.calls import _plain_json, _value_problem
from runtime_helpers import Count, Text
from policyc.ir.types import (
    ANY, BOOL, FLOAT, INT, NULL, STR, DictT, EnumT, ListT, OptionalT, Prim, RecordT, has_type, value_problems,
)

FIELDS = st.sampled_from(["id", "amount", "tags", "x"])

TYPES = st.recursive(
    st.sampled_from([INT, FLOAT, STR, BOOL, NULL, ANY, Prim("float"), EnumT("Level", ("low", "high"))]),
    lambda inner: st.one_of(
        st.builds(ListT, inner),
        st.builds(DictT, inner),
        st.builds(OptionalT, inner),
        st.lists(st.tuples(FIELDS, inner), max_size=3, unique_by=lambda f: f[0]).map(
            lambda fields: RecordT("R", tuple(fields))),
    ),
    max_leaves=6,
)

VALUES = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.floats(allow_nan=False, width=16),
              st.sampled_from(["low", "high", "x", "", Text("low"), Count(2)])),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(FIELDS, inner, max_size=4)),
    max_leaves=10,
)


def _value_of(t: object) -> st.SearchStrategy[object]:
    """Values of type `t` (so the drawn pairs hold often, not only by chance)."""
    if isinstance(t, OptionalT):
        return st.none() | _value_of(t.inner)
    if isinstance(t, ListT):
        return st.lists(_value_of(t.elem), max_size=3)
    if isinstance(t, DictT):
        return st.dictionaries(FIELDS, _value_of(t.value), max_size=2)
    if isinstance(t, RecordT):
        return st.fixed_dictionaries({name: _value_of(ft) for name, ft in t.fields})
    if isinstance(t, EnumT):
        return st.sampled_from(t.members)
    return {INT: st.integers(-3, 3), FLOAT: st.floats(allow_nan=False, width=16) | st.integers(-3, 3),
            STR: st.text(max_size=3), BOOL: st.booleans(), NULL: st.none()}.get(t, VALUES)  # type: ignore[call-overload]


@settings(max_examples=400, deadline=None)
@given(st.data())
def test_has_type_is_no_value_problem(data: st.DataObject) -> None:
    t = data.draw(TYPES)
    value = data.draw(_value_of(t) | VALUES)
    assert has_type(value, t) == (not value_problems(value, t))


JSONISH = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.just(1 << 13_001), st.floats(), st.text(max_size=2),
              st.just(b"raw"), st.just(()), st.just((1,))),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=2) | st.integers(0, 2), inner,
                                                                         max_size=3)),
    max_leaves=12,
)


@settings(max_examples=400, deadline=None)
@given(JSONISH, st.integers(0, 4))
def test_quick_json_check_agrees_with_the_full_one(value: object, limit: int) -> None:
    """`value_problem`'s quick pass over plain data passes only what its full check passes."""
    if _plain_json(value, 0, limit):
        assert _value_problem(value, limit) is None
