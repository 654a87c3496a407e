"""Helpers shared by the runtime tests: a monitor from policy text, and scripted runs."""

from __future__ import annotations

from policyc.artifact.build import build_artifact
from policyc.check import check_text
from policyc.diagnostics import render_text
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
