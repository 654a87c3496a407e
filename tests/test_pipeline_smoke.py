"""End-to-end: every bundled example parses, checks and evaluates on a trace."""

from pathlib import Path

import pytest

from policyc.check import check_file, check_text
from policyc.semantics import evaluate
from policyc.trace import Trace

EXAMPLES = sorted(Path(__file__).parent.parent.joinpath("examples").glob("*.altl"))


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_example_checks_clean(path):
    policy, diagnostics = check_file(path)
    assert diagnostics == []
    assert policy is not None and policy.rules


def test_code_qa_figure_1_traces():
    policy, _ = check_file(Path(__file__).parent.parent / "examples" / "code_qa.altl")
    trace_a = Trace.of(
        ("search", {"query": "request"}, ["src/requests/api.py"]),
        ("read_file", {"path": "src/requests/api.py"}, {"src/requests/api.py": "def request(method, url):\n    pass\n"}),
        ("grep", {"pattern": "def request"}, ["src/requests/api.py:1"]),
        ("final_answer", {"answer": "request is defined in src/requests/api.py"}),
    )
    trace_b = Trace.of(("final_answer", {"answer": "request is defined in src/requests/api.py"}))
    verdicts_a = {r.name: evaluate(r.formula, trace_a) for r in policy.rules}
    verdicts_b = {r.name: evaluate(r.formula, trace_b) for r in policy.rules}
    assert verdicts_a == {"search_first": True, "reads_a_file": True, "grounded": True}
    assert verdicts_b == {"search_first": False, "reads_a_file": False, "grounded": False}


def test_unknown_tool_gets_did_you_mean():
    _, diagnostics = check_text('tool search(query: str)\nrule r: eventually serch(query: "x")\n', "p.altl")
    (d,) = diagnostics
    assert (d.code, d.message, d.help) == ("E0201", "unknown tool `serch`", "did you mean `search`?")
    assert (d.span.line, d.span.column, d.span.text) == (2, 20, "serch")
