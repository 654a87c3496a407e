"""Run a scenario: every proposal goes to policyc's gate, the exact oracle and the table gate.

policyc is used only as its docs describe it: `compile_file` and `Monitor` (README.md,
docs/runtime.md), `run.propose` / `run.record`, and the `Decision` fields `executes`,
`action`, `rules` and `undecided`. Everything else here is independent of it.

Times are CPU time of this thread (`time.thread_time_ns`), around `propose` alone and around
`propose` plus `record` (the latter only for calls that ran), for policyc and the table gate
alike, in the same process, on the same calls. The oracle is timed too, as the hand-written
gate that answers the question policyc's gate answers (the table gate answers a narrower one:
each rule alone): its decision is `allows`, its whole call `allows` plus, for a call that ran,
`live` on the state after it (what it learns from the result). Its memo of joint states is kept
across the runs of a scenario, as policyc's monitor keeps its tables across the runs it gates. The collector stays on, but what the benchmark
itself holds (the oracle's memo) is frozen out of it before each run (`gc.freeze`).
"""

from __future__ import annotations

import gc
import random
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from .agent import Agent
from .joint import Pool, Tool
from .model import Call, Rules
from .oracle import Oracle


@dataclass
class Scenario:
    name: str
    policy: Path
    rules: Callable[[], Rules]
    tools: list[Tool]
    hand: Callable[[str], Any]
    world: Callable[[random.Random], Any]
    script: Callable[[Any], Any]
    uses_request: bool = False
    oracle_factory: Callable[[int], Oracle] | None = None   # None: the sort-profile oracle over `tools`

    def make_oracle(self, fresh: int = 2) -> Oracle:
        if self.oracle_factory is not None:
            return self.oracle_factory(fresh)
        return Oracle(self.rules(), Pool(self.tools), fresh)


@dataclass
class Tally:
    decisions: int = 0
    allowed: int = 0
    oracle_allows: int = 0
    wrong_allows: int = 0
    wrong_refusals: int = 0
    undecided: int = 0
    undecided_allowed: int = 0
    undecided_allowed_doomed: int = 0
    silent_wrong_allows: int = 0
    hand_wrong_allows: int = 0
    hand_wrong_refusals: int = 0
    runs: int = 0
    ended: dict = field(default_factory=lambda: {"terminal": 0, "wrong_allow": 0, "doomed_by_result": 0,
                                                   "out_of_proposals": 0})
    gate_ns: list = field(default_factory=list)
    call_ns: list = field(default_factory=list)
    hand_ns: list = field(default_factory=list)
    hand_call_ns: list = field(default_factory=list)
    oracle_ns: list = field(default_factory=list)
    oracle_call_ns: list = field(default_factory=list)
    oracle_s: float = 0.0
    examples: dict = field(default_factory=lambda: {"wrong_allow": [], "wrong_refusal": []})
    slowest: list = field(default_factory=list)
    traces: list = field(default_factory=list)
    log: list = field(default_factory=list)      # (request, prefix, tool, args, oracle's answer)


def _example(prefix, tool, args, decision) -> dict:
    return {"prefix": [f"{c.tool}({_short(c.args)})" for c in prefix], "proposal": f"{tool}({_short(args)})",
            "action": decision.action, "rules": list(decision.rules), "undecided": list(decision.undecided)}


def _short(args: dict) -> str:
    return ", ".join(f"{k}={v}" for k, v in args.items() if k not in ("text", "body", "subject", "summary"))


def run_scenario(sc: Scenario, runs: int, seed: int, lengths=(10, 40), keep_traces: int = 0,
                 keep_log: bool = False, monitor=None, oracle: Oracle | None = None) -> Tally:
    from policyc import Monitor, compile_file  # the system under test, as README.md shows it

    monitor = monitor or Monitor(compile_file(str(sc.policy)))
    oracle = oracle or sc.make_oracle()
    joint, tally, clock = oracle.joint, Tally(), time.thread_time_ns
    terminal = {t.name for t in sc.tools if t.terminal}
    for k in range(runs):
        rng = random.Random(seed * 100_003 + k)
        world = sc.world(rng)
        agent = Agent(rng, sc.script(world))
        run = monitor.start(context=world.request) if sc.uses_request else monitor.start()
        hand = sc.hand(world.request)
        st, prefix, end = joint.start(world.request), [], "out_of_proposals"
        gc.collect()
        gc.freeze()     # the oracle's memo is not the gate's garbage: keep collections from scanning it
        for _ in range(rng.randint(*lengths)):
            tool, args = agent.next()
            o0, c0 = time.process_time(), clock()
            ok = oracle.allows(st, tool, args)
            oracle_ns = clock() - c0
            tally.oracle_s += time.process_time() - o0
            tally.oracle_ns.append(oracle_ns)
            if keep_log:
                tally.log.append((world.request, list(prefix), tool, args, ok))
            t0 = clock()
            d = run.propose(tool, args)
            t1 = clock()
            h_ok = hand.propose(tool, args)
            t2 = clock()
            tally.decisions += 1
            tally.oracle_allows += ok
            tally.gate_ns.append(t1 - t0)
            tally.hand_ns.append(t2 - t1)
            if d.undecided:
                tally.undecided += 1
            if len(tally.slowest) < 5 or t1 - t0 > tally.slowest[-1][0]:
                tally.slowest = sorted(tally.slowest + [(t1 - t0, _example(prefix, tool, args, d))],
                                       key=lambda x: -x[0])[:5]
            if h_ok and not ok:
                tally.hand_wrong_allows += 1
            elif ok and not h_ok:
                tally.hand_wrong_refusals += 1
            if not d.executes:
                tally.call_ns.append(t1 - t0)
                tally.hand_call_ns.append(t2 - t1)
                tally.oracle_call_ns.append(oracle_ns)
                if ok:
                    tally.wrong_refusals += 1
                    _keep(tally, "wrong_refusal", prefix, tool, args, d)
                agent.refused(tool, args)
                continue
            tally.allowed += 1
            tally.undecided_allowed += bool(d.undecided)
            result = world.result(tool, args)
            t3 = clock()
            run.record(tool, args, result)
            t4 = clock()
            hand.record(tool, args, result)
            t5 = clock()
            tally.call_ns.append(t1 - t0 + t4 - t3)
            tally.hand_call_ns.append(t2 - t1 + t5 - t4)
            call = Call(tool, args, result)
            st = joint.step(st, call)
            prefix.append(call)
            agent.executed(tool, args, result)
            if not ok:
                tally.wrong_allows += 1
                tally.undecided_allowed_doomed += bool(d.undecided)
                tally.silent_wrong_allows += not d.undecided
                _keep(tally, "wrong_allow", prefix[:-1], tool, args, d)
                tally.oracle_call_ns.append(oracle_ns)
                end = "wrong_allow"
                break
            if tool in terminal:
                tally.oracle_call_ns.append(oracle_ns)
                end = "terminal"
                break
            o0, c0 = time.process_time(), clock()
            alive = oracle.live(st)
            tally.oracle_call_ns.append(oracle_ns + clock() - c0)
            tally.oracle_s += time.process_time() - o0
            if not alive:
                end = "doomed_by_result"
                break
        tally.runs += 1
        tally.ended[end] += 1
        if k < keep_traces:
            tally.traces.append({"request": world.request, "calls": prefix, "failing": joint.failing(st)})
    return tally


def _keep(tally: Tally, kind: str, prefix, tool, args, d) -> None:
    if len(tally.examples[kind]) < 5:
        tally.examples[kind].append(_example(prefix, tool, args, d))
