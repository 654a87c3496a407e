"""A recorded result checked in one walk (`calls.typed_plain`): plain JSON of the declared type;
a proposed call's arguments likewise (`calls.typed_args`): plain JSON that conforms.

`Run.record` asks it first and keeps a result that passes as it is; anything else goes through
`value_problem` and the result's shaping as before. `Run.propose` asks it of the arguments
first; arguments that do not pass go through `value_problem` and `Signatures.conforms`. The one walk may only say yes when both
of those would find nothing to do: these tests hold it to that on hostile values (wrong types,
subclasses, tuples, keys that are not text, huge integers, nesting past the limit) and hold a
recorded run to what the two checks make of the same result.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from policyc.ir.types import (
    ANY, BOOL, FLOAT, INT, NULL, STR, DictT, EnumT, ListT, OptionalT, Param, RecordT, ToolSignature, type_check,
)
from policyc.runtime import RunError
from policyc.runtime.calls import (
    MAX_INT_BITS, MAX_VALUE_DEPTH, normalise_result, typed_args, typed_plain, value_problem,
)
from policyc.trace.conformance import Signatures
from policyc.trace.results import shaped_result
from runtime_helpers import Count, Text, monitor_of


FIELDS = ("id", "note", "rows", "ok")
TYPES = st.recursive(
    st.sampled_from([ANY, BOOL, FLOAT, INT, NULL, STR, EnumT("Kind", ("a", "b"))]),
    lambda inner: st.one_of(
        inner.map(ListT), inner.map(DictT), inner.filter(lambda t: not isinstance(t, OptionalT)).map(OptionalT),
        st.lists(st.tuples(st.sampled_from(FIELDS), inner), max_size=3, unique_by=lambda f: f[0]).map(
            lambda fields: RecordT("R", tuple(fields)))),
    max_leaves=6)
SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(-5, 5), st.floats(allow_nan=False), st.sampled_from(["a", "b", "c"]),
    st.just(1 << (MAX_INT_BITS + 1)), st.just(Text("a")), st.just(Count(3)), st.just(b"raw"))
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.lists(inner, max_size=2).map(tuple),
        st.dictionaries(st.one_of(st.sampled_from(FIELDS), st.just(1)), inner, max_size=3)),
    max_leaves=10)


def nested(depth: int, leaf: object) -> object:
    value = leaf
    for _ in range(depth):
        value = [value]
    return value


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(t=TYPES, value=VALUES)
def test_the_one_walk_says_yes_only_when_both_checks_find_nothing(t, value):
    if typed_plain(t)(value, 0):
        assert value_problem(value) is None
        assert type_check(t)(value)
        assert shaped_result(value, t) is value


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(params=st.lists(st.tuples(st.sampled_from(FIELDS), TYPES), max_size=3, unique_by=lambda p: p[0]),
       args=st.dictionaries(st.one_of(st.sampled_from(FIELDS), st.just(Text("id")), st.just(1)), VALUES, max_size=3))
def test_arguments_told_in_one_walk_have_no_value_problem_and_conform(params, args):
    sig = ToolSignature("t", tuple(Param(name, t) for name, t in params), ANY)
    if typed_args(sig)(args):
        assert value_problem(args) is None
        assert Signatures({"t": sig}).conforms("t", args)


@pytest.mark.parametrize("depth", [MAX_VALUE_DEPTH - 1, MAX_VALUE_DEPTH, MAX_VALUE_DEPTH + 1])
def test_nesting_at_the_limit_is_told_as_value_problem_tells_it(depth):
    t = ListT(ANY)
    value = nested(depth, 1)
    assert typed_plain(t)(value, 0) == (value_problem(value) is None)
    deep_record = {"id": 1, "rows": nested(depth - 1, "x")}
    check = typed_plain(RecordT("R", (("id", INT), ("rows", ANY))))
    assert check(deep_record, 0) == (value_problem(deep_record) is None)


TOOLS = """
tool fetch(id: int) -> list[{ id: int, note: str?, tags: list[str] }]
tool read(path: str) -> any
terminal tool done(answer: str?)
"""


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(value=VALUES)
def test_a_recorded_result_is_what_the_two_checks_make_of_it(value):
    monitor = monitor_of("rule r layer L1 weight 1:\n    true\n", TOOLS)
    declared = monitor.policy.tools["fetch"].result
    run = monitor.start()
    problem = value_problem(value)
    if problem is not None:
        with pytest.raises(RunError, match="the result of `fetch`"):
            run.record("fetch", {"id": 1}, value)
        assert not run.trace.calls
        return
    run.record("fetch", {"id": 1}, value)
    (call,) = run.trace.calls
    expected = shaped_result(normalise_result(value), declared)
    assert call.result == expected and type(call.result) is type(expected)


def test_a_typed_result_is_kept_as_it_is_and_text_is_still_read():
    monitor = monitor_of("rule r layer L1 weight 1:\n    true\n", TOOLS)
    run = monitor.start()
    rows = [{"id": 1, "note": None, "tags": ["a"], "extra": {"x": [1.5]}}]
    run.record("fetch", {"id": 1}, rows)
    run.record("fetch", {"id": 2}, '{"result": [{"id": 2, "tags": []}]}')
    run.record("fetch", {"id": 3}, [{"id": Count(3), "tags": []}])  # an int subclass: shaped as before
    first, second, third = run.trace.calls
    assert first.result is rows
    assert second.result == [{"id": 2, "tags": []}]
    assert third.result == [{"id": 3, "tags": []}]
    with pytest.raises(RunError, match="nest more than 100 levels deep"):
        run.record("fetch", {"id": 4}, [{"id": 1, "tags": [], "extra": nested(MAX_VALUE_DEPTH, 1)}])
