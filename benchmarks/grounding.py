"""Grounding and trace reading on hostile sizes: entity extraction is linear and bounded.

Measures CPU time (`time.process_time`, best of `--repeat`) of:

- `entities(answer)` with the code and the prose extractor, for answers of growing size (a
  quadratic extractor shows as time growing 4x when the size doubles; a linear one 2x);
- scoring the code-QA policy on a run whose final answer is that long, and whose file read
  is a 60 KB sum `x = 1+1+…` (nested as deep as it is long once parsed);
- reading a JSONL file of records, one of them malformed in each hostile way.

    python benchmarks/grounding.py [--sizes 250000 500000 1000000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from policyc.automata import compile_policy  # noqa: E402
from policyc.check import check_file  # noqa: E402
from policyc.grounding import CODE, PROSE  # noqa: E402
from policyc.scoring import score_trace  # noqa: E402
from policyc.trace import Trace, load_traces  # noqa: E402

WORDS = ("the ChargePoint class in src/requests/api.py calls `request` with 42 retries and Session.send( "
         "MAX_RETRIES; refund $12.50 to ann@example.com on Jan 31, 2025 for order ORD-77 via FedEx: \"approved\" "
         "line L1002 of John Smith").split()


def answer(size: int, seed: int = 7) -> str:
    rng = random.Random(seed)
    out, length = [], 0
    while length < size:
        word = rng.choice(WORDS) + (str(rng.randrange(10_000)) if rng.random() < 0.3 else "")
        out.append(word)
        length += len(word) + 1
    return " ".join(out)[:size]


def best(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.process_time()
        fn()
        times.append(time.process_time() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[250_000, 500_000, 1_000_000])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    print("Entity extraction, CPU seconds (best of {}):".format(args.repeat))
    print(f"{'characters':>12} {'code':>8} {'prose':>8} {'entities (code/prose)':>24}")
    for size in args.sizes:
        text = answer(size)
        code_t = best(lambda text=text: CODE.entities(text), args.repeat)
        prose_t = best(lambda text=text: PROSE.entities(text), args.repeat)
        print(f"{size:>12,} {code_t:>8.3f} {prose_t:>8.3f} {len(CODE.entities(text)):>11,}/{len(PROSE.entities(text)):,}")

    policy = compile_policy(check_file(ROOT / "examples" / "code_qa.altl")[0])
    source = "TOTAL = " + "+".join(["1"] * 30_000) + "\n"
    print(f"\nScoring code_qa.altl (a {len(source) // 1000} KB `TOTAL = 1+1+...` file read, answer of n characters):")
    for size in args.sizes:
        trace = Trace.of(("search", {"query": "TOTAL"}, ["src/sum.py"]),
                         ("read_file", {"path": "src/sum.py"}, {"src/sum.py": source}),
                         ("final_answer", {"answer": answer(size)}))
        seconds = best(lambda trace=trace: score_trace(policy, trace), args.repeat)
        grounded = next(c for c in score_trace(policy, trace).constraints if c.name == "grounded")
        print(f"{size:>12,} {seconds:>8.3f} s   grounded: {grounded.passed}, error: {grounded.error}")

    good = json.dumps({"tool_calls": [{"tool_name": "search", "arguments": {"query": "x"}}]})
    hostile = [good, '{"tool_calls": [{"tool_name": "a", "arguments": {"n": ' + "1" * 5000 + "}}]}",
               "[" * 20_000 + "]" * 20_000, '{"id": "u\u2028v", "tool_calls": []}', "{broken"]
    lines = [hostile[i % len(hostile)] for i in range(5_000)]
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "runs.jsonl")
        Path(path).write_text("\n".join(lines) + "\n", encoding="utf-8")
        seconds = best(lambda: load_traces(path), args.repeat)
        loaded = load_traces(path)
    print(f"\nReading {len(lines):,} JSONL records, 3 in 5 malformed: {seconds:.3f} s, "
          f"{len(loaded.traces):,} traces + {len(loaded.errors):,} reported = {len(lines):,} records")


if __name__ == "__main__":
    main()
