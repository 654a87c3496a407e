"""A corpus aggregate built a run at a time, in any order, on any number of processes.

`CorpusTally` accumulates what the paper's table 4 needs from each run: its score and label,
per rule whether it passed, held vacuously or applied, and the weight lost per layer. It keeps
nothing per run unless asked to keep the reports, so a corpus of any size takes the same
memory; tallies made apart (on other processes or machines) `merge` into one.

Sums are exact (`ExactSum`: floats added as integers over a common power-of-two
denominator), so the aggregate of a corpus is the same to the last bit however its runs were
split and in whatever order they were added.

>>> a, b = ExactSum(), ExactSum()
>>> for x in (0.1, 0.2, 0.3):
...     a.add(x)
>>> for x in (0.3, 0.2, 0.1):
...     b.add(x)
>>> a.value() == b.value() == 0.6
True
"""

from __future__ import annotations

from fractions import Fraction
from typing import Iterable, NamedTuple

from policyc.ir.policy import Policy
from policyc.scoring.models import ConstraintResult, CorpusReport, LayerStats, MalformedRecord, RuleStats, TraceReport

#: Every finite float is an integer multiple of 2**-1074.
_SCALE = 1074


class ExactSum:
    """The exact sum of floats (no rounding until `value`)."""

    __slots__ = ("total",)

    def __init__(self, total: int = 0):
        self.total = total

    def add(self, x: float) -> None:
        num, den = float(x).as_integer_ratio()
        self.total += num << (_SCALE - den.bit_length() + 1)

    def merge(self, other: "ExactSum") -> None:
        self.total += other.total

    def value(self, divisor: int = 1) -> float:
        """The sum divided by `divisor`, rounded once."""
        return float(Fraction(self.total, divisor << _SCALE))


class RuleTally(NamedTuple):
    name: str
    layer: str | None
    weight: float
    passed: bool
    vacuous: bool
    applicable: bool


class RunTally(NamedTuple):
    """What the aggregate needs of one run's report (small, to send between processes)."""

    score: float
    label: str
    rules: tuple[RuleTally, ...]
    problem_stages: tuple[str, ...]  # the stage of each input problem
    input_errors: bool  # some input problem is an error (not a warning)

    @classmethod
    def of(cls, report: TraceReport) -> "RunTally":
        return cls(report.compliance_score, report.compliance_label,
                   tuple(RuleTally(c.name, c.layer, c.weight, c.passed, c.vacuous, bool(c.applicable))
                         for c in report.constraints),
                   tuple(p.stage for p in report.input_problems), report.has_input_errors)


