"""Every stdlib predicate (prelude and DECLARE) on hand-made traces, including the ⊥ cases.

A trace is written as a string of calls: `a b:1 c:0=2` is a(), b(x=1), c(x=0) returning 2.
Both engines (reference and linear) must give the expected verdict.
"""

from __future__ import annotations

import pytest

from policyc.check import check_text
from policyc.semantics import Evaluator, PositionEvaluator
from policyc.trace import Trace

T, F = True, False

CASES: list[tuple[str, str, bool]] = [
    # ---- called / never / at_least / called_n / count
    ("called(a)", "b a", T), ("called(a)", "b", F), ("called(a)", "", F),
    ("never(a)", "", T), ("never(a)", "b c", T), ("never(a)", "b a", F),
    ("at_least(a, 2)", "a b a", T), ("at_least(a, 2)", "a b", F), ("at_least(a, 0)", "", T),
    ("called_n(a) == 0", "", T), ("called_n(a) == 0", "b a", F),
    ("called_n(a) == 2", "a a", T), ("called_n(a) == 2", "a a a", F),
    ("called_n(a) != 2", "a", T), ("called_n(a) != 2", "a b a", F),
    ("called_n(a) >= 2", "a a", T), ("called_n(a) > 2", "a a", F),
    ("called_n(a) <= 1", "a", T), ("called_n(a) < 1", "a", F), ("called_n(a) < 1", "", T),
    ("count(a(x: 1)) == 1", "a:1 a:2", T), ("count(a(x: 1)) == 1", "a:2 a", F),
    # ---- before / after: false when either side is ⊥, or when one call matches both
    ("before(a, d)", "a b d", T), ("before(a, d)", "d a", F),
    ("before(a, d)", "a b", F), ("before(a, d)", "b d", F), ("before(a, d)", "", F),
    ("before(a, a(x: 1))", "a:1", F), ("before(a, a(x: 1))", "a:2 a:1", T),
    ("after(a, d)", "d a", T), ("after(a, d)", "a d", F), ("after(a, d)", "a", F),
    # ---- all_before: every first(t) < first(g); ∀ over [] holds
    ("all_before([a, b], d)", "b a d", T), ("all_before([a, b], d)", "a d b", F),
    ("all_before([a, b], d)", "a d", F), ("all_before([a, b], d)", "a b", F), ("all_before([], d)", "", T),
    # ---- instance_before: nth(t1, n) < nth(t2, m), counting from 0
    ("instance_before(a, 1, b, 0)", "a a b", T), ("instance_before(a, 1, b, 0)", "a b a", F),
    ("instance_before(a, 1, b, 0)", "a b", F), ("instance_before(a, 1, b, 0)", "a a", F),
    ("instance_before(a, 0, b, 1)", "b a b", T), ("instance_before(a, 0, a(x: 1), 0)", "a:1", F),
    # ---- in_order: a subsequence; [] holds
    ("in_order([a, b, d])", "a c b c d", T), ("in_order([a, b, d])", "a d b", F),
    ("in_order([a, a])", "a", F), ("in_order([])", "", T),
    # ---- within_steps: first_after(t2, first(t1)) - first(t1) <= k
    ("within_steps(a, b, 1)", "a b", T), ("within_steps(a, b, 1)", "a c b", F),
    ("within_steps(a, b, 1)", "b a", F), ("within_steps(a, b, 1)", "", F),
    ("within_steps(a, a(x: 1), 0)", "a:1", T), ("within_steps(a, a(x: 1), -1)", "a:1", F),
    ("within_steps(a, b, 2)", "c a b a", T),
    # ---- called_with / called_with_result: a missing argument or result is ⊥
    ("called_with(a(x: 1))", "a:2 a:1", T), ("called_with(a(x: 1))", "a:2", F), ("called_with(a(x: 1))", "a", F),
    ("called_with_result(a(x: 1), 3)", "a:1=3", T), ("called_with_result(a(x: 1), 3)", "a:1=4", F),
    ("called_with_result(a(x: 1), 3)", "a:1", F), ("called_with_result(a, 1)", "a=1.0", T),
    # ---- branch_called
    ("branch_called(b, c)", "b", T), ("branch_called(b, c)", "b c", F), ("branch_called(b, c)", "c", F),
    ("branch_called(b, c)", "", F),
    # ---- DECLARE
    ("existence(a)", "b a", T), ("existence(a)", "", F),
    ("existence_n(a, 2)", "a a", T), ("existence_n(a, 2)", "a", F),
    ("absence(a)", "", T), ("absence(a)", "a", F),
    ("absence_n(a, 2)", "a", T), ("absence_n(a, 2)", "a a", F),
    ("exactly(a, 1)", "b a", T), ("exactly(a, 1)", "a a", F),
    ("init(a)", "a b", T), ("init(a)", "b a", F), ("init(a)", "", F),
    ("end(a)", "b a", T), ("end(a)", "a b", F), ("end(a)", "", F),
    ("responded_existence(a, b)", "b a", T), ("responded_existence(a, b)", "c", T), ("responded_existence(a, b)", "a", F),
    ("co_existence(a, b)", "", T), ("co_existence(a, b)", "b a", T), ("co_existence(a, b)", "a", F),
    ("response(a, b)", "a b a b", T), ("response(a, b)", "", T), ("response(a, b)", "a b a", F),
    ("precedence(a, b)", "a b b", T), ("precedence(a, b)", "", T), ("precedence(a, b)", "b a", F),
    ("succession(a, b)", "a b", T), ("succession(a, b)", "b", F), ("succession(a, b)", "a", F),
    ("alternate_response(a, b)", "a b a b", T), ("alternate_response(a, b)", "a a b", F),
    ("alternate_precedence(a, b)", "a b a b", T), ("alternate_precedence(a, b)", "a b b", F),
    ("alternate_succession(a, b)", "a b a b", T), ("alternate_succession(a, b)", "a b b", F),
    ("chain_response(a, b)", "a b c", T), ("chain_response(a, b)", "a c b", F), ("chain_response(a, b)", "a", F),
    ("chain_precedence(a, b)", "a b c", T), ("chain_precedence(a, b)", "c b", F), ("chain_precedence(a, b)", "b", F),
    ("chain_succession(a, b)", "c a b", T), ("chain_succession(a, b)", "a c b", F),
    ("`not_coexistence`(a, b)", "a c", T), ("`not_coexistence`(a, b)", "b a", F),
    ("`not_succession`(a, b)", "b a", T), ("`not_succession`(a, b)", "a c b", F),
    ("`not_chain_succession`(a, b)", "a c b", T), ("`not_chain_succession`(a, b)", "a b", F),
    ("choice(a, b)", "c b", T), ("choice(a, b)", "c", F),
    ("exclusive_choice(a, b)", "b b", T), ("exclusive_choice(a, b)", "a b", F), ("exclusive_choice(a, b)", "", F),
]


