"""LTLf -> DFA construction: policyc against flloat and ltlf2dfa (MONA), side by side.

Families (the same formula text for every engine, printed from policyc's core IR):
  declare   conjunctions of k DECLARE templates over distinct tools, k = 1..16
  in_order  ordering chains in_order([t1, ..., tk]), k = 2..20
  counting  called_n(t) == n, n = 1..10
  random    seeded random future-time formulas over four tools

Every construction runs in its own subprocess with a timeout and is timed inside it
(interpreter start-up excluded): ours with this interpreter, the peers with a separate
virtualenv's (flloat needs `lark-parser` 0.x, whose `lark` module would shadow lark 1.x).
A peer that times out on a size is reported as such and not run on larger sizes.

Set up the peers once:
    python benchmarks/automata.py --setup-peers        # venv in benchmarks/.peers-venv
    apt-get install -y mona                            # ltlf2dfa runs MONA

Run:
    python benchmarks/automata.py [--timeout 60] [--families declare,in_order,...] [--quick]

States: policyc counts the states of its minimal DFA over event classes (one call per
step); flloat counts its DFA's states, ltlf2dfa the states MONA prints. The peers read the
formulas over 2^atoms (any set of atoms may hold together), a larger language class.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT_PEERS = HERE / ".peers-venv" / "bin" / "python"

DECLARE = ["response({a}, {b})", "precedence({a}, {b})", "responded_existence({a}, {b})",
           "chain_response({a}, {b})", "not_succession({a}, {b})", "existence({a})",
           "alternate_response({a}, {b})", "succession({a}, {b})"]


# ---------------------------------------------------------------- formula families


def rule_formula(text: str, tools: list[str]):
    from policyc.check import check_text

    src = "import declare\n" + "".join(f"tool {t}()\n" for t in tools) + f"rule r: {text}\n"
    policy, diagnostics = check_text(src, "bench.altl")
    if policy is None:
        raise SystemExit(f"benchmark formula does not check: {text}: {diagnostics}")
    return policy.rule("r").formula


def family(name: str, quick: bool) -> list[tuple[int, str, list[str]]]:
    """(size, AgentLTL rule text, tools) for each member of a family."""
    out = []
    if name == "declare":
        for k in range(1, 9 if quick else 17):
            tools = [f"t{i}" for i in range(2 * k)]
            parts = [DECLARE[i % len(DECLARE)].format(a=tools[2 * i], b=tools[2 * i + 1]) for i in range(k)]
            out.append((k, " and ".join(parts), tools))
    elif name == "in_order":
        for k in range(2, 11 if quick else 21):
            tools = [f"t{i}" for i in range(k)]
            out.append((k, f"in_order([{', '.join(tools)}])", tools))
    elif name == "counting":
        for k in range(1, 6 if quick else 11):
            out.append((k, f"called_n(t) == {k}", ["t", "u"]))
    elif name == "random":
        rng = random.Random(7)
        for k in range(1, 11 if quick else 21):
            out.append((k, random_formula(rng, 3 + k // 4), [f"p{i}" for i in range(4)]))
    return out


def random_formula(rng: random.Random, depth: int) -> str:
    if depth == 0 or rng.random() < 0.15:
        return f"p{rng.randrange(4)}"
    sub = lambda: random_formula(rng, depth - 1)  # noqa: E731
    kind = rng.randrange(9)
    if kind == 0:
        return f"not ({sub()})"
    if kind == 1:
        return f"({sub()}) and ({sub()})"
    if kind == 2:
        return f"({sub()}) or ({sub()})"
    if kind == 3:
        return f"next ({sub()})"
    if kind == 4:
        return f"weak next ({sub()})"
    if kind == 5:
        return f"({sub()}) until ({sub()})"
    if kind == 6:
        return f"({sub()}) release ({sub()})"
    return f"{'eventually' if kind == 7 else 'always'} ({sub()})"


def ltlf_text(f) -> str:
    """Core IR -> the LTLf syntax flloat and ltlf2dfa share."""
    from policyc.ir import build as b
    from policyc.ir import nodes as n

    if isinstance(f, n.Const):
        return "true" if f.value else "false"
    if isinstance(f, n.Event):
        return f.tool
    if isinstance(f, n.Not):
        return f"!({ltlf_text(f.arg)})"
    if isinstance(f, (n.And, n.Or)):
        return "(" + (" & " if isinstance(f, n.And) else " | ").join(ltlf_text(a) for a in f.args) + ")"
    if isinstance(f, n.Next):
        return f"X({ltlf_text(f.arg)})"
    if isinstance(f, n.WNext):
        return f"WX({ltlf_text(f.arg)})"
    if b.is_eventually(f):
        return f"F({ltlf_text(f.right)})"
    if b.is_always(f):
        return f"G({ltlf_text(f.right)})"
    if isinstance(f, n.Until):
        return f"(({ltlf_text(f.left)}) U ({ltlf_text(f.right)}))"
    if isinstance(f, n.Release):
        return f"(({ltlf_text(f.left)}) R ({ltlf_text(f.right)}))"
    raise TypeError(f"not a future-time LTLf formula: {type(f).__name__}")


# ---------------------------------------------------------------- one construction, in a subprocess

WORKER = r"""
import json, re, sys, time
engine, text = sys.argv[1], sys.argv[2]
if engine == "policyc":
    from policyc.ir.serialize import load_nodes
    from policyc.automata.construct import build_dfa
    import policyc.automata.conjunction  # library imports happen before timing, as for the peers
    (formula,) = load_nodes(json.loads(text))
    start = time.perf_counter(); dfa = build_dfa(formula); seconds = time.perf_counter() - start
    states = dfa.size
