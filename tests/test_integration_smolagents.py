"""The smolagents integration, driven by a scripted model (no network)."""

from __future__ import annotations

import functools

import pytest

from lazy import lazy, needs
from policyc.integrations.gating import PolicyToolWarning
from policyc.toolschema import ToolSetMismatch
from runtime_helpers import FETCH_RULES, FETCH_TOOLS, monitor_of

pytestmark = needs("smolagents", extra="smolagents")
smol, adapter = lazy("smolagents"), lazy("policyc.integrations.smolagents")

TOOLS = FETCH_TOOLS + "terminal tool final_answer(answer: any)\n"
RULES = FETCH_RULES


def fetch(id: int) -> dict:
    """Fetch a record.

    Args:
        id: the record's id
    """
    return {"value": 10 * id}


def process(value: int) -> int:
    """Process a value.

    Args:
        value: the value
    """
    return value + 1


def search(query: str, limit: int) -> list:
    """Search.

    Args:
        query: the query
        limit: how many
    """
    return []


@functools.cache
def _tool(function):
    return smol.tool(function)


def smol_tools(*functions) -> list:
    """The functions as smolagents tools (made on first use: collecting imports nothing)."""
    return [_tool(f) if not hasattr(f, "forward") else f for f in functions]


def GatedAgent(*args, **kwargs):
    return adapter.GatedAgent(*args, **kwargs)


def GatedCodeAgent(*args, **kwargs):
    return adapter.GatedCodeAgent(*args, **kwargs)


def ScriptedModel(*args, **kwargs):
    return adapter.ScriptedModel(*args, **kwargs)


def ScriptedCodeModel(*args, **kwargs):
    return adapter.ScriptedCodeModel(*args, **kwargs)


COMPLIANT = [("fetch", {"id": 4}), ("process", {"value": 40}), ("final_answer", {"answer": 41})]
OUT_OF_ORDER = [("process", {"value": 40}), ("fetch", {"id": 4}), ("process", {"value": 40}),
                ("final_answer", {"answer": 41})]


def agent_for(script, mode=None, rules=RULES):
    return GatedAgent(tools=smol_tools(fetch, process), model=ScriptedModel(script), policy=monitor_of(rules, TOOLS),
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


# ------------------------------------------------------------------ CodeAgent


def code_agent_for(snippets, mode=None, rules=RULES):
    return GatedCodeAgent(tools=smol_tools(fetch, process), model=ScriptedCodeModel(snippets), policy=monitor_of(rules, TOOLS),
                          mode=mode, verbosity_level=-1, max_steps=10)


def test_a_code_agent_runs_a_compliant_snippet_and_records_each_call():
    agent = code_agent_for(["record = fetch(id=4)\nfinal_answer(process(record['value']))"])
    assert agent.run("process record 4") == 41
    assert [(c.name, dict(c.args), c.result) for c in agent.policy_run.trace.calls] == [
        ("fetch", {"id": 4}, {"value": 40}), ("process", {"value": 40}, 41), ("final_answer", {"answer": 41}, 41)]
    assert score(agent.report) == 1.0


def test_a_code_agent_is_refused_mid_snippet_and_corrects_itself():
    snippets = ["x = process(value=40)\nprint('not reached')",
                "record = fetch(4)\nfinal_answer(process(value=record['value']))"]
    agent = code_agent_for(snippets)
    assert agent.run("process record 4") == 41
    first = errors(agent)[0]
    assert "PolicyRefusal: `process` was not executed" in first and "Fetch the record before processing it" in first
    assert agent.policy_run.trace.tool_sequence == ["fetch", "process", "final_answer"]
    assert [(e.rule, e.resolution) for e in agent.policy_run.events] == [("fetch_first", "listened")]
    assert score(agent.report) == 1.0


def test_a_code_agents_final_answer_is_gated():
    rules = "rule processes layer L5 severity block: called(process)\n"
    agent = code_agent_for(["final_answer(10)", "final_answer(process(10))"], rules=rules)
    assert agent.run("process") == 11
    assert "First call `process`, then `final_answer`." in errors(agent)[0]


def test_a_code_agent_stops():
    agent = code_agent_for(["process(value=1)", "fetch(id=1)"], mode="stop")
    assert agent.run("process") is None
    assert agent.stopped.action == "stop" and agent.model.calls == 1
    assert agent.policy_run.trace.tool_sequence == []


def test_a_code_agent_is_warned_in_its_observations():
    agent = code_agent_for(["y = process(value=40)\nprint(y)", "final_answer(fetch(id=4))"], mode="warn")
    assert agent.run("go") == {"value": 40}
    observations = [s.observations for s in agent.memory.steps[1:] if getattr(s, "observations", None)]
    assert "41" in observations[0] and "`process` ran, but it breaks the policy" in observations[0]


def test_a_code_agent_must_run_its_tools_locally():
    with pytest.raises(ValueError, match="local executor only"):
        GatedCodeAgent(tools=smol_tools(fetch, process), model=ScriptedCodeModel([]), policy=monitor_of(RULES, TOOLS),
                       executor_type="docker")


# ------------------------------------------------------------------ the tools against the policy


def test_an_agent_whose_tools_differ_from_the_policy_is_refused_at_construction():
    for agent_class in (GatedAgent, GatedCodeAgent):
        with pytest.raises(ToolSetMismatch) as mismatch:
            agent_class(tools=smol_tools(fetch, search), model=ScriptedModel([]), policy=monitor_of(RULES, TOOLS))
        assert str(mismatch.value).splitlines() == [
            "the smolagents agent's tools do not match the policy's signatures:",
            "  - the policy declares `process`, which the agent's tools do not include",
            "  - the agent has `search`, which the policy does not declare (its calls are flagged as unknown tools)"]


def test_argument_mismatches_are_named_and_warn_mode_warns():
    @smol.tool
    def process(value: int, scale: float) -> int:  # an extra argument
        """Process a value.

        Args:
            value: the value
            scale: a factor
        """
        return value

    with pytest.raises(ToolSetMismatch, match="`process` takes an argument `scale` that the policy does not declare"):
        GatedAgent(tools=smol_tools(fetch, process), model=ScriptedModel([]), policy=monitor_of(RULES, TOOLS))
    with pytest.warns(PolicyToolWarning, match="`process` takes an argument `scale`"):
        agent = GatedAgent(tools=smol_tools(fetch, process), model=ScriptedModel([]), policy=monitor_of(RULES, TOOLS),
                           on_mismatch="warn")
    assert [m.kind for m in agent.tool_check.mismatches] == ["extra-argument"]


def failing_fetch(id: int) -> dict:
    """Fetch a record.

    Args:
        id: the record's id
    """
    raise ValueError("the store is down")


def test_a_code_agents_tool_that_raises_is_recorded_as_failed():
    # the call ran and raised: it was missing from the run, whose report then said a rule
    # needing it was violated (found by a sweep written from the docs alone)
    failing = smol.tool(failing_fetch)
    failing.name = "fetch"
    agent = GatedCodeAgent(tools=[failing, *smol_tools(process)],
                           model=ScriptedCodeModel(["record = fetch(id=4)", "final_answer(0)"]),
                           policy=monitor_of(RULES, TOOLS), verbosity_level=-1, max_steps=3)
    agent.run("process record 4")
    calls = agent.policy_run.trace.calls
    assert [(c.name, c.error) for c in calls][:1] == [("fetch", True)]
    assert calls[0].result == "ValueError: the store is down"
