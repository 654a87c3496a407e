"""Per-stage tables of a conformance evaluation, as the paper reports them: text, JSON, Markdown.

`Tally` takes rows one at a time (memory does not grow with the dataset, apart from the
few examples kept) and `report()` gives a `ConformanceReport`:

- **stages**: how many calls entered each stage, passed it and halted there (the cascade
  is strict, so each stage sees only the calls that passed the ones before);
- **metrics**: the eight metrics, mean ± standard deviation over the rows where each is
  defined (NCS on unregistered names, PDS on calls with out-of-schema parameters, QSLO on
  calls with a string that misses): stage-conditional diagnostics, as in table 3;
- **problems**: by stage and code, the problems where the cascade halted and the corrections
  of stages that passed (a drifted parameter);
- **extrinsic** (with gold calls): name accuracy, argument precision, recall, F1 and the
  solve rate, as in table 2;
- **groups**: the same counts per BFCL category (or dataset file);
- **faults**: per fault, how many were injected, caught at the stage that must catch them,
  or halted elsewhere.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field

from policyc.saag.cascade import STAGE_NAMES
from policyc.saag.dataset import DatasetError
from policyc.saag.evaluate import FaultRow, Row
from policyc.saag.faults import FAULTS

METRICS = ("FNEM", "NCS", "RPR", "PDS", "SPR", "AVEM", "QSLO", "VHR", "VHR_ctx")
EXAMPLES = 5


class Stat:
    """Count, mean and (population) standard deviation, kept by Welford's update."""

    __slots__ = ("n", "mean", "_m2")

    def __init__(self) -> None:
        self.n, self.mean, self._m2 = 0, 0.0, 0.0

    def add(self, x: float) -> None:
        self.n += 1
        delta = x - self.mean
        self.mean += delta / self.n
        self._m2 += delta * (x - self.mean)

    @property
    def std(self) -> float:
        return math.sqrt(self._m2 / self.n) if self.n else 0.0

    def to_json(self) -> dict:
        return {"n": self.n, "mean": self.mean if self.n else None, "std": self.std if self.n else None}


@dataclass
class Counts:
    calls: int = 0
    passed: int = 0
    halted: dict[str, int] = field(default_factory=lambda: dict.fromkeys(STAGE_NAMES, 0))

    def add(self, row: Row) -> None:
        self.calls += 1
        stage = row.assessment.halted_at
        if stage is None:
            self.passed += 1
        else:
            self.halted[stage] += 1

    def to_json(self) -> dict:
        return {"calls": self.calls, "passed": self.passed, "halted": dict(self.halted)}


@dataclass
class FaultCounts:
    expected: str
    injected: int = 0
    not_applicable: int = 0
    caught: int = 0
    halted: dict[str, int] = field(default_factory=lambda: {**dict.fromkeys(STAGE_NAMES, 0), "passed": 0})

    def to_json(self) -> dict:
        return {"expected": self.expected, "injected": self.injected, "not_applicable": self.not_applicable,
                "caught": self.caught, "halted": dict(self.halted)}


@dataclass
class ConformanceReport:
    records: int
    mode: str                                   # "predicted" or "gold"
    counts: Counts
    entered: dict[str, int]
    metrics: dict[str, Stat]
    problems: dict[str, int]                    # "stage/code" -> count
    extrinsic: dict[str, Stat]
    groups: dict[str, Counts]
    faults: dict[str, FaultCounts]
    malformed: list[DatasetError]
    examples: list[dict]
    leaks: int = 0                              # corrections quoting a gold value (must be 0)

    @property
    def clean(self) -> bool:
        """Every call passed every stage, and every injected fault was caught where it must be."""
        faults_ok = all(f.caught == f.injected for f in self.faults.values())
        return self.counts.passed == self.counts.calls and faults_ok and not self.leaks

    def to_json(self) -> dict:
        return {
            "records": self.records, "mode": self.mode, "calls": self.counts.calls, "passed": self.counts.passed,
            "stages": [{"stage": s, "entered": self.entered[s], "halted": self.counts.halted[s],
                        "passed": self.entered[s] - self.counts.halted[s]} for s in STAGE_NAMES],
            "metrics": {k: v.to_json() for k, v in self.metrics.items()},
            "problems": dict(self.problems),
            "extrinsic": {k: v.to_json() for k, v in self.extrinsic.items()} or None,
            "groups": {k: v.to_json() for k, v in self.groups.items()},
            "faults": {k: v.to_json() for k, v in self.faults.items()} or None,
            "correction_leaks": self.leaks,
            "malformed": [{"where": e.where, "field": e.field, "message": e.message} for e in self.malformed],
            "examples": self.examples,
        }


