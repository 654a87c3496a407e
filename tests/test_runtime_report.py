"""`run.finish()` is the report `policyc score` gives: identical, on a corpus of traces.

The corpus: the bundled example traces with their policies, and random runs of every
example policy whose calls and results follow the tool signatures (messages too, for a
policy that observes them). Each trace is driven
through a gated run (propose, then record) and also written to a file and scored by the
`policyc score` command; the two reports must be equal field by field.
"""

from __future__ import annotations

import json
import os
import random
from pathlib import Path

import pytest
from click.testing import CliRunner

from policyc.artifact.build import build_artifact
from policyc.check import check_file
from policyc.cli import cli
from policyc.ir import types as t
from policyc.runtime import Monitor
from policyc.trace import load_traces

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted((ROOT / "examples").glob("*.altl"))
RUNS = 200 if os.environ.get("POLICYC_NIGHTLY") else 12

STRINGS = ["A1", "A2", "src/api.py", "request is in src/api.py", "c-7", "x@y.org", "sku-1"]


def sample(ty, rng: random.Random, depth: int = 0):
    """A value of a declared type, from a small pool so that calls relate to one another."""
    if isinstance(ty, t.OptionalT):
        return None if rng.random() < 0.2 else sample(ty.inner, rng, depth)
    if ty == t.INT:
        return rng.choice([0, 1, 2, 3, 5, 8])
    if ty == t.FLOAT:
        return rng.choice([0.0, 10.0, 40.0, 150.0])
    if ty == t.STR:
        return rng.choice(STRINGS)
    if ty == t.BOOL:
        return rng.random() < 0.5
    if ty in (t.NULL,):
        return None
    if isinstance(ty, t.EnumT):
        return rng.choice(ty.members)
    if isinstance(ty, t.ListT):
        return [sample(ty.elem, rng, depth + 1) for _ in range(rng.randint(0, 3 if depth < 2 else 0))]
    if isinstance(ty, t.DictT):
        return {rng.choice(STRINGS): sample(ty.value, rng, depth + 1) for _ in range(rng.randint(0, 2))}
    if isinstance(ty, t.RecordT):
        return {name: sample(ft, rng, depth + 1) for name, ft in ty.fields}
    return rng.choice([1, "A1", True, None, {"result": 3}])


def random_run(policy, rng: random.Random) -> list[dict]:
    tools = list(policy.tools.values())
    middle = [s for s in tools if not s.terminal]
    calls = []
    for _ in range(rng.randint(0, 10)):
        sig = rng.choice(middle or tools)
        calls.append(sig)
    finals = [s for s in tools if s.terminal]
    if finals and rng.random() < 0.7:
        calls.append(rng.choice(finals))
    out = []
    for sig in calls:
        args = {p.name: sample(p.type, rng) for p in sig.params if p.required or rng.random() < 0.5}
        entry = {"tool_name": sig.name, "arguments": args}
        if sig.result is not t.ANY or rng.random() < 0.5:
            entry["tool_result"] = sample(sig.result, rng)
        out.append(entry)
    return out


def corpus():
    cases = []
    for path in EXAMPLES:
        policy, _ = check_file(path)
        rng = random.Random(path.name)
        for i in range(RUNS):
            cases.append(pytest.param(path, {"tool_calls": random_run(policy, rng)}, id=f"{path.stem}-{i}"))
    appendix_b = json.loads((ROOT / "examples" / "traces" / "appendix_b.json").read_text(encoding="utf-8"))
    cases.append(pytest.param(ROOT / "examples" / "fan_out_fan_in.altl", appendix_b, id="appendix_b"))
    return cases


_MONITORS: dict = {}


def monitor_for(path: Path) -> Monitor:
    if path not in _MONITORS:
        _MONITORS[path] = Monitor(build_artifact(check_file(path)[0]))
    return _MONITORS[path]


@pytest.mark.parametrize("path,record", corpus())
def test_finish_equals_policyc_score(path, record, tmp_path):
    trace_file = tmp_path / "run.json"
    trace_file.write_text(json.dumps(record), encoding="utf-8")
    result = CliRunner().invoke(cli, ["score", str(path), str(trace_file), "--format", "json"])
    assert result.exit_code in (0, 1, 2), result.output
    (expected,) = json.loads(result.stdout)["reports"]

    (trace,) = load_traces(trace_file).traces
    run = monitor_for(path).start(mode="tolerate")
    for call in trace.events:  # every event: a policy may observe messages and the user's calls
        if call.actor == "assistant":
            decision = run.propose(call.name, call.args, message_id=call.message_id)
            assert decision.executes
        run.record(call.name, call.args, call.result, actor=call.actor, message_id=call.message_id, error=call.error)
    got = run.finish().model_dump(mode="json")
    for key in ("trace_id", "origin"):
        got.pop(key), expected.pop(key)
    assert got == expected
