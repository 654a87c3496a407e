"""Hostile input at the MCP gateway, second round: frames, lost records, signals.

Found on the gateway as it was:
- a `tools/call` whose arguments nest 200 or 100,000 levels deep, or hold a number of 5,000
  digits, got no answer at all (the SDK dropped the line it could not read);
- a result nested over 100 levels: the server ran the call, recording it failed, and the
  call was in neither the run nor the trace;
- the trace was written only when a session ended cleanly: after SIGKILL, SIGTERM, SIGINT,
  or a client giving up on a stalled 20 MB result, no line of the calls that ran was on disk.

The gateway now answers every request it cannot read with a JSON-RPC error, ends a call whose
answer from the server cannot be read with a tool error (recording the raw answer: the call
ran), and writes its trace ahead, event by event. The fuzzer drives the real gateway between a
raw client and a raw server (fixtures/mcp/raw_server.py), both sending what the SDK never
would, and ends each session by closing its input, SIGTERM, SIGINT, SIGKILL or giving up on a
stalled answer: every request is answered, every call the server ran is in the trace, the
trace reads back, and no call a `deny` rule forbids reaches the server.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytest.importorskip("mcp", reason="mcp is not installed (pip install -e '.[test,mcp]')")

from click.testing import CliRunner  # noqa: E402

from policyc.artifact.build import compile_file  # noqa: E402
from policyc.artifact.io import write_artifact  # noqa: E402
from policyc.cli import cli  # noqa: E402
from policyc.trace import load_traces  # noqa: E402
from policyc.trace.journal import assemble  # noqa: E402

MCP = Path(__file__).parent / "fixtures" / "mcp"
NIGHTLY = bool(os.environ.get("POLICYC_NIGHTLY"))
WAIT = 60  # seconds before a missing answer counts as a hang (a hang detector, not a timing assertion)


@pytest.fixture(scope="module")
def artifact(tmp_path_factory):
    path = tmp_path_factory.mktemp("gateway") / "raw.policy.json"
    write_artifact(compile_file(MCP / "raw_policy.altl"), path)
    return path


class Gateway:
    """The gateway in a subprocess, between this raw client and the raw server."""

    def __init__(self, artifact: Path, folder: Path):
        self.trace, self.ran = folder / "runs.jsonl", folder / "ran.jsonl"
        self.ran.touch()
        argv = [sys.executable, "-m", "policyc", "gateway", str(artifact), "--trace", str(self.trace), "--",
                sys.executable, str(MCP / "raw_server.py"), str(self.ran)]
        self.process = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.answers: dict = {}
        self.unparsed: list[bytes] = []
        self.arrived = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()
        self.next_id = 100
        self.send(json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "fuzz", "version": "1"}}}))
        assert self.wait_for(0) is not None, "the gateway did not start"
        self.send(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))

    def _read(self) -> None:
        for line in iter(self.process.stdout.readline, b""):
            try:
                answer = json.loads(line)
            except ValueError:
                self.unparsed.append(line)
                continue
            with self.arrived:
                self.answers.setdefault(answer.get("id") if isinstance(answer, dict) else None, []).append(answer)
                self.arrived.notify_all()

    def send(self, text: str) -> None:
        self.process.stdin.write(text.encode("utf-8", "surrogateescape") + b"\n")
        self.process.stdin.flush()

    def wait_for(self, request_id, seconds: float = WAIT):
        with self.arrived:
            self.arrived.wait_for(lambda: request_id in self.answers or self.process.poll() is not None, seconds)
            found = self.answers.get(request_id)
        return found[0] if found else None

    def call(self, name: str, arguments: object) -> int:
        self.next_id += 1
        self.send(json.dumps({"jsonrpc": "2.0", "id": self.next_id, "method": "tools/call",
                              "params": {"name": name, "arguments": arguments}}))
        return self.next_id

    def raw(self, text: str, request_id: int | None = None) -> int | None:
        self.send(text)
        return request_id

    def end(self, how: str) -> tuple[int, str]:
        """End the session: close the input, or send a signal; (exit code, standard error)."""
        if how == "eof":
            self.process.stdin.close()
        else:
            self.process.send_signal({"sigterm": signal.SIGTERM, "sigint": signal.SIGINT,
                                      "sigkill": signal.SIGKILL}[how])
        try:
            code = self.process.wait(timeout=WAIT)
        except subprocess.TimeoutExpired:
            self.process.kill()
            raise AssertionError(f"the gateway did not end after {how}") from None
        return code, self.process.stderr.read().decode("utf-8", "replace")

    def sessions(self) -> list[dict]:
        text = self.trace.read_text() if self.trace.exists() else ""
        out = []
        for _, record, problem in assemble(enumerate(text.split("\n"), start=1)):
            assert problem is None, problem
            out.append(record)
        return out

    def server_ran(self) -> list[tuple[str, dict]]:
        return [(c["tool"], c["arguments"]) for c in map(json.loads, self.ran.read_text().split("\n")[:-1])]


def deep_text(depth: int) -> str:
    return "[" * depth + "1" + "]" * depth


def calls_of(session: dict) -> list[tuple[str, dict]]:
    return [(c["tool_name"], c["arguments"]) for c in session["tool_calls"]]


# ------------------------------------------------------------------ one test per finding


@pytest.mark.parametrize("arguments, code", [
    ('{"text": %s}' % deep_text(200), -32600), ('{"text": %s}' % deep_text(100_000), -32700),
    ('{"text": %s}' % ("9" * 5000), -32700),
], ids=["200-deep", "100000-deep", "5000-digits"])
def test_a_request_the_sdk_cannot_read_gets_an_error_with_its_id(artifact, tmp_path, arguments, code):
    gateway = Gateway(artifact, tmp_path)
    gateway.raw('{"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "echo", "arguments": %s}}'
                % arguments)
    answer = gateway.wait_for(7)
    assert answer is not None, "no answer"
    assert answer["error"]["code"] == code and "the gateway cannot read this message" in answer["error"]["message"]
    ok = gateway.wait_for(gateway.call("echo", {"text": "still here"}))
    assert ok["result"]["content"][0]["text"] == "still here"  # the session goes on
    assert gateway.end("eof")[0] == 0
    assert gateway.server_ran() == [("echo", {"text": "still here"})]


@pytest.mark.parametrize("number", ["NaN", "Infinity", "-Infinity"])
def test_a_number_json_does_not_have_is_refused_and_never_reaches_the_server(artifact, tmp_path, number):
    # the SDK reads `NaN` as a float and the gate took it for a number: `never(refund(amount >
    # 100))` let `amount: NaN` through (no comparison with NaN holds), and the server got null
    gateway = Gateway(artifact, tmp_path)
    gateway.raw('{"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {"name": "echo", '
                '"arguments": {"text": %s}}}' % number)
    answer = gateway.wait_for(9)
    assert answer is not None, "no answer"
    assert answer.get("error") or answer["result"]["isError"], answer
    ok = gateway.wait_for(gateway.call("echo", {"text": "still here"}))
    assert ok["result"]["content"][0]["text"] == "still here"
    assert gateway.end("eof")[0] == 0
    assert gateway.server_ran() == [("echo", {"text": "still here"})]
    # the trace says what was refused and reads back as JSON
    sessions = gateway.sessions()
    assert [calls_of(s) for s in sessions] == [[("echo", {"text": "still here"})]]


@pytest.mark.parametrize("tool, arguments, readable", [
    ("deep", {"n": 150}, True),       # the SDK reads it; the run cannot hold it
    ("deep", {"n": 5000}, False),     # the SDK cannot read it
    ("big", {}, False),               # nor this: a number of 5,000 digits
], ids=["150-deep", "5000-deep", "5000-digits"])
def test_a_result_that_cannot_be_recorded_is_kept_raw_since_the_call_ran(artifact, tmp_path, tool, arguments,
                                                                         readable):
    gateway = Gateway(artifact, tmp_path)
    answer = gateway.wait_for(gateway.call(tool, arguments))
    assert answer is not None
    if readable:
        assert answer["result"]["isError"] is False  # the client gets what the server said
    else:
        assert answer["result"]["isError"] is True
        assert "ran, but its result could not be read" in answer["result"]["content"][0]["text"]
    code, stderr = gateway.end("eof")
    assert code == 0 and "Traceback" not in stderr
    [session] = gateway.sessions()
    assert calls_of(session) == gateway.server_ran() == [(tool, arguments)]
    [call] = session["tool_calls"]
    assert call["recorded_raw"] and isinstance(call["tool_result"], str)


@pytest.mark.parametrize("how", ["sigkill", "sigterm", "sigint"])
def test_a_killed_gateway_leaves_every_call_that_ran_on_disk(artifact, tmp_path, how):
    gateway = Gateway(artifact, tmp_path)
    for text in ("a", "b", "c"):
        assert gateway.wait_for(gateway.call("echo", {"text": text})) is not None
    gateway.call("slow", {})  # mid-call
    gateway.wait_for(-1, 0.2)
    code, stderr = gateway.end(how)
    assert "Traceback" not in stderr
    [session] = gateway.sessions()
    ran = gateway.server_ran()
    assert calls_of(session)[:len(ran)] == ran and len(ran) >= 3
    assert session["complete"] is (how != "sigkill")
    if how != "sigkill":
        assert code == 0 and f"stopped by {how.upper()}" in session["reason"]
    loaded = load_traces([gateway.trace])  # the trace reads back, ended or not
    assert not loaded.errors and [t.tool_sequence for t in loaded.traces] == [[c[0] for c in calls_of(session)]]
    scored = CliRunner().invoke(cli, ["score", str(artifact), str(gateway.trace), "--format", "json"])
    assert scored.exit_code in (0, 1), scored.output


@pytest.mark.parametrize("tool", ["huge", "stall"])
def test_a_client_giving_up_on_a_stalled_answer_leaves_the_call_on_disk(artifact, tmp_path, tool):
    gateway = Gateway(artifact, tmp_path)
    assert gateway.wait_for(gateway.call("echo", {"text": "a"})) is not None
    gateway.call(tool, {})
    gateway.wait_for(-1, 0.5)
    code, stderr = gateway.end("eof")
    assert code == 0 and "Traceback" not in stderr
    [session] = gateway.sessions()
    assert calls_of(session) == gateway.server_ran() == [("echo", {"text": "a"}), (tool, {})]
    assert session["tool_calls"][1]["error"] is True  # forwarded, never answered: it may have run


# ------------------------------------------------------------------ the fuzzer

BROKEN = [
    "garbage", "[1, 2]", "{}", "null", '{"jsonrpc": "2.0", "id": %d, "method": 5}',
    '{"jsonrpc": "2.0", "id": %d, "method": "tools/call", "params": {"name": "echo", "arguments": "x"}}',
    '{"jsonrpc": "2.0", "id": %d, "method": "tools/call", "params": {"name": "echo", "arguments": {"text": ',
    '{"jsonrpc": "2.0", "id": %d, "method": "no/such/method", "params": {}}',
    '{"jsonrpc": "2.0", "id": %d, "method": "tools/call", "params": {"name": "echo", "arguments": {"text": '
    + deep_text(300) + '}}}',
    '{"jsonrpc": "2.0", "id": %d, "method": "tools/call", "params": {"name": "echo", "arguments": {"text": '
    + deep_text(20_000) + '}}}',
    '{"jsonrpc": "2.0", "id": %d, "method": "tools/call", "params": {"name": "echo", "arguments": {"text": '
    + "1" * 5000 + '}}}',
    '{"jsonrpc": "2.0", "method": "notifications/' + deep_text(500) + '"}',
    '{"jsonrpc": "2.0", "id": %d, "method": "tools/call", "params": {"name": "\\u0000\\ud800", "arguments": {}}}',
    '{"jsonrpc": "2.0", "id": %d, "method": "ping"}',
    '\xff\xfe{"jsonrpc": "2.0"}',
]
CALLS = st.one_of(
    st.tuples(st.just("echo"), st.builds(lambda t: {"text": t}, st.text(max_size=20))),
    st.tuples(st.just("delete"), st.builds(lambda p: {"path": p}, st.sampled_from(["/", "tmp"]))),
    st.tuples(st.just("deep"), st.builds(lambda n: {"n": n}, st.sampled_from([5, 99, 150, 400, 3000]))),
    st.tuples(st.sampled_from(["big", "garbage", "slow"]), st.just({})),
    st.tuples(st.just("echo"), st.builds(lambda d: {"text": json.loads(deep_text(d))}, st.sampled_from([99, 101]))),
)
STEPS = st.lists(st.one_of(CALLS.map(lambda c: ("call", c)),
                           st.sampled_from(range(len(BROKEN))).map(lambda i: ("raw", i))), max_size=8)
#: how a session ends: a call left in flight (none, an answer on its way, one never coming, a
#: 20 MB answer never finished, a server that dies), then the client closing or a signal
ENDS = st.tuples(st.sampled_from([None, "slow", "stall", "huge", "die"]),
                 st.sampled_from(["eof", "sigterm", "sigint", "sigkill"]))


@settings(max_examples=40 if NIGHTLY else 6, deadline=None, suppress_health_check=list(HealthCheck))
@given(steps=STEPS, end=ENDS)
def test_fuzz_the_gateway_both_ways(artifact, tmp_path_factory, steps, end):
    gateway = Gateway(artifact, tmp_path_factory.mktemp("fuzz"))
    waiting = []
    for kind, what in steps:
        if kind == "call":
            waiting.append(gateway.call(*what))
        else:
            gateway.next_id += 1
            text = BROKEN[what]
            waiting.append(gateway.next_id if "%d" in text else None)
            gateway.raw(text % gateway.next_id if "%d" in text else text)
        if waiting[-1] is not None:  # every request is answered, exactly once
            answer = gateway.wait_for(waiting[-1])
            assert answer is not None, f"no answer to {kind} {str(what)[:80]}"
    in_flight, how = end
    if in_flight is not None:  # the session ends mid-call
        gateway.call(in_flight, {})
        gateway.wait_for(-1, 0.3)
    running = gateway.process.poll() is None
    code, stderr = gateway.end(how)
    assert "Traceback" not in stderr, stderr[-2000:]
    assert code == (-signal.SIGKILL if how == "sigkill" and running else 0), stderr[-2000:]
    assert all(len(answers) == 1 for key, answers in gateway.answers.items() if key is not None)
    ran = gateway.server_ran()
    assert ("delete", {"path": "/"}) not in ran  # deny: never forwarded
    sessions = gateway.sessions()
    recorded = [call for session in sessions for call in calls_of(session)]
    assert recorded[:len(ran)] == ran, "a call the server ran is missing from the trace"
    loaded = load_traces([gateway.trace]) if gateway.trace.exists() else None
    if loaded is not None:
        assert not loaded.errors and len(loaded.traces) == len(sessions)


@pytest.mark.parametrize("value", ['"\\udc00"', "NaN", "1e400"])
def test_a_journal_line_holding_what_json_does_not_have_is_a_malformed_record(tmp_path, value):
    """Found by a sweep written from the docs alone: a journal whose lines held half a surrogate
    pair ended `replay` and `report` with exit 3, and `score` scored it. Such a line is read as
    an ordinary line of the file, and the reader names it as malformed, with its line."""
    events = [{"gateway_session": "s1", "event": "proposal", "seq": 0, "tool": "search", "arguments": {"query": "q"}},
              {"gateway_session": "s1", "event": "decision", "seq": 0, "step": 0, "tool": "search",
               "arguments": {"query": "q"}, "action": "allow", "rules": [], "message": ""}]
    lines = [json.dumps(e) for e in events]
    lines[1] = lines[1].replace('"q"}, "action"', f'{value}}}, "action"')
    journal = tmp_path / "journal.jsonl"
    journal.write_text("\n".join(lines) + "\n")
    for command in (["score"], ["replay"], ["report", "-o", str(tmp_path / "r.html")]):
        result = CliRunner().invoke(cli, [command[0], "examples/code_qa.altl", str(journal), *command[1:]],
                                    env={"COLUMNS": "400", "NO_COLOR": "1"})
        assert result.exit_code == 2, (command, result.output)
        told = "1 malformed record(s)" if command[0] == "report" else "journal.jsonl:2: invalid JSON"
        assert told in result.output + result.stderr


def test_the_journal_writes_half_a_surrogate_pair_as_a_character_readers_take():
    """A server answering `"\\ud800"` gave the journal a line JSON readers refuse (above): the
    call ran, so its line must be read back. Half a pair is written as U+FFFD, the rest kept."""
    from policyc.integrations.mcp_journal import _line
    from policyc.jsontext import decode

    event = {"gateway_session": "s1", "event": "result", "tool_result": ["x\ud800y", {"\udc00k": "\U0001f600"}]}
    value, problem, _ = decode(_line(event))
    assert problem is None
    assert value["tool_result"] == ["x\ufffdy", {"\ufffdk": "\U0001f600"}]
    deep: object = "x\ud800"  # as deep as json writes, deeper than a walk of it in Python can go
    for _ in range(sys.getrecursionlimit() - 60):
        deep = [deep]
    value, problem, _ = decode(_line({**event, "arguments": deep}))
    assert problem is None and value["arguments"] == {"unwritable": "nested too deeply"}
    assert value["tool_result"] == ["x\ufffdy", {"\ufffdk": "\U0001f600"}]


def test_the_trace_is_never_a_pipe_nobody_reads_an_input_or_a_policy(tmp_path):
    """Found by a sweep written from the docs alone: `--trace` naming a FIFO nobody reads hung
    the gateway at start; naming the policy it gates (or any `.altl` file) appended JSON lines
    to it, and the policy no longer parsed."""
    from hostile_helpers import hang_guard
    from policyc.integrations.mcp_journal import Journal, JournalError

    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with hang_guard("opening a FIFO nobody reads"), pytest.raises(JournalError, match="a pipe that nobody reads"):
        Journal(fifo, "s1")
    policy = tmp_path / "p.altl"
    policy.write_text(Path("examples/code_qa.altl").read_text())
    other = tmp_path / "other.altl"
    other.write_text("# a policy\n")
    for target, said in ((policy, "an input of the gateway"), (other, "it is a policy source")):
        result = CliRunner().invoke(cli, ["gateway", str(policy), "--trace", str(target), "--", "true"])
        assert result.exit_code == 2 and said in result.stderr, result.output
    assert policy.read_text() == Path("examples/code_qa.altl").read_text() and other.read_text() == "# a policy\n"


def test_a_trace_whose_last_line_was_cut_short_gets_a_line_break_first(tmp_path):
    """A gateway killed while writing a line leaves it cut short; the next gateway's lines
    began on that line, and its session's start was lost inside the malformed line."""
    from policyc.integrations.mcp_journal import Journal

    trace = tmp_path / "runs.jsonl"
    trace.write_text('{"gateway_session":"old","event":"start"}\n{"gateway_session":"old","event":"propo')
    Journal(trace, "new").write("start", policy="p")
    lines = trace.read_text().split("\n")
    assert lines[1] == '{"gateway_session":"old","event":"propo'
    assert json.loads(lines[2]) == {"gateway_session": "new", "event": "start", "policy": "p"}
    Journal(trace, "newer").write("start")  # a whole last line: nothing added
    assert trace.read_text().count("\n") == 4


