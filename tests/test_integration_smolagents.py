"""The smolagents integration, driven by a scripted model (no network)."""

from __future__ import annotations

import pytest

pytest.importorskip("smolagents", reason="smolagents is not installed (pip install -e '.[test,smolagents]')")

from smolagents import tool  # noqa: E402

from policyc.integrations.smolagents import GatedAgent, ScriptedModel  # noqa: E402
from runtime_helpers import monitor_of  # noqa: E402

TOOLS = """
tool fetch(id: int) -> { value: int }
tool process(value: int) -> int
terminal tool final_answer(answer: any)
"""
RULES = """
rule fetch_first layer L3 weight 2 severity block message "Fetch the record before processing it.":
    always (process -> once fetch)
rule processes layer L5 weight 1:
    called(process)
"""


@tool
def fetch(id: int) -> dict:
    """Fetch a record.

    Args:
        id: the record's id
    """
    return {"value": 10 * id}


@tool
def process(value: int) -> int:
    """Process a value.

    Args:
        value: the value
    """
    return value + 1


COMPLIANT = [("fetch", {"id": 4}), ("process", {"value": 40}), ("final_answer", {"answer": 41})]
OUT_OF_ORDER = [("process", {"value": 40}), ("fetch", {"id": 4}), ("process", {"value": 40}),
                ("final_answer", {"answer": 41})]


def agent_for(script, mode=None, rules=RULES):
    return GatedAgent(tools=[fetch, process], model=ScriptedModel(script), policy=monitor_of(rules, TOOLS),
                      mode=mode, verbosity_level=-1, max_steps=10)


def errors(agent) -> list:
    return [str(step.error) if step.error else None for step in agent.memory.steps[1:] if hasattr(step, "error")]


def score(report) -> float:
    return report.compliance_score


def test_a_compliant_script_scores_one():
    agent = agent_for(COMPLIANT)
    assert agent.run("process record 4") == 41
    assert score(agent.report) == 1.0
    assert agent.policy_run.trace.tool_sequence == ["fetch", "process", "final_answer"]
    assert agent.policy_run.events == ()


def test_block_and_warn_the_model_listens():
    agent = agent_for(OUT_OF_ORDER)
    assert agent.run("process record 4") == 41
    first = errors(agent)[0]
    assert first.startswith("`process` was not executed") and "Fetch the record before processing it" in first
    assert "First call `fetch`, then `process`." in first
    assert score(agent.report) == 1.0
    assert [(e.rule, e.layer, e.resolution) for e in agent.policy_run.events] == [("fetch_first", "L3", "listened")]


def test_block_and_warn_the_model_insists():
    script = [("process", {"value": 40}), ("process", {"value": 40}), ("final_answer", {"answer": 41})]
    agent = agent_for(script)
    assert agent.run("process 40") == 41
    assert agent.policy_run.trace.tool_sequence == ["process", "final_answer"]
    assert [e.resolution for e in agent.policy_run.events] == ["insisted"]
    assert score(agent.report) == pytest.approx(1 / 3)
    rows = agent.policy_run.enforcement_table()
    assert [(r.layer, r.events, r.insisted, r.insist_rate) for r in rows] == [("L3", 1, 1, 1.0)]


def test_soft_block_escalates_to_stop():
    script = [("process", {"value": 1}), ("process", {"value": 2}), ("process", {"value": 3}),
              ("fetch", {"id": 1})]
    agent = agent_for(script, mode="soft")
    assert agent.run("process") is None
    assert agent.stopped is not None and agent.stopped.escalated
    assert "Refusal 2 of 3" in errors(agent)[1]
    assert agent.policy_run.trace.tool_sequence == []
    assert agent.model.calls == 3  # the run ended at the third refusal


def test_stop_ends_the_run_at_once():
    agent = agent_for(OUT_OF_ORDER, mode="stop")
    assert agent.run("process") is None
    assert agent.stopped.action == "stop" and agent.model.calls == 1
    assert score(agent.report) == pytest.approx(2 / 3)  # nothing ran: the ordering rule holds, `processes` fails


def test_warn_runs_the_call_and_tells_the_model():
    agent = agent_for(OUT_OF_ORDER, mode="warn")
    assert agent.run("process") == 41
    observations = [step.observations for step in agent.memory.steps[1:] if getattr(step, "observations", None)]
    assert observations[0].startswith("41") and "`process` ran, but it breaks the policy" in observations[0]
    assert agent.policy_run.trace.tool_sequence == ["process", "fetch", "process", "final_answer"]
    assert score(agent.report) == pytest.approx(1 / 3)


def test_tolerate_logs_silently():
    agent = agent_for(OUT_OF_ORDER, mode="tolerate")
    assert agent.run("process") == 41
    assert [e.resolution for e in agent.policy_run.events] == ["executed"]
    observations = [step.observations for step in agent.memory.steps[1:] if getattr(step, "observations", None)]
    assert observations[0] == "41"


def test_the_final_answer_is_gated_until_the_required_call_is_made():
    rules = "rule processes layer L5 severity block: called(process)\n"
    script = [("fetch", {"id": 1}), ("final_answer", {"answer": 10}), ("process", {"value": 10}),
              ("final_answer", {"answer": 11})]
    agent = agent_for(script, rules=rules)
    assert agent.run("process") == 11
    assert "First call `process`, then `final_answer`." in errors(agent)[1]
    assert score(agent.report) == 1.0


def test_parallel_calls_are_gated_in_order():
    script = [[("fetch", {"id": 1}), ("process", {"value": 10})], ("final_answer", {"answer": 11})]
    agent = agent_for(script)
    assert agent.run("both") == 11
    assert agent.policy_run.trace.tool_sequence in (["fetch", "process", "final_answer"],
                                                    ["process", "fetch", "final_answer"])
