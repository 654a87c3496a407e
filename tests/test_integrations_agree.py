"""One policy, one script, the same tool results: the same decisions behind every adapter.

The support desk's tools (fixtures/integrations/support_tools.py) run behind the MCP gateway
(a real `MCPServer` subprocess, the SDK's client), in a LangGraph `StateGraph` with the gated
`ToolNode`, under the OpenAI Agents SDK's `Runner.run` with the guard's tool guardrails, and
in a smolagents `ToolCallingAgent`: real libraries, each driven by a scripted model making the
same calls. Each framework hands the results over in its own shape (MCP: structured content
`{"result": ...}`, or text only for `count_orders`; LangChain: a `ToolMessage` holding JSON
text; the Agents SDK and smolagents: the Python values), and the policy is written twice:
with the results as the tools return them, and as the MCP SDK wraps them
(`-> { result: list[str] }`). Every adapter makes the same decisions, records the same trace
(in the shape the policy declares) and finds no difference between its tools and the policy
at start-up; and `policyc score` of the gateway's trace agrees with every run's report.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

import pytest

from policyc.artifact.build import compile_file
from policyc.runtime import Monitor

HERE = Path(__file__).parent / "fixtures" / "integrations"
POLICIES = {"declared as returned": HERE / "support.altl", "declared as wrapped": HERE / "support_wrapped.altl"}
SCRIPT = [("count_orders", {"customer": "c1"}), ("lookup_orders", {"customer": "c1"}),
          ("issue_refund", {"order_id": "o9"}), ("check_eligibility", {"order_id": "o1"}),
          ("issue_refund", {"order_id": "o1"}), ("final_answer", {"answer": "Refunded o1."})]
EXPECTED = [("count_orders", "allow", ()), ("lookup_orders", "allow", ()),
            ("issue_refund", "block", ("eligible_first", "own_order")), ("check_eligibility", "allow", ()),
            ("issue_refund", "allow", ()), ("final_answer", "allow", ())]

sys.path.insert(0, str(HERE))
import support_tools  # noqa: E402

pytestmark = pytest.mark.slow  # four frameworks and an MCP server per policy


class RecordingMonitor(Monitor):
    """A monitor whose runs keep every decision they make (the gate itself is unchanged)."""

    def start(self, *args, **kwargs):
        run = super().start(*args, **kwargs)
        propose = run.propose

        def logged(tool, args=None, **options):
            decision = propose(tool, args, **options)
            self.decisions.append((decision.tool, decision.action, decision.rules))
            return decision

        run.propose = logged
        self.runs.append(run)
        return run

    @classmethod
    def of(cls, policy: Path) -> "RecordingMonitor":
        monitor = cls(compile_file(policy))
        monitor.decisions, monitor.runs = [], []
        return monitor


def calls_of(trace) -> list:
    return [(c.name, dict(c.args), c.result) for c in trace.calls]


# ------------------------------------------------------------------ the four adapters


def through_gateway(policy: Path, tmp_path: Path):
    """(decisions, recorded calls, start-up report lines) of the script behind `policyc gateway`."""
    pytest.importorskip("mcp", reason="mcp is not installed")
    import anyio
    from mcp import ClientSession, StdioServerParameters, stdio_client

    trace = tmp_path / "gateway.jsonl"
    params = StdioServerParameters(command=sys.executable, args=[
        "-c", "from policyc.cli import main; main()", "gateway", str(policy), "--trace", str(trace), "--",
        sys.executable, str(HERE / "support_server.py")])

    async def session():
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as client:
                await client.initialize()
                for name, args in SCRIPT:
                    await client.call_tool(name, args)

    with open(tmp_path / "gateway.err", "w") as errlog:
        anyio.run(session)
    from policyc.trace.journal import assemble

    [(_, record, problem)] = assemble(enumerate(trace.read_text().splitlines(), start=1))  # one session
    assert problem is None and record["complete"], (problem, record)
    decisions = [(d["tool"], d["action"], tuple(d["rules"])) for d in record["decisions"]]
    calls = [(c["tool_name"], c["arguments"], c["tool_result"]) for c in record["tool_calls"]]
    said = [line for line in (tmp_path / "gateway.err").read_text().splitlines()
            if line.startswith("policyc gateway: ") and ("error:" in line or "warning:" in line)]
    return decisions, calls, said, trace


def through_langgraph(policy: Path):
    pytest.importorskip("langgraph", reason="langgraph is not installed")
    from langchain_core.messages import HumanMessage
    from langchain_core.tools import tool
    from langgraph.graph import START, MessagesState, StateGraph
    from langgraph.prebuilt import tools_condition

    from policyc.integrations.langgraph import PolicyGate, ScriptedChatModel

    tools = [tool(f) for f in support_tools.TOOLS]
    monitor = RecordingMonitor.of(policy)
    gate = PolicyGate(monitor, tools=tools)
    model = ScriptedChatModel(script=[*SCRIPT, "Done."])

    def agent(state: MessagesState):
        return {"messages": [model.invoke(state["messages"])]}

    graph = StateGraph(MessagesState)
    graph.add_node("agent", agent)
    graph.add_node("tools", gate.tool_node(tools))
    graph.add_edge(START, "agent")
    graph.add_conditional_edges("agent", tools_condition)
    graph.add_edge("tools", "agent")
    graph.compile().invoke({"messages": [HumanMessage("Refund my order.")]}, {"configurable": {"thread_id": "t"}})
    report = gate.check_tools(tools)
    return monitor.decisions, calls_of(gate.run("t").trace), [str(m) for m in report.mismatches], gate.finish("t")


def through_openai_agents(policy: Path):
    pytest.importorskip("agents", reason="openai-agents is not installed")
    from agents import Agent, RunConfig, Runner, function_tool
    from agents.testing import ScriptedModel, assistant_message, function_call

    from policyc.integrations.gating import check_tool_set
    from policyc.integrations.openai_agents import PolicyGuard, tool_schemas

    tools = [function_tool(f) for f in support_tools.TOOLS]
    monitor = RecordingMonitor.of(policy)
    guard = PolicyGuard(monitor)
    model = ScriptedModel([*([function_call(name, args, call_id=f"c{i}")] for i, (name, args) in enumerate(SCRIPT)),
                           [assistant_message("Done.")]])
    agent = Agent(name="support", model=model, tools=guard.gate(tools))
    asyncio.run(Runner.run(agent, "Refund my order.", run_config=RunConfig(tracing_disabled=True)))
    report = check_tool_set(monitor, tool_schemas(tools), on_mismatch="ignore")
    return monitor.decisions, calls_of(guard.run.trace), [str(m) for m in report.mismatches], guard.finish()


def through_smolagents(policy: Path):
    pytest.importorskip("smolagents", reason="smolagents is not installed")
    from smolagents import tool

    from policyc.integrations.smolagents import GatedAgent, ScriptedModel

    tools = [tool(f) for f in support_tools.TOOLS if f is not support_tools.final_answer]  # smolagents has its own
    monitor = RecordingMonitor.of(policy)
    agent = GatedAgent(tools=tools, model=ScriptedModel(SCRIPT), policy=monitor, verbosity_level=-1, max_steps=10)
    agent.run("Refund my order.")
    return (monitor.decisions, calls_of(monitor.runs[-1].trace), [str(m) for m in agent.tool_check.mismatches],
            agent.report)


# ------------------------------------------------------------------ the agreement


@pytest.mark.parametrize("declared", list(POLICIES))
def test_every_adapter_decides_and_records_alike(declared, tmp_path):
    policy = POLICIES[declared]
    gateway_decisions, gateway_calls, gateway_said, trace = through_gateway(policy, tmp_path)
    assert gateway_decisions == EXPECTED
    assert gateway_said == []  # the server's tools match the policy, results as recorded
    wrapped = declared == "declared as wrapped"
    refund = {"result": "refunded o1"} if wrapped else "refunded o1"
    assert gateway_calls == [
        ("count_orders", {"customer": "c1"}, {"result": 2} if wrapped else 2),
        ("lookup_orders", {"customer": "c1"}, {"result": ["o1", "o2"]} if wrapped else ["o1", "o2"]),
        ("check_eligibility", {"order_id": "o1"}, {"eligible": True, "order_id": "o1"}),
        ("issue_refund", {"order_id": "o1"}, refund),
        ("final_answer", {"answer": "Refunded o1."}, {"result": "Refunded o1."} if wrapped else "Refunded o1."),
    ]
    from click.testing import CliRunner

    from policyc.cli import cli

    scored = CliRunner().invoke(cli, ["score", str(policy), str(trace), "--format", "json"])
    assert scored.exit_code == 0, scored.output
    [gateway_report] = json.loads(scored.stdout)["reports"]
    assert gateway_report["input_problems"] == []
    for adapter in (through_langgraph, through_openai_agents, through_smolagents):
        decisions, calls, said, report = adapter(policy)
        assert decisions == EXPECTED, adapter.__name__
        if adapter is through_smolagents:  # smolagents' own final answer is not described as returning a str
            assert said == [], adapter.__name__
            assert calls[:-1] == gateway_calls[:-1] and calls[-1][:2] == gateway_calls[-1][:2]
        else:
            assert said == [], adapter.__name__
            assert calls == gateway_calls, adapter.__name__
        assert report.compliance_score == gateway_report["compliance_score"] == 1.0, adapter.__name__


def test_a_policy_whose_results_differ_is_told_at_start_up(tmp_path):
    """Each adapter compares the results it will record with the policy's declarations."""
    policy = tmp_path / "other.altl"
    policy.write_text((HERE / "support.altl").read_text().replace("-> list[str]", "-> list[int]")
                      .replace("o in result", "o == \"o1\""))
    expected = ("`lookup_orders` returns list[str], the policy declares list[int]: rules that read its result "
                "may read what it does not have")
    _, _, said, _ = through_gateway(policy, tmp_path)
    assert said == [f"policyc gateway: warning: {expected}"]
    pytest.importorskip("langgraph")
    from langchain_core.tools import tool

    from policyc.integrations.gating import PolicyToolWarning
    from policyc.integrations.langgraph import PolicyGate

    with pytest.warns(PolicyToolWarning, match=r"`lookup_orders` returns list\[str\]"):
        PolicyGate(str(policy), tools=[tool(f) for f in support_tools.TOOLS])
    pytest.importorskip("smolagents")
    from smolagents import tool as smol_tool

    from policyc.integrations.smolagents import GatedAgent, ScriptedModel

    with pytest.warns(PolicyToolWarning, match=r"`lookup_orders` returns list\[str\]"):
        GatedAgent(tools=[smol_tool(f) for f in support_tools.TOOLS[:-1]], model=ScriptedModel([]),
                   policy=Monitor(compile_file(policy)), verbosity_level=-1)
