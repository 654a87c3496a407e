"""Reading a policy's unit tests: `NAME.tests.toml` beside `NAME.altl`.

    policy = "code_qa.altl"            # optional: the policy beside this file with its stem

    [[test]]
    name = "searches, reads, then answers"
    calls = [                          # the trace, inline: tool, args, result per call
        { tool = "search", args = { query = "request" }, result = ["src/api.py"] },
        { tool = "final_answer", args = { answer = "in src/api.py" } },
    ]
    pass = ["search_first"]            # rules that must hold
    fail = ["reads_a_file"]            # rules that must be violated
    violated_at = { reads_a_file = 2 } # the call after which a rule could no longer hold
    vacuous = []                       # rules that must hold without their trigger occurring
    score = 0.571                      # the compliance score (to 3 decimals) ...
    label = "PARTIAL"                  # ... and label: FULL, PARTIAL or NONE

    [[test]]
    name = "the shortcut run"
    trace = "traces/code_qa.jsonl"     # or a trace file, relative to this file, in any format
    record = "trace_b"                 # `policyc score` reads; its record by id or 1-based number
    input-format = "record"            # optional, as `policyc score --input-format`
    fail = ["search_first"]

A problem in the file is a `TestProblem` naming the file, the line of the test's `[[test]]`
header and the key; every problem of a file is reported, not only the first.

>>> suite, problems = parse_tests('[[test]]\\nname = "t"\\ncalls = [{ tool = "a" }]\\npass = ["r"]\\n', "p.tests.toml")
>>> problems, suite.tests[0].expect_pass, suite.policy
([], ('r',), 'p.altl')
>>> _, problems = parse_tests('[[test]]\\nname = "t"\\ncalls = []\\n', "p.tests.toml")
>>> print(problems[0])
p.tests.toml:1: test `t`: it expects nothing (give `pass`, `fail`, `violated_at`, `vacuous`, `score` or `label`)
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from policyc.inputs import InputError, read_input

SUFFIX = ".tests.toml"
LABELS = ("FULL", "PARTIAL", "NONE")
_KEYS = {"name", "calls", "trace", "record", "input-format", "pass", "fail", "violated_at", "vacuous", "score",
         "label"}
_EXPECTATIONS = ("pass", "fail", "violated_at", "vacuous", "score", "label")
_HEADER = re.compile(r"^[ \t]*\[\[[ \t]*test[ \t]*\]\]", re.M)


@dataclass(frozen=True, slots=True)
class TestProblem:
    """Something wrong with a tests file (not a failed test): `file:line: message`."""

    file: str
    line: int | None
    message: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.message}" if self.line else f"{self.file}: {self.message}"


@dataclass(frozen=True)
class PolicyTest:
    name: str
    line: int | None
    calls: tuple[dict, ...] | None = None  # inline calls: {tool, args, result}
    trace: str | None = None  # a trace file, as written (relative to the tests file)
    record: int | str | None = None
    input_format: str = "auto"
    expect_pass: tuple[str, ...] = ()
    expect_fail: tuple[str, ...] = ()
    violated_at: dict[str, int] = field(default_factory=dict)
    vacuous: tuple[str, ...] = ()
    score: float | None = None
    label: str | None = None

    def named_rules(self) -> list[str]:
        return [*self.expect_pass, *self.expect_fail, *self.violated_at, *self.vacuous]


@dataclass(frozen=True)
class TestSuite:
    file: str
    policy: str  # the policy's path, relative to the tests file's folder
    tests: tuple[PolicyTest, ...]

    @property
    def folder(self) -> Path:
        return Path(self.file).parent


def default_policy(tests_file: str) -> str:
    """`code_qa.tests.toml` -> `code_qa.altl`."""
    name = Path(tests_file).name
    return (name[: -len(SUFFIX)] if name.endswith(SUFFIX) else Path(name).stem) + ".altl"


def tests_file_for(policy: str) -> str:
    """`examples/code_qa.altl` -> `examples/code_qa.tests.toml`."""
    path = Path(policy)
    return str(path.with_name(path.stem + SUFFIX))


def read_tests(path: str) -> tuple[TestSuite | None, list[TestProblem]]:
    try:
        text = read_input(path).decode("utf-8")  # within the size cap, never waiting on a FIFO
    except InputError as exc:
        return None, [TestProblem(path, None, "no such file" if exc.reason == "does not exist" else exc.reason)]
    except UnicodeDecodeError as exc:
        return None, [TestProblem(path, None, f"cannot read the file ({exc})")]
    return parse_tests(text, path)


def _names(value: Any, key: str, where: str, problems: list, file: str, line: int | None) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        problems.append(TestProblem(file, line, f"{where}: `{key}` must be a list of rule names"))
        return ()
    return tuple(value)


def parse_tests(text: str, file: str) -> tuple[TestSuite | None, list[TestProblem]]:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        at = re.search(r"line (\d+)", str(exc))
        return None, [TestProblem(file, int(at.group(1)) if at else None, f"invalid TOML: {exc}")]
    problems: list[TestProblem] = []
    unknown = set(data) - {"policy", "test"}
    for key in sorted(unknown):
        problems.append(TestProblem(file, None, f"unknown key `{key}` (a tests file has `policy` and `[[test]]` tables)"))
    policy = data.get("policy", default_policy(file))
    if not isinstance(policy, str):
        problems.append(TestProblem(file, None, "`policy` must be a path to the policy, relative to this file"))
        policy = default_policy(file)
    raw_tests = data.get("test")
    if raw_tests is None:
        problems.append(TestProblem(file, None, "no tests: add `[[test]]` tables"))
        return None, problems
    if not isinstance(raw_tests, list) or not all(isinstance(t, dict) for t in raw_tests):
        problems.append(TestProblem(file, None, "`test` must be an array of tables: `[[test]]`"))
        return None, problems
    lines = [text[: m.start()].count("\n") + 1 for m in _HEADER.finditer(text)]
    tests = []
    seen: set[str] = set()
    for index, raw in enumerate(raw_tests):
        line = lines[index] if index < len(lines) and len(lines) == len(raw_tests) else None
        test = _parse_test(raw, index, line, file, problems)
        if test is not None:
            if test.name in seen:
                problems.append(TestProblem(file, line, f"test `{test.name}`: another test has this name"))
            seen.add(test.name)
            tests.append(test)
    return TestSuite(file, policy, tuple(tests)), problems


def _parse_test(raw: dict, index: int, line: int | None, file: str, problems: list) -> PolicyTest | None:
    before = len(problems)
    name = raw.get("name")
    if not isinstance(name, str) or not name.strip():
        problems.append(TestProblem(file, line, f"test {index + 1}: `name` must be a non-empty string"))
        name = f"test {index + 1}"
    where = f"test `{name}`"
    for key in sorted(set(raw) - _KEYS):
        problems.append(TestProblem(file, line, f"{where}: unknown key `{key}` (one of {', '.join(sorted(_KEYS))})"))
    calls, trace = raw.get("calls"), raw.get("trace")
    if (calls is None) == (trace is None):
        problems.append(TestProblem(file, line, f"{where}: give the trace either inline (`calls`) or as a file (`trace`)"))
    if calls is not None:
        calls = _calls(calls, where, file, line, problems)
    if trace is not None and not isinstance(trace, str):
        problems.append(TestProblem(file, line, f"{where}: `trace` must be a path, relative to this file"))
    record = raw.get("record")
    if record is not None and (isinstance(record, bool) or not isinstance(record, (int, str))
                               or isinstance(record, int) and record < 1):
        problems.append(TestProblem(file, line, f"{where}: `record` must be a record's id or its number, from 1"))
    if record is not None and trace is None:
        problems.append(TestProblem(file, line, f"{where}: `record` picks a record of a `trace` file"))
    input_format = raw.get("input-format", "auto")
    if not isinstance(input_format, str):
        problems.append(TestProblem(file, line, f"{where}: `input-format` must be a format name"))
    violated_at = raw.get("violated_at", {})
    if not isinstance(violated_at, dict) or not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0
                                                    for v in violated_at.values()):
        problems.append(TestProblem(file, line, f"{where}: `violated_at` must map rule names to call numbers "
                                                f"(1-based; 0: from the start)"))
        violated_at = {}
    score = raw.get("score")
    if score is not None and (isinstance(score, bool) or not isinstance(score, (int, float)) or not 0 <= score <= 1):
        problems.append(TestProblem(file, line, f"{where}: `score` must be a number from 0 to 1"))
        score = None  # the test is not made: the problem is reported instead
    label = raw.get("label")
    if label is not None and label not in LABELS:
        problems.append(TestProblem(file, line, f"{where}: `label` must be one of {', '.join(LABELS)}"))
    test = PolicyTest(
        name=name, line=line, calls=calls, trace=trace if isinstance(trace, str) else None, record=record,
        input_format=input_format if isinstance(input_format, str) else "auto",
        expect_pass=_names(raw.get("pass"), "pass", where, problems, file, line),
        expect_fail=_names(raw.get("fail"), "fail", where, problems, file, line),
        violated_at=dict(violated_at), vacuous=_names(raw.get("vacuous"), "vacuous", where, problems, file, line),
        score=None if score is None else float(score), label=label)
    if not any(key in raw for key in _EXPECTATIONS):
        problems.append(TestProblem(file, line, f"{where}: it expects nothing (give "
                                                f"{', '.join(f'`{k}`' for k in _EXPECTATIONS[:-1])} or `label`)"))
    both = set(test.expect_pass) & (set(test.expect_fail) | set(test.violated_at))
    if both:
        problems.append(TestProblem(file, line, f"{where}: `{sorted(both)[0]}` is expected both to pass and to fail"))
    return test if len(problems) == before else None


def _calls(value: Any, where: str, file: str, line: int | None, problems: list) -> tuple[dict, ...] | None:
    if not isinstance(value, list):
        problems.append(TestProblem(file, line, f"{where}: `calls` must be a list of {{ tool, args, result }} tables"))
        return None
    out = []
    for number, call in enumerate(value, start=1):
        if not isinstance(call, dict) or not isinstance(call.get("tool"), str):
            problems.append(TestProblem(file, line, f"{where}: call {number} needs `tool`, the tool's name"))
            continue
        extra = set(call) - {"tool", "args", "result"}
        if extra:
            problems.append(TestProblem(file, line, f"{where}: call {number} has unknown key `{sorted(extra)[0]}` "
                                                    f"(a call has `tool`, `args` and `result`)"))
        if not isinstance(call.get("args", {}), dict):
            problems.append(TestProblem(file, line, f"{where}: call {number}: `args` must be a table"))
        out.append(call)
    return tuple(out)
