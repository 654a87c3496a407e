"""Offline scoring: appendix B exactly, Definition 1, labels, details, violated_at, vacuity, aggregates."""

from __future__ import annotations

import json

import pytest

from policyc.automata import compile_policy
from policyc.check import check_file, check_text
from policyc.scoring import score_corpus, score_trace
from policyc.tables import CompiledPolicy, CompiledRule
from policyc.trace import Trace, TraceError, load_traces

APPENDIX_B_OUTPUT = """{
  "compliance_score": 1.0,
  "compliance_label": "FULL",
  "details": "All constraints satisfied.",
  "tool_sequence": ["tool_a", "tool_b", "tool_b", "tool_b", "tool_d"],
  "constraints": [
    {"name": "tool_a_called", "layer": "L1", "weight": 2.0, "passed": true,
     "detail": "\\"tool_a\\" was called (call #1)."},
    {"name": "tool_a_before_branches", "layer": "L4", "weight": 3.0, "passed": true,
     "detail": "\\"tool_a\\" (call #1) before \\"tool_d\\" (call #5)."},
    {"name": "branch_call_count", "layer": "L5", "weight": 3.0, "passed": true,
     "detail": "Predicate returned True (3 branch calls, expected >= 3)."},
    {"name": "tool_b_for_even", "layer": "L5", "weight": 3.0, "passed": true,
     "detail": "\\"tool_b\\" called 3 time(s); expected >= 3."},
    {"name": "tool_b_before_tool_d", "layer": "L3", "weight": 4.0, "passed": true,
     "detail": "\\"tool_b\\" (call #2) before \\"tool_d\\" (call #5)."},
    {"name": "tool_d_called", "layer": "L1", "weight": 2.0, "passed": true,
     "detail": "\\"tool_d\\" was called (call #5)."}
  ]
}"""


@pytest.fixture(scope="module")
def fan_out():
    policy, diagnostics = check_file("examples/fan_out_fan_in.altl")
    assert policy is not None, diagnostics
    return policy


def test_appendix_b_record_gives_exactly_the_appendix_b_output(fan_out):
    (trace,) = load_traces("examples/traces/appendix_b.json").traces
    report = score_trace(compile_policy(fan_out), trace)
    assert report.paper_view() == json.loads(APPENDIX_B_OUTPUT)
    dumped = report.model_dump(mode="json")
    assert list(dumped)[:5] == ["compliance_score", "compliance_label", "details", "tool_sequence", "constraints"]
    assert list(dumped["constraints"][0])[:5] == ["name", "layer", "weight", "passed", "detail"]
    assert json.dumps(report.paper_view()) == json.dumps(json.loads(APPENDIX_B_OUTPUT))  # same key order
    assert all(c.violated_at is None and not c.vacuous for c in report.constraints)
    assert report.input_problems == []


def test_definition_1_and_the_labels(fan_out):
    partial = score_trace(compile_policy(fan_out), Trace.of(("tool_a", {"seed": 1}), ("tool_b", {"i": 2, "j": 0}),
                                            ("tool_b", {"i": 4, "j": 0})))
    failed = {c.name for c in partial.constraints if not c.passed}
    assert failed == {"tool_a_before_branches", "branch_call_count", "tool_b_for_even", "tool_b_before_tool_d",
                      "tool_d_called"}
    total = 2 + 3 + 3 + 3 + 4 + 2
    assert partial.compliance_score == pytest.approx(1 - (3 + 3 + 3 + 4 + 2) / total)
    assert partial.compliance_label == "PARTIAL"
    assert partial.details.startswith("5 of 6 constraints violated: tool_a_before_branches (L4), ")
    empty = score_trace(compile_policy(fan_out), Trace.of())
    assert (empty.compliance_score, empty.compliance_label, empty.tool_sequence) == (0.0, "NONE", [])


