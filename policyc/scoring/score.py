"""Definition 1: the compliance score of a trace, and its aggregate over a corpus.

    C(τ, G_P) = 1 − Σ_{violated} w_i / Σ_{all} w_i

A policy without rules scores 1. A rule that cannot be evaluated (an extern predicate without
a binding, or one that raised) counts as violated and says why in `error`. Extern predicates
are bound only by the caller (`externs=`): the scorer never imports what a policy names.

The scorer is handed the policy's compiled tables (`policyc.tables.CompiledPolicy`, made by
`policyc.automata.compile_policy` or read from an artifact): a rule with a table is decided
in one pass of its automaton, which also gives the step where its violation became certain;
the others by the reference evaluator, a violation then placed at the end of the trace.

>>> from policyc.automata import compile_policy
>>> from policyc.check import check_file
>>> from policyc.trace import load_traces
>>> compiled = compile_policy(check_file("examples/fan_out_fan_in.altl")[0])
>>> report = score_trace(compiled, load_traces("examples/traces/appendix_b.json").traces[0])
>>> report.compliance_score, report.compliance_label, report.constraints[1].detail
(1.0, 'FULL', '"tool_a" (call #1) before "tool_d" (call #5).')
"""

from __future__ import annotations

from typing import Callable, Iterable, Mapping

from policyc.grounding import BUILTIN_EXTRACTORS, EXTRACTOR_KEY, Extractor, with_extractor
from policyc.ir.data import ExternError
from policyc.ir.policy import Policy, Rule
from policyc.recursion import deep_recursion
from policyc.scoring.certain import certain_prefix
from policyc.scoring.details import describe
from policyc.scoring.externs import bind_externs
from policyc.scoring.models import (
    ConstraintResult,
    CorpusReport,
    InputProblem,
    LayerStats,
    MalformedRecord,
    RuleStats,
    TraceReport,
    label_of,
)
from policyc.scoring.vacuity import VACUOUS, vacuity
from policyc.semantics.positions import PositionEvaluator
from policyc.tables.policy import CompiledPolicy
from policyc.trace.conformance import check_trace
from policyc.trace.errors import TraceError
from policyc.trace.model import Trace

Externs = Mapping[str, Callable[..., object]]


def score_rule(rule: Rule, trace: Trace, engine: PositionEvaluator, compiled: CompiledPolicy) -> ConstraintResult:
    """One rule's verdict, detail, violation step and vacuity on one trace."""
    base = {"name": rule.name, "layer": rule.layer, "weight": rule.weight, "rule_class": compiled.rule_class(rule.name)}
    table = compiled.table(rule.name)
    try:
        if rule.applicability is not None:  # App: `eventually ρ` of `when ρ shall χ`, by the evaluator
            base["applicable"] = engine.holds(rule.applicability)
        # the rule's automaton decides it in one pass when it is compiled; the evaluator otherwise
        found = None if table is None else table.verdict_on(trace.calls, engine.root_env.externs)
        passed = engine.holds(rule.formula) if found is None else found[0]
        if passed:
            status, why = vacuity(rule.formula, engine)
            if status == VACUOUS:
                return ConstraintResult(**base, passed=True, detail=f"Holds vacuously: {why}.", vacuous=True)
            return ConstraintResult(**base, passed=True, detail=describe(rule, engine, True))
        if found is not None:
            step = len(trace) if found[1] is None else found[1]
        else:  # no table: where the evaluator can tell the violation became certain, else the end
            certain = certain_prefix(rule.formula, trace, engine.root_env.externs)
            step = len(trace) if certain is None else certain
        return ConstraintResult(**base, passed=False, detail=describe(rule, engine, False, step), violated_at=step,
                                violated_at_call=trace.calls_through(step))
    except (ExternError, RecursionError) as exc:
        problem = str(exc) if isinstance(exc, ExternError) else "the formula is nested too deeply to evaluate"
        return ConstraintResult(**base, passed=False, detail=f"Could not be evaluated: {problem}.", error=problem)


def bindings(policy: Policy, externs: Externs | None = None, extractor: Extractor | None = None) -> dict:
    """What a policy is evaluated with: its extern predicates' functions (the given ones,
    checked against the policy) and the entity extractor (the given one, one that travels
    with bindings already made, or the built-in one the policy names)."""
    given = dict(externs or {})
    carried = given.pop(EXTRACTOR_KEY, None)
    bound = bind_externs(policy.externs, given)
    return with_extractor(bound, extractor or carried or BUILTIN_EXTRACTORS[policy.grounding])