elif engine == "flloat":
    from flloat.parser.ltlf import LTLfParser
    f = LTLfParser()(text)
    start = time.perf_counter(); dfa = f.to_automaton(); seconds = time.perf_counter() - start
    states = len(dfa.states)
else:
    from ltlf2dfa.parser.ltlf import LTLfParser
    f = LTLfParser()(text)
    start = time.perf_counter(); dot = f.to_dfa(); seconds = time.perf_counter() - start
    states = len(set(re.findall(r"^\s*(\d+)\s*->", dot, re.M)) | set(re.findall(r"->\s*(\d+)", dot)))
print(json.dumps({"seconds": seconds, "states": states}))
"""


def construct(engine: str, python: str, payload: str, timeout: float) -> dict:
    try:
        done = subprocess.run([python, "-c", WORKER, engine, payload], capture_output=True, text=True,
                              timeout=timeout, cwd=HERE.parent)
    except subprocess.TimeoutExpired:
        return {"timeout": True}
    if done.returncode != 0:
        return {"error": (done.stderr.strip().splitlines() or ["failed"])[-1][:200]}
    return json.loads(done.stdout.strip().splitlines()[-1])


def best_of(engine, python, payload, timeout, repeat) -> dict:
    runs = []
    for _ in range(repeat):
        r = construct(engine, python, payload, timeout)
        runs.append(r)
        if "seconds" not in r or r["seconds"] > 1.0:
            break
    ok = [r for r in runs if "seconds" in r]
    return min(ok, key=lambda r: r["seconds"]) if ok else runs[-1]


# ---------------------------------------------------------------- report


def cell(r: dict | None) -> str:
    if r is None:
        return "not run"
    if r.get("timeout"):
        return "timeout"
    if "error" in r:
        return "error"
    s = r["seconds"]
    return f"{s * 1000:.1f} ms / {r['states']}" if s < 1 else f"{s:.2f} s / {r['states']}"


def ratio(peer: dict | None, ours: dict, timeout: float) -> str:
    if peer is None or "error" in peer or "seconds" not in ours:
        return "-"
    if peer.get("timeout"):
        return f">{timeout / ours['seconds']:.0f}x"
    return f"{peer['seconds'] / ours['seconds']:.1f}x"


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--families", default="declare,in_order,counting,random")
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds per construction")
    ap.add_argument("--peers-python", default=os.environ.get("POLICYC_PEERS_PYTHON", str(DEFAULT_PEERS)))
    ap.add_argument("--peers", default="flloat,ltlf2dfa")
    ap.add_argument("--repeat", type=int, default=3, help="best of N for constructions under a second")
    ap.add_argument("--quick", action="store_true", help="smaller sizes")
    ap.add_argument("--json", dest="json_out", default=None, help="also write every figure to this file")
    ap.add_argument("--setup-peers", action="store_true", help="create the peers' virtualenv and exit")
    ap.add_argument("--peers-cache", default=None,
                    help="JSON file of peer figures to reuse and extend (peers need not be rerun)")
    args = ap.parse_args(argv)
    if args.setup_peers:
        venv = DEFAULT_PEERS.parent.parent
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run([str(DEFAULT_PEERS), "-m", "pip", "install", "-q", "flloat", "ltlf2dfa"], check=True)
        print(f"peers installed in {venv}; ltlf2dfa also needs MONA (apt-get install -y mona)")
        return
    from policyc.ir.serialize import dump_nodes

    peers = [p for p in args.peers.split(",") if p]
    cache = json.loads(Path(args.peers_cache).read_text()) if args.peers_cache and Path(args.peers_cache).exists() else {}
    if peers and not Path(args.peers_python).exists() and not cache:
        print(f"no peers' interpreter at {args.peers_python}: run with --setup-peers first; timing policyc alone")
        peers = []
    figures = []
    print(f"# LTLf -> DFA construction, time / states (timeout {args.timeout:.0f} s)\n")
    for name in args.families.split(","):
        print(f"## {name}\n")
        header = ["size", "policyc"] + peers + [f"{p} / policyc" for p in peers]
        print("| " + " | ".join(header) + " |")
        print("|" + "---|" * len(header))
        gave_up = {p: False for p in peers}
        for size, text, tools in family(name, args.quick):
            formula = rule_formula(text, tools)
            ours = best_of("policyc", sys.executable, json.dumps(dump_nodes([formula])), args.timeout, args.repeat)
            row = {"family": name, "size": size, "rule": text, "policyc": ours}
            for p in peers:
                if gave_up[p]:
                    row[p] = {"timeout": True, "skipped": True}
                    continue
                key = f"{p}|{args.timeout}|{ltlf_text(formula)}"
                if key not in cache:
                    cache[key] = best_of(p, args.peers_python, ltlf_text(formula), args.timeout, args.repeat)
                    if args.peers_cache:
                        Path(args.peers_cache).write_text(json.dumps(cache))
                row[p] = cache[key]
                gave_up[p] = bool(row[p].get("timeout"))
            figures.append(row)
            cells = [str(size), cell(ours)] + [cell(row[p]) for p in peers] + \
                    [ratio(row[p], ours, args.timeout) for p in peers]
            print("| " + " | ".join(cells) + " |", flush=True)
        print()
        summarise(name, [r for r in figures if r["family"] == name], peers, args.timeout)
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(figures, indent=1))


def summarise(name: str, rows: list[dict], peers: list[str], timeout: float) -> None:
    for p in peers:
        speedups, larger = [], []
        for r in rows:
            ours, peer = r["policyc"], r[p]
            if "seconds" not in ours or "error" in peer:
                continue
            speedups.append((r["size"], (timeout if peer.get("timeout") else peer["seconds"]) / ours["seconds"],
                             bool(peer.get("timeout"))))
            if "states" in peer and ours["states"] > peer["states"]:
                larger.append(r["size"])
        if not speedups:
            continue
        worst = min(speedups, key=lambda s: s[1])
        median = statistics.median(s[1] for s in speedups)
        print(f"{name} vs {p}: median {median:.1f}x faster, worst {worst[1]:.2f}x at size {worst[0]}"
              f"{' (peer timed out)' if worst[2] else ''}; "
              f"policyc states larger at sizes: {larger or 'none'}")
    print()


if __name__ == "__main__":
    main()
