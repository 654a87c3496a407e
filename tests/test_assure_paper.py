"""Tables 2-4 and §4.2 of "Organising trajectory evidence", rebuilt from the paper's counts.

A suite of 456 runs (114 tasks of four trials) is made with exactly the paper's numbers:

- table 2: each rule's App. and Viol.; c11, the formatting rule, violated in 452 runs;
- the run-level verdicts of §4.2 and table 3: the oracle fails 231 runs; the rule checker,
  made of the nineteen rules other than c11 (the paper's definition), flags 338 with 540
  violated rule-run pairs (992 with c11); the support stand-in flags 117, the outcome-trained
  monitor 183. `VENN` is one assignment of runs to the 16 regions of the four verdicts that
  meets every count the paper gives (found once with Z3; the paper publishes no per-run data):
  marginals, the six pairwise overlaps, the runs each source alone flags (95, 5, 6, 7), the
  union as methods are added (231, 391, 401, 407), 312 runs without the rule checker, 49 by no one.

The ledger is then asked what the paper's table 4 says, row by row, and the union and
overlaps must be §4.2's and table 3's. Also here: the inventory's default (a policy with no
evidence: every obligation unaddressed), the δ split of Prop. 3.4, applicability without
`when ... shall`, and the warning for runs without a task.
"""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from policyc.assure import (
    Capability,
    Evidence,
    EvidenceFile,
    Obligation,
    Options,
    RunRecord,
    assure,
    run_record,
    upper_bound,
)
from policyc.assure import Contract, MethodRules
from policyc.automata import compile_policy
from policyc.check import check_text
from policyc.cli import cli
from policyc.scoring import score_trace
from policyc.trace import Trace

#: table 2: rule -> (App., Viol.)
TABLE_2 = {
    "c1": (302, 0), "c2": (84, 0), "c3": (83, 2), "c4": (181, 0), "c5": (181, 4), "c6": (83, 0), "c7": (32, 30),
    "c8": (269, 0), "c9": (269, 2), "c10": (456, 0), "c11": (456, 452), "c12": (113, 92), "c13": (47, 18),
    "c14": (218, 118), "c15": (435, 23), "c16": (181, 0), "c17": (140, 37), "c18": (76, 46), "c19": (93, 36),
    "c20": (224, 132),
}
#: (rule checker C, support G, monitor M, oracle O) -> runs in that region
VENN = {(0, 0, 0, 0): 49, (0, 0, 0, 1): 7, (0, 0, 1, 0): 6, (0, 0, 1, 1): 41, (0, 1, 0, 0): 5, (0, 1, 0, 1): 5,
        (0, 1, 1, 0): 5, (0, 1, 1, 1): 0, (1, 0, 0, 0): 95, (1, 0, 0, 1): 35, (1, 0, 1, 0): 4, (1, 0, 1, 1): 102,
        (1, 1, 0, 0): 54, (1, 1, 0, 1): 23, (1, 1, 1, 0): 7, (1, 1, 1, 1): 18}
#: table 3: (pair, both, Exp., only 1st, only 2nd, Dis., Indep.)
TABLE_3 = {("C", "G"): (102, 87, 236, 15, .55, .62), ("C", "M"): (131, 136, 207, 52, .57, .55),
           ("C", "O"): (178, 171, 160, 53, .47, .50), ("G", "M"): (30, 47, 87, 153, .53, .45),
           ("G", "O"): (46, 59, 71, 185, .56, .50), ("M", "O"): (161, 93, 22, 70, .20, .50)}
SUPPORT, MONITOR, ORACLE_NAME = "support stand-in", "prefix monitor", "outcome oracle"
LETTERS = {"rule checker": "C", SUPPORT: "G", MONITOR: "M", ORACLE_NAME: "O"}

