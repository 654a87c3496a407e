"""Evidence from the methods policyc runs itself (table 1 of "Organising trajectory evidence"):

- the **rule checker** (`policyc score`): per rule, App and Viol counted on the suite, with the
  tasks they fall in: a suite claim;
- the **gate**: a gateable rule whose severity refuses the call, on a gated deployment, holds
  on every run of it: an exact claim, under the assumptions that every call is routed through
  the gate and that the gate keeps the run's history (and, for `block`, which lets an identical
  retry through, that none did: unresolved);
- the **outcome oracle**: the benchmark's verdict recorded with each run (τ²-bench's
  `reward`, 1 a success): a suite claim for the outcome, ¬F.

Each is computed from public outputs only: the scorer's `TraceReport`s, the compiled policy's
rule classes, the traces' metrics.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from policyc.assure.models import Assumption, Capability, Evidence, RuleRow
from policyc.assure.stats import CONFIDENCE, upper_bound
from policyc.ir.printer import show
from policyc.scoring.models import TraceReport
from policyc.scoring.vacuity import has_triggers
from policyc.tables.policy import CompiledPolicy
from policyc.trace.model import Trace

RULE_CHECKER, GATE, ORACLE = "rule checker", "gate", "outcome oracle"
OUTCOME, POLICY = "outcome", "policy"
#: the standing obligation of table 4's last row: what nobody wrote down, no method decides
OUTSIDE, EVERY_DEPLOYMENT = "requirements outside the policy", "all"


@dataclass(frozen=True)
class RunRecord:
    """One run of the suite as the ledger reads it."""

    id: str
    task: str
    reward: float | None
    applicable: frozenset[str]  # rules the run exercises
    violated: frozenset[str]
    has_task: bool = True       # the task came from `metrics.task_id` (not: the run is a task of its own)


def run_record(trace: Trace, report: TraceReport, index: int) -> RunRecord:
    """The run's id (the trace's, or its place), its task (`metrics.task_id`, else the run is a
    task of its own), the oracle's reward when recorded, and the scorer's verdicts. A rule
    applies to the run when its `when ρ` held (declared applicability), else when the run is
    not vacuous for it (some trigger of it occurred, or the rule has none to tell)."""
    run_id = trace.id or report.trace_id or trace.origin or f"run {index + 1}"
    task = trace.metrics.get("task_id")
    reward = trace.metrics.get("reward")
    number = reward if isinstance(reward, (int, float)) and not isinstance(reward, bool) else None
    known = isinstance(task, (str, int)) and not isinstance(task, bool)
    return RunRecord(
        id=str(run_id),
        task=str(task) if known else f"run:{run_id}",
        reward=float(number) if number is not None and number == number else None,
        applicable=frozenset(c.name for c in report.constraints
                             if (c.applicable if c.applicable is not None else not c.vacuous)),
        violated=frozenset(c.name for c in report.constraints if not c.passed),
        has_task=known,
    )


def applicability_text(compiled: CompiledPolicy, rule: str) -> str:
    """App of a rule: its `when ρ`, as `eventually ρ`; else the runs a trigger of it occurs in."""
    found = compiled.policy.rule(rule)
    if found.applicability is not None:
        return show(found.applicability)
    if has_triggers(found.formula):
        return "runs where a trigger of it occurs (vacuous runs left out)"
    return "every run (no trigger to tell a vacuous run)"


def rule_rows(compiled: CompiledPolicy, runs: Sequence[RunRecord], confidence: float = CONFIDENCE) -> list[RuleRow]:
    """Table 2: per rule, the runs it applies to and those violating it, with the upper bound
    on its violation rate counted over tasks (and, for comparison, over runs)."""
    rows = []
    share = (1.0 - confidence) / max(1, len(compiled.policy.rules))
    for rule in compiled.policy.rules:
        applied = [r for r in runs if rule.name in r.applicable]
        violating = [r for r in applied if rule.name in r.violated]
        tasks = {r.task for r in applied}
        bad_tasks = {r.task for r in violating}
        rows.append(RuleRow(
            rule=rule.name, requirement=rule.description, applicability=applicability_text(compiled, rule.name),
            applicable=len(applied), violated=len(violating), tasks=len(tasks), violating_tasks=len(bad_tasks),
            bound=upper_bound(len(bad_tasks), len(tasks), confidence),
            bound_over_runs=upper_bound(len(violating), len(applied), confidence),
            bound_split=upper_bound(len(bad_tasks), len(tasks), 1.0 - share)))
    return rows


def rule_checker_evidence(compiled: CompiledPolicy, runs: Sequence[RunRecord], deployment: str, suite: str,
                          distribution: str | None = None, lineage: Sequence[str] = (),
                          confidence: float = CONFIDENCE, resolved: Sequence[str] = ()) -> list[Evidence]:
    """A suite claim per rule: App and Viol on the suite, over its runs and tasks."""
    assumptions = [Assumption(name="audited-rules", note="the rules are the requirements, as audited"),
                   Assumption(name="checker-correct", note="the checker implements the rules' semantics")]
    if distribution is not None:
        assumptions.append(Assumption(name="sampled-tasks",
                                      note=f"the suite's tasks are independent draws from {distribution}"))
    assumptions = _resolve(assumptions, resolved)
    out = []
    for row in rule_rows(compiled, runs, confidence):
        out.append(Evidence(
            method=RULE_CHECKER, deployment=deployment, target=row.rule, claim="suite", interface="complete log",
            suite=suite, distribution=distribution, runs=len(runs), tasks=row.tasks, applicable=row.applicable,
            violations=row.violated, violating_tasks=row.violating_tasks, assumptions=assumptions,
            lineage=["policyc score", *lineage],
            flagged=[r.id for r in runs if row.rule in r.violated]))
    return out


def rule_checker_capability(compiled: CompiledPolicy, distribution: str | None = None) -> Capability:
    """The rule checker reads any deployment's complete logs, for each of the policy's rules."""
    return Capability(method=RULE_CHECKER, targets=[r.name for r in compiled.policy.rules], claim="suite",
                      distribution=distribution)


def gate_evidence(compiled: CompiledPolicy, deployment: str, resolved: Sequence[str] = ()) -> list[Evidence]:
    """An exact claim for each gateable rule that refuses, on the gated deployment `deployment`.
    `resolved` names assumptions checked to hold (by name)."""
    out = []
    for rule in compiled.policy.rules:
        if compiled.rule_class(rule.name) != "gateable" or not rule.severity.can_block:
            continue
        assumptions = [
            Assumption(name="routing", note="every call of the deployment goes through the gate"),
            Assumption(name="history", note="the gate keeps the run's history (snapshots restored after a crash)"),
        ]
        if rule.severity.kind == "block":
            assumptions.append(Assumption(
                name="no-override", status="unresolved",
                note="severity `block` lets an identical retry of a refused call run (a deliberate override)"))
        assumptions = _resolve(assumptions, resolved)
        out.append(Evidence(method=GATE, deployment=deployment, target=rule.name, claim="exact",
                            interface="proposed call and the run's history",
                            value=f"refused before execution (severity {rule.severity})", assumptions=assumptions,
                            lineage=["policyc compile", f"rule class: gateable, severity {rule.severity}"]))
    return out


def _resolve(assumptions: list[Assumption], resolved: Sequence[str]) -> list[Assumption]:
    """The assumptions, those named in `resolved` checked to hold."""
    return [a.model_copy(update={"status": "holds"}) if a.name in resolved else a for a in assumptions]


def oracle_evidence(runs: Sequence[RunRecord], deployment: str, suite: str, distribution: str | None = None,
                    lineage: Sequence[str] = (), resolved: Sequence[str] = ()) -> Evidence | None:
    """The outcome oracle's suite claim for ¬F: runs with a recorded reward below 1 fail.
    None when no run records a reward."""
    judged = [r for r in runs if r.reward is not None]
    if not judged:
        return None
    failed = [r for r in judged if r.reward is not None and r.reward < 1.0]
    tasks = {r.task for r in judged}
    return Evidence(method=ORACLE, deployment=deployment, target=OUTCOME, claim="suite", interface="final state",
                    suite=suite, distribution=distribution, runs=len(runs), tasks=len(tasks), applicable=len(judged),
                    violations=len(failed), violating_tasks=len({r.task for r in failed}),
                    assumptions=_resolve([Assumption(name="reward-verdict",
                                                     note="the recorded reward is the oracle's verdict (1: success)")],
                                         resolved),
                    lineage=["metrics.reward", *lineage], flagged=[r.id for r in failed])
