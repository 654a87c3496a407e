"""The runtime against the reference evaluator, on generated policies and traces.

- the automata the gate steps agree with the evaluator on every prefix;
- the report of a finished run equals the evaluator's verdicts;
- a call is refused for a rule only if every result and every continuation fails the rule
  (brute force over all continuations up to a bound), and a rule that no continuation of
  the minimal automaton's size can satisfy any more is always reported;
- a conflict is reported only if no continuation satisfies its rules together;
- a final call is owed-blocked exactly when the run ending with it fails the rule.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings

from engines import ReferenceEngine, some_continuation_satisfies
from runtime_helpers import outcomes as call_outcomes
from generators import AGENT, NIGHTLY, calls as traces, continuations, policies
from policyc.artifact.build import build_artifact
from policyc.ir.data import attributes
from policyc.runtime import Monitor

#: Policies per property: moderate in CI, many more with POLICYC_NIGHTLY=1.
EXAMPLES = 1500 if NIGHTLY else 60
SETTINGS = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
BOUND = 2  # continuation length for the brute-force oracle
FINALS = AGENT.finals


@pytest.fixture(scope="module")
def reference() -> ReferenceEngine:
    """The evaluator, its memo shared by this module's examples (brute force repeats itself)."""
    return ReferenceEngine()


def failed(args) -> bool:
    """Whether a call of the pool failed (its arguments carry the flag)."""
    return bool(attributes(args)["error"])


def monitor_for(policy) -> Monitor:
    return Monitor(build_artifact(policy, "sha256:generated"))


def satisfiable(reference: ReferenceEngine, formulas, prefix: list, length: int, final_last: bool) -> bool:
    """Some continuation of up to `length` calls satisfies every formula (brute force)."""
    return some_continuation_satisfies(reference, formulas, prefix, continuations(AGENT, length, final_last))


def gated_rules(monitor):
    """(rule index in the policy, rule name) of every compiled rule."""
    names = {n for n, r in monitor.compiled.rules.items() if r.table is not None}
    return [(i, r.name) for i, r in enumerate(monitor.policy.rules) if r.name in names]


@SETTINGS
@given(policies(AGENT), traces(AGENT))
def test_automata_agree_with_the_evaluator_on_every_prefix(reference, policy, calls):
    monitor = monitor_for(policy)
    run = monitor.start(mode="tolerate")
    for k in range(len(calls) + 1):
        verdicts = monitor.gate.verdicts(run.state.gate)
        for i, name in gated_rules(monitor):
            assert verdicts[name][1] == reference.holds_on(policy.rules[i].formula, calls[:k]), (policy.rules[i], k)
        if k < len(calls):
            tool, args, result = calls[k]
            run.record(tool, args, result, error=failed(args))


@SETTINGS
@given(policies(AGENT), traces(AGENT))
def test_the_report_equals_the_evaluator(reference, policy, calls):
    monitor = monitor_for(policy)
    run = monitor.start(mode="tolerate")
    for tool, args, result in calls:
        assert run.propose(tool, args).executes
        run.record(tool, args, result, error=failed(args))
    report = run.finish()
    verdicts = _verdicts(report)
    assert verdicts == {r.name: reference.holds_on(r.formula, calls) for r in policy.rules}


def _verdicts(report) -> dict:
    return {c.name: c.passed for c in report.constraints}


@pytest.mark.slow
@SETTINGS
@given(policies(AGENT), traces(AGENT, max_len=5))
def test_refusals_are_exact(reference, policy, calls):
    monitor = monitor_for(policy)
    gated = {name: (i, name) for i, name in gated_rules(monitor)}
    run = monitor.start(mode="tolerate")
    prefix: list = []
    for call in calls + [c for c in FINALS[:1] if not calls or calls[-1][0] != "done"]:
        tool, args, result = call
        decision = run.propose(tool, args)
        found = {f.rule: f for f in decision.findings}
        final = tool == "done"
        outcomes = call_outcomes(tool, args)  # either result, failed or not, or failed untyped
        for name, (i, g) in gated.items():
            formula = policy.rules[i].formula
            lost_before = not satisfiable(reference, [formula], prefix, BOUND + 1, final_last=False)
            if lost_before:
                assert name not in found or found[name].kind != "violation"
                continue
            table = monitor.compiled.table(g).dfa
            if final:
                fails = all(not reference.holds_on(formula, prefix + [o]) for o in outcomes)
                assert (name in found) == fails, (name, prefix, call)
            else:
                dead = all(not satisfiable(reference, [formula], prefix + [o], BOUND, final_last=False)
                           for o in outcomes)
                if name in found and found[name].kind == "violation":
                    assert dead, (name, prefix, call)
                elif table is not None and table.size <= BOUND + 1:
                    assert not dead, (name, prefix, call)  # small automaton: the bound is exhaustive
        for f in decision.findings:
            if f.kind == "conflict":
                formulas = [policy.rules[gated[r][0]].formula for r in f.rules]
                assert not any(satisfiable(reference, formulas, prefix + [o], BOUND, final_last=True)
                               for o in outcomes), (f.rules, prefix, call)
        if final:
            break
        run.record(tool, args, result, error=failed(args))
        prefix.append(call)
