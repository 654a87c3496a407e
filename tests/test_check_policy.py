"""What the checker builds: the policy's tools, rules and metadata, and how names resolve."""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from policyc.check import check_file, check_text
from policyc.cli import cli
from policyc.ir.policy import Severity
from policyc.semantics import evaluate
from policyc.trace import Trace

ROOT = Path(__file__).resolve().parent.parent


def checked(text: str):
    policy, diagnostics = check_text(textwrap.dedent(text), "p.altl")
    assert diagnostics == [], [f"{d.code} {d.message}" for d in diagnostics]
    return policy


def holds(policy, rule: str, *calls) -> bool:
    return evaluate(policy.rule(rule).formula, Trace.of(*calls))


def test_metadata_reaches_the_rule():
    policy = checked('''
        layer money "what may be refunded"
        tool a(x: int)
        budget 7
        conformance soft_block
        rule r "described" layer money weight 2.5 severity soft_block(4) message "stop that": called(a)
        rule s: called(a)
    ''')
    r, s = policy.rules
    assert (r.layer, r.weight, r.severity, r.message, r.description) == (
        "money", 2.5, Severity("soft_block", 4), "stop that", "described")
    assert (s.layer, s.weight, s.severity) == (None, 1.0, Severity("warn"))
    assert policy.budget == 7 and policy.conformance == Severity("soft_block", 3)
    assert policy.layers["money"] == "what may be refunded" and policy.layers["L3"]


def test_tool_signatures_aliases_and_terminal_tools():
    policy = checked('''
        type Hit = { url: str }
        tool search(query: str, limit: int?) -> list[Hit]
        terminal tool answer(text: str)
        tool lookup = search { query -> term }
        rule r: called(lookup(term: "x"))
    ''')
    assert str(policy.tools["search"]) == "tool search(query: str, limit: int?) -> list[Hit]"
    assert [p.name for p in policy.tools["lookup"].params] == ["term", "limit"]
    assert policy.tools["lookup"].alias_of == "search"
    assert policy.terminal_tools == {"answer"}


def test_names_in_backticks_are_the_tools_of_the_trace():
    policy = checked('''
        tool `get-weather`(city: str)
        rule r: called(`get-weather`(city: "Paris"))
    ''')
    assert holds(policy, "r", ("get-weather", {"city": "Paris"}))
    assert not holds(policy, "r", ("get_weather", {"city": "Paris"}))


def test_implicit_variables_relate_calls():
    policy = checked('''
        tool check(order_id: str) -> { eligible: bool }
        tool refund(order_id: str)
        rule r: always (refund(order_id: o) -> once check(order_id: o, result.eligible == true))
    ''')
    ok = [("check", {"order_id": "A"}, {"eligible": True}), ("refund", {"order_id": "A"})]
    other = [("check", {"order_id": "B"}, {"eligible": True}), ("refund", {"order_id": "A"})]
    assert holds(policy, "r", *ok) and not holds(policy, "r", *other)


@pytest.mark.parametrize("condition", ["result.eligible", "is_yes(result.eligible)", "result.eligible == true"])
def test_positional_conditions_in_a_pattern(condition):
    policy = checked(f'''
        predicate is_yes(b: bool) := b == true
        tool check(order_id: str) -> {{ eligible: bool }}
        rule r: called(check({condition}))
    ''')
    assert holds(policy, "r", ("check", {"order_id": "A"}, {"eligible": True}))
    assert not holds(policy, "r", ("check", {"order_id": "A"}, {"eligible": False}))



def test_result_in_a_condition_is_the_result_even_beside_an_argument_of_that_name():
    """Found by a sweep written from the docs alone: with `tool a(result: int)`,
    `a(result == 2)` silently tested the argument, and the call's result could not be tested.
    docs/language.md: `tool(result == value)` is a condition on the call's result."""
    policy = checked("""
        tool a(result: int) -> int
        rule on_result: called(a(result == 2))
        rule on_argument: called(a(result: 2))
    """)
    returned_2 = ("a", {"result": 1}, 2)
    given_2 = ("a", {"result": 2}, 1)
    assert holds(policy, "on_result", returned_2) and not holds(policy, "on_result", given_2)
    assert holds(policy, "on_argument", given_2) and not holds(policy, "on_argument", returned_2)

