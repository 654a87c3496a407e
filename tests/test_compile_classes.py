"""A rule's class and what the gate does with it agree: `policyc compile` names the
offline-only rules (no automaton) that the gate still judges at every proposal, and those
are exactly the ones it refuses calls for in the middle of a run."""

from __future__ import annotations

import json

from click.testing import CliRunner

from policyc.artifact.build import compile_file
from policyc.cli import cli
from policyc.runtime import Monitor

FIXTURE = "tests/fixtures/compile/provenance_offline.altl"


def test_an_offline_only_rule_the_gate_judges_mid_run_is_named_at_compile_time(tmp_path):
    done = CliRunner().invoke(cli, ["compile", FIXTURE, "-o", str(tmp_path / "p.json"), "--format", "json"])
    assert done.exit_code == 0, done.output
    summary = json.loads(done.stdout)
    assert summary["classes"] == {"gateable": 0, "detectable": 0, "offline-only": 1}
    assert summary["offline_only_judged_at_each_call"] == ["known_recipient"]
    text = CliRunner().invoke(cli, ["compile", FIXTURE, "-o", "-"])
    assert ("note: `known_recipient` has no automaton (offline-only), yet the gate judges it at each proposal on "
            "the reference evaluator and refuses a call after which it can no longer hold") in text.stderr
    # ... and the gate does refuse, before any final answer
    monitor = Monitor(compile_file(FIXTURE))
    assert monitor.rule_classes["known_recipient"] == "offline-only"
    run = monitor.start()
    run.record("lookup", {"id": "1"}, "alice")
    refused = run.propose("send", {"to": "bob"})
    assert refused.action == "block" and refused.rules == ("known_recipient",)
    assert run.propose("send", {"to": "alice"}).action == "allow"


def test_liveness_rules_are_not_named(tmp_path):
    done = CliRunner().invoke(cli, ["compile", "examples/code_qa.altl", "-o", str(tmp_path / "p.json"),
                                    "--format", "json"])
    summary = json.loads(done.stdout)
    assert summary["classes"]["offline-only"] == 2 and summary["offline_only_judged_at_each_call"] == []
