"""The one place the lint asks the automata (policyc.automata) instead of the solver.

When the automata package is importable and compiles a rule, its answers are exact:
`rule_class` returns whether the rule has a bad prefix (enforceable) and whether its
violations are decided before a call's result (gateable). When it is missing, or the rule
is outside what it compiles (for instance quantified rules it slices parametrically), the
caller falls back to the bounded Z3 queries and says so in the finding's strength.
The automata read a rule without the policy's terminal tools (a run ends with a terminal
call, which makes liveness rules decidable when it is proposed), so "no bad prefix" from
them is re-asked of the solver when the policy declares a terminal tool.

>>> rule_class is not None
True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

from policyc.ir import nodes as n
from policyc.ir.types import ToolSignature


@dataclass(frozen=True)
class RuleClassAnswer:
    is_enforceable: bool
    is_gateable: bool
    is_liveness: bool


def rule_class(phi: n.Formula, tools: Mapping[str, ToolSignature]) -> RuleClassAnswer | None:
    """The automata's exact class of a rule, or None when they cannot answer."""
    try:
        from policyc import automata
    except Exception:
        return None
    classify = getattr(automata, "classify", None)
    if classify is None:
        return None
    try:
        answer = classify(phi, tools)
    except Exception:  # outside the compiled fragment, or not finished: fall back to Z3
        return None
    if not getattr(answer, "compiled", True) or not getattr(answer, "exact", True):
        return None  # not compiled, or only estimated: the solver answers instead
    try:
        return RuleClassAnswer(bool(answer.is_enforceable), bool(answer.is_gateable),
                               bool(getattr(answer, "is_liveness", not answer.is_enforceable)))
    except AttributeError:
        return None
