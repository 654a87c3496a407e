"""Where a violation became certain, and what kind of rule it is: the automata's answers.

`violated_at(formula, trace)` is the length k of the shortest prefix of the trace after which
no continuation could satisfy the rule (a bad prefix, appendix A.5.1), as a 1-based call
number; 0 when the rule is unsatisfiable from the start. A rule without a bad prefix in the
trace (liveness: `called(x)` on a trace without x) is violated at the end, n.

Both answers come from `policyc.automata` when it provides them
(`first_violation(formula, trace, externs=...) -> int | None`,
`rule_class(formula, tools) -> str`);
this module imports it lazily and falls back, so the scorer works before and without it.
For a rule the automata do not compile, the evaluator tells where it can: a syntactic safety
formula whose data does not grow with the trace (no `outputs`, no trace-wide domain inside a
condition; quantifiers over call values, the metrics and the request are fine) fails on
every extension of a prefix it fails on, so its violation is certain at the shortest failing
prefix (`certain_prefix`, found by bisection). Other rules (liveness: `called(x)`) are
violated at the end of the trace, n. The rule class falls back to a syntactic estimate.
"""

from __future__ import annotations

import importlib
from functools import cache
from typing import Callable, Mapping

from policyc.ir import build as b
from policyc.ir import nodes as n
from policyc.ir.walk import has_future, subformulas
from policyc.scoring.shapes import is_event_like
from policyc.trace.model import Trace

DETECTABLE, OFFLINE_ONLY = "detectable", "offline-only"


@cache
def _automata(name: str) -> Callable | None:
    try:
        module = importlib.import_module("policyc.automata")
    except ImportError:
        return None
    fn = getattr(module, name, None)
    return fn if callable(fn) else None


def violated_at(formula: n.Formula, trace: Trace, externs: Mapping[str, Callable] | None = None) -> int:
    """The 1-based call after which the (failed) rule could no longer be satisfied.

    >>> from policyc.trace import Trace
    >>> violated_at(b.eventually(b.event("x")), Trace.of(("a", {}), ("b", {})))
    2
    """
    first_violation = _automata("first_violation")
    if first_violation is not None:
        try:
            k = first_violation(formula, trace, externs=externs)
        except Exception:  # noqa: BLE001 - an engine's failure must not stop scoring; fall back
            k = None
        if isinstance(k, int) and 0 <= k <= len(trace):
            return k
    found = certain_prefix(formula, trace, externs)
    return len(trace) if found is None else found


def certain_prefix(formula: n.Formula, trace: Trace, externs: Mapping[str, Callable] | None = None) -> int | None:
    """The length of the shortest prefix of the trace on which a (failed) rule already fails
    and can never hold again, by the evaluator; None when the evaluator cannot tell (the rule
    is not of a shape whose failure on a prefix is final, or it holds on the whole trace).

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
    if not is_final_on_prefixes(formula):
        return None
    from policyc.semantics.positions import PositionEvaluator

    def fails(k: int) -> bool:
        return not PositionEvaluator(trace.prefix(k), externs).holds(formula)

    n_calls = len(trace)
    try:
        if not fails(n_calls):
            return None
        low, high = 0, n_calls  # fails(high); the first failing prefix is in [low, high]
        while low < high:
            mid = (low + high) // 2
            if fails(mid):
                high = mid
            else:
                low = mid + 1
        if high > 0 and fails(high - 1):
            return None  # not monotone after all: do not guess
        return high
    except Exception:  # noqa: BLE001 - an extern's failure, too deep a formula: the evaluator cannot tell
        return None


def is_final_on_prefixes(formula: n.Formula) -> bool:
    """Whether failing on a prefix means failing on every extension: a syntactic safety
    formula whose data does not change as calls are added (no `outputs`, and trace-wide
    domains only as the domains of quantifiers, which only grow)."""
    if not is_safety(formula, True):
        return False
    for sub in subformulas(formula):
        if isinstance(sub, n.Outputs):
            return False
        if isinstance(sub, (n.Cond, n.Event)) and any(isinstance(t, n.Values) for t in subformulas(sub)):
            return False
        if isinstance(sub, (n.Forall, n.Exists)) and any(
                isinstance(t, (n.Outputs, n.Extern)) or isinstance(t, n.Op) and t.op not in ("add", "list")
                for t in subformulas(sub.domain)):
            return False
    return True


def automaton_verdict(formula: n.Formula, trace: Trace,
                      externs: Mapping[str, Callable] | None = None) -> tuple[bool, int] | None:
    """(whether the rule holds, `violated_at` when it does not) in one pass of the rule's
    automaton; None when the rule is not compiled (the evaluator decides it then).

    >>> from policyc.trace import Trace
    >>> automaton_verdict(b.eventually(b.event("x")), Trace.of(("a", {}), ("b", {})))
    (False, 2)
    """
    run_rule = _automata("run_rule")
    if run_rule is None:
        return None
    try:
        found = run_rule(formula, trace, externs)
    except Exception:  # noqa: BLE001 - an engine's failure must not stop scoring; fall back
        return None
    if found is None:
        return None
    holds, bad = found
    return bool(holds), len(trace) if bad is None or not 0 <= bad <= len(trace) else bad


def rule_class(formula: n.Formula, tools: Mapping | None = None) -> str | None:
    """gateable / detectable / offline-only from the automata, else `syntactic_class`."""
    classify = _automata("rule_class")
    if classify is not None:
        try:
            found = classify(formula, tools)
        except Exception:  # noqa: BLE001 - fall back to the estimate
            found = None
        if isinstance(found, str):
            return found
    return syntactic_class(formula)


def syntactic_class(formula: n.Formula) -> str | None:
    """An estimate of the rule class from the formula's syntax alone.

    `detectable` for syntactic safety formulas (every violation shows on a finite prefix),
    `offline-only` for eventualities of single calls (`called(x)`: no prefix is ever bad),
    otherwise None (unknown).

    >>> syntactic_class(b.always(b.implies(b.event("a"), b.once(b.event("b"))))), syntactic_class(b.eventually(b.event("a")))
    ('detectable', 'offline-only')
    """
    if _uses_trace_wide_data(formula):
        return None
    if is_safety(formula, True):
        return DETECTABLE
    if _is_eventuality(formula):
        return OFFLINE_ONLY
    return None


def _uses_trace_wide_data(f: n.Formula) -> bool:
    """Conditions on whole-trace values (domains inside conditions, outputs, metrics) can change
    with later calls, so prefixes alone say nothing about them."""
    for sub in subformulas(f):
        if isinstance(sub, (n.Cond, n.Event)):
            if any(isinstance(t, (n.Values, n.Outputs, n.Metric, n.Request)) for t in subformulas(sub)):
                return True
    return False


def is_safety(f: n.Formula, positive: bool) -> bool:  # noqa: C901 - one case per operator
    """Syntactic safety (Sistla), on finite traces with strong and weak next."""
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


def _is_eventuality(f: n.Formula) -> bool:
    if b.is_eventually(f):
        return is_event_like(f.right)
    if isinstance(f, (n.And, n.Or)):
        return all(_is_eventuality(a) for a in f.args)
    if isinstance(f, n.Forall):
        return _is_eventuality(f.body)
    return False
