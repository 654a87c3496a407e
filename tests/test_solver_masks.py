"""The guard combinations the compiler keeps (`satisfiable_masks`: independent groups, tests
of one value decided by trying values) are exactly those the plain Z3 search over all atoms
keeps (`solver_masks`), in the same order when both are exact, for random atoms:
shared and separate paths, mixed literal types, optional and absent values, bound variables,
metrics, event attributes, text functions, patterns, quantifiers over a call's lists, externs and
comparisons of two values. Every
combination a concrete call gives is kept, and every value `one_value` offers as a witness
gives its combination on the evaluator. Tests of `lower(x)`, `upper(x)`, `strip(x)` and
`len(x)` are exact when every combination kept was given by a value such a function takes (and
x is read no other way): a call with that value (or a text of that length) gives it."""

from __future__ import annotations

import math
import os

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from policyc.automata.one_value import OneValue
from policyc.automata.solver import TooManyCombinations, satisfiable_masks, solver_masks
from policyc.ir import build as b
from policyc.ir.data import DataEnv, eval_term
from policyc.ir.ops import UNDEF, truthy

EXAMPLES = 1500 if os.environ.get("POLICYC_NIGHTLY") else 150

X, Y = b.arg("x"), b.arg("y")
SUBJECTS = [X, Y, b.field(b.result(), "v"), b.field(b.result(), "w"), b.index(b.result(), b.lit(0)),
            b.metric(("m",)), b.var("o"), b.attr("actor"), b.op("lower", X), b.op("strip", X), b.op("len", X),
            b.op("neg", X), b.op("add", X, b.lit(1))]
NUMBERS = [0, 1, 2, -1, 2.5, 1.0, math.nextafter(1.0, 2.0), 10**18]
TEXTS = ["", "a", "ab", "b", "A", "ba"]
SCALARS = st.sampled_from([*NUMBERS, *TEXTS, True, False, None])
PATTERNS = ["a+", "[ab]*", "b", "(ab|c)[^a-z]", "", "x?", "[0-9]+", ".*", "a(?:b)?", "[^\\x00-\\x{10FFFF}]"]


@st.composite
def atoms(draw, subjects=tuple(SUBJECTS), quantifiers=True):
    subject = draw(st.sampled_from(subjects))
    form = draw(st.integers(0, 11 if quantifiers else 10))
    if form <= 3:
        op = draw(st.sampled_from(["eq", "ne", "lt", "le", "gt", "ge"]))
        lit = b.lit(draw(SCALARS))
        return b.op(op, subject, lit) if form != 3 else b.op(op, lit, subject)
    if form <= 5:
        op = draw(st.sampled_from(["contains", "startswith", "endswith"]))
        lit = b.lit(draw(st.sampled_from(TEXTS)))
        return b.op(op, subject, lit) if form == 4 else b.op(op, lit, subject)
    if form == 6:
        coll = draw(st.one_of(st.lists(SCALARS, max_size=3), st.sampled_from(TEXTS)))
        return b.op("in", subject, b.lit(coll))
    if form == 7:
        return subject if subject in (X, Y, b.metric(("m",))) else b.op("eq", subject, b.lit(True))
    if form == 8:
        return b.op(draw(st.sampled_from(["eq", "lt"])), subject, draw(st.sampled_from(SUBJECTS)))
    if form == 10:  # a pattern: decided by the texts it matches, confirmed by the matcher
        return b.op("matches", subject, b.lit(draw(st.sampled_from(PATTERNS))))
    if form == 11:  # a quantifier over a list the call carries (its type unknown to the solver)
        item = b.var("i")
        place = draw(st.sampled_from([item, b.field(item, "w"), b.field(item, "v")]))
        body = b.op(draw(st.sampled_from(["eq", "ne", "gt"])), place, b.lit(draw(SCALARS)))
        if draw(st.booleans()):
            body = b.op("and", body, b.op("eq", b.field(item, "v"), b.lit(draw(SCALARS))))
        domain = draw(st.sampled_from([b.result(), b.field(b.result(), "v"), X]))
        return b.quant(draw(st.sampled_from(["exists", "forall"])), "i", domain, body)
    return b.extern("ok", subject)


def pools(max_size: int = 5):
    """Atoms over one or two subjects (so that groups of tests of one value are common), or
    over any."""
    few = st.lists(st.sampled_from(SUBJECTS), min_size=1, max_size=2).map(tuple)
    return st.one_of(few.flatmap(lambda subjects: st.lists(atoms(subjects), min_size=1, max_size=max_size, unique=True)),
                     st.lists(atoms(), min_size=1, max_size=max_size, unique=True))


