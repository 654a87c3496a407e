"""Hostile trace input, second round: tool calls a reader used to drop without a word.

Each case below hides a `delete` call where a reader did not look: scored against
`never(delete)`, the run passed and nothing was reported. Every reader now either reads the
call, where its format defines it (Anthropic `mcp_tool_use` and `server_tool_use`, OpenAI
Responses `custom_tool_call`, `local_shell_call`, `mcp_call` and the built-in tools' calls,
LangChain `tool_call_chunks`, OpenInference tool spans, another spelling of `execute_tool`),
or reports the record as an input problem naming its file, line and field (a misspelt
`tool_calls`, calls in a field or block the format does not define, a model's call no tool
span ran, a metrics record that is also a chat).

A fuzzer per reader hides call-shaped values in valid records (under new keys, misspelt
keys, unknown block, item and span types): every record is then read with the call, or
reported. Records in = scored + reported.
"""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from policyc.cli import cli
from policyc.trace import parse_trace
from policyc.trace.errors import RecordProblem
from policyc.trace.formats import FORMATS

DELETE = {"path": "/"}


def user(text="clean up"):
    return {"role": "user", "content": text}


# ------------------------------------------------------------------ the cases

ANTHROPIC = [
    ("mcp_tool_use", "read", [user(), {"role": "assistant", "content": [
        {"type": "mcp_tool_use", "id": "m1", "name": "delete", "server_name": "fs", "input": DELETE}]},
        {"role": "user", "content": [{"type": "mcp_tool_result", "tool_use_id": "m1", "is_error": False,
                                      "content": [{"type": "text", "text": "gone"}]}]}]),
    ("server_tool_use", "read", [user(), {"role": "assistant", "content": [
        {"type": "server_tool_use", "id": "s1", "name": "delete", "input": DELETE},
        {"type": "web_search_tool_result", "tool_use_id": "s1", "content": [{"type": "web_search_result"}]}]}]),
    ("server_tool_use-unanswered", "read", {"type": "message", "role": "assistant", "content": [
        {"type": "server_tool_use", "id": "s1", "name": "delete", "input": DELETE}]}),
    ("server-error", "read", [user(), {"role": "assistant", "content": [
        {"type": "server_tool_use", "id": "s1", "name": "delete", "input": DELETE},
        {"type": "code_execution_tool_result", "tool_use_id": "s1",
         "content": {"type": "code_execution_tool_result_error", "error_code": "unavailable"}}]}]),
    ("unknown-block", "problem", [user(), {"role": "assistant", "content": [
        {"type": "tool_use", "id": "t1", "name": "search", "input": {}},
        {"type": "tool_call", "id": "t2", "name": "delete", "input": DELETE}]}]),
    ("misspelt-type", "problem", [user(), {"role": "assistant", "content": [
        {"type": "tool_use", "id": "t1", "name": "search", "input": {}},
        {"type": "tool-use", "id": "t2", "name": "delete", "input": DELETE}]}]),
]
RESPONSES = [
    ("custom_tool_call", "read", [{"type": "custom_tool_call", "call_id": "c1", "name": "delete", "input": "/"},
                                  {"type": "custom_tool_call_output", "call_id": "c1", "output": "gone"}]),
    ("local_shell_call", "read", [{"type": "local_shell_call", "call_id": "c1", "status": "completed",
                                   "action": {"type": "exec", "command": ["rm", "-rf", "/"]}},
                                  {"type": "local_shell_call_output", "call_id": "c1", "output": ""}]),
    ("mcp_call", "read", [{"type": "mcp_call", "id": "m1", "name": "delete", "server_label": "fs",
                           "arguments": json.dumps(DELETE), "output": "gone", "error": None}]),
    ("mcp_call-failed", "read", [{"type": "mcp_call", "id": "m1", "name": "delete", "server_label": "fs",
                                  "arguments": "{}", "output": None, "error": "denied"}]),
    ("web_search_call", "read", [{"type": "web_search_call", "id": "w1", "status": "completed",
                                  "action": {"type": "search", "query": "x"}},
                                 {"type": "function_call", "call_id": "c1", "name": "delete", "arguments": "{}"}]),
    ("unknown-item", "problem", [{"type": "function_call", "call_id": "c1", "name": "search", "arguments": "{}"},
                                 {"type": "tool_use", "id": "t1", "name": "delete", "input": DELETE}]),
    ("renamed-item", "problem", [{"type": "function_call", "call_id": "c1", "name": "search", "arguments": "{}"},
                                 {"type": "function_call_v2", "call_id": "c2", "name": "delete", "arguments": "{}"}]),
]
AI = {"type": "ai", "content": ""}
LANGCHAIN = [
    ("tool_call_chunks", "read", [{"type": "human", "content": "clean up"}, {**AI, "type": "AIMessageChunk",
        "tool_calls": [], "tool_call_chunks": [{"name": "delete", "args": '{"path": "/"}', "id": "c1", "index": 0}]},
        {"type": "tool", "content": "gone", "tool_call_id": "c1"}]),
    ("split-chunks", "read", [{"type": "human", "content": "clean up"}, {**AI, "tool_call_chunks": [
        {"name": "delete", "args": '{"pa', "id": "c1", "index": 0}, {"name": None, "args": 'th": "/"}', "index": 0}]}]),
    ("misspelt", "problem", [{"type": "human", "content": "clean up"},
                             {**AI, "tool_call": [{"name": "delete", "args": DELETE, "id": "c1"}]}]),
    ("content-blocks", "problem", [{"type": "human", "content": "clean up"}, {**AI, "content": [
        {"type": "tool_use", "name": "delete", "input": DELETE, "id": "c1"}], "tool_calls": []}]),
    ("legacy-function-call", "problem", [{"type": "human", "content": "clean up"}, {**AI, "additional_kwargs": {
        "function_call": {"name": "delete", "arguments": json.dumps(DELETE)}}}]),
]


