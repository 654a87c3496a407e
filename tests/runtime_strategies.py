"""Hypothesis strategies for the runtime's property tests: small policies over four tools
(`done` is terminal), their traces, and a brute-force oracle over every continuation.

Some calls fail (their `error` attribute, known like the result only once they ran), and
some rules read that flag."""

from __future__ import annotations

import itertools
import os
from functools import lru_cache

from hypothesis import strategies as st

from policyc.artifact.build import build_artifact
from policyc.ir import build as b
from policyc.ir.data import CallArgs, attributes
from policyc.ir.policy import Policy, Rule, Severity
from policyc.ir.types import BOOL, INT, OptionalT, Param, RecordT, STR, ToolSignature
from policyc.runtime import Monitor
from policyc.semantics import evaluate
from policyc.trace.model import Trace

#: Examples per property test: moderate in CI, many more with POLICYC_NIGHTLY=1.
EXAMPLES = 1500 if os.environ.get("POLICYC_NIGHTLY") else 60

RESULT = RecordT("Outcome", (("ok", BOOL),))
TOOLS = {name: ToolSignature(name, (Param("n", OptionalT(INT)),), RESULT) for name in "abc"}
TOOLS["done"] = ToolSignature("done", (Param("answer", OptionalT(STR)),), RESULT, terminal=True)

#: The letters a call can be: a tool, its argument n, its result's ok, and whether it failed.
CALLS = [(t, {"n": n}, {"ok": ok}) for t in "abc" for n in (1, 2) for ok in (True, False)] + [
    (t, CallArgs({"n": 1}, {"error": True}), {"ok": False}) for t in "ab"]
FINALS = [("done", {}, {"ok": ok}) for ok in (True, False)]

EVENTS = st.sampled_from([
    b.event("a"), b.event("b"), b.event("c"), b.event("done"),
    b.event("a", b.op("eq", b.arg("n"), b.lit(1))),
    b.event("b", b.op("gt", b.arg("n"), b.lit(1))),
    b.event("c", b.op("eq", b.field(b.result(), "ok"), b.lit(True))),
    b.event("a", b.op("eq", b.field(b.result(), "ok"), b.lit(False))),
    b.event("a", b.attr("error")),
    b.event("b", b.op("not", b.attr("error"))),
])

UNARY = [b.neg, b.next_, b.wnext, b.eventually, b.always, b.yesterday, b.once, b.historically]
BINARY = [b.conj, b.disj, b.until, b.release, b.since, b.implies]


def _extend(children):
    return st.one_of(
        st.tuples(st.sampled_from(UNARY), children).map(lambda p: p[0](p[1])),
        st.tuples(st.sampled_from(BINARY), children, children).map(lambda p: p[0](p[1], p[2])),
    )


FORMULAS = st.recursive(EVENTS, _extend, max_leaves=5)

#: Rule shapes a policy author writes: safety, ordering, response, liveness, counting.
TEMPLATES = st.one_of(
    st.tuples(EVENTS, EVENTS).map(lambda p: b.always(b.implies(p[0], b.once(p[1])))),
    st.tuples(EVENTS, EVENTS).map(lambda p: b.until(b.neg(p[1]), b.conj(p[0], b.neg(p[1]), b.eventually(p[1])))),
    st.tuples(EVENTS, EVENTS).map(lambda p: b.always(b.implies(p[0], b.always(b.neg(p[1]))))),
    st.tuples(EVENTS, EVENTS).map(lambda p: b.always(b.implies(p[0], b.eventually(p[1])))),
    EVENTS.map(b.eventually),
    EVENTS.map(lambda e: b.always(b.neg(e))),
    EVENTS.map(lambda e: b.neg(b.eventually(b.conj(e, b.next_(b.eventually(e)))))),
)

def _per_value(kind, first: str, then: str, response: bool):
    """`forall o in first.n + then.n: always (then(n: o) -> once first(n: o))` and its kin."""
    o = b.var("o")
    ev = lambda tool: b.event(tool, b.op("eq", b.arg("n"), o))  # noqa: E731
    body = b.always(b.implies(ev(first), b.eventually(ev(then)))) if response else \
        b.always(b.implies(ev(then), b.once(ev(first))))
    domain = b.op("add", b.values(first, ("n",)), b.values(then, ("n",)))
    return (b.forall if kind == "forall" else b.exists)("o", INT, domain, body)


#: Rules over values bound in patterns, monitored by parametric slicing.
SLICED = st.tuples(st.sampled_from(["forall", "exists"]), st.sampled_from("abc"), st.sampled_from("abc"),
                   st.booleans()).filter(lambda p: p[1] != p[2]).map(lambda p: _per_value(*p))

SEVERITIES = st.sampled_from([Severity("warn"), Severity("block"), Severity("soft_block", 2), Severity("tolerate")])


@st.composite
def policies(draw, min_rules: int = 1, max_rules: int = 3):
    formulas = draw(st.lists(st.one_of(TEMPLATES, FORMULAS, SLICED), min_size=min_rules, max_size=max_rules))
    rules = tuple(Rule(f"r{i}", f, float(draw(st.integers(1, 4))), draw(st.sampled_from(["L3", "L5", None])),
                       draw(SEVERITIES)) for i, f in enumerate(formulas))
    return Policy("generated", None, dict(TOOLS), rules)


@st.composite
def traces(draw, max_len: int = 8):
    calls = draw(st.lists(st.sampled_from(CALLS), max_size=max_len))
    if draw(st.booleans()):
        calls.append(draw(st.sampled_from(FINALS)))
    return calls


_MONITORS: dict = {}


def monitor_for(policy: Policy) -> Monitor:
    key = tuple((r.name, r.formula, r.severity) for r in policy.rules)
    if key not in _MONITORS:
        _MONITORS[key] = Monitor(build_artifact(policy, "sha256:generated"))
    return _MONITORS[key]


def trace_of(calls) -> Trace:
    return Trace.of(*calls)


def error_of(args) -> bool:
    """Whether a call of the pool failed."""
    return bool(attributes(args)["error"])


def failed(args, error: bool):
    """The arguments of a call, failed or not."""
    return CallArgs(args, {"error": True}) if error else dict(args)


@lru_cache(maxsize=200_000)
def _holds(formula, calls: tuple) -> bool:
    return evaluate(formula, Trace.of(*[(t, failed(dict(a), e), dict(r)) for t, a, r, e in calls]))


def frozen(calls) -> tuple:
    return tuple((t, tuple(sorted(a.items())), tuple(sorted(r.items())), error_of(a)) for t, a, r in calls)


def holds(formula, calls) -> bool:
    return _holds(formula, frozen(calls))


def continuations(length: int, final_last: bool):
    """Every continuation up to `length` calls; with `final_last`, `done` only at the end."""
    for k in range(length + 1):
        for middle in itertools.product(CALLS if final_last else CALLS + FINALS, repeat=k):
            yield list(middle)
            if final_last:
                for f in FINALS:
                    yield list(middle) + [f]


def some_continuation_satisfies(formulas, prefix, length: int, final_last: bool) -> bool:
    return any(all(holds(f, prefix + w) for f in formulas) for w in continuations(length, final_last))
