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

from dataclasses import replace
from typing import Any, Callable, Iterable, Mapping, cast

from policyc.grounding import BUILTIN_EXTRACTORS, EXTRACTOR_KEY, Extractor, with_extractor
from policyc.ir.data import ExternError
from policyc.ir.policy import Policy, Rule
from policyc.recursion import deep_recursion
from policyc.scoring.certain import certain_prefix
from policyc.scoring.details import Context, DetailPlan
from policyc.scoring.externs import bind_externs
from policyc.scoring.models import ConstraintResult, CorpusReport, InputProblem, TraceReport, label_of, trusted
from policyc.scoring.tally import CorpusTally, RuleTally, RunTally
from policyc.scoring.vacuity import VACUOUS, has_triggers, vacuity
from policyc.semantics.positions import PositionEvaluator
from policyc.tables.context import Constants
from policyc.tables.policy import CompiledPolicy
from policyc.scoring.stepping import PlainRun, StepPlan, ToolCodes
from policyc.trace.conformance import ConformanceFinding, Signatures, check_result, check_trace
from policyc.trace.errors import TraceError
from policyc.trace.model import Trace
from policyc.trace.results import ResultShapes

Externs = Mapping[str, Callable[..., object]]


def score_rule(rule: Rule, trace: Trace, engine: PositionEvaluator, compiled: CompiledPolicy) -> ConstraintResult:
    """One rule's verdict, detail, violation step and vacuity on one trace."""
    return RulePlan(rule, compiled).score(trace, engine)


class RulePlan:
    """What scoring one rule needs that does not depend on the trace, worked out once."""

    __slots__ = ("rule", "base", "table", "steps", "plain", "details", "fields", "given", "triggers")

    def __init__(self, rule: Rule, compiled: CompiledPolicy, codes: ToolCodes | None = None):
        self.rule = rule
        self.base: dict[str, Any] = {"name": rule.name, "layer": rule.layer, "weight": rule.weight,
                     "rule_class": compiled.rule_class(rule.name)}
        self.table = compiled.table(rule.name)
        self.steps = StepPlan.of(self.table) if self.table is not None else None
        self.plain = PlainRun.of(self.steps, codes) if self.steps is not None and codes is not None else None
        self.details = DetailPlan(rule)
        # every field of the rule's reports, in order: its own, validated once, and the defaults
        self.fields = dict(ConstraintResult(**self.base, passed=True, detail="").__dict__)
        # the fields a report of each outcome sets, as the fields given to its constructor
        told = (*self.base, *(("applicable",) if rule.applicability is not None else ()), "passed", "detail")
        # (sets, never changed: a set is copied faster than a frozenset into each report's)
        self.given = {PASSED: set(told), VACUOUS: {*told, "vacuous"},
                      VIOLATED: {*told, "violated_at", "violated_at_call"}, ERROR: {*told, "error"}}
        self.triggers = has_triggers(rule.formula)  # without any, a rule is never vacuous

    def verdict(self, trace: Trace, engine: PositionEvaluator,
                codes: bytes | None = None) -> tuple[bool, int | None] | None:
        """(holds, length of the shortest bad prefix) from the rule's automaton; None when it has
        none or cannot read the trace (the evaluator decides then). `codes`: the trace's calls
        as `ToolCodes` (read by a rule of plain letters)."""
        if self.plain is not None and codes is not None:
            return self.plain.verdict_on(codes)
        externs = engine.root_env.externs
        constants = Constants.of_trace(trace)
        env_globals = engine.root_env.globals  # the trace's, always given by the engine
        sources = env_globals.history if env_globals is not None else None
        if self.steps is not None:
            return self.steps.verdict_on(trace.calls, engine.positions_of, externs, constants, sources)
        return None if self.table is None else self.table.verdict_on(trace.calls, externs, constants, sources)

    def tally(self, trace: Trace, engine: PositionEvaluator, codes: bytes | None = None) -> RuleTally:
        """What the aggregate needs of the rule's verdict (`score` without its detail)."""
        rule, base = self.rule, self.base
        applicable = False
        try:
            if rule.applicability is not None:
                applicable = engine.holds(rule.applicability)
            found = self.verdict(trace, engine, codes)
            passed = engine.holds(rule.formula) if found is None else found[0]
            vacuous = passed and self.triggers and vacuity(rule.formula, engine)[0] == VACUOUS
        except (ExternError, RecursionError):
            passed = vacuous = False
        return RuleTally(base["name"], base["layer"], base["weight"], passed, vacuous, applicable)

    def score(self, trace: Trace, engine: PositionEvaluator, codes: bytes | None = None,
              contexts: tuple[Context, Context] | None = None) -> ConstraintResult:
        """The rule's report on the trace; `contexts`: the trace's detail contexts of a violation
        and of a pass (`details.Context`), made once for its rules."""
        rule = self.rule
        if contexts is None:
            contexts = (Context(engine, False), Context(engine, True))
        values = self.fields.copy()  # the report's fields, in order, each of its type (so not validated again)
        given = self.given
        try:
            if rule.applicability is not None:  # App: `eventually ρ` of `when ρ shall χ`, by the evaluator
                values["applicable"] = bool(engine.holds(rule.applicability))
            found = self.verdict(trace, engine, codes)
            passed = engine.holds(rule.formula) if found is None else found[0]
            if passed:
                values["passed"] = True
                if self.triggers:
                    status, why = vacuity(rule.formula, engine)
                    if status == VACUOUS:
                        values["detail"] = f"Holds vacuously: {why}."
                        values["vacuous"] = True
                        return trusted(ConstraintResult, values, given[VACUOUS])
                values["detail"] = self.details.write(contexts[1])
                return trusted(ConstraintResult, values, given[PASSED])
            if found is not None:
                step = len(trace) if found[1] is None else found[1]
            else:  # no table: where the evaluator can tell the violation became certain, else the end
                certain = certain_prefix(rule.formula, trace, engine.root_env.externs)
                step = len(trace) if certain is None else certain
            values["passed"] = False
            values["detail"] = self.details.write(contexts[0], step, found is not None and found[1] is not None)
            values["violated_at"] = step
            values["violated_at_call"] = trace.calls_through(step)
            return trusted(ConstraintResult, values, given[VIOLATED])
        except (ExternError, RecursionError) as exc:
            problem = str(exc) if isinstance(exc, ExternError) else "the formula is nested too deeply to evaluate"
            values = self.fields | {"applicable": values["applicable"], "passed": False,
                                    "detail": f"Could not be evaluated: {problem}.", "error": problem}
            # `applicable` was given when its question was answered before the failure
            told = given[ERROR] if values["applicable"] is not None else given[ERROR] - {"applicable"}
            return trusted(ConstraintResult, values, told)


