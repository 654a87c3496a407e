"""Scores the oracles' witnesses with `policyc score` (run as a command, not imported) and compares.

Run from the repository root: python benchmarks/lint_blind/check_witnesses.py
- witnesses/<name>_compliant.json must score 1.0 (FULL);
- witnesses/<name>_counterexamples.json holds one trace per rule, whose id is the rule's name (or
  `rule@...`): exactly that rule must fail, every other rule must hold.
Prints every disagreement; exits 1 if there is one.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).parent


def score(policy: Path, traces: Path) -> list[dict]:
    out = subprocess.run([sys.executable, "-m", "policyc", "score", str(policy), str(traces), "--format", "json"],
                         capture_output=True, text=True, check=False)
    if out.returncode == 2 or not out.stdout.strip():
        raise SystemExit(f"policyc score {policy.name} {traces.name}: exit {out.returncode}\n{out.stderr}")
    return json.loads(out.stdout)["reports"]


def main() -> int:
    problems = 0
    for name in ("telecom", "support_desk", "travel_security", "false_conflict"):
        policy = HERE / f"{name}.altl"
        compliant = HERE / "witnesses" / f"{name}_compliant.json"
        if compliant.exists():
            for rep in score(policy, compliant):
                bad = [c["name"] for c in rep["constraints"] if not c["passed"]]
                ok = rep["compliance_score"] == 1.0
                print(f"{name} {rep.get('trace_id')}: compliance {rep['compliance_score']:.3f}"
                      + ("" if ok else f"  DISAGREES: violated {bad}"))
                problems += not ok
        counter = HERE / "witnesses" / f"{name}_counterexamples.json"
        if counter.exists():
            agree = 0
            for rep in score(policy, counter):
                want = str(rep.get("trace_id")).split("@")[0]
                bad = sorted(c["name"] for c in rep["constraints"] if not c["passed"])
                if bad == [want]:
                    agree += 1
                else:
                    problems += 1
                    print(f"{name} counterexample for {want}: policyc says violated {bad}")
            print(f"{name}: {agree} counterexample traces violate exactly the rule the oracle says")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
