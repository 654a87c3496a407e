"""The runtime gate and offline scoring, side by side with the `agentltl` package (0.2.1).

    python benchmarks/runtime.py                  # the figures of docs/performance.md
    python benchmarks/runtime.py --quick          # smaller runs, a minute or two
    python benchmarks/runtime.py --json out.json  # every figure, for machines
    python benchmarks/runtime.py --no-peers       # policyc alone, even with agentltl installed

The scenario is agentltl's own: 10 tools, runs of 50 to 400 random calls. A policy of N
rules draws from the paper's predicates over those tools (before, after, called, in_order,
within_steps, called_n >= k and <= k, never, precedence `always (a -> once b)` and response
`always (a -> eventually b)`); each rule is written once in AgentLTL
(for policyc) and once with agentltl's constructors, and the benchmark first checks that the
two engines give every rule the same verdict on the runs it times.

1. Gate latency: per call, the time of `propose` + `record` (policyc) and of `check` +
   `record_completed` (agentltl `Enforcer`), every call executed whatever the decision, for
   policies of 10, 25, 50 and 200 rules. policyc's monitor is measured cold (freshly loaded:
   every joint state and transition met for the first time) and warm (new runs on a monitor
   that already served earlier, different runs, as a long-lived deployment does). agentltl
   is timed on one run of the longest length, at every k-th call (the prefix is the same:
   the other calls are recorded without a check).
2. Growth with run length: mean latency per call by position in the run.
3. One run of 400 calls and 25 rules, timed end to end by both engines, and the verdicts
   of the two engines compared rule by rule.
4. Offline scoring: calls per second on a corpus of 10,000 traces, for the runtime's
   automata (verdicts only), policyc's scorer (`score_corpus`, the full appendix B reports),
   the reference evaluator and `agentltl.verify_trace`; and one trace of 10,000 calls.
   Slow engines are timed on a sample of the corpus (said so in the output).
5. A support desk (benchmarks/support_scenario.py): 15 tools, 25 and 50 rules mixing
   precedence, per-order-id rules, responses owed before a terminal call, caps on counts and
   20+ guard atoms on `issue_refund`; per-call p50 and p99 (propose + record, CPU time) of
   policyc's gate warm, against a hand-written table gate for the same rules, and how many
   decisions the gate left undecided or decided unlike the hand-written one.
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
sys.path.insert(0, str(Path(__file__).resolve().parent))

from policyc.artifact.build import build_artifact  # noqa: E402
from policyc.check import check_text  # noqa: E402
from policyc.runtime import Monitor  # noqa: E402
from policyc.scoring import score_corpus  # noqa: E402
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
    attempt = 0
    while len(constraints) < n_rules:
        shape = SHAPES[attempt % len(SHAPES)]  # a shape whose rules ran out is passed over
        attempt += 1
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


def artifact_of(text: str):
    policy, diagnostics = check_text(text, "bench.altl")
    assert policy is not None, diagnostics
    return build_artifact(policy)


def random_run(length: int, rng: random.Random) -> list[tuple[str, dict, int]]:
    return [(rng.choice(TOOLS), {"x": rng.randint(0, 3)}, rng.randint(0, 9)) for _ in range(length)]


# ---------------------------------------------------------------- timing


CLOCK = time.thread_time_ns  # CPU time of this thread: other processes on the machine do not count


def time_policyc_run(monitor: Monitor, calls, clock=CLOCK) -> list[float]:
    """µs of `propose` + `record` per call (every call runs, as in agentltl's loop below)."""
    run = monitor.start(mode="tolerate")
    out = []
    for tool, args, result in calls:
        t0 = clock()
        run.propose(tool, args)
        run.record(tool, args, result)
        out.append((clock() - t0) / 1e3)
    return out


def time_agentltl_run(constraints, calls, every: int = 1) -> dict[int, float]:
    """µs of `check` + `record_completed` at every `every`-th position (the other calls are
    recorded without a check, so the prefix is the same)."""
    enforcer = Enforcer(constraints, default_severity=ConstraintSeverity.TOLERATE)
    out = {}
    clock = CLOCK
    for i, (tool, args, result) in enumerate(calls):
        if i % every:
            enforcer.record_completed(tool, args, result=result)
            continue
        t0 = clock()
        enforcer.check(tool, args)
        enforcer.record_completed(tool, args, result=result)
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


def gate_latency(sizes, lengths, runs_per_length, warmup_runs, agentltl_every, out):
    print("\n## Gate latency per call (propose + record), µs of thread CPU time")
    print("cold: the first runs on a freshly loaded monitor; warm: new runs on a monitor that served "
          f"{warmup_runs} earlier (different) runs")
    print(f"{'rules':>5} {'engine':<18} {'p50':>9} {'p99':>9} {'mean':>9}  mean by position in the run")
    for size in sizes:
        text, constraints = generate(size)
        artifact = artifact_of(text)
        rng = random.Random(100 + size)
        measured = [random_run(length, rng) for length in lengths for _ in range(runs_per_length)]
        cold_monitor = Monitor(artifact)
        cold = [time_policyc_run(cold_monitor, calls) for calls in measured]
        warm_monitor = Monitor(artifact)
        for _ in range(warmup_runs):
            time_policyc_run(warm_monitor, random_run(max(lengths), rng))
        warm = [time_policyc_run(warm_monitor, calls) for calls in measured]
        fresh = [random_run(len(calls), rng) for calls in measured]  # runs this monitor has not seen
        wall = [x for calls in fresh for x in time_policyc_run(warm_monitor, calls, time.perf_counter_ns)]
        rows = {"policyc cold": cold, "policyc warm": warm}
        curves = {label: bucket(_by_position(per_run)) for label, per_run in rows.items()}
        flat = {label: [x for run in per_run for x in run] for label, per_run in rows.items()}
        if agentltl is not None and agentltl_every:
            longest = max(measured, key=len)
            theirs = time_agentltl_run(constraints, longest, agentltl_every)
            flat["agentltl Enforcer"] = list(theirs.values())
            curves["agentltl Enforcer"] = bucket(theirs)
        entry = out.setdefault("gate", {}).setdefault(str(size), {})
        for label, values in flat.items():
            entry[label] = {"p50": pct(values, 0.5), "p99": pct(values, 0.99), "mean": statistics.mean(values),
                            "calls": len(values), "by_position": curves[label]}
            shape = "  ".join(f"{k}:{v:,.0f}" for k, v in curves[label].items())
            print(f"{size:>5} {label:<18} {entry[label]['p50']:>9,.1f} {entry[label]['p99']:>9,.1f} "
                  f"{entry[label]['mean']:>9,.1f}  {shape}")
        entry["policyc warm, wall clock"] = {"p50": pct(wall, 0.5), "p99": pct(wall, 0.99)}
        print(f"{'':>5} {'(wall clock, warm)':<18} {pct(wall, 0.5):>9,.1f} {pct(wall, 0.99):>9,.1f}")
        if agentltl is not None and agentltl_every > 1:
            print(f"{'':>5} (agentltl timed at every {agentltl_every}th call of one {max(lengths)}-call run)")


def _by_position(per_run: list[list[float]]) -> dict[int, float]:
    sums: dict[int, list[float]] = {}
    for run in per_run:
        for i, v in enumerate(run):
            sums.setdefault(i, []).append(v)
    return {i: statistics.mean(v) for i, v in sums.items()}


def bucket(per_position: dict[int, float]) -> dict[str, float]:
    edges = [(0, 50), (50, 100), (100, 200), (200, 400)]
    out = {}
    for lo, hi in edges:
        vals = [v for i, v in per_position.items() if lo <= i < hi]
        if vals:
            out[f"{lo + 1}-{hi}"] = statistics.mean(vals)
    return out


def per_run_ratio(steps, size, repeats, out):
    print(f"\n## One run of {steps} calls, {size} rules: total gate time (best of {repeats} for policyc)")
    text, constraints = generate(size)
    artifact = artifact_of(text)
    rng = random.Random(5)
    calls = random_run(steps, rng)
    cold = min(sum(time_policyc_run(Monitor(artifact), calls)) for _ in range(repeats))  # CPU time, like agentltl's
    warm_monitor = Monitor(artifact)
    for _ in range(20):
        time_policyc_run(warm_monitor, random_run(steps, rng))
    warm = min(sum(time_policyc_run(warm_monitor, calls)) for _ in range(repeats))
    row = {"policyc cold ms": cold / 1e3, "policyc warm ms": warm / 1e3}
    print(f"policyc: {cold / 1e3:,.2f} ms on a fresh monitor, {warm / 1e3:,.2f} ms on a warm one")
    if agentltl is not None:
        theirs = sum(time_agentltl_run(constraints, calls).values())
        row.update({"agentltl ms": theirs / 1e3, "ratio cold": theirs / cold, "ratio warm": theirs / warm})
        print(f"agentltl Enforcer: {theirs / 1e3:,.1f} ms  ->  policyc is {theirs / cold:,.0f}x faster on a "
              f"fresh monitor, {theirs / warm:,.0f}x on a warm one")
        row["verdict differences"] = verdicts_agree(text, constraints, [calls])
        print(f"rule verdicts that differ between the engines on this run: {row['verdict differences']}")
    out["per_run"] = row


def scoring_throughput(n_traces, size, sample, out):
    print(f"\n## Offline scoring: {n_traces:,} traces of 5 to 45 calls, {size} rules")
    text, constraints = generate(size)
    policy, _ = check_text(text, "bench.altl")
    monitor = Monitor(artifact_of(text))
    rng = random.Random(3)
    corpus = [random_run(rng.randint(5, 45), rng) for _ in range(n_traces)]
    traces = [Trace.of(*c) for c in corpus]
    rows = {}

    def rate(label, fn, items):
        calls = sum(len(t) for t in items)
        t0 = time.thread_time()
        fn(items)
        seconds = time.thread_time() - t0
        rows[label] = {"calls_per_s": calls / seconds, "traces": len(items), "seconds": seconds}
        scope = "" if len(items) == n_traces else f" (a sample of {len(items):,} traces)"
        print(f"{label:<36} {calls / seconds:>12,.0f} calls/s{scope}")

    rate("policyc automata (verdicts)", lambda ts: [monitor.verdicts(t) for t in ts], traces)
    rate("policyc score_corpus (full reports)", lambda ts: score_corpus(monitor.compiled, ts), traces[:sample * 4])
    rate("reference evaluator (verdicts)", lambda ts: [[evaluate(r.formula, t) for r in policy.rules] for t in ts],
         traces[:sample])
    if agentltl is not None:
        def theirs(ts):
            for t in ts:
                verify_trace({"tool_calls": [{"tool_name": c.name, "arguments": c.args} for c in t.calls]},
                             constraints)
        rate("agentltl verify_trace", theirs, traces)
    out["scoring_corpus"] = rows

    print("\n## One trace of 10,000 calls")
    long_calls = random_run(10_000, rng)
    long_trace = Trace.of(*long_calls)
    single = {}

    def once(label, fn):
        t0 = time.thread_time()
        fn()
        single[label] = time.thread_time() - t0
        print(f"{label:<36} {single[label]:>10.3f} s")

    once("policyc automata (verdicts)", lambda: monitor.verdicts(long_trace))
    once("policyc score_corpus (full report)", lambda: score_corpus(monitor.compiled, [long_trace]))
    if agentltl is not None:
        for n in (1_000, 2_000, 4_000, 10_000):
            metrics = {"tool_calls": [{"tool_name": c[0], "arguments": c[1]} for c in long_calls[:n]]}
            once(f"agentltl verify_trace, {n:,} calls", lambda m=metrics: verify_trace(m, constraints))
    out["scoring_single"] = single


def support_desk(runs: int, out: dict) -> None:
    from support_scenario import time_runs

    print("\n## A support desk: 15 tools, argument caps (20+ atoms on one tool), per-order rules, terminal tools")
    print("(run: Run.propose + Run.record; gate: the Gate's judge + advance alone; hand: the hand-written gate)")
    print(f"{'rules':>5} {'atoms':>5} {'run p50':>8} {'p99':>6} {'gate p50':>9} {'p99':>6} {'hand p50':>9} {'p99':>5} "
          f"{'run/hand':>8} {'gate/hand':>9} {'undecided':>11} {'differ':>6}")
    rows = []
    for n in (25, 50):
        row = time_runs(n, runs=runs, length=60, warmup=runs)
        rows.append(row)
        print(f"{n:>5} {row['atoms_on_issue_refund']:>5} {row['policyc_p50_us']:>6.1f}us {row['policyc_p99_us']:>4.0f}us "
              f"{row['gate_p50_us']:>7.1f}us {row['gate_p99_us']:>4.0f}us {row['hand_p50_us']:>7.1f}us "
              f"{row['hand_p99_us']:>3.0f}us {row['policyc_p50_us'] / row['hand_p50_us']:>7.1f}x "
              f"{row['gate_p50_us'] / row['hand_p50_us']:>8.1f}x "
              f"{row['decisions_undecided']:>5}/{row['calls']:<5} {row['rule_decisions_differing']:>6}")
    out["support_desk"] = rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="smaller runs")
    parser.add_argument("--json", help="write every figure to this file")
    parser.add_argument("--no-peers", action="store_true", help="policyc's figures only, even if agentltl is installed")
    args = parser.parse_args()
    if args.no_peers:
        global agentltl
        agentltl = None
    out: dict = {"agentltl": getattr(agentltl, "__version__", None), "python": sys.version.split()[0]}
    if agentltl is None:
        print("agentltl is not installed: policyc's figures only")
    if args.quick:
        gate_latency([10, 50], [50, 100, 200, 400], 1, 5, 25, out)
        per_run_ratio(200, 25, 2, out)
        scoring_throughput(1_000, 25, 100, out)
        support_desk(5, out)
    else:
        gate_latency([10, 25, 50, 200], [50, 100, 200, 400], 3, 30, 10, out)
        per_run_ratio(400, 25, 3, out)
        scoring_throughput(10_000, 25, 250, out)
        support_desk(40, out)
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=2), encoding="utf-8")


if __name__ == "__main__":
    main()
