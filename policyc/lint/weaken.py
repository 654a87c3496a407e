"""A weaker formula the automata compile: every condition they cannot read made as
permissive as its place allows.

A claim the automata do not compile (it compares values bound in one call with another's,
reads the request and a call's arguments together, `outputs`, an extern predicate) still
has a shape they can read: which tools, in which order. `weaken` keeps that shape and
replaces each such condition by the constant that makes the formula weaker where it stands
(true where it is asserted, false where it is denied: every operator of the language is
monotone in its arguments, negation aside). A quantifier whose variable no longer occurs is
dropped the same way. So every trace of the claim is a run of the weakened formula: a
question with no run once its claims are weakened has no trace at all (an exact answer),
and a run found is only a candidate, made concrete and replayed against the claims.

>>> from policyc.ir import build as b
>>> from policyc.ir.printer import show
>>> c = b.var("c")
>>> said = b.cond(b.op("contains", b.field(b.request(), "text"), c))
>>> rule = b.forall("c", None, b.values("post", ("channel",)),
...                 b.always(b.implies(b.event("post", b.op("eq", b.arg("channel"), c)), said)))
>>> show(weaken(rule, True)), show(weaken(rule, False))
('true', 'not G not post')
"""

from __future__ import annotations

from typing import Callable

from policyc.ir import build as b
from policyc.ir import nodes as n
from policyc.ir.types import OptionalT, ToolSignature
from policyc.ir.walk import subformulas
from policyc.lint.rewrite import rebuild
from policyc.lint.sourcing import provenance_split

#: Terms a condition may read for the automata to keep it (literals and operators aside).
_READABLE = (n.Arg, n.Result, n.Attr, n.Field, n.Index, n.Slice, n.Op, n.Lit, n.Metric, n.Request)


def opaque(leaf: n.Term) -> bool:
    """A condition `weaken` replaces: it reads a variable, a domain, `outputs`, `done`,
    provenance or an extern predicate, or reads the request or the metrics together with a
    call's values."""
    kinds = {type(s) for s in subformulas(leaf)}
    if not kinds <= set(_READABLE):
        return True
    return bool(kinds & {n.Metric, n.Request}) and bool(kinds & {n.Arg, n.Result, n.Attr})


def weaken(phi: n.Formula, expected: bool = True, drop: Callable[[n.Term], bool] = opaque,
           tools: dict[str, ToolSignature] | None = None) -> n.Formula:
    """A formula that holds on every trace on which `phi` has the truth `expected` (`phi` or
    its negation), with the conditions `drop` picks made constant. `tools`: the signatures,
    which tell when a domain is empty exactly when its tool is never called (a required
    argument); without them an emptiness is not assumed."""
    memo: dict[tuple[n.Formula, bool], n.Formula] = {}

    def term(t: n.Term, positive: bool) -> n.Term:
        if isinstance(t, n.Op) and t.op in ("and", "or"):
            return b.op(t.op, *(term(a, positive) for a in t.args))
        if isinstance(t, n.Op) and t.op == "not":
            return b.op("not", term(t.args[0], not positive))
        return b.lit(positive) if drop(t) else t

    def go(f: n.Formula, positive: bool) -> n.Formula:
        key = (f, positive)
        found = memo.get(key)
        if found is not None:
            return found
        if isinstance(f, n.Event):
            # cases on whether a source of its provenance conditions came first (`policyc.lint.sourcing`)
            cases = provenance_split(f.tool, f.guard, lambda g: b.event(f.tool, term(g, positive)), tools)
            out = cases if cases is not None else b.event(f.tool, term(f.guard, positive))
        elif isinstance(f, n.Cond):
            out = b.cond(term(f.term, positive))
        elif isinstance(f, n.Not):
            out = b.neg(go(f.arg, not positive))
        elif isinstance(f, (n.Forall, n.Exists)):
            at_trigger = _at_trigger(f, tools) if positive and isinstance(f, n.Forall) else None
            out = _quantifier(f, positive, go(at_trigger if at_trigger is not None else f.body, positive), tools)
        else:
            out = rebuild(f, lambda g: go(g, positive))
        memo[key] = out
        return out

    return go(phi, True) if expected else go(b.neg(phi), True)


