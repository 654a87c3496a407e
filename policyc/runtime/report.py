"""The compliance report of a finished run: exactly the report `policyc score` gives for its trace.

It is computed by the same code (`policyc.scoring.score_trace`), with the rule classes the
artifact recorded at compile time and the monitor's extern bindings.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from policyc.scoring import TraceReport
from policyc.scoring import score_trace as _score
from policyc.trace.model import Trace

if TYPE_CHECKING:
    from policyc.runtime.monitor import Monitor


def score_trace(monitor: "Monitor", trace: Trace) -> TraceReport:
    """Score a complete trace against the monitor's policy."""
    return _score(monitor.policy, trace, externs=monitor.externs, classes=monitor.rule_classes)
