"""Which rules compile, and into what: a plan of plain and sliced parts.

A rule is first normalised: universal quantifiers move out of `always` (`G forall x in D: φ`
is `forall x in D: G φ`, D being the same at every position), quantifiers move inward across
parts that do not read their variable (`trigger.miniscope`), and a variable bound at the call
that triggers the rule (`always (T(a: x) -> ψ(x))`, ψ reading x at that call and in `once`
of earlier calls) is read from that call (`trigger.bind_at_trigger`). It compiles when it is
then a boolean combination (and, or, not) of

  - *plain* parts: no quantifier; events whose guards read the current call (arguments,
    result, literals, extern predicates), maybe with the run's constants (`request.text`,
    `metrics`) and its history (history atoms); conditions on the constants alone (static
    atoms: one automaton per truth of them, `constants`); every temporal operator, future
    and past, with no future operator below a past one. All plain parts under one `and`/`or`
    are merged into one automaton, so their interplay is exact;
  - *sliced* parts: `forall x in D: φ` or `exists x in D: φ` with φ plain except that guards
    may compare x with a call's argument or result by `==` or `!=` (binding atoms), and
    conditions may test x against literals and the run's constants (static atoms). D is a
    union of call domains (`tool.arg`, `tool.result.path`, as pattern-bound variables
    produce) and literal lists.

Everything else is reported as not compiled, with the reason: nested quantifiers that do not
come apart, a quantifier below another temporal operator, conditions on trace-wide values
(`outputs`, `entities(...)` domains, provenance), a variable compared other than by
equality with a call it is not bound at.

>>> from policyc.ir import build as b
>>> o = b.var("o")
>>> phi = b.forall("o", None, b.values("refund", ("order_id",)),
...     b.always(b.implies(b.event("refund", b.op("eq", b.arg("order_id"), o)),
...                        b.once(b.event("check", b.op("eq", b.arg("order_id"), o))))))
>>> plan = plan_rule(phi)
>>> plan.skeleton, type(plan.parts[0]).__name__, plan.parts[0].domain
(0, 'SlicedPart', (('refund', ('order_id',), False),))
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Union

from policyc.ir import build as b
from policyc.ir import nodes as n
from policyc.ir.walk import free_vars, subformulas

from policyc.tables.atoms import atom_kind, guard_leaves
from policyc.automata.progress import NotPropositional, check_progressable
from policyc.automata.trigger import bind_at_trigger, miniscope


class NotCompilable(ValueError):
    """The rule is outside the compiled fragment; it is scored offline only."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class PlainPart:
    formula: n.Formula
    static_atoms: tuple[n.Term, ...] = ()  # conditions on the run's constants alone


@dataclass(frozen=True)
class SlicedPart:
    kind: str  # "forall" | "exists"
    var: str
    domain: tuple[tuple[str, tuple, bool], ...]  # (tool, path, flatten) call domains
    constants: tuple  # literal domain values
    body: n.Formula
    static_atoms: tuple[n.Term, ...]
    touch: tuple[tuple[str, n.Term], ...]  # (tool, call-local term compared with var)
    # a part over a tuple of variables (`pair_part`): how many, and per entry of `domain` the
    # component it gives values to; `touch` then lists each event's terms, one per component
    arity: int = 1
    components: tuple[int, ...] = ()


Part = Union[PlainPart, SlicedPart]
#: skeleton: an int (index of a part), ("and", [...]), ("or", [...]) or ("not", skeleton)
Skeleton = Union[int, tuple]


@dataclass(frozen=True)
class Plan:
    skeleton: Skeleton
    parts: tuple[Part, ...]


def _has_quantifier(f: n.Formula) -> bool:
    return any(isinstance(s, (n.Forall, n.Exists)) for s in subformulas(f))


def hoist(f: n.Formula) -> n.Formula:
    """Move universal quantifiers and conjunctions out of `always`."""
    if isinstance(f, (n.And, n.Or)):
        return (b.conj if isinstance(f, n.And) else b.disj)(*(hoist(a) for a in f.args))
    if isinstance(f, n.Not):
        return b.neg(hoist(f.arg))
    if b.is_always(f):
        inner = hoist(f.right)
        if isinstance(inner, n.Forall):
            return n.Forall(inner.var, inner.type, inner.domain, hoist(b.always(inner.body)))
        if isinstance(inner, n.And):
            return b.conj(*(hoist(b.always(a)) for a in inner.args))
        return b.always(inner)
    return f