#: twenty rules over the paper's running example; c7 is the gate's prohibition (severity deny)
POLICY = "tool get_details_by_id(id: str) -> { ended: bool }\ntool resume_line(line_id: str)\n" + "".join(
    f'rule c{i} "rule c{i}": when get_details_by_id shall once get_details_by_id\n' for i in range(1, 21) if i != 7
) + ('rule c7 "No restoration after ended-contract record" severity deny:\n'
     "    always (resume_line(line_id: l) -> not once get_details_by_id(id: l, result.ended == true))\n")


def paper_suite() -> list[RunRecord]:
    regions = [key for key, count in VENN.items() for _ in range(count)]
    assert len(regions) == 456
    checker = [i for i, r in enumerate(regions) if r[0]]
    violated: dict[int, set[str]] = {i: set() for i in range(456)}
    applicable: dict[int, set[str]] = {i: set() for i in range(456)}
    cursor = 0  # the nineteen rules' violations, dealt round the rule checker's runs: each gets one at least
    for rule, (app, viol) in sorted(TABLE_2.items(), key=lambda kv: -kv[1][1]):
        if rule == "c11":
            bad = list(range(viol))
        else:
            bad = [checker[(cursor + j) % len(checker)] for j in range(viol)]
            cursor += viol
        rest = [i for i in range(456) if i not in set(bad)]
        for i in bad + rest[:app - viol]:
            applicable[i].add(rule)
        for i in bad:
            violated[i].add(rule)
    return [RunRecord(id=f"run{i:03d}", task=f"task{i // 4:03d}", reward=0.0 if regions[i][3] else 1.0,
                      applicable=frozenset(applicable[i]), violated=frozenset(violated[i])) for i in range(456)]


@pytest.fixture(scope="module")
def compiled():
    policy, diags = check_text(POLICY, "telecom20.altl")
    assert not [d for d in diags if d.severity == "error"]
    return compile_policy(policy)


@pytest.fixture(scope="module")
def runs():
    return paper_suite()


def flagged(runs, position):
    regions = [key for key, count in VENN.items() for _ in range(count)]
    return sorted(r.id for r, key in zip(runs, regions) if key[position])


@pytest.fixture(scope="module")
def ledger(compiled, runs):
    evidence = EvidenceFile(
        evidence=[
            Evidence(method=SUPPORT, deployment="Σ", target="support ideal", claim="suite", applicable=456,
                     violations=117, runs=456, flagged=flagged(runs, 1)),
            Evidence(method=MONITOR, deployment="Σ", target="warning ideal", claim="descriptive",
                     value="recall 161 of 231 at a 10% run-level false-alarm rate (a retrospective operating point)",
                     flagged=flagged(runs, 2)),
        ],
        capabilities=[Capability(method=SUPPORT, targets=["support ideal"], claim="suite")],
        obligations=[
            Obligation(deployment="Σ", target="support ideal", contract=Contract(kind="suite")),
            Obligation(deployment="Σg", target="support ideal", contract=Contract(kind="suite")),
            Obligation(deployment="Σ", target="warning ideal", contract=Contract(kind="exact")),
            Obligation(deployment="all", target="true-state c7", contract=Contract(kind="exact")),
        ],
        methods=[MethodRules(method="rule checker", without=["c11"])],
    )
    return assure(compiled, runs, Options(deployment="Σ", suite="released", gated=("Σg",), risk=(0.05, 0.05),
                                          imported=(evidence,)))


def test_table_2_and_the_bound_of_section_6(ledger):
    assert {r.rule: (r.applicable, r.violated) for r in ledger.rules} == TABLE_2
    c10 = next(r for r in ledger.rules if r.rule == "c10")
    # 2.6 % over the 114 tasks; 1 − 0.05^(1/456) = 0.65 % were the runs independent (the paper rounds to 0.66 %)
    assert (c10.tasks, round(c10.bound, 3), round(c10.bound_over_runs, 4)) == (114, 0.026, 0.0065)
    # the rule checker's verdicts: 540 violated rule-run pairs in 338 runs (992 with c11)
    assert sum(r.violated for r in ledger.rules if r.rule != "c11") == 540
    assert sum(r.violated for r in ledger.rules) == 992