@pytest.mark.slow
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pools())
def test_the_same_combinations_as_the_plain_search(pool):
    """Both only ever keep too many combinations: one that is exact keeps no more than the
    other, and two exact answers are the same, in the same order. (A combination the solver
    cannot settle within its resource limit is kept, and the answer is then not exact: the two
    searches ask it different questions, so either may meet one.)"""
    masks, exact = satisfiable_masks(pool)
    plain, plain_exact = solver_masks(pool)
    if exact and plain_exact:
        assert masks == plain
    elif exact:
        assert set(masks) <= set(plain)
    elif plain_exact:
        assert set(plain) <= set(masks)


FUNCTION_SUBJECTS = [b.op("lower", X), b.op("upper", X), b.op("strip", X), b.op("len", X)]


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(atoms(tuple(FUNCTION_SUBJECTS), quantifiers=False), min_size=1, max_size=4, unique=True))
def test_an_exact_answer_through_a_text_function_is_given_by_calls(pool):
    """Every combination of an exact answer is the truth of the pool on some call: the witness
    of the function's value, read back as the argument (a text of that length for `len`)."""
    masks, exact = satisfiable_masks(pool)
    if not exact:
        return
    group = OneValue.of(pool)
    if group is None:
        return  # several subjects: decided apart, each checked in an example of its own
    for mask in masks:
        hit = group.witness(mask, (1 << len(pool)) - 1)
        assert hit == mask, (pool, mask)
        value = group.witnesses[hit]
        arg = "a" * value if group.subject.op == "len" and type(value) is int else value
        env = DataEnv({}, {} if arg is UNDEF else {"x": arg}, UNDEF)
        assert sum(1 << i for i, atom in enumerate(pool) if truthy(eval_term(atom, env))) == mask, (pool, mask)


VALUES = st.one_of(SCALARS, st.sampled_from(["aba", "AB", " a ", [1], {"v": 1}, {"w": "a"}]))


@pytest.mark.slow
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pools().filter(
           lambda p: not any(s in (b.metric(("m",)), b.var("o"), b.attr("actor")) for a in p for s in _parts(a))),
       st.dictionaries(st.sampled_from(["x", "y"]), VALUES, max_size=2),
       st.one_of(st.none(), st.dictionaries(st.sampled_from(["v", "w"]), VALUES), st.lists(VALUES, max_size=2)))
def test_every_combination_a_call_gives_is_kept(pool, args, result):
    env = DataEnv({}, args, UNDEF if result is None else result, externs={"ok": lambda v: v == "a"})
    mask = sum(1 << i for i, atom in enumerate(pool) if truthy(eval_term(atom, env)))
    assert mask in satisfiable_masks(pool)[0]


def _parts(t):
    from policyc.ir.walk import subformulas

    return list(subformulas(t))


@settings(max_examples=EXAMPLES, deadline=None)
@given(pools(6))
def test_a_witness_gives_its_combination(pool):
    group = OneValue.of(pool)
    if group is None:
        return
    for mask, value in group.witnesses.items():
        assert group.mask(value) == mask
        if group.subject == X:  # on the evaluator too
            env = DataEnv({}, {} if value is UNDEF else {"x": value}, UNDEF)
            assert sum(1 << i for i, atom in enumerate(pool) if truthy(eval_term(atom, env))) == mask


def test_a_pattern_is_decided_by_the_texts_it_matches():
    """The solver sees no pattern (`matches` is a free condition to it): a group with one is
    exact only when a text gives each combination kept, the pattern's examples among the
    candidates (each confirmed by RE2); a combination no text gives keeps the answer inexact."""
    semver = b.op("matches", X, b.lit("v[0-9]+[.][0-9]+[.][0-9]+"))
    assert satisfiable_masks([semver]) == ([0, 1], True)
    assert OneValue.of([semver]).witnesses[1] == "v0.0.0"
    # matching the pattern without starting with `v` is impossible, but not known to be
    assert satisfiable_masks([semver, b.op("startswith", X, b.lit("v"))]) == ([0, 2, 1, 3], False)
    nothing = b.op("matches", X, b.lit("[^\\x00-\\x{10FFFF}]"))  # Python cannot read it: no example
    assert satisfiable_masks([nothing]) == ([0, 1], False)