def test_positional_values_fill_arguments_in_order():
    policy = checked('''
        tool search(query: str, limit: int)
        rule r: called(search("x", 3))
    ''')
    assert holds(policy, "r", ("search", {"query": "x", "limit": 3}))
    assert not holds(policy, "r", ("search", {"query": "x", "limit": 4}))


@pytest.mark.parametrize("comparison,count,expected", [
    (">= 2", 2, True), (">= 2", 1, False), ("== 0", 0, True), ("< 3", 3, False), ("!= 1", 2, True),
])
def test_counting_sugar(comparison, count, expected):
    policy = checked(f"tool a(x: int)\nrule r: called_n(a) {comparison}\n")
    assert holds(policy, "r", *[("a", {"x": i}) for i in range(count)]) is expected


def test_counts_far_beyond_the_default_recursion_limit():
    """Expanding `called_n(a) >= 150` takes some 2,000 Python frames; the checker allows them."""
    limit = sys.getrecursionlimit()
    policy = checked("tool a(x: int)\nrule r: called_n(a) >= 150\n")
    assert [r.name for r in policy.rules] == ["r"]
    assert sys.getrecursionlimit() == limit


def test_procedures_are_named_by_their_use():
    policy = checked('''
        tool a(x: int)
        tool b(x: int)
        procedure ordered(first: tool, then: tool) {
            rule first_then: before(first, then)
            rule then_once: called_n(then) <= 1
        }
        use ordered(a, b)
        use ordered(b, a) as reversed
    ''')
    assert [r.name for r in policy.rules] == ["ordered.first_then", "ordered.then_once",
                                              "reversed.first_then", "reversed.then_once"]


def test_an_import_with_a_rename_map_applies_its_rules_to_other_tools():
    policy, diagnostics = check_file(ROOT / "examples" / "diverse_tools.altl")
    assert diagnostics == []
    assert "enumerate_patients" in policy.tools and "tool_a" not in policy.tools
    assert [p.name for p in policy.tools["enumerate_patients"].params] == ["intake_seed"]
    assert "tool_a_called" in [r.name for r in policy.rules]


def test_quantifier_shadowing():
    policy = checked('''
        tool a(x: int) -> { xs: list[int] }
        rule r: forall x in a.x: forall x in [x + 1]: x > 1
    ''')
    assert holds(policy, "r", ("a", {"x": 1}, {"xs": []}))
    assert not holds(policy, "r", ("a", {"x": 0}, {"xs": []}))


# ------------------------------------------------------------------ the command


def test_check_command_reports_every_file():
    runner = CliRunner()
    bad = str(ROOT / "tests/fixtures/check/e0201_unknown_tool_bad.altl")
    result = runner.invoke(cli, ["check", str(ROOT / "examples/code_qa.altl"), bad])
    assert result.exit_code == 1
    assert "examples/code_qa.altl: ok (3 rules" in result.output and "2 errors" in result.output


def test_check_command_json_is_data():
    bad = str(ROOT / "tests/fixtures/check/e0201_unknown_tool_bad.altl")
    result = CliRunner().invoke(cli, ["check", "--format", "json", bad])
    assert result.exit_code == 1
    (entry,) = json.loads(result.output)
    assert entry["ok"] is False and entry["rules"] == []
    first = entry["diagnostics"][0]
    assert first["code"] == "E0201" and first["help"] == "did you mean `search`?"
    assert first["location"]["line"] == 14 and first["location"]["column"] == 16
    assert first["fields"] == {"name": "serch", "suggestion": "search"}


