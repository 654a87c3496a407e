"""The automata against the reference evaluator, on generated rules and traces.

For every prefix of every trace: the automaton accepts exactly when the evaluator says the
prefix, read as a complete trace, satisfies the rule. Verdicts are checked both ways: an
"open" or "satisfied" state's shortest continuation to acceptance is replayed on the
evaluator and must satisfy the rule (likewise a shortest continuation to rejection for
states not permanently satisfied), and a "violated" ("satisfied") state is checked by brute
force over every continuation up to a bound, drawn from one representative call per letter.
`first_violation` must name the first prefix whose state is violated.
"""

from __future__ import annotations

import pytest
import itertools

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from policyc.automata import SATISFIED, VIOLATED, NotCompilable, compile_rule, first_violation
from policyc.semantics import evaluate
from policyc.trace import Trace

from generators import LETTERS, NIGHTLY, formulas, quantified, traces

POOL = LETTERS.pool

# one example is a rule with one to three traces: about 2,000 plain and 1,400 quantified cases
# in CI, ten times as many nightly
PLAIN = settings(max_examples=10_000 if NIGHTLY else 1_000, deadline=None, derandomize=not NIGHTLY,
                 suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
QUANTIFIED = settings(PLAIN, max_examples=7_000 if NIGHTLY else 700)


def extend(trace: Trace, calls) -> Trace:
    return Trace.of(*[(c.name, c.args, c.result) for c in trace.calls], *calls)


def representatives(alphabet) -> dict[int, tuple]:
    """One pool call per letter of the alphabet (the pool realises every letter used here)."""
    reps: dict[int, tuple] = {}
    for call in POOL:
        reps.setdefault(alphabet.letter(call[0], call[1], call[2]), call)
    return reps


def all_continuations(reps, bound: int):
    for length in range(1, bound + 1):
        yield from itertools.product(reps, repeat=length)


def check_dfa_verdict(phi, dfa, q, prefix: Trace, reps, checked: set) -> None:
    verdict = dfa.verdict[q]
    if verdict != VIOLATED:
        witness = dfa.shortest_continuation(q)
        if all(l in reps for l in witness):
            assert evaluate(phi, extend(prefix, [reps[l] for l in witness])), (phi, prefix, witness)
    if verdict != SATISFIED:
        witness = dfa.shortest_rejection(q)
        if all(l in reps for l in witness):
            assert not evaluate(phi, extend(prefix, [reps[l] for l in witness])), (phi, prefix, witness)
    if verdict in (VIOLATED, SATISFIED) and verdict not in checked:
        checked.add(verdict)
        calls = list(reps.values())
        for cont in all_continuations(calls, 2 if len(calls) <= 6 else 1):
            assert evaluate(phi, extend(prefix, cont)) == (verdict == SATISFIED), (phi, prefix, cont)


def check_prefixes(phi, traces) -> None:
    auto = compile_rule(phi)
    dfa = auto.dfa
    reps = representatives(dfa.alphabet) if dfa is not None else None
    for trace in traces:
        run = auto.start()
        first, seen, checked = None, None, set()
        for k in range(len(trace) + 1):
            prefix = trace.prefix(k)
            assert run.accepting() == evaluate(phi, prefix), (phi, prefix)
            verdict = run.verdict()
            if seen in (VIOLATED, SATISFIED):
                assert verdict == seen, "permanent verdicts stay"
            seen = verdict
            if verdict == VIOLATED and first is None:
                first = k
            if dfa is not None:
                check_dfa_verdict(phi, dfa, run.states[0], prefix, reps, checked)
            elif verdict in (VIOLATED, SATISFIED) and verdict not in checked:
                checked.add(verdict)  # sliced parts: certain verdicts only (brute force, one step)
                for call in POOL[::3]:
                    assert evaluate(phi, extend(prefix, [call])) == (verdict == SATISFIED), (phi, prefix, call)
            if k < len(trace):
                c = trace.calls[k]
                run.step(c.name, c.args, c.result)
        assert first_violation(phi, trace) == first


@pytest.mark.slow
@PLAIN
@given(formulas(LETTERS, 3, future_under_past=False, constants=False), st.lists(traces(LETTERS, 30), min_size=1, max_size=3))
def test_plain_rules_agree_with_the_evaluator(phi, traces):
    check_prefixes(phi, traces)


@pytest.mark.slow
@QUANTIFIED
@given(quantified(LETTERS, 3, constants=False), st.lists(traces(LETTERS, 20), min_size=1, max_size=3))
def test_quantified_rules_agree_with_the_evaluator(phi, traces):
    try:
        compile_rule(phi)
    except NotCompilable as exc:  # a quantifier the generator put below a temporal operator
        assert "quantifier" in exc.reason
        return
    check_prefixes(phi, traces)
