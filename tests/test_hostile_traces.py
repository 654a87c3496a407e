"""Hostile trace input: every record is either scored or reported, never a traceback.

Each test pins one way a careless or hostile trace file used to lose data or crash: line
breaks inside strings, bad bytes, over-long numbers, over-deep nesting, fields of the wrong
JSON type, files in a format nobody reads, and output that made grounding quadratic or
recursive. A fuzz test drives every format's reader with random and mutated records.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from policyc.automata import compile_policy
from policyc.check import check_file, check_text
from policyc.cli import cli
from policyc.grounding import CODE, MAX_ENTITIES, PROSE
from policyc.scoring import score_corpus, score_trace
from policyc.trace import FORMATS, Trace, TraceError, iter_traces, load_traces, parse_trace
from policyc.trace.errors import RecordProblem
from policyc.jsontext import MAX_DEPTH

FAN_OUT = "examples/fan_out_fan_in.altl"
GOOD = {"id": "good", "tool_calls": [{"tool_name": "tool_a", "arguments": {"seed": 1}}]}


def report_of(policy, trace, **options):
    """The report of a trace against a checked policy, compiled for the scorer."""
    return score_trace(compile_policy(policy), trace, **options)


def good(i: int) -> str:
    return json.dumps({**GOOD, "id": f"good-{i}"})


def score(*args):
    result = CliRunner().invoke(cli, ["score", *args], env={"NO_COLOR": "1", "COLUMNS": "120"})
    assert "Traceback" not in result.output + result.stderr
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result


def counted(path) -> tuple[list[Trace], list[TraceError]]:
    """Every record of a file, and a check that records = scored + malformed."""
    policy, _ = check_file(FAN_OUT)
    items = list(iter_traces(str(path)))
    corpus = score_corpus(compile_policy(policy), items)
    traces = [i for i in items if isinstance(i, Trace)]
    errors = [i for i in items if isinstance(i, TraceError)]
    assert (corpus.records, corpus.traces, corpus.malformed_records) == (len(items), len(traces), len(errors))
    return traces, errors


# ------------------------------------------------------------------ lines and bytes


def test_a_line_separator_inside_a_jsonl_string_splits_nothing(tmp_path):
    path = tmp_path / "runs.jsonl"
    odd = {"id": "odd", "tool_calls": [{"tool_name": "tool_a", "arguments": {"seed": 1, "note": "a\u2028b\u2029c\x85d"}}]}
    path.write_text(json.dumps(odd, ensure_ascii=False) + "\n" + good(2) + "\r\n" + "{broken\n" + good(4) + "\n",
                    encoding="utf-8")
    traces, errors = counted(path)
    assert [(t.id, t.origin) for t in traces] == [("odd", f"{path}:1"), ("good-2", f"{path}:2"), ("good-4", f"{path}:4")]
    assert traces[0].calls[0].args["note"] == "a\u2028b\u2029c\x85d"
    assert [(e.line, e.message.split(":")[0]) for e in errors] == [(3, "invalid JSON")]


def test_one_bad_byte_in_a_jsonl_file_loses_only_its_line(tmp_path):
    path = tmp_path / "runs.jsonl"
    path.write_bytes(good(1).encode() + b"\n" + b'{"id": "b\xff\xfe", "tool_calls": []}\n' + good(3).encode() + b"\n")
    traces, errors = counted(path)
    assert [t.id for t in traces] == ["good-1", "good-3"]
    (error,) = errors
    assert (error.line, error.message) == (2, "not valid UTF-8: byte 0xff (column 10)")


def test_one_bad_element_of_a_json_array_loses_only_itself(tmp_path):
    path = tmp_path / "runs.json"
    path.write_bytes(b"[\n" + good(1).encode() + b",\n" + b'{"id": "b\xff", "tool_calls": []},\n'
                     + b'{"tool_calls": [1 2]},\n' + b'  {"tool_calls": [{"tool_name": 7}]},\n' + good(5).encode() + b"\n]\n")
    traces, errors = counted(path)
    assert [(t.id, t.origin) for t in traces] == [("good-1", f"{path}:2"), ("good-5", f"{path}:6")]
    assert [(e.line, e.field, e.message) for e in errors] == [
        (3, None, "not valid UTF-8: byte 0xff (column 10)"),
        (4, None, "invalid JSON: expecting `,` delimiter (column 19)"),
        (5, "tool_calls[0].tool_name", "`tool_name` must be a string, found a number"),
    ]


def test_a_bad_simulation_of_a_tau2_results_file_loses_only_itself(tmp_path):
    sim = {"id": "s1", "task_id": "t", "messages": [{"role": "assistant", "tool_calls": [
        {"id": "c", "name": "get_details_by_id", "arguments": {"id": "L1"}}]}]}
    path = tmp_path / "results.json"
    path.write_text('{"info": {}, "tasks": [],\n "simulations": [\n' + json.dumps(sim) + ",\n"
                    + '{"id": "s2", "task_id": "t", "messages": [' + "9" * 5000 + "]},\n"
                    + json.dumps({**sim, "id": "s3"}) + "\n]}\n")
    traces, errors = counted(path)
    assert [(t.id, t.origin) for t in traces] == [("s1", f"{path}:3"), ("s3", f"{path}:5")]
    assert [(e.line, e.message) for e in errors] == [(4, "invalid JSON: a number has more than 4300 digits")]


# ------------------------------------------------------------------ numbers and nesting


@pytest.mark.parametrize("suffix", [".jsonl", ".json"])
def test_a_huge_number_or_deep_nesting_is_one_malformed_record(tmp_path, suffix):
    big = '{"id": "big", "tool_calls": [{"tool_name": "tool_a", "arguments": {"seed": ' + "1" * 5000 + "}}]}"
    deep = "[" * 20000 + "]" * 20000
    shallow_but_over = json.dumps({"tool_calls": [{"tool_name": "tool_a", "arguments": {"x": _nested(MAX_DEPTH)}}]})
    records = [good(1), big, deep, shallow_but_over, good(5)]
    path = tmp_path / f"runs{suffix}"
    path.write_text(("\n".join(records) if suffix == ".jsonl" else "[\n" + ",\n".join(records) + "\n]") + "\n")
    traces, errors = counted(path)
    offset = 0 if suffix == ".jsonl" else 1
    assert [t.id for t in traces] == ["good-1", "good-5"]
    assert [(e.line - offset, e.message) for e in errors] == [
        (2, "invalid JSON: a number has more than 4300 digits"),
        (3, f"the record is nested more than {MAX_DEPTH} levels deep"),
        (4, f"the record is nested more than {MAX_DEPTH} levels deep"),
    ]
    result = score(FAN_OUT, str(path), "--format", "jsonl")
    assert result.exit_code == 2  # input problems, and the good records scored: never 3
    assert sum('"compliance_score"' in line for line in result.stdout.splitlines()) == 2


@pytest.mark.parametrize("suffix", [".jsonl", ".json"])
def test_values_json_does_not_have_are_one_malformed_record_each(tmp_path, suffix):
    # Python's `json` reads `NaN`, `Infinity`, `1e400` (an infinity) and a lone `\ud800`; the
    # surrogate then broke the report's output (exit 3, every record after it lost), and the
    # numbers were scored as numbers no JSON holds
    def call(value: str) -> str:
        return '{"id": "x", "tool_calls": [{"tool_name": "tool_a", "arguments": {"seed": %s}}]}' % value
    records = [good(1), call("NaN"), call("-Infinity"), call("1e400"), call('"\\ud800"'),
               '{"id": "\\udfff", "tool_calls": []}', call('"\\ud83d\\ude00 1e300"'), call("1e300"), good(9)]
    path = tmp_path / f"runs{suffix}"
    path.write_text(("\n".join(records) if suffix == ".jsonl" else "[\n" + ",\n".join(records) + "\n]") + "\n")
    traces, errors = counted(path)
    offset = 0 if suffix == ".jsonl" else 1
    assert [t.id for t in traces] == ["good-1", "x", "x", "good-9"]  # an emoji's pair, 1e300: fine
    assert [(e.line - offset, e.message.split(" (")[0]) for e in errors] == [
        (2, "invalid JSON: `NaN` is not a JSON number"),
        (3, "invalid JSON: `-Infinity` is not a JSON number"),
        (4, "invalid JSON: a number is too large for a double"),
        (5, "invalid JSON: a string holds `\\ud800`, half of a UTF-16 surrogate pair, which is no character"),
        (6, "invalid JSON: a string holds `\\udfff`, half of a UTF-16 surrogate pair, which is no character"),
    ]
    for fmt in ("text", "json", "jsonl"):
        result = score(FAN_OUT, str(path), "--format", fmt)
        assert result.exit_code == 2, result.output  # input problems, the good records scored: never 3


@pytest.mark.parametrize("text", ['["\\ud800"]', '{"a": "\\udfff x"}', "[NaN]", '{"n": -Infinity}', "[1e400]",
                                  "[" * 300 + "]" * 300])
def test_result_text_that_is_not_json_as_defined_stays_text(tmp_path, text):
    """A result recorded as text is parsed when it holds JSON; Python's `json` read `NaN`,
    `1e400` and half a surrogate pair in it, and the surrogate then broke `policyc report`
    (exit 3). Such text now stays text, in every reader of results."""
    from policyc.trace.formats.common import parse_result
    from policyc.trace.results import shaped_result
    from policyc.ir.types import ANY

    assert parse_result(text) == text and shaped_result(text, ANY) == text
    record = {"id": "r", "tool_calls": [{"tool_name": "tool_a", "arguments": {"seed": 1}, "tool_result": text}]}
    path = tmp_path / "runs.jsonl"
    path.write_text(json.dumps(record) + "\n")
    (trace,), errors = counted(path)
    assert errors == [] and trace.calls[0].result == text
    result = CliRunner().invoke(cli, ["report", FAN_OUT, str(path), "-o", str(tmp_path / "r.html")])
    assert result.exit_code in (0, 1), result.output


def _nested(depth: int) -> object:
    value: object = 1
    for _ in range(depth):
        value = [value]
    return value


_JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=3),
                     lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=2), inner, max_size=3),
                     max_leaves=30)


def _depth(value: object) -> int:
    """How deeply lists and objects nest, by recursion (the values here are small)."""
    if isinstance(value, dict):
        return 1 + max(map(_depth, value.values()), default=0)
    if isinstance(value, list):
        return 1 + max(map(_depth, value), default=0)
    return 0


@settings(max_examples=300, deadline=None)
@given(_JSON, st.integers(0, 6))
def test_too_deep_is_the_nesting_depth_over_the_limit(value, limit):
    from policyc.jsontext import too_deep

    decoded = json.loads(json.dumps(value))  # what it is asked of: values `json` decoded
    assert too_deep(decoded, limit) == (_depth(decoded) > limit)


def test_a_tool_result_holding_a_huge_number_or_deep_json_stays_text():
    huge = "[" + "1" * 5000 + "]"
    deep = "[" * 900 + "]" * 900
    trace = parse_trace({"tool_calls": [{"tool_name": "a", "tool_result": huge}, {"tool_name": "a", "tool_result": deep}]})
    assert [c.result for c in trace.calls] == [huge, deep]


# ------------------------------------------------------------------ fields of the wrong type


def test_tau2_tool_calls_that_are_not_a_list_are_a_malformed_record(tmp_path):
    path = tmp_path / "sims.jsonl"
    path.write_text(json.dumps({"id": "x", "task_id": "t", "messages": [{"role": "assistant", "tool_calls": True}]})
                    + "\n" + json.dumps({"id": "y", "task_id": "t", "messages": [
                        {"role": "tool", "id": "c", "content": "x", "error": "yes"}]}) + "\n")
    _, errors = counted(path)
    assert [(e.line, e.field, e.message) for e in errors] == [
        (1, "messages[0].tool_calls", "`tool_calls` must be an array, found a boolean"),
        (2, "messages[0].error", "`error` must be a boolean, found a string"),
    ]


# ------------------------------------------------------------------ formats nobody reads, and no events


def test_a_file_in_an_unknown_format_is_an_input_problem(tmp_path):
    path = tmp_path / "weird.json"
    path.write_text(json.dumps({"run": 1, "steps_taken": []}))
    result = score(FAN_OUT, str(path))
    assert result.exit_code == 2
    assert "not a trace record" in result.stderr + result.stdout


@pytest.mark.parametrize("record,what", [
    ({"messages": [{"role": "system", "content": "You are helpful."}]}, "messages"),
    ([{"type": "reasoning", "summary": []}, {"type": "function_call_output", "call_id": "x", "output": "1"}], None),
    ({"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": "t", "spanId": "s", "attributes": []}]}]}]}, "spans"),
])
def test_a_record_that_yields_no_events_is_a_problem(record, what):
    with pytest.raises(RecordProblem) as problem:
        parse_trace(record)
    if what is not None:
        assert problem.value.message.startswith("no events") and what in problem.value.message


def test_anthropic_messages_are_read_not_silently_empty(tmp_path):
    conversation = {"model": "claude", "messages": [
        {"role": "user", "content": "Refuel 1 GB on my line L1002."},
        {"role": "assistant", "content": [{"type": "text", "text": "Checking your usage."},
                                          {"type": "tool_use", "id": "t1", "name": "get_data_usage",
                                           "input": {"customer_id": "C1", "line_id": "L1002"}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1",
                                      "content": "{\"data_used_gb\": 15.2, \"data_limit_gb\": 15}"}]},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t2", "name": "refuel_data",
                                           "input": {"customer_id": "C1", "line_id": "L1002", "gb_amount": 1}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t2", "is_error": True,
                                      "content": [{"type": "text", "text": "Line is suspended"}]}]},
    ]}
    path = tmp_path / "claude.json"
    path.write_text(json.dumps(conversation))
    (trace,) = load_traces(path).traces
    assert trace.tool_sequence == ["get_data_usage", "refuel_data"]
    assert trace.calls[0].result == {"data_used_gb": 15.2, "data_limit_gb": 15}
    assert (trace.calls[1].result, trace.calls[1].error) == ("Line is suspended", True)
    assert trace.request == "Refuel 1 GB on my line L1002."
    assert [(e.name, e.actor) for e in trace.events] == [
        ("message", "user"), ("message", "assistant"), ("get_data_usage", "assistant"),
        ("message", "assistant"), ("refuel_data", "assistant")]


@pytest.mark.parametrize("shape", ["model_dump", "to_dict", "dumpd", "langgraph"])
def test_langchain_dumps_are_read(shape):
    human = {"content": "Is roaming on for L1?", "type": "human", "id": "h1"}
    ai = {"content": "", "type": "ai", "id": "a1",
          "tool_calls": [{"name": "get_details_by_id", "args": {"id": "L1"}, "id": "c1", "type": "tool_call"}]}
    tool = {"content": "{\"roaming_enabled\": false}", "type": "tool", "tool_call_id": "c1", "status": "success"}
    messages = [human, ai, tool]
    if shape == "to_dict":
        messages = [{"type": m["type"], "data": m} for m in messages]
    elif shape == "dumpd":
        classes = {"human": "HumanMessage", "ai": "AIMessage", "tool": "ToolMessage"}
        messages = [{"lc": 1, "type": "constructor", "id": ["langchain", "schema", "messages", classes[m["type"]]],
                     "kwargs": {k: v for k, v in m.items() if k != "type"}} for m in messages]
    record = {"messages": messages} if shape == "langgraph" else messages
    trace = parse_trace(record)
    assert trace.tool_sequence == ["get_details_by_id"]
    assert trace.calls[0].args == {"id": "L1"} and trace.calls[0].result == {"roaming_enabled": False}
    assert trace.request == "Is roaming on for L1?"


def _attrs(**values):
    return [{"key": k.replace("__", "."), "value": {"intValue": str(v)} if isinstance(v, int) else {"stringValue": v}}
            for k, v in values.items()]


def test_opentelemetry_genai_spans_are_read():
    chat = {"traceId": "T1", "spanId": "a", "name": "chat gpt-4o", "startTimeUnixNano": "100",
            "attributes": _attrs(gen_ai__operation__name="chat", gen_ai__request__model="gpt-4o",
                                 gen_ai__usage__input_tokens=120,
                                 gen_ai__input__messages=json.dumps([{"role": "user", "parts": [
                                     {"type": "text", "content": "My data stopped working."}]}]),
                                 gen_ai__output__messages=json.dumps([{"role": "assistant", "parts": [
                                     {"type": "tool_call", "id": "c1", "name": "get_data_usage",
                                      "arguments": {"line_id": "L1"}}]}]))}
    tool = {"traceId": "T1", "spanId": "b", "parentSpanId": "a", "name": "execute_tool get_data_usage",
            "startTimeUnixNano": "200", "status": {"code": 2},
            "attributes": _attrs(gen_ai__operation__name="execute_tool", gen_ai__tool__name="get_data_usage",
                                 gen_ai__tool__call__id="c1", gen_ai__tool__call__arguments="{\"line_id\": \"L1\"}",
                                 gen_ai__tool__call__result="timeout", error__type="TimeoutError")}
    other = {**tool, "traceId": "T2", "spanId": "c", "status": {}, "attributes": _attrs(
        gen_ai__operation__name="execute_tool", gen_ai__tool__name="refuel_data",
        gen_ai__tool__call__arguments="{\"gb_amount\": 1}")}
    export = {"resourceSpans": [{"resource": {}, "scopeSpans": [{"scope": {"name": "openllmetry"},
                                                                  "spans": [tool, chat, other]}]}]}
    traces = list(iter_traces_of(export))
    assert [t.id for t in traces] == ["T1", "T2"]
    first = traces[0]
    assert first.tool_sequence == ["get_data_usage"]
    assert (first.calls[0].args, first.calls[0].result, first.calls[0].error) == ({"line_id": "L1"}, "timeout", True)
    assert first.request == "My data stopped working." and first.metrics["input_tokens"] == 120
    assert [e.name for e in first.events] == ["message", "message", "get_data_usage"]
    assert traces[1].tool_sequence == ["refuel_data"]


def test_opentelemetry_sdk_spans_with_legacy_attributes():
    spans = [{"name": "openai.chat", "context": {"trace_id": "0xab", "span_id": "0x1"}, "start_time": "2025-01-01T00:00:01Z",
              "attributes": {"gen_ai.prompt.0.role": "user", "gen_ai.prompt.0.content": "Pay my bill",
                             "gen_ai.completion.0.role": "assistant",
                             "gen_ai.completion.0.tool_calls.0.name": "get_bills_for_customer",
                             "gen_ai.completion.0.tool_calls.0.arguments": "{\"customer_id\": \"C1\"}",
                             "gen_ai.completion.0.tool_calls.0.id": "k1"}},
             {"name": "openai.chat", "context": {"trace_id": "0xab", "span_id": "0x2"}, "start_time": "2025-01-01T00:00:02Z",
              "attributes": {"gen_ai.prompt.0.role": "user", "gen_ai.prompt.0.content": "Pay my bill",
                             "gen_ai.prompt.1.role": "tool", "gen_ai.prompt.1.tool_call_id": "k1",
                             "gen_ai.prompt.1.content": "[{\"bill_id\": \"B1\"}]",
                             "gen_ai.completion.0.role": "assistant", "gen_ai.completion.0.content": "Your bill B1 is due."}}]
    trace = parse_trace(spans)
    assert trace.tool_sequence == ["get_bills_for_customer"] and trace.calls[0].result == [{"bill_id": "B1"}]
    assert [e.args.get("text") for e in trace.events if e.is_message] == ["Pay my bill", "", "Your bill B1 is due."]


def iter_traces_of(value, tmp=[]):  # noqa: B006 - a scratch path per call is enough here
    import tempfile
    from pathlib import Path

    path = Path(tempfile.mkdtemp()) / "export.json"
    path.write_text(json.dumps(value))
    for item in iter_traces(str(path)):
        assert isinstance(item, Trace), item
        yield item


# ------------------------------------------------------------------ entity extraction is linear and bounded


@pytest.mark.slow
def test_a_one_megabyte_answer_is_scored_and_extraction_is_bounded():
    code_qa, _ = check_file("examples/code_qa.altl")
    words = ["ChargePoint", "src/api.py", "`request`", "42", "prose", "Session.send(", "MAX_RETRIES", "and"]
    answer = " ".join(f"{words[i % len(words)]}{i}" if i % 3 else words[i % len(words)] for i in range(120_000))
    assert len(answer) > 1_000_000
    report = report_of(code_qa, Trace.of(("search", {"query": "x"}, ["src/api.py"]),
                                           ("read_file", {"path": "src/api.py"}, {"src/api.py": "def request(): pass"}),
                                           ("final_answer", {"answer": answer})))
    grounded = next(c for c in report.constraints if c.name == "grounded")
    assert not grounded.passed and grounded.error is None and "Not grounded" in grounded.detail
    assert len(CODE.entities(answer)) == MAX_ENTITIES and len(PROSE.entities(answer)) <= MAX_ENTITIES


def test_a_long_sum_in_a_file_read_does_not_make_grounding_fail():
    code_qa, _ = check_file("examples/code_qa.altl")
    source = "TOTAL = " + "+".join(["1"] * 30_000) + "\n"
    assert len(source) > 60_000
    report = report_of(code_qa, Trace.of(("search", {"query": "TOTAL"}, ["src/sum.py"]),
                                           ("read_file", {"path": "src/sum.py"}, {"src/sum.py": source}),
                                           ("final_answer", {"answer": "`TOTAL` is in src/sum.py"})))
    grounded = next(c for c in report.constraints if c.name == "grounded")
    assert grounded.passed and grounded.error is None, grounded.detail


# ------------------------------------------------------------------ fuzz: every reader


SAMPLES: dict[str, object] = {
    "record": {"id": "r", "tool_calls": [{"tool_name": "a", "arguments": {"x": 1}, "tool_result": "[1]"}]},
    "chat": {"messages": [{"role": "user", "content": "hi"},
                          {"role": "assistant", "content": None, "tool_calls": [
                              {"id": "c", "type": "function", "function": {"name": "a", "arguments": "{}"}}]},
                          {"role": "tool", "tool_call_id": "c", "content": "ok"}]},
    "responses": [{"type": "message", "role": "user", "content": "hi"},
                  {"type": "function_call", "call_id": "c", "name": "a", "arguments": "{}"},
                  {"type": "function_call_output", "call_id": "c", "output": "ok"}],
    "anthropic": [{"role": "user", "content": "hi"},
                  {"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "a", "input": {}}]},
                  {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "content": "ok"}]}],
    "langchain": [{"type": "human", "content": "hi"},
                  {"type": "ai", "content": "", "tool_calls": [{"name": "a", "args": {}, "id": "c"}]},
                  {"type": "tool", "content": "ok", "tool_call_id": "c"}],
    "otel": {"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": "t", "spanId": "s", "startTimeUnixNano": "1",
                                                           "attributes": _attrs(gen_ai__operation__name="execute_tool",
                                                                                gen_ai__tool__name="a")}]}]}]},
    "smolagents": [{"task": "hi"}, {"step_number": 1, "model_output": "calling a", "observations": "ok",
                                    "tool_calls": [{"id": "1", "type": "function",
                                                    "function": {"name": "a", "arguments": {}}}]}],
    "tau2": {"id": "s", "task_id": "t", "messages": [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "tool_calls": [{"id": "c", "name": "a", "arguments": {}, "requestor": "assistant"}]},
        {"role": "tool", "id": "c", "content": "ok", "requestor": "assistant", "error": False},
        {"role": "user", "tool_calls": [{"id": "u", "name": "b", "arguments": {}, "requestor": "user"}]},
        {"role": "tool", "id": "u", "content": "done", "requestor": "user", "error": True}]},
}

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=4),
    max_leaves=12,
)
KEYS = ["role", "content", "tool_calls", "type", "id", "name", "arguments", "input", "args", "tool_call_id",
        "tool_use_id", "messages", "steps", "step_number", "function", "requestor", "error", "status", "is_error",
        "kwargs", "lc", "data", "resourceSpans", "scopeSpans", "spans", "attributes", "traceId", "call_id",
        "output", "tool_name", "tool_result", "ticks", "task_id", "parts", "text"]


@st.composite
def mutated(draw, sample):
    """A sample record with random paths replaced by random values, keys dropped or added."""
    value = json.loads(json.dumps(sample))
    for _ in range(draw(st.integers(1, 4))):
        node, parent, key = value, None, None
        for _ in range(draw(st.integers(0, 5))):
            if isinstance(node, dict) and node:
                parent, key = node, draw(st.sampled_from(sorted(node)))
            elif isinstance(node, list) and node:
                parent, key = node, draw(st.integers(0, len(node) - 1))
            else:
                break
            node = parent[key]
        action = draw(st.sampled_from(["replace", "drop", "add"]))
        if parent is None:
            value = draw(json_values) if action == "replace" else value
        elif action == "replace":
            parent[key] = draw(json_values)
        elif action == "drop":
            del parent[key]
        elif isinstance(node, dict):
            node[draw(st.sampled_from(KEYS))] = draw(json_values)
    return value


@pytest.mark.slow
@pytest.mark.parametrize("fmt", FORMATS)
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_fuzz_every_reader_reads_or_reports(fmt, data):
    value = data.draw(st.one_of(mutated(SAMPLES[fmt]), json_values))
    for name in (fmt, "auto"):
        try:
            trace = parse_trace(value, name)
        except RecordProblem as problem:
            assert problem.message and isinstance(problem.path, tuple)
            continue
        assert isinstance(trace, Trace)
        for event in trace.events:  # every event is well formed and evaluable
            assert isinstance(event.name, str) and isinstance(event.args, dict)
            assert event.actor in ("assistant", "user") and isinstance(event.error, bool)
        assert trace.observed(frozenset({"messages", "user_calls"})).calls == trace.events or any(
            e.name == "message" and not e.is_message for e in trace.events)


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_sample_reads_as_its_format(fmt):
    trace = parse_trace(SAMPLES[fmt])
    assert trace.tool_sequence[0] == "a" and parse_trace(SAMPLES[fmt], fmt) == trace


@settings(max_examples=80, deadline=None)
@given(lines=st.lists(st.one_of(st.sampled_from([good(0), "{", "[" * 3000, '{"tool_calls": 1}']),
                                st.text(max_size=30)), max_size=8))
def test_fuzz_jsonl_files_count_every_record(tmp_path_factory, lines):
    path = tmp_path_factory.mktemp("fuzz") / "runs.jsonl"
    path.write_text("\n".join(lines), encoding="utf-8", errors="surrogateescape")
    items = list(iter_traces(str(path)))
    assert len(items) == sum(1 for line in "\n".join(lines).split("\n") if line.strip())
    assert all(isinstance(i, (Trace, TraceError)) for i in items)


def test_a_policy_over_messages_checks_with_every_reader_output():
    policy, diagnostics = check_text("observe messages, user_calls\ntool a()\ntool b()\n"
                                     "rule r: always (a -> once message(actor: \"user\"))\n", "m.altl")
    assert policy is not None, diagnostics
    for fmt in ("chat", "responses", "anthropic", "langchain", "smolagents", "tau2"):
        report = report_of(policy, parse_trace(SAMPLES[fmt]))
        assert report.constraints[0].passed, (fmt, report.constraints[0].detail)


HOSTILE = Path(__file__).parent / "fixtures" / "hostile"


@pytest.mark.parametrize("args", [
    ["score", str(HOSTILE.parents[2] / "examples" / "code_qa.altl"), str(HOSTILE / "hugeint_chat.json")],
    ["replay", str(HOSTILE.parents[2] / "examples" / "code_qa.altl"), str(HOSTILE / "hugeint_chat.json")],
    ["infer-tools", str(HOSTILE / "hugeint_chat.json")],
    ["conformance", str(HOSTILE / "bfcl_5000_digits.jsonl")],
], ids=["score", "replay", "infer-tools", "conformance"])
def test_a_number_of_thousands_of_digits_inside_argument_text_is_a_malformed_record(args):
    # arguments given as JSON text (OpenAI style, BFCL's predicted calls) holding a number of
    # 5,000 digits: every command ended with exit 3 (found by a sweep written from the docs)
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 2, result.output
    assert "internal error" not in result.output


def test_an_answer_of_thousands_of_digits_is_no_answer():
    result = CliRunner().invoke(cli, ["bench", "score", str(HOSTILE / "bench_run_answer_5000_digits.jsonl")])
    assert result.exit_code in (0, 1, 2) and "internal error" not in result.output, result.output
