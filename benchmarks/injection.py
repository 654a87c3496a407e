"""Prompt injection, four suites: the first policies against the second, written with the
provenance vocabulary, replayed through the gate in one process.

The suites (`benchmarks/suites/`: banking, mail and calendar, messaging, travel) were written
by someone who had read only the docs: environments, user tasks as correct call sequences,
attacker goals, and least-privilege policies written before the attacks
(`benchmarks/suites/<suite>/policy.altl`). The second versions
(`benchmarks/injection_policies/<suite>.altl`) use trust declarations, `from`, `only from`,
`flows`, quantifiers over a result's rows, typed entities and `matches`; they were written
from the suites' environments, tasks and first policies, before their attacks were read or
replayed, and were not tuned afterwards.

Every task, and every (task, attack) pair whose task reads attacker-controlled text, is
replayed as the suites' own driver does (`benchmarks/suites/replay.py`: each call proposed,
run when allowed, recorded with its result). Printed per suite and policy:

- utility: the tasks whose every call was allowed and that reached their goal;
- attacks stopped: the pairs in which no attacker goal call ran with what it needed;
- latency of a decision (`propose`) and of `propose + record`, p50 and p99, thread CPU time.

    python benchmarks/injection.py [--suite banking ...] [--quick] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.suites.replay import replay_quietly  # noqa: E402
from benchmarks.suites.report import _gate_figures  # noqa: E402
from benchmarks.suites.run import SUITES, load, sequences  # noqa: E402
from policyc.artifact.build import compile_file  # noqa: E402
from policyc.runtime import Monitor  # noqa: E402

POLICIES = {
    "first": lambda suite: ROOT / "benchmarks" / "suites" / suite / "policy.altl",
    "second": lambda suite: ROOT / "benchmarks" / "injection_policies" / f"{suite}.altl",
}


def measure(suite: str, quick: bool) -> dict[str, Any]:
    """Both policies' figures on one suite (two passes each: the first warms the memo tables)."""
    _, env_class, _, _, _ = load(suite)
    seqs, facts = sequences(suite, quick)
    out: dict[str, Any] = {"facts": facts}
    for version, path in POLICIES.items():
        artifact = compile_file(str(path(suite)))
        monitor = Monitor(artifact)
        outcomes: list = []
        for _ in range(1 if quick else 2):
            outcomes = [replay_quietly(lambda request, m=monitor: m.start(context=request), env_class(s.injections),
                                       s.task.request, s.calls) for s in seqs]
        figures = _gate_figures(seqs, outcomes)
        figures["rules"] = len(artifact.rules)
        out[version] = figures
    return out


def print_suite(suite: str, figures: dict[str, Any]) -> None:
    facts = figures["facts"]
    print(f"{suite}: {facts['tasks']} tasks, {facts['attacks']} attacker goals, "
          f"{figures['first']['pairs']} (task, attack) pairs")
    for version in POLICIES:
        f = figures[version]
        lat = f["latency_us"]
        print(f"   {version:6} policy ({f['rules']:2} rules): utility {f['utility']}/{f['tasks']} "
              f"({100 * f['utility'] / max(f['tasks'], 1):.0f} %), attacks stopped {f['attacks_stopped']}/{f['pairs']} "
              f"({100 * f['attacks_stopped'] / max(f['pairs'], 1):.1f} %); decision p50 {lat['propose_p50']} us, "
              f"p99 {lat['propose_p99']} us; propose + record p50 {lat['whole_p50']} us, p99 {lat['whole_p99']} us")
        if f["tasks_refused"]:
            print(f"          tasks refused: {f['tasks_refused']}")
        if f["attacks_through"]:
            shown = dict(list(f["attacks_through"].items())[:6])
            more = len(f["attacks_through"]) - len(shown)
            print(f"          attacks through: {shown}" + (f" and {more} more" if more > 0 else ""))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--suite", choices=sorted(SUITES), action="append")
    parser.add_argument("--quick", action="store_true", help="a third of the tasks and attacks, one pass")
    parser.add_argument("--json", type=Path, help="write every figure here")
    args = parser.parse_args(argv)
    report: dict[str, Any] = {}
    totals = {v: [0, 0, 0, 0] for v in POLICIES}
    for suite in args.suite or list(SUITES):
        report[suite] = measure(suite, args.quick)
        print_suite(suite, report[suite])
        for version in POLICIES:
            f = report[suite][version]
            totals[version] = [a + b for a, b in zip(totals[version], (f["utility"], f["tasks"],
                                                                       f["attacks_stopped"], f["pairs"]))]
    for version, (useful, tasks, stopped, pairs) in totals.items():
        print(f"all suites, {version} policies: utility {useful}/{tasks} ({100 * useful / max(tasks, 1):.1f} %), "
              f"attacks stopped {stopped}/{pairs} ({100 * stopped / max(pairs, 1):.1f} %)")
    if args.json:
        args.json.write_text(json.dumps(report, indent=2, ensure_ascii=False, default=str) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
