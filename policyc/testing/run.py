"""Running a policy's unit tests: each test's trace scored (`score_trace`, the same report as
`policyc score`) and compared with what the test expects.

>>> from policyc.testing.spec import read_tests
>>> suite, _ = read_tests("examples/code_qa.tests.toml")
>>> result = run_suite(suite)
>>> [(r.test.name, r.status) for r in result.results][:2]
[('searches, reads, then answers', 'passed'), ('answers before searching (figure 1, trace b)', 'passed')]
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from policyc.inputs import is_dir, is_file
from policyc.ir.policy import Policy
from policyc.scoring import TraceReport
from policyc.tables import CompiledPolicy
from policyc.testing.spec import PolicyTest, TestProblem, TestSuite
from policyc.trace import Trace


@dataclass(frozen=True)
class TestResult:
    test: PolicyTest
    file: str
    mismatches: tuple[str, ...] = ()  # what differs from the expectation, one line each
    error: str | None = None  # why the test could not run (an input problem)
    report: TraceReport | None = None  # when the trace was scored

    @property
    def status(self) -> str:
        return "error" if self.error else "failed" if self.mismatches else "passed"

    @property
    def where(self) -> str:
        return f"{self.file}:{self.test.line}" if self.test.line else self.file


@dataclass(frozen=True)
class SuiteResult:
    file: str
    policy: str
    results: tuple[TestResult, ...] = ()
    problems: tuple[TestProblem, ...] = ()  # the suite could not run (or some tests were malformed)

    def count(self, status: str) -> int:
        return sum(1 for r in self.results if r.status == status)


def run_suite(suite: TestSuite, problems: list[TestProblem] | tuple = ()) -> SuiteResult:
    """Check the suite's policy and run every test against it."""
    from policyc.automata import compile_policy
    from policyc.check import check_file
    from policyc.diagnostics import has_errors, summary_line

    policy_path = str(suite.folder / suite.policy)
    policy, diagnostics = check_file(policy_path)
    if policy is None or has_errors(diagnostics):
        problem = TestProblem(suite.file, None, f"its policy `{policy_path}` does not check "
                                                f"({summary_line(diagnostics)}); run `policyc check {policy_path}`")
        return SuiteResult(suite.file, policy_path, (), (*problems, problem))
    compiled = compile_policy(policy)
    results = tuple(run_test(test, suite, compiled) for test in suite.tests)
    return SuiteResult(suite.file, policy_path, results, tuple(problems))


def run_test(test: PolicyTest, suite: TestSuite, compiled: CompiledPolicy) -> TestResult:
    """One test against a compiled policy (`policyc.automata.compile_policy`)."""
    from policyc.scoring import score_trace

    unknown = _unknown_rules(test, compiled.policy)
    if unknown:
        return TestResult(test, suite.file, error=unknown)
    trace, error = _trace_of(test, suite)
    if trace is None:
        return TestResult(test, suite.file, error=error or "no trace")
    report = score_trace(compiled, trace)
    bad_calls = [p for p in report.input_problems if p.severity == "error"]
    if bad_calls:
        p = bad_calls[0]
        return TestResult(test, suite.file, report=report,
                          error=f"call {p.call} (`{p.tool}`) does not match the policy: {p.message}")
    return TestResult(test, suite.file, tuple(compare(test, report)), report=report)


def _unknown_rules(test: PolicyTest, policy: Policy) -> str | None:
    from policyc.check.suggest import closest

    names = [r.name for r in policy.rules]
    for name in test.named_rules():
        if name not in names:
            best = closest(name, names)
            return f"no rule `{name}` in the policy" + (f" (did you mean `{best}`?)" if best else "")
    return None


