"""Trace formats: the paper's record, arrays, JSONL, OpenAI chat, smolagents, τ²-bench; errors
that name file, line and field; every good record still loads."""

from __future__ import annotations

import io
import json

import pytest

from policyc.ir.ops import UNDEF
from policyc.trace import TraceError, detect_format, iter_traces, load_traces, parse_trace
from policyc.trace.errors import RecordProblem

FIXTURES = "tests/fixtures/traces"


def calls_of(trace):
    return [(c.name, dict(c.args), c.result) for c in trace.calls]


def test_the_appendix_b_record():
    (trace,) = load_traces("examples/traces/appendix_b.json").traces
    assert trace.tool_sequence == ["tool_a", "tool_b", "tool_b", "tool_b", "tool_d"]
    assert calls_of(trace)[0] == ("tool_a", {"seed": 42}, {"numbers": [8, 2, 46]})  # the JSON string is parsed
    assert [c.position for c in trace.calls] == [0, 1, 2, 3, 4]
    assert dict(trace.metrics) == {"num_steps": 7, "num_tool_calls": 6, "input_tokens": 13268,
                                   "output_tokens": 127, "total_tokens": 13395}
    assert trace.origin == "examples/traces/appendix_b.json:1"


def test_results_that_are_not_json_text_stay_text_and_absent_results_are_undefined():
    trace = parse_trace({"tool_calls": [{"tool_name": "a", "tool_result": "hello"},
                                        {"tool_name": "a", "tool_result": "42"},
                                        {"tool_name": "a", "tool_result": None}, {"tool_name": "a"}]})
    assert [c.result for c in trace.calls] == ["hello", "42", None, UNDEF]


def test_openai_chat_messages():
    (trace,) = load_traces(f"{FIXTURES}/chat_openai.json").traces
    assert trace.id == "chat-1"
    assert trace.tool_sequence == ["search", "read_file", "grep", "final_answer"]
    # results are matched by tool_call_id, not by order; content parts are joined
    assert calls_of(trace)[1][2] == {"src/requests/api.py": "def request(method, url):\n    pass\n"}
    assert calls_of(trace)[2][2] == ["src/requests/api.py:1"]
    assert trace.calls[3].result is UNDEF
    assert dict(trace.metrics) == {"id": "chat-1", "model": "gpt-4o-mini"}


def test_openai_legacy_function_calls():
    trace = parse_trace([{"role": "assistant", "function_call": {"name": "f", "arguments": "{\"a\": 1}"}},
                         {"role": "function", "name": "f", "content": "[2]"}])
    assert calls_of(trace) == [("f", {"a": 1}, [2])]


def test_openai_responses_items():
    items = [
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "where is parse?"}]},
        {"type": "reasoning", "id": "rs_1", "summary": []},
        {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "search",
         "arguments": "{\"query\": \"parse\"}"},
        {"type": "function_call", "id": "fc_2", "call_id": "call_2", "name": "read_file", "arguments": {"path": "a.py"}},
        {"type": "function_call_output", "call_id": "call_2", "output": "def parse(): pass"},
        {"type": "function_call_output", "call_id": "call_1", "output": "[\"a.py\"]"},
        {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "in a.py"}]},
    ]
    trace = parse_trace(items)
    assert detect_format(items) == "responses"
    assert calls_of(trace) == [("search", {"query": "parse"}, ["a.py"]), ("read_file", {"path": "a.py"}, "def parse(): pass")]
    response = {"id": "resp_1", "object": "response", "output": items[2:4], "usage": {"total_tokens": 42}}
    trace = parse_trace(response)
    assert trace.tool_sequence == ["search", "read_file"] and trace.calls[0].result is UNDEF
    assert dict(trace.metrics)["usage"] == {"total_tokens": 42} and trace.id == "resp_1"
    with pytest.raises(RecordProblem) as problem:
        parse_trace([{"type": "function_call_output", "call_id": "nope", "output": "x"}])
    assert problem.value.path == (0, "call_id")


def test_a_responses_list_in_a_json_file_is_one_record(tmp_path):
    path = tmp_path / "run.json"
    path.write_text(json.dumps([{"type": "function_call", "call_id": "c", "name": "a", "arguments": "{}"},
                                {"type": "function_call_output", "call_id": "c", "output": "1"}]))
    (trace,) = load_traces(str(path)).traces
    assert calls_of(trace) == [("a", {}, "1")]


def test_smolagents_memory_steps():
    (trace,) = load_traces(f"{FIXTURES}/smolagents_steps.json").traces
    assert trace.tool_sequence == ["search", "read_file", "final_answer"]
    assert calls_of(trace)[1][2] == "def request(method, url):\n    pass\n"
    assert calls_of(trace)[2][2] == "request is defined in src/requests/api.py"
    assert trace.metrics["task"] == "Where is request defined?" and trace.metrics["num_steps"] == 3
    assert (trace.metrics["input_tokens"], trace.metrics["output_tokens"]) == (580, 37)


