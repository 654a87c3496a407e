"""The MCP gateway's trace: a write-ahead journal, one JSON line per event, read back as one
record per session.

`policyc gateway --trace FILE` appends a line for each event of a client session the moment
it happens, and flushes it, before it acts on it:

| `event` | written | fields |
|---|---|---|
| `start` | when the session starts | `policy`, `server`, `started` (Unix time) |
| `proposal` | when a `tools/call` arrives, before it is judged | `seq`, `tool`, `arguments` |
| `decision` | once judged, before the call is forwarded | `seq`, `step`, `tool`, `action`, `rules`, `message` |
| `result` | once the server answered | `seq`, `tool_name`, `arguments`, `tool_result`, `is_error` (the call failed: `error` in the record); `recorded_raw` (why the result is kept as its raw text) |
| `failed` | when the server's answer never came or could not be read | `seq`, `tool`, `arguments`, `error` |
| `end` | when the session ends | `ended`, `compliance_score`, `compliance_label`; `reason` when a signal ended it |

Every line begins with `"gateway_session"` (the session's id), so sessions written by
several gateways into one file stay apart. A journal never has to be complete: a gateway
killed at any point (SIGKILL included) leaves every event before that point on disk, and
`assemble_sessions` reads each session, ended or not, into the paper's metrics record: the
calls that were forwarded to the server (`tool_calls`: with their results once answered, as
failed calls when the answer was lost, without a result when the gateway died waiting), every
decision (`decisions`), and `complete: false` for a session that never reached its `end`.

>>> lines = [(1, '{"gateway_session": "s", "event": "start", "policy": "p", "server": "x", "started": 1}'),
...          (2, '{"gateway_session": "s", "event": "proposal", "seq": 0, "tool": "a", "arguments": {}}'),
...          (3, '{"gateway_session": "s", "event": "decision", "seq": 0, "step": 0, "tool": "a", '
...              '"action": "allow", "rules": [], "message": ""}')]
>>> [(line, record["tool_calls"], record["complete"]) for line, record, _ in assemble(lines)]
[(1, [{'step': 0, 'tool_name': 'a', 'arguments': {}}], False)]
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Iterable, Iterator

from policyc.jsontext import decode

#: The first key of every journal line.
SESSION_KEY = "gateway_session"
EVENTS = ("start", "proposal", "decision", "result", "failed", "end")
_JOURNAL_LINE = re.compile(r'\s*\{\s*"gateway_session"\s*:')
_EXECUTES = ("allow", "warn")


def is_journal_line(text: str) -> bool:
    """Whether a line of a JSONL file is a gateway journal event (its first key says so)."""
    return _JOURNAL_LINE.match(text) is not None


class JournalProblem(Exception):
    """A journal line that does not say what an event must: its field and what is wrong."""

    def __init__(self, field: str, message: str):
        super().__init__(message)
        self.field = field
        self.message = message


#: A session's record, an event, a call: JSON objects.
Record = dict[str, Any]
#: A finished session: the line of its first event, its record or None, and (line, field,
#: message) of its first malformed event or None.
Finished = tuple[int, Record | None, tuple[int, str, str] | None]


@dataclass
class _Session:
    line: int                                   # where the session's first event is
    record: Record = field(default_factory=dict)
    calls: list[Record] = field(default_factory=list)
    decisions: list[Record] = field(default_factory=list)
    forwarded: dict[int, Record] = field(default_factory=dict)  # seq -> its tool call, awaiting the answer
    proposed: dict[int, Record] = field(default_factory=dict)   # seq -> its proposal
    ended: bool = False
    problem: tuple[int, str, str] | None = None  # (line, field, message) of the first bad event

    def to_record(self, session: str) -> Record:
        out = {"id": session, **self.record, "complete": self.ended, "tool_calls": self.calls,
               "decisions": self.decisions}
        if not self.ended:
            out.setdefault("ended", None)
        return out


def _require(event: Record, key: str, kind: type, what: str) -> Any:
    value = event.get(key)
    if not isinstance(value, kind) or isinstance(value, bool):
        raise JournalProblem(key, f"a `{event.get('event')}` event needs `{key}`, {what}")
    return value


def _apply(session: _Session, event: Record) -> None:
    kind = event.get("event")
    if kind not in EVENTS:
        raise JournalProblem("event", f"`event` must be one of {', '.join(EVENTS)}")
    if kind == "start":
        session.record.update({k: event.get(k) for k in ("policy", "server", "started")})
        return
    if kind == "end":
        session.ended = True
        session.record.update({k: v for k, v in event.items() if k not in (SESSION_KEY, "event")})
        return
    seq = _require(event, "seq", int, "the proposal's number")
    if kind == "proposal":
        tool = _require(event, "tool", str, "a string")
        session.proposed[seq] = {"tool": tool, "arguments": event.get("arguments", {})}
        return
    if kind == "decision":
        action = _require(event, "action", str, "a string")
        entry = {k: event.get(k) for k in ("step", "tool", "arguments", "action", "rules", "message")}
        if entry["arguments"] is None:
            entry["arguments"] = session.proposed.get(seq, {}).get("arguments", {})
        session.decisions.append(entry)
        if action in _EXECUTES:  # forwarded to the server: a call of the run from now on
            made = {"step": len(session.calls), "tool_name": _require(event, "tool", str, "a string"),
                    "arguments": entry["arguments"]}
            session.calls.append(made)
            session.forwarded[seq] = made
        return
    call = session.forwarded.pop(seq, None)
    if call is None:
        raise JournalProblem("seq", f"a `{kind}` event for proposal {seq}, which was not forwarded to the server")
    if kind == "result":
        call["tool_result"] = event.get("tool_result")
        if event.get("is_error"):  # the server answered with an error: the call ran, and failed
            call["error"] = True
        if event.get("recorded_raw"):
            call["recorded_raw"] = event["recorded_raw"]
    else:  # failed: forwarded, and the answer was lost; the call may have run
        call["error"] = True
        session.decisions[-1]["error"] = event.get("error")


class Assembler:
    """Sessions read from a journal's lines as they come: `feed` each line, then `finish`.
    Each finished session is (the line of its first event, its record or None, (line, field,
    message) of its first malformed event or None)."""

    def __init__(self) -> None:
        self.sessions: dict[str, _Session] = {}

    def feed(self, number: int, text: str) -> list[Finished] | None:
        """The sessions this line ends; None when the line is not a journal event after all
        (not JSON, or no session id): it is then an ordinary line of the file."""
        event, problem, _ = decode(text)  # NaN, 1e400, half a surrogate pair: not JSON, the line reader says so
        if problem is not None:
            return None
        if not isinstance(event, dict) or not isinstance(event.get(SESSION_KEY), str):
            return None
        return self.feed_event(number, event)

    def feed_event(self, number: int, event: Record) -> list[Finished]:
        """The sessions this event (a journal line's JSON object) ends."""
        session_id = event[SESSION_KEY]
        session = self.sessions.setdefault(session_id, _Session(number))
        if session.problem is None:
            try:
                _apply(session, event)
            except JournalProblem as problem:
                session.problem = (number, problem.field, problem.message)
        if session.ended or session.problem is not None and event.get("event") == "end":
            return [_done(session_id, self.sessions.pop(session_id))]
        return []

    def record(self, session_id: str) -> Record | None:
        """The record of a session not ended yet, as it stands."""
        session = self.sessions.get(session_id)
        return None if session is None or session.problem is not None else session.to_record(session_id)

    def finish(self) -> list[Finished]:
        """The sessions that never ended (their gateway was killed, or is still running)."""
        done = [_done(session_id, session) for session_id, session in self.sessions.items()]
        self.sessions.clear()
        return done


def assemble(lines: Iterable[tuple[int, str]]) -> Iterator[Finished]:
    """The sessions of a journal's lines (number, text), in the order they end (unended ones
    last)."""
    assembler = Assembler()
    for number, text in lines:
        yield from assembler.feed(number, text) or ()
    yield from assembler.finish()


def _done(session_id: str, session: _Session) -> Finished:
    if session.problem is not None:
        return session.line, None, session.problem
    return session.line, session.to_record(session_id), None


__all__ = ["EVENTS", "SESSION_KEY", "Assembler", "assemble", "is_journal_line"]
