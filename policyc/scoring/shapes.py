"""Recognise the stdlib predicates in a rule's core formula, to describe them in reports.

The checker expands `before(a, b)` and friends into core IR; these functions find them again
by their shape (as stdlib/prelude.altl writes them, after the smart constructors' folding),
so a report can say '"tool_a" (call #1) before "tool_d" (call #5).' instead of printing the
expansion. They only read formulas; a shape that is not recognised gets a generic detail.
tests/test_scoring_shapes.py compiles every prelude predicate and checks it is recognised.

>>> from policyc.ir import build as b
>>> a, d = b.event("a"), b.event("d")
>>> as_before(b.until(b.neg(d), b.conj(a, b.eventually(d)))) == (a, d)
True
>>> as_count(b.conj(b.eventually(b.conj(a, b.next_(b.eventually(a)))),
...                 b.neg(b.eventually(b.conj(a, b.next_(b.eventually(b.conj(a, b.next_(b.eventually(a))))))))))
(a, '==', 2)
"""

from __future__ import annotations

from functools import lru_cache

from policyc.ir import build as b
from policyc.ir import nodes as n
from policyc.ir.walk import subformulas


@lru_cache(maxsize=65536)
def is_event_like(f: n.Formula) -> bool:
    """A condition on the call at one position: events combined by not/and/or."""
    if isinstance(f, n.Event):
        return True
    if isinstance(f, n.Not):
        return is_event_like(f.arg)
    if isinstance(f, (n.And, n.Or)):
        return all(is_event_like(a) for a in f.args)
    return False


@lru_cache(maxsize=65536)
def as_called(f: n.Formula) -> n.Formula | None:
    """called(t) = F t."""
    if b.is_eventually(f) and is_event_like(f.right):
        return f.right
    return None


@lru_cache(maxsize=65536)
def as_never(f: n.Formula) -> n.Formula | None:
    """never(t) = G not t, or not F t."""
    if b.is_always(f) and isinstance(f.right, n.Not) and is_event_like(f.right.arg):
        return f.right.arg
    if isinstance(f, n.Not):
        return as_called(f.arg)
    return None


@lru_cache(maxsize=65536)
def as_at_least(f: n.Formula) -> tuple[n.Formula, int] | None:
    """at_least(t, k) = F (t and X at_least(t, k - 1)), at_least(t, 1) = F t."""
    e = as_called(f)
    if e is not None and not (isinstance(e, n.And) and any(isinstance(a, n.Next) for a in e.args)):
        return e, 1
    if not (b.is_eventually(f) and isinstance(f.right, n.And)):
        return None
    nexts = [a for a in f.right.args if isinstance(a, n.Next)]
    rest = [a for a in f.right.args if not isinstance(a, n.Next)]
    if len(nexts) != 1 or not rest:
        return None
    inner = as_at_least(nexts[0].arg)
    event = b.conj(*rest)
    if inner is None or inner[0] is not event or not is_event_like(event):
        return None
    return event, inner[1] + 1


@lru_cache(maxsize=65536)
def as_count(f: n.Formula) -> tuple[n.Formula, str, int] | None:
    """called_n(t) OP k, as (t, OP, k) with OP one of >=, <, ==, != (>, <= read as >=, <)."""
    hit = as_at_least(f)
    if hit is not None:
        return hit[0], ">=", hit[1]
    if isinstance(f, n.Not):
        hit = as_at_least(f.arg)
        if hit is not None:
            return hit[0], "<", hit[1]
        inner = as_count(f.arg)
        if inner is not None and inner[1] == "==":
            return inner[0], "!=", inner[2]
    if isinstance(f, n.And) and len(f.args) == 2:
        parts = [count for count in (as_count(a) for a in f.args) if count is not None]
        if len(parts) == 2:
            (e1, op1, k1), (e2, op2, k2) = sorted(parts, key=lambda p: p[1] != ">=")
            if e1 is e2 and op1 == ">=" and op2 == "<" and k2 == k1 + 1:
                return e1, "==", k1
    return None


@lru_cache(maxsize=65536)
def as_before(f: n.Formula) -> tuple[n.Formula, n.Formula] | None:
    """before(t1, t2) = not t2 U (t1 and not t2 and F t2), as (t1, t2)."""
    if not (isinstance(f, n.Until) and isinstance(f.left, n.Not) and is_event_like(f.left.arg)):
        return None
    second = f.left.arg
    parts = f.right.args if isinstance(f.right, n.And) else (f.right,)
    later = b.eventually(second)
    if later not in parts:
        return None
    rest = [p for p in parts if p is not later and p is not f.left]
    first = b.conj(*rest) if rest else None
    if first is None or not is_event_like(first):
        return None
    return first, second


@lru_cache(maxsize=65536)
def as_all_before(f: n.Formula) -> tuple[tuple[n.Formula, ...], n.Formula] | None:
    """all_before([t...], g): before(t, g) for each t, as ([t...], g)."""
    if not isinstance(f, n.And):
        return None
    pairs = [as_before(a) for a in f.args]
    if not all(pairs) or len({p[1] for p in pairs}) != 1:  # type: ignore[index]
        return None
    return tuple(p[0] for p in pairs), pairs[0][1]  # type: ignore[index]


