"""`policyc lint`: prove a policy consistent before it is deployed.

`lint_policy(policy, options) -> LintReport` runs the analyses below, in this order. Each is
one or more phases of independent units (`policyc.lint.units`), and every question a unit
asks is answered by the automata first and by Z3 only when they cannot
(`policyc.lint.questions`). A finding that says a trace exists carries it, replayed on the
reference evaluator; a finding that says none exists is exact (the automata decided it for
traces of every length) or says up to which length it holds; a question nothing could
decide is a finding of its own (L0009).

>>> from policyc.check import check_text
>>> src = 'policy p\\ntool a()\\nrule must: called(a)\\nrule never_a: never(a)\\n'
>>> report = lint_policy(check_text(src, "p.altl")[0], LintOptions(bound=4))
>>> [(f.code, str(f.strength)) for f in report.findings]
[('L0002', 'exact (automata)')]
"""

from __future__ import annotations

from dataclasses import dataclass, field

from policyc.automata import compile_policy
from policyc.diagnostics import Diagnostic, Severity
from policyc.ir.policy import Policy
from policyc.lint.context import LintContext, LintOptions
from policyc.lint.enforcement import SEVERITIES
from policyc.lint.findings import KINDS, Finding, FindingKind, kind_by_name
from policyc.lint.redundancy import REDUNDANT, TRIGGERS, VALID
from policyc.lint.run import Progress, default_jobs, run_phases
from policyc.lint.satisfiability import PHASES as SATISFIABILITY
from policyc.lint.tools import BUDGET, DEAD_TOOLS
from policyc.lint.units import Phase
from policyc.lint.weights import WEIGHTS
from policyc.recursion import deep_recursion

#: the analyses and their phases, in the order they run: later ones use what earlier ones found
ANALYSES = (
    ("unsatisfiable-rule", (SATISFIABILITY[0],)),
    ("vacuous-rule", (VALID,)),  # rules that hold on every trace: several analyses skip them
    ("conflict", (SATISFIABILITY[1],)),
    ("dead-tool", (DEAD_TOOLS,)),  # its compliant traces answer many later questions
    ("vacuous-rule", (TRIGGERS,)),
    ("redundant-rule", (REDUNDANT,)),
    ("unenforceable-severity", (SEVERITIES,)),
    ("budget", (BUDGET,)),
    ("layer-weights", (WEIGHTS,)),
)

#: analyses that run whatever is selected, because others need what they establish
_NEEDED = {"unsatisfiable-rule", "conflict", "undecided"}
_NEED_VALID = {"vacuous-rule", "redundant-rule", "unenforceable-severity", "layer-weights"}


@dataclass(frozen=True)
class LintReport:
    """The findings of one policy, with the time each analysis took and what it used."""

    policy: Policy
    findings: tuple[Finding, ...]
    timings: dict[str, float] = field(default_factory=dict)
    techniques: dict[str, tuple[str, ...]] = field(default_factory=dict)
    solver_checks: int = 0
    bound: int = 0
    #: what the gate's joint conflict search cannot settle (`CompiledPolicy.joint_limits`)
    gate_limits: dict[str, list[str]] = field(default_factory=dict)

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
            "gate_limits": self.gate_limits,
            "summary": {kind.slug: sum(1 for f in self.findings if f.code == code) for code, kind in KINDS.items()},
        }


def selected_phases(only: set[str] | None):
    """The phases to run for a selection of analyses (None: all), and the analyses reported."""
    if only is None:
        return [p for _, phases in ANALYSES for p in phases], {name for name, _ in ANALYSES} | {"undecided"}
    out: list[Phase] = []
    for name, phases in ANALYSES:
        wanted = name in only or name in _NEEDED or phases == (VALID,) and only & _NEED_VALID
        if wanted:
            out.extend(phases)
    return out, set(only) | {"undecided"}


@deep_recursion()
def lint_policy(policy: Policy, options: LintOptions | None = None, only: set[str] | None = None,
                progress: Progress | None = None) -> LintReport:
    """Run every analysis (or those named in `only`, with the ones they depend on).
    `options.jobs` processes share the work (0: every core); the report is the same."""
    options = options or LintOptions()
    ctx = LintContext(policy, options)
    phases, reported = selected_phases(only)
    jobs = options.jobs if options.jobs > 0 else default_jobs()
    found, timings, used, checks = run_phases(ctx, phases, reported, jobs, progress)
    kept = tuple(f for f in found if f.kind.slug in reported or f.code == "L0009")
    techniques = {k: tuple(sorted(v)) for k, v in used.items() if v}
    limits = compile_policy(policy).joint_limits() if "unenforceable-severity" in reported else {}
    return LintReport(policy, kept, timings, techniques, checks, options.bound, limits)


__all__ = ["ANALYSES", "Finding", "FindingKind", "KINDS", "LintContext", "LintOptions", "LintReport",
           "kind_by_name", "lint_policy"]
