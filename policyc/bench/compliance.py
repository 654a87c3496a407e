"""Checking an instance's policy and scoring a trace against it (Definition 1).

`instance_policy` checks the synthesized `.altl` text with the ordinary front end
(`policyc.check.check_text`); an aliased instance's policy is the rename-map file of
`synthesize.aliased_policy_text`, checked next to a copy of the base policy it imports. `score_trace` gives the weighted compliance score
and each rule's verdict: it is `policyc.scoring.score_trace`, the scorer every other
command uses.
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
from policyc.scoring import TraceReport, score_trace


class PolicyError(RuntimeError):
    """A synthesized policy did not check: a bug in the synthesis, reported with its diagnostics."""


def failed_layers(report: TraceReport) -> set[str]:
    """The layers with at least one violated rule.

    >>> from policyc.bench.generate import generate_instance
    >>> from policyc.bench.agent import scripted_run
    >>> from policyc.trace.formats import parse_trace
    >>> inst = generate_instance("fan_out_fan_in", 1, 42)
    >>> sorted(failed_layers(score_trace(instance_policy(inst), parse_trace(scripted_run(inst, ["repeat"])))))
    ['L5']
    """
    return {c.layer for c in report.constraints if not c.passed and c.layer}


def instance_policy(instance: Instance) -> Policy:
    """The checked policy of an instance (over its aliases, if it has some)."""
    base = policy_text(instance)
    if not instance.renames:
        return _check(base, None)
    return _check(aliased_policy_text(instance, base_file_name(instance)), (base_file_name(instance), base))


def base_file_name(instance: Instance) -> str:
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
