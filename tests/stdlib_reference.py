"""Direct Python implementations of the AgentLTL paper's predicates (appendix A.1.4, A.2.2)
and of the DECLARE templates in their standard LTLf reading, over plain call lists.

They are written from the definitions, not from stdlib/*.altl, so that tests can compare the
two. An event is (tool, condition) where condition is None or a function of the call.
"""

from __future__ import annotations

from typing import Callable, Sequence

from policyc.ir.ops import values_equal

Call = tuple[str, dict, object]  # (name, args, result)
Ev = Callable[[Call], bool]


def positions(trace: Sequence[Call], t: Ev) -> list[int]:
    return [i for i, c in enumerate(trace) if t(c)]


def first(trace, t):
    """first(t) = min{i : c_i matches t}, or None (⊥)."""
    found = positions(trace, t)
    return found[0] if found else None


def nth(trace, t, k):
    """nth(t, k): the position of the (k+1)-th match, or None (⊥)."""
    found = positions(trace, t)
    return found[k] if 0 <= k < len(found) else None


def first_after(trace, t, i):
    """first_after(t, i) = min{j >= i : c_j matches t}, or None (⊥)."""
    later = [j for j in positions(trace, t) if j >= i]
    return later[0] if later else None


def lt(a, b) -> bool:
    """a < b, false when either side is ⊥."""
    return a is not None and b is not None and a < b


# ---------------------------------------------------------------- appendix A.2.2

def called(tr, t):
    return first(tr, t) is not None


def never(tr, t):
    return not called(tr, t)


def at_least(tr, t, n):
    return len(positions(tr, t)) >= n


COMPARE = {"==": lambda a, b: a == b, "!=": lambda a, b: a != b, ">=": lambda a, b: a >= b,
           "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, "<": lambda a, b: a < b}


def called_n(tr, t, op, n):
    return COMPARE[op](len(positions(tr, t)), n)


def before(tr, t1, t2):
    return lt(first(tr, t1), first(tr, t2))


def after(tr, t1, t2):
    return lt(first(tr, t2), first(tr, t1))


def all_before(tr, ts, g):
    return all(lt(first(tr, t), first(tr, g)) for t in ts)


def instance_before(tr, t1, n, t2, m):
    return lt(nth(tr, t1, n), nth(tr, t2, m))


def in_order(tr, ts):
    i = 0
    for t in ts:
        nxt = first_after(tr, t, i)
        if nxt is None:
            return False
        i = nxt + 1
    return True


def within_steps(tr, t1, t2, k):
    start = first(tr, t1)
    if start is None:
        return False
    end = first_after(tr, t2, start)
    return end is not None and end - start <= k


def called_with(tr, t):
    return called(tr, t)


def called_with_result(tr, t, r):
    return any(t(c) and values_equal(c[2], r) for c in tr)


def branch_called(tr, taken, forbidden):
    return called(tr, taken) and not called(tr, forbidden)


# ---------------------------------------------------------------- DECLARE (standard LTLf reading)

def _count(tr, a):
    return len(positions(tr, a))


def existence(tr, a):
    return _count(tr, a) >= 1


def existence_n(tr, a, n):
    return _count(tr, a) >= n


def absence(tr, a):
    return _count(tr, a) == 0


def absence_n(tr, a, n):
    return _count(tr, a) < n


def exactly(tr, a, n):
    return _count(tr, a) == n


def init(tr, a):
    return bool(tr) and a(tr[0])


def end(tr, a):
    return bool(tr) and a(tr[-1])


def responded_existence(tr, a, b):
    return not existence(tr, a) or existence(tr, b)


def co_existence(tr, a, b):
    return existence(tr, a) == existence(tr, b)


def response(tr, a, b):
    return all(first_after(tr, b, i) is not None for i in positions(tr, a))


def precedence(tr, a, b):
    return all(any(a(tr[j]) for j in range(i)) for i in positions(tr, b))


def succession(tr, a, b):
    return response(tr, a, b) and precedence(tr, a, b)


def alternate_response(tr, a, b):
    for i in positions(tr, a):
        j = first_after(tr, b, i + 1)
        if j is None or any(a(tr[k]) for k in range(i + 1, j)):
            return False
    return True


def alternate_precedence(tr, a, b):
    bs = positions(tr, b)
    for prev, cur in zip([-1] + bs, bs):
        if not any(a(tr[k]) for k in range(prev + 1, cur)):
            return False
    return True


def alternate_succession(tr, a, b):
    return alternate_response(tr, a, b) and alternate_precedence(tr, a, b)


def chain_response(tr, a, b):
    return all(i + 1 < len(tr) and b(tr[i + 1]) for i in positions(tr, a))


def chain_precedence(tr, a, b):
    return all(i > 0 and a(tr[i - 1]) for i in positions(tr, b))


def chain_succession(tr, a, b):
    return chain_response(tr, a, b) and chain_precedence(tr, a, b)


def not_coexistence(tr, a, b):
    return not (existence(tr, a) and existence(tr, b))


def not_succession(tr, a, b):
    return all(first_after(tr, b, i) is None for i in positions(tr, a))


def not_chain_succession(tr, a, b):
    return not any(i + 1 < len(tr) and b(tr[i + 1]) for i in positions(tr, a))


def choice(tr, a, b):
    return existence(tr, a) or existence(tr, b)


def exclusive_choice(tr, a, b):
    return choice(tr, a, b) and not_coexistence(tr, a, b)