def test_a_policy_without_rules_scores_one():
    policy, _ = check_text("tool a()\n", "empty.altl")
    report = score_trace(compile_policy(policy), Trace.of(("a", {})))
    assert (report.compliance_score, report.compliance_label, report.details) == (1.0, "FULL",
                                                                                   "All constraints satisfied.")


# ------------------------------------------------------------------ details


TOOLS = "import declare\n" + "".join(f"tool {t}(x: int?) -> int\n" for t in "abcd")

DETAILS = [
    ("called(a)", "b a", '"a" was called (call #2).'),
    ("called(a)", "b", '"a" was never called.'),
    ("never(a)", "b", '"a" was never called.'),
    ("never(a)", "b a", '"a" was called (call #2).'),
    ("called_n(a) >= 2", "a b a", '"a" called 2 time(s); expected >= 2.'),
    ("called_n(a) > 2", "a a", '"a" called 2 time(s); expected > 2.'),
    ("called_n(a or b) == 2", "a c b", "Predicate returned True (2 a or b calls, expected == 2)."),
    ("count(a(x: 1)) <= 1", "a:1 a:1", '"a(x: 1)" called 2 time(s); expected <= 1.'),
    ("at_least(a, 2)", "a", '"a" called 1 time(s); expected >= 2.'),
    ("exactly(a, 1)", "a", '"a" called 1 time(s); expected == 1.'),
    ("before(a, d)", "a b d", '"a" (call #1) before "d" (call #3).'),
    ("before(a, d)", "d a", '"a" (call #2) is not before "d" (call #1).'),
    ("before(a, d)", "a", '"d" was never called; "a" was (call #1).'),
    ("before(a, d)", "d", '"a" was never called; "d" was (call #1).'),
    ("before(a, d)", "", '"a" and "d" were never called.'),
    ("after(a, d)", "d a", '"a" (call #2) after "d" (call #1).'),
    ("all_before([a, b], d)", "b a d", '"a" (call #2), "b" (call #1) before "d" (call #3).'),
    ("all_before([a, b], d)", "a d b", '"b" (call #3) is not before "d" (call #2).'),
    ("all_before([a, b], d)", "a b", '"d" was never called.'),
    ("in_order([a, b, d])", "a c b d", '"a" (call #1), "b" (call #3), "d" (call #4) in order.'),
    ("in_order([a, b, d])", "a d b", '"d" never follows "b" (call #3).'),
    ("within_steps(a, b, 1)", "c a b", '"b" (call #3) within 1 step(s) of "a" (call #2).'),
    ("within_steps(a, b, 1)", "a c b", '"b" (call #3) is 2 step(s) after "a" (call #1); expected at most 1.'),
    ("within_steps(a, b, 1)", "b a", 'No "b" at or after "a" (call #2).'),
    ("instance_before(a, 1, b, 0)", "a a b", 'Occurrence 2 of "a" (call #2) before occurrence 1 of "b" (call #3).'),
    ("instance_before(a, 1, b, 0)", "a b a", 'Occurrence 2 of "a" (call #3) is not before occurrence 1 of "b" '
                                             '(call #2).'),
    ("instance_before(a, 1, b, 0)", "a b", '"a" called 1 time(s); occurrence 2 does not exist.'),
    ("called_with(a(x: 1))", "a:2 a:1", '"a(x: 1)" was called (call #2).'),
    ("called_with_result(a, 3)", "a=4", '"a(result == 3)" was never called.'),
    ("branch_called(b, c)", "b", '"b" was called (call #1); "c" was never called.'),
    ("branch_called(b, c)", "c b", '"b" was called (call #2); "c" was called (call #1).'),
    ("always (a -> once b)", "b a a", "Holds at every call (3)."),
    ("always (a -> once b)", "a b", "Does not hold at call #1 (`a`)."),
    ("always (a -> once b)", "c", "Holds vacuously: `a` never occurred."),
    ("response(a, b)", "a c", "Does not hold at call #1 (`a`)."),
    ("always (a(x: v) -> once b(x: v))", "b:1 a:2", "Does not hold for v = 2 at call #2 (`a`)."),
    ("a until b", "a b", "Satisfied."),
    ("a until b", "a c", "Not satisfied by the complete trace (2 call(s))."),
]