def attrs(**values):
    return [{"key": k.replace("__", "."), "value": {"stringValue": v}} for k, v in values.items()]


def span(i, **values):
    return {"traceId": "t1", "spanId": f"s{i}", "startTimeUnixNano": str(i), "attributes": attrs(**values)}


SEARCH_SPAN = span(2, gen_ai__operation__name="execute_tool", gen_ai__tool__name="search",
                   gen_ai__tool__call__arguments="{}", gen_ai__tool__call__id="c0")
CHAT_SPAN = span(1, gen_ai__operation__name="chat", gen_ai__output__messages=json.dumps([{"role": "assistant", "parts": [
    {"type": "tool_call", "id": "c0", "name": "search", "arguments": {}},
    {"type": "tool_call", "id": "c1", "name": "delete", "arguments": DELETE}]}]))
OTEL = [
    ("model-output-call", "problem", {"spans": [CHAT_SPAN, SEARCH_SPAN]}),
    ("openinference-tool", "read", {"spans": [SEARCH_SPAN, span(3, openinference__span__kind="TOOL",
                                                                 tool__name="delete", input__value=json.dumps(DELETE),
                                                                 output__value="gone")]}),
    ("openinference-only", "read", {"spans": [span(3, openinference__span__kind="TOOL", tool__name="delete",
                                                   input__value="/")]}),
    ("operation-spelling", "read", {"spans": [span(3, gen_ai__operation__name="Execute-Tool",
                                                   gen_ai__tool__name="delete", gen_ai__tool__call__arguments="{}")]}),
    ("other-operation", "problem", {"spans": [SEARCH_SPAN, span(3, gen_ai__operation__name="tool",
                                                                 gen_ai__tool__name="delete")]}),
    ("openinference-llm-call", "problem", {"spans": [SEARCH_SPAN, span(
        1, openinference__span__kind="LLM", llm__output_messages__0__message__role="assistant",
        llm__output_messages__0__message__tool_calls__0__tool_call__function__name="delete",
        llm__output_messages__0__message__tool_calls__0__tool_call__function__arguments="{}")]}),
]
RECORD = [
    ("record-and-messages", "problem", {"tool_calls": [{"tool_name": "search", "arguments": {}}], "messages": [
        {"role": "assistant", "tool_calls": [{"id": "c1", "function": {"name": "delete", "arguments": "{}"}}]}]}),
    ("calls-elsewhere", "problem", {"tool_calls": [{"tool_name": "search"}],
                                    "more_calls": [{"tool_name": "delete", "arguments": DELETE}]}),
    ("no-tool_name", "problem", {"tool_calls": [{"tool_name": "search"}, {"name": "delete", "arguments": DELETE}]}),
]
STEP = {"step_number": 1, "observations": "ok"}
SMOLAGENTS = [
    ("tool_call", "problem", [{"task": "clean up"}, {**STEP, "tool_call": [
        {"id": "1", "function": {"name": "delete", "arguments": DELETE}}]}]),
    ("toolCalls", "problem", [{"task": "clean up"}, {**STEP, "toolCalls": [
        {"id": "1", "function": {"name": "delete", "arguments": DELETE}}]}]),
    ("model-output-only", "problem", [{"task": "clean up"}, {**STEP, "model_output_message": {
        "role": "assistant", "tool_calls": [{"id": "1", "function": {"name": "delete", "arguments": DELETE}}]}}]),
]
CHAT = [
    ("tool_call", "problem", [user(), {"role": "assistant", "tool_call": [
        {"id": "c1", "function": {"name": "delete", "arguments": "{}"}}]}]),
    ("content-part", "problem", [user(), {"role": "assistant", "content": [
        {"type": "function_call", "name": "delete", "arguments": "{}"}]}]),
]
TAU2 = [
    ("toolcalls", "problem", {"id": "s", "task_id": "1", "messages": [user(), {"role": "assistant", "toolcalls": [
        {"id": "t1", "name": "delete", "arguments": DELETE}]}]}),
]
CASES = [(fmt, *case) for fmt, cases in (("anthropic", ANTHROPIC), ("responses", RESPONSES), ("langchain", LANGCHAIN),
                                         ("otel", OTEL), ("record", RECORD), ("smolagents", SMOLAGENTS),
                                         ("chat", CHAT), ("tau2", TAU2)) for case in cases]