def _quantifier(q: n.Forall | n.Exists, positive: bool, body: n.Formula,
                tools: dict[str, ToolSignature] | None) -> n.Formula:
    """The quantifier over a body weakened where it is asserted (`positive`), strengthened
    where it is denied; dropped when its variable no longer occurs. The body then holds for
    every value or for none: `forall` is the body or an empty domain where asserted, the body
    where denied; `exists` is the body where asserted, the body and a domain with a value
    where denied. "Empty" is `never` the domain's tool when that is exact, else assumed
    possible (asserted) or impossible (denied)."""
    make = b.forall if isinstance(q, n.Forall) else b.exists
    if any(isinstance(s, n.Var) and s.name == q.var for s in subformulas(body)):
        return make(q.var, q.type, q.domain, body)
    empty = _empty(q.domain, tools)
    if isinstance(q, n.Forall):
        return b.disj(body, empty if empty is not None else b.const(True)) if positive else body
    return body if positive else b.conj(body, b.neg(empty) if empty is not None else b.const(False))


def _at_trigger(q: n.Forall, tools: dict[str, ToolSignature] | None) -> n.Formula | None:
    """`forall v in t.a + ...: always (t(a: v, ...) -> ψ(v)) and ...` with the trigger's
    `a == v` left out of each such part: each call to `t` gives its own value of `a` (a
    required argument: it has one), which is in the domain, and for which the implication
    holds there; so `always (t(...) -> ψ(v))` holds of the trace with `v` read as that
    value, which `weaken` then makes as permissive as its place allows (it removes every
    condition on `v`). None when no part has that shape."""
    required = {(t, a) for t, a in _members(q.domain, tools)}
    parts = list(q.body.args) if isinstance(q.body, n.And) else [q.body]
    out = [_trigger_part(part, q.var, required) for part in parts]
    if all(x is None for x in out):
        return None
    return b.conj(*(x if x is not None else part for x, part in zip(out, parts)))


def _members(domain: n.Term, tools: dict[str, ToolSignature] | None) -> list[tuple[str, str]]:
    """The (tool, required argument) pairs whose values a domain holds (`t.a`, or a union of
    them with others)."""
    if isinstance(domain, n.Op) and domain.op == "add":
        return [m for a in domain.args for m in _members(a, tools)]
    if not (tools and isinstance(domain, n.Values) and not domain.flatten and len(domain.path) == 1):
        return []
    sig, first = tools.get(domain.tool), domain.path[0]
    param = sig.param(first) if sig is not None and isinstance(first, str) else None  # an index names no parameter
    return [(domain.tool, param.name)] if param is not None and not isinstance(param.type, OptionalT) else []


def _trigger_part(part: n.Formula, var: str, required: set[tuple[str, str]]) -> n.Formula | None:
    if not (b.is_always(part) and isinstance(part.right, n.Or)):
        return None
    parts = list(part.right.args)
    for i, item in enumerate(parts):
        if not (isinstance(item, n.Not) and isinstance(item.arg, n.Event)):
            continue
        tool, guard = item.arg.tool, item.arg.guard
        conjuncts = list(guard.args) if isinstance(guard, n.Op) and guard.op == "and" else [guard]
        same = {b.op("eq", b.arg(a), b.var(var)) for t, a in required if t == tool}
        same |= {b.op("eq", b.var(var), b.arg(a)) for t, a in required if t == tool}
        if not same & set(conjuncts):
            continue
        rest = [c for c in conjuncts if c not in same]
        trigger = b.event(tool, b.op("and", *rest) if len(rest) > 1 else rest[0] if rest else b.lit(True))
        return b.always(b.disj(*parts[:i], b.neg(trigger), *parts[i + 1:]))
    return None


def _empty(domain: n.Term, tools: dict[str, ToolSignature] | None) -> n.Formula | None:
    """A formula that holds whenever the domain is empty (each of its parts is: `never` the
    tool of a required argument's values, exactly; nothing is said of the other parts);
    None when nothing is known of it."""
    pairs = _members(domain, tools)
    if not pairs:
        return None
    return b.conj(*(b.always(b.neg(b.event(t))) for t, _ in dict.fromkeys(pairs)))