def normalise(formula: n.Formula) -> n.Formula:
    """The rule with its quantifiers where the automata take them (see the module docstring)."""
    return _bind_triggers(miniscope(hoist(formula)))


def _bind_triggers(f: n.Formula) -> n.Formula:
    """Each quantifier of the boolean skeleton bound at its trigger, when its rewrite compiles
    as a plain part (else it is left for the slicing)."""
    if isinstance(f, (n.And, n.Or)):
        return (b.conj if isinstance(f, n.And) else b.disj)(*(_bind_triggers(a) for a in f.args))
    if isinstance(f, n.Not):
        return b.neg(_bind_triggers(f.arg))
    if isinstance(f, n.Forall):
        bound = bind_at_trigger(f)
        if bound is None:
            return f
        if any(isinstance(s, n.Earlier) for s in subformulas(bound)):
            # earlier calls related to the value only by equality: slicing keeps each value's
            # state exactly (and takes part in the joint search); history atoms otherwise
            try:
                sliced_part(f)
                return f
            except NotCompilable:
                pass
        try:
            plain_part(bound)
        except NotCompilable:
            return f
        return bound
    return f


def plan_rule(formula: n.Formula) -> Plan:
    """Split a rule into parts the automata compile; raise NotCompilable otherwise."""
    parts: list[Part] = []

    def split(f: n.Formula) -> Skeleton:
        if not _has_quantifier(f):
            parts.append(plain_part(f))
            return len(parts) - 1
        if isinstance(f, n.Not):
            return ("not", split(f.arg))
        if isinstance(f, (n.And, n.Or)):
            plain = [a for a in f.args if not _has_quantifier(a)]
            rest = [split(a) for a in f.args if _has_quantifier(a)]
            if plain:
                merged = (b.conj if isinstance(f, n.And) else b.disj)(*plain)
                parts.append(plain_part(merged))
                rest.insert(0, len(parts) - 1)
            return ("and" if isinstance(f, n.And) else "or", rest)
        if isinstance(f, (n.Forall, n.Exists)):
            parts.append(sliced_part(f))
            return len(parts) - 1
        raise NotCompilable("a quantifier below a temporal operator other than `always`")

    skeleton = split(normalise(formula))
    return Plan(skeleton, tuple(parts))


def plain_part(f: n.Formula) -> PlainPart:
    static, _ = _check_atoms(f, None)
    _check_temporal(_without_conditions(f) if static else f)
    return PlainPart(f, tuple(static))


def _check_temporal(f: n.Formula) -> None:
    try:
        check_progressable(f)
    except NotPropositional as exc:
        raise NotCompilable(str(exc)) from None


def _check_atoms(f: n.Formula, var: str | None) -> tuple[list[n.Term], list[tuple[str, n.Term]]]:
    """The static atoms and binding terms of `f`; NotCompilable for unsupported atoms."""
    static: list[n.Term] = []
    touch: list[tuple[str, n.Term]] = []
    for sub in subformulas(f):
        leaves: list[tuple[n.Term, str | None]]
        if isinstance(sub, n.Event):
            leaves = [(leaf, sub.tool) for leaf in guard_leaves(sub.guard)]
        elif isinstance(sub, n.Cond):
            leaves = [(leaf, None) for leaf in guard_leaves(sub.term)]
            if var is None and all(atom_kind(leaf) == "static" for leaf, _ in leaves):
                if sub.term not in static:  # a condition on the run's constants: one static atom
                    static.append(sub.term)
                continue
        else:
            continue
        for leaf, tool in leaves:
            kind = atom_kind(leaf, var)
            if tool is None and kind in ("call", "binding"):
                kind = "unsupported"  # a condition outside any event cannot read a call
            if kind == "static" and var is None:
                continue  # a guard's condition on the constants alone: read with the call's atoms
            if kind == "static":
                if leaf not in static:
                    static.append(leaf)
            elif kind == "binding" and isinstance(leaf, n.Op) and tool is not None:  # `t == x`, `t != x`
                left, right = leaf.args
                term = right if left == n.Var(var) else left
                if (tool, term) not in touch:
                    touch.append((tool, term))
            elif kind == "unsupported":
                raise NotCompilable(_unsupported_reason(leaf, var))
    return static, touch


