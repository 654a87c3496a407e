"""`policyc lint`: prove a policy consistent before it is deployed.

`lint_policy(policy, options) -> LintReport` runs the analyses below, in this order, over
one incremental solver; each is a function from the shared `LintContext` to findings.

>>> from policyc.check import check_text
>>> src = 'policy p\\ntool a()\\nrule must: called(a)\\nrule never_a: never(a)\\n'
>>> report = lint_policy(check_text(src, "p.altl")[0], LintOptions(bound=4))
>>> [f.code for f in report.findings]
['L0002']
"""

from __future__ import annotations

from dataclasses import dataclass, field
from time import perf_counter

from policyc.diagnostics import Diagnostic, Severity
from policyc.ir.policy import Policy
from policyc.lint.context import LintContext, LintOptions
from policyc.lint.enforcement import check_severities
from policyc.lint.findings import KINDS, Finding, FindingKind, kind_by_name
from policyc.lint.redundancy import check_redundant_rules, check_vacuous_rules
from policyc.lint.satisfiability import check_conflicts, check_rules_satisfiable
from policyc.lint.tools import check_budget, check_dead_tools
from policyc.lint.weights import check_weights
from policyc.recursion import deep_recursion

#: the analyses, in order: later ones use what earlier ones found
ANALYSES = (
    ("unsatisfiable-rule", check_rules_satisfiable),
    ("conflict", check_conflicts),
    ("vacuous-rule", check_vacuous_rules),
    ("redundant-rule", check_redundant_rules),
    ("dead-tool", check_dead_tools),
    ("unenforceable-severity", check_severities),
    ("budget", check_budget),
    ("layer-weights", check_weights),
)


@dataclass(frozen=True)
class LintReport:
    """The findings of one policy, with the time each analysis took and what it used."""

    policy: Policy
    findings: tuple[Finding, ...]
    timings: dict[str, float] = field(default_factory=dict)
    techniques: dict[str, tuple[str, ...]] = field(default_factory=dict)
    solver_checks: int = 0
    bound: int = 0

    def diagnostics(self) -> list[Diagnostic]:
        return [f.to_diagnostic(self.policy) for f in self.findings]

    def at_or_above(self, level: Severity) -> list[Finding]:
        order = [Severity.NOTE, Severity.WARNING, Severity.ERROR]
        return [f for f in self.findings if order.index(f.level) >= order.index(level)]

    def to_json(self) -> dict:
        return {
            "policy": self.policy.name,
            "file": self.policy.sources[0] if self.policy.sources else None,
            "bound": self.bound,
            "findings": [f.to_json() for f in self.findings],
            "summary": {kind.slug: sum(1 for f in self.findings if f.code == code) for code, kind in KINDS.items()},
        }


@deep_recursion()
def lint_policy(policy: Policy, options: LintOptions | None = None, only: set[str] | None = None) -> LintReport:
    """Run every analysis (or those named in `only`, with the ones they depend on)."""
    ctx = LintContext(policy, options or LintOptions())
    findings: list[Finding] = []
    for name, analysis in ANALYSES:
        if only is not None and name not in only and name not in ("unsatisfiable-rule", "conflict"):
            continue
        start = perf_counter()
        found = analysis(ctx)
        ctx.timings[name] = ctx.timings.get(name, 0.0) + perf_counter() - start
        if only is None or name in only:
            findings.extend(found)
    techniques = {k: tuple(sorted(v)) for k, v in ctx.used.items()}
    return LintReport(policy, tuple(findings), dict(ctx.timings), techniques, ctx.solver.checks, ctx.options.bound)


__all__ = ["ANALYSES", "Finding", "FindingKind", "KINDS", "LintContext", "LintOptions", "LintReport",
           "kind_by_name", "lint_policy"]
