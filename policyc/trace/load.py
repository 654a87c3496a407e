"""Reading trace files: JSON, JSON arrays of records, JSONL, folders; any record format.

`iter_traces(paths)` yields, record by record, a `Trace` or a `TraceError` naming the file,
line and field of what is malformed; one bad record never stops the others from loading.

- `*.jsonl` / `*.ndjson`: one record per line (blank lines are skipped);
- `*.json` (or anything else): one record, an array of records, or a τ²-bench results file
  (each of its `simulations` is a record); text that is not one JSON value but one value per
  line is read as JSONL;
- a folder: every `.json`, `.jsonl` and `.ndjson` file below it, in sorted order;
- `-`: standard input.

Each record's format is detected from its shape unless `format` names one (see
`policyc.trace.formats`).

>>> loaded = load_traces(["examples/traces/appendix_b.json"])
>>> [t.tool_sequence for t in loaded.traces], loaded.errors
([['tool_a', 'tool_b', 'tool_b', 'tool_b', 'tool_d']], [])
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Iterator

from policyc.inputs import InputError, read_input
from policyc.trace.errors import RecordProblem, TraceError, field_path
from policyc.trace.formats import detect_format, parse_trace
from policyc.trace.jsontext import LineIndex, locate, split_array
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
            try:
                yield parse_trace(raw.value, format, origin=f"{raw.file}:{raw.line}")
            except RecordProblem as problem:
                yield TraceError(raw.file, raw.line_of_field(problem.path), field_path(problem.path), problem.message)


def _expand(paths: Iterable[str | Path]) -> Iterator[str]:
    for path in paths:
        p = Path(path)
        if str(path) != "-" and p.is_dir():
            yield from sorted(str(f) for f in p.rglob("*") if f.suffix in TRACE_SUFFIXES and f.is_file())
        else:
            yield str(path)


def _read(path: str) -> str:
    """The file's text, read within the input size cap without hanging (`policyc.inputs`)."""
    return read_input(path).decode("utf-8")


def _raw_records(path: str) -> Iterator[_Raw | TraceError]:
    name = "<stdin>" if path == "-" else path
    try:
        text = _read(path)
    except InputError as exc:
        yield TraceError(name, None, None, exc.reason)
        return
    except (OSError, UnicodeDecodeError) as exc:
        yield TraceError(name, None, None, f"cannot read the file ({getattr(exc, 'strerror', None) or exc})")
        return
    if name.endswith(JSONL_SUFFIXES):
        yield from _jsonl(name, text)
        return
    try:
        value = json.loads(text) if text.strip() else None
    except json.JSONDecodeError as exc:
        if exc.msg.startswith("Extra data"):
            yield from _jsonl(name, text)
        else:
            yield TraceError(name, exc.lineno, None, f"invalid JSON: {exc.msg.lower()} (column {exc.colno})")
        return
    yield from _json_records(name, text, value)


def _jsonl(name: str, text: str) -> Iterator[_Raw | TraceError]:
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError as exc:
            yield TraceError(name, number, None, f"invalid JSON: {exc.msg.lower()} (column {exc.colno})")
            continue
        yield _Raw(name, number, value, lambda _path, number=number: number)


def _json_records(name: str, text: str, value: object) -> Iterator[_Raw]:
    if value is None or value == []:
        return
    lines = LineIndex(text)

    def raw(offset: int, item: object) -> _Raw:
        return _Raw(name, lines.line(offset), item, lambda path: lines.line(locate(text, offset, path)))

    if isinstance(value, list) and detect_format(value) is None:
        for offset, item in split_array(text, 0):
            yield raw(offset, item)
    elif isinstance(value, dict) and isinstance(value.get("simulations"), list):  # τ²-bench results
        for offset, item in split_array(text, locate(text, 0, ("simulations",))):
            yield raw(offset, item)
    elif isinstance(value, dict) and "info" in value and "tasks" in value:
        return  # τ²-bench results metadata; the simulations are files of their own
    else:
        yield raw(len(text) - len(text.lstrip()), value)
