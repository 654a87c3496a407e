"""A rule's class and what the gate does with it agree: `policyc compile` names the
offline-only rules (no automaton) that the gate still judges at every proposal, and those
are exactly the ones it refuses calls for in the middle of a run."""

from __future__ import annotations

import json

from click.testing import CliRunner

from policyc.artifact.build import compile_file
from policyc.cli import cli
from policyc.runtime import Monitor

FIXTURE = "tests/fixtures/compile/offline_safety.altl"


def test_an_offline_only_rule_the_gate_judges_mid_run_is_named_at_compile_time(tmp_path):
    done = CliRunner().invoke(cli, ["compile", FIXTURE, "-o", str(tmp_path / "p.json"), "--format", "json"])
    assert done.exit_code == 0, done.output
    summary = json.loads(done.stdout)
    assert summary["classes"] == {"gateable": 0, "detectable": 0, "offline-only": 1}
    assert summary["offline_only_judged_at_each_call"] == ["within_total"]
    text = CliRunner().invoke(cli, ["compile", FIXTURE, "-o", "-"])
    assert ("note: rule `within_total` is not compiled: nested quantifiers: `o` and `m` are read together, by "
            "`result.total >= m` in `lookup_order`: only a pair of values one call names by `==` is tracked "
            "(per pair), so neither is tracked alone") in text.stderr
    assert ("note: `within_total` has no automaton (offline-only), yet the gate judges it at each proposal on "
            "the reference evaluator and refuses a call after which it can no longer hold") in text.stderr
    # ... and the gate does refuse, before any final answer
    monitor = Monitor(compile_file(FIXTURE))
    assert monitor.rule_classes["within_total"] == "offline-only"
    run = monitor.start()
    run.record("lookup_order", {"order_id": "A1"}, {"total": 50.0})
    refused = run.propose("issue_refund", {"order_id": "A1", "amount": 80.0})
    assert refused.action == "block" and refused.rules == ("within_total",)
    assert run.propose("issue_refund", {"order_id": "B2", "amount": 10.0}).action == "block"
    assert run.propose("issue_refund", {"order_id": "A1", "amount": 30.0}).action == "allow"


def test_two_variables_one_earlier_call_names_together_compile_per_pair(tmp_path):
    """`always (build_image(service: s, version: v) -> once run_tests(service: s, version: v,
    result.passed == true))` compiles (one instance per pair of values calls named) and is
    gateable; the same shape comparing by `>=` stays offline-only, with the reason."""
    fixture = "tests/fixtures/compile/pair_sliced.altl"
    done = CliRunner().invoke(cli, ["compile", fixture, "-o", str(tmp_path / "p.json"), "--format", "json"])
    assert done.exit_code == 0, done.output
    summary = json.loads(done.stdout)
    assert summary["classes"] == {"gateable": 1, "detectable": 0, "offline-only": 1}
    assert summary["offline_only_judged_at_each_call"] == ["within_total"]
    monitor = Monitor(compile_file(fixture))
    assert monitor.rule_classes["tested_before_build"] == "gateable"
    run = monitor.start()
    run.record("run_tests", {"service": "api", "version": "1.2"}, {"passed": True})
    run.record("run_tests", {"service": "web", "version": "1.3"}, {"passed": False})
    assert run.propose("build_image", {"service": "api", "version": "1.2"}).action == "allow"
    for service, version in (("api", "1.3"), ("web", "1.2"), ("web", "1.3"), ("db", "1.2")):
        refused = run.propose("build_image", {"service": service, "version": version})
        assert refused.action == "block" and refused.rules == ("tested_before_build",), (service, version)


def test_liveness_rules_are_not_named(tmp_path):
    done = CliRunner().invoke(cli, ["compile", "examples/code_qa.altl", "-o", str(tmp_path / "p.json"),
                                    "--format", "json"])
    summary = json.loads(done.stdout)
    assert summary["classes"]["offline-only"] == 2 and summary["offline_only_judged_at_each_call"] == []
