"""`policyc gateway`: a real MCP server behind the gateway, driven by the SDK's own client.

The server (fixtures/mcp/files_server.py, an `MCPServer`) and the gateway are subprocesses;
the client is `mcp.client.stdio` with a `ClientSession`, as an MCP host would run it.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from click.testing import CliRunner

from lazy import lazy, needs
from policyc.artifact.build import compile_file
from policyc.cli import cli
from policyc.runtime import Monitor
from policyc.trace import load_traces

pytestmark = [needs("mcp", "anyio", extra="mcp"), pytest.mark.slow]  # servers and clusters in subprocesses
anyio, mcp = lazy("anyio"), lazy("mcp")

MCP = Path(__file__).parent / "fixtures" / "mcp"
SERVER = [sys.executable, str(MCP / "files_server.py")]
POLICYC = [sys.executable, "-c", "from policyc.cli import main; main()"]


def gateway(*options, server=SERVER):
    argv = [*POLICYC, "gateway", str(MCP / "policy.altl"), *map(str, options), "--", *server]
    return mcp.StdioServerParameters(command=argv[0], args=argv[1:])


async def session_with(params, calls, errlog):
    """Run calls through a client session; returns (tools listed, [(is_error, texts, structured)])."""
    out = []
    async with mcp.stdio_client(params, errlog=errlog) as (read, write):
        async with mcp.ClientSession(read, write) as session:
            await session.initialize()
            listed = await session.list_tools()
            for name, args in calls:
                result = await session.call_tool(name, args)
                out.append((result.is_error, [c.text for c in result.content], result.structured_content))
    return listed, out


def run_session(params, calls, tmp_path):
    with open(tmp_path / "stderr.txt", "w") as errlog:
        listed, results = anyio.run(session_with, params, calls, errlog)
    return listed, results, (tmp_path / "stderr.txt").read_text()


def direct_tools():
    async def listing():
        async with mcp.stdio_client(mcp.StdioServerParameters(command=SERVER[0], args=SERVER[1:]),
                                errlog=subprocess.DEVNULL) as (read, write):
            async with mcp.ClientSession(read, write) as session:
                await session.initialize()
                return await session.list_tools()
    return anyio.run(listing)


def records(path: Path) -> list[dict]:
    """The sessions of a gateway's trace log (a journal of events), one record each."""
    from policyc.trace.journal import assemble

    return [record for _, record, _ in assemble(enumerate(path.read_text().split("\n"), start=1))]


def test_calls_are_gated_recorded_and_scored(tmp_path):
    trace = tmp_path / "runs.jsonl"
    calls = [("read_file", {"path": "src/api.py"}), ("search", {"query": "request"}),
             ("read_file", {"path": "src/api.py"}), ("locate", {"symbol": "X"})]
    listed, results, stderr = run_session(gateway("--trace", trace), calls, tmp_path)
    # tools/list passes through unchanged, and the policy (imported from this very server) matches it
    assert listed.tools == direct_tools().tools
    assert "error:" not in stderr and "warning:" not in stderr
    refused, searched, read, located = results
    assert refused[0] is True and refused[1][0].startswith("`read_file` was not executed")
    assert "Search the repository before reading a file" in refused[1][0]
    assert "First call `search`, then `read_file`." in refused[1][0]
    assert searched == (False, ["src/api.py"], {"result": ["src/api.py"]})
    assert read[0] is False and read[2] == {"result": "def request(method, url):\n    pass\n"}
    assert located[2] == {"path": "src/util.py", "line": 1}
    assert "policyc gateway: block `read_file`: search_first" in stderr
    [record] = records(trace)
    assert [c["tool_name"] for c in record["tool_calls"]] == ["search", "read_file", "locate"]
    # what the tools returned, as the policy declares it: the SDK's `{"result": ...}` wrapper read through
    assert [c["tool_result"] for c in record["tool_calls"]] == [
        ["src/api.py"], "def request(method, url):\n    pass\n", {"path": "src/util.py", "line": 1}]
    assert [(d["tool"], d["action"]) for d in record["decisions"]] == [
        ("read_file", "block"), ("search", "allow"), ("read_file", "allow"), ("locate", "allow")]
    assert (record["compliance_score"], record["compliance_label"]) == (1.0, "FULL")
    # the log reads back: `policyc score` gives the report the session ended with
    scored = CliRunner().invoke(cli, ["score", str(MCP / "policy.altl"), str(trace), "--format", "json"])
    assert scored.exit_code == 0, scored.output
    report = json.loads(scored.stdout)["reports"][0]
    assert report["compliance_score"] == 1.0 and report["tool_sequence"] == ["search", "read_file", "locate"]
    monitor = Monitor(compile_file(MCP / "policy.altl"))
    [loaded] = load_traces([trace]).traces
    assert monitor.score(loaded).compliance_score == record["compliance_score"]