def _trace_of(test: PolicyTest, suite: TestSuite) -> tuple[Trace | None, str | None]:
    from policyc.trace import TraceError, iter_traces, parse_trace
    from policyc.trace.errors import RecordProblem, field_path

    if test.calls is not None:
        record = {"tool_calls": [{"tool_name": c["tool"], "arguments": c.get("args", {}),
                                  "tool_result": c.get("result")} for c in test.calls]}
        try:
            return parse_trace(record, "record", origin=f"{suite.file}:{test.line}"), None
        except RecordProblem as problem:
            return None, f"`calls`: {field_path(problem.path) or 'the trace'}: {problem.message}"
    assert test.trace is not None  # a test has calls or a trace (spec.py)
    path = suite.folder / test.trace
    if not is_file(path):
        return None, f"trace file `{path}`: no such file"
    try:
        items = list(iter_traces(str(path), test.input_format))
    except ValueError as exc:  # an unknown format name
        return None, str(exc)
    if not items:
        return None, f"trace file `{path}` holds no record"
    if test.record is None:
        if len(items) > 1:
            return None, f"trace file `{path}` holds {len(items)} records: pick one with `record` (its id or number)"
        chosen = items[0]
    elif isinstance(test.record, int):
        if test.record > len(items):
            return None, f"trace file `{path}` holds {len(items)} records, not {test.record}"
        chosen = items[test.record - 1]
    else:
        named = next((t for t in items if not isinstance(t, TraceError) and t.id == test.record), None)
        if named is None:
            ids = [t.id for t in items if not isinstance(t, TraceError) and t.id]
            return None, f"no record `{test.record}` in `{path}` (its ids: {', '.join(ids) or 'none'})"
        chosen = named
    if isinstance(chosen, TraceError):
        return None, f"malformed record: {chosen}"
    return chosen, None


def _at(call: int | None) -> str:
    return "" if call is None else " from the start" if call == 0 else f" at call {call}"


def compare(test: PolicyTest, report: TraceReport) -> list[str]:
    """What the report says that the test did not expect, one line each."""
    verdicts = {c.name: c for c in report.constraints}
    out = []
    for name in test.expect_pass:
        c = verdicts[name]
        if not c.passed:
            out.append(f"rule `{name}`: expected to pass, but it failed{_at(c.violated_at)}: {c.detail}")
    for name in test.expect_fail:
        c = verdicts[name]
        if c.passed:
            out.append(f"rule `{name}`: expected to fail, but it passed: {c.detail}")
    for name, step in test.violated_at.items():
        c = verdicts[name]
        if c.passed:
            out.append(f"rule `{name}`: expected to be violated{_at(step)}, but it passed: {c.detail}")
        elif c.violated_at != step:
            out.append(f"rule `{name}`: expected to be violated{_at(step)}, but it was violated{_at(c.violated_at)}"
                       f": {c.detail}")
    for name in test.vacuous:
        c = verdicts[name]
        if not c.passed:
            out.append(f"rule `{name}`: expected to hold vacuously, but it failed{_at(c.violated_at)}: {c.detail}")
        elif not c.vacuous:
            out.append(f"rule `{name}`: expected to hold vacuously, but its trigger occurred: {c.detail}")
    if test.score is not None and round(report.compliance_score, 3) != round(test.score, 3):
        out.append(f"score: expected {test.score:.3f}, got {report.compliance_score:.3f}")
    if test.label is not None and report.compliance_label != test.label:
        out.append(f"label: expected {test.label}, got {report.compliance_label} "
                   f"(score {report.compliance_score:.3f})")
    return out


@dataclass
class Totals:
    passed: int = 0
    failed: int = 0
    errors: int = 0
    suites: list[SuiteResult] = field(default_factory=list)

    def add(self, suite: SuiteResult) -> None:
        self.suites.append(suite)
        self.passed += suite.count("passed")
        self.failed += suite.count("failed")
        self.errors += suite.count("error") + len(suite.problems)


def resolve_paths(paths) -> tuple[list[str], list[TestProblem]]:
    """Tests files for the paths given: a tests file as is, a policy's tests file beside it, a
    folder's every tests file below it (hidden folders skipped)."""
    from policyc.testing.spec import SUFFIX, tests_file_for

    files, problems = [], []
    for path in paths:
        p = Path(path)
        if is_dir(p):
            found = sorted(str(f) for f in p.rglob(f"*{SUFFIX}")
                           if is_file(f) and not any(part.startswith(".") for part in f.relative_to(p).parts))
            if not found:
                problems.append(TestProblem(path, None, f"no `*{SUFFIX}` file under this folder"))
            files.extend(found)
        elif path.endswith(".altl"):
            tests = tests_file_for(path)
            if is_file(tests):
                files.append(tests)
            else:
                problems.append(TestProblem(path, None, f"this policy has no tests: write them in `{tests}`"))
        else:
            files.append(path)
    return list(dict.fromkeys(files)), problems
