"""`policyc test`: a policy's unit tests, written beside it in `NAME.tests.toml`.

Each test gives a trace (inline calls, or a record of a trace file) and what the policy
must say about it: rules that pass or fail, the call at which a rule is violated, rules
that hold vacuously, the compliance score or label. `read_tests` reads a tests file
(`spec`), `run_suite` checks its policy and runs every test (`run`), `to_junit` writes the
results for CI (`junit`).
"""

from policyc.testing.junit import to_junit
from policyc.testing.run import SuiteResult, TestResult, resolve_paths, run_suite
from policyc.testing.spec import PolicyTest, TestProblem, TestSuite, parse_tests, read_tests

__all__ = ["PolicyTest", "SuiteResult", "TestProblem", "TestResult", "TestSuite", "parse_tests", "read_tests",
           "resolve_paths", "run_suite", "to_junit"]
