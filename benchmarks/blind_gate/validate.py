"""Validate the oracle independently of the gate it measures.

    python benchmarks/blind_gate/validate.py [--runs N] [--seed K] [--limit STATES]

1. The monitors against the hand-made traces (handmade.py): the rules each trace breaks.
2. `policyc score` against the monitors, rule by rule, on the hand-made traces and on complete
   runs of the random agent (written as OpenAI-style chat records, with the request as the
   first user message). Disagreements are printed with the trace, to be settled from the docs.
3. The oracle's refinement search against the plain exhaustive search over all rules at once
   (where that fits in --limit states), and with 1, 2 and 3 fresh values per sort.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from benchmarks.blind_gate import handmade  # noqa: E402
from benchmarks.blind_gate.harness import run_scenario  # noqa: E402
from benchmarks.blind_gate.model import Call  # noqa: E402
from benchmarks.blind_gate.oracle import Budget, Oracle  # noqa: E402
from benchmarks.blind_gate.scenarios import SCENARIOS  # noqa: E402


def final_state(oracle: Oracle, request: str, calls) -> tuple:
    st = oracle.joint.start(request)
    for c in calls:
        st = oracle.joint.step(st, c if isinstance(c, Call) else Call(*c))
    return st


def handmade_cases(sc) -> list:
    if sc.name == "S2" or sc.name.startswith("S3"):
        return [(n, r, calls, set(bad)) for n, r, calls, bad in (handmade.S2 if sc.name == "S2" else handmade.S3)]
    size = int(sc.name.split("-")[1])
    return [(n, r, calls, set(bad[25]) | (set(bad[50]) if size == 50 else set())) for n, r, calls, bad in handmade.S1]


def check_monitors(sc) -> int:
    oracle, wrong = sc.make_oracle(), 0
    for name, request, calls, expected in handmade_cases(sc):
        got = set(oracle.joint.failing(final_state(oracle, request, calls)))
        if got != expected:
            wrong += 1
            print(f"   {sc.name} {name}: monitors fail {sorted(got)}, by hand {sorted(expected)}")
    print(f"   {sc.name}: monitors agree with {len(handmade_cases(sc)) - wrong} of {len(handmade_cases(sc))} hand-made traces")
    return wrong


def chat_record(request: str, calls) -> dict:
    msgs = [{"role": "user", "content": request or "Please work the queue."}]
    for i, c in enumerate(calls):
        c = c if isinstance(c, Call) else Call(*c)
        msgs.append({"role": "assistant", "content": None, "tool_calls": [
            {"id": f"call_{i}", "type": "function", "function": {"name": c.tool, "arguments": json.dumps(c.args)}}]})
        if c.result is not None:
            msgs.append({"role": "tool", "tool_call_id": f"call_{i}", "content": json.dumps(c.result)})
    return {"messages": msgs}


def check_score(sc, cases: list) -> int:
    """cases: (name, request, calls, failing rules by our monitors). Returns the disagreements."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "traces.jsonl"
        path.write_text("".join(json.dumps(chat_record(r, calls)) + "\n" for _, r, calls, _ in cases))
        out = subprocess.run(["policyc", "score", str(sc.policy), str(path), "--format", "jsonl"],
                             capture_output=True, text=True)
    lines = [json.loads(x) for x in out.stdout.splitlines() if x.strip()]
    reports = [x for x in lines if "constraints" in x]
    if len(reports) != len(cases):
        print(f"   {sc.name}: policyc score gave {len(reports)} reports for {len(cases)} traces (exit {out.returncode})")
        print("   " + out.stderr[:2000])
        return len(cases)
    wrong = 0
    for (name, _, calls, ours), rep in zip(cases, reports):
        theirs = {c["name"] for c in rep["constraints"] if not c["passed"]}
        if theirs != set(ours):
            wrong += 1
            print(f"   {sc.name} {name}: policyc fails {sorted(theirs - set(ours))} that the monitors pass, "
                  f"passes {sorted(set(ours) - theirs)} that they fail; calls: "
                  + " ".join((c if isinstance(c, Call) else Call(*c)).tool for c in calls))
    print(f"   {sc.name}: policyc score agrees with the monitors on {len(cases) - wrong} of {len(cases)} traces")
    return wrong


def check_oracle(sc, log: list, limit: int) -> int:
    variants = {f: sc.make_oracle(f) for f in (1, 2, 3)}
    plain = sc.make_oracle()
    wrong, skipped, checked = 0, {True: 0, False: 0}, {True: 0, False: 0}
    for request, prefix, tool, args, answer in log:
        st = final_state(plain, request, prefix)
        for f, o in variants.items():
            if o.allows(st, tool, args) != answer:
                wrong += 1
                print(f"   {sc.name}: fresh={f} answers {not answer} on {tool}{args} after {[c.tool for c in prefix]}")
        try:
            if plain.allows(st, tool, args, live=lambda s: plain.live_bfs(s, limit)) != answer:
                wrong += 1
                print(f"   {sc.name}: the plain search answers {not answer} on {tool}{args} after {[c.tool for c in prefix]}")
            checked[answer] += 1
        except Budget:
            skipped[answer] += 1
    print(f"   {sc.name}: {len(log)} decisions ({sum(not a for *_, a in log)} doomed): the plain search over all "
          f"rules agrees on {checked[True]} allowed and {checked[False]} doomed ones ({skipped[True]} + "
          f"{skipped[False]} beyond {limit} states); fresh 1 = 2 = 3 on all; {wrong} disagreements")
    return wrong


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--limit", type=int, default=20_000)
    ap.add_argument("--scenario", choices=sorted(SCENARIOS), action="append")
    args = ap.parse_args(argv)
    bad = 0
    for key in args.scenario or sorted(SCENARIOS):
        for sc in SCENARIOS[key]:
            print(f"== {sc.name}")
            bad += check_monitors(sc)
            tally = run_scenario(sc, args.runs, args.seed, keep_traces=args.runs, keep_log=True)
            cases = [(n, r, calls, sorted(exp)) for n, r, calls, exp in handmade_cases(sc)]
            cases += [(f"run {i}", t["request"], t["calls"], t["failing"]) for i, t in enumerate(tally.traces)
                      if t["calls"]]
            bad += check_score(sc, cases)
            bad += check_oracle(sc, tally.log, args.limit)
    print("validation:", "all agree" if not bad else f"{bad} disagreements")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
