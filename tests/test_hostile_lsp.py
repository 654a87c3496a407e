"""Hostile input at the language server: broken frames and requests it cannot handle.

Found on `policyc lsp` as it was (pygls's reader): a `Content-Length` that is not a number
left the server running and deaf (it read the next messages as the broken one's body); a
body that is not JSON, or a request whose parameters do not fit, was logged and never
answered. The server now answers every request it cannot handle with a JSON-RPC error (with
the request's id when it can be read), resynchronises at the next header, and answers a
frame that stopped half-way once no byte came for `POLICYC_LSP_FRAME_TIMEOUT` seconds.

The fuzzer sends random mixes of good requests and broken frames (wrong, missing, huge and
non-numeric lengths, bodies that are not JSON, nested too deeply, numbers too long, junk
between frames, unknown methods, parameters of the wrong type): every good request is
answered, every broken one at most once, and the server still answers and exits cleanly.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytest.importorskip("pygls")

ROOT = Path(__file__).resolve().parent.parent
NIGHTLY = bool(os.environ.get("POLICYC_NIGHTLY"))
WAIT = 60  # seconds before a missing answer counts as a hang (a hang detector, not a timing assertion)
POLICY = (ROOT / "examples" / "code_qa.altl").read_text()
URI = (ROOT / "examples" / "code_qa.altl").as_uri()


def frame(message: object | bytes) -> bytes:
    body = message if isinstance(message, bytes) else json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


class Server:
    """`policyc lsp` in a subprocess, read frame by frame."""

    def __init__(self, initialize: bool = True):
        env = {**os.environ, "POLICYC_LSP_FRAME_TIMEOUT": "0.5"}
        self.process = subprocess.Popen([sys.executable, "-m", "policyc", "lsp"], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=ROOT)
        self.answers: dict = {}
        self.notifications: list[dict] = []  # what the server sent of its own accord
        self.arrived = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()
        if initialize:
            self.initialize()

    def initialize(self) -> None:
        self.send(frame({"jsonrpc": "2.0", "id": 0, "method": "initialize",
                         "params": {"processId": None, "rootUri": None, "capabilities": {}}}))
        assert self.wait_for(0) is not None, "the server did not start"
        self.send(frame({"jsonrpc": "2.0", "method": "initialized", "params": {}}))
        self.send(frame({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
            "uri": URI, "languageId": "agentltl", "version": 1, "text": POLICY}}}))

    def _read(self) -> None:
        out = self.process.stdout
        while True:
            length = None
            while True:
                line = out.readline()
                if not line:
                    return
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
                if line in (b"\r\n", b"\n"):
                    break
            message = json.loads(out.read(length))
            with self.arrived:
                if "id" in message and "method" not in message:
                    self.answers.setdefault(message["id"], []).append(message)
                else:
                    self.notifications.append(message)
                self.arrived.notify_all()

    def send(self, data: bytes) -> None:
        self.process.stdin.write(data)
        self.process.stdin.flush()

    def wait_for(self, rid, seconds: float = WAIT):
        with self.arrived:
            self.arrived.wait_for(lambda: rid in self.answers or self.process.poll() is not None, seconds)
            found = self.answers.get(rid)
        return found[0] if found else None

    def hover(self, rid: int) -> bytes:
        return frame({"jsonrpc": "2.0", "id": rid, "method": "textDocument/hover", "params": {
            "textDocument": {"uri": URI}, "position": {"line": 8, "character": 20}}})

    def close(self) -> tuple[int, str]:
        self.send(frame({"jsonrpc": "2.0", "id": 999_999, "method": "shutdown"}))
        assert self.wait_for(999_999) is not None, "no answer to shutdown"
        self.send(frame({"jsonrpc": "2.0", "method": "exit"}))
        try:
            code = self.process.wait(timeout=WAIT)
        except subprocess.TimeoutExpired:
            self.process.kill()
            raise AssertionError("the server did not exit") from None
        return code, self.process.stderr.read().decode("utf-8", "replace")


# ------------------------------------------------------------------ one test per finding


BODY = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "textDocument/hover", "params": {
    "textDocument": {"uri": URI}, "position": {"line": 8, "character": 20}}}).encode()


@pytest.mark.parametrize("broken", [
    b"Content-Length: abc\r\n\r\n" + BODY,                  # not a number
    b"Content-Length: -5\r\n\r\n" + BODY,
    b"Content-Type: application/json\r\n\r\n" + BODY,       # no length at all
    b"Content-Length: %d\r\n\r\n" % (len(BODY) + 40) + BODY,  # too long: runs into the next frame
    b"Content-Length: %d\r\n\r\n" % (len(BODY) - 10) + BODY,  # too short: leaves junk behind
    b"Content-Length: 99999999999999\r\n\r\n" + BODY,       # more than any frame may be
    b"Content-Length: " + b"9" * 5000 + b"\r\n\r\n" + BODY,  # more digits than Python reads (it died)
    b"Content-Length: 8\r\n\r\nnot json",
    b"Content-Length: 22\r\n\r\n" + b'{"id": 1, "method": ' + b"[" * 2,
], ids=["letters", "negative", "missing", "too-long", "too-short", "huge", "5000-digits", "not-json", "truncated"])
def test_a_broken_frame_is_answered_and_the_server_reads_on(broken):
    server = Server()
    server.send(broken)
    server.send(server.hover(2))
    assert server.wait_for(2) is not None, "the server went deaf after a broken frame"
    answer = server.wait_for(1 if b'"id": 1' in broken else None)  # with its id when it can be read
    assert answer is not None
    assert "error" in answer or broken.endswith(BODY)  # an error; or the frame was read after all
    code, stderr = server.close()
    assert code == 0 and "Traceback" not in stderr


@pytest.mark.parametrize("body, code", [
    (b'{"jsonrpc": "2.0", "id": 5, "method": "textDocument/hover", "params": {"position": "x"}}', {-32602}),
    (b'{"jsonrpc": "2.0", "id": 5, "method": "textDocument/hover", "params": ' + b"[" * 5000 + b"]" * 5000 + b"}",
     {-32700, -32602}),
    (b'{"jsonrpc": "2.0", "id": 5, "method": "textDocument/hover", "params": {"x": ' + b"7" * 5000 + b"}}", {-32700}),
    (b'{"jsonrpc": "2.0", "id": 5, "method": "no/such/method"}', {-32601}),
    (b"[1, 2]", {-32600}),
], ids=["wrong-params", "deep", "5000-digits", "unknown-method", "batch"])
def test_a_request_that_cannot_be_handled_gets_an_error(body, code):
    server = Server()
    server.send(frame(body))
    rid = 5 if b'"id": 5' in body else None
    answer = server.wait_for(rid)
    assert answer is not None and answer["error"]["code"] in code
    server.send(server.hover(6))
    assert server.wait_for(6) is not None
    assert server.close()[0] == 0


def test_the_protocol_s_rules_on_order_and_shape_are_kept():
    """Found by a blind sweep: a request before `initialize` was answered with pygls's Python
    traceback in the error's data; a change to a document never opened made the editor show
    "Error in server: KeyError"; a message with an id and no method got no answer."""
    server = Server(initialize=False)
    server.send(server.hover(1))
    early = server.wait_for(1)
    assert early is not None and early["error"]["code"] == -32002 and "data" not in early["error"]
    server.initialize()
    server.send(frame({"jsonrpc": "2.0", "id": 4}))
    assert server.wait_for(4)["error"]["code"] == -32600
    server.send(frame({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
        "textDocument": {"uri": "file:///never-opened.altl", "version": 2}, "contentChanges": [{"text": "x"}]}}))
    server.send(server.hover(5))
    assert "result" in server.wait_for(5)
    code, stderr = server.close()
    assert code == 0 and "Traceback" not in stderr
    shown = [n for n in server.notifications if n.get("method") == "window/showMessage"]
    assert shown == [] and "traceback" not in json.dumps(server.answers).lower()


def test_a_burst_of_changes_is_analysed_once_in_its_last_version():
    """Found by a blind sweep: five whole-text changes of a 1.8 MB policy queued behind each
    other were each analysed in turn (20 s each), the server answering nothing meanwhile. The
    diagnostics are published once a document has stayed unchanged for PUBLISH_DELAY: the
    burst, handed over in one go, is published once, for its last version."""
    import asyncio

    from policyc.lsp.framing import Dispatcher
    from policyc.lsp.server import PUBLISH_DELAY, make_server

    broken = POLICY.replace("before(search, final_answer)", "before(serch, final_answer)")
    assert broken != POLICY

    async def burst() -> list:
        server = make_server()
        published: list = []
        server.text_document_publish_diagnostics = published.append
        analysed: list = []
        analysis = server.analysis
        server.analysis = lambda uri: analysed.append(server.workspace.get_text_document(uri).version) or analysis(uri)
        dispatcher = Dispatcher(server.protocol)
        for message in [
            {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"capabilities": {}, "processId": None}},
            {"jsonrpc": "2.0", "method": "initialized", "params": {}},
            {"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
                "uri": URI, "languageId": "agentltl", "version": 1, "text": POLICY}}},
            *({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
                "textDocument": {"uri": URI, "version": v}, "contentChanges": [{"text": broken if v < 6 else POLICY}]}}
              for v in range(2, 7)),
        ]:
            dispatcher.body(json.dumps(message).encode())
        await asyncio.sleep(PUBLISH_DELAY * 5)
        assert analysed == [6]
        return published

    (published,) = asyncio.run(burst())
    assert published.version == 6 and published.diagnostics == []


def test_many_errors_in_an_imported_file_read_that_file_once(tmp_path, monkeypatch):
    """Found by a blind sweep: each diagnostic of an imported file read the file again to place
    its related location, so 20,000 errors took time in the square of the count."""
    from lsprotocol import types

    from policyc.lsp.framing import Dispatcher
    from policyc.lsp.server import make_server

    (tmp_path / "dup.altl").write_text("tool a()\n" + "rule r: called(a)\n" * 300)
    main = tmp_path / "main.altl"
    text = 'import "dup.altl"\nrule q: called(a)\n'
    main.write_text(text)
    server = make_server()
    Dispatcher(server.protocol).body(json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize",
                                                 "params": {"capabilities": {}, "processId": None}}).encode())
    server.workspace.put_text_document(types.TextDocumentItem(uri=main.as_uri(), language_id="agentltl", version=1,
                                                              text=text))
    published: list = []
    server.text_document_publish_diagnostics = published.append
    server.analysis(main.as_uri())  # the analysis reads the import; what is counted is the publication
    reads: list = []
    read_text = Path.read_text
    monkeypatch.setattr(Path, "read_text", lambda self, *a, **k: reads.append(self) or read_text(self, *a, **k))
    server.publish(main.as_uri())
    (diagnostics,) = [p.diagnostics for p in published]
    assert len(diagnostics) == 299 and all(d.related_information for d in diagnostics)
    assert len(reads) == 1


# ------------------------------------------------------------------ the fuzzer


@st.composite
def broken_frames(draw, rid: int) -> bytes:
    body = json.dumps({"jsonrpc": "2.0", "id": rid, "method": "textDocument/hover", "params": {
        "textDocument": {"uri": URI}, "position": {"line": draw(st.integers(0, 40)), "character": 3}}}).encode()
    kind = draw(st.sampled_from(["length", "letters", "missing", "huge", "junk", "body", "params", "method",
                                 "deep", "digits", "spaces", "lowercase"]))
    if kind == "length":
        delta = draw(st.integers(-len(body) + 1, 60).filter(lambda d: d != 0))
        return b"Content-Length: %d\r\n\r\n" % (len(body) + delta) + body
    if kind == "letters":
        return b"Content-Length: " + draw(st.sampled_from([b"abc", b"", b"1e3", b"0x10", b"\xff"])) + b"\r\n\r\n" + body
    if kind == "missing":
        return b"X-Header: 1\r\n\r\n" + body
    if kind == "huge":
        return b"Content-Length: 10000000000000\r\n\r\n" + body
    if kind == "junk":
        return draw(st.binary(max_size=40)) + frame(body)
    if kind == "body":
        return frame(draw(st.binary(max_size=60)).replace(b"Content-Length", b""))
    if kind == "params":
        return frame({"jsonrpc": "2.0", "id": rid, "method": "textDocument/definition",
                      "params": draw(st.sampled_from([None, 1, "x", [], {"position": {}}]))})
    if kind == "method":
        return frame({"jsonrpc": "2.0", "id": rid, "method": draw(st.text(max_size=10))})
    if kind == "deep":
        return frame(b'{"jsonrpc": "2.0", "id": %d, "method": "x", "params": ' % rid + b"[" * 3000 + b"]" * 3000 + b"}")
    if kind == "digits":
        return frame(b'{"jsonrpc": "2.0", "id": %d, "method": "x", "params": [%s]}' % (rid, b"1" * 5000))
    if kind == "spaces":
        return b"Content-Length:%d   \r\n\r\n" % len(body) + body
    return b"content-length: %d\r\n\r\n" % len(body) + body


@settings(max_examples=30 if NIGHTLY else 5, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_fuzz_the_language_server(data):
    server = Server()
    steps = data.draw(st.lists(st.booleans(), min_size=1, max_size=8))
    for i, good in enumerate(steps, start=10):
        if good:
            server.send(server.hover(i))
            assert server.wait_for(i) is not None, "a good request was not answered"
        else:
            server.send(data.draw(broken_frames(i)))
        check = 1000 + i  # the server is never deaf: a good request after anything is answered
        server.send(server.hover(check))
        assert server.wait_for(check) is not None, "the server went deaf"
    code, stderr = server.close()
    assert code == 0 and "Traceback" not in stderr
    assert all(len(answers) == 1 for rid, answers in server.answers.items() if rid is not None), \
        "a request was answered twice"
    # a frame whose id cannot be read is answered with an error of id null, once per such frame
    unreadable = server.answers.get(None, [])
    assert len(unreadable) <= steps.count(False) and all("error" in answer for answer in unreadable)
