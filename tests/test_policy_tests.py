"""`policyc test`: the unit tests beside the bundled examples pass; a failing test says which
rule, what was expected and what happened (with `violated_at` and the rule's detail); a
broken tests file, trace or policy is an input error naming file, line and key, and the
other tests still run; JUnit XML carries the same results."""

from __future__ import annotations

import shutil
import tomllib
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from click.testing import CliRunner

from policyc.cli import cli
from policyc.testing import parse_tests, read_tests, run_suite

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"


def run(*args):
    return CliRunner().invoke(cli, ["test", *args], catch_exceptions=False)


def test_every_bundled_example_has_tests_and_they_pass():
    policies = sorted(EXAMPLES.glob("*.altl"))
    assert policies and all(p.with_name(p.stem + ".tests.toml").is_file() for p in policies)
    expected = sum(len(tomllib.loads(p.with_name(p.stem + ".tests.toml").read_text())["test"]) for p in policies)
    out = run(str(EXAMPLES))
    assert out.exit_code == 0, out.output
    assert out.output.splitlines()[-1] == f"{expected} passed, 0 failed"


def test_a_policy_names_its_tests_file():
    out = run("examples/code_qa.altl", "-q")
    assert out.exit_code == 0
    assert out.output == "examples/code_qa.tests.toml (examples/code_qa.altl): 4 tests\n4 passed, 0 failed\n"


@pytest.fixture()
def project(tmp_path):
    shutil.copy(EXAMPLES / "code_qa.altl", tmp_path)
    shutil.copytree(EXAMPLES / "traces", tmp_path / "traces")
    return tmp_path


def write(project: Path, text: str) -> str:
    path = project / "code_qa.tests.toml"
    path.write_text(text, encoding="utf-8")
    return str(path)


SHORTCUT = """
[[test]]
name = "the shortcut"
trace = "traces/code_qa.jsonl"
record = "trace_b"
"""


def test_a_failing_test_says_which_rule_and_what_happened(project):
    path = write(project, SHORTCUT + 'pass = ["search_first"]\nviolated_at = { reads_a_file = 0 }\nscore = 0.5\n'
                                     'label = "PARTIAL"\nvacuous = ["grounded"]\n')
    out = run(path)
    assert out.exit_code == 1
    lines = out.output.splitlines()
    assert lines[1] == f"  FAIL  the shortcut  ({path}:2)"
    assert lines[2:8] == [
        '        rule `search_first`: expected to pass, but it failed at call 1: "search" was never called; '
        '"final_answer" was (call #1).',
        '        rule `reads_a_file`: expected to be violated from the start, but it was violated at call 1: '
        '"read_file" was never called.',
        "        rule `grounded`: expected to hold vacuously, but it failed at call 1: "
        + run_suite(read_tests(path)[0]).results[0].report.constraints[2].detail,
        "        score: expected 0.500, got 0.000",
        "        label: expected PARTIAL, got NONE (score 0.000)",
        "        tool sequence: final_answer",
    ]
    assert lines[-1] == "0 passed, 1 failed"


def test_junit_xml(project, tmp_path):
    path = write(project, SHORTCUT + 'fail = ["search_first"]\n' + SHORTCUT.replace("the shortcut", "wrong")
                 + 'pass = ["search_first"]\n' + SHORTCUT.replace("the shortcut", "broken") + 'pass = ["serch_first"]\n')
    report = tmp_path / "junit.xml"
    out = run(path, "--junit", str(report))
    assert out.exit_code == 2  # an error outranks a failure
    root = ET.parse(report).getroot()
    assert (root.tag, root.get("tests"), root.get("failures"), root.get("errors")) == ("testsuites", "3", "1", "1")
    cases = {c.get("name"): c for c in root.iter("testcase")}
    assert list(cases["the shortcut"]) == [cases["the shortcut"].find("system-out")]
    assert cases["wrong"].find("failure").get("message").startswith("rule `search_first`: expected to pass")
    assert "did you mean `search_first`?" in cases["broken"].find("error").get("message")
    assert cases["wrong"].get("line") == "8"
    stdout = run(path, "--junit", "-")
    assert ET.fromstring(stdout.stdout.split("\n", 1)[1]).get("tests") == "3"


def test_control_characters_in_a_test_reach_neither_the_terminal_nor_the_xml(project, tmp_path):
    """Found by a sweep written from the docs alone: a test named "x\\r ok all good" printed its
    carriage return raw (the FAIL line then read as a pass on a terminal), and a NUL in a name
    made --junit write a file no XML parser reads."""
    path = write(project, SHORTCUT.replace("the shortcut", "x\\r  ok    all good\\u0000\\u001b[2J")
                 + 'pass = ["search_first"]\n')
    report = tmp_path / "junit.xml"
    out = run(path, "--junit", str(report))
    assert out.exit_code == 1
    assert "\r" not in out.output and "\x00" not in out.output and "\x1b" not in out.output
    assert "  FAIL  x\\r  ok    all good\\x00\\x1b[2J  (" in out.output
    (case,) = ET.parse(report).getroot().iter("testcase")
    assert case.get("name") == "x\r  ok    all good\\u0000\\u001b[2J"  # the CR is XML's own; NUL and ESC are not


