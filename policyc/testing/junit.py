"""Test results as JUnit XML, the format CI systems show as a test report.

One `<testsuite>` per tests file (named after it, with the policy as a property), one
`<testcase>` per test; a failed test has a `<failure>` whose text lists the mismatches, a
test that could not run an `<error>`, and a suite that could not run one `<error>` case.

>>> from policyc.testing.spec import read_tests
>>> from policyc.testing.run import run_suite
>>> xml = to_junit([run_suite(read_tests("examples/code_qa.tests.toml")[0])])
>>> xml.startswith('<?xml version="1.0" encoding="utf-8"?>\\n<testsuites name="policyc test"')
True
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from typing import Sequence

#: characters XML 1.0 cannot hold, even escaped (NUL and the other C0 controls, lone surrogates,
#: U+FFFE and U+FFFF): a test's name or message holding one is written with it as `\\uXXXX`
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def to_junit(suites: Sequence) -> str:
    root = ET.Element("testsuites", name="policyc test")
    totals = {"tests": 0, "failures": 0, "errors": 0}
    for suite in suites:
        cases = len(suite.results) + len(suite.problems)
        failures, errors = suite.count("failed"), suite.count("error") + len(suite.problems)
        element = ET.SubElement(root, "testsuite", name=suite.file, tests=str(cases), failures=str(failures),
                                errors=str(errors), skipped="0")
        props = ET.SubElement(element, "properties")
        ET.SubElement(props, "property", name="policy", value=suite.policy)
        for problem in suite.problems:
            case = ET.SubElement(element, "testcase", name="(tests file)", classname=suite.file)
            ET.SubElement(case, "error", message=problem.message).text = str(problem)
        for result in suite.results:
            case = ET.SubElement(element, "testcase", name=result.test.name, classname=suite.file)
            if result.test.line:
                case.set("file", suite.file)
                case.set("line", str(result.test.line))
            if result.status == "error":
                ET.SubElement(case, "error", message=result.error).text = f"{result.where}: {result.error}"
            elif result.status == "failed":
                ET.SubElement(case, "failure", message=result.mismatches[0]).text = "\n".join(result.mismatches)
            if result.report is not None:
                ET.SubElement(case, "system-out").text = " -> ".join(result.report.tool_sequence) or "(no calls)"
        totals["tests"] += cases
        totals["failures"] += failures
        totals["errors"] += errors
    for key, value in totals.items():
        root.set(key, str(value))
    ET.indent(root)
    text = ET.tostring(root, encoding="unicode")
    text = _NOT_XML.sub(lambda m: f"\\u{ord(m.group()):04x}", text)  # such a character is no markup's
    return '<?xml version="1.0" encoding="utf-8"?>\n' + text + "\n"
