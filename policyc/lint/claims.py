"""Claims: what a lint question asks of one formula, and the rewrites that prepare formulas
for the automata.

A question is a list of claims ("this rule holds", "this rule fails", "this trigger happens
somewhere"); its answer is a trace on which every claim takes its truth value, or a proof
that there is none. Three rewrites let the automata answer more of them:

- `metric_atoms` / `specialise`: a condition on the metrics record (`metrics.fault ==
  "mms"`) is a free input of the trace, the same at every position: the automata answer once
  per possible truth of those conditions;
- `instantiate`: a quantifier over the values of a trace (`forall o in refund.order_id: ...`)
  becomes a conjunction (or disjunction) over a few chosen values, with every call of the
  domain's tools restricted to them. The traces that are left satisfy the claim exactly when
  its instantiation holds, so a witness found for the instantiation is a witness (it is
  replayed all the same); "no witness" says nothing, since other values were left out;
- `trigger_happens`: "the trigger of an implication happens somewhere", with the quantifiers
  around the implication read as `exists`.

>>> from policyc.ir import build as b
>>> from policyc.ir.printer import show
>>> o = b.var("o")
>>> rule = b.forall("o", None, b.values("refund", ("order_id",)),
...                 b.always(b.implies(b.event("refund", b.op("eq", b.arg("order_id"), o)),
...                                    b.once(b.event("check", b.op("eq", b.arg("order_id"), o))))))
>>> inst = instantiate(rule, {})
>>> show(inst.formula)
'F refund(order_id: "value-1") -> G (refund(order_id: "value-1") -> O check(order_id: "value-1"))'
>>> [show(r) for r in inst.restrictions]
['G (refund -> refund(order_id: "value-1"))']
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence, overload

from policyc.ir import build as b
from policyc.ir import nodes as n
from policyc.ir.types import BOOL, FLOAT, INT, EnumT, ListT, OptionalT, RecordT, ToolSignature, Type
from policyc.ir.walk import free_vars, subformulas
from policyc.lint.rewrite import rebuild
from policyc.tables.atoms import guard_leaves


@dataclass(frozen=True)
class Claim:
    """A formula and the truth value a question asks of it. `name` identifies the pair."""

    name: str
    formula: n.Formula
    expected: bool = True

    @property
    def positive(self) -> n.Formula:
        """The formula that holds exactly when the claim does."""
        return self.formula if self.expected else b.neg(self.formula)


# ------------------------------------------------------------------ substitution


@overload
def substitute(node: n.Term, mapping: Mapping[str, n.Term]) -> n.Term: ...
@overload
def substitute(node: n.Formula, mapping: Mapping[str, n.Term]) -> n.Formula: ...
def substitute(node: n.Term | n.Formula, mapping: Mapping[str, n.Term]) -> n.Term | n.Formula:
    """`node` with the free variables of `mapping` replaced, through the smart constructors."""
    if not mapping or not (free_vars(node) & mapping.keys()):
        return node
    if isinstance(node, n.Var):
        return mapping.get(node.name, node)
    if isinstance(node, n.Term):
        return _substitute_term(node, mapping)
    return _substitute_formula(node, mapping)


def _substitute_term(t: n.Term, mapping: Mapping[str, n.Term]) -> n.Term:
    def sub(x: n.Term) -> n.Term:
        return substitute(x, mapping)

    if isinstance(t, n.Field):
        return b.field(sub(t.base), t.name)
    if isinstance(t, n.Index):
        return b.index(sub(t.base), sub(t.index))
    if isinstance(t, n.Slice):
        return b.slice_(sub(t.base), None if t.start is None else sub(t.start), None if t.stop is None else sub(t.stop))
    if isinstance(t, n.Op):
        return b.op(t.op, *(sub(a) for a in t.args))
    if isinstance(t, n.Extern):
        return b.extern(t.name, *(sub(a) for a in t.args))
    return t


def _substitute_formula(f: n.Formula, mapping: Mapping[str, n.Term]) -> n.Formula:
    if isinstance(f, n.Event):
        return b.event(f.tool, substitute(f.guard, mapping))
    if isinstance(f, n.Cond):
        return b.cond(substitute(f.term, mapping))
    if isinstance(f, (n.Forall, n.Exists)):
        inner = {k: v for k, v in mapping.items() if k != f.var}
        make = b.forall if isinstance(f, n.Forall) else b.exists
        return make(f.var, f.type, substitute(f.domain, mapping), substitute(f.body, inner))
    return rebuild(f, lambda x: substitute(x, mapping))


# ------------------------------------------------------------------ metrics


def reads_only_metrics(t: n.Term) -> bool:
    """A term that reads trace-level values (the metrics record, the user's request) and
    literals only (no call, event attribute, domain or variable): a free input of the trace."""
    kinds = {type(s) for s in subformulas(t)}
    return bool(kinds & {n.Metric, n.Request}) and not kinds & {
        n.Arg, n.Result, n.Attr, n.Values, n.Outputs, n.Done, n.Var, n.Extern}


def metric_atoms(formulas: Sequence[n.Formula]) -> tuple[n.Term, ...]:
    """The conditions on the metrics record the formulas test, in a stable order."""
    found: dict[n.Term, None] = {}
    for phi in formulas:
        for sub in subformulas(phi):
            if isinstance(sub, n.Cond):
                for leaf in guard_leaves(sub.term):
                    if reads_only_metrics(leaf):
                        found[leaf] = None
    return tuple(sorted(found, key=lambda t: t.skey))


# ------------------------------------------------------------------ quantifiers over values


@dataclass(frozen=True)
class Instantiation:
    """A formula without quantifiers over trace values, and the restrictions (`G (t ->
    t(arg == v1 or ...))`) under which it is equivalent to the original."""

    formula: n.Formula
    restrictions: tuple[n.Formula, ...]


class NotInstantiable(ValueError):
    """A quantifier whose domain is not drawn from call arguments, results or literals."""


def instantiate(phi: n.Formula, tools: Mapping[str, ToolSignature], fresh: int = 1,
                extra: Sequence = (), texts: Mapping[tuple[str, n.Term], Sequence] | None = None) -> Instantiation:
    """Replace every quantifier over trace values by its instances over a few values: the
    literals the body compares the variable with, the literal members of the domain, and
    `fresh` values of the domain's type that the policy never names. `texts`: per (tool,
    argument or result term), values that meet the tests some formula makes of it
    (`values_tested`), added to the values of a quantifier over that domain."""
    restrictions: dict[n.Formula, None] = {}
    literals = _policy_literals(phi)

    def go(f: n.Formula) -> n.Formula:
        if isinstance(f, (n.Forall, n.Exists)):
            calls, consts = _domain(f.domain)
            own = [v for tool, path, _ in calls for v in (texts or {}).get((tool, _path_term(path)), ())]
            values = _values(f, calls, consts, tools, literals, fresh, [*extra, *own])
            instances = []
            for v in values:
                member = _member(calls, consts, v)
                body = go(substitute(f.body, {f.var: b.lit(v)}))
                instances.append(b.implies(member, body) if isinstance(f, n.Forall) else b.conj(member, body))
            for tool, path, flatten in calls:
                if not flatten:
                    restrictions[_restriction(tool, path, values)] = None
            return b.conj(*instances) if isinstance(f, n.Forall) else b.disj(*instances)
        return rebuild(f, go)

    out = go(phi)
    return Instantiation(out, tuple(restrictions))


def _domain(term: n.Term) -> tuple[list[tuple[str, tuple, bool]], list]:
    if isinstance(term, n.Values):
        return [(term.tool, term.path, term.flatten)], []
    if isinstance(term, n.Lit):
        v = term.value
        return [], v if isinstance(v, list) else list(v) if isinstance(v, dict) else [] if v is None else [v]
    if isinstance(term, n.Op) and term.op == "add":
        calls: list = []
        consts: list = []
        for a in term.args:
            c, k = _domain(a)
            calls += c
            consts += k
        return calls, consts
    raise NotInstantiable(f"a domain of kind {type(term).__name__}")


def _path_term(path: tuple) -> n.Term:
    if not path:
        raise NotInstantiable("an empty path")
    t: n.Term = b.result() if path[0] == "result" else b.arg(path[0])
    for step in path[1:]:
        t = b.index(t, b.lit(step)) if isinstance(step, int) else b.field(t, step)
    return t


def _member(calls, consts, v) -> n.Formula:
    """"v is in the domain": a literal member, or some call of a domain tool carries it."""
    if any(_same(v, c) for c in consts):
        return b.const(True)
    parts = []
    for tool, path, flatten in calls:
        term = _path_term(path)
        cond = b.op("in", b.lit(v), term) if flatten else b.op("eq", term, b.lit(v))
        parts.append(b.eventually(b.event(tool, cond)))
    return b.disj(*parts) if parts else b.const(False)


def _restriction(tool: str, path: tuple, values: list) -> n.Formula:
    term = _path_term(path)
    allowed = b.op("or", *(b.op("eq", term, b.lit(v)) for v in values)) if len(values) > 1 \
        else b.op("eq", term, b.lit(values[0]))
    return b.always(b.implies(b.event(tool), b.event(tool, allowed)))


def _same(a, c) -> bool:
    return type(a) is type(c) and a == c


def _policy_literals(phi: n.Formula) -> set:
    return {s.value for s in subformulas(phi) if isinstance(s, n.Lit) and isinstance(s.value, (str, int, float))}


def _values(q, calls, consts, tools, literals, fresh: int, extra: Sequence = ()) -> list:
    """The values a quantifier is instantiated with (stable order, no repeats)."""
    out: list = []
    taken = set(literals) | {x for x in extra if isinstance(x, (str, int, float))}

    def add(v):
        if not any(_same(v, x) for x in out):
            out.append(v)

    var = n.Var(q.var)
    for sub in subformulas(q.body):
        if isinstance(sub, n.Op) and sub.op in ("eq", "ne") and var in sub.args:
            other = sub.args[1] if sub.args[0] == var else sub.args[0]
            if isinstance(other, n.Lit) and isinstance(other.value, (str, int, float, bool)):
                add(other.value)
    for c in consts:
        add(c)
    types = [_path_type(tools, tool, path, flatten) for tool, path, flatten in calls]
    kind = next((t for t in types if t is not None), None)
    for v in extra:
        if kind is None or _fits(v, kind):
            add(v)
    for v in _fresh_values(kind, taken, fresh):
        add(v)
    if not out:
        raise NotInstantiable("no value to instantiate with")
    return out


def _fits(v, t: Type) -> bool:
    if isinstance(t, OptionalT):
        t = t.inner
    if isinstance(t, EnumT):
        return isinstance(v, str) and v in t.members
    if t is INT:
        return isinstance(v, int) and not isinstance(v, bool)
    if t is FLOAT:
        return isinstance(v, (int, float)) and not isinstance(v, bool)
    if t is BOOL:
        return isinstance(v, bool)
    return isinstance(v, str)


def _fresh_values(t: Type | None, taken: set, count: int) -> list:
    if isinstance(t, OptionalT):
        t = t.inner
    if isinstance(t, EnumT):
        return list(t.members[:count])
    if t is BOOL:
        return [True, False][:count]
    out: list = []
    i = 1
    while len(out) < count:
        v: object = 7000 + i if t is INT else 7000.5 + i if t is FLOAT else f"value-{i}"
        if v not in taken:
            out.append(v)
        i += 1
    return out


def _path_type(tools: Mapping[str, ToolSignature], tool: str, path: tuple, flatten: bool) -> Type | None:
    sig = tools.get(tool)
    if sig is None or not path:
        return None
    if path[0] == "result":
        t: Type | None = sig.result
    else:
        p = sig.param(path[0])
        t = p.type if p is not None else None
    for step in path[1:]:
        if isinstance(t, OptionalT):
            t = t.inner
        if isinstance(t, RecordT) and isinstance(step, str):
            t = dict(t.fields).get(step)
        elif isinstance(t, ListT) and isinstance(step, int):
            t = t.elem
        else:
            return None
    if flatten:
        if isinstance(t, OptionalT):
            t = t.inner
        t = t.elem if isinstance(t, ListT) else None
    return t


#: Values `values_tested` offers per argument or result, at most.
TESTED_PER_VALUE = 6

_FLIPPED = {"lt": "gt", "le": "ge", "gt": "lt", "ge": "le", "eq": "eq", "ne": "ne"}


def values_tested(formulas: Sequence[n.Formula], fresh: str = "value-1") -> dict[tuple[str, n.Term], list]:
    """Per (tool, argument or result term) that a formula tests against a literal, values that
    pass and fail each test (values the policy does not name where it can): a text for each
    `startswith`, `endswith` or `contains` test, numbers on both sides of each comparison and
    the literal itself for equalities. Instantiating a quantifier over those calls with them
    lets a run meet both the quantified rule and the test (`get_details_by_id(startswith(id,
    "P"))` beside `forall l: ... get_details_by_id(id: l)`, or `called_n(fetch(id < 4)) >= 9`
    beside `forall v: ... fetch(id: v) ...`).

    >>> from policyc.ir import build as b
    >>> text = b.eventually(b.event("get", b.op("startswith", b.arg("id"), b.lit("P"))))
    >>> small = b.eventually(b.event("fetch", b.op("lt", b.arg("id"), b.lit(4))))
    >>> values_tested([text, small])
    {('get', id): ['Pvalue-1'], ('fetch', id): [3, 4, 5]}
    """
    out: dict[tuple[str, n.Term], list] = {}

    def add(key: tuple[str, n.Term], values: Sequence) -> None:
        found = out.setdefault(key, [])
        for v in values:
            if len(found) < TESTED_PER_VALUE and not any(_same(v, x) for x in found):
                found.append(v)

    for phi in formulas:
        for e in subformulas(phi):
            if not isinstance(e, n.Event):
                continue
            for leaf in guard_leaves(e.guard):
                if not (isinstance(leaf, n.Op) and len(leaf.args) == 2):
                    continue
                x, lit = leaf.args
                op = leaf.op
                if isinstance(x, n.Lit) and op in _FLIPPED:
                    x, lit, op = lit, x, _FLIPPED[op]
                if not isinstance(lit, n.Lit) or free_vars(x) or not any(
                        isinstance(t, (n.Arg, n.Result)) for t in subformulas(x)):
                    continue
                v = lit.value
                if op in ("startswith", "endswith", "contains") and isinstance(v, str):
                    add((e.tool, x), [fresh + v if op == "endswith" else v + fresh])
                elif op in _FLIPPED and isinstance(v, (int, float)) and not isinstance(v, bool):
                    step = 1 if isinstance(v, int) else 0.5
                    add((e.tool, x), [v - step, v, v + step] if op != "eq" and op != "ne" else [v, v + step])
                elif op in ("eq", "ne") and isinstance(v, str):
                    add((e.tool, x), [v])
    return out


# ------------------------------------------------------------------ triggers


def trigger_happens(trigger: n.Formula, quantifiers: Sequence[n.Forall | n.Exists]) -> n.Formula:
    """"The trigger holds at some position", for some value of each enclosing quantifier
    (outermost first in `quantifiers`)."""
    out = b.eventually(trigger)
    for q in reversed(quantifiers):
        out = b.exists(q.var, q.type, q.domain, out)
    return out


# ------------------------------------------------------------------ instantiation that keeps every trace


class _Alternation(Exception):
    """A quantifier acting as `exists` below one acting as `forall`: no count is defined."""


def existentials(phi: n.Formula, expected: bool = True) -> int | None:
    """How many quantifiers act as `exists` in the claim (`exists` where it must hold,
    `forall` where it must fail); None when one sits below a quantifier acting as `forall`
    (its value would depend on the outer one's).

    >>> from policyc.ir import build as b
    >>> q = b.forall("o", None, b.values("a", ("x",)), b.eventually(b.event("a", b.op("eq", b.arg("x"), b.var("o")))))
    >>> existentials(q), existentials(q, False)
    (0, 1)
    """
    count = 0
    seen: set = set()

    def walk(f: n.Formula, positive: bool, under_forall: bool) -> None:
        nonlocal count
        if (f, positive, under_forall) in seen:
            return
        seen.add((f, positive, under_forall))
        if isinstance(f, n.Not):
            walk(f.arg, not positive, under_forall)
            return
        if isinstance(f, (n.Forall, n.Exists)):
            acts_exists = isinstance(f, n.Exists) == positive
            if acts_exists:
                if under_forall:
                    raise _Alternation()
                count += 1
            walk(f.body, positive, under_forall or not acts_exists)
            return
        for child in f.children:
            if isinstance(child, n.Formula):
                walk(child, positive, under_forall)

    try:
        walk(phi, expected, False)
    except _Alternation:
        return None
    return count


def equality_literals(formulas: Sequence[n.Formula], also: Sequence[n.Formula] = ()) -> list | None:
    """When the values the quantifiers range over are only ever compared for equality (with
    each other and with literals), the literals they are compared with; else None. Then
    renaming a value no formula names to another such value changes no truth value, so an
    instantiation over these literals and enough fresh values keeps a renamed copy of every
    trace. `also`: the other formulas of the question, which read the same calls: their
    conditions on the values count too (`b(n > 5)` elsewhere makes a renaming of `n` change
    the truth of the question)."""
    touched: set[tuple[str | None, n.Term]] = set()
    qvars: set[str] = set()
    literals: list = []
    for phi in formulas:
        for q in subformulas(phi):
            if not isinstance(q, (n.Forall, n.Exists)):
                continue
            qvars.add(q.var)
            try:
                calls, _ = _domain(q.domain)
            except NotInstantiable:
                return None
            touched.update((tool, _path_term(path)) for tool, path, _ in calls)
            for e in subformulas(q.body):
                if isinstance(e, n.Event):
                    for leaf in guard_leaves(e.guard):
                        if isinstance(leaf, n.Op) and leaf.op in ("eq", "ne") and n.Var(q.var) in leaf.args:
                            other = leaf.args[1] if leaf.args[0] == n.Var(q.var) else leaf.args[0]
                            touched.add((e.tool, other))
    for phi in (*formulas, *also):
        for e in subformulas(phi):
            if isinstance(e, n.Event):
                leaves, tool = guard_leaves(e.guard), e.tool
            elif isinstance(e, n.Cond):
                leaves, tool = guard_leaves(e.term), None
            else:
                continue
            for leaf in leaves:
                reads = set(subformulas(leaf))
                if not any(t in reads for tt, t in touched if tt == tool) and not any(
                        n.Var(v) in reads for v in qvars):
                    continue
                if not (isinstance(leaf, n.Op) and leaf.op in ("eq", "ne")
                        and all(isinstance(a, (n.Var, n.Lit)) or (tool, a) in touched for a in leaf.args)):
                    return None
                for a in leaf.args:
                    if isinstance(a, n.Lit) and not any(_same(a.value, x) for x in literals):
                        literals.append(a.value)
    return literals
