"""The reference semantics of AgentLTL (the oracle) and its linear-time twin.

`evaluate(formula, trace)` is τ ⊨ φ by the reference evaluator, appendix A clause by
clause; `PositionEvaluator` computes the same truth values for every position in one pass
and is what the scorer runs. Both satisfy `TraceEvaluator`.
"""

from typing import Protocol

from policyc.ir.data import DataEnv
from policyc.ir.nodes import Formula
from policyc.semantics.evaluator import Evaluator, evaluate
from policyc.semantics.positions import PositionEvaluator


class TraceEvaluator(Protocol):
    """What every engine over a complete trace provides: τ, i ⊨ φ."""

    def holds(self, phi: Formula, i: int = 0, env: DataEnv | None = None) -> bool: ...


__all__ = ["Evaluator", "PositionEvaluator", "TraceEvaluator", "evaluate"]