@deep_recursion()
def score_trace(compiled: CompiledPolicy, trace: Trace, *, externs: Externs | None = None,
                extractor: Extractor | None = None) -> TraceReport:
    """The compliance report of one complete trace against a compiled policy.

    `externs` binds extern predicates to Python functions (`policyc.scoring.externs`); an
    extern left unbound makes the rules that use it unevaluable (violated, with the reason).
    Nothing is imported: a policy's `from "module:function"` is only a name. `extractor`
    finds the entities of `entities(...)` and matches `outputs` (by default, the built-in one
    the policy names with `grounding`; see `policyc.grounding`). The trace is read as the
    policy's view of it: the agent's calls, plus the events the policy observes.
    """
    if not isinstance(compiled, CompiledPolicy):
        raise TypeError("score_trace takes a compiled policy: policyc.automata.compile_policy(policy), "
                        "or Monitor(...).compiled for an artifact")
    policy = compiled.policy
    trace = policy.view(trace)
    engine = PositionEvaluator(trace, bindings(policy, externs, extractor))
    constraints = [score_rule(rule, trace, engine, compiled) for rule in policy.rules]
    total = sum(c.weight for c in constraints)
    lost = sum(c.weight for c in constraints if not c.passed)
    score = 1.0 if total == 0 else 1.0 - lost / total
    failed = [c for c in constraints if not c.passed]
    if not failed:
        details = "All constraints satisfied."
    else:
        names = ", ".join(f"{c.name} ({c.layer})" if c.layer else c.name for c in failed)
        details = f"{len(failed)} of {len(constraints)} constraints violated: {names}."
    return TraceReport(
        compliance_score=score,
        compliance_label=label_of(score),
        details=details,
        tool_sequence=trace.tool_sequence,
        constraints=constraints,
        trace_id=trace.id,
        origin=trace.origin,
        input_problems=[InputProblem.from_finding(f, trace) for f in check_trace(trace, policy.tools)],
    )


class CorpusTally:
    """Accumulates trace reports and malformed records into a CorpusReport, one at a time."""

    def __init__(self, policy: Policy, keep_reports: bool = True):
        self.policy = policy
        self.keep_reports = keep_reports
        self.reports: list[TraceReport] = []
        self.malformed: list[MalformedRecord] = []
        self.count = 0
        self.score_sum = 0.0
        self.labels = {"FULL": 0, "PARTIAL": 0, "NONE": 0}
        self.rule_checks = {r.name: [0, 0, 0, 0] for r in policy.rules}  # checks, passed, vacuous, applicable
        self.lost_by_layer: dict[str | None, float] = {}
        self.with_problems = 0
        self.problems_by_stage: dict[str, int] = {}

    def add(self, item: TraceReport | TraceError) -> None:
        if isinstance(item, TraceError):
            self.malformed.append(MalformedRecord(**item.to_json()))
            return
        self.count += 1
        self.score_sum += item.compliance_score
        self.labels[item.compliance_label] += 1
        for c in item.constraints:
            stats = self.rule_checks.setdefault(c.name, [0, 0, 0, 0])
            stats[0] += 1
            stats[1] += c.passed
            stats[2] += c.vacuous
            stats[3] += bool(c.applicable)
            if not c.passed:
                self.lost_by_layer[c.layer] = self.lost_by_layer.get(c.layer, 0.0) + c.weight
        if item.input_problems:
            self.with_problems += 1
        for p in item.input_problems:
            self.problems_by_stage[p.stage] = self.problems_by_stage.get(p.stage, 0) + 1
        if self.keep_reports:
            self.reports.append(item)

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
            mean_score=self.score_sum / self.count if self.count else None,
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
        total_lost = sum(self.lost_by_layer.values())
        out = []
        for layer in order:
            mine = [r for r in rules if r.layer == layer]
            checks, passed = sum(r.checks for r in mine), sum(r.passed for r in mine)
            out.append(LayerStats(layer=layer, rules=len(mine), checks=checks, passed=passed,
                                  pass_rate=passed / checks if checks else None,
                                  loss_share=self.lost_by_layer.get(layer, 0.0) / total_lost if total_lost else None))
        return out


def score_corpus(compiled: CompiledPolicy, traces: Iterable[Trace | TraceError], *, externs: Externs | None = None,
                 keep_reports: bool = True, extractor: Extractor | None = None) -> CorpusReport:
    """Score every trace; malformed records (TraceError items) are counted and listed.

    >>> from policyc.automata import compile_policy
    >>> from policyc.check import check_file
    >>> from policyc.trace import iter_traces
    >>> compiled = compile_policy(check_file("examples/fan_out_fan_in.altl")[0])
    >>> corpus = score_corpus(compiled, iter_traces("examples/traces/appendix_b.json"))
    >>> corpus.traces, corpus.mean_score, [(l.layer, l.pass_rate) for l in corpus.layers][:2]
    (1, 1.0, [('L1', 1.0), ('L3', 1.0)])
    """
    bound = bindings(compiled.policy, externs, extractor)
    tally = CorpusTally(compiled.policy, keep_reports)
    for item in traces:
        tally.add(item if isinstance(item, TraceError) else score_trace(compiled, item, externs=bound))
    return tally.report()
