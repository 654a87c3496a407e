"""Z3 models back to concrete traces: the witness a finding shows and the tests replay.

Values the formulas never read get the simplest value of their declared type (0, "",
false, [], a record of such), so a witness reads as the shortest story the solver found.
Extern predicates are replayed with the solver's own interpretation of them, so a witness
that involves one is checked against the assumption the solver made.

>>> from policyc.ir import build as b
>>> from policyc.ir.types import ToolSignature, Param, INT
>>> from policyc.smt.encoder import FormulaEncoder
>>> from policyc.smt.symtrace import SymbolicTrace
>>> enc = FormulaEncoder(SymbolicTrace({"a": ToolSignature("a", (Param("x", INT),), INT)}, 2))
>>> phi = b.eventually(b.event("a", b.op("gt", b.arg("x"), b.lit(41))))
>>> s = z3.Solver(); s.add(enc.holds(phi, 0), *enc.trace.constraints); s.check()
sat
>>> from policyc.semantics.evaluator import evaluate
>>> evaluate(phi, decode_trace(s.model(), enc.trace))
True
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Callable, Mapping

import z3

from policyc.ir.data import path_value
from policyc.ir.ops import UNDEF
from policyc.ir.types import (
    ANY,
    ATTRIBUTE_TYPES,
    BOOL,
    FLOAT,
    INT,
    NULL,
    STR,
    DictT,
    EnumT,
    MESSAGE_SIGNATURE,
    ListT,
    OptionalT,
    RecordT,
    Type,
)
from policyc.smt.symtrace import ATTRIBUTE, RESULT, SymbolicTrace
from policyc.smt.values import Dyn, SymValue
from policyc.trace.model import CALL, MESSAGE_KIND, Call, Trace


def decode_trace(model: z3.ModelRef, trace: SymbolicTrace) -> Trace:
    """The concrete trace a model describes."""
    ev = _Evaluator(model, trace)
    names = {str(c): t for t, c in trace.tool_consts.items()}
    calls = []
    for i in range(trace.k):
        if not ev.bool(trace.live[i]):
            break
        tool = names[str(ev(trace.tool[i]))]
        sig = trace.signatures[tool]
        slots = trace.created_slots(i, tool)
        args = {}
        for p in sig.params:
            if p.name in slots:
                value = ev.value(slots[p.name])
                if value is not UNDEF:
                    args[p.name] = value
            elif not isinstance(p.type, OptionalT):
                args[p.name] = default_value(p.type)
        if RESULT in slots:
            result = ev.value(slots[RESULT])
        else:
            result = UNDEF if sig.result is ANY else default_value(sig.result)
        attrs: dict[str, Any] = {}
        for name in ATTRIBUTE_TYPES:
            slot = slots.get(ATTRIBUTE + name)
            if slot is not None:
                value = ev.value(slot)
                attrs[name] = None if value is UNDEF else value
        kind = MESSAGE_KIND if sig == MESSAGE_SIGNATURE else CALL
        calls.append(Call(tool, args, result, i, kind, **attrs))
    metrics = _decode_metrics(model, ev, trace)
    request = ev.value(trace.request_value) if trace.request_value is not None else UNDEF
    text = request.get("text") if isinstance(request, dict) else None
    return Trace(tuple(calls), metrics, request=text if isinstance(text, str) else None)


def extern_bindings(model: z3.ModelRef, funcs: dict) -> dict[str, Callable[..., bool]]:
    """Python functions that answer each extern predicate as the model interprets it: plain
    data (a table per signature), so a witness that carries them can cross processes."""
    by_name: dict[str, list[ExternTable]] = {}
    interpreted = {d.name(): d for d in model.decls()}
    for (name, _sorts), f in funcs.items():
        g = _in_context(f, model.ctx)
        kinds = tuple(_sort_kind(g.domain(j)) for j in range(g.arity()))
        decl = interpreted.get(g.name())
        interp = model[decl] if g.arity() > 0 and decl is not None else None
        entries: dict = {}
        if g.arity() == 0:
            default = z3.is_true(model.eval(g(), model_completion=True))
        elif interp is None:
            default = False
        else:
            for entry in interp.as_list()[:-1]:
                key = tuple(_from_z3(x) for x in entry[:-1])
                entries.setdefault(key, z3.is_true(entry[-1]))
            default = z3.is_true(interp.else_value())
        by_name.setdefault(name, []).append(ExternTable(kinds, entries, default))
    return {name: ExternAnswers(tuple(tables)) for name, tables in by_name.items()}


@dataclass(frozen=True)
class ExternTable:
    """An extern predicate as a model interprets it for one signature: answers by argument
    values, `default` for the others."""

    kinds: tuple[str, ...]  # per argument: int, real, str or bool
    entries: Mapping[tuple, bool]
    default: bool

    def accepts(self, args: tuple) -> bool:
        return len(args) == len(self.kinds) and all(_fits(a, k) for a, k in zip(args, self.kinds))

    def __call__(self, *args) -> bool:
        key = tuple(Fraction(a) if k == "real" else a for a, k in zip(args, self.kinds))
        return self.entries.get(key, self.default)


@dataclass(frozen=True)
class ExternAnswers:
    """An extern predicate over every signature the solver used for it."""

    tables: tuple[ExternTable, ...]

    def __call__(self, *args) -> bool:
        for table in self.tables:
            if table.accepts(args):
                return table(*args)
        return False


def _sort_kind(sort: z3.SortRef) -> str:
    if sort.kind() == z3.Z3_INT_SORT:
        return "int"
    if sort.kind() == z3.Z3_REAL_SORT:
        return "real"
    if sort.kind() == z3.Z3_BOOL_SORT:
        return "bool"
    if sort.kind() == z3.Z3_SEQ_SORT:
        return "str"
    return "other"


def _fits(value: object, kind: str) -> bool:
    if kind == "int":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "real":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if kind == "str":
        return isinstance(value, str)
    if kind == "bool":
        return isinstance(value, bool)
    return False


def _from_z3(value) -> object:
    if z3.is_int_value(value):
        return value.as_long()
    if z3.is_rational_value(value):
        return Fraction(value.numerator_as_long(), value.denominator_as_long())
    if z3.is_true(value) or z3.is_false(value):
        return z3.is_true(value)
    if z3.is_string_value(value):
        return value.as_string()
    return str(value)


def _in_context(term, ctx):
    """A term of the encoding (built in Z3's main context) in the context a model lives in."""
    return term if term.ctx == ctx else term.translate(ctx)


def default_value(t: Type) -> object:
    """The simplest JSON value of a type."""
    if isinstance(t, OptionalT):
        return None
    if t is INT:
        return 0
    if t is FLOAT:
        return 0.0
    if t is STR:
        return ""
    if t is BOOL:
        return False
    if isinstance(t, EnumT):
        return t.members[0] if t.members else ""
    if isinstance(t, ListT):
        return []
    if isinstance(t, DictT):
        return {}
    if isinstance(t, RecordT):
        return {f: default_value(ft) for f, ft in t.fields if not isinstance(ft, OptionalT) and ft is not ANY}
    if t is NULL:
        return None
    return None


class _Evaluator:
    def __init__(self, model: z3.ModelRef, trace: SymbolicTrace):
        self.model = model
        self.trace = trace

    def __call__(self, term):
        return self.model.eval(_in_context(term, self.model.ctx), model_completion=True)

    def bool(self, term) -> bool:
        return z3.is_true(self(term))

    def value(self, v: SymValue) -> object:  # noqa: C901 - one case per kind
        if not self.bool(v.defined):
            return UNDEF
        if self.bool(v.null):
            return None
        if v.kind == "int":
            return self(v.value).as_long()
        if v.kind == "real":
            return _number(self(v.value))
        if v.kind == "str":
            if self.trace.coded_strings:
                return self.trace.text_of(self(v.value).as_long())
            return self(v.value).as_string()
        if v.kind == "bool":
            return self.bool(v.value)
        if v.kind == "null":
            return None
        if v.kind == "list":
            size = self(v.length).as_long()
            return [self.value(e) for e in v.items[:size]]
        if v.kind == "dict":
            size = self(v.length).as_long()
            return {self(k).as_string(): self.value(e) for k, e in zip(v.keys[:size], v.items[:size])}
        if v.kind == "record":
            out = {}
            for name, f in v.fields:
                value = self.value(f)
                if value is not UNDEF:
                    out[name] = value
            return out
        if v.kind == "dyn":
            return self.dyn(v.value)
        return UNDEF

    def dyn(self, d) -> object:
        """The JSON value of an untyped term of the encoding."""
        if z3.is_true(self(Dyn.is_d_null(d))):
            return None
        if z3.is_true(self(Dyn.is_d_bool(d))):
            return z3.is_true(self(Dyn.d_b(d)))
        if z3.is_true(self(Dyn.is_d_num(d))):
            number = _number(self(Dyn.d_r(d)))
            return int(number) if float(number).is_integer() else number
        if z3.is_true(self(Dyn.is_d_str(d))):
            return self(Dyn.d_s(d)).as_string()
        return {"opaque": self(Dyn.d_id(d)).as_long()}


def _number(term) -> float:
    if z3.is_rational_value(term):
        return float(Fraction(term.numerator_as_long(), term.denominator_as_long()))
    if z3.is_algebraic_value(term):
        return float(term.approx(20).as_fraction())
    return float(term.as_long())


def _decode_metrics(model, ev: _Evaluator, trace: SymbolicTrace) -> dict:
    """The metrics record: every value a formula read, at its path (absent when undefined)."""
    metrics: dict = {}
    for path, value in sorted(trace.metrics.items(), key=lambda kv: len(kv[0])):
        decoded = ev.value(value)
        if decoded is UNDEF:
            continue
        node = metrics
        for step in path[:-1]:
            child = node.get(step)
            if not isinstance(child, dict):
                child = node[step] = {}
            node = child
        node[path[-1]] = decoded
    return metrics


def _to_z3(value: object, sort: z3.SortRef):
    if sort == z3.IntSort():
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError
        return z3.IntVal(value)
    if sort == z3.RealSort():
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise TypeError
        f = Fraction(value)
        return z3.RealVal(f"{f.numerator}/{f.denominator}")
    if sort == z3.StringSort():
        if not isinstance(value, str):
            raise TypeError
        return z3.StringVal(value)
    if sort == z3.BoolSort():
        if not isinstance(value, bool):
            raise TypeError
        return z3.BoolVal(value)
    raise TypeError


def pin_trace(trace: SymbolicTrace, concrete: Trace) -> list[z3.BoolRef]:
    """Constraints that fix the symbolic trace to a concrete one (for every value read so far).

    The converse of `decode_trace`: with these asserted, every formula encoded over `trace`
    has the truth value the reference evaluator gives it on `concrete`.
    """
    if len(concrete.calls) > trace.k:
        raise ValueError(f"a trace of {len(concrete.calls)} calls does not fit in {trace.k} positions")
    out: list[z3.BoolRef] = []
    for path, value in trace.metrics.items():
        out.append(pin_value(value, path_value(dict(concrete.metrics), path), trace))
    if trace.request_value is not None:
        request = UNDEF if concrete.request is None else {"text": concrete.request}
        out.append(pin_value(trace.request_value, request, trace))
    for i in range(trace.k):
        if i >= len(concrete.calls):
            out.append(z3.Not(trace.live[i]))
            continue
        call = concrete.calls[i]
        out.append(trace.live[i])
        out.append(trace.tool[i] == trace.tool_consts[call.name])
        for root, value in trace.created_slots(i, call.name).items():
            if root.startswith(ATTRIBUTE):
                actual = getattr(call, root[len(ATTRIBUTE):])
                actual = UNDEF if actual is None else actual
            else:
                actual = call.result if root == RESULT else call.args.get(root, UNDEF)
            out.append(pin_value(value, actual, trace))
    return out


def pin_value(v: SymValue, value: Any, trace: SymbolicTrace | None = None) -> z3.BoolRef:  # noqa: C901
    """The constraint "the symbolic value `v` is the JSON value `value`" (UNDEF for ⊥)."""
    if value is UNDEF:
        return z3.Not(v.defined)
    parts = [v.defined]
    if value is None:
        return z3.And(v.defined, v.null)
    if v.kind != "dyn":
        parts.append(z3.Not(v.null))
    if v.kind == "int":
        parts.append(v.value == z3.IntVal(int(value)))
    elif v.kind == "real":
        parts.append(v.value == _to_z3(value, z3.RealSort()))
    elif v.kind == "str":
        parts.append(v.value == (trace.string(value) if trace is not None else z3.StringVal(value)))
    elif v.kind == "bool":
        parts.append(v.value == z3.BoolVal(value))
    elif v.kind == "list":
        parts.append(v.length == len(value))
        parts.extend(pin_value(e, x, trace) for e, x in zip(v.items, value))
    elif v.kind == "record":
        for name, f in v.fields:
            parts.append(pin_value(f, value.get(name, UNDEF), trace))
    elif v.kind == "dict":
        parts.append(v.length == len(value))
        for (key, item), k, e in zip(value.items(), v.keys, v.items):
            parts.extend([k == z3.StringVal(key), pin_value(e, item, trace)])
    elif v.kind == "dyn":
        parts.append(v.value == _dyn_value(value))
    return z3.And(parts)


def _dyn_value(value: object):
    if value is None:
        return Dyn.d_null
    if isinstance(value, bool):
        return Dyn.d_bool(z3.BoolVal(value))
    if isinstance(value, (int, float)):
        return Dyn.d_num(_to_z3(value, z3.RealSort()))
    if isinstance(value, str):
        return Dyn.d_str(z3.StringVal(value))
    return Dyn.d_other(z3.IntVal(abs(hash(repr(value))) % 10**9))