def test_a_warning_is_appended_and_a_violation_is_scored(tmp_path):
    """The gateway's own trace scores cleanly: a call warned for its argument types and
    forwarded, and a call the server answered with an error (recorded as failed, its error
    text no result to type-check), are no input errors (exit 1 for the violated rule, not 2)."""
    trace = tmp_path / "runs.jsonl"
    calls = [("search", {"query": "X", "limit": "2"}), ("read_file", {"path": "README.md"}),
             ("read_file", {"path": "missing.md"})]
    _, results, stderr = run_session(gateway("--trace", trace), calls, tmp_path)
    searched, read, missing = results
    assert searched[0] is False and searched[1][-1].startswith("`search` ran, with a correction")
    assert read[0] is False and read[1][0] == "# demo\n"
    assert read[1][1].startswith("`read_file` ran, but it breaks the policy")
    assert "Locate a symbol before reading the README" in read[1][1]
    assert "policyc gateway: warn `read_file`: locate_before_readme" in stderr
    assert missing[0] is True
    [record] = records(trace)
    assert record["compliance_label"] == "PARTIAL"
    assert [c.get("error", False) for c in record["tool_calls"]] == [False, False, True]
    assert [d["action"] for d in record["decisions"]] == ["warn", "warn", "allow"]
    scored = CliRunner().invoke(cli, ["score", str(MCP / "policy.altl"), str(trace), "--format", "json"])
    assert scored.exit_code == 1, scored.output  # a rule is violated; nothing is wrong with the input
    [report] = json.loads(scored.stdout)["reports"]
    assert report["compliance_score"] == record["compliance_score"]
    assert [(p["call"], p["severity"], p["message"]) for p in report["input_problems"]] == [
        (1, "warning", "`search`: `limit` should be int, got str (the gate let it run)")]


def test_stop_mode_refuses_every_later_call(tmp_path):
    calls = [("read_file", {"path": "README.md"}), ("search", {"query": "X"})]
    _, results, _ = run_session(gateway("--mode", "stop"), calls, tmp_path)
    assert [r[0] for r in results] == [True, True]
    assert results[0][1][0].startswith("`read_file` was not executed and the run is stopped.")
    assert results[1][1] == ["`search` was not executed: the run has been stopped. Do not call further tools."]


def test_a_server_that_dies_gives_tool_errors_not_a_crash(tmp_path):
    trace = tmp_path / "runs.jsonl"
    calls = [("search", {"query": "X"}), ("crash", {}), ("search", {"query": "X"})]
    _, results, stderr = run_session(gateway("--trace", trace), calls, tmp_path)
    assert results[0][0] is False
    assert results[1][0] is True and "the MCP server failed" in results[1][1][0]
    assert results[2][0] is True
    assert "Traceback" not in stderr
    [record] = records(trace)  # the session still ends with its trace
    # forwarded calls whose answer never came may have run: they are kept, as failed calls
    assert [(c["tool_name"], c.get("error", False)) for c in record["tool_calls"]] == [
        ("search", False), ("crash", True), ("search", True)]
    assert "error" in record["decisions"][1] and record["complete"]


def test_a_client_that_sends_garbage_gets_errors_and_the_session_goes_on():
    lines = [
        "garbage",
        json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}),
        json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "search",
                                                                                  "arguments": "not an object"}}),
        "[1, 2]",
        "{\"jsonrpc\": \"2.0\", \"id\": 3, \"method\": \"tools/call\", \"params\": {\"name\": \"se",
        json.dumps({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "search",
                                                                                  "arguments": {"query": "X"}}}),
    ]
    argv = [*POLICYC, "gateway", str(MCP / "policy.altl"), "--", *SERVER]
    gate = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    answers: dict = {}
    reader = threading.Thread(target=lambda: answers.update(
        (a["id"], a) for a in map(json.loads, iter(gate.stdout.readline, ""))), daemon=True)
    reader.start()
    gate.stdin.write("\n".join(lines) + "\n")
    gate.stdin.flush()
    deadline = time.monotonic() + 60
    while not {1, 2, 4} <= set(answers) and time.monotonic() < deadline and gate.poll() is None:
        time.sleep(0.05)
    gate.stdin.close()  # the client leaves: the session ends
    assert gate.wait(timeout=60) == 0
    reader.join(timeout=10)
    stderr = gate.stderr.read()
    assert "Traceback" not in stderr
    assert answers[1]["result"]["serverInfo"]["name"] == "files"
    assert answers[2]["error"]["code"] == -32602  # invalid params, from the SDK
    assert answers[4]["result"]["structuredContent"] == {"result": ["src/util.py"]}


