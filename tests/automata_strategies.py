"""Hypothesis strategies for the automata's differential tests: rules and traces.

Formulas use every core operator (future and past, strong and weak), five tools, guards on
an argument `x`, on the result and on the event's attributes (who made it, its message,
whether it failed, which like the result is known only once the call ran), and quantifiers
whose variable is bound by `x == o`, `x != o` or `result == o`. Traces draw calls from a small
pool of representative calls that realise every guard combination the formulas can tell
apart, some of them by the user, in a message, or failed.
"""

from __future__ import annotations

import os

from hypothesis import strategies as st

from policyc.ir import build as b
from policyc.ir import nodes as n
from policyc.ir.data import CallArgs
from policyc.ir.ops import UNDEF
from policyc.trace import Trace

TOOLS = ("a", "b", "c", "d")
OTHER_TOOL = "e"  # named by no formula
CONSTANTS = (0, 1, 2)
X_VALUES = (-1, 0, 1, 2, 3, None)  # None: the argument is missing
RESULTS = (0, 1, UNDEF)
NIGHTLY = bool(os.environ.get("POLICYC_NIGHTLY"))

ATTRIBUTES = ({"actor": "user"}, {"error": True}, {"message_id": "m1"})

POOL = tuple((tool, {} if x is None else {"x": x}, r)
             for tool in TOOLS + (OTHER_TOOL,) for x in X_VALUES for r in RESULTS) + tuple(
    (tool, CallArgs({"x": x}, attrs), r)
    for tool in TOOLS + (OTHER_TOOL,) for x in (0, 1) for r in (0, UNDEF) for attrs in ATTRIBUTES)


def call_strategy():
    return st.sampled_from(POOL)


def trace_strategy(max_len: int = 30):
    return st.lists(call_strategy(), max_size=max_len).map(lambda calls: Trace.of(*calls))


def _compare(draw, left):
    op = draw(st.sampled_from(("eq", "ne", "lt", "gt", "le", "ge")))
    return b.op(op, left, b.lit(draw(st.sampled_from(CONSTANTS))))


@st.composite
def guard(draw, var: str | None = None):
    kind = draw(st.integers(0, 11))
    if kind <= 2:
        return b.LIT_TRUE
    if kind == 10:  # an attribute known before the call runs, or (`error`) only after
        return draw(st.sampled_from((b.op("eq", b.attr("actor"), b.lit("user")), b.attr("error"),
                                     b.op("eq", b.attr("message_id"), b.lit("m1")),
                                     b.op("not", b.attr("error")))))
    if kind == 11 and var is not None:
        return b.op("and", b.op("eq", b.arg("x"), b.var(var)), b.op("ne", b.attr("actor"), b.lit("user")))
    if kind <= 5:
        g = _compare(draw, b.arg("x"))
    elif kind == 6:
        g = b.op("eq", b.result(), b.lit(draw(st.sampled_from((0, 1)))))
    elif kind == 7 and var is not None:
        g = b.op(draw(st.sampled_from(("eq", "ne"))), b.arg("x"), b.var(var))
    elif kind == 8 and var is not None:
        g = b.op("eq", b.result(), b.var(var))
    else:
        g = b.op(draw(st.sampled_from(("and", "or"))), _compare(draw, b.arg("x")),
                 b.op("not", _compare(draw, b.arg("x"))))
    return g


@st.composite
def event(draw, var: str | None = None):
    return b.event(draw(st.sampled_from(TOOLS)), draw(guard(var)))


@st.composite
def past_formula(draw, depth: int, var: str | None = None):
    if depth <= 0 or draw(st.integers(0, 3)) == 0:
        return draw(event(var))
    sub = lambda: draw(past_formula(depth - 1, var))  # noqa: E731
    kind = draw(st.integers(0, 7))
    if kind == 0:
        return b.neg(sub())
    if kind == 1:
        return b.conj(sub(), sub())
    if kind == 2:
        return b.disj(sub(), sub())
    if kind == 3:
        return b.yesterday(sub())
    if kind == 4:
        return b.wyesterday(sub())
    if kind == 5:
        return b.since(sub(), sub())
    if kind == 6:
        return b.trigger(sub(), sub())
    return b.once(sub()) if draw(st.booleans()) else b.historically(sub())


@st.composite
def formula(draw, depth: int = 3, var: str | None = None):
    """A quantifier-free formula (with `var` free in binding atoms when given)."""
    if depth <= 0 or draw(st.integers(0, 4)) == 0:
        if var is not None and draw(st.integers(0, 5)) == 0:
            return b.cond(b.op(draw(st.sampled_from(("eq", "gt"))), b.var(var), b.lit(draw(st.sampled_from(CONSTANTS)))))
        return draw(event(var)) if draw(st.integers(0, 3)) else draw(past_formula(2, var))
    sub = lambda: draw(formula(depth - 1, var))  # noqa: E731
    kind = draw(st.integers(0, 12))
    if kind == 0:
        return b.neg(sub())
    if kind == 1:
        return b.conj(sub(), sub())
    if kind == 2:
        return b.disj(sub(), sub())
    if kind == 3:
        return b.next_(sub())
    if kind == 4:
        return b.wnext(sub())
    if kind == 5:
        return b.until(sub(), sub())
    if kind == 6:
        return b.release(sub(), sub())
    if kind == 7:
        return b.eventually(sub())
    if kind == 8:
        return b.always(sub())
    if kind == 9:
        return b.weak_until(sub(), sub())
    if kind == 10:
        return b.implies(sub(), sub())
    return draw(past_formula(2, var))


@st.composite
def quantified(draw, depth: int = 3):
    """A rule with a quantifier at the top, under `always`, or beside a plain part."""
    var = "o"
    tools = draw(st.lists(st.sampled_from(TOOLS), min_size=1, max_size=2, unique=True))
    domain = b.values(tools[0], ("x",))
    for t in tools[1:]:
        domain = b.op("add", domain, b.values(t, ("x",)))
    if draw(st.integers(0, 5)) == 0:
        domain = b.op("add", domain, b.lit([draw(st.sampled_from(CONSTANTS))]))
    body = draw(formula(depth, var))
    q = (b.forall if draw(st.booleans()) else b.exists)(var, None, domain, body)
    shape = draw(st.integers(0, 3))
    if shape == 1 and isinstance(q, n.Forall):
        return b.always(q)
    if shape == 2:
        return b.conj(draw(formula(2)), q)
    if shape == 3:
        return b.neg(q)
    return q
