"""The front end never raises: any input gives an AST or policy, or diagnostics.

Hypothesis feeds parse + check with random text over a grammar-aware alphabet (keywords,
operators, names, literals, broken strings, odd bytes) and with token-level mutations of the
bundled examples (deletions, insertions, duplications, swaps). Whatever parses must also
format faithfully, and every diagnostic must render as text and JSON.
"""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ast_strategies import EXAMPLES
from policyc.check import check_text
from policyc.diagnostics import Diagnostic, render_json, render_text
from policyc.fmt import format_module, formatting_problem
from policyc.syntax import parse
from policyc.syntax.lexical import RESERVED

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE_TEXTS = [p.read_text(encoding="utf-8") for p in sorted(ROOT.joinpath("examples").glob("*.altl"))]
SETTINGS = settings(max_examples=EXAMPLES * 2, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])

TOKENS = sorted(RESERVED) + [
    "->", "<->", "==", "!=", "<=", ">=", "<", ">", "+", "-", "*", "/", "%", ":", ":=", ",", ".", "(", ")",
    "[", "]", "{", "}", "?", "=", "!", "&&", "||", "=>", "'", "`", "\\",
    "a", "b", "x", "o", "read_file", "search", "final_answer", "called", "before", "at_least", "called_n",
    "in_order", "outputs", "entities", "result", "metrics", "len", "`get-weather`", "L1", "L9", "block",
    "soft_block", "int", "str", "float", "bool", "list", "dict", "any", "event", "formula", "cmp",
    "0", "1", "42", "1.5", "2e3", '"s"', '""', '"\\q"', '"\\ud800"', '"open', '"a.altl"', '"os:getcwd"',
    " ", " ", " ", "\n", "\n    ", "\t", "# note\n", "é", "\r\n", "\x0c", "\u2028", "😀",
]
HEADER = "tool a(x: int, s: str?) -> { ok: bool, items: list[int] }\nterminal tool b(y: str)\n"


@pytest.fixture(scope="module", autouse=True)
def empty_directory():
    """Imports in random text resolve against an empty folder, not the repository."""
    previous = os.getcwd()
    with tempfile.TemporaryDirectory() as folder:
        os.chdir(folder)
        try:
            yield
        finally:
            os.chdir(previous)


def assert_front_end_survives(text: str) -> None:
    module, diagnostics = parse(text, "fuzz.altl")
    assert all(isinstance(d, Diagnostic) for d in diagnostics)
    if module is not None:
        formatted = format_module(module)
        assert formatting_problem(module, formatted) is None, formatted
    policy, diagnostics = check_text(text, "fuzz.altl")
    assert all(isinstance(d, Diagnostic) for d in diagnostics)
    assert (policy is None) == any(d.is_error for d in diagnostics)
    render_text(diagnostics)
    render_json(diagnostics)
    for d in diagnostics:
        if d.span is not None and d.span.path == "fuzz.altl":
            assert 0 <= d.span.start <= d.span.end <= len(text)


token_text = st.lists(st.sampled_from(TOKENS), max_size=40).map(" ".join)
glued_text = st.lists(st.sampled_from(TOKENS), max_size=40).map("".join)


@pytest.mark.slow
@SETTINGS
@given(st.one_of(token_text, glued_text, token_text.map(lambda t: HEADER + "rule r: " + t)))
def test_random_text_gives_diagnostics(text):
    assert_front_end_survives(text)


@SETTINGS
@given(st.text(max_size=200))
def test_arbitrary_unicode_gives_diagnostics(text):
    assert_front_end_survives(text)


_PIECE = re.compile(r'"(?:[^"\\\n]|\\.)*"|#[^\n]*|`[^`\n]*`|\w+|\s+|.', re.S)


@st.composite
def mutated_example(draw) -> str:
    pieces = _PIECE.findall(draw(st.sampled_from(EXAMPLE_TEXTS)))
    for _ in range(draw(st.integers(min_value=1, max_value=4))):
        if not pieces:
            break
        i = draw(st.integers(min_value=0, max_value=len(pieces) - 1))
        action = draw(st.sampled_from(["delete", "insert", "duplicate", "swap", "replace"]))
        if action == "delete":
            del pieces[i]
        elif action == "insert":
            pieces.insert(i, draw(st.sampled_from(TOKENS)))
        elif action == "duplicate":
            pieces.insert(i, pieces[i])
        elif action == "swap" and i + 1 < len(pieces):
            pieces[i], pieces[i + 1] = pieces[i + 1], pieces[i]
        else:
            pieces[i] = draw(st.sampled_from(TOKENS))
    return "".join(pieces)


@pytest.mark.slow
@SETTINGS
@given(mutated_example())
def test_mutated_examples_give_diagnostics(text):
    assert_front_end_survives(text)
