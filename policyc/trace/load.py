"""Reading trace files: JSON, JSON arrays of records, JSONL, folders; any record format.

`iter_traces(paths)` yields, record by record, a `Trace` or a `TraceError` naming the file,
line and field of what is malformed; one bad record never stops the others from loading.

- `*.jsonl` / `*.ndjson`: one record per line (blank lines are skipped); lines end at `\n`
  only, so a U+2028 inside a string does not split a record; the lines of an MCP gateway's
  journal (`policyc.trace.journal`) are read as one record per session, ended or not;
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

import json
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO, Callable, Iterable, Iterator, Union

from policyc.inputs import InputError, is_dir, is_file, max_input_bytes, os_error, read_input
from policyc.jsontext import LineIndex, array_elements, bad_byte, decode, line_of, locate, member, where
from policyc.trace.errors import RecordProblem, TraceError, field_path
from policyc.trace.formats import detect_format, parse_trace, split_records
from policyc.trace.journal import Assembler, Finished, is_journal_line
from policyc.trace.model import Trace

JSONL_SUFFIXES = (".jsonl", ".ndjson")
PARQUET_SUFFIXES = (".parquet",)
TRACE_SUFFIXES = (".json",) + JSONL_SUFFIXES + PARQUET_SUFFIXES
#: The column of a Parquet shard that holds each row's record, as JSON text.
PARQUET_COLUMN = "record"


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
    line_of_field: Callable[[tuple[str | int, ...]], int]


def load_traces(paths: str | Path | Iterable[str | Path], format: str = "auto") -> LoadedTraces:
    """Read every record of `paths` (files, folders, `-`)."""
    out = LoadedTraces()
    for item in iter_traces(paths, format):
        if isinstance(item, TraceError):
            out.errors.append(item)
        else:
            out.traces.append(item)
    return out


def iter_traces(paths: str | Path | Iterable[str | Path], format: str = "auto") -> Iterator[Trace | TraceError]:
    """Each record of `paths`, in order, as a Trace or as the TraceError that explains it."""
    for source in iter_sources(paths):
        yield from read_source(source, format)


@dataclass(frozen=True, slots=True)
class JsonlLine:
    """One line of a JSONL file, not decoded yet: a unit of work that can be sent to another
    process (or machine) and read there (`read_source`)."""

    file: str
    line: int
    text: str


#: What `read_source` reads: a JSONL line, a decoded record of a JSON file, a record that
#: could not be read, or a trace read already.
Source = Union[JsonlLine, "_Raw", TraceError, Trace]


def iter_sources(paths: str | Path | Iterable[str | Path]) -> Iterator[Source]:
    """The records of `paths` before they are read as traces, in order: JSONL lines (streamed:
    a regular JSONL file is read a line at a time, so a corpus of any size takes the memory
    of its longest line), decoded records of JSON files, and what could not be read."""
    if isinstance(paths, (str, Path)):
        paths = [paths]
    for path in _expand(paths):
        if path != "-" and path.endswith(JSONL_SUFFIXES):
            yield from stream_jsonl(path)
        elif path != "-" and path.endswith(PARQUET_SUFFIXES):
            yield from parquet_lines(path, path)
        else:
            yield from _raw_records(path)


def read_source(source: Source, format: str = "auto") -> list[Trace | TraceError]:
    """The traces (or TraceErrors) one source holds."""
    if isinstance(source, (TraceError, Trace)):
        return [source]
    if isinstance(source, JsonlLine):
        value, problem, at = decode(source.text)
        if problem is not None:
            return [TraceError(source.file, source.line, None,
                               problem if at is None else f"{problem} (column {at + 1})")]
        number = source.line
        source = _Raw(source.file, number, value, lambda _path: number)
    raw = source
    out: list[Trace | TraceError] = []
    parts = split_records(raw.value, format)
    for value in parts:
        try:
            out.append(parse_trace(value, format, origin=f"{raw.file}:{raw.line}"))
        except RecordProblem as problem:
            line = raw.line_of_field(problem.path) if len(parts) == 1 else raw.line
            out.append(TraceError(raw.file, line, field_path(problem.path) if len(parts) == 1 else None,
                                  problem.message))
        except RecursionError:
            out.append(TraceError(raw.file, raw.line, None, "the record is nested too deeply to read"))
    return out


def stream_jsonl(path: str) -> Iterator[_Raw | JsonlLine | TraceError]:
    """The lines of a JSONL file, read a line at a time from a regular file (no cap on the
    file, `max_input_bytes()` on each line); anything else that is not a regular file (a
    pipe, a device) is read whole within the input cap, as every other input is."""
    try:
        handle = _open_regular(path)
    except InputError as exc:
        yield TraceError(path, None, None, exc.reason)
        return
    if handle is None:
        yield from _raw_records(path)
        return
    with handle:
        yield from jsonl_lines(handle.read, path)


#: Bytes read at a time from a JSONL stream.
READ_SIZE = 1 << 20


def jsonl_lines(read: Callable[[int], bytes], path: str, cap: int | None = None) -> Iterator[JsonlLine | TraceError]:
    """The lines of a JSONL stream (`read(n)` gives up to n more bytes, b"" at its end), as
    `JsonlLine`s numbered from 1: lines end at `\n` only (a `\r` before it is dropped), blank
    lines are skipped, a byte-order mark is read as a space (columns stay right); a line longer
    than `cap` bytes (default `max_input_bytes()`) is one TraceError, and reading goes on."""
    return with_sessions(_jsonl_lines(read, path, cap), path)


def with_sessions(items: Iterable[JsonlLine | TraceError], path: str) -> Iterator[JsonlLine | TraceError]:
    """The lines, with those of a gateway journal gathered into one record per session (the
    line of its first event stands for it); every other line as it is."""
    assembler = Assembler()
    for item in items:
        if isinstance(item, JsonlLine) and is_journal_line(item.text):
            done = assembler.feed(item.line, item.text)
            if done is not None:
                yield from _sessions(done, path)
                continue
        yield item
    yield from _sessions(assembler.finish(), path)


def _sessions(done: Iterable[Finished], path: str) -> Iterator[JsonlLine | TraceError]:
    for line, record, problem in done:
        if problem is not None:
            yield TraceError(path, problem[0], problem[1], problem[2])
        else:
            yield JsonlLine(path, line, json.dumps(record, ensure_ascii=False))


def _jsonl_lines(read: Callable[[int], bytes], path: str, cap: int | None) -> Iterator[JsonlLine | TraceError]:
    cap = max_input_bytes() if cap is None else cap
    number = 0
    pending = bytearray()  # the start of the line being read
    skipping = False  # the line being read is longer than the cap
    while True:
        block = read(READ_SIZE)
        if not block:
            break
        start = 0
        while (end := block.find(b"\n", start)) >= 0:
            number += 1
            yield from _finish(path, number, pending, block[start:end], skipping, cap)
            pending.clear()
            skipping = False
            start = end + 1
        if not skipping:
            pending += block[start:]
            if len(pending) > cap:
                pending.clear()
                skipping = True
    if pending or skipping:
        yield from _finish(path, number + 1, pending, b"", skipping, cap)


def _finish(path: str, number: int, pending: bytearray, tail: bytes, skipping: bool,
            cap: int) -> Iterator[JsonlLine | TraceError]:
    if skipping or len(pending) + len(tail) > cap:
        yield _too_long(path, number, cap)
    else:
        yield from _line(path, number, bytes(pending) + tail if pending else tail)


def _line(path: str, number: int, data: bytes) -> Iterator[JsonlLine]:
    text = data.decode("utf-8", errors="surrogateescape")
    if number == 1 and text.startswith("\ufeff"):
        text = " " + text[1:]  # a byte-order mark: columns stay as they are
    if text.endswith("\r"):
        text = text[:-1]
    if text.strip():
        yield JsonlLine(path, number, text)


def _too_long(path: str, number: int, cap: int) -> TraceError:
    return TraceError(path, number, None, f"the record is longer than {cap} bytes, the most a record may be "
                                          f"(set POLICYC_MAX_INPUT_MB to allow more)")


def parquet_lines(source: str | BinaryIO, path: str, batch: int = 1024) -> Iterator[JsonlLine | TraceError]:
    """The records of a Parquet shard (`source`: its path or an open file), a row at a time
    in batches: each row holds one record as JSON text in the column `record`; a row's number
    stands where a JSONL record has its line. Reading Parquet needs pyarrow (installed with
    `policyc[ray]`)."""
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        yield TraceError(path, None, None, "reading Parquet needs pyarrow (pip install 'policyc[ray]')")
        return
    try:
        shard = pq.ParquetFile(source)
        if PARQUET_COLUMN not in shard.schema_arrow.names:
            names = ", ".join(f"`{n}`" for n in shard.schema_arrow.names[:10]) or "none"
            yield TraceError(path, None, None, f"a Parquet shard holds one record per row, as JSON text in a column "
                                               f"named `{PARQUET_COLUMN}`; this one has the columns {names}")
            return
        number, cap = 0, max_input_bytes()
        for rows in shard.iter_batches(batch_size=batch, columns=[PARQUET_COLUMN]):
            for text in rows.column(0).to_pylist():
                number += 1
                if isinstance(text, bytes):
                    text = text.decode("utf-8", errors="surrogateescape")
                if not isinstance(text, str):
                    yield TraceError(path, number, PARQUET_COLUMN, "the record is not JSON text"
                                     + (" (it is null)" if text is None else ""))
                elif len(text) > cap:
                    yield _too_long(path, number, cap)
                elif text.strip():
                    yield JsonlLine(path, number, text)
    except (pa.ArrowException, OSError, ValueError) as exc:
        yield TraceError(path, None, None, f"not a readable Parquet file ({str(exc).splitlines()[0][:200]})")


def _open_regular(path: str) -> BinaryIO | None:
    """A regular file opened for reading in binary, or None when `path` is something else
    (the caller reads it within the cap); InputError when it cannot be read at all."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return None
        return open(path, "rb")
    except OSError as exc:
        raise os_error(path, exc) from None


