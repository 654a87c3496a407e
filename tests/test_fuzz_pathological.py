"""Pathological inputs get a clear diagnostic or work; none reaches the user as a traceback.

Measured (2-core CI machine): parsing runs at about 150-200 KB/s, so the 2 MiB limit is some
10-15 s of parsing; 10,000 nested parentheses take about 3 s; nesting beyond 200 levels is
refused before any recursive stage runs.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from policyc.check import check_file, check_text
from policyc.cli import cli
from policyc.diagnostics import render_text
from policyc.fmt import format_module, formatting_problem
from policyc.syntax import parse
from policyc.syntax.parser import MAX_NESTING, MAX_SOURCE_BYTES

HEADER = "tool a(x: int)\n"


def codes(diagnostics) -> list[str]:
    return [d.code for d in diagnostics]


def test_thousands_of_parentheses_work():
    policy, diagnostics = check_text(HEADER + "rule r: " + "(" * 5000 + "a" + ")" * 5000)
    assert diagnostics == [] and policy is not None


def test_nesting_at_the_limit_works_everywhere():
    text = HEADER + "rule r: " + "not " * (MAX_NESTING - 2) + "a"
    policy, diagnostics = check_text(text)
    assert diagnostics == [] and policy is not None
    module, _ = parse(text)
    assert formatting_problem(module, format_module(module)) is None


def test_thousands_of_nots_are_refused_at_the_expression():
    (d,) = check_text(HEADER + "rule r: " + "not " * 5000 + "a")[1]
    assert (d.code, d.message) == ("E0004", f"this expression is nested more than {MAX_NESTING} levels deep")
    assert d.span.line == 2 and d.help


def test_a_very_long_chain_is_named_as_such():
    (d,) = check_text(HEADER + "rule r: " + " or ".join(["a"] * 3000))[1]
    assert (d.code, d.message) == ("E0004", f"this chain of `or` has more than {MAX_NESTING} operands")
    assert d.span.column == 9


def test_a_five_megabyte_file_is_refused_before_it_is_read(tmp_path):
    path = tmp_path / "big.altl"
    rule = 'rule r{} "a rule" weight 2: always (a(x: {}) -> once a(x: 1))\n'
    chunk = HEADER + "".join(rule.format(i, i) for i in range(1000))
    path.write_text(chunk * (5 * 1024 * 1024 // len(chunk) + 1))
    assert path.stat().st_size > 5 * 1024 * 1024
    (d,) = check_file(path)[1]
    assert d.code == "E0003" and "larger than the 2 MiB" in d.message and d.help


@pytest.mark.nightly  # a file at the size limit takes ~30 s
def test_a_file_just_under_the_limit_checks(tmp_path):
    rule = 'rule r{} "a rule" weight 2: always (a(x: {}) -> once a(x: 1))\n'
    lines, size, i = [HEADER], len(HEADER), 0
    while size < MAX_SOURCE_BYTES - 200:
        lines.append(rule.format(i, i))
        size += len(lines[-1])
        i += 1
    path = tmp_path / "limit.altl"
    path.write_text("".join(lines))
    policy, diagnostics = check_file(path)
    assert diagnostics == [] and len(policy.rules) == i


@pytest.mark.parametrize("data,message", [
    (b"rule r: true # caf\xe9\n", "is not valid UTF-8 (byte 0xe9 at line 1, column 19)"),
    (b"\x7fELF\x02\x01\x01\x00\x00", "contains NUL bytes and looks like a binary file"),
])
def test_bytes_that_are_not_text_are_refused(tmp_path, data, message):
    path = tmp_path / "p.altl"
    path.write_bytes(data)
    (d,) = check_file(path)[1]
    assert d.code == "E0002" and message in d.message


@pytest.mark.parametrize("text", ["", "\n\n  \n", "# only\n# comments\n", "\ufeff# a byte-order mark\n"])
def test_a_policy_without_rules_is_only_a_warning(text):
    policy, diagnostics = check_text(text)
    assert codes(diagnostics) == ["W0225"] and policy is not None


def test_windows_line_endings_read_like_unix_ones():
    unix = HEADER + "\nrule r:\n    always a  # note\n"
    assert check_text(unix.replace("\n", "\r\n"))[1] == [] and check_text(unix)[1] == []
    module, _ = parse(unix.replace("\n", "\r\n"))
    assert format_module(module) == unix


def test_a_very_long_line_is_shown_cut_around_the_error():
    text = HEADER + "rule r: " + " or ".join(f"a(x: {i})" for i in range(150)) + " or zz"
    (d,) = check_text(text, "p.altl")[1]
    assert d.code == "E0201" and d.span.text == "zz"
    rendered = render_text([d])
    assert max(len(line) for line in rendered.splitlines()) < 140
    caret_line = next(line for line in rendered.splitlines() if line.strip().startswith("|") and "^" in line)
    source_line = next(line for line in rendered.splitlines() if line.startswith("2 |"))
    assert source_line[caret_line.index("^"):].startswith("zz")


def test_unreadable_paths_are_input_errors(tmp_path):
    runner = CliRunner()
    for args in (["check", str(tmp_path / "missing.altl")], ["fmt", str(tmp_path / "missing.altl")]):
        result = runner.invoke(cli, args)
        assert result.exit_code == 2, result.output
        assert "E0005" in result.output and "Traceback" not in result.output
    for command in ("check", "fmt"):  # a folder stands for its policies: one without any is an input error
        result = runner.invoke(cli, [command, str(tmp_path)])
        assert result.exit_code == 2 and "no `.altl` file under" in result.output


def test_binary_file_through_the_cli(tmp_path):
    path = tmp_path / "p.altl"
    path.write_bytes(bytes(range(256)))
    for command in ("check", "fmt"):
        result = CliRunner().invoke(cli, [command, str(path)])
        assert result.exit_code == 2 and "E0002" in result.output and "Traceback" not in result.output


def test_source_text_over_the_limit_is_refused_by_parse():
    (d,) = parse("#" * (MAX_SOURCE_BYTES + 1))[1]
    assert d.code == "E0003"


def test_import_of_a_huge_file_is_refused(tmp_path):
    (tmp_path / "huge.altl").write_bytes(b"#" * (MAX_SOURCE_BYTES + 1))
    main = tmp_path / "main.altl"
    main.write_text('import "huge.altl"\nrule r: true\n')
    assert "E0003" in codes(check_file(main)[1])


def test_strings_with_every_escape_and_raw_control_characters():
    text = 'rule r "tab\there \\" \\\\ \\/ \\b \\f \\n \\r \\t \\u00e9 \\ud83d\\ude00": true\n'
    module, diagnostics = parse(text)
    assert diagnostics == []
    assert module.items[0].description == 'tab\there " \\ / \b \f \n \r \t é 😀'
    assert parse(format_module(module))[0].items == module.items


@pytest.mark.parametrize("literal,problem", [
    ('"\\q"', "`\\q` is not an escape"),
    ('"\\u12"', "`\\u` needs four hex digits"),
    ('"\\udc00"', "half of a UTF-16 surrogate pair"),
])
def test_malformed_escapes_are_syntax_errors(literal, problem):
    (d,) = parse(f"rule r {literal}: true")[1]
    assert d.code == "E0001" and problem in d.message


def test_paths_in_diagnostics_survive_odd_file_names(tmp_path):
    path = tmp_path / "spaces and ünïcode.altl"
    path.write_text("rule r: nope\n", encoding="utf-8")
    (d,) = check_file(path)[1]
    assert d.code == "E0201" and Path(d.span.path).name == path.name
