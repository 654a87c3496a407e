"""The OpenAI Agents SDK integration: a real `Runner.run` driven by the SDK's scripted model (no network)."""

from __future__ import annotations

import asyncio
import functools

import pytest

from lazy import lazy, needs
from policyc.toolschema import ToolSetMismatch
from runtime_helpers import FETCH_RULES, FETCH_TOOLS, monitor_of

pytestmark = needs("agents", extra="openai-agents")
sdk, items, testing = lazy("agents"), lazy("agents.items"), lazy("agents.testing")
adapter = lazy("policyc.integrations.openai_agents")

TOOLS, RULES = FETCH_TOOLS, FETCH_RULES


def _fetch(id: int) -> dict:
    """Fetch a record by its id."""
    return {"value": 10 * id}


def _process(value: int) -> int:
    """Process a value."""
    return value + 1


@functools.cache
def tools() -> tuple:
    """`fetch` and `process` as function tools (made on first use: collecting imports nothing)."""
    return (sdk.function_tool(_fetch, name_override="fetch"), sdk.function_tool(_process, name_override="process"))


def PolicyGuard(*args, **kwargs):
    return adapter.PolicyGuard(*args, **kwargs)


def script(*turns):
    """Model turns: each a list of (tool, args) calls, or a final text."""
    steps = []
    for i, turn in enumerate(turns):
        if isinstance(turn, str):
            steps.append([testing.assistant_message(turn)])
        else:
            steps.append([testing.function_call(tool, args, call_id=f"c{i}_{j}") for j, (tool, args) in enumerate(turn)])
    return testing.ScriptedModel(steps)


def run_agent(guard, model):
    agent = sdk.Agent(name="worker", model=model, tools=guard.gate(list(tools())))
    return asyncio.run(sdk.Runner.run(agent, "process record 4", run_config=sdk.RunConfig(tracing_disabled=True)))


def outputs(result) -> list:
    return [item.output for item in result.new_items if isinstance(item, items.ToolCallOutputItem)]


def test_a_compliant_run_scores_one_and_records_results():
    guard = PolicyGuard(monitor_of(RULES, TOOLS))
    result = run_agent(guard, script([("fetch", {"id": 4})], [("process", {"value": 40})], "41"))
    assert result.final_output == "41"
    assert [(c.name, dict(c.args), c.result) for c in guard.run.trace.calls] == [
        ("fetch", {"id": 4}, {"value": 40}), ("process", {"value": 40}, 41)]
    assert guard.finish().compliance_score == 1.0


def test_a_refusal_reaches_the_model_and_it_listens():
    guard = PolicyGuard(monitor_of(RULES, TOOLS))
    model = script([("process", {"value": 40})], [("fetch", {"id": 4})], [("process", {"value": 40})], "41")
    result = run_agent(guard, model)
    refused = outputs(result)[0]
    assert refused.startswith("`process` was not executed") and "Fetch the record before processing it" in refused
    assert guard.run.trace.tool_sequence == ["fetch", "process"]
    assert [(e.rule, e.resolution) for e in guard.run.events] == [("fetch_first", "listened")]
    # the model's second request carried the refusal as the call's output
    sent = model.calls[1].input
    assert any(isinstance(i, dict) and i.get("type") == "function_call_output" and "not executed" in str(i.get("output"))
               for i in sent)
    assert guard.finish().compliance_score == 1.0


def test_parallel_calls_of_one_turn_are_gated_one_at_a_time():
    guard = PolicyGuard(monitor_of(RULES, TOOLS))
    result = run_agent(guard, script([("process", {"value": 40}), ("fetch", {"id": 4})],
                                     [("process", {"value": 40})], "41"))
    first, second, third = outputs(result)
    assert first.startswith("`process` was not executed") and second == {"value": 40} and third == 41
    assert guard.run.trace.tool_sequence == ["fetch", "process"]


def test_stop_ends_the_run():
    guard = PolicyGuard(monitor_of(RULES, TOOLS), mode="stop")
    with pytest.raises(sdk.ToolInputGuardrailTripwireTriggered):
        run_agent(guard, script([("process", {"value": 40})], "never"))
    assert guard.stopped.action == "stop" and guard.run.trace.tool_sequence == []
    assert guard.finish().compliance_score == pytest.approx(2 / 3)


def test_warn_runs_the_call_and_tells_the_model():
    guard = PolicyGuard(monitor_of(RULES, TOOLS), mode="warn")
    result = run_agent(guard, script([("process", {"value": 40})], [("fetch", {"id": 4})], "done"))
    first = outputs(result)[0]
    assert first.startswith("41\n\n`process` ran, but it breaks the policy")
    assert guard.run.trace.tool_sequence == ["process", "fetch"]


def test_the_tools_must_match_the_policy():
    @sdk.function_tool
    def fetch(id: int, verbose: bool) -> dict:  # an extra argument
        """Fetch a record by its id."""
        return {}

    guard = PolicyGuard(monitor_of(RULES, TOOLS))
    with pytest.raises(ToolSetMismatch) as mismatch:
        guard.gate([fetch])
    assert str(mismatch.value).splitlines()[1:] == [
        "  - the policy declares `process`, which the agent's tools do not include",
        "  - `fetch` takes an argument `verbose` that the policy does not declare"]


@pytest.mark.parametrize("formatter", ["default", "custom"])
def test_a_tool_that_raised_is_recorded_as_failed(formatter):
    """Found by a sweep written from the docs alone: the SDK hands the guard its failure
    formatter's text as the output, and the guard recorded it as a result (`error=False`), so
    a rule reading `error` decided otherwise than under LangGraph or smolagents."""
    ran = []

    def _refuel(gb: float) -> str:
        """Refuel data."""
        ran.append(gb)
        raise RuntimeError("line is suspended")

    options = {} if formatter == "default" else {"failure_error_function": lambda ctx, error: f"failed: {error}"}
    refuel = sdk.function_tool(_refuel, name_override="refuel", **options)
    rules = "rule no_retry_after_a_failure severity block: always (refuel(error) -> weak next always not refuel)\n"
    guard = PolicyGuard(monitor_of(rules, "tool refuel(gb: float) -> str\n"))
    agent = sdk.Agent(name="worker", model=script([("refuel", {"gb": 1.0})], [("refuel", {"gb": 2.0})], "done"),
                      tools=guard.gate([refuel]))
    result = asyncio.run(sdk.Runner.run(agent, "refuel", run_config=sdk.RunConfig(tracing_disabled=True)))
    assert ran == [1.0]  # the retry was refused
    assert [(c.name, c.error) for c in guard.run.trace.calls] == [("refuel", True)]
    assert outputs(result)[1].startswith("`refuel` was not executed")
    assert refuel.on_invoke_tool is not guard.gate([refuel])[0].on_invoke_tool  # the caller's tool is left as it was
