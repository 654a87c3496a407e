"""`policyc graph --rules`: the rule graph and the tool precedence graph.

Every precedence edge `a -> b` of a rule is checked by brute force on the reference
evaluator: no trace of up to 4 calls that satisfies the rule calls `b` with no `a` before
it. Every pair of named tools without an edge has such a trace (found by the same search),
so the edges are exactly the precedences the rule requires, up to that length."""

from __future__ import annotations

import itertools
import json

import pytest
from click.testing import CliRunner

from policyc.check import check_text
from policyc.cli import cli
from policyc.lint.rule_graph import rule_graph
from policyc.semantics import evaluate
from policyc.trace import Trace

TOOLS = "policy p\ntool a()\ntool b()\ntool c()\ntool d()\n"
RULES = [
    "before(a, b)",
    "always(c -> once(b))",
    "always(b -> once(a)) and always(c -> once(b))",
    "always(b -> once(a or c))",
    "always(a -> once(b) or once(c))",
    "in_order([a, b, c])",
    "always(d -> yesterday(a))",
    "called(a) or not called(b)",
    "never(b) or (not b until a)",
    "eventually(a) and always(b -> once(c))",
    "always(not b)",
    "called_n(a) <= 1",
]


def violates_precedence(trace: tuple[str, ...], first: str, then: str) -> bool:
    return then in trace and first not in trace[: trace.index(then)]


def satisfying_traces(formula, tools, length=4):
    for k in range(length + 1):
        for calls in itertools.product(tools, repeat=k):
            if evaluate(formula, Trace.of(*[(t, {}) for t in calls])):
                yield calls


@pytest.mark.parametrize("body", RULES)
def test_precedence_edges_are_exactly_the_required_orders(body):
    policy, diagnostics = check_text(TOOLS + f"rule r: {body}\n", "p.altl")
    assert policy is not None, diagnostics
    graph = rule_graph(policy)
    edges = {(p.before, p.after) for p in graph.precedence}
    named = graph.rules["r"]
    traces = list(satisfying_traces(policy.rules[0].formula, list(policy.tools)))
    for first, then in itertools.permutations(named, 2):
        witness = next((t for t in traces if violates_precedence(t, first, then)), None)
        assert ((first, then) in edges) == (witness is None), (first, then, witness)


def test_components_group_rules_by_shared_tools():
    src = TOOLS + "rule ab: before(a, b)\nrule bc: always(c -> once(b))\nrule d_only: called_n(d) <= 2\n"
    graph = rule_graph(check_text(src, "p.altl")[0])
    assert graph.components == [("ab", "bc"), ("d_only",)]
    assert graph.links == [("ab", "bc", ("b",))]


CYCLE = TOOLS + "rule a_needs_b: always(a -> once(b))\nrule b_needs_a: always(b -> once(a))\n"


def test_a_precedence_cycle_is_found_and_exits_1(tmp_path):
    graph = rule_graph(check_text(CYCLE, "p.altl")[0])
    assert [[(p.before, p.after, p.rule) for p in c] for c in graph.cycles] == [
        [("a", "b", "b_needs_a"), ("b", "a", "a_needs_b")]]
    path = tmp_path / "cycle.altl"
    path.write_text(CYCLE, encoding="utf-8")
    out = CliRunner().invoke(cli, ["graph", str(path), "--rules", "--format", "text"])
    assert out.exit_code == 1
    assert "a -> b -> a  (b_needs_a, a_needs_b)" in out.output


def test_cli_formats():
    runner = CliRunner()
    dot = runner.invoke(cli, ["graph", "examples/code_qa.altl", "--rules"])
    assert dot.exit_code == 0 and dot.output.startswith("digraph rules {")
    assert '"tool:search" -> "tool:final_answer" [label="search_first"]' in dot.output
    data = json.loads(runner.invoke(cli, ["graph", "examples/code_qa.altl", "--rules", "--format", "json"]).output)
    assert data["precedence"] == [{"before": "search", "after": "final_answer", "rule": "search_first"}]
    assert data["components"] == [["search_first", "reads_a_file", "grounded"]]
    assert "grounded" in data["not_analysed"]
    text = runner.invoke(cli, ["graph", "examples/support_desk.altl", "--rules", "--format", "text"])
    assert text.exit_code == 0 and "get_customer -> issue_refund  (verify_first)" in text.output


def test_cli_usage_errors():
    runner = CliRunner()
    assert runner.invoke(cli, ["graph", "examples/code_qa.altl", "--format", "json"]).exit_code == 2
    assert runner.invoke(cli, ["graph", "examples/code_qa.altl", "--rules", "--rule", "grounded"]).exit_code == 2


def test_the_gate_does_not_load_networkx():
    import subprocess
    import sys

    script = ("import sys\nfrom policyc.artifact.build import compile_file\nfrom policyc.runtime import Monitor\n"
              "Monitor(compile_file('examples/code_qa.altl')).start().propose('search', {'query': 'x'})\n"
              "print('networkx' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.stdout.strip() == "False", done.stderr