def test_section_4_2_methods_added_one_at_a_time(ledger):
    steps = [(u.method, u.flagged, u.new, u.union, u.only) for u in ledger.union]
    assert steps == [(ORACLE_NAME, 231, 231, 231, 7), ("rule checker", 338, 160, 391, 95),
                     (SUPPORT, 117, 10, 401, 5), (MONITOR, 183, 6, 407, 6)]
    assert ledger.residual.unflagged == 49
    assert ledger.methods == {"rule checker": sorted(f"c{i}" for i in range(1, 21) if i != 11)}


def test_the_union_takes_c11_in_unless_the_method_leaves_it_out(compiled, runs):
    every_rule = assure(compiled, runs, Options(deployment="Σ"))
    (checker,) = [u for u in every_rule.union if u.method == "rule checker"]
    assert checker.flagged == 456  # c11's 452 runs and the rest: the method the paper does not use


def test_table_3_pair_by_pair(ledger):
    rows = {(LETTERS[o.first], LETTERS[o.second]): o for o in ledger.overlaps}
    assert len(rows) == 6
    for (a, b), (both, expected, only1, only2, dis, indep) in TABLE_3.items():
        row = rows.get((a, b))
        if row is None:  # the ledger lists the pair the other way round
            row = rows[(b, a)]
            only1, only2 = only2, only1
        assert (row.both, round(row.expected), row.only_first, row.only_second) == (both, expected, only1, only2)
        assert (round(row.disagreement, 2), round(row.independent_disagreement, 2)) == (dis, indep)


def test_table_4_row_by_row(ledger):
    by = {}
    for e in ledger.entries:
        by.setdefault((e.obligation.target, e.obligation.deployment, e.obligation.contract.kind), []).append(e)

    def row(target, deployment, kind):
        (entry,) = by[(target, deployment, kind)]
        return entry.status, entry.reason

    established = {f"c{i}" for i in (1, 2, 4, 6, 8, 10, 16)}
    for rule in TABLE_2:
        assert row(rule, "Σ", "suite") == (("established", None) if rule in established
                                           else ("addressed", "counterexample")), rule
    assert row("support ideal", "Σ", "suite") == ("addressed", "counterexample")     # 117 runs
    assert row("outcome", "Σ", "suite") == ("addressed", "counterexample")           # 231 failures
    assert row("outcome", "Σ", "risk") == ("addressed", "scope_mismatch")            # no deployment distribution
    assert row("warning ideal", "Σ", "exact") == ("addressed", "scope_mismatch")     # a retrospective point
    (c7,) = by[("c7", "Σg", "exact")]
    assert (c7.status, c7.conditional_on) == ("established", ["history", "routing"])  # the gate's invariant
    for rule in TABLE_2:
        if rule != "c7":
            assert row(rule, "Σg", "suite") == ("addressed", "absent_evidence"), rule  # no gated runs
    assert row("support ideal", "Σg", "suite") == ("addressed", "absent_evidence")
    assert row("policy", "Σ", "risk") == ("unaddressed", "no_method")                # no risk-contract method
    assert row("policy", "Σg", "risk") == ("unaddressed", "no_method")
    assert row("true-state c7", "all", "exact") == ("unaddressed", "no_method")      # no source reads e*
    assert row("requirements outside the policy", "all", "exact") == ("unaddressed", "no_method")
    assert sum(e.status == "established" for e in ledger.entries) == 8  # seven on the suite, one gated


# ------------------------------------------------------------------ the inventory, δ, applicability, tasks


def test_with_no_evidence_the_inventory_is_unaddressed(compiled):
    ledger = assure(compiled, [], Options(deployment="Σ"))
    assert ledger.entries and all(e.status == "unaddressed" for e in ledger.entries)
    assert {(e.obligation.target, e.obligation.deployment) for e in ledger.entries} == {
        *((f"c{i}", "Σ") for i in range(1, 21)), ("outcome", "Σ"), ("policy", "Σ"),
        ("requirements outside the policy", "all")}
    assert not ledger.established
    # a gated deployment brings the gate's exact claim, from the compiled policy alone
    gated = assure(compiled, [], Options(deployment="Σ", gated=("Σg",)))
    assert [(e.obligation.target, e.obligation.deployment) for e in gated.entries if e.status != "unaddressed"] \
        == [("c7", "Σg")]


