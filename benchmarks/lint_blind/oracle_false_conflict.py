"""Brute-force oracle for false_conflict.altl (the reproducer of a false conflict).

Run: python benchmarks/lint_blind/oracle_false_conflict.py [MAX_LEN]
Imports nothing from policyc. Ids 0 and 3 are below the literal 4, id 4 is not.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from oracle_lib import Event, Monitor, Policy, Respond, Rule, Trace, dump, report

POOL = [Event("fetch", {"id": 0}), Event("fetch", {"id": 3}), Event("fetch", {"id": 4}),
        Event("read", {"id": 0}), Event("read", {"id": 3}), Event("read", {"id": 4}),
        Event("final_answer", {"answer": "done"}, terminal=True)]


def fetched(e: Event) -> set[int]:
    return {e.args["id"]} if e.name == "fetch" else set()


def read(e: Event) -> set[int]:
    return {e.args["id"]} if e.name == "read" else set()


def c_r1(t: Trace, ctx: Any) -> bool:
    return all(any(v in read(y) for y in t[i:]) for i, e in enumerate(t) for v in fetched(e))


def c_r2(t: Trace, ctx: Any) -> bool:
    return sum(e.name == "fetch" and e.args["id"] < 4 for e in t) >= 9


class AtLeastNine(Monitor):
    def relevant(self, e: Event) -> bool:
        return e.name == "fetch" and e.args["id"] < 4

    def init(self) -> Any:
        return 0

    def step(self, s: Any, e: Event, ctx: Any) -> Any:
        return min(s + 1, 9)

    def accept(self, s: Any, ctx: dict[str, Any]) -> bool:
        return s >= 9


RULES = [Rule("r1", c_r1, Respond(fetched, read)), Rule("r2", c_r2, AtLeastNine())]
POLICY = Policy("false_conflict", POOL, RULES, [{}], ["fetch", "read", "final_answer"])


def main() -> None:
    max_len = int(sys.argv[1]) if len(sys.argv) > 1 else 12
    facts = report(POLICY, max_len=max_len, witness_len=12, random_traces=5000)
    here = Path(__file__).parent
    calls = [("fetch", {"id": 0})] * 9 + [("read", {"id": 0})]
    record = {"id": "nine-fetches-one-read",
              "tool_calls": [{"tool_name": n, "arguments": a, "tool_result": "ok"} for n, a in calls]}
    dump(str(here / "witnesses" / "false_conflict_compliant.json"), [record])
    dump(str(here / "results" / "oracle_false_conflict.json"), facts)
    print(json.dumps(record["tool_calls"][-1]))


if __name__ == "__main__":
    main()
