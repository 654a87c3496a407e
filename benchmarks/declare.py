"""DECLARE conformance: policyc against pm4py on the same templates, the same log, one run.

    python benchmarks/declare.py --setup-peers    # once: pm4py in benchmarks/.peers-venv
    python benchmarks/declare.py                  # 10,000 traces, 25 constraints
    python benchmarks/declare.py --quick          # 1,000 traces

Process-mining users check event logs against DECLARE models with pm4py
(`pm4py.conformance_declare`). policyc's standard library writes the same templates in
AgentLTL (`stdlib/declare.altl`); this script draws a model of 25 constraints over 10
activities, writes it once as an AgentLTL policy and once as a pm4py model, generates a log
of random traces (5 to 45 events), and then:

1. checks that the two engines agree on every (trace, constraint) verdict, template by
   template (where they do not, the template's meaning differs: see the output);
2. times both on the whole log, CPU time of the measuring thread, library imports and log
   conversion excluded: pm4py's `apply_list` on the projected log, policyc's automata
   (`Monitor.verdicts`, verdicts only; a first pass builds the policy's product lazily, a
   second pass over the same log finds it built) and policyc's scorer (`score_corpus`, the
   full appendix B report per trace: details, `violated_at`, vacuity, conformance);
3. does the same on one trace of 10,000 events.

pm4py runs in its own interpreter (`--peers-python`, the virtualenv `--setup-peers` makes),
so that its dependencies stay out of policyc's environment; it reads the same log from a
temporary file and reports its times and verdicts back to this run, which prints the ratios.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from policyc.artifact.build import build_artifact  # noqa: E402
from policyc.check import check_text  # noqa: E402
from policyc.runtime import Monitor  # noqa: E402
from policyc.scoring import score_corpus  # noqa: E402
from policyc.trace import Trace  # noqa: E402

DEFAULT_PEERS = HERE / ".peers-venv" / "bin" / "python"
ACTIVITIES = [f"act_{i}" for i in range(10)]

#: policyc stdlib template -> (pm4py model key, arity); `exactly(a, 1)` is pm4py's exactly_one
TEMPLATES = {
    "existence": ("existence", 1),
    "absence": ("absence", 1),
    "exactly": ("exactly_one", 1),
    "init": ("init", 1),
    "responded_existence": ("responded_existence", 2),
    "co_existence": ("coexistence", 2),
    "not_coexistence": ("noncoexistence", 2),
    "response": ("response", 2),
    "precedence": ("precedence", 2),
    "succession": ("succession", 2),
    "alternate_response": ("altresponse", 2),
    "alternate_precedence": ("altprecedence", 2),
    "chain_response": ("chainresponse", 2),
    "chain_precedence": ("chainprecedence", 2),
    "not_succession": ("nonsuccession", 2),
}

PEER_SCRIPT = r"""
import json, sys, time, io, contextlib
with contextlib.redirect_stdout(io.StringIO()):   # pm4py greets on import
    from pm4py.algo.conformance.declare.variants.classic import apply_list
data = json.load(open(sys.argv[1]))
model = {}
for key, acts in data["model"]:
    model.setdefault(key, {})[acts if isinstance(acts, str) else tuple(acts)] = {"support": 1.0, "confidence": 1.0}
out = {}
for name in ("log", "long"):
    log = data[name]
    apply_list(log[:10], model)                      # warm-up
    t0 = time.thread_time()
    result = apply_list(log, model)
    out[name + "_seconds"] = time.thread_time() - t0
    out[name + "_deviations"] = [[[d[0], d[1] if isinstance(d[1], str) else list(d[1])] for d in r["deviations"]]
                                 for r in result]
