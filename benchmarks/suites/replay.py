"""Replaying call sequences through a gate: policyc's `Monitor` run or a hand-written gate,
driven the same way, timed in thread CPU time.

An agent proposes each call of the sequence; an allowed call (policyc's `executes`: allow or
warn) runs in the environment and is recorded with its result; a refused call is skipped and
the agent goes on with the next call of the sequence, as an agent that takes the refusal and
carries on would.
"""

from __future__ import annotations

import gc
import time
from dataclasses import dataclass, field
from typing import Any, Callable

from benchmarks.suites.common import Call, Environment


@dataclass
class Outcome:
    """What a gate did with one sequence."""

    executed: list[bool] = field(default_factory=list)
    refused_by: list[tuple[str, ...]] = field(default_factory=list)
    undecided: list[tuple[str, ...]] = field(default_factory=list)
    actions: list[str] = field(default_factory=list)
    propose_ns: list[int] = field(default_factory=list)
    whole_ns: list[int] = field(default_factory=list)
    start_ns: int = 0  # starting the run (policyc: `Monitor.start`, the request's conditions read)
    env: Environment | None = None

    @property
    def all_allowed(self) -> bool:
        return all(self.executed)


def replay(start: Callable[[str], Any], env: Environment, request: str, calls: tuple[Call, ...]) -> Outcome:
    """Propose, and if allowed execute and record, each call of `calls` in a new run."""
    clock = time.thread_time_ns
    out = Outcome(env=env)
    t = clock()
    run = start(request)
    out.start_ns = clock() - t
    for c in calls:
        t0 = clock()
        decision = run.propose(c.tool, c.args)
        t1 = clock()
        whole = t1 - t0
        if decision.executes:
            result, failed = env.call(c.tool, c.args)
            t2 = clock()
            run.record(c.tool, c.args, result, error=failed)
            whole += clock() - t2
        out.executed.append(decision.executes)
        out.refused_by.append(() if decision.executes else tuple(decision.rules))
        out.undecided.append(tuple(decision.undecided))
        out.actions.append(getattr(decision, "action", "allow" if decision.executes else "block"))
        out.propose_ns.append(t1 - t0)
        out.whole_ns.append(whole)
    return out


def replay_quietly(start: Callable[[str], Any], env: Environment, request: str, calls: tuple[Call, ...]) -> Outcome:
    """`replay` with the garbage collector run before and held off during the sequence, so
    neither gate is charged for the other's garbage."""
    gc.collect()
    gc.disable()
    try:
        return replay(start, env, request, calls)
    finally:
        gc.enable()