def test_the_command_lists_the_inventory_without_traces(tmp_path):
    path = tmp_path / "p.altl"
    path.write_text(POLICY, encoding="utf-8")
    result = CliRunner().invoke(cli, ["assure", str(path), "--deployment", "Σ", "--format", "json"])
    assert result.exit_code == 1, result.output
    ledger = json.loads(result.stdout)
    assert {e["status"] for e in ledger["entries"]} == {"unaddressed"} and ledger["runs"] == 0


def test_prop_3_4_splits_delta_and_says_so(compiled, runs):
    ledger = assure(compiled, runs, Options(deployment="Σ", distribution="tasks"))
    c10 = next(r for r in ledger.rules if r.rule == "c10")
    assert c10.bound_split == pytest.approx(upper_bound(0, 114, 1 - 0.05 / 20)) and c10.bound_split > c10.bound
    (combined,) = ledger.combined
    assert combined.share == pytest.approx(0.0025) and combined.delta == pytest.approx(0.05)
    from policyc.assure import render_markdown

    text = render_markdown(ledger)
    assert "at 0.9975 with δ = 0.05 split over the 20 rules" in text and "(δ/m = 0.0025)" in text


SHAPES = """\
tool lookup_order(order_id: str) -> { total: float }
tool issue_refund(order_id: str)
rule refund_own_order: always (issue_refund(order_id: o) -> once lookup_order(order_id: o))
rule looked_up: called(lookup_order)
rule when_refund: when issue_refund shall once lookup_order
"""


def test_applicability_without_when_shall_leaves_vacuous_runs_out():
    compiled = compile_policy(check_text(SHAPES, "shapes.altl")[0])
    lookup, refund = ("lookup_order", {"order_id": "A"}, {"total": 1.0}), ("issue_refund", {"order_id": "A"})
    traces = [Trace.of(lookup, metrics={"task_id": "t1"}), Trace.of(lookup, refund, metrics={"task_id": "t2"}),
              Trace.of(refund, metrics={"task_id": "t3"})]
    runs = [run_record(t, score_trace(compiled, t), i) for i, t in enumerate(traces)]
    ledger = assure(compiled, runs, Options(deployment="Σ"))
    rows = {r.rule: r for r in ledger.rules}
    assert (rows["refund_own_order"].applicable, rows["refund_own_order"].violated) == (2, 1)  # the refund runs
    assert rows["refund_own_order"].applicability == "runs where a trigger of it occurs (vacuous runs left out)"
    assert rows["looked_up"].applicable == 3 and rows["looked_up"].applicability.startswith("every run")
    assert rows["when_refund"].applicable == 2
    assert ledger.warnings == []


def test_runs_without_a_task_are_warned_of():
    compiled = compile_policy(check_text(SHAPES, "shapes.altl")[0])
    traces = [Trace.of(("lookup_order", {"order_id": "A"}, {"total": 1.0}), id=f"r{i}") for i in range(3)]
    runs = [run_record(t, score_trace(compiled, t), i) for i, t in enumerate(traces)]
    ledger = assure(compiled, runs, Options(deployment="Σ"))
    (warning,) = ledger.warnings
    assert warning.startswith("3 of 3 run(s) carry no `metrics.task_id`")


def test_a_method_naming_no_rule_is_a_problem(compiled, runs):
    bad = EvidenceFile(methods=[MethodRules(method="gate", rules=["c7", "c99*"])])
    ledger = assure(compiled, runs, Options(deployment="Σ", imported=(bad,)))
    assert ledger.problems == ["method `gate`: `c99*` names no rule of the policy"]
    (gate,) = [u for u in ledger.union if u.method == "gate"]
    assert gate.flagged == 30  # c7's violations
