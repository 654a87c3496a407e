"""Where the evaluator can tell that a violation became certain, for rules without a table.

A rule the automata compile gets its `violated_at` from its table. For the others, the
evaluator tells where it can: a syntactic safety formula (Sistla, on finite traces with
strong and weak next) whose data does not grow with the trace (no `outputs`, trace-wide
domains only as the domains of quantifiers, which only grow; the metrics and the request are
fixed) fails on every extension of a prefix it fails on. Its violation is certain at the
shortest failing prefix, found by bisection (`certain_prefix`). The gate uses the same test
(`is_final_on_prefixes`) to decide such rules at a proposal.

>>> from policyc.ir import build as b
>>> from policyc.trace import Trace
>>> o = b.var("o")
>>> rule = b.forall("o", None, b.values("refund", ("order_id",)),
...     b.always(b.implies(b.event("refund", b.op("eq", b.arg("order_id"), o)),
...                        b.once(b.event("check", b.op("eq", b.arg("order_id"), o))))))
>>> certain_prefix(rule, Trace.of(("check", {"order_id": "A"}), ("refund", {"order_id": "B"}), ("x", {})))
2
>>> certain_prefix(b.eventually(b.event("x")), Trace.of(("a", {}),)) is None
True
"""

from __future__ import annotations

from functools import lru_cache
from typing import Callable, Mapping

from policyc.ir import nodes as n
from policyc.ir.data import ExternError
from policyc.ir.walk import has_future, subformulas
from policyc.trace.model import Trace


def certain_prefix(formula: n.Formula, trace: Trace, externs: Mapping[str, Callable] | None = None) -> int | None:
    """The length of the shortest prefix of the trace on which a (failed) rule already fails
    and can never hold again; None when the evaluator cannot tell (the rule is not of a shape
    whose failure on a prefix is final, or it holds on the whole trace)."""
    if not is_final_on_prefixes(formula):
        return None
    from policyc.semantics.positions import PositionEvaluator

    def fails(k: int) -> bool:
        return not PositionEvaluator(trace.prefix(k), externs).holds(formula)

    try:
        if not fails(len(trace)):
            return None
        low, high = 0, len(trace)  # fails(high): the first failing prefix is in [low, high]
        while low < high:
            mid = (low + high) // 2
            if fails(mid):
                high = mid
            else:
                low = mid + 1
        if high > 0 and fails(high - 1):
            return None  # not monotone after all: do not guess
        return high
    except (ExternError, RecursionError):  # the evaluator cannot tell
        return None


@lru_cache(maxsize=4096)
def is_final_on_prefixes(formula: n.Formula) -> bool:
    """Whether failing on a prefix means failing on every extension of it."""
    if not is_safety(formula, True):
        return False
    for sub in subformulas(formula):
        if isinstance(sub, (n.Outputs, n.Done)):
            return False
        if isinstance(sub, (n.Cond, n.Event)) and any(isinstance(t, n.Values) for t in subformulas(sub)):
            return False
        if isinstance(sub, (n.Forall, n.Exists)) and any(
                isinstance(t, (n.Outputs, n.Done, n.Extern)) or isinstance(t, n.Op) and t.op not in ("add", "list")
                for t in subformulas(sub.domain)):
            return False
    return True


def is_safety(f: n.Formula, positive: bool) -> bool:
    """Syntactic safety of `f` read positively (or, with `positive` false, of its negation)."""
    if isinstance(f, (n.Const, n.Event, n.Cond)) or not has_future(f) and not _has_quantifier(f):
        return True
    if isinstance(f, n.Not):
        return is_safety(f.arg, not positive)
    if isinstance(f, (n.And, n.Or)):
        return all(is_safety(a, positive) for a in f.args)
    if isinstance(f, n.WNext):
        return positive and is_safety(f.arg, True)
    if isinstance(f, n.Next):
        return not positive and is_safety(f.arg, False)
    if isinstance(f, n.Release):
        return positive and is_safety(f.left, True) and is_safety(f.right, True)
    if isinstance(f, n.Until):
        return not positive and is_safety(f.left, False) and is_safety(f.right, False)
    if isinstance(f, n.Forall):
        return positive and is_safety(f.body, True)
    if isinstance(f, n.Exists):
        return not positive and is_safety(f.body, False)
    return False  # past operators over future ones


def _has_quantifier(f: n.Formula) -> bool:
    return any(isinstance(s, (n.Forall, n.Exists)) for s in subformulas(f))