@pytest.mark.parametrize("fixture, expected", [
    ("e0202_unknown_argument", [{"name": "qeury", "suggestion": "query", "tool": "search"},
                                {"name": "text", "tool": "search"}]),
    ("e0203_unknown_field", [{"name": "totl", "suggestion": "total", "type": "Order"},
                             {"name": "shipped", "type": "Status"}]),
    ("e0208_type_mismatch", [{"expected": "str", "found": "int"}, {"expected": "float", "found": "str"},
                             {"name": "bronze", "expected": "Tier"}, {"left": "float", "right": "str"}]),
    ("e0221_unknown_type", [{"name": "strng", "suggestion": "str"}, {}, {},  # `list[]`, `dict[int, T]`: no name
                            {"name": "event"}, {"name": "Ordr", "suggestion": "Order"}]),
    ("e0103_bad_rename", [{"name": "lookpu", "suggestion": "lookup"}, {"name": "key", "tool": "lookup"}]),
])
def test_diagnostics_carry_what_they_name(fixture, expected):
    """The unknown name, its suggestion and the types a message names come as fields too."""
    _, diagnostics = check_file(str(ROOT / f"tests/fixtures/check/{fixture}_bad.altl"))
    assert [dict(d.fields) for d in diagnostics] == expected


def test_warnings_fail_only_when_denied():
    path = str(ROOT / "tests/fixtures/check/w0207_unused_variable_bad.altl")
    assert CliRunner().invoke(cli, ["check", path]).exit_code == 0
    assert CliRunner().invoke(cli, ["check", "--deny-warnings", path]).exit_code == 1


def test_rename_reaches_tools_of_nested_imports(tmp_path):
    """An import's rename map may rename tools the imported file gets from its own imports."""
    (tmp_path / "base.altl").write_text("tool tool_a(i: int)\ntool tool_b(x: int)\nrule r: before(tool_a, tool_b)\n")
    (tmp_path / "mid.altl").write_text('import "base.altl" rename { tool_b -> step { x -> y } }\n'
                                       "rule m: called(step(y: 3))\n")
    (tmp_path / "top.altl").write_text('import "mid.altl" rename { tool_a -> first { i -> index }, '
                                       "step -> second { y -> z } }\n")
    policy, diagnostics = check_file(tmp_path / "top.altl")
    assert diagnostics == []
    assert [str(s) for s in policy.tools.values()] == ["tool first(index: int)", "tool second(z: int)"]
    assert str(policy.rule("m").formula) == "F second(z: 3)"
    (tmp_path / "bad.altl").write_text('import "mid.altl" rename { step -> second { x -> z } }\n')
    _, diagnostics = check_file(tmp_path / "bad.altl")
    assert [(d.code, d.message, d.help) for d in diagnostics] == [
        ("E0103", "`step` has no argument `x`", "the declared arguments are `y`")]


@pytest.mark.parametrize("text, underlined", [
    ('policy p "Tools only."\n\ntool a(x: int)\n\ntool b()\n', 'policy p "Tools only."'),
    ("tool a(x: int)\n\ntool b()\n\ntool c(y: str)\n", "tool a(x: int)"),
])
def test_a_policy_without_rules_is_pointed_at_its_header_not_the_whole_file(text, underlined):
    """W0225's span is the `policy` header (else the first declaration): an editor underlines
    one line, not the file from top to bottom."""
    _, diagnostics = check_text(text, "tools.altl")
    [d] = [d for d in diagnostics if d.code == "W0225"]
    assert text[d.span.start:d.span.end] == underlined


@pytest.mark.parametrize("char", ["\a", "\x1b", "\x7f", "\t", "\x85", "\u2800", "\U0001d159"])
def test_a_control_or_blank_character_in_a_name_is_e0006(char):
    """Found by a sweep written from the docs alone: a bell, an escape, a delete, a tab, NEL,
    the braille blank or the null notehead in `dele?te` passed the check, and a `deny` rule on
    it said nothing about `delete` (the trace scored 1.000 FULL)."""
    policy, diagnostics = check_text(f"tool `dele{char}te`(path: str)\n"
                                     f"rule never_delete severity deny: never(`dele{char}te`)\n", "p.altl")
    assert [d.code for d in diagnostics] == ["E0006"], [d.message for d in diagnostics]
    assert diagnostics[0].span.start == len("tool `dele")  # at the character
