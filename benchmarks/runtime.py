"""The runtime gate and offline scoring, side by side with the `agentltl` package (0.2.1).

    python benchmarks/runtime.py                  # the figures of docs/performance.md
    python benchmarks/runtime.py --quick          # smaller runs, a minute or two
    python benchmarks/runtime.py --json out.json  # every figure, for machines

The scenario is agentltl's own: 10 tools, runs of 50 to 400 random calls. A policy of N
rules draws from the paper's predicates over those tools (before, after, called, in_order,
within_steps, called_n >= k and <= k, never, precedence `always (a -> once b)` and response
`always (a -> eventually b)`); each rule is written once in AgentLTL
(for policyc) and once with agentltl's constructors, and the benchmark first checks that the
two engines give every rule the same verdict on the runs it times.

1. Gate latency: per call, the time of `propose` + `record` (policyc) and of `check` +
   `record_completed` (agentltl `Enforcer`), every call executed whatever the decision, for
   policies of 10, 25, 50 and 200 rules. policyc's monitor is measured cold (a fresh
   monitor: every joint state and transition met for the first time) and warm (the same
   monitor after earlier runs, as in a long-lived deployment).
2. Growth with run length: mean latency per call by position in the run.
3. Offline scoring: calls per second on a corpus of 10,000 traces, for policyc's scorer
   (`policyc.scoring.score_trace`, the full appendix B report), the runtime's automata
   (verdicts only), the reference evaluator, and `agentltl.verify_trace`; and one trace of
   10,000 calls. Slow engines are timed on a sample and their rate extrapolated (said so).
"""

from __future__ import annotations

import argparse
import json
import logging
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from policyc.artifact.build import build_artifact  # noqa: E402
from policyc.check import check_text  # noqa: E402
from policyc.runtime import Monitor  # noqa: E402
from policyc.scoring import score_trace  # noqa: E402
from policyc.semantics import evaluate  # noqa: E402
from policyc.trace import Trace  # noqa: E402

try:
    import agentltl
    from agentltl import (After, Before, Called, CalledInOrder, CalledNTimes, Constraint, ConstraintSeverity,
                          Enforcer, Eventually, Globally, Implies, Not, Now, Once, WithinSteps, verify_trace)

    logging.getLogger("agentltl").setLevel(logging.CRITICAL)
except ImportError:  # pragma: no cover - the peer is optional
    agentltl = None

TOOLS = [f"tool_{i}" for i in range(10)]
SHAPES = ("before", "response", "called", "at_least", "precedence", "after", "at_most", "in_order", "never",
          "within")


# ---------------------------------------------------------------- the same rules, twice


def rule_pair(shape: str, a: str, b: str, c: str, k: int):
    """(AgentLTL text, agentltl formula) of one rule."""
    if shape == "before":
        return f"before({a}, {b})", agentltl and Before(a, b)
    if shape == "after":
        return f"after({a}, {b})", agentltl and After(a, b)
    if shape == "called":
        return f"called({a})", agentltl and Called(a)
    if shape == "at_least":
        return f"called_n({a}) >= {k}", agentltl and CalledNTimes(a, k, ">=")
    if shape == "at_most":
        return f"called_n({a}) <= {k}", agentltl and CalledNTimes(a, k, "<=")
    if shape == "never":
        return f"never({a})", agentltl and Globally(Not(Now(a)))
    if shape == "response":
        return f"always ({a} -> eventually {b})", agentltl and Globally(Implies(Now(a), Eventually(Now(b))))
    if shape == "in_order":
        return f"in_order([{a}, {b}, {c}])", agentltl and CalledInOrder([a, b, c])
    if shape == "within":
        return f"within_steps({a}, {b}, {k % 8 + 1})", agentltl and WithinSteps(a, b, k % 8 + 1)
    return f"always ({a} -> once {b})", agentltl and Globally(Implies(Now(a), Once(Now(b))))


def generate(n_rules: int, seed: int = 1):
    """A policy of n rules: its AgentLTL text and the agentltl constraints."""
    rng = random.Random(seed)
    lines = [f"policy bench_{n_rules}", ""] + [f"tool {t}(x: int) -> int" for t in TOOLS] + [""]
    constraints, seen = [], set()
    while len(constraints) < n_rules:
        shape = SHAPES[len(constraints) % len(SHAPES)]
        a, b, c = rng.sample(TOOLS, 3)
        k = rng.randint(2, 40)
        text, formula = rule_pair(shape, a, b, c, k)
        if text in seen:
            continue
        seen.add(text)
        name = f"r{len(constraints)}"
        lines.append(f"rule {name} severity block: {text}")
        constraints.append(Constraint(name, formula) if agentltl else None)
    return "\n".join(lines) + "\n", constraints


