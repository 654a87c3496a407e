"""Helpers shared by the runtime tests: a monitor from policy text, and scripted runs."""

from __future__ import annotations

from policyc.artifact.build import build_artifact
from policyc.check import check_text
from policyc.diagnostics import render_text
from policyc.ir.data import CallArgs
from policyc.runtime import Monitor

TOOLS = """
tool a(n: int?) -> any
tool b(n: int?) -> any
tool c(n: int?) -> any
terminal tool done(answer: str?)
"""

#: The integration tests' policy (LangGraph, OpenAI Agents, smolagents): fetch a record, then
#: process it.
FETCH_TOOLS = """
tool fetch(id: int) -> { value: int }
tool process(value: int) -> int
"""
FETCH_RULES = """
rule fetch_first layer L3 weight 2 severity block message "Fetch the record before processing it.":
    always (process -> once fetch)
rule processes layer L5 weight 1:
    called(process)
"""


class Text(str):
    """Text of a subclass of str: a value no check may tell by its Python type at a glance."""


class Count(int):
    """A number of a subclass of int, likewise."""


def policy_of(text: str, tools: str = TOOLS):
    policy, diagnostics = check_text(tools + text, "test.altl")
    assert policy is not None, render_text(diagnostics)
    return policy


def monitor_of(text: str, tools: str = TOOLS, externs=None) -> Monitor:
    return Monitor(build_artifact(policy_of(text, tools)), externs)


def drive(run, calls):
    """Propose each call; record it when the decision lets it run. Returns the actions."""
    actions = []
    for call in calls:
        tool, args, *rest = call if isinstance(call, tuple) else (call, {})
        decision = run.propose(tool, args)
        actions.append(decision.action)
        if decision.executes:
            run.record(tool, args, rest[0] if rest else None)
        if decision.action == "stop":
            break
    return actions


class CompletionOracle:
    """Whether a run can still be completed so that every rule holds, by brute force: a
    breadth-first search over the rules' compiled runs (restored from their snapshots), trying
    each call of `calls` and ending with one of `finals` (a final call) or nothing; None when it
    meets more than `budget` states. The test files give the concrete calls their generators use."""

    def __init__(self, formulas, calls, finals, budget: int, final_tool: str = "done"):
        from policyc.automata.compile import compile_rule

        self.tables = [compile_rule(f).table for f in formulas]
        self.calls, self.finals, self.budget, self.final_tool = tuple(calls), tuple(finals), budget, final_tool

    def runs_after(self, calls):
        runs = [t.start() for t in self.tables]
        for tool, args, result in calls:
            for run in runs:
                run.step(tool, args, result)
        return runs

    @staticmethod
    def key(runs) -> str:
        import json

        return json.dumps([r.to_json() for r in runs], sort_keys=True, default=repr)

    def _after(self, states, call):
        from policyc.tables.rule import RuleRun

        runs = [RuleRun.from_json(t, s) for t, s in zip(self.tables, states)]  # s: shared values, never changed
        tool, args, result = call
        for run in runs:
            run.step(tool, args, result)
        return runs

    def completable(self, calls) -> bool | None:
        from collections import deque

        from policyc.tables.dfa import VIOLATED

        start = self.runs_after(calls)
        if any(r.verdict() == VIOLATED for r in start):
            return False
        if calls and calls[-1][0] == self.final_tool:  # a final call ended the run: nothing may follow it
            return all(r.accepting() for r in start)
        if all(r.accepting() for r in start):
            return True
        seen = {self.key(start)}
        queue = deque([[r.to_json() for r in start]])
        while queue:
            here = queue.popleft()
            for call in self.calls + self.finals:
                after = self._after(here, call)
                if any(r.verdict() == VIOLATED for r in after):
                    continue
                if all(r.accepting() for r in after):
                    return True
                if call in self.finals:
                    continue
                k = self.key(after)
                if k in seen:
                    continue
                if len(seen) >= self.budget:
                    return None
                seen.add(k)
                queue.append([r.to_json() for r in after])
        return False


def outcomes(tool, args) -> list[tuple]:
    """What a proposed call of the agent vocabulary (results `{ok: bool}`) may turn out to be
    once it ran: either result, failed or not, or failed with an error that is not of the
    declared result type (a failed call's result is its error, never type-checked: no result
    test holds of it, and the gate counts that outcome)."""
    failed = CallArgs(dict(args), {"error": True})
    return [(tool, failed if fails else dict(args), {"ok": ok})
            for ok in (True, False) for fails in (False, True)] + [(tool, failed, "boom")]


def check_decision(oracle, policy, prefix, tool, args, decision) -> None:
    """The completion oracle's judgement of a decision on a proposed call after `prefix` (from
    which the run can still comply): a call refused by some rule has no outcome after which
    the run can comply; a call decided without an open question has one. A call whose
    outcomes the oracle cannot search within its budget is no example (`assume`)."""
    from hypothesis import assume

    refused = [f for f in decision.findings if f.kind in ("violation", "conflict", "owed")]
    results = [oracle.completable(prefix + [c]) for c in outcomes(tool, args)]
    assume(None not in results)
    if refused:
        assert not any(results), ([r.formula for r in policy.rules], prefix, tool, args,
                                  [(f.rule, f.detail) for f in refused])
    elif not decision.undecided:
        assert any(results), ([r.formula for r in policy.rules], prefix, tool, args)
