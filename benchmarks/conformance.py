"""SAAG conformance: throughput of the cascade and of the gate's check, and the per-stage tables.

    python benchmarks/conformance.py                 # BFCL's data (bfcl-eval installed): docs' figures
    python benchmarks/conformance.py --quick         # 50 records per category
    python benchmarks/conformance.py --dataset FILE  # a dataset of your own (JSON or JSONL records)
    python benchmarks/conformance.py --json out.json # every figure, for machines

1. Reading: records per second, from the installed package's files to `Record`s (schemas
   read into tool signatures, gold calls chosen from the possible answers).
2. The cascade, in calls per second: gold calls through every stage, the same without the
   grounding stage, and the faulted calls (which mostly halt early).
3. The per-stage tables of the gold calls and of the injected faults (as `policyc
   conformance --faults` prints them).
4. The gate: microseconds per `propose` on the code-QA example, without a context (registry,
   structure, type) and with one (grounding too), and the conformance check alone.

No peer is timed: the paper's implementation is not published, and BFCL's own checker needs
the package's full dependency stack (an inference stack) to import.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from policyc.artifact.build import compile_file  # noqa: E402
from policyc.runtime import Monitor  # noqa: E402
from policyc.saag.bfcl import CATEGORIES, BfclMissing, iter_category  # noqa: E402
from policyc.saag.cascade import assess  # noqa: E402
from policyc.saag.dataset import DatasetError, iter_records  # noqa: E402
from policyc.saag.evaluate import evaluate_record, fault_rows  # noqa: E402
from policyc.saag.faults import FAULTS, inject  # noqa: E402
from policyc.saag.report import Tally, render_text  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
FALLBACK = ROOT / "examples" / "conformance" / "gold.jsonl"


def load(dataset: str | None, limit: int | None):
    """(records, where they came from, seconds spent reading)."""
    start = time.perf_counter()
    records = []
    if dataset is None:
        try:
            for category in CATEGORIES:
                for i, item in enumerate(iter_category(category)):
                    if limit is not None and i >= limit:
                        break
                    if not isinstance(item, DatasetError):
                        records.append((category, item))
            source = "BFCL (installed bfcl-eval), every single-turn category"
        except BfclMissing as exc:
            print(f"{exc}; using {FALLBACK.relative_to(ROOT)} instead")
            dataset = str(FALLBACK)
    if dataset is not None:
        records = [(dataset, r) for r in iter_records(dataset) if not isinstance(r, DatasetError)][:limit]
        source = dataset
    return records, source, time.perf_counter() - start


def rate(fn, items, repeat: int) -> tuple[float, float]:
    """(items per second, the best of `repeat` passes in seconds)."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        for item in items:
            fn(item)
        best = min(best, time.perf_counter() - start)
    return (len(items) / best if best else float("inf")), best


def gate_latency(runs: int) -> dict[str, float]:
    """Microseconds per propose on the code-QA example (median over the calls of `runs` runs)."""
    monitor = Monitor(compile_file(str(ROOT / "examples" / "code_qa.altl")))
    context = "Where is the request handler defined? Look in src/ and show me the function."
    calls = [("search", {"query": "request handler"}), ("list_directory", {"path": "src/"}),
             ("read_file", {"path": "src/api.py"}), ("grep", {"pattern": "def handle_request"})]
    out = {}
    for label, ctx in (("propose, no context", None), ("propose, with a context", context)):
        times = []
        for _ in range(runs):
            run = monitor.start(context=ctx)
            for tool, args in calls:
                start = time.perf_counter()
                decision = run.propose(tool, args)
                times.append(time.perf_counter() - start)
                if decision.executes:
                    run.record(tool, args, ["src/api.py", "src/handlers.py"])
        out[label] = statistics.median(times) * 1e6
    checker = monitor.conformance
    times = []
    for _ in range(runs):
        for tool, args in calls:
            start = time.perf_counter()
            checker.check(tool, args, (), context)
            times.append(time.perf_counter() - start)
    out["conformance check alone, with a context"] = statistics.median(times) * 1e6
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dataset", help="a JSON or JSONL dataset instead of BFCL's data")
    parser.add_argument("--quick", action="store_true", help="50 records per category, one pass")
    parser.add_argument("--json", help="write every figure to this file")
    args = parser.parse_args(argv)
    limit = 50 if args.quick else None
    repeat = 1 if args.quick else 3

    records, source, read_seconds = load(args.dataset, limit)
    gold = [(r, call) for _, r in records for call in (r.gold or ())]
    print(f"Dataset: {source}: {len(records)} records, {len(gold)} gold calls")
    print(f"Reading: {len(records) / read_seconds:,.0f} records/s ({read_seconds:.2f} s)")

    full, full_s = rate(lambda rc: assess(rc[1].name, rc[1].args, rc[0].registry, rc[0].query), gold, repeat)
    structural, _ = rate(lambda rc: assess(rc[1].name, rc[1].args, rc[0].registry), gold, repeat)
    faulted = [(r, bad) for r, call in gold for f in FAULTS
               if (bad := inject(f, call, r.registry, r.query, r.id)) is not None]
    faults, _ = rate(lambda rc: assess(rc[1].name, rc[1].args, rc[0].registry, rc[0].query), faulted, repeat)
    figures = {"source": source, "records": len(records), "gold_calls": len(gold),
               "records_per_second_read": len(records) / read_seconds,
               "calls_per_second": {"gold, every stage": full, "gold, without grounding": structural,
                                    "faulted calls": faults}}
    print("\nThe cascade (best of %d passes)" % repeat)
    for label, value in figures["calls_per_second"].items():
        print(f"  {label:<26} {value:>10,.0f} calls/s  ({1e6 / value:6.1f} µs per call)")

    tally = Tally()
    start = time.perf_counter()
    for group, record in records:
        tally.add_record()
        for row in evaluate_record(record, group):
            tally.add(row)
        for frow in fault_rows(record, group):
            tally.add_fault(frow)
    report = tally.report()
    figures["evaluation_seconds"] = time.perf_counter() - start
    figures["report"] = report.to_json()
    print(f"\nPer-stage results (gold calls and injected faults; {figures['evaluation_seconds']:.2f} s)\n")
    print(render_text(report).split("\n\n" + (report.examples[0]["record"] if report.examples else "\x00"))[0])

    latency = gate_latency(40 if args.quick else 400)
    figures["gate_microseconds"] = latency
    print("\nThe gate on the code-QA example (median µs per call)")
    for label, value in latency.items():
        print(f"  {label:<40} {value:8.1f} µs")
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