def test_a_quantifier_over_a_call_s_list_is_decided_by_calls_built_from_it():
    """The solver reads a quantifier over an untyped list only in part: a group of atoms that
    read only the call is exact when calls built from the places the atoms read (fields, a
    list's elements, the literals they are compared with) give every combination kept. A group
    sharing its input with another group the encoding splits off stays inexact."""
    item = b.var("i")
    sev1 = b.quant("exists", "i", b.result(), b.op("and", b.op("eq", b.field(item, "severity"), b.lit(1)),
                                                   b.op("eq", b.field(item, "open"), b.lit(True))))
    assert satisfiable_masks([sev1]) == ([0, 1], True)
    assert satisfiable_masks([sev1, b.op("eq", X, b.lit(2))]) == ([0, 2, 1, 3], True)  # apart: independent
    rows = b.quant("forall", "i", b.field(b.result(), "rows"), b.op("gt", b.field(item, "x"), b.lit(3)))
    assert satisfiable_masks([rows, b.op("eq", b.field(b.result(), "total"), b.lit(0))]) == ([0, 2, 1, 3], True)
    # a result that is a list has no rows (forall over none holds): one combination is kept
    # that no call gives, and the answer says it is not exact
    assert satisfiable_masks([rows, sev1]) == ([0, 2, 1, 3], False)
    # `len(result)` is read apart from the rows: no call has a sev-1 incident and no rows
    assert satisfiable_masks([sev1, b.op("eq", b.op("len", b.result()), b.lit(0))])[1] is False
    # a rule's bound variable is not the call's: nothing is built for it
    assert satisfiable_masks([b.quant("exists", "i", b.result(), b.op("eq", item, b.var("s")))])[1] is False


def test_the_limit_counts_every_combination_across_groups():
    pool = [b.op("gt", X, b.lit(1)), b.op("gt", X, b.lit(2)), b.op("eq", Y, b.lit("a")), b.op("eq", Y, b.lit("b"))]
    assert len(satisfiable_masks(pool)[0]) == 9
    with pytest.raises(TooManyCombinations):
        satisfiable_masks(pool, limit=8)


def test_tests_of_one_value_need_no_solver(monkeypatch):
    """Numbers compared with literals and texts compared for equality: every case tried, no
    solver asked (one that was would fail here)."""
    import policyc.automata.solver as solver

    monkeypatch.setattr(solver, "_Encoder", None)
    pool = [b.op("gt", X, b.lit(100)), b.op("lt", X, b.lit(50)), b.op("in", Y, b.lit(["a", "b"])),
            b.op("ne", Y, b.lit("a")), b.op("contains", b.op("lower", X), b.lit("abroad"))]
    masks, exact = satisfiable_masks(pool)
    assert exact is False  # `lower(x)` beside tests of x: the groups are not independent
    assert sorted(masks) == sorted(x | y | z for x in (0, 1, 2) for y in (0, 4, 8 | 4, 8) for z in (0, 16))


def test_a_combination_no_value_gives_keeps_the_answer_inexact():
    """`lower(x)` never holds a capital: no value it takes gives `contains(lower(x), "AB")`,
    and the solver, which does not see into `lower`, cannot rule it out: the combination stays
    listed, and the answer is not exact; `contains(lower(x), "password")` is exact."""
    assert satisfiable_masks([b.op("contains", b.op("lower", X), b.lit("AB"))]) == ([0, 1], False)
    assert satisfiable_masks([b.op("contains", b.op("lower", X), b.lit("password"))]) == ([0, 1], True)
    assert satisfiable_masks([b.op("contains", b.op("lower", X), b.lit("ab")),
                              b.op("eq", b.op("len", X), b.lit(1))])[1] is False


def _truths(atoms, *, args=None, result=UNDEF) -> int:
    """The combination a concrete call gives, on the evaluator."""
    env = DataEnv({}, args if args is not None else {}, result)
    return sum(1 << i for i, a in enumerate(atoms) if truthy(eval_term(a, env)))