def trace_of(text: str) -> Trace:
    calls = []
    for word in text.split():
        call, _, result = word.partition("=")
        name, _, x = call.partition(":")
        calls.append((name, {"x": int(x)} if x else {}) + ((int(result),) if result else ()))
    return Trace.of(*calls)


@pytest.fixture(scope="module")
def detail_policy():
    bodies = sorted({body for body, _, _ in DETAILS})
    policy, diagnostics = check_text(TOOLS + "".join(f"rule r{i}: {body}\n" for i, body in enumerate(bodies)),
                                     "details.altl")
    assert policy is not None, [d.message for d in diagnostics]
    return policy, bodies


@pytest.mark.parametrize("body,trace,expected", DETAILS, ids=[f"{b} on [{t}]" for b, t, _ in DETAILS])
def test_details(detail_policy, body, trace, expected):
    policy, bodies = detail_policy
    report = score_trace(compile_policy(policy), trace_of(trace))
    (result,) = [c for c in report.constraints if c.name == f"r{bodies.index(body)}"]
    assert result.detail == expected


# ------------------------------------------------------------------ vacuity


VACUITY = [
    ("always (a -> once b)", "c", True),                 # the trigger never occurred
    ("always (a -> once b)", "b a", False),
    ("always (a(x: v) -> once b(x: v))", "c", True),     # the implicit domain is empty
    ("forall v in a.x: v > 0", "b", True),
    ("forall v in a.x: v > 0", "a:1", False),            # a condition on every value: exercised, not vacuous
    ("precedence(a, b)", "c a", True),                    # no b at all
    ("precedence(a, b)", "a b", False),
    ("called(a) and always (b -> once a)", "a", True),   # an obligation without a trigger does not count
    ("always (b -> once a) and always (c -> once a)", "a c", False),
    ("called_n(a) == 0", "", False),                     # a prohibition that holds is not vacuous
    ("never(a)", "b", False),
    ("called(b) -> called(a)", "c", True),                # a top-level implication with a false antecedent
    ("always (once a -> b)", "", True),                   # a temporal trigger on the empty trace (no position)
    ("always ((a until b) -> c)", "", True),
    ("always (b -> not eventually a)", "a", True),        # a negated consequence: `b` is the trigger
    ("always (b -> not eventually a)", "a b", False),
    ("not_succession(b, a)", "a c", True),
    ("always (b -> called_n(a) <= 1)", "a", True),        # a count as the consequence
    ("not_coexistence(a, b)", "a", False),                # negations alone, of one kind: no trigger
]


@pytest.mark.parametrize("body,trace,vacuous", VACUITY, ids=[f"{b} on [{t}]" for b, t, _ in VACUITY])
def test_vacuity(body, trace, vacuous):
    policy, diagnostics = check_text(f"{TOOLS}rule r: {body}\n", "v.altl")
    assert policy is not None, [d.message for d in diagnostics]
    (result,) = score_trace(compile_policy(policy), trace_of(trace)).constraints
    assert (result.passed, result.vacuous) == (True, vacuous)
    assert result.detail.startswith("Holds vacuously: ") is vacuous


