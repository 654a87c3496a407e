"""The compliance report of a finished run: the one `policyc score` gives for its trace."""

from __future__ import annotations

from typing import TYPE_CHECKING

from policyc.semantics import evaluate
from policyc.trace.model import Trace

if TYPE_CHECKING:
    from policyc.runtime.monitor import Monitor


def score_trace(monitor: "Monitor", trace: Trace):
    """Score a complete trace against the monitor's policy."""
    policy = monitor.policy
    verdicts = {r.name: evaluate(r.formula, trace, monitor.externs) for r in policy.rules}
    total = policy.total_weight
    score = sum(r.weight for r in policy.rules if verdicts[r.name]) / total if total else 1.0
    return {"compliance_score": score, "tool_sequence": trace.tool_sequence, "rules": verdicts}
