"""Running the phases of a lint: in this process, or on several cores.

Each phase's units are independent (`policyc.lint.units`): with `jobs` > 1 they run in
worker processes forked from this one after the previous phase's facts are in, and their
results are taken in the order of the units, so the report is the same whatever the number
of processes. Workers are forked, not spawned: they start with the compiled automata and
the facts of this process, and nothing needs to be sent to them but the unit's number.
Where forking is not available, the units run here.

`progress(label, done, total)` is called as units finish (the command line draws a bar
with it when a lint takes more than a second).
"""

from __future__ import annotations

import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor
from time import perf_counter, process_time
from typing import Any, Callable, Sequence

from policyc.lint.budget import Budget, steps_text
from policyc.lint.context import LintContext
from policyc.lint.findings import Finding, undecided
from policyc.lint.questions import Asker
from policyc.lint.units import Phase, UnitResult
from policyc.recursion import deep_recursion

Progress = Callable[[str, int, int], None]


def run_unit(ctx: LintContext, phase: Phase, item, allowance: int) -> UnitResult:
    """One unit, with an asker of its own (its own solvers: nothing carries over from other
    units) and its allowance of the run's budget."""
    start = process_time()
    result = _asking(ctx, phase.unit, item, allowance)
    result.seconds = process_time() - start
    return result


def _asking(ctx: LintContext, work: Callable[[LintContext, Asker, Any], UnitResult], arg: Any,
            allowance: int) -> UnitResult:
    """`work(ctx, asker, arg)` with a fresh asker; its result counts the asker's techniques,
    solver checks and spending."""
    asker = Asker(ctx, ctx.compliant, Budget(allowance))
    with deep_recursion():
        result = work(ctx, asker, arg)
    result.used |= asker.used
    result.checks += asker.checks
    result.spent += asker.budget.spent
    return result


# The state a forked worker reads: set by the pool's initializer, in the worker only.
_WORKER: dict = {}


def _init_worker(ctx: LintContext, phase: Phase, items: list, allowance: int) -> None:
    _WORKER.update(ctx=ctx, phase=phase, items=items, allowance=allowance)


def _work(index: int) -> UnitResult:
    return run_unit(_WORKER["ctx"], _WORKER["phase"], _WORKER["items"][index], _WORKER["allowance"])


def can_fork() -> bool:
    return "fork" in multiprocessing.get_all_start_methods()


def run_phase(ctx: LintContext, phase: Phase, items: list, jobs: int = 1,
              progress: Progress | None = None) -> list[UnitResult]:
    """The results of a phase's units, in the order of `items`.

    Every unit may spend what is left of the run's budget when the phase starts; in the
    order of the items, once the units so far have spent it all, the later units of a phase
    that says what they ask (`Phase.question`) are not run, and each is an undecided finding
    instead. So the report does not depend on the number of processes: workers run every
    unit, and the results past that point are set aside the same way."""
    total = len(items)
    left = ctx.budget_left
    if progress:
        progress(phase.label, 0, total)
    results: list[UnitResult] = []
    if jobs <= 1 or total <= 1 or not can_fork():
        spent = 0
        for item in items:
            skip = spent >= left and phase.question is not None
            result = _skipped(ctx, phase, item) if skip else run_unit(ctx, phase, item, left)
            spent += result.spent
            results.append(result)
            if progress:
                progress(phase.label, len(results), total)
        return results
    context = multiprocessing.get_context("fork")
    workers = min(jobs, total)
    with ProcessPoolExecutor(workers, mp_context=context, initializer=_init_worker,
                             initargs=(ctx, phase, items, left)) as pool:
        for result in pool.map(_work, range(total), chunksize=1):
            results.append(result)
            if progress:
                progress(phase.label, len(results), total)
    spent = 0
    for i, item in enumerate(items):
        if spent >= left and phase.question is not None:
            results[i] = _skipped(ctx, phase, item)
        spent += results[i].spent
    return results


def _skipped(ctx: LintContext, phase: Phase, item) -> UnitResult:
    """A unit not run because the run's budget was spent: what it asks, not decided."""
    assert phase.question is not None
    question, rules = phase.question(ctx, item)
    reason = (f"the lint's budget ({steps_text(ctx.options.budget)} solver steps for the whole run, "
              f"`--budget`) was spent before this question")
    return UnitResult(findings=[undecided(question, rules, reason)], data=("undecided", reason))


def run_phases(ctx: LintContext, phases: Sequence[Phase], reported: set[str], jobs: int = 1,
               progress: Progress | None = None):
    """Run the phases in order; returns (findings of the reported analyses, wall seconds per
    analysis, techniques per analysis, solver checks)."""
    findings: list[Finding] = []
    timings: dict[str, float] = {}
    used: dict[str, set[str]] = {}
    checks = 0
    for phase in phases:
        start = perf_counter()
        items = phase.items(ctx)
        results = run_phase(ctx, phase, items, jobs, progress)
        ctx.budget_left = max(0, ctx.budget_left - sum(r.spent for r in results))
        if phase.merge is not None:
            merged = _asking(ctx, phase.merge, results, ctx.budget_left)
            ctx.budget_left = max(0, ctx.budget_left - merged.spent)
            results = [UnitResult(used=r.used, checks=r.checks) for r in results] + [merged]
        for result in results:
            ctx.apply(result.facts)
            for w in result.witnesses:
                if w is not None and w.confirmed and w not in ctx.compliant:
                    ctx.compliant.append(w)
            findings.extend(f for f in result.findings if phase.analysis in reported or f.code == "L0009")
            used.setdefault(phase.analysis, set()).update(result.used)
            checks += result.checks
        timings[phase.analysis] = timings.get(phase.analysis, 0.0) + perf_counter() - start
    return findings, timings, used, checks


def default_jobs() -> int:
    """The cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on every platform
        return os.cpu_count() or 1