class Tally:
    """Rows in, a `ConformanceReport` out."""

    def __init__(self) -> None:
        self.records = 0
        self.mode = "gold"
        self.counts = Counts()
        self.entered = dict.fromkeys(STAGE_NAMES, 0)
        self.metrics = {k: Stat() for k in METRICS}
        self.problems: dict[str, int] = {}
        self.extrinsic: dict[str, Stat] = {}
        self.groups: dict[str, Counts] = {}
        self.faults: dict[str, FaultCounts] = {}
        self.malformed: list[DatasetError] = []
        self.examples: list[dict] = []
        self.leaks = 0

    def add_malformed(self, error: DatasetError) -> None:
        self.malformed.append(error)

    def add_record(self) -> None:
        self.records += 1

    def add(self, row: Row) -> None:
        if not row.gold:
            self.mode = "predicted"
        self.counts.add(row)
        self.groups.setdefault(row.group, Counts()).add(row)
        for result in row.assessment.stages:
            self.entered[result.stage] += 1
            for name, value in result.metrics().items():
                if value is not None:
                    self.metrics[name].add(value)
        for p in row.assessment.problems:
            key = f"{p.stage}/{p.code}"
            self.problems[key] = self.problems.get(key, 0) + 1
        if row.name_correct is not None and not row.gold:
            for name, value in (("name accuracy", float(row.name_correct)), ("argument precision", row.precision),
                                ("argument recall", row.recall), ("F1", row.f1),
                                ("solve rate", float(bool(row.solved)))):
                if value is not None:
                    self.extrinsic.setdefault(name, Stat()).add(value)
        if not row.assessment.passed and len(self.examples) < EXAMPLES:
            self.examples.append({"record": row.record, "group": row.group, "call": row.call.to_json(),
                                  "stage": row.assessment.halted_at,
                                  "problems": [str(p) for p in row.assessment.problems],
                                  "correction": row.correction})

    def add_fault(self, row: FaultRow) -> None:
        counts = self.faults.setdefault(row.fault, FaultCounts(row.expected))
        if not row.applicable:
            counts.not_applicable += 1
            return
        counts.injected += 1
        counts.caught += row.caught
        counts.halted[row.halted_at or "passed"] += 1
        self.leaks += row.leak

    def report(self) -> ConformanceReport:
        faults = {k: self.faults[k] for k in FAULTS if k in self.faults}
        return ConformanceReport(self.records, self.mode, self.counts, self.entered, self.metrics,
                                 dict(sorted(self.problems.items())), self.extrinsic, self.groups, faults,
                                 self.malformed, self.examples, self.leaks)


# ------------------------------------------------------------------ rendering


def _pm(stat: Stat) -> str:
    return "-" if not stat.n else f"{stat.mean:.3f} ± {stat.std:.3f}"


def tables(report: ConformanceReport) -> list[tuple[str, list[str], list[list[str]]]]:
    """The report as (title, header, rows) tables, shared by the text and Markdown renderers."""
    out = []
    stages = [[s, str(report.entered[s]), str(report.entered[s] - report.counts.halted[s]),
               str(report.counts.halted[s])] for s in STAGE_NAMES]
    what = "gold calls" if report.mode == "gold" else "predicted calls"
    out.append((f"Cascade ({report.counts.calls} {what} of {report.records} records; "
                f"{report.counts.passed} pass every stage)", ["stage", "entered", "passed", "halted"], stages))
    metric_stage = {"FNEM": "registry", "NCS": "registry", "RPR": "structure", "PDS": "structure",
                    "SPR": "structure", "AVEM": "grounding", "QSLO": "grounding", "VHR": "grounding",
                    "VHR_ctx": "grounding"}
    out.append(("Intrinsic metrics (stage-conditional; mean ± std over the rows where defined)",
                ["metric", "stage", "rows", "mean ± std"],
                [[k, metric_stage[k], str(v.n), _pm(v)] for k, v in report.metrics.items()]))
    if report.problems:
        out.append(("Problems (where the cascade halted, and corrections of stages passed)", ["stage/code", "calls"], [[k, str(v)] for k, v in report.problems.items()]))
    if report.extrinsic:
        out.append(("Extrinsic metrics (against the gold calls)", ["metric", "rows", "mean ± std"],
                    [[k, str(v.n), _pm(v)] for k, v in report.extrinsic.items()]))
    if len(report.groups) > 1 or any(report.groups):
        out.append(("Per group", ["group", "calls", "pass", *STAGE_NAMES],
                    [[g or "-", str(c.calls), str(c.passed), *(str(c.halted[s]) for s in STAGE_NAMES)]
                     for g, c in report.groups.items()]))
    if report.faults:
        out.append((f"Injected faults (into the gold calls that pass every stage; correction leaks: {report.leaks})",
                    ["fault", "caught at", "injected", "caught", *STAGE_NAMES, "passed", "n/a"],
                    [[k, f.expected, str(f.injected), str(f.caught), *(str(f.halted[s]) for s in STAGE_NAMES),
                      str(f.halted["passed"]), str(f.not_applicable)] for k, f in report.faults.items()]))
    return out


def render_text(report: ConformanceReport) -> str:
    chunks = []
    for title, header, rows in tables(report):
        widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
        lines = [title, "  ".join(h.ljust(w) for h, w in zip(header, widths)).rstrip(),
                 "  ".join("-" * w for w in widths)]
        for r in rows:
            lines.append("  ".join(c.rjust(w) if i else c.ljust(w) for i, (c, w) in enumerate(zip(r, widths))).rstrip())
        chunks.append("\n".join(lines))
    for ex in report.examples:
        chunks.append(f"{ex['record']}: halted at {ex['stage']}: " + "; ".join(ex["problems"])
                      + (f"\n  correction: {ex['correction']}" if ex["correction"] else ""))
    for e in report.malformed:
        chunks.append(f"malformed: {e}")
    return "\n\n".join(chunks) + "\n"


def render_markdown(report: ConformanceReport) -> str:
    chunks = []
    for title, header, rows in tables(report):
        lines = [f"**{title}**", "", "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        lines.extend("| " + " | ".join(c.replace("|", "\\|") for c in r) + " |" for r in rows)
        chunks.append("\n".join(lines))
    if report.malformed:
        chunks.append("\n".join(f"- malformed: `{e}`" for e in report.malformed))
    return "\n\n".join(chunks) + "\n"


def render_json(report: ConformanceReport) -> str:
    return json.dumps(report.to_json(), indent=2, ensure_ascii=False) + "\n"


def render(report: ConformanceReport, fmt: str) -> str:
    return {"text": render_text, "json": render_json, "markdown": render_markdown}[fmt](report)

