"""What a scoring worker is given once (the compiled policy) and what it returns per record.

A `ScoringJob` is plain, picklable data: the artifact's JSON text (the compiled policy, as
`policyc compile` writes it: verified again where it is loaded), the extern predicates'
functions (pickled by reference: a worker imports the modules the user bound, nothing else),
the trace format and which text of each report to return. `job.scorer()` loads it once per
worker; `score_chunk` turns a chunk of sources into `Scored` items, in order.

>>> from policyc.artifact.build import compile_file
>>> from policyc.artifact.io import dump_artifact
>>> from policyc.trace.load import JsonlLine
>>> job = ScoringJob(dump_artifact(compile_file("examples/fan_out_fan_in.altl")))
>>> line = JsonlLine("runs.jsonl", 1, '{"tool_calls": [{"tool_name": "tool_a"}]}')
>>> [s.tally.label for s in score_chunk(job.scorer(), job, [line])]
['PARTIAL']
>>> score_chunk(job.scorer(), job, [JsonlLine("runs.jsonl", 2, '{"tool_calls": 3}')])[0].malformed.line
2
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Callable, Mapping, NamedTuple, Sequence

from policyc.artifact.io import parse_verified
from policyc.scoring import MalformedRecord, RunTally, Scorer, TraceReport
from policyc.trace.errors import TraceError
from policyc.trace.load import Source, read_source
from policyc.trace.model import Trace

#: Which text of each report a worker returns: none (aggregates only), the JSONL line of
#: `policyc score --format jsonl`, or the report's block of `--format json`'s document.
REPORTS_NONE, REPORTS_JSONL, REPORTS_JSON = "none", "jsonl", "json"


class Scored(NamedTuple):
    """One record, scored: a run's tally (and its report's text when asked for), or the
    malformed record it was."""

    tally: RunTally | None
    text: str | None
    malformed: MalformedRecord | None
    report: TraceReport | None = None  # the report itself, when the chunk was scored in this process


@dataclass(frozen=True)
class ScoringJob:
    artifact: str  # the compiled policy, as artifact JSON text
    externs: Mapping[str, Callable[..., object]] = field(default_factory=dict)
    format: str = "auto"  # how trace records are read (`policyc.trace.formats`)
    reports: str = REPORTS_NONE

    def scorer(self) -> Scorer:
        compiled = parse_verified(self.artifact, "<scoring job>").compiled
        return Scorer(compiled, externs=self.externs)


def report_text(report: TraceReport, kind: str) -> str | None:
    """A report as `policyc score` prints it: a JSONL line, or the block it is in the JSON
    document (indented to its place in the `reports` list)."""
    if kind == REPORTS_JSONL:
        return json.dumps(report.model_dump(mode="json"), ensure_ascii=False)
    if kind == REPORTS_JSON:
        text = json.dumps(report.model_dump(mode="json"), indent=2, ensure_ascii=False)
        return "\n".join("    " + line for line in text.split("\n"))
    return None


def score_chunk(scorer: Scorer, job: ScoringJob, sources: Sequence[Source],
                keep: bool | Callable[[RunTally], bool] = False) -> list[Scored]:
    """Every record of `sources`, scored, in order (`keep`: also return the report objects,
    of every run or of those whose tally it accepts)."""
    out: list[Scored] = []
    for source in sources:
        for item in read_source(source, job.format):
            out.append(score_one(scorer, job, item, keep))
    return out


def score_one(scorer: Scorer, job: ScoringJob, item: Trace | TraceError,
              keep: bool | Callable[[RunTally], bool] = False) -> Scored:
    """One record scored: only its tally when no report is wanted (the details are not made)."""
    if isinstance(item, TraceError):
        return Scored(None, None, MalformedRecord(**item.to_json()))
    if job.reports == REPORTS_NONE and keep is not True:
        tally = scorer.tally(item)
        if not (keep and keep(tally)):
            return Scored(tally, None, None)
    report = scorer.score(item)
    return Scored(RunTally.of(report), report_text(report, job.reports), None, report if keep else None)