@pytest.mark.parametrize("target", ["code_qa.altl", "code_qa.tests.toml", "traces/code_qa.jsonl"])
def test_junit_never_writes_over_an_input(project, target):
    """The tests file, the policy it names and the traces its tests read are inputs: --junit
    naming one of them is refused (exit 2) and the file is left as it was."""
    path = write(project, SHORTCUT + 'fail = ["search_first"]\n' + '[[test]]\nname = "from a file"\n'
                 'trace = "traces/code_qa.jsonl"\nrecord = 0\npass = ["search_first"]\n')
    before = (project / target).read_bytes()
    out = run(path, "--junit", str(project / target))
    assert out.exit_code == 2 and "refusing to write over" in out.output and "--junit" in out.output
    assert (project / target).read_bytes() == before


@pytest.mark.parametrize("text,message", [
    ("[[test]\n", ":1: invalid TOML"),
    ("", "no tests: add `[[test]]` tables"),
    ('[[test]]\nname = "t"\ncalls = []\n', ":1: test `t`: it expects nothing"),
    ('[[test]]\nname = "t"\ncalls = []\ntrace = "x.json"\npass = []\n', "either inline (`calls`) or as a file"),
    ('[[test]]\nname = "t"\ncalls = [{ tool = "search" }]\npas = ["x"]\nfail = []\n', "unknown key `pas`"),
    ('[[test]]\nname = "t"\ncalls = [{ args = {} }]\nfail = []\n', "call 1 needs `tool`"),
    ('[[test]]\nname = "t"\ntrace = "traces/none.json"\nfail = []\n', "traces/none.json`: no such file"),
    ('[[test]]\nname = "t"\ntrace = "traces/code_qa.jsonl"\nfail = []\n', "holds 3 records: pick one"),
    ('[[test]]\nname = "t"\ntrace = "traces/code_qa.jsonl"\nrecord = 9\nfail = []\n', "holds 3 records, not 9"),
    ('[[test]]\nname = "t"\ntrace = "traces/code_qa.jsonl"\nrecord = "x"\nfail = []\n', "no record `x`"),
    ('[[test]]\nname = "t"\ncalls = [{ tool = "serch" }]\nfail = []\n', "call 1 (`serch`) does not match"),
    ('[[test]]\nname = "t"\ncalls = []\nscore = 2\n', "`score` must be a number from 0 to 1"),
    ('[[test]]\nname = "t"\ncalls = []\nlabel = "ALL"\n', "`label` must be one of FULL, PARTIAL, NONE"),
    ('[[test]]\nname = "t"\ncalls = []\npass = ["grounded"]\nfail = ["grounded"]\n', "expected both to pass and"),
    ('policy = "missing.altl"\n[[test]]\nname = "t"\ncalls = []\nfail = []\n', "does not check"),
])
def test_input_errors_name_the_file_and_exit_2(project, text, message):
    path = write(project, text)
    out = run(path)
    assert out.exit_code == 2
    assert message in out.output and path in out.output


def test_other_tests_still_run_after_a_broken_one(project):
    path = write(project, '[[test]]\nname = "broken"\ncalls = [{ tool = "serch" }]\nfail = []\n' + SHORTCUT
                 + 'fail = ["search_first"]\n')
    out = run(path)
    assert out.exit_code == 2
    assert out.output.splitlines()[-1] == "1 passed, 0 failed, 1 error"


def test_nothing_to_test_is_an_input_error(tmp_path):
    assert run(str(tmp_path)).exit_code == 2
    (tmp_path / "p.altl").write_text("policy p\ntool a()\nrule r: called(a)\n", encoding="utf-8")
    out = run(str(tmp_path / "p.altl"))
    assert out.exit_code == 2 and "this policy has no tests: write them in" in out.output


def test_parse_is_pure_and_reports_every_problem():
    suite, problems = parse_tests('[[test]]\nname = 1\ncalls = 3\n\n[[test]]\nname = "b"\nlabel = "X"\n', "t.tests.toml")
    assert [str(p) for p in problems] == [
        "t.tests.toml:1: test 1: `name` must be a non-empty string",
        "t.tests.toml:1: test `test 1`: `calls` must be a list of { tool, args, result } tables",
        "t.tests.toml:1: test `test 1`: it expects nothing (give `pass`, `fail`, `violated_at`, `vacuous`, "
        "`score` or `label`)",
        "t.tests.toml:5: test `b`: give the trace either inline (`calls`) or as a file (`trace`)",
        "t.tests.toml:5: test `b`: `label` must be one of FULL, PARTIAL, NONE",
    ]
    assert suite.tests == ()


@pytest.mark.parametrize("score", ['"high"', "[1]", "1979-05-27", "{a = 1}"])
def test_a_score_that_is_not_a_number_is_a_problem_of_the_file(score):
    # `score = "high"` ended `policyc test` with exit 3 (found by a sweep written from the docs)
    from policyc.testing.spec import parse_tests
    suite, problems = parse_tests(f'[[test]]\nname = "t"\ncalls = [{{ tool = "a" }}]\nscore = {score}\n', "p.tests.toml")
    assert [p.message for p in problems] == ["test `t`: `score` must be a number from 0 to 1"]