@lru_cache(maxsize=65536)
def as_in_order(f: n.Formula) -> tuple[n.Formula, ...] | None:
    """in_order([t1, ..., tk]) = F (t1 and X in_order([t2, ..., tk])), k >= 2."""
    e = as_called(f)
    if e is not None:
        return (e,)
    if not (b.is_eventually(f) and isinstance(f.right, n.And)):
        return None
    nexts = [a for a in f.right.args if isinstance(a, n.Next)]
    rest = [a for a in f.right.args if not isinstance(a, n.Next)]
    if len(nexts) != 1 or not rest or not is_event_like(b.conj(*rest)):
        return None
    tail = as_in_order(nexts[0].arg)
    return None if tail is None else (b.conj(*rest),) + tail


@lru_cache(maxsize=65536)
def _as_within(f: n.Formula) -> tuple[n.Formula, int] | None:
    """within(t, k) = t or X within(t, k - 1), within(t, 0) = t."""
    if is_event_like(f) and not (isinstance(f, n.Or) and any(isinstance(a, n.Next) for a in f.args)):
        return f, 0
    if not isinstance(f, n.Or):
        return None
    nexts = [a for a in f.args if isinstance(a, n.Next)]
    rest = [a for a in f.args if not isinstance(a, n.Next)]
    if len(nexts) != 1 or not rest:
        return None
    inner = _as_within(nexts[0].arg)
    event = b.disj(*rest)
    if inner is None or inner[0] is not event:
        return None
    return event, inner[1] + 1


@lru_cache(maxsize=65536)
def as_within_steps(f: n.Formula) -> tuple[n.Formula, n.Formula, int] | None:
    """within_steps(t1, t2, k) = not t1 U (t1 and within(t2, k)), as (t1, t2, k)."""
    if not (isinstance(f, n.Until) and isinstance(f.left, n.Not) and is_event_like(f.left.arg)):
        return None
    start = f.left.arg
    if not isinstance(f.right, n.And) or start not in f.right.args:
        return None
    rest = [a for a in f.right.args if a is not start]
    window = _as_within(b.conj(*rest)) if rest else None
    if window is None:
        return None
    return start, window[0], window[1]


@lru_cache(maxsize=65536)
def as_branch(f: n.Formula) -> tuple[n.Formula, n.Formula] | None:
    """branch_called(taken, forbidden) = F taken and not F forbidden."""
    if not (isinstance(f, n.And) and len(f.args) == 2):
        return None
    taken = [as_called(a) for a in f.args]
    forbidden = [as_never(a) if isinstance(a, n.Not) else None for a in f.args]
    for i in (0, 1):
        if taken[i] is not None and forbidden[1 - i] is not None:
            return taken[i], forbidden[1 - i]  # type: ignore[return-value]
    return None


TEMPORAL = (n.Next, n.WNext, n.Until, n.Release, n.Yesterday, n.WYesterday, n.Since, n.Trigger)


@lru_cache(maxsize=65536)
def is_state(f: n.Formula) -> bool:
    """A condition on one position and the run's constants (no temporal operator in it)."""
    return not any(isinstance(g, TEMPORAL) for g in subformulas(f))


@lru_cache(maxsize=65536)
def is_constant(f: n.Formula) -> bool:
    """A condition on the run's constants alone (its request, its metrics): no event, no
    temporal operator."""
    return not any(isinstance(g, TEMPORAL + (n.Event,)) for g in subformulas(f))


@lru_cache(maxsize=65536)
def as_implication(f: n.Formula) -> tuple[n.Formula, n.Formula] | None:
    """trigger -> consequence, as written by the smart constructors: not t or c.

    The constructors keep no order, and a negation is also how a consequence may read (`b ->
    not eventually a`, a count `<= k`), while `not c -> x` loses its negation (`c or x`). So:
    among negations, those of conditions on one position (no temporal operator) are the
    trigger when others are temporal; when every negation is temporal, a condition on the run's
    constants beside them is a negated trigger (`if metrics.x > 1 then A else B`); otherwise
    every negation is (as before). A rule of negations alone, all of one kind, has none
    (`not_coexistence`). The one reading this gets backwards: `always (once a -> not b)` is
    read with trigger `b`.

    >>> from policyc.ir.printer import show
    >>> a, c = b.event("a"), b.event("c")
    >>> [show(x) for x in as_implication(b.implies(a, b.once(c)))]
    ['a', 'O c']
    >>> [show(x) for x in as_implication(b.implies(a, b.neg(b.eventually(c))))]
    ['a', 'not F c']
    >>> as_implication(b.disj(b.neg(b.eventually(a)), b.neg(b.eventually(c)))) is None
    True
    """
    if not isinstance(f, n.Or):
        return None
    negs = [a for a in f.args if isinstance(a, n.Not)]
    rest = [a for a in f.args if not isinstance(a, n.Not)]
    if not negs:
        return None
    state = [a for a in negs if is_state(a.arg)]
    if 0 < len(state) < len(negs):  # `t -> not F c`, `t -> called_n(x) <= k`
        return b.conj(*(a.arg for a in state)), b.disj(*(a for a in f.args if a not in state))
    if not rest:
        return None
    if not state:
        constants = [a for a in rest if is_constant(a)]
        if constants:  # `not c -> A`, written `c or A`
            return b.conj(*(b.neg(a) for a in constants)), b.disj(*(a for a in f.args if a not in constants))
    return b.conj(*(a.arg for a in negs)), b.disj(*rest)


def events_in(f: n.Formula) -> list[n.Event]:
    """The event atoms of an event-like formula, in order."""
    if isinstance(f, n.Event):
        return [f]
    return [e for c in f.children if isinstance(c, n.Formula) for e in events_in(c)]