def _unsupported_reason(leaf: n.Term, var: str | None) -> str:
    from policyc.ir.printer import show

    kinds = {type(s).__name__ for s in subformulas(leaf)}
    if kinds & {"From", "Flows"}:
        return (f"the condition `{show(leaf)}` reads what the run had seen before the call (provenance); "
                "the gate decides it with the evaluator")
    if kinds & {"Values", "Outputs", "Done"}:
        return f"the condition `{show(leaf)}` reads trace-wide values (domains, outputs or done)"
    if var is not None and n.Var(var) in subformulas(leaf):
        return (f"`{var}` is compared with a call other than by `==` or `!=` in `{show(leaf)}`, and is not bound "
                "at the call that triggers the rule")
    return f"the condition `{show(leaf)}` reads variables the automata do not track"


def _domain(term: n.Term) -> tuple[list, list]:
    """(call domains, literal values) of a quantifier's domain."""
    if isinstance(term, n.Values):
        return [(term.tool, term.path, term.flatten)], []
    if isinstance(term, n.Lit):
        v = term.value
        values = v if isinstance(v, list) else list(v) if isinstance(v, dict) else [] if v is None else [v]
        return [], values
    if isinstance(term, n.Op) and term.op == "add":
        calls, consts = [], []
        for a in term.args:
            c, k = _domain(a)
            if isinstance(a, n.Lit) and not isinstance(a.value, list):
                raise NotCompilable("a domain adds a literal that is not a list")
            calls += c
            consts += k
        return calls, consts
    from policyc.ir.printer import show

    raise NotCompilable(f"the domain `{show(term)}` is not drawn from call arguments or results")


def sliced_part(q: n.Forall | n.Exists) -> SlicedPart:
    body = q.body
    if isinstance(body, (n.Forall, n.Exists)) and _has_quantifier(body):
        return pair_part(q)
    if _has_quantifier(body):
        inner = sorted({s.var for s in subformulas(body) if isinstance(s, (n.Forall, n.Exists))})
        raise NotCompilable(f"nested quantifiers: `{q.var}` and `{'`, `'.join(inner)}` are read together "
                            "(one condition, or one earlier call, relates them), so neither is tracked alone")
    if free_vars(body) - {q.var} or free_vars(q.domain):
        raise NotCompilable("a variable bound outside the quantifier")
    calls, consts = _domain(q.domain)
    static, touch = _check_atoms(body, q.var)
    _check_temporal(_without_conditions(body))
    kind = "forall" if isinstance(q, n.Forall) else "exists"
    return SlicedPart(kind, q.var, tuple(calls), tuple(consts), body, tuple(static), tuple(touch))


