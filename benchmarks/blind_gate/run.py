"""Blind gate scenarios: policyc's online gate against an exact oracle and a hand-written gate.

    python benchmarks/blind_gate/run.py [--scenario S1|S2] [--runs N] [--seed K] [--quick] [--json FILE]

For each scenario (and each size of S1) it prints the rules' classes (the share gateable, the
rules not compiled), the decisions, the wrong allows (policyc let a
call run after which no result and no continuation satisfies the policy), the wrong refusals
(policyc refused a call after which some result and continuation does), the undecided decisions
(`decision.undecided` not empty), and the latency of policyc's decision (`propose`) and of the
whole call (`propose` + `record`) against the hand-written table gate, p50 and p99 of thread CPU
time (`time.thread_time_ns`), measured in this one process on the same calls.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from benchmarks.blind_gate.harness import Tally, run_scenario  # noqa: E402
from policyc import Monitor, compile_file  # noqa: E402
from benchmarks.blind_gate.scenarios import SCENARIOS  # noqa: E402


def pct(values: list, q: float) -> float:
    if not values:
        return 0.0
    s = sorted(values)
    return s[min(len(s) - 1, int(q * len(s)))] / 1000.0


def summary(name: str, rules: int, t: Tally, seconds: float) -> dict:
    lat = {k: {"p50": pct(getattr(t, k), 0.5), "p99": pct(getattr(t, k), 0.99)}
           for k in ("gate_ns", "call_ns", "hand_ns", "hand_call_ns", "oracle_ns", "oracle_call_ns")}
    ratio = {f"{a}/{b}": {q: lat[a][q] / lat[b][q] if lat[b][q] else None for q in ("p50", "p99")}
             for a, b in (("gate_ns", "hand_ns"), ("call_ns", "hand_call_ns"),
                          ("gate_ns", "oracle_ns"), ("call_ns", "oracle_call_ns"))}
    return {
        "scenario": name, "rules": rules, "runs": t.runs, "decisions": t.decisions, "allowed": t.allowed,
        "refused": t.decisions - t.allowed, "oracle_allows": t.oracle_allows,
        "wrong_allows": t.wrong_allows, "wrong_refusals": t.wrong_refusals,
        "undecided": t.undecided, "undecided_share": t.undecided / t.decisions if t.decisions else 0.0,
        "undecided_allowed": t.undecided_allowed, "undecided_allowed_doomed": t.undecided_allowed_doomed,
        "silent_wrong_allows": t.silent_wrong_allows,
        "table_gate_wrong_allows": t.hand_wrong_allows, "table_gate_wrong_refusals": t.hand_wrong_refusals,
        "runs_ended": t.ended, "latency_us": lat, "ratios": ratio,
        "oracle_cpu_s": round(t.oracle_s, 2), "cpu_s": round(seconds, 2), "examples": t.examples,
        "slowest_decisions": [{"us": ns / 1000, **ex} for ns, ex in t.slowest],
    }


def show(s: dict) -> None:
    lat, r = s["latency_us"], s["ratios"]
    print(f"== {s['scenario']}: {s['rules']} rules, {s['runs']} runs, {s['decisions']} decisions "
          f"({s['allowed']} allowed, {s['refused']} refused; the oracle allows {s['oracle_allows']})")
    classes = s["rule_classes"]
    gateable = classes.get("gateable", 0)
    print(f"   rule classes     {', '.join(f'{n} {k}' for k, n in classes.items())} "
          f"({100 * gateable / max(1, sum(classes.values())):.0f} % gateable); "
          f"not compiled: {', '.join(s['not_compiled']) or 'none'}")
    print(f"   wrong allows     {s['wrong_allows']:5d}   (undecided {s['undecided_allowed_doomed']}, "
          f"silent {s['silent_wrong_allows']})")
    print(f"   wrong refusals   {s['wrong_refusals']:5d}")
    print(f"   undecided        {s['undecided']:5d}   ({100 * s['undecided_share']:.1f} % of decisions; "
          f"undecided and allowed {s['undecided_allowed']}, of which doomed {s['undecided_allowed_doomed']})")
    print(f"   table gate       wrong allows {s['table_gate_wrong_allows']}, "
          f"wrong refusals {s['table_gate_wrong_refusals']} (it reasons about no two rules together)")
    print("   latency, thread CPU us   p50      p99")
    for label, key in (("policyc propose", "gate_ns"), ("policyc propose+record", "call_ns"),
                       ("table gate propose", "hand_ns"), ("table gate propose+record", "hand_call_ns"),
                       ("exact checker allows", "oracle_ns"), ("exact checker +live", "oracle_call_ns")):
        print(f"     {label:26s} {lat[key]['p50']:8.1f} {lat[key]['p99']:8.1f}")
    for label, key in (("decision / table", "gate_ns/hand_ns"), ("whole call / table", "call_ns/hand_call_ns"),
                       ("decision / exact checker", "gate_ns/oracle_ns"),
                       ("whole call / exact checker", "call_ns/oracle_call_ns")):
        p50, p99 = r[key]["p50"], r[key]["p99"]
        print(f"     {label:26s} {p50 or 0:7.2f}x {p99 or 0:7.2f}x")
    print(f"   runs ended: {s['runs_ended']}; oracle {s['oracle_cpu_s']} s CPU, all {s['cpu_s']} s")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--scenario", choices=sorted(SCENARIOS), action="append")
    ap.add_argument("--runs", type=int, default=100)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--quick", action="store_true", help="a few runs per scenario (well under a minute)")
    ap.add_argument("--json", metavar="FILE", help="write the figures as JSON ('-': standard output)")
    args = ap.parse_args(argv)
    runs = 12 if args.quick else args.runs
    out = []
    for key in args.scenario or sorted(SCENARIOS):
        for sc in SCENARIOS[key]:
            t0 = time.process_time()
            monitor = Monitor(compile_file(str(sc.policy)))
            tally = run_scenario(sc, runs, args.seed, monitor=monitor)
            s = summary(sc.name, len(sc.rules().rules), tally, time.process_time() - t0)
            s["rule_classes"] = dict(sorted(Counter(monitor.rule_classes.values()).items()))
            s["not_compiled"] = [r.name for r in monitor.artifact.rules if r.automaton is None]
            out.append(s)
            if args.json != "-":
                show(s)
    if args.json:
        text = json.dumps({"seed": args.seed, "runs": runs, "clock": "time.thread_time_ns", "scenarios": out},
                          indent=2)
        if args.json == "-":
            print(text)
        else:
            Path(args.json).write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
