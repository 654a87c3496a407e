"""The hot path of one `propose`: how many function calls, distinct functions and modules one
proposed call goes through, counted by cProfile (counts, not times: they do not depend on the
machine's load).

Per bundled example, in a fresh process that loads the compiled artifact (`Monitor.load`, as a
deployed gate does) and has proposed nothing yet:

- cold, blocked: the first proposal of the first run, a call the policy refuses (every cache
  of the monitor is empty, every joint state and transition met for the first time);
- warm, allowed: the same proposal as the first call of a second run, after a first run
  proposed and recorded it (the monitor's memo tables hold it, as in a long-lived gate).

`calls` counts every call the profiler sees (Python functions and built-ins), `functions`
the distinct ones, `modules` the distinct source files of the Python functions among them
(built-ins have none). The child runs with PYTHONHASHSEED=0: the order of a set of strings
can change which way a search goes first, and so the count, by a few calls from one run to
the next. docs/architecture.md quotes these figures.

Run:
    python benchmarks/hot_path.py                  # code_qa and support_desk
    python benchmarks/hot_path.py --example code_qa
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parent.parent

#: example -> (a first call the policy refuses, a first call it allows), as (tool, args, result)
CALLS: dict[str, tuple[tuple[str, dict[str, Any]], tuple[str, dict[str, Any], Any]]] = {
    "code_qa": (("final_answer", {"answer": "x"}), ("search", {"query": "foo"}, ["src/api.py"])),
    "support_desk": (("issue_refund", {"order_id": "A1", "amount": 10.0}),
                     ("get_customer", {"email": "x@y.org"}, {"customer_id": "c1", "email": "x@y.org"})),
}


def counted(action: Callable[[], Any]) -> tuple[Any, dict[str, int]]:
    """What `action` returns, and the calls, distinct functions and modules it went through."""
    profile = cProfile.Profile()
    profile.enable()
    out = action()
    profile.disable()
    stats = pstats.Stats(profile).stats  # type: ignore[attr-defined]
    # the profiler's own `disable` is one entry; leave it out
    entries = {k: v for k, v in stats.items() if "disable" not in k[2]}
    return out, {"calls": sum(v[1] for v in entries.values()), "functions": len(entries),
                 "modules": len({k[0] for k in entries if k[0] != "~"})}


def child(artifact: str, example: str) -> None:
    """In a fresh process: load the artifact, count the two proposals, print them as JSON."""
    from policyc.runtime import Monitor

    (blocked_tool, blocked_args), (tool, args, result) = CALLS[example]
    monitor = Monitor.load(artifact)
    run = monitor.start()
    cold, cold_counts = counted(lambda: run.propose(blocked_tool, blocked_args))
    first = monitor.start()
    first.propose(tool, args)
    first.record(tool, args, result)
    second = monitor.start()
    warm, warm_counts = counted(lambda: second.propose(tool, args))
    print(json.dumps({"cold blocked": [cold.action, cold_counts], "warm allowed": [warm.action, warm_counts]}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--example", action="append", choices=sorted(CALLS), help="an example (repeatable)")
    parser.add_argument("--child", nargs=2, metavar=("ARTIFACT", "EXAMPLE"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(*args.child)
        return
    from policyc.artifact.build import compile_file
    from policyc.artifact.io import write_artifact

    print(f"{'example':<14} {'proposal':<14} {'action':<7} {'calls':>6} {'functions':>10} {'modules':>8}")
    with tempfile.TemporaryDirectory() as tmp:
        for example in args.example or sorted(CALLS):
            artifact = Path(tmp) / f"{example}.json"
            write_artifact(compile_file(ROOT / "examples" / f"{example}.altl"), artifact)
            done = subprocess.run([sys.executable, __file__, "--child", str(artifact), example], cwd=ROOT,
                                  env={**os.environ, "PYTHONHASHSEED": "0"}, capture_output=True, text=True,
                                  check=True)
            for name, (action, counts) in json.loads(done.stdout).items():
                print(f"{example:<14} {name:<14} {action:<7} {counts['calls']:>6} {counts['functions']:>10} "
                      f"{counts['modules']:>8}")


if __name__ == "__main__":
    main()
