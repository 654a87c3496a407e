"""Signature conformance: the SAAG stages as findings, never exceptions; and the runtime-side
packages stay free of the parser, the checker, lark and z3."""

from __future__ import annotations

import subprocess
import sys

import pytest

from policyc.check import check_file
from policyc.trace import Trace, check_call, check_result, check_trace


@pytest.fixture(scope="module")
def tools():
    policy, _ = check_file("examples/support_desk.altl")
    return policy.tools


def summary(findings):
    return [(f.stage, f.code, f.argument, f.suggestion) for f in findings]


def test_a_conforming_call_has_no_findings(tools):
    assert check_call("issue_refund", {"order_id": "A1", "amount": 12}, tools) == []  # an int is a float


def test_registry_unknown_tool_with_the_nearest_name(tools):
    (finding,) = check_call("issue_refunds", {"order_id": "A1"}, tools, position=2)
    assert summary([finding]) == [("registry", "unknown-tool", None, "issue_refund")]
    assert str(finding) == "call #3: unknown tool `issue_refunds` (did you mean `issue_refund`?)"
    (far,) = check_call("launch_rocket", {}, tools)
    assert far.suggestion is None and far.help is None


def test_structure_missing_and_unknown_arguments_stop_the_cascade(tools):
    findings = check_call("issue_refund", {"order_idd": "A1", "amount": "twelve", "note": "x"}, tools)
    assert summary(findings) == [
        ("structure", "missing-argument", "order_id", None),
        ("structure", "drifted-argument", "order_idd", "order_id"),   # a misspelling (PDS >= 0.8): did you mean
        ("structure", "unknown-argument", "note", None),              # an invention (spurious): no suggestion
    ]  # the wrong type of `amount` is not reported until the structure is right (SAAG's cascade)


def test_type_stage(tools):
    findings = check_call("issue_refund", {"order_id": 7, "amount": "twelve"}, tools)
    assert summary(findings) == [("type", "wrong-type", "order_id", None), ("type", "wrong-type", "amount", None)]
    assert findings[1].message == "`issue_refund`: `amount` should be float, got str"


def test_optional_arguments_may_be_omitted_or_null():
    policy, _ = check_file("examples/code_qa.altl")
    assert check_call("grep", {"pattern": "x"}, policy.tools) == []
    assert check_call("grep", {"pattern": "x", "path": None}, policy.tools) == []


def test_result_types_are_warnings(tools):
    (finding,) = check_result("check_eligibility", {"eligible": "yes", "max_refund": 3.0}, tools, position=0)
    assert (finding.stage, finding.severity) == ("result", "warning")
    assert finding.message == "the result of `check_eligibility`: `result.eligible` should be bool, got str"


def test_a_whole_trace(tools):
    trace = Trace.of(("get_customer", {"email": "a@b.c"}, {"customer_id": "C1", "email": "a@b.c"}),
                     ("lookup_ordr", {"order_id": "A1"}),
                     ("reply", {}))
    findings = check_trace(trace, tools)
    assert [(f.position, f.code) for f in findings] == [(1, "unknown-tool"), (2, "missing-argument")]
    assert findings[0].to_json()["help"] == "did you mean `lookup_order`?"


def test_runtime_side_packages_do_not_import_the_front_end_or_solvers():
    code = ("import sys\n"
            "import policyc.trace, policyc.scoring, policyc.semantics, policyc.grounding\n"
            "from policyc.trace import load_traces\n"
            "from policyc.scoring import score_corpus\n"
            "bad = [m for m in sys.modules if m.split('.')[0] in ('lark', 'z3')"
            " or m.startswith(('policyc.syntax', 'policyc.check'))]\n"
            "print(bad)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
