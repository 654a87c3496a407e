"""The LangGraph integration in a real StateGraph with a ToolNode, driven by a scripted chat model."""

from __future__ import annotations

import asyncio
import functools
import warnings

import pytest

from lazy import lazy, needs
from policyc.integrations.gating import PolicyStop, PolicyToolWarning
from policyc.toolschema import ToolSetMismatch
from runtime_helpers import FETCH_RULES, FETCH_TOOLS, monitor_of

pytestmark = needs("langgraph", "langchain_core", extra="langgraph")
messages, lc_tools = lazy("langchain_core.messages"), lazy("langchain_core.tools")
graphs, prebuilt = lazy("langgraph.graph"), lazy("langgraph.prebuilt")
adapter = lazy("policyc.integrations.langgraph")

TOOLS, RULES = FETCH_TOOLS, FETCH_RULES


def _fetch(id: int) -> dict:
    """Fetch a record by its id."""
    return {"value": 10 * id}


def _process(value: int) -> int:
    """Process a value."""
    return value + 1


@functools.cache
def tools() -> tuple:
    """`fetch` and `process` as LangChain tools (made on first use: collecting imports nothing)."""
    return lc_tools.tool("fetch")(_fetch), lc_tools.tool("process")(_process)


def graph_for(script, mode=None, rules=RULES):
    fetch, process = tools()
    model = adapter.ScriptedChatModel(script=script).bind_tools([fetch, process])
    gate = adapter.PolicyGate(monitor_of(rules, TOOLS), tools=[fetch, process], mode=mode)

    def agent(state):
        return {"messages": [model.invoke(state["messages"])]}

    graph = graphs.StateGraph(graphs.MessagesState)
    graph.add_node("agent", agent)
    graph.add_node("tools", gate.tool_node([fetch, process]))
    graph.add_edge(graphs.START, "agent")
    graph.add_conditional_edges("agent", prebuilt.tools_condition)
    graph.add_edge("tools", "agent")
    return graph.compile(), gate


def tool_messages(state) -> list:
    return [m for m in state["messages"] if isinstance(m, messages.ToolMessage)]


COMPLIANT = [("fetch", {"id": 4}), ("process", {"value": 40}), "41"]
OUT_OF_ORDER = [("process", {"value": 40}), ("fetch", {"id": 4}), ("process", {"value": 40}), "41"]


def test_a_compliant_run_scores_one_and_records_results():
    graph, gate = graph_for(COMPLIANT)
    state = graph.invoke({"messages": [messages.HumanMessage("process record 4")]})
    assert state["messages"][-1].content == "41"
    run = gate.run()
    assert [(c.name, dict(c.args), c.result) for c in run.trace.calls] == [
        ("fetch", {"id": 4}, {"value": 40}), ("process", {"value": 40}, 41)]
    assert gate.finish().compliance_score == 1.0


def test_a_refusal_is_a_tool_message_and_the_model_listens():
    graph, gate = graph_for(OUT_OF_ORDER)
    state = graph.invoke({"messages": [messages.HumanMessage("process record 4")]})
    refused = tool_messages(state)[0]
    assert refused.status == "error" and refused.content.startswith("`process` was not executed")
    assert "Fetch the record before processing it" in refused.content
    assert "First call `fetch`, then `process`." in refused.content
    assert [m.status for m in tool_messages(state)] == ["error", "success", "success"]
    run = gate.run()
    assert run.trace.tool_sequence == ["fetch", "process"]
    assert [(e.rule, e.resolution) for e in run.events] == [("fetch_first", "listened")]
    assert gate.finish().compliance_score == 1.0


def test_parallel_calls_are_gated_in_the_models_order():
    script = [[("process", {"value": 40}), ("fetch", {"id": 4})], ("process", {"value": 40}), "41"]
    for _ in range(5):  # the tool node runs them on threads; the order must not depend on scheduling
        graph, gate = graph_for(script)
        state = graph.invoke({"messages": [messages.HumanMessage("go")]})
        assert [m.status for m in tool_messages(state)] == ["error", "success", "success"]
        assert gate.run().trace.tool_sequence == ["fetch", "process"]


