"""Units of lint work and the phases they run in.

An analysis is one or more phases; a phase is a list of independent units (one per rule,
per tool, ...), each a pure function of the context's facts so far, and an optional merge
that reads the units' results in order (and may ask further questions) once all are done.
`policyc.lint.run` runs the phases in order, the units of a phase in this process or in
several.

>>> UnitResult().findings
[]
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from policyc.lint.findings import Finding
from policyc.smt import WitnessTrace


@dataclass
class UnitResult:
    """What one unit found: findings, facts for later phases (`("valid", rule)`,
    `("unsatisfiable", rule)`, `("vacuous", rule)`, `("policy", True/False/None)`), compliant
    traces to share, data its phase's merge reads, and what it used."""

    findings: list[Finding] = field(default_factory=list)
    facts: list[tuple[str, Any]] = field(default_factory=list)
    witnesses: list[WitnessTrace] = field(default_factory=list)
    data: Any = None
    used: set[str] = field(default_factory=set)
    checks: int = 0
    spent: int = 0  # solver steps, a joint state counting as `policyc.lint.budget.STATE_STEPS`
    seconds: float = 0.0


@dataclass(frozen=True)
class Phase:
    """`analysis`: the slug of the analysis it belongs to; `items(ctx)`: its units' items;
    `unit(ctx, asker, item)`; `merge(ctx, asker, results)`: findings from the results in order;
    `question(ctx, item)`: what a unit asks, and the rules involved (a unit the run's budget
    leaves no room for is reported as that question, not decided; None: the units are
    cheap and always run)."""

    analysis: str
    label: str
    items: Callable[[Any], list]
    unit: Callable[[Any, Any, Any], UnitResult]
    merge: Callable[[Any, Any, list[UnitResult]], UnitResult] | None = None
    question: Callable[[Any, Any], tuple[str, tuple[str, ...]]] | None = None
