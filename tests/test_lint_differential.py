"""The lint against brute force: random small policies, every trace up to a length.

Policies are drawn from the rule shapes authors write (precedence, response, counts, guards
on arguments, past operators, rules over values bound in patterns, conditions on the
metrics record), with random severities. Every trace of up to `LENGTH` calls over the
policy's tools (arguments from a domain that covers every guard, a terminal call only
last) and every metrics record of a small domain is enumerated, and each finding is checked
on all of them with the reference evaluator:

- L0001: no trace satisfies the rule; L0002: none satisfies the set, and the witness shown
  satisfies the set without the rule it names; L0003: every trace that satisfies the
  implying rules satisfies the rule; L0004: the rule holds on every trace, or no compliant
  trace has the trigger the finding names; L0005: no compliant trace calls the tool;
  L0006 (no call can violate it for certain): no run ending with the terminal call fails it.

A finding marked exact may not be refuted by any trace; one that holds "up to traces of
length k" may not be refuted by a trace of at most k calls. Zero false positives.
"""

from __future__ import annotations

import pytest
import itertools
import os
import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from policyc.check import check_text
from policyc.lint import LintOptions, lint_policy
from policyc.lint.claims import trigger_happens
from policyc.lint.findings import quoted
from policyc.lint.rewrite import implications
from policyc.semantics.evaluator import evaluate
from policyc.trace.model import Call, Trace

NIGHTLY = bool(os.environ.get("POLICYC_NIGHTLY"))
EXAMPLES = 300 if NIGHTLY else 25
LENGTH = 4 if NIGHTLY else 3

HEADER = "policy random\n\ntool a(n: int)\ntool b(n: int)\ntool c(n: int)\nterminal tool done()\n\n"
CALLS = [Call(t, {"n": v}) for t in "abc" for v in (1, 2, 6)]
FINAL = Call("done", {})
METRICS = [{}, {"tier": "gold"}, {"tier": "basic"}]

EVENTS = ["a", "b", "c", "a(n: 1)", "b(n > 5)", "c(n != 1)", "a or b"]
SHAPES = [
    "always ({0} -> once {1})",
    "always ({0} -> eventually {1})",
    "always ({0} -> weak next not {1})",
    "always ({0} -> historically not {1})",
    "always ({0} -> (not {1} since {2}))",
    "never({0})",
    "called({0})",
    "called_n({0}) <= {k}",
    "called_n({0}) >= {k}",
    "before({0}, {1})",
    "not {1} weak until {0}",
    "always (b(n: o) -> once a(n: o))",
    "always (a(n: o) -> eventually c(n: o))",
    "forall o in a.n: never(c(n: o))",
    'if metrics.tier == "gold" then called({0}) else never({0})',
    'if metrics.tier in ["gold", "silver"] then always ({0} -> once {1}) else true',
]


@st.composite
def policies(draw):
    rules = []
    for i in range(draw(st.integers(1, 4))):
        shape = draw(st.sampled_from(SHAPES))
        events = [f"({draw(st.sampled_from(EVENTS))})" for _ in range(3)]
        body = shape.format(*events, k=draw(st.integers(0, 3)))
        severity = draw(st.sampled_from(["", " severity block"]))
        rules.append(f"rule r{i}{severity}: {body}")
    return HEADER + "\n".join(rules) + "\n"


def every_trace(length: int):
    for metrics in METRICS:
        for k in range(length + 1):
            for middle in itertools.product(CALLS, repeat=k):
                yield _trace(middle, metrics)
                if k < length:
                    yield _trace(middle + (FINAL,), metrics)


def _trace(calls, metrics) -> Trace:
    return Trace(tuple(Call(c.name, c.args, c.result, i) for i, c in enumerate(calls)), metrics)


def _within(finding, trace: Trace) -> bool:
    """Whether the finding's claim covers this trace (a bounded one only up to its bound)."""
    s = finding.strength
    return s.exact or s.bound is None or len(trace.calls) <= s.bound


@pytest.mark.slow
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(policies())
def test_findings_hold_on_every_short_trace(src):
    policy, diagnostics = check_text(src, "random.altl")
    assert policy is not None, diagnostics
    report = lint_policy(policy, LintOptions(bound=LENGTH))
    rules = {r.name: r.formula for r in policy.rules}
    traces = list(every_trace(LENGTH))
    truth = {(name, i): evaluate(phi, t) for name, phi in rules.items() for i, t in enumerate(traces)}
    unsat = {f.rules[0] for f in report.findings if f.code == "L0001"}
    compliant = [i for i in range(len(traces)) if all(truth[(r, i)] for r in rules if r not in unsat)]
    for f in report.findings:
        for caption, witness in f.witnesses:  # every trace a finding shows replays
            assert witness.confirmed, (src, f.message, caption)
        check = _CHECKS.get(f.code)
        if check is not None:
            check(f, policy, traces, truth, compliant, src)


def _l0001(f, policy, traces, truth, compliant, src):
    assert not any(truth[(f.rules[0], i)] for i, t in enumerate(traces) if _within(f, t)), (src, f.message)


def _l0002(f, policy, traces, truth, compliant, src):
    for i, t in enumerate(traces):
        if _within(f, t):
            assert not all(truth[(r, i)] for r in f.rules), (src, f.message, t)
    for caption, witness in f.witnesses:
        dropped = re.search(r"`([^`]+)`", caption).group(1)
        for r in f.rules:
            if r != dropped:
                assert evaluate(policy.rule(r).formula, witness.trace), (src, caption)


def _l0003(f, policy, traces, truth, compliant, src):
    rule, implying = f.rules[0], f.rules[1:]
    for i, t in enumerate(traces):
        if _within(f, t) and all(truth[(r, i)] for r in implying):
            assert truth[(rule, i)], (src, f.message, t)


def _l0004(f, policy, traces, truth, compliant, src):
    rule = f.rules[0]
    if "holds on every trace" in f.message:
        assert all(truth[(rule, i)] for i, t in enumerate(traces) if _within(f, t)), (src, f.message)
        return
    formula = policy.rule(rule).formula
    found = [(t, q) for _, t, _, q in implications(formula) if f"`{quoted(t)}` never happens" in f.message]
    assert found, (src, f.message)
    trigger, quantifiers = found[0]
    happens = trigger_happens(trigger, quantifiers)
    for i in compliant:
        if _within(f, traces[i]):
            assert not evaluate(happens, traces[i]), (src, f.message, traces[i])


def _l0005(f, policy, traces, truth, compliant, src):
    tool = f.tools[0]
    for i in compliant:
        if _within(f, traces[i]):
            assert all(c.name != tool for c in traces[i].calls), (src, f.message, traces[i])


def _l0006(f, policy, traces, truth, compliant, src):
    """"No call can ever violate it for certain": the policy ends runs with `done`, so a run
    that ends with it and fails the rule would be a proposal the gate refuses."""
    if "no call can ever violate it" not in f.message:
        return
    for i, t in enumerate(traces):
        if t.calls and t.calls[-1].name == "done":
            assert truth[(f.rules[0], i)], (src, f.message, t)


_CHECKS = {"L0001": _l0001, "L0002": _l0002, "L0003": _l0003, "L0004": _l0004, "L0005": _l0005, "L0006": _l0006}