class CorpusTally:
    """Accumulates trace reports (or their `RunTally`) and malformed records into a CorpusReport."""

    def __init__(self, policy: Policy, keep_reports: bool = True):
        self.policy = policy
        self.keep_reports = keep_reports
        self.reports: list[TraceReport] = []
        self.malformed: list[MalformedRecord] = []
        self.count = 0
        self.score_sum = ExactSum()
        self.labels = {"FULL": 0, "PARTIAL": 0, "NONE": 0}
        self.rule_checks: dict[str, list[int]] = {r.name: [0, 0, 0, 0] for r in policy.rules}  # checks, passed,
        self.lost_by_layer: dict[str | None, ExactSum] = {}                                    # vacuous, applicable
        self.with_problems = 0
        self.with_errors = 0
        self.problems_by_stage: dict[str, int] = {}

    def add(self, item: TraceReport | MalformedRecord | object) -> None:
        """A run's report, or a malformed record (a `MalformedRecord` or a `TraceError`)."""
        if isinstance(item, TraceReport):  # read as `RunTally.of(item)` is, without making it
            self._add_run(item.compliance_score, item.compliance_label, item.constraints,
                          tuple(p.stage for p in item.input_problems), item.has_input_errors)
            if self.keep_reports:
                self.reports.append(item)
        elif isinstance(item, MalformedRecord):
            self.malformed.append(item)
        else:  # a TraceError
            self.malformed.append(MalformedRecord(**item.to_json()))  # type: ignore[attr-defined]

    def add_tally(self, run: RunTally) -> None:
        self._add_run(run.score, run.label, run.rules, run.problem_stages, run.input_errors)

    def _add_run(self, score: float, label: str, rules: Iterable[RuleTally | ConstraintResult],
                 problem_stages: tuple[str, ...], input_errors: bool) -> None:
        self.count += 1
        self.score_sum.add(score)
        self.labels[label] += 1
        for c in rules:
            stats = self.rule_checks.setdefault(c.name, [0, 0, 0, 0])
            stats[0] += 1
            stats[1] += c.passed
            stats[2] += c.vacuous
            stats[3] += bool(c.applicable)  # None (a rule that declares none) counts as not applying
            if not c.passed:
                self.lost_by_layer.setdefault(c.layer, ExactSum()).add(c.weight)
        if problem_stages:
            self.with_problems += 1
        self.with_errors += input_errors
        for stage in problem_stages:
            self.problems_by_stage[stage] = self.problems_by_stage.get(stage, 0) + 1

    def merge(self, other: "CorpusTally") -> None:
        """Add a tally of further runs (which come after this one's: kept reports and malformed
        records are appended in that order)."""
        self.count += other.count
        self.score_sum.merge(other.score_sum)
        for label, k in other.labels.items():
            self.labels[label] = self.labels.get(label, 0) + k
        for name, stats in other.rule_checks.items():
            mine = self.rule_checks.setdefault(name, [0, 0, 0, 0])
            for i, k in enumerate(stats):
                mine[i] += k
        for layer, lost in other.lost_by_layer.items():
            self.lost_by_layer.setdefault(layer, ExactSum()).merge(lost)
        self.with_problems += other.with_problems
        self.with_errors += other.with_errors
        for stage, k in other.problems_by_stage.items():
            self.problems_by_stage[stage] = self.problems_by_stage.get(stage, 0) + k
        self.malformed.extend(other.malformed)
        if self.keep_reports:
            self.reports.extend(other.reports)

    def state(self) -> dict:
        """Everything the tally holds but the kept reports, as JSON data (`from_state`)."""
        return {"count": self.count, "score_sum": str(self.score_sum.total), "labels": self.labels,
                "rule_checks": self.rule_checks,
                "lost_by_layer": [[layer, str(lost.total)] for layer, lost in self.lost_by_layer.items()],
                "with_problems": self.with_problems, "with_errors": self.with_errors,
                "problems_by_stage": self.problems_by_stage,
                "malformed": [m.model_dump(mode="json") for m in self.malformed]}

    @classmethod
    def from_state(cls, policy: Policy, state: dict) -> "CorpusTally":
        tally = cls(policy, keep_reports=False)
        tally.count = state["count"]
        tally.score_sum = ExactSum(int(state["score_sum"]))
        tally.labels = dict(state["labels"])
        tally.rule_checks = {name: list(v) for name, v in state["rule_checks"].items()}
        tally.lost_by_layer = {layer: ExactSum(int(total)) for layer, total in state["lost_by_layer"]}
        tally.with_problems, tally.with_errors = state["with_problems"], state["with_errors"]
        tally.problems_by_stage = dict(state["problems_by_stage"])
        tally.malformed = [MalformedRecord(**m) for m in state["malformed"]]
        return tally

    def report(self) -> CorpusReport:
        rules = [RuleStats(name=r.name, layer=r.layer, weight=r.weight, checks=s[0], passed=s[1], vacuous=s[2],
                           pass_rate=s[1] / s[0] if s[0] else None,
                           applicable=s[3] if r.applicability is not None else None)
                 for r in self.policy.rules for s in [self.rule_checks[r.name]]]
        return CorpusReport(
            policy=self.policy.name,
            records=self.count + len(self.malformed),
            traces=self.count,
            malformed_records=len(self.malformed),
            mean_score=self.score_sum.value(self.count) if self.count else None,
            labels=dict(self.labels),
            rules=rules,
            layers=self._layers(rules),
            vacuous_passes=sum(s.vacuous for s in rules),
            traces_with_input_problems=self.with_problems,
            input_problems=dict(sorted(self.problems_by_stage.items())),
            malformed=self.malformed,
            reports=self.reports,
        )

    def _layers(self, rules: list[RuleStats]) -> list[LayerStats]:
        order = list(dict.fromkeys([*sorted(l for l in (r.layer for r in rules) if l and l[:1] == "L"
                                            and l[1:].isdigit()), *(r.layer for r in rules)]))
        total_lost = ExactSum()
        for layer_lost in self.lost_by_layer.values():
            total_lost.merge(layer_lost)
        out = []
        for layer in order:
            mine = [r for r in rules if r.layer == layer]
            checks, passed = sum(r.checks for r in mine), sum(r.passed for r in mine)
            lost = self.lost_by_layer.get(layer)
            share = None if not total_lost.total else (
                0.0 if lost is None else float(Fraction(lost.total, total_lost.total)))
            out.append(LayerStats(layer=layer, rules=len(mine), checks=checks, passed=passed,
                                  pass_rate=passed / checks if checks else None, loss_share=share))
        return out
