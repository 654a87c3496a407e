"""Bad prefixes (appendix A.5.1): a prefix after which no continuation satisfies a rule.

`find_bad_prefix` asks, for each prefix length m up to `max_prefix`, the quantified query

    ∃ u (m calls)  ∀ v (at most `continuation` more calls):  u·v ⊭ φ

whose answer is a bad prefix u (the rule is enforceable online) or, when no length has one,
the bounded statement "every prefix of at most `max_prefix` calls can still be completed".
The continuation is bounded too, so a found prefix is bad "for continuations of up to
`continuation` calls"; the automata answer both exactly when they can compile the rule.

>>> from policyc.ir import build as b
>>> from policyc.smt.verifier import bare_tools
>>> tools = bare_tools("a", "b")
>>> find_bad_prefix(b.always(b.neg(b.event("a"))), tools).status
'found'
>>> find_bad_prefix(b.eventually(b.event("a")), tools).status
'none'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

import z3

from policyc.ir import nodes as n
from policyc.ir.types import ToolSignature
from policyc.smt.decoder import decode_trace
from policyc.smt.encoder import FormulaEncoder
from policyc.smt.symtrace import SymbolicTrace
from policyc.smt.witness import approximations
from policyc.trace.model import Trace


@dataclass(frozen=True)
class BadPrefixResult:
    """`found` (with the prefix), `none` (no bad prefix up to `max_prefix`), or `unknown`."""

    status: str
    prefix: Trace | None
    max_prefix: int
    continuation: int


def find_bad_prefix(phi: n.Formula, tools: Mapping[str, ToolSignature], max_prefix: int = 3,
                    continuation: int = 6, timeout_ms: int = 5_000) -> BadPrefixResult:
    if approximations([phi]):  # an uninterpreted part could be chosen to make any prefix bad
        return BadPrefixResult("unknown", None, max_prefix, continuation)
    unknown = False
    for m in range(max_prefix + 1):
        status, prefix = _bad_prefix_of_length(phi, tools, m, continuation, timeout_ms)
        if status == z3.sat:
            return BadPrefixResult("found", prefix, max_prefix, continuation)
        unknown |= status == z3.unknown
    return BadPrefixResult("unknown" if unknown else "none", None, max_prefix, continuation)


def _bad_prefix_of_length(phi, tools, m: int, continuation: int, timeout_ms: int):
    trace = SymbolicTrace(tools, m + continuation, name=f"bp{m}")
    enc = FormulaEncoder(trace)
    body = enc.holds(phi, 0)
    prefix_vars = set(str(x) for x in trace.live[:m]) | set(str(x) for x in trace.tool[:m])
    earlier = tuple(f"bp{m}.{i}." for i in range(m))

    def is_inner(c) -> bool:  # everything the continuation may still choose
        name = c.decl().name()
        return not (name in prefix_vars or name.startswith(earlier))

    consts = _constants([body, *trace.constraints])
    universal = [c for c in consts if is_inner(c)]
    outer = [c for c in trace.constraints if not any(is_inner(x) for x in _constants([c]))]
    inner = [c for c in trace.constraints if any(is_inner(x) for x in _constants([c]))]
    s = z3.Solver()
    s.set("timeout", timeout_ms)
    s.add(*[trace.live[i] for i in range(m)], *outer)
    claim = z3.Implies(z3.And(inner) if inner else z3.BoolVal(True), z3.Not(body))
    s.add(z3.ForAll(universal, claim) if universal else claim)
    status = s.check()
    if status != z3.sat:
        return status, None
    model = s.model()
    full = decode_trace(model, trace)
    return status, Trace(full.calls[:m], full.metrics)


def _constants(exprs) -> list:
    seen: dict = {}
    stack = list(exprs)
    visited: set = set()
    while stack:
        e = stack.pop()
        if e.get_id() in visited:
            continue
        visited.add(e.get_id())
        if z3.is_const(e) and e.decl().kind() == z3.Z3_OP_UNINTERPRETED:
            seen[e.get_id()] = e
        stack.extend(e.children())
    return list(seen.values())