def called(trace) -> list[str]:
    return [e.name for e in trace.events if not e.is_message]


@pytest.mark.parametrize("fmt, name, outcome, record", CASES, ids=[f"{c[0]}-{c[1]}" for c in CASES])
def test_a_hidden_call_is_read_or_reported(fmt, name, outcome, record):
    if outcome == "problem":
        with pytest.raises(RecordProblem) as problem:
            parse_trace(record)
        assert problem.value.path, "the problem names the field"
        return
    trace = parse_trace(record)
    assert {"delete", "local_shell", "web_search"} & set(called(trace)), called(trace)


def test_through_the_command_line_records_in_are_scored_plus_reported(tmp_path):
    policy = tmp_path / "p.altl"
    policy.write_text("tool search()\ntool delete(path: str?)\nrule no_delete severity deny: never(delete)\n")
    traces = tmp_path / "runs.jsonl"
    traces.write_text("".join(json.dumps(c[3]) + "\n" for c in CASES))
    done = CliRunner().invoke(cli, ["score", str(policy), str(traces), "--format", "json"])
    assert done.exit_code == 2, done.output  # some records are input problems
    out = json.loads(done.stdout)
    problems = [c for c in CASES if c[2] == "problem"]
    assert (out["records"], out["malformed_records"]) == (len(CASES), len(problems))
    assert out["traces"] + out["malformed_records"] == out["records"]
    for malformed in out["malformed"]:
        assert malformed["file"] == str(traces) and malformed["line"] >= 1 and malformed["field"]
    deleting = [r for r in out["reports"] if "delete" in r["tool_sequence"]]
    assert deleting and all(r["compliance_score"] == 0.0 for r in deleting)


# ------------------------------------------------------------------ the fuzzer

BASES = {
    "record": {"tool_calls": [{"tool_name": "search", "arguments": {}}]},
    "chat": [user(), {"role": "assistant", "tool_calls": [{"id": "c0", "function": {"name": "search",
                                                                                     "arguments": "{}"}}]},
             {"role": "tool", "tool_call_id": "c0", "content": "[]"}],
    "responses": [{"type": "function_call", "call_id": "c0", "name": "search", "arguments": "{}"}],
    "anthropic": [user(), {"role": "assistant", "content": [{"type": "tool_use", "id": "t0", "name": "search",
                                                             "input": {}}]}],
    "langchain": [{"type": "human", "content": "clean up"},
                  {**AI, "tool_calls": [{"name": "search", "args": {}, "id": "c0"}]}],
    "otel": {"spans": [SEARCH_SPAN]},
    "smolagents": [{"task": "clean up"}, {**STEP, "tool_calls": [{"id": "0", "function": {"name": "search",
                                                                                          "arguments": {}}}]}],
    "tau2": {"id": "s", "task_id": "1", "messages": [user(), {"role": "assistant", "tool_calls": [
        {"id": "t0", "name": "search", "arguments": {}}]}]},
}
#: keys each reader reads (where a call-shaped value may rightly be something else, or is read)
KNOWN = {"tool_calls", "tool_call_chunks", "invalid_tool_calls", "additional_kwargs", "function_call",
         "model_output_message", "model_input_messages", "tool_messages", "function", "input", "args", "arguments",
         "content", "spans", "attributes", "kwargs", "data", "messages", "steps", "items", "output", "channel_values",
         "parts", "action"}
