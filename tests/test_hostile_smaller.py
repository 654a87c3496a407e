"""Hostile input, second round: the smaller findings.

- `policyc import-tools` on a schema holding a number of 5,000 digits exited 3 (an internal
  error); it is an input error (exit 2). Two tools of one name were merged without a word
  when their signatures agreed; a second declaration is now always reported.
- The C-definition extractor was one backtracking regex, super-linear (a 60 KB `.c` result
  cost seconds to score, and as much again per gate decision); it is now a scan linear in the
  text, and finds exactly the names the regex found (a differential property test).
- A zero-width space in a tool or rule name (in backticks) was accepted silently, so
  `` `dele\\u200bte` `` read as `delete` and was another tool; it is E0006.
- `bytes` arguments broke `snapshot()` later: see test_hostile_identity.py.
"""

from __future__ import annotations

import json
import re
import time

from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from policyc.check import check_text
from policyc.cli import cli
from policyc.grounding.definitions import c_definitions

# ------------------------------------------------------------------ import-tools


def import_tools(tmp_path, document) -> tuple[int, str, str]:
    path = tmp_path / "tools.json"
    path.write_text(document if isinstance(document, str) else json.dumps(document))
    done = CliRunner().invoke(cli, ["import-tools", str(path)])
    return done.exit_code, done.stdout, done.stderr


def test_import_tools_on_a_number_of_5000_digits_is_an_input_error(tmp_path):
    schema = '{"name": "a", "inputSchema": {"type": "object", "properties": {"n": {"type": "integer", "maximum": %s}}}}'
    code, _, err = import_tools(tmp_path, "[" + schema % ("9" * 5000) + "]")
    assert code == 2 and "holds a number too long to read" in err and "internal error" not in err


def test_import_tools_never_merges_two_tools_of_one_name_silently(tmp_path):
    tool = {"name": "search", "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}}}
    code, out, err = import_tools(tmp_path, [tool, {**tool, "description": "another server's search"}])
    assert code == 0 and out.count("tool search(") == 1
    assert "1 repeated with the same signature (declared once)" in err
    composed = {**tool, "name": "caf\u00e9"}
    code, out, err = import_tools(tmp_path, [composed, {**tool, "name": "cafe\u0301"}])  # one name to a policy
    assert code == 0 and out.count("caf") == 1 and "1 repeated with the same signature" in err
    other = {**tool, "name": "cafe\u0301", "inputSchema": {"type": "object", "properties": {"q": {"type": "integer"}}}}
    code, out, err = import_tools(tmp_path, [composed, other])
    assert code == 2 and "is declared again with another signature" in err


# ------------------------------------------------------------------ the C extractor

#: the extractor as it was: the oracle of what names it finds
OLD_C = re.compile(
    r"^\s*#\s*define\s+(\w+)"
    r"|\b(?:struct|class|enum|union|namespace)\s+(\w+)"
    r"|^[\w \t\*&:<>,~]*?\b(\w+)\s*\([^;{}]*\)\s*(?:const\s*)?[{;]", re.M)


def old_c_definitions(source: str) -> set[str]:
    out = set()
    for m in OLD_C.finditer(source):
        name = m.group(1) or m.group(2) or m.group(3)
        if name and name not in ("if", "for", "while", "switch", "return", "sizeof"):
            out.add(name)
    return out


C_TOKENS = ["int", " ", "\n", "f", "g2", "(", ")", ";", "{", "}", "*", "const", "#define X", "struct S", ",", "\t",
            "if", "x", "::", "~", "=", "\r", "\u00a0", "constant", "_a", "(x)", "é", "class", ") const {",
            "namespace n", "#", "\n#define Y 1\n", "&", "<T>"]


@settings(max_examples=3000, deadline=None)
@given(st.lists(st.sampled_from(C_TOKENS), max_size=30).map("".join))
def test_the_c_extractor_finds_what_the_regex_found(source):
    assert c_definitions(source) == old_c_definitions(source)


def _cpu(text: str) -> float:
    best = float("inf")
    for _ in range(5):
        start = time.process_time()
        c_definitions(text)
        best = min(best, time.process_time() - start)
    return best


def test_the_c_extractor_is_linear():
    """CPU time (best of five) for 4x the text is far from 16x, what quadratic would cost; the
    60 KB of calls without a `;` that took seconds take milliseconds."""
    for unit in ("int f(int x)\n", "static int *f(int a,\n", "a b c d e f g h\n"):
        small, large = unit * 5_000, unit * 20_000
        ratio = _cpu(large) / max(_cpu(small), 1e-6)
        assert ratio < 8, (unit, ratio)
    assert _cpu("int f(int x)\n" * 4_600) < 0.5  # 60 KB


# ------------------------------------------------------------------ invisible characters in names


def test_a_name_holding_a_character_that_cannot_be_seen_is_e0006():
    for name, char in (("dele\u200bte", "U+200B"), ("dele\u00adte", "U+00AD"), ("\u2066delete", "U+2066"),
                       ("delete\ufe0f", "U+FE0F"), ("de\u3164lete", "U+3164")):
        _, diagnostics = check_text(f"tool `{name}`(path: str)\nrule `r{name}`: never(`{name}`)\n", "hidden.altl")
        assert [d.code for d in diagnostics] == ["E0006", "E0006"], name  # the tool and the rule, once each
        assert char in diagnostics[0].message
    policy, diagnostics = check_text("tool `get weather`(city: str)\nrule r: called(`get weather`)\n", "ok.altl")
    assert policy is not None and not diagnostics
