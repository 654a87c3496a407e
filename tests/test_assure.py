"""The assurance ledger ("Organising trajectory evidence", §3.1, tables 2-4).

- the numbers: the clustered suite bound of §6 (c10: 2.6 % over 114 tasks, 0.65 % were its
  456 runs independent), table 3's overlap references and §4.2's run-level union rebuilt from
  their counts, Prop. 3.4;
- the telecom corpus: table 2's columns (App, Viol) from the when-shall policy, and table 4's
  rows: a rule violated on the suite, the same prohibition exact on the gated deployment once
  its assumptions are resolved, the outcome, the residual;
- the ledger's rules as properties: adding a capability never enlarges G_expr; a descriptive
  claim or a lower bound never establishes; no evidence transfers across deployments; an
  established obligation is addressed; a counterexample blocks exact and suite contracts;
  bounds are monotone;
- `policyc assure`: exit codes, formats, and evidence files read with file:line:field errors.
"""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

import telecom_corpus
from policyc.assure import (
    Assumption,
    Capability,
    Contract,
    Evidence,
    EvidenceFile,
    Ledger,
    Obligation,
    Options,
    assure,
    classify,
    gaps,
    is_addressed,
    missing_term_bound,
    overlap,
    read_evidence_text,
    render_markdown,
    run_record,
    union_bound,
    upper_bound,
)
from policyc.automata import compile_policy
from policyc.check import check_file, check_text
from policyc.cli import cli
from policyc.scoring import score_trace
from policyc.trace import load_traces

POLICY = "examples/telecom.altl"
CORPUS = "examples/traces/telecom.json"

# ------------------------------------------------------------------ the paper's numbers


def test_the_suite_bound_counts_tasks_not_runs():
    # §6: c10 applies in 456 runs of 114 tasks with no violation
    assert round(upper_bound(0, 114), 3) == 0.026
    assert round(upper_bound(0, 456), 4) == 0.0065  # runs taken as independent: optimistic
    assert upper_bound(0, 114) == pytest.approx(1 - 0.05 ** (1 / 114))
    assert upper_bound(0, 114, confidence=0.99) == pytest.approx(1 - 0.01 ** (1 / 114))


# (pair, both, Exp., only 1st, only 2nd, Dis., Indep.) of table 3, over 456 runs
TABLE_3 = [
    ("C/G", 102, 87, 236, 15, .55, .62),
    ("C/M", 131, 136, 207, 52, .57, .55),
    ("C/O", 178, 171, 160, 53, .47, .50),
    ("G/M", 30, 47, 87, 153, .53, .45),
    ("G/O", 46, 59, 71, 185, .56, .50),
    ("M/O", 161, 93, 22, 70, .20, .50),
]


@pytest.mark.parametrize("pair,both,expected,only1,only2,dis,indep", TABLE_3)
def test_table_3_from_its_counts(pair, both, expected, only1, only2, dis, indep):
    first = set(range(both + only1))
    second = set(range(only1, only1 + both + only2))
    row = overlap({str(i) for i in first}, {str(i) for i in second}, 456)
    assert (row["both"], row["only_first"], row["only_second"]) == (both, only1, only2)
    assert round(row["expected"]) == expected
    assert (round(row["disagreement"], 2), round(row["independent_disagreement"], 2)) == (dis, indep)


def _run(i: int) -> str:
    return f"r{i}"


def test_the_run_level_union_of_section_4_2():
    # oracle 231; the rule checker adds 160 (391), support 10 (401), the monitor 6 (407); 49 unflagged
    oracle = {_run(i) for i in range(231)}
    rules = {_run(i) for i in range(53, 391)}        # 338 flagged, 178 shared with the oracle
    support = {_run(i) for i in range(290, 401)}     # 111 flagged, 10 new
    monitor = {_run(i) for i in range(380, 407)}     # 27 flagged, 6 new
    evidence = [Evidence(method=m, deployment="Σ", target=m, claim="descriptive", flagged=sorted(f))
                for m, f in (("oracle", oracle), ("rules", rules), ("support", support), ("monitor", monitor))]
    compiled = compile_policy(check_text('tool read_file(path: str) -> str\n'
                                         'rule r: when read_file shall read_file(path != "")')[0])
    runs = [run_record(_trace(i), score_trace(compiled, _trace(i)), i) for i in range(456)]
    ledger = assure(compiled, runs, Options(deployment="Σ", imported=(EvidenceFile(evidence=evidence),)))
    union = [(u.method, u.flagged, u.union) for u in ledger.union]
    assert union == [("rule checker", 0, 0), ("oracle", 231, 231), ("rules", 338, 391), ("support", 111, 401),
                     ("monitor", 27, 407)]
    assert ledger.residual.unflagged == 49
    assert len(ledger.overlaps) == 10  # the built-in rule checker (no violation here) and the four methods