QUIET_TYPES = {"text", "thinking", "redacted_thinking", "image", "document", "search_result", "container_upload",
               "message", "reasoning", "mcp_list_tools", "mcp_approval_request", "mcp_approval_response",
               "item_reference", "compaction"}

CALL_SHAPES = st.sampled_from([
    {"name": "delete", "arguments": DELETE}, {"name": "delete", "input": DELETE}, {"tool_name": "delete", "args": {}},
    {"function": {"name": "delete", "arguments": "{}"}}, {"id": "x", "name": "delete", "arguments": "{}"},
])
KEYS = st.one_of(
    st.sampled_from(["tool_call", "toolCalls", "tool_calls_", "calls", "actions", "tool_usage", "tools_called",
                     "toolcalls", "function_calls"]),
    st.text(st.characters(min_codepoint=97, max_codepoint=122), min_size=1, max_size=10),
).filter(lambda k: k not in KNOWN)
TYPES = st.one_of(st.sampled_from(["tool_call", "tool-use", "function_call_v2", "toolUse", "call", "tool",
                                   "x_tool_call", "api_call"]),
                  st.text(st.characters(min_codepoint=97, max_codepoint=122), min_size=1, max_size=12)
                  ).filter(lambda t: t not in QUIET_TYPES)


def _containers(fmt: str, record) -> list[dict]:
    """The objects of a record that stand for a message, a step, an item or the record."""
    if fmt == "otel":
        return []
    if isinstance(record, dict):
        return [record] + [m for m in record.get("messages", []) if isinstance(m, dict)]
    return [m for m in record if isinstance(m, dict)]


@st.composite
def hidden(draw, fmt: str):
    record = json.loads(json.dumps(BASES[fmt]))
    call = draw(CALL_SHAPES)
    how = draw(st.sampled_from(["key", "list", "item"]))
    if fmt == "otel":
        op = draw(st.sampled_from(["tool", "call_tool", "execute", "function", "Tool", "run_tool"]))
        extra = [{"key": "gen_ai.operation.name", "value": {"stringValue": op}},
                 {"key": "gen_ai.tool.name", "value": {"stringValue": "delete"}}]
        record["spans"].append({"traceId": "t1", "spanId": "s9", "startTimeUnixNano": "9", "attributes": extra})
        return record
    containers = _containers(fmt, record)
    target = draw(st.sampled_from(containers))
    if how == "item" and isinstance(record, list):
        record.insert(draw(st.integers(0, len(record))), {**call, "type": draw(TYPES)})
    elif how == "item" and fmt == "anthropic":
        blocks = record[1]["content"]
        blocks.insert(draw(st.integers(0, len(blocks))), {**call, "type": draw(TYPES)})
    else:
        target[draw(KEYS)] = call if how == "key" else [call]
    return record


@pytest.mark.parametrize("fmt", FORMATS)
@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_fuzz_no_reader_drops_a_call_shaped_value(fmt, data):
    record = data.draw(hidden(fmt))
    try:
        trace = parse_trace(record, fmt)
    except RecordProblem as problem:
        assert isinstance(problem.message, str) and problem.message
        return
    assert "delete" in called(trace), f"{fmt}: a call was dropped from {json.dumps(record)[:300]}"


def test_a_langchain_message_that_is_itself_a_call_is_an_input_problem():
    """Found by the fuzz test above: a `human` message that names a tool and gives it
    arguments was read as a message and its call lost."""
    record = [{"name": "delete", "arguments": {"path": "/"}, "type": "human"},
              {"type": "human", "content": "clean up"},
              {"type": "ai", "content": "", "tool_calls": [{"name": "search", "args": {}, "id": "c0"}]}]
    with pytest.raises(RecordProblem) as problem:
        parse_trace(record, "langchain")
    assert problem.value.path == (0,) and "tool call" in problem.value.message
