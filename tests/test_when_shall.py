"""`when ρ shall χ`: a rule with its applicability ("Organising trajectory evidence", eq. 2).

The rule is `always (ρ -> χ)`, the same IR node as the implication written out, so every engine
(the evaluator, the automata, Z3, the gate) reads it as that; its applicability App is
`exists x...: eventually ρ`, which the scorer evaluates per run, and which the artifact keeps.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from policyc.artifact.build import build_artifact
from policyc.artifact.io import dump_artifact, parse_artifact
from policyc.artifact.policy import compiled_of
from policyc.automata import compile_policy
from policyc.check import check_text
from policyc.ir.printer import show
from policyc.runtime import Monitor
from policyc.scoring import score_corpus, score_trace
from policyc.semantics import PositionEvaluator
from policyc.trace import Trace

TOOLS = """
tool read(line: str) -> { ended: bool }
tool resume(line: str)
tool refuel(gb: float)
tool usage()
"""

WHEN = TOOLS + """
rule no_resume_ended severity block:
    forall l: when read(line: l, result.ended == true) shall always not resume(line: l)
rule cap severity block:
    when refuel shall refuel(gb <= 2)
rule implicit:
    when resume(line: l) shall once read(line: l)
"""

ALWAYS = TOOLS + """
rule no_resume_ended severity block:
    forall l: always (read(line: l, result.ended == true) -> always not resume(line: l))
rule cap severity block:
    always (refuel -> refuel(gb <= 2))
rule implicit:
    always (resume(line: l) -> once read(line: l))
"""


def _policy(text: str):
    policy, diagnostics = check_text(text, "p.altl")
    assert policy is not None, diagnostics
    return policy


def test_when_shall_is_the_always_it_stands_for():
    when, plain = _policy(WHEN), _policy(ALWAYS)
    assert [r.formula for r in when.rules] == [r.formula for r in plain.rules]  # one hash-consed node each
    assert [r.applicability for r in plain.rules] == [None, None, None]
    assert [show(r.applicability) for r in when.rules] == [
        "exists l in read.line + resume.line: F read(line: l, result.ended == true)",
        "F refuel",
        "exists l in resume.line + read.line: F resume(line: l)",
    ]


CALLS = st.one_of(
    st.builds(lambda line, ended: ("read", {"line": line}, {"ended": ended}), st.sampled_from("AB"), st.booleans()),
    st.builds(lambda line: ("resume", {"line": line}, None), st.sampled_from("AB")),
    st.builds(lambda gb: ("refuel", {"gb": gb}, None), st.sampled_from([1.0, 3.0])),
    st.just(("usage", {}, None)),
)


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(st.lists(CALLS, max_size=7))
def test_applicability_is_the_situation_happening_somewhere_and_scoring_counts_it(calls):
    policy = _policy(WHEN)
    trace = Trace.of(*calls)
    expected = {
        "no_resume_ended": any(name == "read" and result["ended"] for name, _, result in calls),
        "cap": any(name == "refuel" for name, _, _ in calls),
        "implicit": any(name == "resume" for name, _, _ in calls),
    }
    report = score_trace(compile_policy(policy), trace)
    assert {c.name: c.applicable for c in report.constraints} == expected
    # a rule that does not apply holds, and vacuously; one that applies is exercised
    for c in report.constraints:
        assert c.vacuous == (c.passed and not c.applicable)
    # the same verdicts as the rules written with `always`
    plain = score_trace(compile_policy(_policy(ALWAYS)), trace)
    assert [c.passed for c in report.constraints] == [c.passed for c in plain.constraints]
    assert all(c.applicable is None for c in plain.constraints)
    engine = PositionEvaluator(trace)
    assert [engine.holds(r.formula) for r in policy.rules] == [c.passed for c in report.constraints]


def test_the_corpus_counts_the_runs_each_rule_applies_to():
    runs = [Trace.of(("refuel", {"gb": 1.0}, None)), Trace.of(("refuel", {"gb": 3.0}, None)), Trace.of(("usage", {}, None))]
    report = score_corpus(compile_policy(_policy(WHEN)), runs)
    assert {r.name: (r.applicable, r.checks - r.passed) for r in report.rules} == {
        "no_resume_ended": (0, 0), "cap": (2, 1), "implicit": (0, 0)}
    assert all(r.applicable is None for r in score_corpus(compile_policy(_policy(ALWAYS)), runs).rules)


def test_the_artifact_keeps_the_applicability_and_the_gate_enforces_the_rule():
    policy = _policy(WHEN)
    artifact = parse_artifact(dump_artifact(build_artifact(policy)))
    compiled = compiled_of(artifact)
    assert [r.applicability for r in compiled.policy.rules] == [r.applicability for r in policy.rules]
    trace = Trace.of(("read", {"line": "A"}, {"ended": True}), ("resume", {"line": "A"}, None))
    assert [c.applicable for c in score_trace(compiled, trace).constraints] == [True, False, True]
    run = Monitor(artifact).start()
    run.record("read", {"line": "A"}, {"ended": True})
    decision = run.propose("resume", {"line": "A"})
    assert not decision.executes and [f.rule for f in decision.findings] == ["no_resume_ended"]
    assert not run.propose("refuel", {"gb": 3.0}).executes
    assert run.propose("refuel", {"gb": 2.0}).executes
