"""Rule classes of formulas: compile, then read the class off the tables (`policyc.tables.facts`).

>>> from policyc.ir import build as b
>>> classify(b.eventually(b.event("read_file"))).kind
'offline-only'
>>> c = classify(b.always(b.implies(b.event("refund"), b.once(b.event("approve")))))
>>> c.kind, c.is_safety, c.min_bad_prefix
('gateable', True, 1)
"""

from __future__ import annotations

from typing import Mapping

from policyc.ir import nodes as n
from policyc.ir.types import ToolSignature
from policyc.tables.facts import RuleClass, classify_table, not_compiled

from policyc.automata.compile import compile_rule
from policyc.automata.fragment import NotCompilable


def classify(formula: n.Formula, tools: Mapping[str, ToolSignature] | None = None) -> RuleClass:
    """The class of a rule, with a one-line reason."""
    try:
        auto = compile_rule(formula, tools)
    except NotCompilable as exc:
        return not_compiled(exc.reason)
    return classify_table(auto.table)


def rule_class(formula: n.Formula, tools: Mapping[str, ToolSignature] | None = None) -> str:
    """"gateable", "detectable" or "offline-only" (see `RuleClass.kind`).

    >>> from policyc.ir import build as b
    >>> rule_class(b.always(b.neg(b.event("lookup", b.op("eq", b.field(b.result(), "status"), b.lit("error"))))))
    'detectable'
    """
    return classify(formula, tools).kind
