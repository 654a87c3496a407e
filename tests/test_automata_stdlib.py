"""Hand-written prefix tables for every stdlib predicate: the paper's and DECLARE's.

Each row is a rule, a trace (one letter per call: `a`, `b`, `c` are tools, `1` is `a(x: 1)`,
`5` is `a(x: 1)` returning 5, `z` any other tool) and the verdict after each prefix, from the
empty one on: `V` permanently violated, `S` permanently satisfied, `a` open and satisfied if
the run ended here, `o` open and not satisfied. Every row is also replayed on the reference
evaluator and on `first_violation`.
"""

from __future__ import annotations

import pytest

from policyc.automata import SATISFIED, VIOLATED, classify, compile_rule, first_violation
from policyc.check import check_text
from policyc.semantics import evaluate
from policyc.trace import Trace

HEADER = """import declare
tool a(x: int) -> int
tool b(x: int) -> int
tool c(x: int) -> int
tool z(x: int) -> int
"""

CALLS = {"a": ("a", {}), "b": ("b", {}), "c": ("c", {}), "z": ("z", {}),
         "1": ("a", {"x": 1}), "5": ("a", {"x": 1}, 5)}

TABLES = [
    # --- the paper's predicates (appendix A.2.2)
    ("called(a)", "", "o"),
    ("called(a)", "zba", "oooS"),
    ("never(a)", "zba", "aaaV"),
    ("called_n(a) <= 2", "aaza", "aaaaV"),
    ("called_n(a) < 1", "za", "aaV"),
    ("called_n(a) >= 2", "azaa", "oooSS"),
    ("called_n(a) > 1", "aa", "ooS"),
    ("called_n(a) == 1", "zaa", "ooaV"),
    ("called_n(a) != 1", "aa", "aoS"),
    ("count(a) <= 1", "aa", "aaV"),
    ("before(a, b)", "b", "oV"),
    ("before(a, b)", "zab", "oooS"),
    ("before(a, b)", "a", "oo"),
    ("after(a, b)", "ab", "oVV"),
    ("after(a, b)", "ba", "ooS"),
    ("all_before([a, b], c)", "abc", "oooS"),
    ("all_before([a, b], c)", "acb", "ooVV"),
    ("instance_before(a, 1, b, 0)", "aab", "oooS"),
    ("instance_before(a, 1, b, 0)", "aba", "ooVV"),
    ("in_order([a, b, c])", "acbc", "ooooS"),
    ("in_order([a, b, c])", "cba", "oooo"),
    ("within_steps(a, b, 1)", "zab", "oooS"),
    ("within_steps(a, b, 1)", "acb", "ooVV"),
    ("called_with(a(x: 1))", "a1", "ooS"),
    ("called_with_result(a(x: 1), 5)", "15", "ooS"),
    ("branch_called(a, b)", "ab", "oaV"),
    ("branch_called(a, b)", "za", "ooa"),
    # --- DECLARE templates
    ("existence(a)", "za", "ooS"),
    ("existence_n(a, 2)", "aa", "ooS"),
    ("absence(a)", "za", "aaV"),
    ("absence_n(a, 2)", "aza", "aaaV"),
    ("exactly(a, 2)", "aaa", "ooaV"),
    ("init(a)", "ab", "oSS"),
    ("init(a)", "ba", "oVV"),
    ("end(a)", "aba", "oaoa"),
    ("responded_existence(a, b)", "ab", "aoS"),
    ("co_existence(a, b)", "ab", "aoS"),
    ("response(a, b)", "abza", "aoaao"),
    ("precedence(a, b)", "b", "aV"),
    ("precedence(a, b)", "ab", "aSS"),
    ("succession(a, b)", "ab", "aoa"),
    ("succession(a, b)", "b", "aV"),
    ("alternate_response(a, b)", "aab", "aoVV"),
    ("alternate_response(a, b)", "abab", "aoaoa"),
    ("alternate_precedence(a, b)", "abb", "aaaV"),
    ("alternate_precedence(a, b)", "abab", "aaaaa"),
    ("chain_response(a, b)", "ac", "aoV"),
    ("chain_response(a, b)", "ab", "aoa"),
    ("chain_precedence(a, b)", "cb", "aaV"),
    ("chain_precedence(a, b)", "ab", "aaa"),
    ("chain_succession(a, b)", "ab", "aoa"),
    ("chain_succession(a, b)", "cb", "aaV"),
    ("not_coexistence(a, b)", "ab", "aaV"),
    ("not_succession(a, b)", "ab", "aaV"),
    ("not_succession(a, b)", "ba", "aaa"),
    ("not_chain_succession(a, b)", "ab", "aaV"),
    ("not_chain_succession(a, b)", "azb", "aaaa"),
    ("choice(a, b)", "cb", "ooS"),
    ("exclusive_choice(a, b)", "ab", "oaV"),
]


def rule_formula(text: str):
    policy, diagnostics = check_text(HEADER + f"rule r: {text}\n", "table.altl")
    assert policy is not None, diagnostics
    return policy.rule("r").formula


def code(run) -> str:
    verdict = run.verdict()
    if verdict == VIOLATED:
        return "V"
    if verdict == SATISFIED:
        return "S"
    return "a" if run.accepting() else "o"


@pytest.mark.parametrize("text,letters,expected", TABLES, ids=[f"{t}:{l}" for t, l, _ in TABLES])
def test_prefix_table(text, letters, expected):
    phi = rule_formula(text)
    trace = Trace.of(*(CALLS[ch] for ch in letters))
    run = compile_rule(phi).start()
    got = code(run)
    for call in trace.calls:
        run.step(call.name, call.args, call.result)
        got += code(run)
    assert got == expected
    for k, ch in enumerate(expected):
        assert evaluate(phi, trace.prefix(k)) == (ch in "aS"), f"evaluator disagrees at prefix {k}"
    assert first_violation(phi, trace) == (expected.index("V") if "V" in expected else None)


LIVENESS = ["called(a)", "called_n(a) >= 2", "called_with(a(x: 1))", "existence(a)", "in_order([a, b])",
            "response(a, b)", "choice(a, b)", "responded_existence(a, b)", "end(a)"]
ENFORCEABLE = ["never(a)", "before(a, b)", "called_n(a) <= 2", "branch_called(a, b)", "within_steps(a, b, 2)",
               "precedence(a, b)", "chain_response(a, b)", "init(a)", "not_succession(a, b)", "exactly(a, 1)"]


@pytest.mark.parametrize("text", LIVENESS)
def test_pure_liveness_is_never_violated_mid_run(text):
    c = classify(rule_formula(text))
    assert (c.is_enforceable, c.is_liveness, c.kind) == (False, True, "offline-only")


@pytest.mark.parametrize("text", ENFORCEABLE)
def test_rules_with_bad_prefixes_are_enforceable(text):
    c = classify(rule_formula(text))
    assert c.is_enforceable and c.kind == "gateable" and c.min_bad_prefix >= 1


def test_a_violation_that_waits_for_the_result_is_detectable_not_gateable():
    c = classify(rule_formula("never(a(result == 5))"))
    assert (c.is_enforceable, c.is_gateable, c.kind) == (True, False, "detectable")
