"""The reference semantics of AgentLTL (the oracle): `evaluate(formula, trace)`."""

from policyc.semantics.evaluator import Evaluator, evaluate

__all__ = ["Evaluator", "evaluate"]