json.dump(out, sys.stdout)
"""


def draw_model(n: int, seed: int) -> list[tuple[str, tuple[str, ...]]]:
    """n distinct (template, activities), every template used before any is repeated."""
    rng = random.Random(seed)
    names, out, seen = list(TEMPLATES), [], set()
    while len(out) < n:
        name = names[len(out) % len(names)]
        acts = tuple(rng.sample(ACTIVITIES, TEMPLATES[name][1]))
        if (name, acts) not in seen:
            seen.add((name, acts))
            out.append((name, acts))
    return out


def policy_text(model) -> str:
    lines = ["policy declare_bench", "", "import declare", ""] + [f"tool {a}()" for a in ACTIVITIES] + [""]
    for i, (name, acts) in enumerate(model):
        args = ", ".join(acts) + (", 1" if name == "exactly" else "")
        lines.append(f"rule c{i}: {name}({args})")
    return "\n".join(lines) + "\n"


def peer_model(model) -> list:
    return [[TEMPLATES[name][0], acts[0] if len(acts) == 1 else list(acts)] for name, acts in model]


def run_peer(python: str, model, log, long_trace) -> dict | None:
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as handle:
        json.dump({"model": peer_model(model), "log": log, "long": [long_trace]}, handle)
    try:
        done = subprocess.run([python, "-c", PEER_SCRIPT, handle.name], capture_output=True, text=True)
    finally:
        os.unlink(handle.name)
    if done.returncode != 0:
        print(f"pm4py failed: {done.stderr.strip().splitlines()[-1] if done.stderr.strip() else done.returncode}")
        return None
    return json.loads(done.stdout)


def thread_seconds(fn) -> float:
    t0 = time.thread_time()
    fn()
    return time.thread_time() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="1,000 traces instead of 10,000")
    ap.add_argument("--constraints", type=int, default=25)
    ap.add_argument("--peers-python", default=os.environ.get("POLICYC_PEERS_PYTHON", str(DEFAULT_PEERS)))
    ap.add_argument("--setup-peers", action="store_true", help="install pm4py in benchmarks/.peers-venv and exit")
    args = ap.parse_args()
    if args.setup_peers:
        venv = DEFAULT_PEERS.parent.parent
        if not DEFAULT_PEERS.exists():
            subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run([str(DEFAULT_PEERS), "-m", "pip", "install", "-q", "pm4py"], check=True)
        print(f"pm4py installed in {venv}")
        return

    n_traces = 1_000 if args.quick else 10_000
    model = draw_model(args.constraints, seed=11)
    rng = random.Random(12)
    log = [[rng.choice(ACTIVITIES) for _ in range(rng.randint(5, 45))] for _ in range(n_traces)]
    long_trace = [rng.choice(ACTIVITIES) for _ in range(10_000)]
    events = sum(map(len, log))

    policy, diagnostics = check_text(policy_text(model), "declare_bench.altl")
    assert policy is not None, diagnostics
    monitor = Monitor(build_artifact(policy))
    traces = [Trace.of(*[(a, {}) for a in t]) for t in log]
    long = Trace.of(*[(a, {}) for a in long_trace])
    names = [r.name for r in policy.rules]

    print(f"{n_traces:,} traces ({events:,} events) over {len(ACTIVITIES)} activities, "
          f"{len(model)} DECLARE constraints ({len(TEMPLATES)} templates)")
    ours: list[dict] = []
    automata = thread_seconds(lambda: ours.extend(monitor.verdicts(t) for t in traces))
    warm = thread_seconds(lambda: [monitor.verdicts(t) for t in traces])  # the product is built by now
    reports = score_corpus(monitor.compiled, traces[:50])  # warm the scorer's caches, as the peer is warmed
    scorer = thread_seconds(lambda: score_corpus(monitor.compiled, traces))
    long_automata = thread_seconds(lambda: monitor.verdicts(long))
    long_scorer = thread_seconds(lambda: score_corpus(monitor.compiled, [long]))
    del reports

    peer = None
    if Path(args.peers_python).exists():
        peer = run_peer(args.peers_python, model, log, long_trace)
    else:
        print(f"no pm4py interpreter at {args.peers_python}: run with --setup-peers; policyc's figures only")

    if peer is not None:
        print("\n## Agreement, per template ((trace, constraint) verdicts that differ)")
        differ: dict[str, list[int]] = {}
        for verdicts, deviations in zip(ours, peer["log_deviations"]):
            failed = {(key, acts if isinstance(acts, str) else tuple(acts)) for key, acts in deviations}
            for i, (name, acts) in enumerate(model):
                key = (TEMPLATES[name][0], acts[0] if len(acts) == 1 else acts)
                counts = differ.setdefault(name, [0, 0])
                counts[1] += 1
                counts[0] += verdicts[names[i]] == (key in failed)
        for name, (bad, total) in differ.items():
            note = "" if not bad else "  <- the template means something else in pm4py"
            print(f"{name:<22} {bad:>6,} of {total:>7,}{note}")

    print("\n## Time, CPU seconds of the measuring thread (and events per second)")
    rows = [("policyc automata (verdicts only)", automata, long_automata),
            ("policyc automata, second pass", warm, long_automata),
            ("policyc score_corpus (full reports)", scorer, long_scorer)]
    if peer is not None:
        rows.append(("pm4py conformance_declare (apply_list)", peer["log_seconds"], peer["long_seconds"]))
    print(f"{'engine':<40} {'log s':>8} {'events/s':>12} {'10k-event trace s':>18}")
    for label, log_s, long_s in rows:
        print(f"{label:<40} {log_s:>8.3f} {events / log_s:>12,.0f} {long_s:>18.4f}")
    if peer is not None:
        print(f"\npm4py / policyc automata: {peer['log_seconds'] / automata:.1f}x on the log "
              f"({peer['log_seconds'] / warm:.1f}x on a second pass), "
              f"{peer['long_seconds'] / long_automata:.1f}x on the long trace")
        print(f"pm4py / policyc score_corpus: {peer['log_seconds'] / scorer:.2f}x on the log, "
              f"{peer['long_seconds'] / long_scorer:.2f}x on the long trace")


if __name__ == "__main__":
    main()