def test_a_count_under_if_then_else_on_the_metrics_is_exercised_and_its_details_say_where():
    """`if c then A else B` is `(c -> A) and (not c -> B)`; the constructors write the second
    as `c or B`, which once read the count inside B as the trigger: every pass was called
    vacuous (with the count's expansion as the absent trigger), and `policyc assure` counted
    the rule as applying only to the runs that broke it. One of the two branches always
    applies. A run breaking it is violated where the count was exceeded, and a rule over the
    metrics alone that a run's metrics break says so (it once read "Unsatisfiable")."""
    policy, diagnostics = check_text(TOOLS + "rule budget: if metrics.steps > 100 then called_n(a) <= 1 "
                                     "else called_n(a) <= 2\nrule fast: metrics.seconds <= 1800\n", "m.altl")
    assert policy is not None, [d.message for d in diagnostics]
    compiled = compile_policy(policy)
    kept = score_trace(compiled, Trace.of(("a", {}), ("a", {}), metrics={"steps": 2, "seconds": 10})).constraints
    assert [(c.passed, c.vacuous) for c in kept] == [(True, False), (True, False)], kept
    calls = [("a", {}), ("a", {}), ("a", {}), ("b", {})]
    broken = score_trace(compiled, Trace.of(*calls, metrics={"steps": 2, "seconds": 2000})).constraints
    assert [(c.passed, c.violated_at) for c in broken] == [(False, 3), (False, 0)]
    assert broken[0].detail == "Violated once call #3 (`a`) happened: no continuation can satisfy it."
    assert broken[1].detail == "Violated before the first call: no continuation of this run can satisfy it."


# ------------------------------------------------------------------ violated_at and the rule class


def test_violated_at_comes_from_the_tables_handed_in(fan_out):
    compiled = compile_policy(fan_out)
    trace = Trace.of(("tool_d", {"numbers": []}), ("tool_b", {"i": 1, "j": 0}))
    with_tables = {c.name: c.violated_at for c in score_trace(compiled, trace).constraints if not c.passed}
    assert with_tables["tool_a_before_branches"] == 1          # certain at the first call, from its automaton
    # the same policy handed in without that rule's table: the evaluator decides, at the end of the trace
    rules = dict(compiled.rules)
    rules["tool_a_before_branches"] = CompiledRule(None, "offline-only", "left out by the test")
    bare = CompiledPolicy(fan_out, rules)
    without = {c.name: c.violated_at for c in score_trace(bare, trace).constraints if not c.passed}
    assert without == {**with_tables, "tool_a_before_branches": 2}
    assert score_trace(compiled, trace).constraints[1].rule_class == "gateable"
    assert score_trace(bare, trace).constraints[1].rule_class == "offline-only"


def test_score_trace_wants_the_compiled_policy(fan_out):
    with pytest.raises(TypeError, match="compile_policy"):
        score_trace(fan_out, Trace.of())


def test_a_rule_that_cannot_be_evaluated_counts_as_violated_and_says_why():
    policy, _ = check_text('tool a(x: int)\nextern predicate ok(n: int) from "no_such_module:ok"\n'
                           "rule r weight 2: forall v in a.x: ok(v)\nrule s: called(a)\n", "e.altl")
    report = score_trace(compile_policy(policy), Trace.of(("a", {"x": 1})))
    r = report.constraints[0]
    assert (r.passed, r.error) == (False, "extern predicate `ok` has no Python binding")
    assert r.detail == "Could not be evaluated: extern predicate `ok` has no Python binding."
    assert report.compliance_score == pytest.approx(1 / 3)
    bound = score_trace(compile_policy(policy), Trace.of(("a", {"x": 1})), externs={"ok": lambda n: n > 0})
    assert bound.compliance_score == 1.0


def test_the_scorer_never_imports_what_a_policy_names():
    """`from "module:function"` is only a name: the caller binds the function."""
    policy, _ = check_text('tool a(x: int)\nextern predicate truthy(n: int) from "builtins:bool"\n'
                           "rule r: forall v in a.x: truthy(v)\n", "e.altl")
    unbound = score_trace(compile_policy(policy), Trace.of(("a", {"x": 1})))
    assert unbound.constraints[0].error == "extern predicate `truthy` has no Python binding"
    bound = {"truthy": bool}
    assert score_trace(compile_policy(policy), Trace.of(("a", {"x": 1})), externs=bound).compliance_score == 1.0
    assert score_trace(compile_policy(policy), Trace.of(("a", {"x": 0})), externs=bound).compliance_score == 0.0