#: Every field of a trace's report (each is given), and the types of its id and origin
REPORT_FIELDS, TEXT = set(TraceReport.model_fields), (str, type(None))

#: What became of a rule on a run, as its report's fields tell it (`RulePlan.given`)
PASSED, VIOLATED, ERROR = "passed", "violated", "error"


def bindings(policy: Policy, externs: Externs | None = None, extractor: Extractor | None = None) -> dict:
    """What a policy is evaluated with: its extern predicates' functions (the given ones,
    checked against the policy) and the entity extractor (the given one, one that travels
    with bindings already made, or the built-in one the policy names)."""
    given = dict(externs or {})
    carried = cast(Extractor | None, given.pop(EXTRACTOR_KEY, None))  # an extractor travels under its key
    bound = bind_externs(policy.externs, given)
    return with_extractor(bound, extractor or carried or BUILTIN_EXTRACTORS[policy.grounding])


class Scorer:
    """A compiled policy made ready to score many traces: its extern bindings, its tools'
    signatures and each rule's plan are worked out once, not per trace. A rule that is one
    automaton is stepped only at the calls that can move it (`policyc.scoring.stepping`): one
    of plain letters over the trace's tool codes (a byte per call, made once per trace), from
    which one `bytes.translate` keeps its calls. Details are written from the shape each
    rule's describer read once; they and vacuity find a tool's calls in the trace's index by
    tool, and other events in the positions engine's bit vectors (one per event, shared by
    every rule that names it). A rule's report is made of its fields known good, without
    validating them again (`models.trusted`). Nothing is memoised across traces: memory does
    not grow with the corpus.

    >>> from policyc.automata import compile_policy
    >>> from policyc.check import check_file
    >>> from policyc.trace import load_traces
    >>> scorer = Scorer(compile_policy(check_file("examples/fan_out_fan_in.altl")[0]))
    >>> scorer.score(load_traces("examples/traces/appendix_b.json").traces[0]).compliance_label
    'FULL'
    """

    def __init__(self, compiled: CompiledPolicy, *, externs: Externs | None = None,
                 extractor: Extractor | None = None):
        if not isinstance(compiled, CompiledPolicy):
            raise TypeError("score_trace takes a compiled policy: policyc.automata.compile_policy(policy), "
                            "or Monitor(...).compiled for an artifact")
        self.compiled = compiled
        self.policy = compiled.policy
        self.bound = bindings(self.policy, externs, extractor)
        self.signatures = Signatures(self.policy.tools)
        self.shapes = ResultShapes(self.policy.tools, self.signatures)
        self.codes = tool_codes(compiled)
        self.plans = [RulePlan(rule, compiled, self.codes) for rule in self.policy.rules]
        if not any(plan.plain for plan in self.plans):
            self.codes = None  # no rule reads the calls as codes
        self.total_weight = sum(plan.fields["weight"] for plan in self.plans)  # as a report sums them

    def _problems(self, trace: Trace, misfits: list[int]) -> list[ConformanceFinding]:
        """The shaped trace's input problems, as `check_trace` finds them, in its order (a
        call's own problems, then its result's): the results are not checked again, as
        shaping told which have no reading of their type (`misfits`, indexes in `calls`)."""
        tools = self.policy.tools
        found = check_trace(trace, tools, results=False, signatures=self.signatures)
        if misfits:
            calls = trace.calls
            wrong = [f for i in misfits for f in check_result(calls[i].name, calls[i].result, tools, calls[i].position)]
            found = sorted(found + wrong, key=lambda f: -1 if f.position is None else f.position)  # stable
        return gated_problems(trace, found)

    @deep_recursion()
    def tally(self, trace: Trace) -> RunTally:
        """What the corpus aggregate needs of a trace's report, without the report: the same
        verdicts, score and input problems, no details (for corpora only aggregated)."""
        misfits: list[int] = []
        trace = self.shapes.trace(self.policy.view(trace), misfits)
        engine = PositionEvaluator(trace, self.bound)
        codes = None if self.codes is None else self.codes.of(trace.tool_sequence)
        rules = tuple(plan.tally(trace, engine, codes) for plan in self.plans)
        total = sum(r.weight for r in rules)
        lost = sum(r.weight for r in rules if not r.passed)
        score = 1.0 if total == 0 else 1.0 - lost / total
        problems = self._problems(trace, misfits)
        return RunTally(score, label_of(score), rules, tuple(p.stage for p in problems),
                        any(p.severity == "error" for p in problems))

    @deep_recursion()
    def score(self, trace: Trace) -> TraceReport:
        """The compliance report of one complete trace (see `score_trace`)."""
        misfits: list[int] = []
        trace = self.shapes.trace(self.policy.view(trace), misfits)
        engine = PositionEvaluator(trace, self.bound)
        tools = trace.tool_sequence
        codes = None if self.codes is None else self.codes.of(tools)
        contexts = (Context(engine, False), Context(engine, True))
        constraints = [plan.score(trace, engine, codes, contexts) for plan in self.plans]
        total = self.total_weight
        failed = [c for c in constraints if not c.passed]
        lost = sum(c.weight for c in failed)
        score = 1.0 if total == 0 else 1.0 - lost / total
        if not failed:
            details = "All constraints satisfied."
        else:
            names = ", ".join(f"{c.name} ({c.layer})" if c.layer else c.name for c in failed)
            details = f"{len(failed)} of {len(constraints)} constraints violated: {names}."
        problems = self._problems(trace, misfits)
        values = {
            "compliance_score": score,
            "compliance_label": label_of(score),
            "details": details,
            "tool_sequence": tools,
            "constraints": constraints,
            "trace_id": trace.id,
            "origin": trace.origin,
            "input_problems": [InputProblem.from_finding(f, trace) for f in problems],
        }
        if type(trace.id) in TEXT and type(trace.origin) in TEXT:  # each value of its field's type
            return trusted(TraceReport, values, REPORT_FIELDS)
        return TraceReport(**values)  # a trace made in code with an id of another type: validation says so


