"""The parser: the AST it builds, the spans it records, and the syntax errors it reports."""

from __future__ import annotations

import pytest

from policyc.syntax import ast, parse
from policyc.syntax.parser import parse_expression


def body(text: str) -> ast.Expr:
    e, diagnostics = parse_expression(text)
    assert diagnostics == [], [d.message for d in diagnostics]
    return e


def errors(text: str) -> list[tuple[str, str, int, int]]:
    module, diagnostics = parse(text, "p.altl")
    assert module is None
    return [(d.code, d.message, d.span.line, d.span.column) for d in diagnostics]


@pytest.mark.parametrize("letters,keywords", [
    ("X a", "next a"), ("WX a", "weak next a"), ("WX a", "wnext a"), ("F a", "eventually a"),
    ("G a", "always a"), ("Y a", "yesterday a"), ("Z a", "weak yesterday a"), ("Z a", "wyesterday a"),
    ("O a", "once a"), ("H a", "historically a"), ("a U b", "a until b"), ("a W b", "a weak until b"),
    ("a W b", "a unless b"), ("a R b", "a release b"), ("a R b", "a releases b"), ("a S b", "a since b"),
    ("!a && b || c", "not a and b or c"), ("a -> b <-> c", "a implies b iff c"),
])
def test_letters_and_keywords_build_the_same_tree(letters, keywords):
    assert body(letters) == body(keywords)


def test_precedence_follows_the_grammar():
    assert body("a -> b -> c") == body("a -> (b -> c)")
    assert body("a or b and c") == body("a or (b and c)")
    assert body("not a until b") == body("(not a) until b")
    assert body("always a -> b") == body("(always a) -> b")
    assert body("a and forall x in D: p or q") == body("a and (forall x in D: (p or q))")
    assert body("x + y * z == 1") == body("(x + (y * z)) == 1")
    assert body("-x.y[0]") == body("-((x.y)[0])")


@pytest.mark.parametrize("name", ["notify", "not_x", "order_id", "android", "true_up", "falsehood", "nullable",
                                  "forall_x", "existsx", "iffy", "implies_x", "terminal_id", "Xs", "Fx", "once_more"])
def test_names_that_start_like_keywords_are_names(name):
    assert body(name) == ast.Name(name)
    assert body(f"a({name}: {name})") == ast.Call("a", (ast.KeywordArg(name, ast.Name(name)),))


def test_names_in_backticks_may_be_anything_but_a_backtick():
    module, diagnostics = parse("tool `get-weather`(`city name`: str)\nrule r: called(`exists`)")
    assert diagnostics == []
    tool, rule = module.items
    assert (tool.name, tool.params[0].name) == ("get-weather", "city name")
    assert rule.body.args == (ast.Name("exists"),)


def test_a_quantifier_without_domain_and_a_pattern_binding():
    e = body('forall x: always (a(id: x, result.ok == true, n > 2) -> once b(x))')
    assert isinstance(e, ast.Quantifier) and e.domain is None
    pattern = e.body.operand.left
    assert pattern.func == "a" and isinstance(pattern.args[0], ast.KeywordArg)
    assert pattern.args[1] == body("result.ok == true")


def test_every_declaration_kind_parses():
    text = '''
policy p "d"
import "lib.altl" rename { a -> b { x -> y } }
import declare
type T = { f: list[int]?, g: dict[str, { h: bool }] }
enum E { one, "two words" }
layer money "what may be refunded"
terminal tool t(x: int, y: T) -> E
tool u = t { x -> z }
predicate even(n: int) := n % 2 == 0
extern predicate vip(c: str) from "crm:is_vip"
def twice(e: event) := at_least(e, 2)
procedure proc(s: tool) { rule inner: called(s) }
use proc(t) as used
rule r "d" layer L1 weight 2.5 severity soft_block(2) message "m": true
budget 10
conformance block
'''
    module, diagnostics = parse(text)
    assert diagnostics == []
    kinds = [type(d).__name__ for d in module.items]
    assert kinds == ["PolicyDecl", "ImportDecl", "ImportDecl", "TypeDecl", "EnumDecl", "LayerDecl", "ToolDecl",
                     "AliasDecl", "PredicateDecl", "ExternDecl", "DefDecl", "ProcedureDecl", "UseDecl", "RuleDecl",
                     "BudgetDecl", "ConformanceDecl"]
    assert module.items[4].members == ("one", "two words")
    assert module.items[13].meta == (ast.MetaLayer("L1"), ast.MetaWeight(2.5),
                                     ast.MetaSeverity(ast.SeverityExpr("soft_block", 2)), ast.MetaMessage("m"))


def test_spans_point_at_the_source_and_stay_out_of_equality():
    module, _ = parse("tool search(query: str)\nrule r:\n    eventually serch(query: \"x\")\n", "p.altl")
    call = module.items[1].body.operand
    assert (call.func_span.line, call.func_span.column, call.func_span.text) == (3, 16, "serch")
    assert (call.span.end_line, call.span.end_column) == (3, 33)
    assert call == ast.Call("serch", (ast.KeywordArg("query", ast.Literal("x", "str")),))


def test_comments_are_collected_with_their_offsets():
    module, _ = parse("# head\ntool a(x: int)  # trailing\n")
    assert module.comments == ((0, "# head"), (23, "# trailing"))


def test_unexpected_token_lists_what_was_expected():
    assert errors("rule r before(a, b)") == [
        ("E0001", "unexpected `before`, expected `:`, `layer`, `message`, `severity`, `weight` or a string", 1, 8)]


def test_every_broken_declaration_is_reported():
    text = "tool a(x: int)\nrule r: a(x == 1\nrule s: a and\nrule t: eventually a\nrule u: a =>\n"
    found = errors(text)
    assert [(line, message.split(",")[0]) for _, message, line, _ in found] == [
        (3, "unexpected `rule`"), (4, "unexpected `rule`"), (5, "unexpected `=`")]


def test_an_unclosed_bracket_is_labelled():
    module, diagnostics = parse("rule r: always (a and b\n", "p.altl")
    (d,) = diagnostics
    assert d.message == "unexpected end of file, expected `)`"
    assert [(l.message, l.span.column) for l in d.labels] == [("this `(` is not closed", 16)]


@pytest.mark.parametrize("text,hint", [
    ("rule r: a => b", "write implication as `->`"),
    ("rule r: a(x = 1)", "compare with `==`; `=` only appears in `type` and tool alias declarations"),
    ("rule r: a(x: 'y')", 'strings are written in double quotes: "..."'),
    ('rule r: a(x: "y)', 'a string must end with `"` on the same line'),
    ("rule r: called(exists)", "`exists` is a reserved word; to use it as the name of a tool, argument or "
                               "variable, write it in backticks: `` `exists` ``"),
    ("rule r weight 2 a", "a rule's metadata ends with `:`, followed by the formula"),
    ("def f(x: int) = x", "a `def` or `predicate` is defined with `:=`"),
    ("def f := called(t)", "a `def` or `predicate` takes parentheses, empty when it has no parameters: "
                           "`def name() := ...`"),
    ("predicate p := true", "a `def` or `predicate` takes parentheses, empty when it has no parameters: "
                            "`def name() := ...`"),
])
def test_common_slips_get_a_hint(text, hint):
    _, diagnostics = parse(text)
    assert diagnostics[0].help == hint