def test_smolagents_steps_with_several_calls_or_errors_leave_results_unknown():
    steps = {"steps": [{"step_number": 1, "observations": "a\nb", "tool_calls": [
        {"id": "1", "type": "function", "function": {"name": "f", "arguments": {}}},
        {"id": "2", "type": "function", "function": {"name": "g", "arguments": "print(1)"}}]},
        {"step_number": 2, "error": {"message": "boom"}, "observations": "x",
         "tool_calls": [{"id": "3", "type": "function", "function": {"name": "h", "arguments": None}}]}]}
    assert detect_format(steps) == "smolagents"
    assert calls_of(parse_trace(steps)) == [("f", {}, UNDEF), ("g", {"input": "print(1)"}, UNDEF), ("h", {}, UNDEF)]


def test_tau2_results_file():
    traces = load_traces(f"{FIXTURES}/tau2_results.json").traces
    assert [t.id for t in traces] == ["sim-1", "sim-2"]
    first = traces[0]
    # the simulated user's own tool call is not the agent's
    assert first.tool_sequence == ["get_customer_by_id", "get_details_by_id", "get_bills_for_customer"]
    assert first.metrics["user_tool_calls"] == 1 and first.metrics["reward"] == 1.0
    assert calls_of(first)[1][2]["status"] == "Active" and calls_of(first)[2][2][0]["bill_id"] == "B9"
    # ... but every event is kept: messages (with the tools they call), the user's call
    assert [(e.name, e.actor, e.message_id) for e in first.events] == [
        ("message", "assistant", "0"), ("message", "user", "1"), ("message", "assistant", "2"),
        ("get_customer_by_id", "assistant", "2"), ("message", "user", "4"), ("toggle_airplane_mode", "user", "4"),
        ("message", "assistant", "6"), ("get_details_by_id", "assistant", "6"),
        ("get_bills_for_customer", "assistant", "6")]
    assert first.events[6].args == {"text": "", "calls": ["get_details_by_id", "get_bills_for_customer"]}
    assert first.request == "My data is slow." and first.events[5].result == "Airplane Mode is now OFF."
    assert first.origin.endswith("tau2_results.json:8") and traces[1].origin.endswith(":30")


def test_tau2_full_duplex_ticks():
    sim = {"id": "s", "task_id": "1", "messages": None, "ticks": [
        {"tick_id": 0, "agent_tool_calls": [{"id": "t", "name": "look", "arguments": {"q": 1}}],
         "agent_tool_results": [{"id": "t", "role": "tool", "content": "[1]"}]}]}
    assert calls_of(parse_trace(sim)) == [("look", {"q": 1}, [1])]


@pytest.mark.parametrize("value,expected", [
    ({"tool_calls": []}, "record"),
    ({"tool_calls": "oops"}, "record"),
    ({"messages": [{"role": "user", "content": "x"}]}, "chat"),
    ([{"role": "assistant", "tool_calls": []}], "chat"),
    ({"task_id": "1", "messages": []}, "tau2"),
    ({"messages": [{"role": "assistant", "tool_calls": [{"id": "1", "name": "f", "arguments": {}}]}]}, "tau2"),
    ([{"task": "t"}, {"step_number": 1, "tool_calls": []}], "smolagents"),
    ({"steps": [{"step_number": 1}]}, "smolagents"),
    ({"something": 1}, None),
    ("text", None),
])
def test_format_detection(value, expected):
    assert detect_format(value) == expected


def test_a_named_format_overrides_detection():
    with pytest.raises(RecordProblem) as problem:
        parse_trace({"tool_calls": []}, format="chat")
    assert problem.value.path == ("messages",)


# ------------------------------------------------------------------ errors name file, line and field


def test_malformed_jsonl_records_are_reported_and_the_rest_load():
    loaded = load_traces(f"{FIXTURES}/mixed_records.jsonl")
    assert [t.id for t in loaded.traces] == ["good-1", "good-2"]
    assert loaded.traces[1].calls[0].args == {"seed": 5}  # arguments given as a JSON string
    found = [(e.line, e.field, e.message) for e in loaded.errors]
    assert found == [
        (2, None, "invalid JSON: expecting value (column 35)"),
        (3, "tool_calls[1].tool_name", "missing field `tool_name`"),
        (5, "tool_calls[0].arguments", "arguments must be an object, found an array"),
        (7, None, found[3][2]),
        (8, "tool_calls", "`tool_calls` must be an array, found an object"),
    ]
    assert found[3][2].startswith("not a trace record")
    assert all(e.file == f"{FIXTURES}/mixed_records.jsonl" for e in loaded.errors)


