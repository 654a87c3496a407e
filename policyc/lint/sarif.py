"""Lint reports as SARIF 2.1.0, so CI systems and editors show the findings in place.

One run per invocation; `tool.driver.rules` lists every finding kind (so a result's
`ruleIndex` is stable), each result points at the primary rule's span, the other rules
involved are `relatedLocations`, and the evidence and strength go in `properties`. A policy
that does not check has no lint report: its checker diagnostics are results of their own
(`E0201`, ...), after the finding kinds in `rules`. Each rule's `help` names the page and
anchor of this repository's docs that explains it (`help_link`).

>>> from policyc.check import check_text
>>> from policyc.lint import LintOptions, lint_policy
>>> src = 'policy p\\ntool a()\\nrule must: called(a)\\nrule never_a: never(a)\\n'
>>> log = to_sarif([lint_policy(check_text(src, "p.altl")[0], LintOptions(bound=4))])
>>> log["version"], log["runs"][0]["results"][0]["ruleId"]
('2.1.0', 'L0002')
"""

from __future__ import annotations

from typing import Sequence

from policyc import __version__
from policyc.diagnostics import NO_SOURCE, NO_SPAN, Diagnostic, Span
from policyc.lint.explain import EXPLANATIONS
from policyc.lint.findings import KINDS

SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
_LEVEL = {"error": "error", "warning": "warning", "note": "note"}


def _location(span: Span, message: str | None = None, ident: int | None = None) -> dict:
    out: dict = {"physicalLocation": {
        "artifactLocation": {"uri": span.path},
        "region": {"startLine": span.line, "startColumn": span.column,
                   "endLine": span.end_line, "endColumn": span.end_column},
    }}
    if message:
        out["message"] = {"text": message}
    if ident is not None:
        out["id"] = ident
    return out


def help_link(code: str) -> str:
    """Where the docs explain a diagnostic code: a page of docs/ and the anchor of its heading
    (as Markdown renderers such as GitHub's make them).

    >>> help_link("L0002"), help_link("E0201"), help_link("W0207")
    ('docs/lint.md#l0002-conflict', 'docs/diagnostics.md#e0201', 'docs/diagnostics.md#w0207')
    """
    if code in KINDS:
        return f"docs/lint.md#{code.lower()}-{KINDS[code].slug}"
    return f"docs/diagnostics.md#{code.lower()}"


def _help(code: str, text: str) -> dict:
    link = help_link(code)
    return {"text": f"{text}\nSee {link}", "markdown": f"{text}\n\nSee [{link}]({link})."}


def _check_result(d: Diagnostic, index: int) -> dict:
    notes = list(d.notes) + ([f"help: {d.help}"] if d.help else [])
    result: dict = {"ruleId": d.code, "ruleIndex": index, "level": _LEVEL[d.severity.value],
                    "message": {"text": d.message + (f" ({d.help})" if d.help else "")}}
    if d.span is not None and d.span.source is not NO_SOURCE:
        result["locations"] = [_location(d.span)]
    related = [_location(l.span, l.message, i) for i, l in enumerate(d.labels) if l.span.source is not NO_SOURCE]
    if related:
        result["relatedLocations"] = related
    if notes:
        result["properties"] = {"notes": notes}
    return result


def to_sarif(reports: Sequence, check_diagnostics: Sequence[Diagnostic] = ()) -> dict:
    """A SARIF log of the findings of lint reports, and of the checker's diagnostics of the
    policies that could not be linted."""
    codes = list(KINDS)
    rules = [{
        "id": code,
        "name": "".join(part.capitalize() for part in kind.slug.split("-")),
        "shortDescription": {"text": kind.title},
        "fullDescription": {"text": EXPLANATIONS[code].text},
        "defaultConfiguration": {"level": _LEVEL[kind.severity.value]},
        "help": _help(code, EXPLANATIONS[code].text),
    } for code, kind in KINDS.items()]
    for d in check_diagnostics:
        if d.code not in codes:
            codes.append(d.code)
            rules.append({"id": d.code, "shortDescription": {"text": f"policyc check {d.code}"},
                          "defaultConfiguration": {"level": _LEVEL[d.severity.value]},
                          "help": _help(d.code, f"Diagnostic {d.code} of the policy checker.")})
    results = [_check_result(d, codes.index(d.code)) for d in check_diagnostics]
    for report in reports:
        spans = {r.name: r.span for r in report.policy.rules}
        for f in report.findings:
            result: dict = {
                "ruleId": f.code,
                "ruleIndex": codes.index(f.code),
                "level": _LEVEL[f.level.value],
                "message": {"text": f.message + (f" ({f.help})" if f.help else "")},
                "properties": {"rules": list(f.rules), "strength": str(f.strength),
                               "evidence": list(f.notes())},
            }
            primary = spans.get(f.rules[0]) if f.rules else None
            if primary is not None and primary is not NO_SPAN:
                result["locations"] = [_location(primary)]
            elif report.policy.sources:
                result["locations"] = [{"physicalLocation": {"artifactLocation": {"uri": report.policy.sources[0]}}}]
            related = [_location(spans[r], text, i) for i, (r, text) in enumerate(f.labels)
                       if r in spans and spans[r] is not NO_SPAN]
            if related:
                result["relatedLocations"] = related
            results.append(result)
    return {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "policyc", "version": __version__, "rules": rules}},
            "columnKind": "unicodeCodePoints",
            "results": results,
        }],
    }
