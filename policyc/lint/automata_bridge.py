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


def proves_empty(claims: list[tuple[n.Formula, bool]], tools: Mapping[str, ToolSignature]) -> bool:
    """Whether the automata prove, for traces of any length, that no trace makes every
    formula take its truth value: the emptiness of the product of their minimal DFAs.

    Only plain (unsliced) rules with exact alphabets take part; the product treats the letters
    of different rules for one tool as independent, which can only add traces, so `True` is
    certain. Terminal tools only remove traces, so the answer holds with them too.

    >>> from policyc.ir import build as b
    >>> from policyc.smt import bare_tools
    >>> a = b.event("a")
    >>> proves_empty([(b.eventually(a), True), (b.always(b.neg(a)), True)], bare_tools("a", "b"))
    True
    """
    try:
        from policyc.ir import build as b
        from policyc.automata import compile_rule
        from policyc.automata.product import PolicyProduct
    except Exception:
        return False
    tables = []
    for phi, expected in claims:
        try:
            dfa = compile_rule(phi if expected else b.neg(phi), tools).dfa
        except Exception:
            return False
        if dfa is None or not getattr(dfa.alphabet, "exact", False):
            return False
        tables.append(dfa)
    try:
        product = PolicyProduct(tables)
        return product.searchable and not product.satisfiable_together(product.initial)
    except Exception:
        return False


def shortest_satisfying_length(phi: n.Formula, tools: Mapping[str, ToolSignature]) -> int | None:
    """The length of a shortest trace satisfying `phi` alone, read off its minimal DFA; None
    when the rule does not compile to a plain DFA with an exact alphabet, or none exists.

    The DFA knows nothing of terminal tools, so callers re-check at this length when the
    policy declares one.

    >>> from policyc.ir import build as b
    >>> from policyc.smt import bare_tools
    >>> seq = b.eventually(b.conj(b.event("a"), b.next_(b.eventually(b.event("b")))))
    >>> shortest_satisfying_length(seq, bare_tools("a", "b"))
    2
    """
    try:
        from policyc.automata import compile_rule

        dfa = compile_rule(phi, tools).dfa
    except Exception:
        return None
    if dfa is None or not getattr(dfa.alphabet, "exact", False):
        return None
    path = dfa.shortest_continuation(dfa.initial)
    return None if path is None else len(path)