def test_an_unreadable_answer_naming_no_call_ends_the_one_call_waiting(artifact, tmp_path, monkeypatch):
    """Found by a sweep written from the docs alone: a server answering `hello world` (no id)
    left the call waiting for ever, and every later call queued behind it. With one call
    waiting, the line ends it after POLICYC_GATEWAY_UNREAD_GRACE seconds; a stray line
    followed by the answer (`garbage`) still gets the answer."""
    monkeypatch.setenv("POLICYC_GATEWAY_UNREAD_GRACE", "0.5")
    gateway = Gateway(artifact, tmp_path)
    junk = gateway.wait_for(gateway.call("junk", {}))
    assert junk is not None and junk["result"]["isError"] is True
    assert "ran, but its result could not be read: it is not JSON" in junk["result"]["content"][0]["text"]
    stray = gateway.wait_for(gateway.call("garbage", {}))
    assert stray["result"]["isError"] is False  # the answer that followed the stray line
    echo = gateway.wait_for(gateway.call("echo", {"text": "after"}))
    assert echo["result"]["content"][0]["text"] == "after"
    code, stderr = gateway.end("eof")
    assert code == 0 and "Traceback" not in stderr
    [session] = gateway.sessions()
    assert calls_of(session) == gateway.server_ran() == [("junk", {}), ("garbage", {}), ("echo", {"text": "after"})]


def test_a_server_tool_name_with_control_characters_is_printed_escaped(artifact, tmp_path, monkeypatch):
    """A server names its tools as it likes: one holding a carriage return, NUL and an escape
    sequence is reported (no policy declares it) with those characters escaped, so it cannot
    rewrite the operator's terminal line; calls to the declared tools still go through."""
    monkeypatch.setenv("RAW_SERVER_EXTRA_TOOL", json.dumps("ev\x1b[31mil\r\x00tool"))
    gateway = Gateway(artifact, tmp_path)
    echo = gateway.wait_for(gateway.call("echo", {"text": "still here"}))
    assert echo["result"]["content"][0]["text"] == "still here"
    code, stderr = gateway.end("eof")
    assert code == 0 and "Traceback" not in stderr
    assert "`ev\\x1b[31mil\\r\\x00tool`, which the policy does not declare" in stderr, stderr
    assert not {"\x1b", "\r", "\x00"} & set(stderr), repr(stderr)