def _trace(i: int):
    from policyc.trace import Trace

    return Trace.of(("read_file", {"path": "a.py"}, "x"), id=_run(i), metrics={"task_id": str(i // 4)})


def test_prop_3_4_and_3_3():
    assert union_bound([(0.01, 0.01)] * 5) == pytest.approx((0.05, 0.05))
    assert union_bound([(0.6, 0.1), (0.7, 0.1)]) == pytest.approx((1.0, 0.2))  # capped at 1
    assert missing_term_bound((0.2, 0.05), (0.1, 0.05)) == pytest.approx((0.3, 0.1))


# ------------------------------------------------------------------ the telecom corpus


@pytest.fixture(scope="module")
def telecom():
    compiled = compile_policy(check_file(POLICY)[0])
    traces = load_traces(CORPUS).traces
    return compiled, [run_record(t, score_trace(compiled, t), i) for i, t in enumerate(traces)]


#: table 2's columns on the corpus: (App., Viol.), counted by hand from tests/telecom_corpus.py:
#: c7 applies to the three hand-off runs and the restoration after an ended contract; c12 to the
#: runs of the no-service tasks that fix the device (7 outage runs, 6 suspension runs with a reboot)
TABLE_2 = {
    "c1": (15, 1), "c2": (8, 1), "c3": (8, 1), "c4": (7, 1), "c5": (7, 1), "c6": (6, 1), "c7": (4, 1),
    "c8": (3, 1), "c9": (3, 1), "c10": (25, 1), "c11": (25, 1), "c12": (13, 1), "c13": (7, 1), "c14": (7, 1),
    "c15": (22, 1), "c16": (7, 1), "c17": (2, 1), "c18": (7, 1), "c19": (7, 1), "c20": (7, 1),
}


def test_table_2_columns_from_the_policy(telecom):
    compiled, runs = telecom
    ledger = assure(compiled, runs, Options(deployment="Σ", suite="telecom"))
    assert {r.rule.split("_")[0]: (r.applicable, r.violated) for r in ledger.rules} == TABLE_2
    c7 = next(r for r in ledger.rules if r.rule.startswith("c7_"))
    assert c7.requirement == "No restoration after ended-contract record"
    assert c7.applicability.startswith("exists l in ") and "F get_details_by_id(" in c7.applicability
    assert (c7.tasks, c7.violating_tasks) == (2, 1)  # the hand-off task and the suspension task
    assert c7.bound == pytest.approx(upper_bound(1, 2)) and c7.bound_over_runs == pytest.approx(upper_bound(1, 4))


def _entry(ledger, target, deployment):
    (found,) = [e for e in ledger.entries if e.obligation.target.split("_")[0] == target
                and e.obligation.deployment == deployment]
    return found


def test_table_4_status_depends_on_the_system_and_the_contract(telecom):
    compiled, runs = telecom
    ledger = assure(compiled, runs, Options(deployment="Σ", suite="telecom", gated=("Σg",)))
    c7 = _entry(ledger, "c7", "Σ")
    assert (c7.status, c7.reason, c7.detail) == ("addressed", "counterexample", "1 violating run(s) observed")
    gated = _entry(ledger, "c7", "Σg")  # severity block: an identical retry runs
    assert (gated.obligation.contract.kind, gated.status, gated.reason) == ("exact", "addressed",
                                                                           "unresolved_assumption")
    c4 = _entry(ledger, "c4", "Σg")  # severity stop
    assert (c4.status, c4.conditional_on) == ("established", ["history", "routing"])
    c17 = _entry(ledger, "c17", "Σg")  # offline-only: suite contract, and no gated runs
    assert (c17.obligation.contract.kind, c17.status, c17.reason) == ("suite", "addressed", "absent_evidence")
    assert "does not transfer" in c17.detail
    outcome = _entry(ledger, "outcome", "Σ")
    assert (outcome.status, outcome.conditional_on) == ("established", ["reward-verdict"])
    resolved = assure(compiled, runs, Options(deployment="Σ", suite="telecom", gated=("Σg",),
                                              resolved=("no-override",)))
    assert _entry(resolved, "c7", "Σg").status == "established"
    assert _entry(resolved, "c7", "Σ").status == "addressed"  # nothing transfers back
    # every rule is violated once on the suite; the five runs that follow the policy are the residual
    assert ledger.residual.unflagged_runs == sorted(r.id for r in runs if r.id.endswith("-ok"))
    assert [(u.method, u.flagged) for u in ledger.union] == [("outcome oracle", 0), ("rule checker", 20)]


def test_a_suite_that_follows_the_policy_establishes_every_suite_contract(telecom):
    compiled, runs = telecom
    ok = [r for r in runs if r.id.endswith("-ok")]
    ledger = assure(compiled, ok, Options(deployment="Σ", suite="ok"))
    assert ledger.established and ledger.establishability_gap == []
    # what stays unaddressed is the inventory's standing part: the policy's risk (no ε named, no
    # risk method) and the requirements outside the policy
    assert ledger.expressiveness_gap == ["policy on Σ, risk(ε not named, δ=0.05)",
                                         "requirements outside the policy on all, exact"]
    stricter = assure(compiled, ok, Options(deployment="Σ", suite="ok", k=2))
    c17 = _entry(stricter, "c17", "Σ")  # only the MMS run exercises it
    assert (c17.status, c17.reason, c17.detail) == ("addressed", "insufficient_applicability",
                                                    "applies to 1 run(s), the contract needs 2")


def test_risk_contracts_need_a_distribution_and_combine_by_prop_3_4(telecom):
    compiled, runs = telecom
    ok = [r for r in runs if r.id.endswith("-ok")]
    unscoped = assure(compiled, ok, Options(deployment="Σ", risk=(0.5, 0.05)))
    policy = _entry(unscoped, "policy", "Σ")
    assert (policy.status, policy.reason) == ("unaddressed", "no_method")  # a suite count is not a risk claim
    scoped = assure(compiled, ok, Options(deployment="Σ", risk=(0.5, 0.05), distribution="D"))
    policy = _entry(scoped, "policy", "Σ")
    assert (policy.status, policy.reason) == ("addressed", "weak_bound")  # 5 tasks bound nothing to 0.5
    (combined,) = scoped.combined
    share = 0.05 / 20
    expected = min(1.0, sum(upper_bound(0, r.tasks, 1 - share) for r in scoped.rules))
    assert combined.epsilon == pytest.approx(expected) and combined.missing == []


# ------------------------------------------------------------------ the ledger's rules, as properties

DEPLOYMENTS = st.sampled_from(["Σ", "Σg"])
TARGETS = st.sampled_from(["c1", "c2", "c3"])
CLAIMS = st.sampled_from(["exact", "suite", "upper_bound", "lower_bound", "descriptive"])


@st.composite
def evidence_records(draw):
    claim = draw(CLAIMS)
    applicable = draw(st.integers(0, 20))
    fields = {"method": draw(st.sampled_from(["m1", "m2"])), "deployment": draw(DEPLOYMENTS),
              "target": draw(TARGETS), "claim": claim, "suite": draw(st.sampled_from([None, "s"])),
              "distribution": draw(st.sampled_from([None, "D"])),
              "assumptions": [Assumption(name="a", status=draw(st.sampled_from(["holds", "assumed", "unresolved"])))]}
    if claim in ("suite", "exact", "descriptive"):
        fields.update(applicable=applicable, violations=draw(st.integers(0, applicable)), tasks=draw(st.integers(0, 8)),
                      runs=applicable)
        fields["violating_tasks"] = min(fields["tasks"], fields["violations"])
    if claim in ("upper_bound", "lower_bound"):
        fields.update(bound=draw(st.floats(0, 1)), confidence=draw(st.sampled_from([0.9, 0.95, 0.99])))
    return Evidence(**fields)


CONTRACTS = st.one_of(
    st.just(Contract(kind="exact")),
    st.builds(lambda k, s: Contract(kind="suite", k=k, suite=s), st.integers(1, 5), st.sampled_from([None, "s"])),
    st.builds(lambda e, d, dist: Contract(kind="risk", epsilon=e, delta=d, distribution=dist),
              st.floats(0.01, 1), st.sampled_from([0.01, 0.05, 0.1]), st.sampled_from([None, "D"])),
)
OBLIGATIONS = st.builds(lambda d, t, c: Obligation(deployment=d, target=t, contract=c), DEPLOYMENTS, TARGETS, CONTRACTS)
CAPABILITIES = st.builds(lambda m, d, t, c, dist: Capability(method=m, deployment=d, targets=t, claim=c,
                                                             distribution=dist),
                         st.sampled_from(["m1", "m3"]), st.none() | DEPLOYMENTS,
                         st.lists(TARGETS | st.just("*"), min_size=1, max_size=2), CLAIMS, st.sampled_from([None, "D"]))


@settings(max_examples=200, deadline=None)
@given(st.lists(OBLIGATIONS, min_size=1, max_size=5), st.lists(evidence_records(), max_size=6),
       st.lists(CAPABILITIES, max_size=3), CAPABILITIES)
def test_adding_a_capability_never_enlarges_the_expressiveness_gap(obligations, evidence, capabilities, extra):
    before = gaps([classify(o, evidence, capabilities) for o in obligations])[0]
    after = gaps([classify(o, evidence, [*capabilities, extra]) for o in obligations])[0]
    assert set(after) <= set(before)


@settings(max_examples=200, deadline=None)
@given(OBLIGATIONS, st.lists(evidence_records(), max_size=6), st.lists(CAPABILITIES, max_size=3))
def test_established_only_by_sound_evidence_of_its_own_deployment(obligation, evidence, capabilities):
    entry = classify(obligation, evidence, capabilities)
    if entry.status == "established":
        assert is_addressed(obligation, evidence, capabilities)
    # only descriptive claims and lower bounds, or only evidence for other deployments: never established
    weak = [e for e in evidence if e.claim in ("descriptive", "lower_bound")]
    assert classify(obligation, weak, capabilities).status != "established"
    foreign = [e for e in evidence if e.deployment != obligation.deployment]
    assert classify(obligation, foreign, capabilities).status != "established"
    # evidence resting on an unresolved assumption establishes nothing
    unresolved = [e for e in evidence if e.unresolved]
    assert classify(obligation, unresolved, capabilities).status != "established"
    # an observed violation here blocks exact and suite contracts
    if obligation.contract.kind != "risk" and any(
            e.violations and e.target == obligation.target and e.deployment == obligation.deployment
            and (e.claim != "suite" or obligation.contract.kind == "exact" or obligation.contract.suite in (None, e.suite))
            for e in evidence):
        assert (entry.status, entry.reason) == ("addressed", "counterexample")


@settings(max_examples=200, deadline=None)
@given(OBLIGATIONS, st.lists(evidence_records(), max_size=6), st.lists(CAPABILITIES, max_size=3),
       st.sampled_from(["descriptive", "lower_bound"]))
def test_a_descriptive_claim_never_establishes(obligation, evidence, capabilities, claim):
    extra = Evidence(method="monitor", deployment=obligation.deployment, target=obligation.target, claim=claim,
                     bound=0.0, confidence=0.99, value="recall 1.0 at a false-alarm rate of 0")
    before = classify(obligation, evidence, capabilities)
    after = classify(obligation, [*evidence, extra], capabilities)
    assert (after.status == "established") == (before.status == "established")


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 60), st.integers(1, 300), st.sampled_from([0.8, 0.9, 0.95, 0.99]))
def test_bounds_are_monotone(failures, trials, confidence):
    failures = min(failures, trials)
    b = upper_bound(failures, trials, confidence)
    assert failures / trials <= b <= 1.0
    assert upper_bound(failures, trials + 1, confidence) <= b + 1e-12  # more trials, tighter
    if failures < trials:
        assert upper_bound(failures + 1, trials, confidence) >= b - 1e-12  # more failures, looser
    if confidence < 0.99:
        assert upper_bound(failures, trials, 0.99) >= b - 1e-12  # more confidence, looser


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.floats(0, 1), st.floats(0, 0.2)), max_size=6))
def test_the_union_bound_is_at_least_each_part_and_at_most_one(parts):
    eps, delta = union_bound(parts)
    assert 0 <= eps <= 1 and 0 <= delta <= 1
    assert all(eps >= e - 1e-12 and delta >= d - 1e-12 for e, d in parts)