def test_a_misspelled_call_field_is_named_not_read_as_absent(tmp_path):
    path = tmp_path / "runs.jsonl"
    path.write_text(json.dumps({"id": "bad", "tool_calls": [{"tool_name": "a", "argumnts": {"x": 1}}]}) + "\n"
                    + json.dumps({"id": "ok", "tool_calls": [{"tool_name": "a", "step": 1, "duration_ms": 3,
                                                             "arguments": {"x": 1}}]}) + "\n")
    loaded = load_traces(str(path))
    assert [t.id for t in loaded.traces] == ["ok"]  # extra fields that are not near-misses are data
    (error,) = loaded.errors
    assert (error.line, error.field, error.message) == (
        1, "tool_calls[0].argumnts", "unknown field `argumnts`: did you mean `arguments`?")


def test_another_logs_name_for_a_call_field_is_named_not_read_as_absent(tmp_path):
    """`result` (or `output`, `args`, `input`) is what other logs call a call's fields; in a
    metrics record it would be data, and the result the rules test silently absent."""
    path = tmp_path / "runs.jsonl"
    path.write_text(json.dumps({"id": "bad", "tool_calls": [{"tool_name": "a", "arguments": {}, "result": [1]}]})
                    + "\n" + json.dumps({"id": "args", "tool_calls": [{"tool_name": "a", "args": {"x": 1}}]})
                    + "\n" + json.dumps({"id": "ok", "tool_calls": [{"tool_name": "a", "tool_result": [1],
                                                                    "output_tokens": 3}]}) + "\n")
    loaded = load_traces(str(path))
    assert [t.id for t in loaded.traces] == ["ok"]
    assert [(e.line, e.field) for e in loaded.errors] == [(1, "tool_calls[0].result"), (2, "tool_calls[0].args")]
    assert "`tool_result`" in loaded.errors[0].message and "`arguments`" in loaded.errors[1].message


def test_errors_inside_a_json_array_point_at_the_field_line():
    loaded = load_traces(f"{FIXTURES}/records_array.json")
    assert [t.id for t in loaded.traces] == ["r1", "r3"]
    (error,) = loaded.errors
    assert (error.line, error.field, error.message) == (6, "tool_calls[1].tool_name",
                                                        "`tool_name` must be a string, found a number")
    assert str(error) == f"{FIXTURES}/records_array.json:6: `tool_calls[1].tool_name`: " \
                         "`tool_name` must be a string, found a number"


def test_records_keep_their_input_order(tmp_path):
    path = tmp_path / "runs.jsonl"
    path.write_text('{"tool_calls": []}\n{"tool_calls": 1}\n{"tool_calls": [{"tool_name": "x"}]}\n')
    kinds = [type(item).__name__ for item in iter_traces(path)]
    assert kinds == ["Trace", "TraceError", "Trace"]


def test_invalid_json_files_and_missing_files(tmp_path):
    broken = tmp_path / "broken.json"
    broken.write_text('{\n  "tool_calls": [\n    {"tool_name": "a",}\n  ]\n}\n')
    (error,) = load_traces(broken).errors
    assert error.line == 3 and error.message.startswith("invalid JSON")
    (missing,) = load_traces(tmp_path / "nope.json").errors
    assert (missing.line, missing.message) == (None, "does not exist")


def test_json_text_with_one_value_per_line_is_read_as_jsonl(tmp_path):
    path = tmp_path / "runs.json"
    path.write_text('{"tool_calls": []}\n{"tool_calls": [{"tool_name": "a"}]}\n')
    assert [t.tool_sequence for t in load_traces(path).traces] == [[], ["a"]]


def test_folders_are_read_recursively_in_order(tmp_path):
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "one.jsonl").write_text('{"id": "2", "tool_calls": []}\n')
    (tmp_path / "a.json").write_text('[{"id": "1", "tool_calls": []}]')
    (tmp_path / "notes.txt").write_text("not a trace")
    assert [t.id for t in load_traces(tmp_path).traces] == ["1", "2"]


def test_standard_input(monkeypatch):
    monkeypatch.setattr("sys.stdin", io.StringIO(json.dumps({"tool_calls": [{"tool_name": "a"}]})))
    loaded = load_traces("-")
    assert loaded.traces[0].tool_sequence == ["a"] and loaded.traces[0].origin == "<stdin>:1"


def test_chat_tool_replies_must_answer_an_earlier_call():
    with pytest.raises(RecordProblem) as problem:
        parse_trace({"messages": [{"role": "tool", "tool_call_id": "zz", "content": "x"}]})
    assert problem.value.path == ("messages", 0, "tool_call_id")
    assert "no earlier tool call has the id `zz`" in problem.value.message


def test_trace_errors_are_data():
    error = TraceError("f.jsonl", 4, None, "invalid JSON: expecting value (column 2)")
    assert str(error) == "f.jsonl:4: invalid JSON: expecting value (column 2)"
    assert error.to_json() == {"file": "f.jsonl", "line": 4, "field": None,
                               "message": "invalid JSON: expecting value (column 2)"}
