"""The gate's final answer after many results: grounding judged from the run's index.

A gated run of the code-QA policy (`examples/code_qa.altl`, whose `grounded` rule reads
`outputs(read_file)`) records `--results` file reads of about 2 KB each (Python sources and
prose), then proposes a final answer of `--answer` characters. Measured, in CPU time
(`time.process_time`, best of `--repeat`):

- **indexed**: `run.propose(final_answer)` as the gate runs it, the grounding set kept by the
  run's index as results were recorded (`policyc.runtime.history`);
- **rebuilt**: the same judgement on the same run without the index (the evaluator builds the
  grounding set from every result again), the cost before the index;
- the answer's own entity extraction, the part no index can save;
- and per recorded result, what indexing it costs.

Printed per answer size: both, their ratio, and how the indexed one grows with the number of
results before it (flat: linear in the answer alone).

    python benchmarks/gate_grounding.py [--results 100] [--answer 10000] [--repeat 5]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from policyc.artifact.build import compile_file  # noqa: E402
from policyc.grounding import CODE  # noqa: E402
from policyc.runtime import Monitor  # noqa: E402

NAMES = ("Session", "request", "send", "adapter", "mount", "prepare", "merge_environment", "ChargePoint",
         "resolve_redirects", "HTTPAdapter", "get_connection", "build_response", "cert_verify", "close")


def source(k: int, rng: random.Random) -> tuple[str, list[str]]:
    """About 2 KB of Python (functions with numbered names), and the names it defines."""
    lines, names = [], []
    while sum(len(x) + 1 for x in lines) < 2000:
        names.append(f"{rng.choice(NAMES)}_{k}_{len(lines)}")
        lines.append(f"def {names[-1]}(self, value={rng.randrange(1000)}):\n    return value  # {rng.choice(NAMES)}")
    return "\n".join(lines), names


def answer(size: int, files: list[str], defined: list[str], rng: random.Random) -> str:
    """An answer naming files that were read and functions they define."""
    words: list[str] = []
    while sum(len(w) + 1 for w in words) < size:
        words += ["see", f"`{rng.choice(defined)}`", "in", rng.choice(files), "and"]
    return " ".join(words[:-1])


def gated_run(monitor: Monitor, results: int, seed: int = 3):
    rng = random.Random(seed)
    run = monitor.start()
    run.propose("search", {"query": "session"})
    run.record("search", {"query": "session"}, [f"src/mod{k}.py" for k in range(results)])
    files, defined, record_times = [], [], []
    for k in range(results):
        path = f"src/mod{k}.py"
        files.append(path)
        text, names = source(k, rng)
        defined += names
        run.propose("read_file", {"path": path})
        start = time.process_time()
        run.record("read_file", {"path": path}, {path: text})
        record_times.append(time.process_time() - start)
    return run, files, defined, record_times


def best(fn, repeat: int) -> float:
    out = []
    for _ in range(repeat):
        start = time.process_time()
        fn()
        out.append(time.process_time() - start)
    return min(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", type=int, default=100)
    parser.add_argument("--answer", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    monitor = Monitor(compile_file(str(ROOT / "examples" / "code_qa.altl")))
    print(f"Final answer of {args.answer:,} characters, code_qa.altl, CPU ms (best of {args.repeat}):")
    print(f"{'results before it':>18} {'indexed':>9} {'rebuilt':>9} {'ratio':>7} {'extraction':>11} "
          f"{'record (mean)':>14}")
    for results in sorted({10, args.results // 2, args.results}):
        run, files, defined, record_times = gated_run(monitor, results)
        text = answer(args.answer, files, defined, random.Random(5))
        final = {"answer": text}
        indexed = best(lambda r=run, f=final: r.propose("final_answer", f), args.repeat)
        rebuilt = best(lambda s=run.state.seen, f=final: monitor.gate.final.judge_final(s, "final_answer", f),
                       args.repeat)
        extraction = best(lambda t=text: CODE.entities(t), args.repeat)
        decision = run.propose("final_answer", final)
        assert decision.action == "allow", decision.message  # every entity of the answer was read
        print(f"{results:>18} {indexed * 1e3:>9.3f} {rebuilt * 1e3:>9.3f} {rebuilt / indexed:>6.1f}x "
              f"{extraction * 1e3:>11.3f} {sum(record_times) / len(record_times) * 1e3:>14.3f}")


if __name__ == "__main__":
    main()