def tool_codes(compiled: CompiledPolicy) -> ToolCodes | None:
    """A byte per tool the rules' automata name; None when there are too many for a byte each."""
    tools = [tool for rule in compiled.policy.rules for table in [compiled.table(rule.name)]
             if table is not None and table.dfa is not None for tool in table.dfa.alphabet.tools]
    tools = list(dict.fromkeys(tools))
    return ToolCodes(tools) if len(tools) <= ToolCodes.LIMIT else None


def gated_problems(trace: Trace, problems: list) -> list:
    """The signature problems of a trace, those of calls a gate judged and let run as warnings:
    a gate's own record (the MCP gateway's lists its `decisions`, each with its `step`, `tool`
    and `action`) holds such calls knowingly, so they are findings about the run, not a trace
    that does not fit the policy."""
    decisions = trace.metrics.get("decisions") if problems else None
    if not isinstance(decisions, list):
        return problems
    ran = {d["step"]: d.get("tool") for d in decisions
           if isinstance(d, dict) and d.get("action") in ("allow", "warn") and "error" not in d
           and type(d.get("step")) is int}
    out = []
    for p in problems:
        position = p.position
        if p.severity == "error" and position is not None and position < len(trace.calls) \
                and ran.get(position, None) == trace.calls[position].name:
            p = replace(p, severity="warning", message=f"{p.message} (the gate let it run)")
        out.append(p)
    return out


def score_trace(compiled: CompiledPolicy, trace: Trace, *, externs: Externs | None = None,
                extractor: Extractor | None = None) -> TraceReport:
    """The compliance report of one complete trace against a compiled policy.

    `externs` binds extern predicates to Python functions (`policyc.scoring.externs`); an
    extern left unbound makes the rules that use it unevaluable (violated, with the reason).
    Nothing is imported: a policy's `from "module:function"` is only a name. `extractor`
    finds the entities of `entities(...)` and matches `outputs` (by default, the built-in one
    the policy names with `grounding`; see `policyc.grounding`). The trace is read as the
    policy's view of it: the agent's calls, plus the events the policy observes. To score
    many traces, make one `Scorer` and call its `score`.
    """
    return Scorer(compiled, externs=externs, extractor=extractor).score(trace)


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
    scorer = Scorer(compiled, externs=externs, extractor=extractor)
    tally = CorpusTally(compiled.policy, keep_reports)
    for item in traces:
        tally.add(item if isinstance(item, TraceError) else scorer.score(item))
    return tally.report()
