"""Reading trace files: JSON, JSON arrays of records, JSONL, folders; any record format.

`iter_traces(paths)` yields, record by record, a `Trace` or a `TraceError` naming the file,
line and field of what is malformed; one bad record never stops the others from loading.

- `*.jsonl` / `*.ndjson`: one record per line (blank lines are skipped); lines end at `\n`
  only, so a U+2028 inside a string does not split a record;
- `*.json` (or anything else): one record, an array of records, or a τ²-bench results file
  (each of its `simulations` is a record); text that is not one JSON value but one value per
  line is read as JSONL;
- a folder: every `.json`, `.jsonl` and `.ndjson` file below it, in sorted order;
- `-`: standard input.

Each record's format is detected from its shape unless `format` names one (see
`policyc.trace.formats`). A malformed record spoils only itself: a byte that is not UTF-8,
invalid JSON, a number too long to read or nesting deeper than `jsontext.MAX_DEPTH` levels
in one line of a JSONL file, or in one element of a JSON array, is reported for that line or
element, and every other record is read.

>>> loaded = load_traces(["examples/traces/appendix_b.json"])
>>> [t.tool_sequence for t in loaded.traces], loaded.errors
([['tool_a', 'tool_b', 'tool_b', 'tool_b', 'tool_d']], [])
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Iterator

from policyc.inputs import InputError, read_input
from policyc.trace.errors import RecordProblem, TraceError, field_path
from policyc.trace.formats import detect_format, parse_trace, split_records
from policyc.trace.jsontext import LineIndex, array_elements, bad_byte, decode, line_of, locate, member, where
from policyc.trace.model import Trace

JSONL_SUFFIXES = (".jsonl", ".ndjson")
TRACE_SUFFIXES = (".json",) + JSONL_SUFFIXES


@dataclass
class LoadedTraces:
    """Every record of some inputs: the traces read, and the records that were malformed."""

    traces: list[Trace] = field(default_factory=list)
    errors: list[TraceError] = field(default_factory=list)


@dataclass(frozen=True)
class _Raw:
    file: str
    line: int
    value: object
    line_of_field: Callable[[tuple], int]


def load_traces(paths: str | Path | Iterable[str | Path], format: str = "auto") -> LoadedTraces:
    """Read every record of `paths` (files, folders, `-`)."""
    out = LoadedTraces()
    for item in iter_traces(paths, format):
        (out.errors if isinstance(item, TraceError) else out.traces).append(item)
    return out


def iter_traces(paths: str | Path | Iterable[str | Path], format: str = "auto") -> Iterator[Trace | TraceError]:
    """Each record of `paths`, in order, as a Trace or as the TraceError that explains it."""
    if isinstance(paths, (str, Path)):
        paths = [paths]
    for path in _expand(paths):
        for raw in _raw_records(path):
            if isinstance(raw, TraceError):
                yield raw
                continue
            parts = split_records(raw.value, format)
            for value in parts:
                try:
                    yield parse_trace(value, format, origin=f"{raw.file}:{raw.line}")
                except RecordProblem as problem:
                    line = raw.line_of_field(problem.path) if len(parts) == 1 else raw.line
                    yield TraceError(raw.file, line, field_path(problem.path) if len(parts) == 1 else None,
                                     problem.message)
                except RecursionError:
                    yield TraceError(raw.file, raw.line, None, "the record is nested too deeply to read")


def _expand(paths: Iterable[str | Path]) -> Iterator[str]:
    for path in paths:
        p = Path(path)
        if str(path) != "-" and p.is_dir():
            yield from sorted(str(f) for f in p.rglob("*") if f.suffix in TRACE_SUFFIXES and f.is_file())
        else:
            yield str(path)


def _read(path: str) -> str:
    """The file's text, read within the input size cap without hanging (`policyc.inputs`);
    bytes that are not UTF-8 are kept as surrogates, so that only the records holding them are
    reported (`jsontext.bad_byte`)."""
    return read_input(path).decode("utf-8", errors="surrogateescape")


def _raw_records(path: str) -> Iterator[_Raw | TraceError]:
    name = "<stdin>" if path == "-" else path
    try:
        text = _read(path)
    except InputError as exc:
        yield TraceError(name, None, None, exc.reason)
        return
    except OSError as exc:
        yield TraceError(name, None, None, f"cannot read the file ({exc.strerror or exc})")
        return
    if text.startswith("\ufeff"):
        text = " " + text[1:]  # a byte-order mark: offsets and lines stay as they are
    if name.endswith(JSONL_SUFFIXES):
        yield from _jsonl(name, text)
        return
    if not text.strip():
        return
    value, problem, at = decode(text)
    if problem is None:
        yield from _json_records(name, text, value)
        return
    if problem == "invalid JSON: extra data" and bad_byte(text) is None:
        yield from _jsonl(name, text)  # one value per line in a `.json` file
        return
    start = len(text) - len(text.lstrip())
    if text.startswith("[", start):
        yield from _tolerant_array(name, text, start)
        return
    simulations = member(text, start, "simulations") if text.startswith("{", start) else None
    if simulations is not None and text.startswith("[", simulations):
        yield from _tolerant_array(name, text, simulations)  # a τ²-bench results file
        return
    yield _problem(name, text, 0, problem, at)


def _problem(name: str, text: str, start: int, problem: str, at: int | None) -> TraceError:
    """A malformed record starting at `start` of `text`; `at`: where in it, when one place."""
    if at is None:
        return TraceError(name, line_of(text, start), None, problem)
    line, column = where(text, start + at)
    return TraceError(name, line, None, f"{problem} (column {column})")


def _jsonl(name: str, text: str) -> Iterator[_Raw | TraceError]:
    """One record per line; lines end at `\n` (a `\r` before it is dropped), never at the
    other characters `str.splitlines` breaks at (U+2028 may stand inside a JSON string)."""
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        value, problem, at = decode(line)
        if problem is not None:
            yield TraceError(name, number, None, problem if at is None else f"{problem} (column {at + 1})")
            continue
        yield _Raw(name, number, value, lambda _path, number=number: number)


def _raw(name: str, text: str, lines: LineIndex, offset: int, value: object) -> _Raw:
    return _Raw(name, lines.line(offset), value, lambda path: lines.line(locate(text, offset, path)))


def _json_records(name: str, text: str, value: object) -> Iterator[_Raw | TraceError]:
    if value is None or value == []:
        return
    start = len(text) - len(text.lstrip())
    if isinstance(value, list) and detect_format(value) is None:
        yield from _elements(name, text, array_elements(text, start), value)
    elif isinstance(value, dict) and isinstance(value.get("simulations"), list):  # τ²-bench results
        yield from _elements(name, text, array_elements(text, member(text, start, "simulations") or start),
                             value["simulations"])
    elif isinstance(value, dict) and "info" in value and "tasks" in value:
        return  # τ²-bench results metadata; the simulations are files of their own
    else:
        yield _raw(name, text, LineIndex(text), start, value)


def _elements(name: str, text: str, spans: list[tuple[int, int]], values: list) -> Iterator[_Raw | TraceError]:
    """The elements of a parsed array (their values known), one record each."""
    lines = LineIndex(text)
    if len(spans) != len(values):  # cannot happen for valid JSON; decode each element then
        yield from _decoded(name, text, lines, spans)
        return
    for (start, _), item in zip(spans, values):
        yield _raw(name, text, lines, start, item)


def _tolerant_array(name: str, text: str, pos: int) -> Iterator[_Raw | TraceError]:
    """An array that is not valid JSON as a whole: each element is decoded on its own, and
    only the malformed ones are lost. When the good elements together are one record (the
    messages of one conversation), that record is malformed as a whole."""
    lines = LineIndex(text)
    items = list(_decoded(name, text, lines, array_elements(text, pos)))
    good = [i.value for i in items if isinstance(i, _Raw)]
    errors = [i for i in items if isinstance(i, TraceError)]
    if good and errors and detect_format(good) is not None and not any(detect_format(v) for v in good):
        yield errors[0]
        return
    yield from items


def _decoded(name: str, text: str, lines: LineIndex, spans) -> Iterator[_Raw | TraceError]:
    for start, end in spans:
        value, problem, at = decode(text[start:end])
        if problem is not None:
            yield _problem(name, text, start, problem, at)
        else:
            yield _raw(name, text, lines, start, value)