def monitor_of(text: str) -> Monitor:
    policy, diagnostics = check_text(text, "bench.altl")
    assert policy is not None, diagnostics
    return Monitor(build_artifact(policy))


def random_run(length: int, rng: random.Random) -> list[tuple[str, dict, int]]:
    return [(rng.choice(TOOLS), {"x": rng.randint(0, 3)}, rng.randint(0, 9)) for _ in range(length)]


# ---------------------------------------------------------------- timing


def time_policyc_run(monitor: Monitor, calls) -> list[float]:
    run = monitor.start(mode="tolerate")  # every call runs, as in agentltl's loop below
    out = []
    clock = time.perf_counter_ns
    for tool, args, result in calls:
        t0 = clock()
        run.propose(tool, args)
        run.record(tool, args, result)
        out.append((clock() - t0) / 1e3)
    return out


def time_agentltl_run(constraints, calls, at: set[int] | None = None) -> dict[int, float]:
    """µs per call at each position (only at positions in `at`, the others untimed)."""
    enforcer = Enforcer(constraints, default_severity=ConstraintSeverity.TOLERATE)
    out = {}
    clock = time.perf_counter_ns
    for i, (tool, args, result) in enumerate(calls):
        t0 = clock()
        enforcer.check(tool, args)
        enforcer.record_completed(tool, args, result=result)
        if at is None or i in at:
            out[i] = (clock() - t0) / 1e3
    return out


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def verdicts_agree(text: str, constraints, runs) -> int:
    """How many (rule, run) verdicts differ between the two engines (expected: 0)."""
    policy, _ = check_text(text, "bench.altl")
    differ = 0
    for calls in runs:
        trace = Trace.of(*calls)
        ours = {r.name: evaluate(r.formula, trace) for r in policy.rules}
        theirs = verify_trace({"tool_calls": [{"tool_name": t, "arguments": a} for t, a, _ in calls]}, constraints)
        for c in theirs["constraints"]:
            differ += ours[c["name"]] != c["passed"]
    return differ


# ---------------------------------------------------------------- the sections


def gate_latency(sizes, lengths, runs_per_length, agentltl_runs, out):
    print("\n## Gate latency per call (propose + record), µs")
    print(f"{'rules':>5} {'engine':<18} {'p50':>9} {'p99':>9} {'mean':>9}  per-call mean by position")
    rng = random.Random(11)
    for size in sizes:
        text, constraints = generate(size)
        runs = [random_run(length, rng) for length in lengths for _ in range(runs_per_length)]
        cold_monitor = monitor_of(text)
        cold = [x for calls in runs for x in time_policyc_run(cold_monitor, calls)]
        warm = [x for calls in runs for x in time_policyc_run(cold_monitor, calls)]
        rows = {"policyc cold": cold, "policyc warm": warm}
        curve = {}
        for label, calls in (("policyc warm", runs[-1]),):
            per = time_policyc_run(cold_monitor, calls)
            curve[label] = bucket(dict(enumerate(per)))
        if agentltl is not None and agentltl_runs:
            long_runs = [r for r in runs if len(r) == max(lengths)][:agentltl_runs]
            theirs = {}
            for calls in long_runs:
                theirs_run = time_agentltl_run(constraints, calls)
                for i, v in theirs_run.items():
                    theirs.setdefault(i, []).append(v)
            flat = [v for vs in theirs.values() for v in vs]
            rows["agentltl Enforcer"] = flat
            curve["agentltl Enforcer"] = bucket({i: statistics.mean(v) for i, v in theirs.items()})
        entry = out.setdefault("gate", {}).setdefault(str(size), {})
        for label, values in rows.items():
            entry[label] = {"p50": pct(values, 0.5), "p99": pct(values, 0.99), "mean": statistics.mean(values),
                            "calls": len(values), "by_position": curve.get(label)}
            shape = "  ".join(f"{k}:{v:,.1f}" for k, v in (curve.get(label) or {}).items())
            print(f"{size:>5} {label:<18} {entry[label]['p50']:>9,.1f} {entry[label]['p99']:>9,.1f} "
                  f"{entry[label]['mean']:>9,.1f}  {shape}")


def bucket(per_position: dict[int, float]) -> dict[str, float]:
    edges = [(0, 50), (50, 100), (100, 200), (200, 400)]
    out = {}
    for lo, hi in edges:
        vals = [v for i, v in per_position.items() if lo <= i < hi]
        if vals:
            out[f"{lo + 1}-{hi}"] = statistics.mean(vals)
    return out


