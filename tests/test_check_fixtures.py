"""The checker's diagnostics, pinned as the user sees them: tests/fixtures/check/*.altl.

Fixtures come in pairs, `<topic>_bad.altl` and `<topic>_good.altl`, side by side. A bad file
opens with comment lines that state every diagnostic it must produce, in order:

    # expect: E0201 6:16 unknown tool `serch`
    #   help: did you mean `search`?
    #   | eventually serch(query: "x")
    #   |            ^^^^^

`expect:` gives the code, the position (`FILE:LINE:COL` when the diagnostic is in another
file) and the exact message; `help:` and `note:` lines give the exact help and notes (none
when absent); the `|` lines are the snippet exactly as rendered under the diagnostic, source
lines and the row of marks under them (`^` the primary span, `-` labels; `...` for skipped
lines). A good file must check with no diagnostic at all.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from policyc.check import check_file
from policyc.diagnostics import Diagnostic, render_one

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "check"
BAD = sorted(FIXTURES.glob("*_bad.altl"))
GOOD = sorted(FIXTURES.glob("*_good.altl"))
#: Codes that no fixture file can show: E0003 needs a file over 2 MiB and E0005 an unreadable
#: one (tests/test_fuzz_pathological.py covers both); E0105 a chain of generated imports
#: (tests/test_hostile_policies.py).
NOT_AS_FIXTURES = {"E0003", "E0005", "E0105"}
_EXPECT = re.compile(r"#\s*expect:\s*(?P<code>[EW]\d{4})\s+(?:(?P<file>\S+):)?(?P<line>\d+):(?P<col>\d+)\s+(?P<msg>.*)")


@dataclass
class Expected:
    code: str
    file: str | None
    line: int
    column: int
    message: str
    help: str | None = None
    notes: list[str] = field(default_factory=list)
    snippet: list[str] = field(default_factory=list)


def read_expectations(path: Path) -> tuple[list[Expected], set[str]]:
    expected: list[Expected] = []
    options: set[str] = set()
    for raw in path.read_bytes().decode("utf-8", "replace").splitlines():
        if not raw.startswith("#"):
            break
        if m := _EXPECT.match(raw):
            expected.append(Expected(m["code"], m["file"], int(m["line"]), int(m["col"]), m["msg"].rstrip()))
        elif m := re.match(r"#\s*options:\s*(.*)", raw):
            options.update(m.group(1).split())
        elif m := re.match(r"#\s+help:\s(.*)", raw):
            expected[-1].help = m.group(1)
        elif m := re.match(r"#\s+note:\s(.*)", raw):
            expected[-1].notes.append(m.group(1))
        elif m := re.match(r"#\s+\| ?(.*)", raw):
            expected[-1].snippet.append(m.group(1).rstrip())
    return expected, options


def rendered_snippet(d: Diagnostic) -> list[str]:
    """The rows under a diagnostic's location, without the line-number gutter."""
    rows = []
    for line in render_one(d).splitlines()[3:]:
        if line.strip() == "...":
            rows.append("...")
            continue
        m = re.match(r"^\s*(\d+)?\s*\|(?: (.*))?$", line)
        if m is None:
            break
        rows.append((m.group(2) or "").rstrip())
    return rows


def check_fixture(path: Path, monkeypatch) -> list[Diagnostic]:
    monkeypatch.chdir(FIXTURES)
    return check_file(path.name)[1]


@pytest.mark.parametrize("path", BAD, ids=lambda p: p.stem)
def test_bad_fixture_reports_exactly_what_it_states(path, monkeypatch):
    expected, _ = read_expectations(path)
    actual = check_fixture(path, monkeypatch)
    assert expected, "a bad fixture states what it expects"
    assert [(d.code, d.message) for d in actual] == [(e.code, e.message) for e in expected]
    for e, d in zip(expected, actual):
        where = (d.span.path, d.span.line, d.span.column) if d.span else (path.name, 0, 0)
        assert where == (e.file or path.name, e.line, e.column), d.message
        assert d.help == e.help, d.message
        assert list(d.notes) == e.notes, d.message
        assert rendered_snippet(d) == e.snippet, render_one(d)


@pytest.mark.parametrize("path", GOOD, ids=lambda p: p.stem)
def test_good_fixture_is_clean(path, monkeypatch):
    assert check_fixture(path, monkeypatch) == []


def test_fixtures_come_in_pairs():
    bad = {p.name.removesuffix("_bad.altl") for p in BAD}
    good = {p.name.removesuffix("_good.altl") for p in GOOD}
    assert bad == good


def test_every_diagnostic_code_has_a_fixture():
    documented = set(re.findall(r"^## ([EW]\d{4})", (FIXTURES.parents[2] / "docs" / "diagnostics.md")
                                .read_text(encoding="utf-8"), re.M))
    shown = {e.code for path in BAD for e in read_expectations(path)[0]}
    assert documented - NOT_AS_FIXTURES <= shown
    assert shown <= documented
