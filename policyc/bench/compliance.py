"""Checking an instance's policy and scoring a trace against it (Definition 1).

`instance_policy` checks the synthesized `.altl` text with the ordinary front end
(`policyc.check.check_text`); an aliased instance's policy is the rename-map file of
`synthesize.aliased_policy_text`, checked next to a copy of the base policy it imports. `score_instance` gives the weighted
compliance score and each rule's verdict with `policyc.scoring.score_trace`, the scorer every
other command uses, handed the policy's compiled tables (compiled once per instance text).
"""

from __future__ import annotations

import tempfile
from functools import lru_cache
from pathlib import Path

from policyc.bench.model import Instance
from policyc.bench.synthesize import aliased_policy_text, policy_name, policy_text
from policyc.bench.tools import SIGNATURES_PATH
from policyc.diagnostics import has_errors, render_text
from policyc.ir.policy import Policy
from policyc.automata import compile_policy
from policyc.scoring import TraceReport, score_trace
from policyc.tables import CompiledPolicy
from policyc.trace import Trace


class PolicyError(RuntimeError):
    """A synthesized policy did not check: a bug in the synthesis, reported with its diagnostics."""


def failed_layers(report: TraceReport) -> set[str]:
    """The layers with at least one violated rule.

    >>> from policyc.bench.generate import generate_instance
    >>> from policyc.bench.agent import scripted_run
    >>> from policyc.trace.formats import parse_trace
    >>> inst = generate_instance("fan_out_fan_in", 1, 42)
    >>> sorted(failed_layers(score_instance(inst, parse_trace(scripted_run(inst, ["repeat"])))))
    ['L5']
    """
    return {c.layer for c in report.constraints if not c.passed and c.layer}


def score_instance(instance: Instance, trace: Trace) -> TraceReport:
    """The compliance report of a trace against the instance's policy.

    >>> from policyc.bench.generate import generate_instance
    >>> inst = generate_instance("loop_termination", 1, 42)
    >>> score_instance(inst, inst.gold_trace()).compliance_score
    1.0
    """
    return score_trace(instance_compiled(instance), trace)


def instance_compiled(instance: Instance) -> CompiledPolicy:
    """The instance's policy with its compiled tables."""
    base = policy_text(instance)
    if not instance.renames:
        return _compiled(base, None)
    return _compiled(aliased_policy_text(instance, base_file_name(instance)), (base_file_name(instance), base))


def instance_policy(instance: Instance) -> Policy:
    """The checked policy of an instance (over its aliases, if it has some).

    >>> from policyc.bench.generate import generate_instance
    >>> len(instance_policy(generate_instance("fan_out_fan_in", 1, 42)).rules)
    20
    """
    base = policy_text(instance)
    if not instance.renames:
        return _check(base, None)
    return _check(aliased_policy_text(instance, base_file_name(instance)), (base_file_name(instance), base))


def base_file_name(instance: Instance) -> str:
    """The file name an aliased policy imports its base policy from.

    >>> from policyc.bench.generate import generate_instance
    >>> base_file_name(generate_instance("fan_out_fan_in", 1, 42))
    'fan_out_fan_in_d1_s42.base.altl'
    """
    return f"{policy_name(instance)}.base.altl"


@lru_cache(maxsize=512)
def _check(text: str, base: tuple[str, str] | None) -> Policy:
    from policyc.check import check_text

    if base is None:
        policy, diagnostics = check_text(text, str(SIGNATURES_PATH.with_name("instance.altl")))
    else:
        with tempfile.TemporaryDirectory() as folder:
            root = Path(folder)
            root.joinpath(base[0]).write_text(base[1], encoding="utf-8")
            policy, diagnostics = check_text(text, str(root / "policy.altl"))
    if policy is None or has_errors(diagnostics):
        raise PolicyError("a synthesized policy does not check:\n" + render_text(diagnostics, color=False))
    return policy


@lru_cache(maxsize=128)
def _compiled(text: str, base: tuple[str, str] | None) -> CompiledPolicy:
    """Checked and compiled once per policy text (a pure function of it)."""
    return compile_policy(_check(text, base))