# ------------------------------------------------------------------ evidence files

MONITOR = {"method": "prefix monitor", "deployment": "Σ", "target": "c7_no_restore_after_ended_contract",
           "claim": "descriptive", "value": "recall 22/30 at a 10 % false-alarm rate",
           "flagged": ["c7-broken", "service-ok"], "lineage": ["monitor.py"]}


def test_evidence_files_name_the_line_and_field_of_a_bad_record_and_keep_the_others():
    text = json.dumps({"evidence": [MONITOR, {**MONITOR, "claim": "upper_bound", "bound": 2.0, "confidence": 0.9},
                                    {**MONITOR, "method": "support"}],
                       "capabilities": [{"method": "estimator", "targets": ["policy"], "claim": "upper_bound"}]},
                      indent=1)
    read = read_evidence_text(text, "ev.json")
    assert [e.method for e in read.file.evidence] == ["prefix monitor", "support"]
    assert len(read.file.capabilities) == 1
    (problem,) = read.problems
    assert (problem.file, problem.field) == ("ev.json", "evidence[1].bound")
    assert text.splitlines()[problem.line - 1].strip().startswith('"bound": 2.0')
    assert str(problem).startswith(f"ev.json:{problem.line}: `evidence[1].bound`: input should be less than")


@pytest.mark.parametrize("text,message", [
    ("", "it is empty"),
    ("{", "invalid JSON"),
    ('{"evidenz": []}', "unknown key"),
    ('{"evidence": {}}', "expected an array"),
    ("42", "expected a JSON object or an array"),
    ('[{"method": "m", "deployment": "d", "target": "t", "claim": "suite"}]', "a suite claim needs"),
])
def test_malformed_evidence_files(text, message):
    read = read_evidence_text(text, "e.json")
    assert read.file.evidence == [] and message in read.problems[0].message