def pair_part(q: n.Forall | n.Exists) -> SlicedPart:
    """`forall s in D1: forall v in D2: φ(s, v)` (or `exists`, `exists`) as one sliced part over
    the pair (s, v), when every atom reading s or v is `t1 == s` or `t2 == v` in the top-level
    conjunction of one event's guard that has both: each event then reads only whether the
    call's (t1, t2) equals the pair. The part's variable is the pair, written `(s, v)`; the
    atoms read its components (`(s, v)[0]`). A pair no call named together reads every event
    as the fresh instance does, so only the pairs calls named get instances (`SliceRun`).
    NotCompilable, with the reason, for any other shape."""
    inner = q.body
    s = q.var
    assert isinstance(inner, (n.Forall, n.Exists))
    v, body = inner.var, inner.body
    from policyc.ir.printer import show

    def apart(why: str) -> NotCompilable:
        return NotCompilable(f"nested quantifiers: `{s}` and `{v}` are read together, {why}: only a pair of values "
                             "one call names by `==` is tracked (per pair), so neither is tracked alone")
    if type(inner) is not type(q):
        raise NotCompilable(f"nested quantifiers: `{s}` and `{v}` are quantified one `forall`, one `exists`: "
                            "no pair of values is tracked alone")
    if _has_quantifier(body):
        inner_vars = sorted({x.var for x in subformulas(body) if isinstance(x, (n.Forall, n.Exists))})
        raise NotCompilable(f"nested quantifiers: `{s}`, `{v}` and `{'`, `'.join(inner_vars)}` are read together; "
                            "only a pair of variables is tracked per pair of values")
    if s == v or free_vars(body) - {s, v} or free_vars(q.domain) or free_vars(inner.domain):
        raise NotCompilable("a variable bound outside the quantifier")
    calls_s, consts_s = _domain(q.domain)
    calls_v, consts_v = _domain(inner.domain)
    if consts_s or consts_v:
        raise NotCompilable(f"nested quantifiers: `{s}` and `{v}` are read together, and a domain lists literal "
                            "values (a pair is tracked over call domains only)")
    name = f"({s}, {v})"
    pair = n.Var(name)
    picks = {s: b.index(pair, b.lit(0)), v: b.index(pair, b.lit(1))}
    touch: list[tuple[str, n.Term]] = []

    def rewrite(e: n.Event, masked: bool = False) -> n.Event:
        conjuncts = list(_conjuncts(e.guard))
        bound: dict[str, tuple[int, n.Term]] = {}
        for i, c in enumerate(conjuncts):
            reads = free_vars(c) & {s, v}
            if not reads:
                continue
            x = next(iter(reads))
            term = _compared(c, x)
            if len(reads) > 1 or term is None or x in bound or free_vars(term) or atom_kind(c, x) != "binding":
                raise apart(f"by `{show(c)}` in `{e.tool}`")
            bound[x] = (i, term)
        if not bound:
            return e
        if len(bound) < 2:
            raise apart(f"and `{e.tool}` names one without the other")
        for x, (i, term) in bound.items():
            conjuncts[i] = b.lit(True) if masked else b.op("eq", term, picks[x])
        entry = ((e.tool, bound[s][1]), (e.tool, bound[v][1]))
        if not masked and not any(touch[k:k + 2] == list(entry) for k in range(0, len(touch), 2)):
            touch.extend(entry)
        return n.Event(e.tool, conjuncts[0] if len(conjuncts) == 1 else b.op("and", *conjuncts))

    for sub in subformulas(body):
        if isinstance(sub, n.Cond) and free_vars(sub) & {s, v}:
            raise apart(f"by the condition `{show(sub.term)}`")
    paired = _map_events(body, rewrite)
    # the rest of the body, the pair's atoms read as true: only the call's own atoms may be left
    static, _ = _check_atoms(_map_events(body, lambda e: rewrite(e, masked=True)), s)
    if static:
        raise NotCompilable(f"nested quantifiers: `{s}` and `{v}` are read together beside conditions on the "
                            "run's constants (a pair is tracked without them)")
    _check_temporal(paired)
    kind = "forall" if isinstance(q, n.Forall) else "exists"
    return SlicedPart(kind, name, (*calls_s, *calls_v), (), paired, (), tuple(touch), 2,
                      (0,) * len(calls_s) + (1,) * len(calls_v))


def _conjuncts(t: n.Term) -> list[n.Term]:
    """The top-level conjuncts of a guard."""
    if isinstance(t, n.Op) and t.op == "and":
        return [c for a in t.args for c in _conjuncts(a)]
    return [t]


def _compared(atom: n.Term, x: str) -> n.Term | None:
    """`t` of `t == x` or `x == t`; None for any other atom."""
    if isinstance(atom, n.Op) and atom.op == "eq" and len(atom.args) == 2:
        left, right = atom.args
        if right == n.Var(x):
            return left
        if left == n.Var(x):
            return right
    return None


def _map_events(f: n.Formula, fn: Callable[[n.Event], n.Event]) -> n.Formula:
    """`f` with each event replaced by `fn(event)` (a formula without quantifiers)."""
    if isinstance(f, n.Event):
        return fn(f)
    fields = []
    for name in type(f)._fields:
        value = getattr(f, name)
        if isinstance(value, n.Formula):
            value = _map_events(value, fn)
        elif isinstance(value, tuple):
            value = tuple(_map_events(x, fn) if isinstance(x, n.Formula) else x for x in value)
        fields.append(value)
    return type(f)(*fields)


def _without_conditions(f: n.Formula) -> n.Formula:
    """`f` with its static conditions read as true (only to check its temporal shape)."""
    from policyc.automata.specialise import specialise

    return specialise(f, {})


__all__ = ["NotCompilable", "Plan", "PlainPart", "SlicedPart", "plan_rule", "hoist", "normalise"]
