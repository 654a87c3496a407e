"""Scoring corpora: full reports against verdicts and against agentltl; one process, --jobs, Ray.

    python benchmarks/corpus.py                    # the figures of docs/performance.md
    python benchmarks/corpus.py --quick            # small sizes, a minute or so
    python benchmarks/corpus.py --runs 100000 --engines local jobs ray --json out.json

1. **Full reports at the speed of verdicts** (in this process, thread CPU time): a policy of 50
   rules over 10 tools (the rules of benchmarks/runtime.py: before, after, called, counts,
   in_order, within_steps, never, precedence, response), on 1,000 random runs of 100 calls
   and on one run of 10,000 calls: the monitor's verdicts alone (`Monitor.verdicts`, the
   automata's product, on a fresh monitor: a monitor warmed by 1,000 other random runs is no
   faster, as their joint states are new; only replaying the very same runs hits its memo),
   what an aggregate needs (`Scorer.tally`: verdicts, vacuity, applicability,
   conformance, no details), full appendix B reports (`Scorer.score`: verdicts, details,
   violation steps, vacuity, conformance), and `agentltl.verify_trace` (0.2.1, the paper's engine, when
   installed) on the same rules, written with its constructors. Ratios: full / verdicts and
   agentltl / full. Each engine reads its own copies of the runs (a trace keeps what it was
   once asked, which a second engine would otherwise find known); the long run's figures are
   the median of 5 such measures. Results are dropped as they are made, as `policyc score`
   drops each report once written (a list of 1,000 reports kept alive costs the collector about a third more).
2. **Corpus scale** (`policyc score` as a subprocess, its children's CPU and peak memory from
   `getrusage`): N generated runs (5 to 45 calls, in JSONL shards, a malformed record every
   997) scored in one process, with `--jobs 2`, and on a local Ray cluster of 2 workers
   (`--engine ray`), at N/10 and N runs, so that memory can be seen not to grow with the
   corpus. Every engine's output is compared with the single process's, byte for byte.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from statistics import median

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from runtime import artifact_of, generate, random_run  # noqa: E402

from policyc.runtime import Monitor  # noqa: E402
from policyc.scoring import Scorer  # noqa: E402
from policyc.trace import Trace  # noqa: E402

try:
    from agentltl import verify_trace
except ImportError:  # pragma: no cover - the peer is optional
    verify_trace = None


def cpu(fn) -> float:
    t0 = time.thread_time()
    fn()
    return time.thread_time() - t0


def drain(make, items) -> None:
    """Make a result per item and drop it, as `policyc score` does when it streams a corpus."""
    for t in items:
        make(t)


def fresh(items: list[Trace]) -> list[Trace]:
    """Copies of the runs, made before the clock starts: a trace keeps what it was once asked
    (whether its events are all the agent's calls, its sources), which an engine measured
    after another would otherwise find already known."""
    return [replace(t) for t in items]


def measured(maker, items: list[Trace], times: int, whole: bool = False) -> float:
    """The median thread CPU time of `maker()` (made before the clock starts) over fresh copies
    of the runs, one run at a time (`whole`: over them all in one call)."""
    out = []
    for _ in range(times):
        make, copies = maker(), fresh(items)
        out.append(cpu(lambda: make(copies) if whole else drain(make, copies)))  # noqa: B023
    return median(out)


def full_reports(runs: int, length: int, long_length: int, out: dict) -> None:
    print(f"## Full reports against verdicts: 50 rules, {runs:,} runs of {length} calls, one of {long_length:,}")
    text, constraints = generate(50)
    artifact = artifact_of(text)
    scorer = Scorer(Monitor(artifact).compiled)
    rng = random.Random(3)
    traces = [Trace.of(*random_run(length, rng)) for _ in range(runs)]
    long_trace = Trace.of(*random_run(long_length, rng))

    def theirs(items):
        for t in items:
            verify_trace({"tool_calls": [{"tool_name": c.name, "arguments": c.args} for c in t.calls]}, constraints)

    rows = {}
    for label, items in ((f"{runs:,} x {length} calls", traces), (f"1 x {long_length:,} calls", [long_trace])):
        times = 1 if len(items) > 1 else 5  # one run of a few ms: the median of 5
        # a fresh monitor each time: its product's memo starts empty
        verdicts = measured(lambda: Monitor(artifact).verdicts, items, times)
        tallies = measured(lambda: scorer.tally, items, times)
        full = measured(lambda: scorer.score, items, times)
        peer = measured(lambda: theirs, items, times, whole=True) if verify_trace is not None else None
        calls = sum(len(t) for t in items)
        row = {"verdicts_s": verdicts, "tallies_s": tallies, "full_s": full,
               "agentltl_s": peer, "full_over_verdicts": full / verdicts, "tallies_over_verdicts": tallies / verdicts,
               "agentltl_over_full": None if peer is None else peer / full, "full_calls_per_s": calls / full}
        rows[label] = row
        peer_text = "agentltl not installed" if peer is None else f"agentltl {peer:.2f} s ({peer / full:.1f}x full)"
        print(f"{label:>22}: verdicts {verdicts:.3f} s, aggregate only {tallies:.3f} s ({tallies / verdicts:.2f}x), "
              f"full reports {full:.3f} s ({full / verdicts:.2f}x verdicts, {calls / full:,.0f} calls/s), {peer_text}")
    out["full_reports"] = rows


# ------------------------------------------------------------------ corpus scale


def write_corpus(folder: Path, runs: int, shards: int, seed: int = 11) -> list[str]:
    rng = random.Random(seed)
    tools = [f"tool_{i}" for i in range(10)]
    paths = [folder / f"shard-{k:02d}.jsonl" for k in range(shards)]
    handles = [p.open("w", encoding="utf-8") for p in paths]
    for i in range(runs):
        out = handles[i % shards]
        if i % 997 == 996:
            out.write('{"tool_calls": [{"tool_name": 3}]}\n')
            continue
        calls = [{"tool_name": rng.choice(tools), "arguments": {"x": rng.randint(0, 3)}, "tool_result": rng.randint(0, 9)}
                 for _ in range(rng.randint(5, 45))]
        out.write(json.dumps({"id": f"run-{i}", "tool_calls": calls}) + "\n")
    for h in handles:
        h.close()
    return [str(p) for p in paths]


#: Runs a command and prints its wall time, the CPU time of it and its descendants, and the
#: peak resident memory of the largest of them (a fresh process per command, so that the
#: peak is this command's alone).
MEASURE = """
import json, resource, subprocess, sys, time
t0 = time.perf_counter()
done = subprocess.run(sys.argv[2:], stdout=open(sys.argv[1], "w"), stderr=subprocess.PIPE, text=True)
wall = time.perf_counter() - t0
r = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({"rc": done.returncode, "wall": wall, "cpu": r.ru_utime + r.ru_stime, "peak_kib": r.ru_maxrss,
                  "stderr": done.stderr[-2000:]}))
