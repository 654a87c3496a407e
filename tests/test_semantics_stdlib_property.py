"""The stdlib, compiled from AgentLTL, agrees with direct implementations of its definitions.

Every prelude predicate is compared with appendix A.2.2 written in Python over first, nth and
first_after (tests/stdlib_reference.py), and every DECLARE template with its standard LTLf
reading, on random traces of `generators.LETTERS` (four tools and one no rule names, an
argument that may be missing, results that may be absent). Both the reference evaluator and
the linear-time engine are checked.
"""

from __future__ import annotations

import itertools

import pytest
from hypothesis import HealthCheck, given, settings

import stdlib_reference as ref
from generators import LETTERS, NIGHTLY, calls
from policyc.check import check_text
from policyc.semantics import Evaluator, PositionEvaluator
from policyc.trace import Trace

EXAMPLES = 400 if NIGHTLY else 60
TOOLS = ("a", "b", "c", "d")

# (source text, python matcher) for the events the predicates are instantiated with
EVENTS = {
    "a": ("a", lambda c: c[0] == "a"),
    "b": ("b", lambda c: c[0] == "b"),
    "c": ("c", lambda c: c[0] == "c"),
    "d": ("d", lambda c: c[0] == "d"),
    "a1": ("a(x: 1)", lambda c: c[0] == "a" and c[1].get("x") == 1),
    "b2": ("b(x >= 2)", lambda c: c[0] == "b" and c[1].get("x", -1) >= 2),
    "c0": ("c(result == 0)", lambda c: c[0] == "c" and c[2] == 0 and c[2] is not True and c[2] is not False),
    "aob": ("a or b", lambda c: c[0] in ("a", "b")),
}
PAIRS = [("a", "b"), ("b", "a"), ("a", "a1"), ("a1", "a"), ("a1", "b2"), ("aob", "c"), ("c0", "d"), ("a", "a")]


def _src(key: str) -> str:
    return EVENTS[key][0]


def _ev(key: str):
    return EVENTS[key][1]


def _cases() -> dict[str, tuple[str, object]]:
    """rule name -> (AgentLTL body, python oracle over a call list)."""
    cases: dict[str, tuple[str, object]] = {}

    def add(body: str, oracle) -> None:
        cases[f"r{len(cases)}"] = (body, oracle)

    for k in EVENTS:
        add(f"called({_src(k)})", lambda tr, k=k: ref.called(tr, _ev(k)))
        add(f"never({_src(k)})", lambda tr, k=k: ref.never(tr, _ev(k)))
        add(f"called_with({_src(k)})" if k in "a1 b2 c0" else f"called({_src(k)})",
            lambda tr, k=k: ref.called_with(tr, _ev(k)))
    for k in ("a", "a1", "aob"):
        for n in range(-1, 4):
            add(f"at_least({_src(k)}, {n})", lambda tr, k=k, n=n: ref.at_least(tr, _ev(k), n))
            for op in ref.COMPARE:
                add(f"called_n({_src(k)}) {op} {n}", lambda tr, k=k, op=op, n=n: ref.called_n(tr, _ev(k), op, n))
        add(f"count({_src(k)}) <= 2", lambda tr, k=k: ref.called_n(tr, _ev(k), "<=", 2))
    for k1, k2 in PAIRS:
        e1, e2 = _ev(k1), _ev(k2)
        add(f"before({_src(k1)}, {_src(k2)})", lambda tr, e1=e1, e2=e2: ref.before(tr, e1, e2))
        add(f"after({_src(k1)}, {_src(k2)})", lambda tr, e1=e1, e2=e2: ref.after(tr, e1, e2))
        add(f"branch_called({_src(k1)}, {_src(k2)})", lambda tr, e1=e1, e2=e2: ref.branch_called(tr, e1, e2))
        for k in range(-1, 4):
            add(f"within_steps({_src(k1)}, {_src(k2)}, {k})",
                lambda tr, e1=e1, e2=e2, k=k: ref.within_steps(tr, e1, e2, k))
        for n, m in itertools.product(range(3), range(3)):
            add(f"instance_before({_src(k1)}, {n}, {_src(k2)}, {m})",
                lambda tr, e1=e1, e2=e2, n=n, m=m: ref.instance_before(tr, e1, n, e2, m))
    for ts in ([], ["a"], ["a", "b"], ["b", "a", "b"], ["a1", "a", "d"], ["a", "a", "a"]):
        listed = "[" + ", ".join(_src(k) for k in ts) + "]"
        evs = [_ev(k) for k in ts]
        add(f"in_order({listed})", lambda tr, evs=evs: ref.in_order(tr, evs))
        add(f"all_before({listed}, d)", lambda tr, evs=evs: ref.all_before(tr, evs, _ev("d")))
    for r in (0, 1, 2):
        add(f"called_with_result(c, {r})", lambda tr, r=r: ref.called_with_result(tr, _ev("c"), r))
        add(f"called_with_result(a(x: 1), {r})", lambda tr, r=r: ref.called_with_result(tr, _ev("a1"), r))
    # DECLARE, over events of different tools (activities)
    unary = ["existence", "absence", "init", "end"]
    counted = ["existence_n", "absence_n", "exactly"]
    binary = ["responded_existence", "co_existence", "response", "precedence", "succession",
              "alternate_response", "alternate_precedence", "alternate_succession", "chain_response",
              "chain_precedence", "chain_succession", "not_coexistence", "not_succession",
              "not_chain_succession", "choice", "exclusive_choice"]
    for name in unary:
        for k in ("a", "b2"):
            add(f"{name}({_src(k)})", lambda tr, name=name, k=k: getattr(ref, name)(tr, _ev(k)))
    for name in counted:
        for n in range(0, 4):
            add(f"{name}(a, {n})", lambda tr, name=name, n=n: getattr(ref, name)(tr, _ev("a"), n))
    for name in binary:
        for k1, k2 in (("a", "b"), ("b", "a"), ("a1", "c0")):
            # backticks: `not_...` names, which the lexer would otherwise split after `not`
            add(f"`{name}`({_src(k1)}, {_src(k2)})",
                lambda tr, name=name, k1=k1, k2=k2: getattr(ref, name)(tr, _ev(k1), _ev(k2)))
    return cases


CASES = _cases()
POLICY_TEXT = "import declare\n" + "".join(f"tool {t}(x: int) -> int\n" for t in TOOLS) + "".join(
    f"rule {name}: {body}\n" for name, (body, _) in CASES.items())


@pytest.fixture(scope="module")
def policy():
    checked, diagnostics = check_text(POLICY_TEXT, "stdlib_cases.altl")
    assert checked is not None, [d.message for d in diagnostics]
    return checked


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(plain=calls(LETTERS, 30))
def test_stdlib_matches_its_definition(policy, plain):
    trace = Trace.of(*plain)
    reference = Evaluator(trace)
    fast = PositionEvaluator(trace)
    for rule in policy.rules:
        body, oracle = CASES[rule.name]
        expected = oracle(plain)
        assert reference.holds(rule.formula) == expected, f"{body} on {[c[0] for c in plain]}"
        assert fast.holds(rule.formula) == expected, f"{body} (linear engine)"
