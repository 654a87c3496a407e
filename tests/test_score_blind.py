"""The scoring scenario written from the docs alone (`benchmarks/score_blind`: a release
agent's 50 rules, generated runs, an oracle that shares no code with policyc): on a fresh seed,
policyc's reports agree with the oracle on every verdict, violation step, vacuity,
applicability and rule class. It found the vacuity of negated consequences and of counts under
`if`, and a word undefined for provenance; a regression there shows here."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_the_blind_scoring_scenario_agrees_with_its_oracle_on_every_field():
    done = subprocess.run([sys.executable, "benchmarks/score_blind/run.py", "--runs", "60", "--seed", "5",
                           "--no-agentltl"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    out = done.stdout
    assert "disagreements: 0" in out, out[-3000:]
    assert re.search(r"all\s+3000 / 3000 verdicts agree", out), out[-3000:]
    fields = dict(re.findall(r"^(violated_at|vacuous|applicable|rule_class): .* agree on (\d+ / \d+)", out, re.M))
    assert set(fields) == {"violated_at", "vacuous", "applicable", "rule_class"}, out[-3000:]
    for name, count in fields.items():
        agreed, total = count.split(" / ")
        assert agreed == total and int(total) > 0, (name, count)