@pytest.mark.parametrize("server, message", [
    (["/nonexistent/mcp-server"], "cannot start the MCP server `/nonexistent/mcp-server`"),
    ([sys.executable, "-c", "print('not json'); raise SystemExit(1)"], "did not start"),
])
def test_a_server_that_does_not_start_exits_2(server, message):
    argv = [*POLICYC, "gateway", str(MCP / "policy.altl"), "--", *server]
    done = subprocess.run(argv, input="", capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and message in done.stderr
    assert "Traceback" not in done.stderr


def test_an_unwritable_trace_is_refused_before_the_server_starts(tmp_path):
    argv = [*POLICYC, "gateway", str(MCP / "policy.altl"), "--trace", str(tmp_path / "no" / "runs.jsonl"), "--",
            *SERVER]
    done = subprocess.run(argv, input="", capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "cannot write the trace to" in done.stderr and "Traceback" not in done.stderr


def test_a_server_that_never_answers_times_out():
    argv = [*POLICYC, "gateway", str(MCP / "policy.altl"), "--startup-timeout", "1", "--", sys.executable, "-c",
            "import time; time.sleep(30)"]
    done = subprocess.run(argv, input="", capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "did not answer within 1 s" in done.stderr


def test_tool_mismatches_are_reported_at_start_up_and_strict_refuses(tmp_path):
    policy = tmp_path / "other.altl"
    policy.write_text("tool search(query: str, page: int) -> list[str]\ntool read_file(path: int)\n"
                      "terminal tool answer(text: str)\nrule r: called(search)\n")
    argv = [*POLICYC, "gateway", str(policy), "--", *SERVER]
    done = subprocess.run(argv, input="", capture_output=True, text=True, timeout=120)
    assert done.returncode == 0
    lines = [line for line in done.stderr.splitlines() if line.startswith("policyc gateway: ")]
    assert lines == [
        f"policyc gateway: compiled the policy source `{policy}` in memory; a deployed gate loads the artifact "
        "that `policyc compile` makes of it",  # said once, at start-up
        "policyc gateway: error: the policy declares `answer`, which the agent's tools do not include",
        "policyc gateway: error: the agent has `locate`, which the policy does not declare (its calls are "
        "flagged as unknown tools)",
        "policyc gateway: error: the agent has `crash`, which the policy does not declare (its calls are "
        "flagged as unknown tools)",
        "policyc gateway: error: `search` takes an argument `limit` that the policy does not declare",
        "policyc gateway: error: the policy declares an argument `page` of `search` that the tool does not take",
        "policyc gateway: warning: `read_file.path`: the tool takes str, the policy declares int",
    ]
    strict = subprocess.run([*POLICYC, "gateway", str(policy), "--strict-tools", "--", *SERVER], input="",
                            capture_output=True, text=True, timeout=120)
    assert strict.returncode == 2 and "do not match the policy (--strict-tools)" in strict.stderr


def test_import_tools_on_the_servers_list_gives_the_policys_declarations(tmp_path):
    """The checked-in tools.altl is what `policyc import-tools` makes of the live server's list."""
    listing = tmp_path / "files_tools.json"
    listing.write_text(json.dumps(direct_tools().model_dump(mode="json", by_alias=True, exclude_none=True)))
    made = CliRunner().invoke(cli, ["import-tools", str(listing)])
    assert made.exit_code == 0, made.output
    assert made.stdout == (MCP / "tools.altl").read_text()


def test_the_gateway_and_the_tool_check_need_neither_the_parser_nor_the_solver():
    """A deployed gateway loads an artifact: the MCP adapter and the tool-set check import no compiler stage."""
    code = ("import sys, policyc.integrations.mcp, policyc.toolschema, policyc.integrations.gating\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('lark', 'z3') or "
            "m.startswith(('policyc.syntax', 'policyc.check', 'policyc.smt', 'policyc.lint'))))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.strip() == "[]", done.stderr