@pytest.mark.parametrize("atoms, witnesses", [
    # a field and an item of one base: an object has no items, a list no names
    ([b.op("eq", b.field(b.result(), "x"), b.lit(2)), b.op("eq", b.index(b.result(), b.lit(0)), b.lit(1))],
     [{"result": None}, {"result": {"x": 2}}, {"result": [1]}]),
    ([b.op("eq", b.field(b.field(b.result(), "a"), "b"), b.lit(2)), b.op("eq", b.index(b.result(), b.lit(0)), b.lit(1))],
     [{"result": None}, {"result": {"a": {"b": 2}}}, {"result": [1]}]),
    # a text's character is the text's: "abc" starts with "a" and ends with "c"
    ([b.op("eq", X, b.lit("abc")), b.op("eq", b.index(X, b.lit(0)), b.lit("a"))],
     [{"args": {}}, {"args": {"x": "a"}}, {"args": {"x": "abc"}}]),
    ([b.op("eq", X, b.lit("abc")), b.op("eq", b.index(X, b.lit(-1)), b.lit("c"))],
     [{"args": {}}, {"args": {"x": ["c"]}}, {"args": {"x": "abc"}}]),
    # two fields of one base: independent
    ([b.op("eq", b.field(b.result(), "a"), b.lit(2)), b.op("eq", b.field(b.result(), "b"), b.lit(1))],
     [{"result": {}}, {"result": {"a": 2}}, {"result": {"b": 1}}, {"result": {"a": 2, "b": 1}}]),
])
def test_paths_of_one_base_and_characters_of_a_text_are_told_apart(atoms, witnesses):
    """An exact answer has every combination some call gives and no other: each combination
    kept has a concrete witness here, and the witnesses give every combination kept."""
    for decide in (satisfiable_masks, solver_masks):
        masks, exact = decide(atoms)
        assert exact
        assert set(masks) == {_truths(atoms, **w) for w in witnesses}, decide.__name__


def test_equality_with_a_list_or_an_object_is_not_claimed_exact():
    """Lists and objects are compared through a free condition per comparison, so `x == [1]`
    and `x == [2]` both true is kept: possible for the encoding, not for a call. The answer
    says it is not exact (never too few, so never wrong, but not a proof)."""
    atoms = [b.op("eq", X, b.lit([1])), b.op("eq", X, b.lit([2]))]
    for decide in (satisfiable_masks, solver_masks):
        masks, exact = decide(atoms)
        assert 0b11 in masks and not exact


def test_equality_of_two_values_is_transitive_and_contents_are_not_claimed():
    """`a == b` and `b == c` with `a != c` is no call's combination, whatever the values are
    (lists and objects included: they are equal by identity). Contents of values compared
    with one another are not encoded, so with a path taken from them the answer is not exact."""
    a, b_, c = (b.field(b.result(), name) for name in "abc")
    atoms = [b.op("eq", a, b_), b.op("eq", b_, c), b.op("eq", a, c)]
    witnesses = [{"result": {}}, {"result": {"a": 1, "b": 1, "c": 2}}, {"result": {"a": 2, "b": 1, "c": 1}},
                 {"result": {"a": 1, "b": 2, "c": 1}}, {"result": {"a": [1], "b": [1], "c": [1]}}]
    for decide in (satisfiable_masks, solver_masks):
        masks, exact = decide(atoms)
        assert exact and set(masks) == {_truths(atoms, **w) for w in witnesses}
    p, q = b.arg("p"), b.arg("q")
    atoms = [b.op("eq", p, q), b.op("eq", b.field(p, "x"), b.lit(1)), b.op("eq", b.field(q, "x"), b.lit(2))]
    for decide in (satisfiable_masks, solver_masks):
        assert not decide(atoms)[1]


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(atoms((X,), quantifiers=False), min_size=1, max_size=8, unique=True), st.lists(VALUES, max_size=6),
       st.lists(st.tuples(st.integers(0, 255), st.integers(0, 255)), max_size=12))
def test_a_group_s_indexes_answer_as_its_tests_one_by_one(pool, values, asked):
    """`OneValue.mask` reads equalities with literals through one lookup and `witness` through
    an index by the bits known (a policy testing one argument against 400 literals compiled in
    267 s; found by a sweep written from the docs alone): both answer as the tests one by one
    and a scan of the witnesses in the order they were found would."""
    group = OneValue.of(pool)
    assume(group is not None)
    for v in [*values, *group.candidates]:
        assert group.mask(v) == sum(1 << i for i, t in enumerate(group.tests) if t.fn(v))
    full = (1 << len(group.tests)) - 1
    for mask, known in asked:
        mask, known = mask & full, known & full
        scanned = next((m for m in group.witnesses if m & known == mask & known), None)
        found = group.witness(mask, known)
        if scanned is not None:
            assert found == scanned
        elif found is not None:  # a text built for it: a value giving what was asked
            assert found & known == mask & known and group.mask(group.witnesses[found]) == found