"""


def run_cli(args: list[str], folder: Path) -> tuple[float, float, int, str]:
    """(wall s, CPU s of the command and its descendants, peak RSS MiB of one of them, stdout)."""
    output = folder / "stdout.txt"
    done = subprocess.run([sys.executable, "-c", MEASURE, str(output), sys.executable, "-m", "policyc", *args],
                          capture_output=True, text=True, cwd=ROOT, check=True)
    figures = json.loads(done.stdout)
    if figures["rc"] not in (0, 1, 2):
        raise SystemExit(f"policyc {' '.join(args[:3])} ... failed ({figures['rc']}): {figures['stderr']}")
    return figures["wall"], figures["cpu"], figures["peak_kib"] // 1024, output.read_text(encoding="utf-8")


def corpus_scale(runs: int, engines: list[str], out: dict) -> None:
    print(f"\n## Corpus scale: policyc score on {runs // 10:,} and {runs:,} generated runs (50 rules, --format jsonl)")
    text, _ = generate(50)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        policy = folder / "bench50.altl"
        policy.write_text(text, encoding="utf-8")
        artifact = folder / "bench50.policy.json"
        subprocess.run([sys.executable, "-m", "policyc", "compile", str(policy), "-o", str(artifact)], check=True,
                       cwd=ROOT, capture_output=True)
        for size in (runs // 10, runs):
            shard_dir = folder / f"runs-{size}"
            shard_dir.mkdir()
            write_corpus(shard_dir, size, shards=8)
            reference = None
            for engine in engines:
                extra = {"local": [], "jobs": ["--jobs", "2"], "ray": ["--engine", "ray"]}[engine]
                wall, cpu_s, peak, stdout = run_cli(["score", str(artifact), str(shard_dir), "--format", "jsonl",
                                                     *extra], folder)
                reference = stdout if reference is None else reference
                same = stdout == reference
                row = {"engine": engine, "runs": size, "wall_s": wall, "cpu_s": cpu_s, "peak_rss_mib": peak,
                       "runs_per_s": size / wall, "same_output_as_one_process": same}
                rows.append(row)
                print(f"{engine:>6} {size:>8,} runs: {wall:7.1f} s wall, {cpu_s:7.1f} s CPU, {size / wall:8,.0f} runs/s, "
                      f"peak RSS {peak:,} MiB, output {'identical' if same else 'DIFFERENT'}")
    by = {(r["engine"], r["runs"]): r for r in rows}
    if ("ray", runs) in by and ("jobs", runs) in by:
        ratio = by[("ray", runs)]["wall_s"] / by[("jobs", runs)]["wall_s"]
        print(f"Ray / --jobs 2 wall time at {runs:,} runs: {ratio:.2f}")
    out["corpus_scale"] = rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="small sizes")
    parser.add_argument("--runs", type=int, default=100_000, help="runs in the largest corpus")
    parser.add_argument("--engines", nargs="*", default=["local", "jobs", "ray"], choices=["local", "jobs", "ray"])
    parser.add_argument("--json", help="write every figure to this file")
    args = parser.parse_args()
    out: dict = {}
    if args.quick:
        full_reports(100, 100, 2_000, out)
        corpus_scale(min(args.runs, 2_000), [e for e in args.engines if e != "ray"], out)
    else:
        full_reports(1_000, 100, 10_000, out)
        corpus_scale(args.runs, args.engines, out)
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=2), encoding="utf-8")


if __name__ == "__main__":
    main()