def per_run_ratio(steps, size, out):
    print(f"\n## One run of {steps} calls, {size} rules: total gate time")
    text, constraints = generate(size)
    rng = random.Random(5)
    calls = random_run(steps, rng)
    monitor = monitor_of(text)
    cold = sum(time_policyc_run(monitor, calls))
    warm = sum(time_policyc_run(monitor, calls))
    row = {"policyc cold ms": cold / 1e3, "policyc warm ms": warm / 1e3}
    print(f"policyc: {cold / 1e3:,.2f} ms cold, {warm / 1e3:,.2f} ms warm")
    if agentltl is not None:
        theirs = sum(time_agentltl_run(constraints, calls).values())
        row.update({"agentltl ms": theirs / 1e3, "ratio cold": theirs / cold, "ratio warm": theirs / warm})
        print(f"agentltl: {theirs / 1e3:,.1f} ms  ->  policyc is {theirs / cold:,.0f}x faster cold, "
              f"{theirs / warm:,.0f}x warm")
        row["verdict differences"] = verdicts_agree(text, constraints, [calls])
        print(f"verdicts that differ between the engines on this run: {row['verdict differences']}")
    out["per_run"] = row


def scoring_throughput(n_traces, size, sample, out):
    print(f"\n## Offline scoring: {n_traces:,} traces, {size} rules")
    text, constraints = generate(size)
    policy, _ = check_text(text, "bench.altl")
    monitor = monitor_of(text)
    rng = random.Random(3)
    corpus = [random_run(rng.randint(5, 45), rng) for _ in range(n_traces)]
    traces = [Trace.of(*c) for c in corpus]
    total_calls = sum(len(c) for c in corpus)
    rows = {}

    def rate(label, fn, items, calls_in):
        t0 = time.perf_counter()
        for item in items:
            fn(item)
        seconds = time.perf_counter() - t0
        rows[label] = {"calls_per_s": calls_in / seconds, "traces": len(items), "seconds": seconds}
        scope = "" if len(items) == n_traces else f" (sample of {len(items):,} traces)"
        print(f"{label:<34} {calls_in / seconds:>12,.0f} calls/s{scope}")

    rate("policyc automata (verdicts)", monitor.verdicts, traces, total_calls)
    rate("policyc score_trace (full report)", lambda t: score_trace(policy, t), traces, total_calls)
    sub = traces[:sample]
    rate("reference evaluator", lambda t: [evaluate(r.formula, t) for r in policy.rules], sub,
         sum(len(t) for t in sub))
    if agentltl is not None:
        records = [{"tool_calls": [{"tool_name": c[0], "arguments": c[1]} for c in calls]} for calls in corpus[:sample]]
        rate("agentltl verify_trace", lambda m: verify_trace(m, constraints), records, sum(len(c) for c in corpus[:sample]))
    out["scoring_corpus"] = rows

    print("\n## One trace of 10,000 calls")
    long_calls = random_run(10_000, rng)
    long_trace = Trace.of(*long_calls)
    single = {}
    for label, fn in (("policyc automata (verdicts)", lambda: monitor.verdicts(long_trace)),
                      ("policyc score_trace (full report)", lambda: score_trace(policy, long_trace))):
        t0 = time.perf_counter()
        fn()
        single[label] = time.perf_counter() - t0
        print(f"{label:<34} {single[label]:>10.3f} s")
    if agentltl is not None:
        for n in (1_000, 2_000, 4_000):
            metrics = {"tool_calls": [{"tool_name": c[0], "arguments": c[1]} for c in long_calls[:n]]}
            t0 = time.perf_counter()
            verify_trace(metrics, constraints)
            single[f"agentltl verify_trace, {n:,} calls"] = time.perf_counter() - t0
            print(f"{'agentltl verify_trace, ' + format(n, ',') + ' calls':<34} "
                  f"{single[f'agentltl verify_trace, {n:,} calls']:>10.3f} s")
    out["scoring_single"] = single


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="smaller runs")
    parser.add_argument("--json", help="write every figure to this file")
    args = parser.parse_args()
    out: dict = {"agentltl": getattr(agentltl, "__version__", None), "python": sys.version.split()[0]}
    if agentltl is None:
        print("agentltl is not installed: policyc's figures only")
    if args.quick:
        gate_latency([10, 50], [50, 100, 200, 400], 1, 1, out)
        per_run_ratio(200, 25, out)
        scoring_throughput(1_000, 25, 100, out)
    else:
        gate_latency([10, 25, 50, 200], [50, 100, 200, 400], 3, 1, out)
        per_run_ratio(400, 25, out)
        scoring_throughput(10_000, 25, 500, out)
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=2), encoding="utf-8")


if __name__ == "__main__":
    main()
