"""The automata's exact decision the lint relies on beyond its bound, against the evaluator:
whenever some short run (terminal call only last) satisfies a formula, `decide` must not
call it unsatisfiable, and whenever it says satisfiable, it must not be proven empty."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engines import ReferenceEngine
from generators import AGENT, NIGHTLY, continuations, formulas, templates
from policyc.lint.automata import LintAutomata

EXAMPLES = 1500 if NIGHTLY else 60
SETTINGS = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
TERMINAL = frozenset(name for name, sig in AGENT.tools.items() if sig.terminal)


@pytest.fixture(scope="module")
def reference() -> ReferenceEngine:
    """The evaluator, its memo shared by this module's examples (brute force repeats itself)."""
    return ReferenceEngine()


@SETTINGS
@given(st.lists(st.tuples(st.one_of(templates(AGENT), formulas(AGENT, 3)), st.booleans()), min_size=1, max_size=3))
def test_decide_agrees_with_short_runs_on_the_evaluator(reference, claims):
    automata = LintAutomata(AGENT.tools, TERMINAL)
    answer = automata.decide(claims)
    short = any(all(reference.holds_on(phi, run) == expected for phi, expected in claims)
                for run in continuations(AGENT, 3, final_last=True))
    if short:
        assert answer is not False, claims
    if answer is True:
        assert not automata.proves_empty(claims)


def test_counts_beyond_any_small_bound():
    from policyc.check import check_text

    policy, _ = check_text("policy p\ntool a()\nterminal tool done()\n"
                           "rule cap: called_n(a) <= 20\nrule many: called_n(a) >= 100\n", "p.altl")
    cap, many = (r.formula for r in policy.rules)
    automata = LintAutomata(policy.tools, policy.terminal_tools)
    assert automata.decide([(cap, False)]) is True   # 21 calls break it
    assert automata.decide([(many, True)]) is True   # 100 calls satisfy it
    assert automata.decide([(many, True), (cap, True)]) is False