def trace_of(text: str) -> Trace:
    """`a b:1 c:0=2 a=1.0`: name, then `:x` (the argument x), then `=result`."""
    calls = []
    for word in text.split():
        call, _, result = word.partition("=")
        name, _, x = call.partition(":")
        args = {"x": int(x)} if x else {}
        calls.append((name, args, float(result) if "." in result else int(result)) if result else (name, args))
    return Trace.of(*calls)


BODIES = sorted({body for body, _, _ in CASES})
POLICY = "import declare\n" + "".join(f"tool {t}(x: int) -> int\n" for t in "abcd") + "".join(
    f"rule r{i}: {body}\n" for i, body in enumerate(BODIES))


@pytest.fixture(scope="module")
def formulas():
    policy, diagnostics = check_text(POLICY, "stdlib_table.altl")
    assert policy is not None, [d.message for d in diagnostics]
    return {BODIES[int(r.name[1:])]: r.formula for r in policy.rules}


def test_trace_notation():
    t = trace_of("a b:1 c:0=2 a=1.0")
    assert [(c.name, dict(c.args)) for c in t.calls] == [("a", {}), ("b", {"x": 1}), ("c", {"x": 0}), ("a", {})]
    assert [c.result for c in t.calls][2:] == [2, 1.0]


@pytest.mark.parametrize("body,trace,expected", CASES, ids=[f"{b} on [{t}]" for b, t, _ in CASES])
def test_stdlib_predicate(formulas, body, trace, expected):
    t = trace_of(trace)
    assert Evaluator(t).holds(formulas[body]) is expected
    assert PositionEvaluator(t).holds(formulas[body]) is expected


def test_every_stdlib_definition_has_a_case():
    from policyc.resources import stdlib_dir
    import re

    defined = set()
    for name in ("prelude.altl", "declare.altl"):
        defined |= set(re.findall(r"^def (\w+)", (stdlib_dir() / name).read_text(), re.M))
    used = {re.match(r"`?(\w+)", body).group(1) for body in BODIES}
    assert defined - used <= {"within"}, f"no table case for {sorted(defined - used - {'within'})}"
