"""Hostile input: the shortest traces. The empty trace and a one-call trace, for every operator.

`always ((a since b) -> once a)` on the empty trace once failed with `negative shift count`
(the bit-vector engine shifted by n - 1 = -1), and `Run.finish()` of a run without calls
raised the same way. The engine now has no positions on the empty trace; these properties
check every engine against the reference evaluator there, and the scorer and a finished run
on top of them.
"""

from __future__ import annotations

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from generators import LETTERS, formulas, quantified
from policyc.artifact.build import build_artifact
from policyc.automata import compile_policy
from policyc.cli import cli
from policyc.ir import build as b
from policyc.ir.policy import Policy, Rule
from policyc.runtime import Monitor
from policyc.scoring import score_trace
from policyc.semantics import Evaluator, PositionEvaluator
from policyc.trace import Trace

SHORT_TRACES = st.lists(st.sampled_from(LETTERS.pool), max_size=1).map(lambda calls: Trace.of(*calls))
#: Rule shapes whose vacuity the scorer reads off the trace (`always (t -> c)`, `a R (t -> c)`),
#: around random formulas with every future and past operator, strong and weak, and quantifiers.
RULES = st.one_of(
    formulas(LETTERS, 3),
    quantified(LETTERS, 2),
    st.tuples(formulas(LETTERS, 2), formulas(LETTERS, 2)).map(lambda p: b.always(b.implies(p[0], p[1]))),
    st.tuples(formulas(LETTERS, 1), formulas(LETTERS, 2), formulas(LETTERS, 2)).map(lambda p: b.release(p[0], b.implies(p[1], p[2]))),
)


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(RULES, SHORT_TRACES)
def test_every_engine_agrees_with_the_reference_on_empty_and_one_call_traces(phi, trace):
    reference = Evaluator(trace)
    engine = PositionEvaluator(trace)
    assert engine.holds(phi) == reference.holds(phi)
    assert engine.vector(phi) == [reference.holds(phi, i) for i in range(len(trace.calls))]


@settings(max_examples=60, deadline=None)
@given(RULES, SHORT_TRACES)
def test_the_scorer_and_a_finished_run_decide_short_traces_as_the_reference_does(phi, trace):
    policy = Policy("short", None, {}, (Rule("r", phi),))
    expected = Evaluator(trace).holds(phi)
    assert score_trace(compile_policy(policy), trace).constraints[0].passed == expected
    run = Monitor(build_artifact(policy, "sha256:short")).start()
    for call in trace.calls:
        run.record(call.name, call.args, call.result)
    assert run.finish().constraints[0].passed == expected


def test_since_on_the_empty_trace_scores_instead_of_crashing(tmp_path):
    policy = tmp_path / "p.altl"
    policy.write_text("tool a()\ntool b()\nrule r: always ((a since b) -> once a)\n")
    trace = tmp_path / "empty.json"
    trace.write_text('{"tool_calls": []}')
    result = CliRunner().invoke(cli, ["score", str(policy), str(trace)])
    assert result.exit_code == 0, result.output
    assert "compliance 1.000 FULL" in result.output


def test_a_run_without_calls_finishes():
    text = "tool a()\ntool b()\nrule r: always ((a since b) -> once a)\nrule s: called(a)\n"
    from policyc.check import check_text

    policy, _ = check_text(text, "p.altl")
    report = Monitor(build_artifact(policy)).start().finish()
    assert [(c.name, c.passed) for c in report.constraints] == [("r", True), ("s", False)]
