"""Questions split by what their claims share: tools, the request, the metrics.

Two claims that name no common tool and read no common trace-wide value (the user's
request, the metrics record) constrain different calls of a run. A question about several
such groups (*components*) is answered per component: if one component has no common
trace, neither has the whole question (as strongly as that component's answer); if each has
one, their traces one after the other (a terminal call only last) are a candidate for the
whole, replayed on the evaluator like every witness. Only when that candidate does not
replay (a claim that counts positions, `next`, a terminal call in two components) is the
question asked whole. So nothing is assumed about the claims: splitting only chooses which
smaller questions to ask first, and their answers are memoised (the rest of a policy
beside a rule is the same component whichever of its rules a question is about).

>>> from policyc.ir import build as b
>>> from policyc.lint.claims import Claim
>>> a, c = Claim("a", b.eventually(b.event("a"))), Claim("c", b.always(b.neg(b.event("c"))))
>>> ac = Claim("ac", b.always(b.implies(b.event("a"), b.once(b.event("c")))))
>>> [[x.name for x in part] for part in components([a, c])]
[['a'], ['c']]
>>> [[x.name for x in part] for part in components([a, c, ac])]
[['a', 'c', 'ac']]
"""

from __future__ import annotations

from dataclasses import replace
from typing import Sequence

from policyc.ir import nodes as n
from policyc.ir.walk import subformulas
from policyc.lint.claims import Claim
from policyc.smt import WitnessTrace
from policyc.trace.model import Trace

#: What a claim reads besides the calls to the tools it names.
REQUEST, METRICS = "@request", "@metrics"


def reads(phi: n.Formula) -> frozenset[str] | None:
    """The tools a formula names and the trace-wide values it reads (`REQUEST`, `METRICS`);
    None when it reads the whole run (`outputs` of every tool, provenance, `done`) or nothing
    at all (a claim on the run's length): such a claim is not split from the others."""
    found = phi._cache.get("lint_reads", False)
    if found is not False:
        return found
    out: set[str] = set()
    whole = False
    for sub in subformulas(phi):
        if isinstance(sub, (n.Event, n.Values)):
            out.add(sub.tool)
        elif isinstance(sub, n.Outputs):
            whole |= not sub.tools
            out.update(sub.tools)
        elif isinstance(sub, n.Request):
            out.add(REQUEST)
        elif isinstance(sub, n.Metric):
            out.add(METRICS)
        elif isinstance(sub, (n.From, n.Flows, n.Done)):
            whole = True
    result = None if whole or not out else frozenset(out)
    phi._cache["lint_reads"] = result
    return result


def components(claims: Sequence[Claim]) -> list[list[Claim]]:
    """The claims in groups that share nothing (one group when a claim reads the whole
    run), in the order of their first claims."""
    keys = [reads(c.formula) for c in claims]
    if any(k is None for k in keys) or len(claims) < 2:
        return [list(claims)]
    parent: dict[str, str] = {}

    def find(x: str) -> str:
        while parent.setdefault(x, x) != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for k in keys:
        assert k is not None
        first, *rest = sorted(k)
        for x in rest:
            parent[find(x)] = find(first)
    groups: dict[str, list[Claim]] = {}
    for c, k in zip(claims, keys):
        assert k is not None
        groups.setdefault(find(min(k)), []).append(c)
    return list(groups.values())


def joined(witnesses: Sequence[WitnessTrace], terminal: frozenset[str]) -> WitnessTrace | None:
    """The witnesses' runs one after the other, the one that ends with a terminal call last,
    with their requests and metrics together; None when two of them end the run.

    >>> from policyc.trace.model import Call
    >>> one = WitnessTrace(Trace((Call("done", {}),)), True)
    >>> two = WitnessTrace(Trace((Call("a", {}),), request="hello"), True)
    >>> w = joined([one, two], frozenset({"done"}))
    >>> [c.name for c in w.trace.calls], w.trace.request
    (['a', 'done'], 'hello')
    """
    ending = [w for w in witnesses if w.trace.calls and w.trace.calls[-1].name in terminal]
    if len(ending) > 1:
        return None
    ordered = [w for w in witnesses if w not in ending] + ending
    calls = [c for w in ordered for c in w.trace.calls]
    metrics: dict = {}
    request = None
    externs: dict = {}
    for w in ordered:
        metrics.update(w.trace.metrics)
        request = request if w.trace.request is None else w.trace.request
        externs.update(w.externs)
    trace = Trace(tuple(replace(c, position=i) for i, c in enumerate(calls)), metrics, request=request)
    return WitnessTrace(trace, True, externs)