# ------------------------------------------------------------------ the command


def _assure(*args):
    return CliRunner().invoke(cli, ["assure", *args], env={"NO_COLOR": "1", "COLUMNS": "160"})


def test_cli_exit_1_when_some_obligation_is_not_established_and_json_is_the_ledger():
    result = _assure(POLICY, CORPUS, "--deployment", "Σ", "--gated", "Σg", "--format", "json")
    assert result.exit_code == 1, result.output
    ledger = Ledger.model_validate_json(result.stdout)
    assert {r.rule.split("_")[0]: (r.applicable, r.violated) for r in ledger.rules} == TABLE_2
    assert ledger.residual.unflagged == 5


def test_cli_exit_0_when_every_obligation_is_established(tmp_path):
    corpus = telecom_corpus.corpus()
    corpus["simulations"] = [s for s in corpus["simulations"] if s["id"].endswith("-ok")]
    path = tmp_path / "ok.json"
    path.write_text(json.dumps(corpus), encoding="utf-8")
    result = _assure(POLICY, str(path), "--format", "markdown")
    assert result.exit_code == 0, result.output
    assert "| c7_no_restore_after_ended_contract | No restoration after ended-contract record | its `when` | 1 | 0 |" \
        in result.stdout
    assert "21 established, 0 addressed but not established, 2 unaddressed, of 23 obligations (2 standing)" \
        in result.stdout


