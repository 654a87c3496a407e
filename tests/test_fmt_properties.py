"""Formatter properties: parse(fmt(p)) == p and fmt(fmt(p)) == fmt(p), comments kept.

Over hypothesis-generated syntax trees (every node and declaration), over the bundled
examples and standard library, and over formatted text with comments inserted anywhere a
comment may stand.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ast_strategies import EXAMPLES, EXPRESSIONS, MODULES
from policyc.fmt import format_module, formatting_problem
from policyc.syntax import ast, parse
from policyc.syntax.parser import parse_expression

ROOT = Path(__file__).resolve().parent.parent
BUNDLED = sorted([*ROOT.joinpath("examples").glob("*.altl"), *ROOT.joinpath("stdlib").glob("*.altl")])
SETTINGS = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def reparse(text: str) -> ast.Module:
    module, diagnostics = parse(text, "formatted.altl")
    assert diagnostics == [], f"{[d.message for d in diagnostics]}\n{text}"
    return module


@pytest.mark.slow
@SETTINGS
@given(MODULES)
def test_parse_of_format_is_identity(module):
    text = format_module(module)
    again = reparse(text)
    assert again.items == module.items
    assert format_module(again) == text


@SETTINGS
@given(EXPRESSIONS)
def test_expressions_round_trip_alone(e):
    text = format_module(ast.Module("<generated>", (ast.RuleDecl("r", None, (), e),)))
    body = text.split(":\n", 1)[1].strip()
    parsed, diagnostics = parse_expression(body)
    assert diagnostics == [] and parsed == e, body


@pytest.mark.slow
@SETTINGS
@given(MODULES, st.data())
def test_comments_anywhere_are_kept(module, data):
    lines = format_module(module).split("\n")
    commented: list[str] = []
    for i, line in enumerate(lines):
        if data.draw(st.booleans(), label=f"comment before line {i}"):
            commented.append(f"# before {i}")
        if line and data.draw(st.booleans(), label=f"comment after line {i}"):
            line += f"  # after {i}"
        commented.append(line)
    text = "\n".join(commented)
    original = reparse(text)
    formatted = format_module(original)
    assert formatting_problem(original, formatted) is None
    assert format_module(reparse(formatted)) == formatted


@pytest.mark.parametrize("path", BUNDLED, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_bundled_files_are_formatted(path):
    text = path.read_text(encoding="utf-8")
    module = reparse(text)
    formatted = format_module(module)
    assert formatting_problem(module, formatted) is None
    assert formatted == text, "run `policyc fmt --write` on it"
