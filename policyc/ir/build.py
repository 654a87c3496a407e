"""Smart constructors: the only way formulas and terms should be built.

They fold constants and trivial identities, flatten and sort conjunctions and disjunctions,
and rewrite derived operators (F, G, W, O, H, ->, <->) into the core. Every identity used
here holds on finite traces, including the empty trace: a formula is evaluated at positions
of the trace, and at position 0 of an empty trace no event holds, `X`/`F`/`U` are false and
`WX`/`G`/`R` are true.

>>> from policyc.ir.nodes import Event, TRUE
>>> a, b = event("a"), event("b")
>>> conj(a, conj(b, TRUE), a) is conj(b, a)
True
>>> eventually(eventually(a)) is eventually(a), neg(neg(a)) is a
(True, True)
>>> op("add", lit(2), lit(3)) is lit(5)
True
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterable, Sequence, TypeGuard, cast

from policyc.ir import ops as _ops
from policyc.ir.nodes import (
    FALSE,
    TRUE,
    And,
    Arg,
    Attr,
    Cond,
    Const,
    Earlier,
    Event,
    Exists,
    Extern,
    Field,
    Forall,
    Flows,
    Formula,
    From,
    Index,
    Lit,
    Metric,
    Next,
    Not,
    Op,
    Or,
    Outputs,
    Done,
    Project,
    Quant,
    Release,
    Request,
    Result,
    Since,
    Slice,
    Term,
    Trigger,
    Until,
    Values,
    Var,
    WNext,
    WYesterday,
    Yesterday,
)
from policyc.ir.types import Type

if TYPE_CHECKING:
    from policyc.grounding.provenance import SourceSet

LIT_TRUE = Lit(True)
LIT_FALSE = Lit(False)


# ------------------------------------------------------------------ terms


def lit(value: object) -> Lit:
    return Lit(value)


def var(name: str) -> Var:
    return Var(name)


def arg(name: str) -> Arg:
    return Arg(name)


def result() -> Result:
    return Result()


#: The attributes every event has (`Attr`), and what they are when a trace does not say.
EVENT_ATTRIBUTES = ("actor", "message_id", "error")


def attr(name: str) -> Attr:
    if name not in EVENT_ATTRIBUTES:
        raise ValueError(f"not an event attribute: {name}")
    return Attr(name)


def request() -> Request:
    return Request()


def field(base: Term, name: str) -> Term:
    if isinstance(base, Lit):
        return Lit(_ops.get_field(base.value, name)) if _ops.get_field(base.value, name) is not _ops.UNDEF else Field(base, name)
    return Field(base, name)


def index(base: Term, idx: Term) -> Term:
    if isinstance(base, Lit) and isinstance(idx, Lit):
        value = _ops.get_index(base.value, idx.value)
        if value is not _ops.UNDEF:
            return Lit(value)
    return Index(base, idx)


def slice_(base: Term, start: Term | None, stop: Term | None) -> Term:
    if isinstance(base, Lit) and (start is None or isinstance(start, Lit)) and (stop is None or isinstance(stop, Lit)):
        value = _ops.get_slice(base.value, start.value if start else None, stop.value if stop else None)
        if value is not _ops.UNDEF:
            return Lit(value)
    return Slice(base, start, stop)


def op(name: str, *args: Term) -> Term:
    """Apply an operator; constant operands are folded (⊥ results are left unfolded)."""
    spec = _ops.OPS[name]
    if spec.kind == "bool":
        return _bool_op(name, args)
    if all(isinstance(a, Lit) for a in args) and name not in ("in", "actions"):  # actions: by the evaluation's reader
        value = _ops.apply_op(name, *(cast(Lit, a).value for a in args))
        if value is not _ops.UNDEF:
            return Lit(value)
    return Op(name, tuple(args))


def _bool_op(name: str, args: tuple[Term, ...]) -> Term:
    if name == "not":
        (a,) = args
        if isinstance(a, Lit):
            return Lit(not _ops.truthy(a.value))
        if isinstance(a, Op) and a.op == "not":
            inner = a.args[0]
            if is_boolean_term(inner):
                return inner
        return Op("not", (a,))
    unit, zero = (LIT_TRUE, LIT_FALSE) if name == "and" else (LIT_FALSE, LIT_TRUE)
    flat: list[Term] = []
    for a in args:
        if isinstance(a, Op) and a.op == name:
            flat.extend(a.args)
        else:
            flat.append(a)
    out: list[Term] = []
    for a in flat:
        if isinstance(a, Lit):
            if _ops.truthy(a.value) == (name == "and"):
                continue  # the unit
            return zero
        if a not in out:
            out.append(a)
    if not out:
        return unit
    if len(out) == 1 and is_boolean_term(out[0]):
        return out[0]
    return Op(name, tuple(out))


def is_boolean_term(t: Term) -> bool:
    """Whether `t` always evaluates to true or false (never ⊥ or a non-boolean)."""
    if isinstance(t, Lit):
        return isinstance(t.value, bool)
    if isinstance(t, Op):
        return _ops.OPS[t.op].kind in ("compare", "bool") or t.op in ("contains", "startswith", "endswith", "matches")
    return isinstance(t, (Extern, Quant, From, Flows, Earlier))


def quant(kind: str, name: str, domain: Term, body: Term) -> Term:
    """`forall name in domain: body` (or `exists`) as a condition inside an event pattern.

    >>> quant("forall", "t", result(), LIT_TRUE), quant("exists", "t", lit([]), op("eq", var("t"), lit(1)))
    (true, false)
    """
    universal = kind == "forall"
    if isinstance(body, Lit) and isinstance(body.value, bool) and body.value is universal:
        return LIT_TRUE if universal else LIT_FALSE  # whatever the elements, and over none
    if isinstance(domain, Lit) and domain.value in ([], None):
        return LIT_TRUE if universal else LIT_FALSE
    return Quant(kind, name, domain, body)


def project(base: Term, path: tuple[str, ...]) -> Project:
    """`base[*].path`: the path of every element of the list `base`."""
    return Project(base, tuple(path))


def from_(value: Term, label: str, sources: Iterable[Sequence[Any]], only: bool = False) -> From:
    """`value from S` (`value only from S`), S resolved to a `provenance.SourceSet`."""
    return From(value, only, label, source_set(sources))


def flows(label: str, sources: Iterable[Sequence[Any]], text: Term, span: int) -> Flows:
    """`flows(S, text, span)`."""
    return Flows(label, source_set(sources), text, span)


def source_set(rules: Iterable[Sequence[Any]]) -> SourceSet:
    """A `provenance.SourceSet` as the IR holds it: tuples all the way down."""
    return tuple((str(s), str(t), tuple(p), bool(i)) for s, t, p, i in rules)


def earlier(tool: str, var_name: str, guard: Term, value: Term) -> Term:
    """A history atom (`nodes.Earlier`): some event before the current one is a call to `tool`
    satisfying `guard` with `var_name` bound to `value`. False when no call can satisfy it."""
    if isinstance(guard, Lit) and not _ops.truthy(guard.value):
        return LIT_FALSE
    return Earlier(tool, var_name, guard, value)


def extern(name: str, *args: Term) -> Extern:
    return Extern(name, tuple(args))


def values(tool: str, path: Sequence[str | int] = (), flatten: bool = False) -> Values:
    return Values(tool, tuple(path), flatten)


def outputs(tools: Iterable[str] = ()) -> Outputs:
    return Outputs(tuple(sorted(set(tools))))


def done(terminal: Iterable[str] = ()) -> Done:
    return Done(tuple(sorted(set(terminal))))


def metric(path: Sequence[str | int]) -> Metric:
    return Metric(tuple(path))


# ------------------------------------------------------------------ formulas


def const(value: bool) -> Const:
    return TRUE if value else FALSE


def event(tool: str, guard: Term = LIT_TRUE) -> Formula:
    if isinstance(guard, Lit):
        return Event(tool, LIT_TRUE) if _ops.truthy(guard.value) else FALSE
    return Event(tool, guard)


def cond(term: Term) -> Formula:
    if isinstance(term, Lit):
        return const(_ops.truthy(term.value))
    return Cond(term)


def neg(f: Formula) -> Formula:
    if f is TRUE:
        return FALSE
    if f is FALSE:
        return TRUE
    if isinstance(f, Not):
        return f.arg
    return Not(f)


def _nary(cls: type[And | Or], unit: Formula, zero: Formula, fs: Iterable[Formula]) -> Formula:
    items: dict[Formula, None] = {}
    for f in fs:
        if isinstance(f, cls):
            for g in f.args:
                items[g] = None
        elif f is zero:
            return zero
        elif f is not unit:
            items[f] = None
    for f in items:
        if isinstance(f, Not) and f.arg in items:
            return zero
    exclusive = _exclusive_events(cls, items)
    if exclusive is None:
        return zero
    items = exclusive
    if not items:
        return unit
    if len(items) == 1:
        return next(iter(items))
    return cls(tuple(sorted(items, key=lambda n: n.skey)))


def _exclusive_events(cls: type[And | Or], items: dict[Formula, None]) -> dict[Formula, None] | None:
    """One call per position: events of different tools exclude each other.

    In a conjunction, positive events of two different tools make it false (None), and a
    positive event of tool a makes every `not b` of another tool b redundant. Dually, in a
    disjunction, `not a or not b` is true and `not a` absorbs events of other tools.
    """
    conjunction = cls is And
    if conjunction:
        tools = {f.tool for f in items if isinstance(f, Event)}
    else:
        tools = {f.arg.tool for f in items if isinstance(f, Not) and isinstance(f.arg, Event)}
    if len(tools) > 1:
        return None
    if not tools:
        return items

    def redundant(f: Formula) -> bool:
        if conjunction:
            return isinstance(f, Not) and isinstance(f.arg, Event) and f.arg.tool not in tools
        return isinstance(f, Event) and f.tool not in tools

    return {f: None for f in items if not redundant(f)}


def conj(*fs: Formula) -> Formula:
    return _nary(And, TRUE, FALSE, fs)


def disj(*fs: Formula) -> Formula:
    return _nary(Or, FALSE, TRUE, fs)


def implies(a: Formula, b: Formula) -> Formula:
    return disj(neg(a), b)


def iff(a: Formula, b: Formula) -> Formula:
    return conj(implies(a, b), implies(b, a))


def next_(f: Formula) -> Formula:
    return FALSE if f is FALSE else Next(f)


def wnext(f: Formula) -> Formula:
    return TRUE if f is TRUE else WNext(f)


def until(a: Formula, b: Formula) -> Formula:
    if b is FALSE:
        return FALSE
    if isinstance(b, Until) and b.left is TRUE and a is TRUE:
        return b  # F F b = F b
    return Until(a, b)


def release(a: Formula, b: Formula) -> Formula:
    if b is TRUE:
        return TRUE
    if isinstance(b, Release) and b.left is FALSE and a is FALSE:
        return b  # G G b = G b
    return Release(a, b)


def eventually(f: Formula) -> Formula:
    return until(TRUE, f)


def always(f: Formula) -> Formula:
    return release(FALSE, f)


def weak_until(a: Formula, b: Formula) -> Formula:
    return release(b, disj(a, b))


def yesterday(f: Formula) -> Formula:
    return FALSE if f is FALSE else Yesterday(f)


def wyesterday(f: Formula) -> Formula:
    return TRUE if f is TRUE else WYesterday(f)


def since(a: Formula, b: Formula) -> Formula:
    if b is FALSE:
        return FALSE
    if isinstance(b, Since) and b.left is TRUE and a is TRUE:
        return b
    return Since(a, b)


def trigger(a: Formula, b: Formula) -> Formula:
    if b is TRUE:
        return TRUE
    if isinstance(b, Trigger) and b.left is FALSE and a is FALSE:
        return b
    return Trigger(a, b)


def once(f: Formula) -> Formula:
    return since(TRUE, f)


def historically(f: Formula) -> Formula:
    return trigger(FALSE, f)


def forall(name: str, type_: Type | None, domain: Term, body: Formula) -> Formula:
    if body is TRUE:
        return TRUE
    if isinstance(domain, Lit) and domain.value == []:
        return TRUE
    return Forall(name, type_, domain, body)


def exists(name: str, type_: Type | None, domain: Term, body: Formula) -> Formula:
    if body is FALSE:
        return FALSE
    if isinstance(domain, Lit) and domain.value == []:
        return FALSE
    return Exists(name, type_, domain, body)


# ------------------------------------------------------------------ derived views


def is_eventually(f: Formula) -> TypeGuard[Until]:
    return isinstance(f, Until) and f.left is TRUE


def is_always(f: Formula) -> TypeGuard[Release]:
    return isinstance(f, Release) and f.left is FALSE


def is_once(f: Formula) -> TypeGuard[Since]:
    return isinstance(f, Since) and f.left is TRUE


def is_historically(f: Formula) -> TypeGuard[Trigger]:
    return isinstance(f, Trigger) and f.left is FALSE
