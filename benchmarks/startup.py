"""Start-up CPU of the command line: `policyc --help`, `policyc check` of one small file, and
what a deployed gate pays to import the runtime, beside the bare interpreter's start-up.

Each command runs in a fresh process; its CPU time (user + system, from the kernel's
accounting of the child) is taken, best of --repeat runs. `check` is measured with the
parser's tables cached (the usual case: the first run of a grammar builds them) and without
(POLICYC_NO_CACHE=1). Ratios are to the bare interpreter (`python -c pass`).

Run:
    python benchmarks/startup.py [--repeat 7]
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
POLICY = ROOT / "examples" / "code_qa.altl"

COMMANDS = {
    "python -c pass (the interpreter)": [sys.executable, "-c", "pass"],
    "policyc --help": [sys.executable, "-m", "policyc", "--help"],
    "policyc check code_qa.altl": [sys.executable, "-m", "policyc", "check", str(POLICY)],
    "policyc check code_qa.altl, no parser cache": [sys.executable, "-m", "policyc", "check", str(POLICY)],
    "import policyc.runtime (a deployed gate)": [sys.executable, "-c", "import policyc.runtime"],
}


def cpu_of(argv: list[str], env: dict) -> float:
    """CPU seconds (user + system) one run of `argv` takes."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(argv, env=env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7, help="runs per command; the best is kept")
    args = parser.parse_args()
    base = {**os.environ, "PYTHONPATH": str(ROOT)}
    base.pop("POLICYC_NO_CACHE", None)
    cpu_of(COMMANDS["policyc check code_qa.altl"], base)  # the parser's tables are cached from here on
    results = {}
    for name, argv in COMMANDS.items():
        env = {**base, "POLICYC_NO_CACHE": "1"} if "no parser cache" in name else base
        results[name] = min(cpu_of(argv, env) for _ in range(args.repeat))
    interpreter = results["python -c pass (the interpreter)"]
    width = max(map(len, results))
    print(f"{'command':<{width}}  CPU (best of {args.repeat})  x interpreter")
    for name, seconds in results.items():
        print(f"{name:<{width}}  {seconds * 1000:8.0f} ms  {seconds / interpreter:10.1f}x")


if __name__ == "__main__":
    main()
