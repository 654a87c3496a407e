"""The formatter's decisions, one by one, and `policyc fmt` on the command line."""

from __future__ import annotations

import textwrap

import pytest
from click.testing import CliRunner

from policyc.cli import cli
from policyc.fmt import format_module
from policyc.syntax import parse


def fmt(text: str) -> str:
    module, diagnostics = parse(textwrap.dedent(text).lstrip("\n"))
    assert diagnostics == []
    return format_module(module)


def fmt_body(formula: str) -> str:
    return fmt(f"rule r: {formula}").split("\n", 1)[1].strip()


@pytest.mark.parametrize("written,canonical", [
    ("G (a -> F b)", "always (a -> eventually b)"),
    ("a U b and X c or WX d", "((a until b) and next c) or weak next d"),
    ("a W b", "a weak until b"),
    ("a unless b", "a weak until b"),
    ("Z a && !b", "weak yesterday a and not b"),
    ("((a))", "a"),
    ("always (a)", "always a"),
    ("not (a since b)", "not (a since b)"),
    ("(not a) since b", "not a since b"),
    ("a -> (b -> c)", "a -> (b -> c)"),
    ("(a -> b) -> c", "(a -> b) -> c"),
    ("(a or b) -> c", "(a or b) -> c"),
    ("a or (b and c)", "a or (b and c)"),
    ("(a and b) and c", "a and b and c"),
    ("a and (b and c)", "a and (b and c)"),
    ("x - (y - z) == 1", "x - (y - z) == 1"),
    ("(x - y) - z == -(1)", "x - y - z == -1"),
    ("(forall x in D: p) and q", "(forall x in D: p) and q"),
    ("q and (forall x in D: p)", "q and forall x in D: p"),
    ("(if c then a else b) or d", "(if c then a else b) or d"),
    ("a(x:1,y :\"s\",result.ok==true)", 'a(x: 1, y: "s", result.ok == true)'),
])
def test_canonical_spelling_and_parentheses(written, canonical):
    assert fmt_body(written) == canonical


def test_long_formulas_break_before_operators_aligned_in_their_brackets():
    text = fmt("""
        rule r:
            always (check_eligibility(order_id: o, result.eligible == false) -> always not issue_refund(order_id: o) and eventually escalate(order_id: o))
    """)
    assert text == textwrap.dedent("""\
        rule r:
            always (check_eligibility(order_id: o, result.eligible == false)
                    -> (always not issue_refund(order_id: o) and eventually escalate(order_id: o)))
    """)


def test_rule_headers_continue_on_lines_indented_by_eight():
    text = fmt('rule search_first "search before answering" layer L3 weight 4 severity block '
               'message "Search the repository before you answer.": before(search, final_answer)')
    assert text == textwrap.dedent("""\
        rule search_first "search before answering" layer L3 weight 4 severity block
                message "Search the repository before you answer.":
            before(search, final_answer)
    """)


def test_macro_bodies_put_each_else_on_its_own_line():
    assert fmt("def f(t: event, n: int) := if n <= 0 then true else if n == 1 then t else next f(t, n - 1)") == (
        "def f(t: event, n: int) :=\n    if n <= 0 then true\n    else if n == 1 then t\n    else next f(t, n - 1)\n")


def test_declarations_are_separated_and_like_one_liners_stay_together():
    text = fmt("""
        policy p
        tool a(x: int)
        tool b(y: int)  # the second tool
        type T = {x: int}
        rule r: a
        rule s: b
    """)
    assert text == textwrap.dedent("""\
        policy p

        tool a(x: int)
        tool b(y: int)  # the second tool

        type T = { x: int }

        rule r:
            a

        rule s:
            b
    """)


def test_long_parameter_lists_and_records_take_a_line_per_item():
    params = ", ".join(f"argument_{i}: list[str]" for i in range(6))
    text = fmt(f"tool many({params}) -> {{ first_field: str, second_field: list[int], third_field: bool? }}")
    assert text.splitlines() == [
        "tool many(",
        *(f"    argument_{i}: list[str]," for i in range(6)),
        ") -> { first_field: str, second_field: list[int], third_field: bool? }",
    ]


def test_comments_lead_trail_and_close():
    text = fmt("""
        # header

        # about a
        tool a(x: int)   # trailing
        rule r:   # inside the rule
            a
        # the end
    """)
    assert text == textwrap.dedent("""\
        # header

        # about a
        tool a(x: int)  # trailing

        # inside the rule
        rule r:
            a
        # the end
    """)


def test_trailing_comments_of_consecutive_one_liners_are_aligned():
    text = fmt("tool a(x: int) # one\ntool bbbbbb(y: int) # two\n")
    assert text == "tool a(x: int)       # one\ntool bbbbbb(y: int)  # two\n"