def test_cli_exit_2_on_a_malformed_evidence_record_and_the_rest_is_used(tmp_path):
    path = tmp_path / "ev.json"
    path.write_text(json.dumps([MONITOR, {**MONITOR, "method": "support", "claim": "certain"}], indent=1),
                    encoding="utf-8")
    result = _assure(POLICY, CORPUS, "--deployment", "Σ", "--evidence", str(path), "--format", "json")
    assert result.exit_code == 2
    assert f"{path}:" in result.stderr and "`[1].claim`" in result.stderr
    ledger = Ledger.model_validate_json(result.stdout)
    assert [u.method for u in ledger.union] == ["outcome oracle", "rule checker", "prefix monitor"]
    assert any("[1].claim" in p for p in ledger.problems)


def test_cli_exit_2_on_bad_inputs(tmp_path):
    empty = tmp_path / "empty.json"
    empty.write_text("", encoding="utf-8")
    assert _assure(POLICY, str(empty)).exit_code == 2
    assert _assure(POLICY, CORPUS, "--evidence", str(tmp_path / "missing.json")).exit_code == 2
    assert _assure(POLICY, CORPUS, "--deployment", "x", "--gated", "x").exit_code == 2
    unknown = tmp_path / "unknown.json"
    unknown.write_text(json.dumps([{**MONITOR, "flagged": ["no-such-run"]}]), encoding="utf-8")
    result = _assure(POLICY, CORPUS, "--deployment", "Σ", "--evidence", str(unknown))
    assert result.exit_code == 2 and "not in the suite" in result.stderr


def test_markdown_escapes_what_it_shows(telecom):
    compiled, runs = telecom
    ledger = assure(compiled, runs, Options(deployment="a|b", suite="s"))
    assert "a\\|b" in render_markdown(ledger)
