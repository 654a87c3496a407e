"""Replay the four agent suites through policyc's gate and through a hand-written table gate
for the same rules, in one process.

    python benchmarks/suites/run.py [--suite banking|mail|messaging|travel] [--quick] [--json out.json]

Per suite it prints: the share of rules `policyc compile` classes gateable; utility (tasks
whose every call was allowed and that reached their goal); attacks stopped (no goal call of
the attacker ran); per-decision latency p50/p99 of `propose` and of `propose + record` in
thread CPU time, policyc against the hand-written gate, and their ratio; the decisions where
the two gates differ, with the rule and policyc's own words about what it could not decide.
"""

from __future__ import annotations

import argparse
import importlib
import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.suites.common import (  # noqa: E402
    Attack, Call, Task, attack_sequence, exposure, injected_text, provenance, run_plain,
)
from benchmarks.suites.report import print_suite, summarise  # noqa: E402
from benchmarks.suites.replay import replay_quietly  # noqa: E402
from policyc.artifact.build import build_artifact, compile_file  # noqa: E402
from policyc.check import check_text  # noqa: E402
from policyc.runtime import Monitor  # noqa: E402

SUITES = {
    "banking": ("BankingEnv", "BankingGate"),
    "mail": ("MailEnv", "MailGate"),
    "messaging": ("MessagingEnv", "MessagingGate"),
    "travel": ("TravelEnv", "TravelGate"),
}
HERE = Path(__file__).resolve().parent


@dataclass(frozen=True)
class Sequence:
    id: str
    task: Task
    attack: Attack | None
    calls: tuple[Call, ...]
    injections: dict[str, str]
    attack_at: int = -1          # the position of the attack's first call, in an attack's sequence


def load(name: str) -> tuple[Any, type, list[Task], list[Attack], type]:
    env_name, gate_name = SUITES[name]
    env_mod = importlib.import_module(f"benchmarks.suites.{name}.env")
    tasks = list(importlib.import_module(f"benchmarks.suites.{name}.tasks").TASKS)
    try:
        attacks = list(importlib.import_module(f"benchmarks.suites.{name}.attacks").ATTACKS)
    except ModuleNotFoundError:
        attacks = []
    gate = getattr(importlib.import_module(f"benchmarks.suites.{name}.gate"), gate_name)
    return env_mod, getattr(env_mod, env_name), tasks, attacks, gate


def sequences(name: str, quick: bool) -> tuple[list[Sequence], dict[str, Any]]:
    """Every task, and every (task, attack) pair whose task reads attacker-controlled text;
    each checked first without a gate (the task reaches its goal and its arguments come from
    the request or from results; the injected agent reaches the attacker's goal)."""
    env_mod, env_class, tasks, attacks, _ = load(name)
    origins = {"request": 0, "results": 0, "chosen": 0}
    out, exposed = [], 0
    for task in tasks:
        env = env_class()
        run_plain(env, task.calls)
        assert task.check(env), f"{task.id}: the correct calls do not reach the goal"
        for k, v in provenance(task, env_class).items():
            origins[k] += v
        out.append(Sequence(task.id, task, None, task.calls, {}))
        first, _ = exposure(task, env_class)
        if first is None:
            continue
        exposed += 1
        for attack in attacks:
            text = injected_text(env_mod.USER, attack.instruction)
            injections = {v: text for v in env_class.VECTORS}
            calls = attack_sequence(task, attack, first)
            env = env_class(injections)
            run_plain(env, calls[: first + 1 + len(attack.calls)])   # the rest of the task may undo it
            assert attack.check(env), f"{task.id}+{attack.id}: the injected agent does not reach the attacker's goal"
            out.append(Sequence(f"{task.id}+{attack.id}", task, attack, calls, injections, first + 1))
    if quick:
        keep_tasks = {t.id for t in tasks[::3]}
        keep_attacks = {a.id for a in attacks[::3]}
        out = [s for s in out if s.task.id in keep_tasks and (s.attack is None or s.attack.id in keep_attacks)]
    facts = {"tasks": len(tasks), "attacks": len(attacks), "exposed_tasks": exposed, "argument_origins": origins}
    return out, facts


def compile_summary(name: str) -> tuple[Monitor, dict[str, int], dict[str, str]]:
    """The monitor, the count of rules per class, and each rule's class (with the reason
    compile gives for an offline-only one)."""
    artifact = compile_file(str(HERE / name / "policy.altl"))
    classes = {"gateable": 0, "detectable": 0, "offline-only": 0}
    per_rule = {}
    for rule in artifact.rules:
        classes[rule.rule_class] = classes.get(rule.rule_class, 0) + 1
        reason = getattr(rule, "offline_reason", None)
        per_rule[rule.name] = rule.rule_class + (f": {reason}" if reason else "")
    return Monitor(artifact), classes, per_rule


def allow_all(name: str) -> Monitor:
    """The floor: the suite's tool declarations with one rule, `true`. What a decision costs
    here is the run's bookkeeping and the conformance checks (signatures, grounding of the
    arguments in the request and the results), not the rules."""
    text = (HERE / name / "policy.altl").read_text()
    policy, _ = check_text(text[: text.index("\nrule ")] + "\nrule anything: true\n", f"{name}_allow_all.altl")
    return Monitor(build_artifact(policy))


def signatures_only(name: str) -> Monitor:
    """The suite's policy as written, with conformance checking the signatures alone
    (`conformance ... signatures only`): the rules' own cost beside what grounding every
    argument value in the request and the results adds (the hand-written gate grounds nothing)."""
    text = (HERE / name / "policy.altl").read_text()
    declared = re.search(r"^conformance [^\n]*", text, re.M)
    text = (text[: declared.end()] + " signatures only" + text[declared.end():] if declared
            else text + "\nconformance warn signatures only\n")
    policy, diags = check_text(text, f"{name}_signatures_only.altl")
    assert policy is not None, diags
    return Monitor(build_artifact(policy))


def measure(name: str, quick: bool) -> dict[str, Any]:
    _, env_class, _, _, gate = load(name)
    monitor, classes, per_rule = compile_summary(name)
    seqs, facts = sequences(name, quick)
    floor = allow_all(name)
    sig = signatures_only(name)
    gates = {"policyc": lambda request: monitor.start(context=request), "hand": gate,
             "signatures_only": lambda request: sig.start(context=request),
             "allow_all": lambda request: floor.start(context=request),
             "allow_all_no_request": lambda request: floor.start()}
    # Each gate replays every sequence in a block of its own (so neither runs in the other's
    # cache debris); the first pass warms policyc's memo tables, the last one is kept.
    passes = 1 if quick else 2
    results: dict[str, list] = {}
    for _ in range(passes):
        results = {g: [replay_quietly(start, env_class(s.injections), s.task.request, s.calls) for s in seqs]
                   for g, start in gates.items()}
    return summarise(name, classes, per_rule, facts, seqs, results)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--suite", choices=sorted(SUITES), action="append")
    parser.add_argument("--quick", action="store_true", help="a third of the tasks and attacks, one pass")
    parser.add_argument("--json", type=Path, help="write every figure and differing decision here")
    args = parser.parse_args(argv)
    report = {}
    for name in args.suite or list(SUITES):
        report[name] = measure(name, args.quick)
        print_suite(report[name])
    if args.json:
        args.json.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
