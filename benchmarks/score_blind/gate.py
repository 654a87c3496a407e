"""The release agent's corpus proposed to the gate: how many decisions it settles.

    python benchmarks/score_blind/gate.py [--runs 200] [--seed 7]

The policy of this scenario was written from the docs alone, for scoring; no one tuned the
gate to it. Each generated run is replayed as an agent that takes refusals would live it:
every call is proposed (`Run.propose`); an allowed call runs and is recorded with the result
the corpus gives it; a refused one is skipped and the next call of the run is proposed; a
finished run ends. Printed: the decisions and their actions, the share that leaves a question
open (`decision.undecided` not empty), the questions left open most often (by the rule they
are about), and the thread CPU time of a decision and of the whole call.

There is no oracle of "can this run still comply" for this policy (the scenario's oracle
scores complete traces), so this counts what the gate left open, not whether what it
settled is right: the exact oracle comparisons are `benchmarks/blind_gate/`.
"""

from __future__ import annotations

import argparse
import gc
import os
import re
import sys
import time
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(os.path.dirname(HERE)))

import generate  # noqa: E402
from policyc import Monitor, compile_file  # noqa: E402

POLICY = os.path.join(HERE, "policy.altl")


def replay(monitor: Monitor, record: dict, tally: dict) -> None:
    """One run of the corpus, proposed call by call (see the module's docstring)."""
    clock = time.thread_time_ns
    run = monitor.start()
    for call in record["tool_calls"]:
        tool, args = call["tool_name"], call["arguments"]
        t0 = clock()
        decision = run.propose(tool, args)
        t1 = clock()
        whole = t1 - t0
        if decision.executes:
            t2 = clock()
            run.record(tool, args, call.get("tool_result"), error=bool(call.get("error")))
            whole += clock() - t2
        tally["decide"].append(t1 - t0)
        tally["whole"].append(whole)
        tally["actions"][decision.action] += 1
        if decision.undecided:
            tally["undecided"] += 1
            tally["undecided_executed"] += decision.executes
            for line in decision.undecided:
                tally["questions"][_about(line)] += 1
        if run.state.ended_by is not None:
            break


def _about(line: str) -> str:
    """An open question by what it is about: the rule judged per value it names, or the
    joint question of rules that are automata."""
    found = re.match(r"whether (\S+) \(judged per value\)", line)
    if found:
        return f"{found.group(1)} (judged per value, not read by the joint search)"
    reason = re.search(r"(was not decided|not searched)[^(]*\((.*)\)$", line)
    return f"the joint question of the other rules: {reason.group(2)[:110] if reason else line[:110]}"


def pct(values: list[int], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] / 1000 if ordered else 0.0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=200)
    ap.add_argument("--seed", type=int, default=7)
    a = ap.parse_args(argv)
    monitor = Monitor(compile_file(POLICY))
    classes = Counter(r.rule_class for r in monitor.artifact.rules)
    tally: dict = {"decide": [], "whole": [], "actions": Counter(), "undecided": 0, "undecided_executed": 0,
                   "questions": Counter()}
    records = list(generate.generate(a.runs, a.seed))
    gc.collect()
    for record in records:
        replay(monitor, record, tally)
    n = len(tally["decide"])
    print(f"== the release agent's policy at the gate: {len(monitor.artifact.rules)} rules "
          f"({', '.join(f'{k} {c}' for k, c in sorted(classes.items()))}), {a.runs} runs, seed {a.seed}")
    print(f"   decisions {n}: {dict(tally['actions'])}")
    print(f"   undecided {tally['undecided']} ({100 * tally['undecided'] / max(1, n):.1f} % of decisions; "
          f"{tally['undecided_executed']} of them ran)")
    for what, count in tally["questions"].most_common(10):
        print(f"   {count:6d}  {what}")
    print(f"   thread CPU us, p50 / p99: decision {pct(tally['decide'], .5):.1f} / {pct(tally['decide'], .99):.1f}, "
          f"propose+record {pct(tally['whole'], .5):.1f} / {pct(tally['whole'], .99):.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