def test_stop_ends_the_graph_run():
    graph, gate = graph_for(OUT_OF_ORDER, mode="stop")
    with pytest.raises(PolicyStop) as stop:
        graph.invoke({"messages": [messages.HumanMessage("go")]})
    assert stop.value.decision.action == "stop" and gate.stopped() is stop.value.decision
    assert gate.run().trace.tool_sequence == []


def test_warn_runs_the_call_and_tells_the_model():
    graph, gate = graph_for(OUT_OF_ORDER, mode="warn")
    state = graph.invoke({"messages": [messages.HumanMessage("go")]})
    first = tool_messages(state)[0]
    assert first.status == "success" and first.content.startswith("41\n\n`process` ran, but it breaks the policy")
    assert gate.run().trace.tool_sequence == ["process", "fetch", "process"]


def test_async_invocation_and_one_run_per_thread():
    graph, gate = graph_for(OUT_OF_ORDER + COMPLIANT)
    asyncio.run(graph.ainvoke({"messages": [messages.HumanMessage("a")]}, {"configurable": {"thread_id": "a"}}))
    asyncio.run(graph.ainvoke({"messages": [messages.HumanMessage("b")]}, {"configurable": {"thread_id": "b"}}))
    assert gate.run("a").trace.tool_sequence == ["fetch", "process"]
    assert [e.rule for e in gate.run("a").events] == ["fetch_first"]
    assert gate.run("b").trace.tool_sequence == ["fetch", "process"] and gate.run("b").events == ()
    assert gate.finish("a").compliance_score == 1.0 and gate.run("a").trace.calls == ()


def test_the_tools_must_match_the_policy():
    @lc_tools.tool
    def fetch(id: int, verbose: bool = False) -> dict:  # an extra argument
        """Fetch a record by its id."""
        return {}

    _, process = tools()
    PolicyGate = adapter.PolicyGate
    with pytest.raises(ToolSetMismatch) as mismatch:
        PolicyGate(monitor_of(RULES, TOOLS), tools=[fetch])
    assert str(mismatch.value).splitlines() == [
        "the LangGraph agent's tools do not match the policy's signatures:",
        "  - the policy declares `process`, which the agent's tools do not include",
        "  - `fetch` takes an argument `verbose` that the policy does not declare"]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        PolicyGate(monitor_of(RULES, TOOLS), tools=[fetch, process], on_mismatch="warn")
    assert [str(w.message) for w in caught if w.category is PolicyToolWarning] == [
        "the LangGraph agent's tools and the policy: `fetch` takes an argument `verbose` that the policy does "
        "not declare"]
    lenient = PolicyGate(monitor_of(RULES, TOOLS), on_mismatch="ignore")
    assert [m.message for m in lenient.check_tools([process]).errors] == [
        "the policy declares `fetch`, which the agent's tools do not include"]


def test_a_tool_that_raises_after_running_is_recorded_as_failed():
    # the call ran (its side effect happened) and raised: it was missing from the run, and the
    # report scored a run without it (found by a sweep written from the docs alone)
    ran = []

    def fetch(id: int) -> dict:
        """Fetch a record by its id."""
        ran.append(id)
        raise ValueError("the store is down")

    failing = lc_tools.tool("fetch")(fetch)
    _, process = tools()
    gate = adapter.PolicyGate(monitor_of(RULES, TOOLS), tools=[failing, process])
    model = adapter.ScriptedChatModel(script=[("fetch", {"id": 4}), "41"]).bind_tools([failing, process])
    graph = graphs.StateGraph(graphs.MessagesState)
    graph.add_node("agent", lambda state: {"messages": [model.invoke(state["messages"])]})
    graph.add_node("tools", prebuilt.ToolNode([failing, process], handle_tool_errors=False,
                                              wrap_tool_call=gate.wrap, awrap_tool_call=gate.awrap))
    graph.add_edge(graphs.START, "agent")
    graph.add_conditional_edges("agent", prebuilt.tools_condition)
    graph.add_edge("tools", "agent")
    with pytest.raises(ValueError, match="the store is down"):
        graph.compile().invoke({"messages": [messages.HumanMessage("x")]}, {"configurable": {"thread_id": "t"}})
    assert ran == [4]
    (call,) = gate.run("t").trace.calls
    assert (call.name, call.error, call.result) == ("fetch", True, "ValueError: the store is down")