def _expand(paths: Iterable[str | Path]) -> Iterator[str]:
    for path in paths:
        p = Path(path)
        if str(path) != "-" and is_dir(p):
            yield from sorted(str(f) for f in p.rglob("*") if f.suffix in TRACE_SUFFIXES and is_file(f))
        else:
            yield str(path)


def _read(path: str) -> str:
    """The file's text, read within the input size cap without hanging (`policyc.inputs`);
    bytes that are not UTF-8 are kept as surrogates, so that only the records holding them are
    reported (`jsontext.bad_byte`)."""
    return read_input(path).decode("utf-8", errors="surrogateescape")


def _raw_records(path: str) -> Iterator[_Raw | JsonlLine | TraceError]:
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


def _jsonl(name: str, text: str) -> Iterator[JsonlLine | TraceError]:
    """One record per line of text read whole; lines end at `\n` (a `\r` before it is
    dropped), never at the other characters `str.splitlines` breaks at (U+2028 may stand
    inside a JSON string)."""
    yield from with_sessions((JsonlLine(name, number, line[:-1] if line.endswith("\r") else line)
                              for number, line in enumerate(text.split("\n"), start=1) if line.strip()), name)


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


def _elements(name: str, text: str, spans: list[tuple[int, int]], values: list[object]) -> Iterator[_Raw | TraceError]:
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


def _decoded(name: str, text: str, lines: LineIndex, spans: Iterable[tuple[int, int]]) -> Iterator[_Raw | TraceError]:
    for start, end in spans:
        value, problem, at = decode(text[start:end])
        if problem is not None:
            yield _problem(name, text, start, problem, at)
        else:
            yield _raw(name, text, lines, start, value)