def test_calls_that_do_not_match_the_signatures_are_input_problems(fan_out):
    report = score_trace(compile_policy(fan_out), Trace.of(("tool_a", {"sead": 1}), ("launch", {})))
    assert [(p.call, p.stage, p.code, p.help) for p in report.input_problems] == [
        (1, "structure", "missing-argument", None),
        (1, "structure", "unknown-argument", "did you mean `seed`?"),
        (2, "registry", "unknown-tool", None),
    ]
    assert report.has_input_errors


def test_a_result_without_a_reading_of_its_type_is_reported_once_in_call_order():
    """The scorer learns which results have no reading of their declared type while shaping
    them, not by checking each again: its input problems are `check_trace`'s on the shaped
    trace, in the same order (a call's own problems, then its result's)."""
    from policyc.scoring import Scorer
    from policyc.trace.conformance import check_trace
    from policyc.trace.model import Call
    from policyc.trace.results import ResultShapes

    policy, _ = check_text("""
        tool get(id: str) -> { id: str, n: int }
        tool put(id: str) -> int
        rule r: called(get)
    """, "p.altl")
    calls = [("get", {"id": 3}, {"id": "a", "n": "x"}), ("get", {"id": "a"}, '{"id": "a", "n": 1}'),
             ("put", {"id": "a"}, "seven"), ("get", {"id": "b"}, {"result": {"id": "b", "n": 2}}),
             ("nope", {}, 1), ("get", {"id": "c"}, "boom"), ("get", {"id": "c"}, "not json")]
    trace = Trace(tuple(Call(name, args, result, i, error=i == 5) for i, (name, args, result) in enumerate(calls)))
    report = Scorer(compile_policy(policy)).score(trace)
    expected = check_trace(ResultShapes(policy.tools).trace(trace), policy.tools)
    assert [(p.call, p.stage, p.code) for p in report.input_problems] == [
        (f.position + 1, f.stage, f.code) for f in expected]
    assert [(p.call, p.code) for p in report.input_problems] == [
        (1, "wrong-type"), (1, "wrong-result"), (3, "wrong-result"), (5, "unknown-tool"), (7, "wrong-result")]


# ------------------------------------------------------------------ the corpus


def test_corpus_aggregate(fan_out):
    good = load_traces("examples/traces/appendix_b.json").traces[0]
    no_d = Trace.of(("tool_a", {"seed": 1}), ("tool_b", {"i": 2, "j": 0}), ("tool_b", {"i": 4, "j": 0}),
                    ("tool_b", {"i": 6, "j": 0}))
    broken = TraceError("x.jsonl", 3, "tool_calls", "`tool_calls` must be an array, found an object")
    corpus = score_corpus(compile_policy(fan_out), [good, no_d, broken, Trace.of(("tool_q", {}))])
    assert (corpus.records, corpus.traces, corpus.malformed_records) == (4, 3, 1)
    reports = corpus.reports
    assert corpus.mean_score == pytest.approx(sum(r.compliance_score for r in reports) / 3)
    assert corpus.labels == {"FULL": 1, "PARTIAL": 1, "NONE": 1}
    rules = {r.name: (r.checks, r.passed) for r in corpus.rules}
    assert rules["tool_d_called"] == (3, 1) and rules["tool_b_for_even"] == (3, 2)
    layers = {l.layer: l for l in corpus.layers}
    assert [l.layer for l in corpus.layers] == ["L1", "L3", "L4", "L5"]
    assert (layers["L1"].checks, layers["L1"].passed) == (6, 3)   # tool_a_called 2 of 3, tool_d_called 1 of 3
    lost = {"L1": 2 + 2 + 2, "L3": 4 + 4, "L4": 3 + 3, "L5": 3 + 3}  # weights of the violated checks
    assert layers["L3"].loss_share == pytest.approx(lost["L3"] / sum(lost.values()))
    assert corpus.traces_with_input_problems == 1 and corpus.input_problems == {"registry": 1}
    assert corpus.malformed[0].line == 3
    assert "reports" not in corpus.aggregate()