def test_comments_in_procedures_stay_with_their_rules():
    text = fmt("""
        procedure p(t: tool) {
            # first
            rule a: called(t)  # why
            # second
            rule b: never(t)
            # closing
        }
    """)
    assert text == textwrap.dedent("""\
        procedure p(t: tool) {
            # first
            rule a:
                called(t)  # why

            # second
            rule b:
                never(t)
            # closing
        }
    """)


def test_names_are_quoted_only_where_needed():
    text = fmt("tool `get-weather`(`exists`: str)\nlayer procedure\nrule r layer procedure: `get-weather`(`exists`: \"x\")")
    assert "tool `get-weather`(`exists`: str)" in text
    assert "layer procedure" in text and "`get-weather`(`exists`: \"x\")" in text


# ------------------------------------------------------------------ the command


@pytest.fixture()
def files(tmp_path):
    clean = tmp_path / "clean.altl"
    clean.write_text("tool a(x: int)\n\nrule r:\n    always a\n")
    messy = tmp_path / "messy.altl"
    messy.write_text("tool a(x:int)\nrule r: G a  # keep me\n")
    broken = tmp_path / "broken.altl"
    broken.write_text("rule r: (a\n")
    return clean, messy, broken


def run(*args: str):
    return CliRunner().invoke(cli, ["fmt", *args])


def test_fmt_prints_the_formatted_text(files):
    _, messy, _ = files
    result = run(str(messy))
    assert result.exit_code == 0
    assert result.output == "tool a(x: int)\n\nrule r:\n    always a  # keep me\n"


def test_fmt_prints_several_files_under_headers(files):
    clean, messy, _ = files
    result = run(str(clean), str(messy))
    assert result.exit_code == 0
    assert f"==> {clean} <==\n" in result.output and f"\n==> {messy} <==\n" in result.output


def test_fmt_check_lists_unformatted_files_and_exits_1(files):
    clean, messy, _ = files
    assert run("--check", str(clean)).exit_code == 0
    result = run("--check", str(clean), str(messy))
    assert result.exit_code == 1 and result.output == f"{messy}: not formatted\n"
    assert messy.read_text() == "tool a(x:int)\nrule r: G a  # keep me\n"


def test_fmt_write_rewrites_in_place(files):
    clean, messy, _ = files
    result = run("--write", str(clean), str(messy))
    assert result.exit_code == 0
    assert messy.read_text() == "tool a(x: int)\n\nrule r:\n    always a  # keep me\n"
    assert run("--check", str(clean), str(messy)).exit_code == 0


def test_fmt_diff_shows_what_would_change(files):
    _, messy, _ = files
    result = run("--diff", str(messy))
    assert result.exit_code == 0 and "-rule r: G a  # keep me\n" in result.output and "+    always a  # keep me\n" in result.output


def test_fmt_reports_syntax_errors_and_exits_1(files):
    _, messy, broken = files
    result = run("--write", str(broken), str(messy))
    assert result.exit_code == 1 and "error[E0001]" in result.output
    assert broken.read_text() == "rule r: (a\n"


def test_fmt_reads_standard_input():
    result = CliRunner().invoke(cli, ["fmt", "-"], input="rule r: F a")
    assert result.exit_code == 0 and result.output == "rule r:\n    eventually a\n"


def test_fmt_rejects_contradictory_options(files):
    clean, _, _ = files
    assert run("--check", "--write", str(clean)).exit_code == 2
    assert run("--write", "-").exit_code == 2


def test_a_conformance_scope_is_kept():
    assert "conformance soft_block(2) signatures only\n" in fmt("""
        tool a(x: int)
        conformance   soft_block( 2 )   signatures   only
        rule r: a
    """)


@pytest.mark.parametrize("escape", ["\\u202e", "\\u2066", "\\u200b", "\\u00a0", "\\ufeff", "\\u0085", "\\udb40\\udc01"])
def test_characters_that_print_as_nothing_or_reorder_text_stay_escaped(escape):
    # a bidi override written `\u202e` came out of fmt as the raw character: a formatted
    # policy then held text a reader could not see (found by a sweep written from the docs)
    source = f'tool t()\n\nrule r "a{escape}b":\n    called(t)\n'
    out = fmt(source)
    assert out.isascii() and escape in out, out
    assert fmt(out) == out


def test_printed_and_written_formats_are_the_same_bytes_escape_sequences_too(tmp_path):
    """Found by a sweep written from the docs alone: printing (to a pipe) and --diff dropped
    an ANSI escape sequence from a comment, while --write kept it: two different files."""
    source = "tool a(x: int)\n# see \x1b[31mred\x1b[0m here\nrule r:   always a\n"
    path = tmp_path / "p.altl"
    path.write_text(source)
    printed = run(str(path))
    diff = run("--diff", str(path))
    assert run("--write", str(path)).exit_code == 0
    written = path.read_text()
    assert printed.exit_code == 0 and printed.output == written and "\x1b[31mred\x1b[0m" in written
    assert " # see \x1b[31mred\x1b[0m here\n" in diff.output  # the unchanged line, quoted as it is
