"""What loading a monitor costs, and what reading the artifact once saves.

Per artifact (every bundled example, and the 50-rule support policy of benchmarks/blind_gate),
CPU time (`time.process_time`), best of --repeat loads:

- `read+verify`: `read_verified(path)`: the file read, its hash checked, the schema
  validated and every table decoded and checked, once, into the compiled policy;
- `monitor`: `Monitor(verified)`: the monitor made of that compiled policy, used as is (the
  gate, the index plan, the conformance checker);
- `load`: `Monitor.load(path)`, the two together;
- `decode twice`: `Monitor(read_artifact(path))`, the artifact model alone handed to the
  monitor, which then decodes and checks the tables again: how every load went before
  reading returned the compiled policy (the path still exists for an artifact held in memory);
- `decodes`: how many times `Monitor.load` decodes the artifact's formula table (1).

Run:
    python benchmarks/load.py [--repeat 20]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parent.parent
POLICIES = [*sorted((ROOT / "examples").glob("*.altl")), ROOT / "benchmarks" / "blind_gate" / "s1_support_50.altl"]


def best(action: Callable[[], Any], repeat: int) -> float:
    """The least CPU time of `repeat` runs of `action`, in milliseconds."""
    out = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        action()
        out = min(out, time.process_time() - start)
    return out * 1000


def formula_decodes(path: Path) -> int:
    """How many times `Monitor.load(path)` decodes the artifact's formula table."""
    import policyc.artifact.policy as artifact_policy
    from policyc.runtime import Monitor

    original = artifact_policy.load_nodes
    count = 0

    def counting(data: dict[str, Any]) -> Any:
        nonlocal count
        count += 1
        return original(data)

    artifact_policy.load_nodes = counting  # type: ignore[assignment]
    try:
        Monitor.load(path)
    finally:
        artifact_policy.load_nodes = original  # type: ignore[assignment]
    return count


def measure(path: Path, repeat: int) -> dict[str, float]:
    """The CPU (ms) of each way of loading the artifact at `path`."""
    from policyc.artifact.io import read_artifact, read_verified
    from policyc.runtime import Monitor

    verified = read_verified(path)
    return {"read+verify": best(lambda: read_verified(path), repeat),
            "monitor": best(lambda: Monitor(verified), repeat),
            "load": best(lambda: Monitor.load(path), repeat),
            "decode twice": best(lambda: Monitor(read_artifact(path)), repeat)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=20, help="loads per measure; the least CPU time is kept")
    args = parser.parse_args()
    from policyc.artifact.build import compile_file
    from policyc.artifact.io import write_artifact

    print(f"CPU per load, ms (best of {args.repeat}); saved: load against decode twice")
    print(f"{'artifact':<18} {'bytes':>7} {'read+verify':>12} {'monitor':>8} {'load':>7} {'decode twice':>13} "
          f"{'saved':>6} {'decodes':>8}")
    with tempfile.TemporaryDirectory() as tmp:
        for source in POLICIES:
            path = Path(tmp) / f"{source.stem}.json"
            write_artifact(compile_file(source), path)
            cpu = measure(path, args.repeat)
            print(f"{source.stem:<18} {path.stat().st_size:>7,} {cpu['read+verify']:>12.1f} {cpu['monitor']:>8.1f} "
                  f"{cpu['load']:>7.1f} {cpu['decode twice']:>13.1f} {1 - cpu['load'] / cpu['decode twice']:>6.0%} "
                  f"{formula_decodes(path):>8}")


if __name__ == "__main__":
    main()