def test_corpus_vacuity_counts():
    policy, _ = check_text("tool a()\ntool b()\nrule r layer L4: always (a -> once b)\n", "v.altl")
    corpus = score_corpus(compile_policy(policy), [Trace.of(("b", {})), Trace.of(("b", {}), ("a", {})), Trace.of()])
    assert corpus.vacuous_passes == 2 and corpus.rules[0].vacuous == 2 and corpus.rules[0].pass_rate == 1.0


def test_violated_at_from_the_automata_engine(fan_out):
    pytest.importorskip("policyc.automata")
    trace = Trace.of(("tool_b", {"i": 2, "j": 0}), ("tool_d", {"numbers": []}), ("tool_a", {"seed": 1}))
    report = score_trace(compile_policy(fan_out), trace)
    got = {c.name: c.violated_at for c in report.constraints if not c.passed}
    # tool_d came before tool_a: certain after call #2, though the trace has 3 calls
    assert got["tool_a_before_branches"] == 2
    assert got["tool_b_for_even"] == 3  # a count: only the end of the trace decides


def test_generic_details_say_when_the_violation_became_certain(detail_policy):
    pytest.importorskip("policyc.automata")
    policy, bodies = detail_policy
    (result,) = [c for c in score_trace(compile_policy(policy), trace_of("c a b")).constraints
                 if c.name == f"r{bodies.index('a until b')}"]
    assert (result.violated_at, result.detail) == (1, "Violated once call #1 (`c`) happened: no continuation can "
                                                      "satisfy it.")


@pytest.mark.parametrize("slots", [True, False], ids=["slots", "model_construct"])
def test_reports_are_the_validated_models(slots, monkeypatch):
    """The scorer builds its reports without validating them again (`models.trusted`): each is
    equal to, and dumps byte for byte as, the same report validated, with the same fields set;
    on the telecom policy and its corpus (failures, vacuous passes, `when ... shall` rules,
    input problems), and on rules that cannot be evaluated (before and after their
    applicability is known), and on calls that do not match their signatures."""
    from policyc.scoring import models
    from policyc.scoring.models import TraceReport

    monkeypatch.setattr(models, "_SLOTS", slots)  # False: as with a pydantic that keeps its slots otherwise
    policy, diagnostics = check_file("examples/telecom.altl")
    assert policy is not None, diagnostics
    reports = score_corpus(compile_policy(policy), load_traces("examples/traces/telecom.json").traces).reports
    assert any(not c.passed for r in reports for c in r.constraints)
    policy, diagnostics = check_text(
        'tool a(x: int)\ntool b(x: int)\nextern predicate ok(n: int) from "m:ok"\n'
        "rule r weight 2: forall v in a.x: ok(v)\nrule s: when a(ok(x)) shall eventually b\n"
        "rule t: when a shall eventually b(ok(x))\nrule u: when b shall eventually a\n", "e.altl")
    assert policy is not None, diagnostics
    errors = [score_trace(compile_policy(policy), Trace.of(("a", {"x": 1}), ("b", {"x": 2}))),
              score_trace(compile_policy(policy), Trace.of(("a", {"x": 1}))),
              score_trace(compile_policy(policy), Trace.of(("a", {"x": "one"}), ("c", {})))]
    assert [p.code for p in errors[2].input_problems] == ["wrong-type", "unknown-tool"]
    assert [c.error is not None for c in errors[0].constraints] == [True, True, True, False]
    assert [c.applicable for c in errors[0].constraints] == [None, None, True, True]
    for report in reports + errors:
        validated = TraceReport.model_validate(report.model_dump(exclude_unset=True))
        assert validated == report
        assert validated.model_dump_json() == report.model_dump_json()
        assert validated.model_fields_set == report.model_fields_set
        assert [c.model_fields_set for c in validated.constraints] == [c.model_fields_set for c in report.constraints]
        assert [p.model_fields_set for p in validated.input_problems] == [p.model_fields_set for p in report.input_problems]
