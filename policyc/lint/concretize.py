"""From a run of the automata to a concrete trace, replayed on the reference evaluator.

The automata answer with a sequence of letters: a tool and the truth of each of its guard
conditions, per call, and the truth of the metrics conditions. Z3 finds arguments, results
and metrics that give exactly those truths (the tool of every position is fixed, so the
query is small), over the declared types. The trace is then replayed: a witness is shown
only when every claim of the question takes its truth value on it.

>>> from policyc.ir import build as b
>>> from policyc.lint.claims import Claim
>>> from policyc.ir.types import INT, Param, ToolSignature, ANY
>>> tools = {"fetch": ToolSignature("fetch", (Param("id", INT),), ANY)}
>>> big = b.op("gt", b.arg("id"), b.lit(5))
>>> claim = Claim("r", b.eventually(b.event("fetch", big)))
>>> w = concretize((("fetch", ((big, True),)),), (), [claim], tools)
>>> w.confirmed, w.trace.calls[0].args["id"] > 5
(True, True)
"""

from __future__ import annotations

from typing import Mapping, Sequence

from policyc.ir import build as b
from policyc.ir import nodes as n
from policyc.ir.data import ExternError
from policyc.ir.ops import UNDEF
from policyc.ir.types import ANY, MESSAGE_SIGNATURE, OptionalT, ToolSignature
from policyc.lint.claims import Claim
from policyc.semantics.evaluator import evaluate
from policyc.smt import PolicySolver, WitnessTrace
from policyc.smt.decoder import default_value
from policyc.smt.values import NeedsStrings
from policyc.trace.model import CALL, MESSAGE_KIND, Call, Trace
from policyc.smt.verifier import DEFAULT_RLIMIT

Calls = Sequence[tuple[str, Sequence[tuple[n.Term, bool]]]]


def concretize(calls: Calls, metrics: Sequence[tuple[n.Term, bool]], claims: Sequence[Claim],
               tools: Mapping[str, ToolSignature], list_bound: int = 3, rlimit: int = DEFAULT_RLIMIT,
               coded_strings: bool = False) -> WitnessTrace | None:
    """A trace with these calls and metrics conditions on which every claim replays; None when
    the types leave no such values (or the solver gives up)."""
    try:
        return _concretize(calls, metrics, claims, tools, list_bound, rlimit, coded_strings)
    except NeedsStrings:
        if not coded_strings:
            raise
        return _concretize(calls, metrics, claims, tools, list_bound, rlimit, False)


def _concretize(calls, metrics, claims, tools, list_bound, rlimit, coded) -> WitnessTrace | None:
    if not metrics and not any(truths for _tool, truths in calls):
        # nothing to choose: the trace the solver would decode (every value the simplest of
        # its type), without a solver
        plain = replay(WitnessTrace(_simplest(calls, tools), True), claims)
        if plain is not None:
            return plain
    found, plain = _solve(calls, metrics, tools, list_bound, rlimit, coded, False)
    done = replay(found, claims) if found is not None else None
    if done is None and plain:  # again among texts the text functions leave as they are: such a model replays
        found, _ = _solve(calls, metrics, tools, list_bound, rlimit, coded, True)
        done = replay(found, claims) if found is not None else None
    return done


def _solve(calls, metrics, tools, list_bound, rlimit, coded, plain: bool) -> tuple[WitnessTrace | None, bool]:
    """A model of the calls' truths (in a solver of its own: a check that reached its limit
    leaves nothing behind), and whether a text function was read."""
    ps = PolicySolver(tools, max(1, len(calls)), list_bound, rlimit, name="w", coded_strings=coded)
    names = [ps.require_length(len(calls))]
    for i, (tool, truths) in enumerate(calls):
        names.append(ps.require_at(f"call{i}", b.event(tool), i))
        for j, (atom, value) in enumerate(truths):
            names.append(ps.require_at(f"atom{i}.{j}", b.event(tool, atom), i, value))
    for j, (atom, value) in enumerate(metrics):
        ps.require(f"metric{j}", b.cond(atom), value)
        names.append(f"metric{j}")
    if plain:
        names.append(ps.require_plain_texts())
    found = ps.check(names)
    return (found.witness if found.is_sat else None), bool(ps.trace.plain_texts)


def _simplest(calls: Calls, tools: Mapping[str, ToolSignature]) -> Trace:
    """The calls with every argument and result the simplest value of its type (as
    `policyc.smt.decoder.decode_trace` gives a value no formula reads)."""
    out = []
    for i, (tool, _truths) in enumerate(calls):
        sig = tools[tool]
        args = {p.name: default_value(p.type) for p in sig.params if not isinstance(p.type, OptionalT)}
        result = UNDEF if sig.result is ANY else default_value(sig.result)
        out.append(Call(tool, args, result, i, MESSAGE_KIND if sig == MESSAGE_SIGNATURE else CALL))
    return Trace(tuple(out))


def replay(witness: WitnessTrace, claims: Sequence[Claim]) -> WitnessTrace | None:
    """The witness, if every claim takes its truth value on it (None otherwise)."""
    for claim in claims:
        try:
            if evaluate(claim.formula, witness.trace, witness.externs) != claim.expected:
                return None
        except (ExternError, RecursionError):
            return None
    return WitnessTrace(witness.trace, True, witness.externs)
