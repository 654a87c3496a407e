"""The compiler's construction budget on an exponential family: CPU time and memory.

`always (a -> (once b0 and ... once bN))` needs 2^(N+1) states. Each size is compiled in its
own subprocess (`policyc compile`), once within the default budget and once with the budget
lifted (`--max-states` far above 2^(N+1)), under a CPU-time and an address-space limit; the
subprocess's CPU time (user + system) and peak memory (max RSS) are printed side by side,
with their ratio.

Run:
    python benchmarks/budget.py [--sizes 8,10,12,14,16] [--limit 120] [--memory 2048]

A run that hits a limit is reported as such (a lower bound), never waited for.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def policy(n: int) -> str:
    tools = "tool a()\n" + "".join(f"tool b{i}()\n" for i in range(n + 1))
    return tools + "rule r: always (a -> (" + " and ".join(f"once b{i}" for i in range(n + 1)) + "))\n"


def compile_once(path: Path, limit: int, memory: int, extra: list[str]) -> dict:
    """CPU seconds, peak memory (MiB) and exit code of one `policyc compile` subprocess."""
    def limits() -> None:
        resource.setrlimit(resource.RLIMIT_CPU, (limit, limit))
        resource.setrlimit(resource.RLIMIT_AS, (memory << 20, memory << 20))

    child = subprocess.Popen([sys.executable, "-m", "policyc", "compile", str(path), "-o", os.devnull, *extra],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, preexec_fn=limits, cwd=ROOT,
                             env={**os.environ, "PYTHONPATH": str(ROOT)})
    stderr = child.stderr.read() if child.stderr else ""
    _, status, usage = os.wait4(child.pid, 0)  # this child's own CPU time and peak memory
    child.returncode = os.waitstatus_to_exitcode(status)
    cpu = usage.ru_utime + usage.ru_stime
    return {"cpu": cpu, "rss": usage.ru_maxrss / 1024, "code": child.returncode,
            "timeout": child.returncode < 0 or cpu >= limit, "memory": "MemoryError" in stderr}


def cell(r: dict, limit: int, memory: int) -> str:
    if r["timeout"]:
        return f">{limit} s (CPU limit)"
    if r["memory"]:
        return f"{r['cpu']:.1f} s, >{memory} MiB (memory limit)"
    what = "budget error" if r["code"] == 2 else "compiled" if r["code"] == 0 else f"exit {r['code']}"
    return f"{r['cpu']:.2f} s, {r['rss']:.0f} MiB, {what}"


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="8,10,12,14,16")
    parser.add_argument("--limit", type=int, default=120, help="CPU seconds per compile")
    parser.add_argument("--memory", type=int, default=2048, help="MiB of address space per compile")
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    print("# always (a -> (once b0 and ... once bN)): policyc compile, CPU time and peak memory\n")
    print("| N | states needed | default budget | budget lifted | CPU ratio (lifted / default) |")
    print("|---|---|---|---|---|")
    folder = Path(tempfile.mkdtemp())
    for n in sizes:
        path = folder / f"blow{n}.altl"
        path.write_text(policy(n))
        bounded = compile_once(path, args.limit, args.memory, [])
        lifted = compile_once(path, args.limit, args.memory, ["--max-states", str(1 << (n + 3))])
        ratio = lifted["cpu"] / max(bounded["cpu"], 1e-6)
        shown = f">{ratio:.1f}x" if lifted["timeout"] or lifted["memory"] else f"{ratio:.1f}x"
        print(f"| {n} | {1 << (n + 1):,} | {cell(bounded, args.limit, args.memory)} | "
              f"{cell(lifted, args.limit, args.memory)} | {shown} |", flush=True)


if __name__ == "__main__":
    main()
