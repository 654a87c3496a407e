"""Lint time on generated policies: 10, 50, 100 and 200 rules over 20 tools.

    python benchmarks/lint.py                 # the sizes of docs/performance.md
    python benchmarks/lint.py --sizes 10 50   # a quick run
    python benchmarks/lint.py --json out.json
    python benchmarks/lint.py --real          # the real-world policies (telecom, support desk, travel)
    python benchmarks/lint.py --compile       # compile of the 144-rule generated policy

Times are CPU seconds of this process (`time.process_time`): steady when the machine is
shared, unlike wall time. Targets: a 20-rule real-world policy under 10 s with every
analysis on and no question undecided (L0009), 200 generated rules under 60 s, the 144-rule
compile under 5 s.

Each policy mixes the rule shapes real policies use: a main path of six tools that must be
called in order (`before`, `called`), and conditional rules over all tools: precedences
(`always (a -> once b)`), responses (`always (a -> eventually b)`), counts, argument
conditions and rules over values bound in patterns. Orderings follow one hidden order of
the tools, so the policy is satisfiable, and some rules restate others, so the redundancy
and vacuity analyses have something to find. The generator is seeded.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from policyc.check import check_text  # noqa: E402
from policyc.lint import ANALYSES, LintOptions, lint_policy  # noqa: E402

TOOLS = [f"t{i:02d}" for i in range(19)] + ["finish"]


def generate(n_rules: int, seed: int = 7) -> str:
    rng = random.Random(seed)
    lines = [f"policy generated_{n_rules}", ""]
    for t in TOOLS[:-1]:
        lines.append(f"tool {t}(id: str, amount: int) -> {{ ok: bool }}")
    lines.append("terminal tool finish(answer: str)")
    lines.append("")
    order = TOOLS[:-1]  # the hidden order every ordering rule follows
    path = sorted(rng.sample(range(len(order)), 6))  # the procedure's main path: what must happen
    rules = []
    shapes = ["before", "precedence", "response", "count", "called", "guard", "bound", "restate"]
    for i in range(n_rules):
        shape = shapes[i % len(shapes)] if i < len(shapes) else rng.choice(shapes)
        a, b = sorted(rng.sample(range(len(order)), 2))
        ta, tb = order[a], order[b]
        pa, pb = sorted(rng.sample(path, 2))
        ma, mb = order[pa], order[pb]
        severity = " severity block" if rng.random() < 0.3 else ""
        layer = f" layer L{rng.randint(1, 6)} weight {rng.randint(1, 4)}"
        if shape == "before":
            body = f"before({ma}, {mb})"
        elif shape == "precedence":  # a step on the main path first: chains stay short
            body = f"always ({tb} -> once {order[path[0]] if a > path[0] else ta})"
        elif shape == "response":
            body = f"always ({ta} -> eventually ({tb} or finish))"  # finish ends the run: no chain
            severity = ""
        elif shape == "count":
            body = f"count({ta}) <= {rng.randint(1, 3)}"
        elif shape == "called":
            body = f"called({ma})"
            severity = ""
        elif shape == "guard":
            body = f"always ({ta} -> {ta}(amount <= {rng.randint(50, 500)}))"
        elif shape == "bound":
            body = f"always ({tb}(id: o) -> once {order[path[0]] if a > path[0] else ta}(id: o))"
        else:  # restates an earlier precedence: redundant on purpose
            body = f"always ({tb} -> once ({ta} or {tb}))" if rng.random() < 0.5 else f"called({ta}) or not called({ta})"
        rules.append(f"rule r{i:03d}{layer}{severity}: {body}")
    return "\n".join(lines + rules) + "\n"


def bench(n_rules: int, bound: int) -> dict:
    policy, diagnostics = check_text(generate(n_rules), f"generated_{n_rules}.altl")
    assert policy is not None and not any(d.is_error for d in diagnostics), diagnostics
    start, cpu = time.perf_counter(), time.process_time()
    report = lint_policy(policy, LintOptions(bound=bound))
    total, cpu = time.perf_counter() - start, time.process_time() - cpu
    return {
        "rules": n_rules,
        "tools": len(policy.tools),
        "bound": bound,
        "seconds": round(total, 2),
        "cpu_seconds": round(cpu, 2),  # this process only: steady when the machine is shared
        "solver_checks": report.solver_checks,
        "per_analysis": {name: round(report.timings.get(name, 0.0), 2) for name, _ in ANALYSES},
        "findings": {name: sum(1 for f in report.findings if f.kind.slug == name) for name, _ in ANALYSES},
        "techniques": report.techniques,
    }


ROOT = Path(__file__).resolve().parent.parent
#: The project's examples, then policies written from the documentation alone, each with a
#: brute-force oracle (`benchmarks/lint_blind/README.md` compares the findings with it).
REAL = [ROOT / "examples" / "telecom.altl", ROOT / "benchmarks" / "policies" / "support_desk_sop.altl",
        ROOT / "benchmarks" / "policies" / "telecom.altl",
        *(ROOT / "benchmarks" / "lint_blind" / f"{name}.altl"
          for name in ("telecom", "support_desk", "travel_security", "false_conflict"))]


def bench_file(path: Path, bound: int, jobs: int = 1) -> dict:
    """One real-world policy, every analysis on."""
    from policyc.check import check_file

    policy, diagnostics = check_file(str(path))
    assert policy is not None and not any(d.is_error for d in diagnostics), diagnostics
    start, cpu = time.perf_counter(), time.process_time()
    report = lint_policy(policy, LintOptions(bound=bound, jobs=jobs))
    return {"policy": path.relative_to(ROOT).as_posix(), "rules": len(policy.rules), "bound": bound,
            "seconds": round(time.perf_counter() - start, 2), "cpu_seconds": round(time.process_time() - cpu, 2),
            "findings": sorted(f.code for f in report.findings),
            "undecided": sum(f.code == "L0009" for f in report.findings)}


def bench_compile() -> dict:
    """`policyc compile` of the 144-rule policy of `policyc bench generate -t nested_loops+branching -d 5`."""
    import subprocess
    import tempfile

    from policyc.artifact.build import compile_file

    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, "-m", "policyc", "bench", "generate", "-t", "nested_loops+branching",
                        "-d", "5", "-o", tmp], check=True, capture_output=True)
        path = next(Path(tmp).rglob("*.altl"))
        rules = sum(1 for line in path.read_text().splitlines() if line.startswith("rule "))
        cpu = time.process_time()
        compile_file(str(path))
        return {"policy": "nested_loops+branching -d 5", "rules": rules,
                "cpu_seconds": round(time.process_time() - cpu, 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10, 50, 100, 200])
    parser.add_argument("--bound", type=int, default=8)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--real", action="store_true", help="lint the real-world policies instead")
    parser.add_argument("--compile", action="store_true", help="time the compile of the 144-rule policy instead")
    parser.add_argument("--jobs", type=int, default=1)
    args = parser.parse_args()
    if args.real or args.compile:
        rows = [bench_compile()] if args.compile else []
        for path in REAL if args.real else []:
            rows.append(bench_file(path, args.bound, args.jobs))
        for row in rows:
            print(json.dumps(row), flush=True)
        if args.json:
            args.json.write_text(json.dumps(rows, indent=2))
        return
    rows = []
    names = [name for name, _ in ANALYSES]
    print(f"{'rules':>5} {'wall s':>8} {'cpu s':>7} {'checks':>6}  " + " ".join(f"{n[:10]:>10}" for n in names))
    for size in args.sizes:
        row = bench(size, args.bound)
        rows.append(row)
        print(f"{row['rules']:>5} {row['seconds']:>8.2f} {row['cpu_seconds']:>7.2f} {row['solver_checks']:>6}  "
              + " ".join(f"{row['per_analysis'][n]:>10.2f}" for n in names), flush=True)
    print("\nfindings per kind:")
    for row in rows:
        print(f"  {row['rules']:>3} rules: " + ", ".join(f"{k} {v}" for k, v in row["findings"].items() if v))
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()
