"""Data terms to symbolic values: `policyc.ir.data.eval_term`, clause by clause, for Z3.

Exact for literals, arguments, results, fields, indexing, arithmetic, comparisons, string
tests, membership, the connectives and quantifiers over a call's (bounded) lists.
Over-approximated (the solver may choose any value, so "no trace exists" stays sound and a
witness may fail to replay): extern predicates (uninterpreted functions), `entities(...)`,
`outputs`, `lower`/`upper`/`strip`, float `%`, indexing or slicing with bounds that are not
constants, quantifiers over untyped values, and provenance. Each use is recorded in `approx`.

>>> from policyc.ir import build as b
>>> from policyc.ir.types import ToolSignature, Param, INT
>>> from policyc.smt.symtrace import SymbolicTrace
>>> enc = TermEncoder(SymbolicTrace({"a": ToolSignature("a", (Param("x", INT),), INT)}, 1))
>>> v = enc.term(b.op("gt", b.arg("x"), b.lit(2)), TermEnv({}, (0, "a")))
>>> v.kind
'bool'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping

import z3

from policyc.ir import nodes as n
from policyc.ir.dispatch import Cases
from policyc.ir.walk import free_vars
from policyc.smt import values as V
from policyc.smt.symtrace import SymbolicTrace
from policyc.smt.values import FALSE, TRUE, SymValue, boolean, undefined


@dataclass(frozen=True)
class TermEnv:
    """Variables in scope and the call whose arguments `Arg`/`Result` read (position, tool)."""

    vars: Mapping[str, SymValue]
    call: tuple[int, str] | None = None

    def bind(self, name: str, value: SymValue) -> "TermEnv":
        return TermEnv({**self.vars, name: value}, self.call)

    def at_call(self, i: int, tool: str) -> "TermEnv":
        return TermEnv(self.vars, (i, tool))


#: The symbolic value of each kind of term (a method of `TermEncoder` each).
_TERMS: Cases[Callable[[TermEncoder, Any, TermEnv], SymValue]] = Cases("the term encoding", n.TERMS)


class TermEncoder:
    """Encodes terms over one symbolic trace; remembers what it had to approximate."""

    def __init__(self, trace: SymbolicTrace):
        self.trace = trace
        self.approx: set[str] = set()
        self.externs: dict[tuple[str, tuple[z3.SortRef, ...]], z3.FuncDeclRef] = {}
        self._funcs: dict = {}
        self._fresh = 0
        #: (term, call, the values of its free variables) -> (those values, its encoding): a term
        #: is a function of them, and the same term is read at the same call by many formulas
        self._memo: dict[tuple[object, ...], tuple[tuple[SymValue, ...], SymValue]] = {}

    def derive(self, trace: SymbolicTrace) -> "TermEncoder":
        """A copy over a derived trace (see `SymbolicTrace.derive`)."""
        child = TermEncoder(trace)
        child.approx = set(self.approx)
        child.externs = dict(self.externs)
        child._funcs = dict(self._funcs)
        child._fresh = self._fresh
        child._memo = dict(self._memo)
        return child

    # ------------------------------------------------------------ helpers

    def _func(self, name: str, *sorts: z3.SortRef) -> z3.FuncDeclRef:
        key = (name, sorts)
        f = self._funcs.get(key)
        if f is None:
            f = self._funcs[key] = z3.Function(f"{name}#{len(self._funcs)}", *sorts)
        return f

    def _fresh_list(self, label: str, elem_kind: str = "str") -> SymValue:
        """An unconstrained list of strings, or of numbers (`elem_kind` "real"), of at most
        `list_bound` elements."""
        if self.trace.coded_strings and elem_kind == "str":
            raise V.NeedsStrings()
        self._fresh += 1
        name = f"{self.trace.name}.{label}#{self._fresh}"
        length = z3.Int(f"{name}#len")
        self.trace.constraints.append(z3.And(length >= 0, length <= self.trace.list_bound))
        make = z3.Real if elem_kind == "real" else z3.String
        items = tuple(SymValue(elem_kind, value=make(f"{name}[{j}]")) for j in range(self.trace.list_bound))
        return SymValue("list", items=items, length=length)

    def lit(self, value: object) -> SymValue:
        """A JSON constant; its strings coded as integers when the trace codes strings."""
        if not self.trace.coded_strings:
            return V.lit_value(value)
        if isinstance(value, str):
            return SymValue("str", value=self.trace.string(value))
        if isinstance(value, list):
            items = tuple(self.lit(v) for v in value)
            return SymValue("list", items=items, length=z3.IntVal(len(items)))
        if isinstance(value, dict):
            return SymValue("record", fields=tuple((k, self.lit(v)) for k, v in value.items()))
        return V.lit_value(value)

    # ------------------------------------------------------------ terms

    def term(self, t: n.Term, env: TermEnv) -> SymValue:
        """The symbolic value of a term in an environment (memoised): one case per kind of term."""
        if isinstance(t, n.Lit):
            return self.lit(t.value)
        bound = tuple(env.vars[v] for v in sorted(free_vars(t)) if v in env.vars)
        key = (t, env.call, tuple(id(v) for v in bound))
        found = self._memo.get(key)
        if found is None:
            # the values kept with it: their ids stay theirs
            found = self._memo[key] = (bound, _TERMS[t.__class__](self, t, env))
        return found[1]

    @_TERMS.on(n.Lit)
    def _lit(self, t: n.Lit, env: TermEnv) -> SymValue:
        return self.lit(t.value)

    @_TERMS.on(n.Var)
    def _var(self, t: n.Var, env: TermEnv) -> SymValue:
        return env.vars.get(t.name) or undefined()

    @_TERMS.on(n.Arg)
    def _arg(self, t: n.Arg, env: TermEnv) -> SymValue:
        return self.trace.arg(env.call[0], env.call[1], t.name) if env.call else undefined()

    @_TERMS.on(n.Result)
    def _result(self, t: n.Result, env: TermEnv) -> SymValue:
        return self.trace.result(env.call[0], env.call[1]) if env.call else undefined()

    @_TERMS.on(n.Attr)
    def _attr(self, t: n.Attr, env: TermEnv) -> SymValue:
        # a value of the attribute's type per call, read back into the witness's events
        return self.trace.attribute(env.call[0], env.call[1], t.name) if env.call else undefined()

    @_TERMS.on(n.Field)
    def _field(self, t: n.Field, env: TermEnv) -> SymValue:
        return self.get_field(self.term(t.base, env), t.name)

    @_TERMS.on(n.Index)
    def _index(self, t: n.Index, env: TermEnv) -> SymValue:
        return self.get_index(self.term(t.base, env), t.index, env)

    @_TERMS.on(n.Slice)
    def _slice(self, t: n.Slice, env: TermEnv) -> SymValue:
        return self.get_slice(self.term(t.base, env), t, env)

    @_TERMS.on(n.Op)
    def _op(self, t: n.Op, env: TermEnv) -> SymValue:
        from policyc.smt.operators import apply_op

        return apply_op(self, t, env)

    @_TERMS.on(n.Extern)
    def _extern(self, t: n.Extern, env: TermEnv) -> SymValue:
        return self.extern(t, env)

    @_TERMS.on(n.Values)
    def _values(self, t: n.Values, env: TermEnv) -> SymValue:
        return SymValue("family", members=tuple(self.values_members(t)))

    @_TERMS.on(n.Outputs)
    def _outputs(self, t: n.Outputs, env: TermEnv) -> SymValue:
        self.approx.add("outputs")
        return SymValue("outputs", value=z3.StringVal(",".join(t.tools)))

    @_TERMS.on(n.Done)
    def _done(self, t: n.Done, env: TermEnv) -> SymValue:  # membership is exact (`operators._done_member`)
        return SymValue("done", value=z3.StringVal(",".join(t.terminal)))

    @_TERMS.on(n.Metric)
    def _metric(self, t: n.Metric, env: TermEnv) -> SymValue:
        return self.trace.metric(t.path)

    @_TERMS.on(n.Request)
    def _request(self, t: n.Request, env: TermEnv) -> SymValue:
        return self.trace.request()

    @_TERMS.on(n.Quant)
    def _quant(self, t: n.Quant, env: TermEnv) -> SymValue:
        """A quantifier over a call's list (`exists x in result: x.status == "Overdue"`): one
        case per element the bounded list may have, as `forall`/`exists` over a formula's
        domain; over an untyped value or a trace-wide set, a free condition."""
        members = self.members(self.term(t.domain, env))
        if members is None:
            self.approx.add("quantifiers inside patterns")
            return boolean(z3.Bool(f"quant#{self._next()}"))
        cases = [(g, V.truthy(self.term(t.body, env.bind(t.var, v)))) for g, v in members if g is not FALSE]
        if t.kind == "forall":
            return boolean(V.conj(*[z3.Implies(g, holds) for g, holds in cases]))
        return boolean(V.disj(*[V.conj(g, holds) for g, holds in cases]))

    def members(self, value: SymValue) -> list[tuple[z3.BoolRef, SymValue]] | None:
        """The elements a quantifier over this value ranges over, as (exists, value) pairs
        (`policyc.semantics.domains.domain_values`): a bounded list's elements, a dict's keys, a
        record's field names, a scalar itself; None for the values whose elements Z3 does not
        see (families, `outputs`, untyped values)."""
        if value.kind == "list":
            return [(V.item_live(value, j), e) for j, e in enumerate(value.items)]
        if value.kind == "dict":
            return [(V.item_live(value, j), SymValue("str", value=k)) for j, k in enumerate(value.keys)]
        if value.kind == "record":
            return [(z3.And(value.present, f.defined), self.lit(name)) for name, f in value.fields]
        if value.kind in ("family", "outputs", "done", "dyn"):
            return None
        return [(value.present, value)]

    @_TERMS.on(n.From, n.Flows)
    def _free_condition(self, t: n.From | n.Flows, env: TermEnv) -> SymValue:
        # provenance is not encoded: a free condition (with, for `x from S`, a hint a witness
        # may be asked to meet: `PolicySolver.require_sourced`)
        self.approx.add("provenance")
        flag = z3.Bool(f"{type(t).__name__.lower()}#{self._next()}")
        if isinstance(t, n.From) and env.call is not None:
            hint = self._shown_before(t, env)
            if hint is not None:
                self.trace.sourced.append(z3.Implies(flag, hint))
        return boolean(flag)

    def _shown_before(self, t: n.From, env: TermEnv) -> z3.BoolRef | None:
        """"The value of `x from S` is one an earlier result of a source tool shows (a text or
        a number at one of its places, not empty), or a word of the request's text when the
        request is a source": neither sufficient nor necessary for the evaluator's `from`
        (which matches words and entities), so only a hint for finding a witness, which is
        replayed. None when the value is no scalar, or a source the hint does not model (the
        user's messages, the default) may show it."""
        value = self.term(t.value, env)
        if value.kind not in ("str", "int", "real") or env.call is None:
            return None
        here = env.call[0]
        options: list[z3.BoolRef] = []
        for selector, tool, path, included in t.sources:
            if not included:
                continue
            if selector == "tool" and tool in self.trace.signatures:
                for p in range(here):
                    shown = self.trace.result(p, tool)
                    for step in path:
                        shown = self.get_field(shown, step) if isinstance(step, str) else undefined()
                    places = [V.conj(g, V.values_equal(value, leaf)) for g, leaf in _scalars(shown)
                              if leaf.kind == value.kind or {leaf.kind, value.kind} <= {"int", "real"}]
                    if places:
                        options.append(V.conj(self.trace.is_call(p, tool), V.disj(*places)))
            elif selector == "request" and value.kind == "str" and not self.trace.coded_strings:
                text = self.get_field(self.trace.request(), "text")
                if text.kind == "str":  # one word of the request's text
                    space = z3.StringVal(" ")
                    options.append(V.conj(text.present, value.present, z3.InRe(value.value, _word()),
                                          z3.Contains(z3.Concat(space, text.value, space),
                                                      z3.Concat(space, value.value, space))))
        if not options:  # shown nowhere: impossible when only earlier results of tools can show it
            return FALSE if all(sel == "tool" for sel, _, _, included in t.sources if included) else None
        nonempty = V.negate(V.values_equal(value, self.lit(""))) if value.kind == "str" else TRUE
        return V.conj(nonempty, V.disj(*options))

    @_TERMS.on(n.Project)
    def _project(self, t: n.Project, env: TermEnv) -> SymValue:  # any value: an untyped one, as a field of `any` is
        self.approx.add("`[*]` projections")
        return SymValue("dyn", z3.Bool(f"project?def#{self._next()}"), FALSE,
                        z3.Const(f"project#{self._next()}", V.Dyn))

    @_TERMS.on(n.Earlier)
    def _earlier(self, t: n.Earlier, env: TermEnv) -> SymValue:
        # a history atom is the compiler's, read by a run's stores: no policy formula has one
        raise TypeError(f"not a term: {type(t).__name__}")

    def values_members(self, t: n.Values) -> list[tuple[z3.BoolRef, SymValue]]:
        """The values of `tool.path` over the trace: one (guard, value) per call (and element)."""
        out: list[tuple[z3.BoolRef, SymValue]] = []
        for i in range(self.trace.k):
            guard = self.trace.is_call(i, t.tool)
            value = self.path_value(i, t.tool, t.path)
            live = z3.And(guard, value.present)
            if t.flatten and value.kind == "list":
                out.extend((z3.And(live, V.item_live(value, j)), e) for j, e in enumerate(value.items))
            else:
                out.append((live, value))
        return out

    def path_value(self, i: int, tool: str, path: tuple) -> SymValue:
        if not path:
            return undefined()
        if path[0] == "result":
            value = self.trace.result(i, tool)
        else:
            value = self.trace.arg(i, tool, path[0])
        for step in path[1:]:
            value = self.get_index(value, n.Lit(step), TermEnv({})) if isinstance(step, int) \
                else self.get_field(value, step)
        return value

    # ------------------------------------------------------------ access

    def get_field(self, base: SymValue, name: str) -> SymValue:
        if base.kind == "record":
            f = base.field(name)
            return undefined() if f is None else _restrict(f, base.present)
        if base.kind == "dict":
            return self._dict_lookup(base, z3.StringVal(name))
        if base.kind == "dyn":
            self.approx.add("fields of untyped values")
            f = self._func("field." + name, V.Dyn, V.Dyn)(base.value)
            has = self._func("has." + name, V.Dyn, z3.BoolSort())(base.value)
            return SymValue("dyn", z3.And(base.present, has), V.Dyn.is_d_null(f), f)
        return undefined()

    def _dict_lookup(self, base: SymValue, key: z3.ExprRef) -> SymValue:
        hits = [(z3.And(V.item_live(base, j), k == key), v) for j, (k, v) in enumerate(zip(base.keys, base.items))]
        return _select(hits)

    def get_index(self, base: SymValue, index: n.Term, env: TermEnv) -> SymValue:
        idx = self.term(index, env)
        if base.kind == "list" and idx.kind == "int":
            hits = []
            for j, e in enumerate(base.items):
                pos = z3.And(idx.value == j, j < base.length)
                neg = z3.And(idx.value < 0, idx.value + base.length == j)
                hits.append((z3.And(base.present, idx.present, z3.Or(pos, neg)), e))
            return _select(hits)
        if base.kind in ("record", "dict") and idx.kind == "str":
            if isinstance(index, n.Lit) and isinstance(index.value, str) and base.kind == "record":
                return self.get_field(base, index.value)
            if base.kind == "dict":
                out = self._dict_lookup(base, idx.value)
                return _restrict(out, idx.present)
            V.require_text(idx)
            hits = [(z3.And(base.present, idx.present, idx.value == z3.StringVal(name)), v)
                    for name, v in base.fields]
            return _select(hits)
        if base.kind == "str" and idx.kind == "int":
            V.require_text(base)
            length = z3.Length(base.value)
            j = z3.If(idx.value < 0, idx.value + length, idx.value)
            ok = z3.And(base.present, idx.present, j >= 0, j < length)
            return SymValue("str", ok, FALSE, z3.SubString(base.value, j, 1))
        if base.kind == "dyn":
            self.approx.add("indexing untyped values")
            return SymValue("dyn", z3.Bool(f"idx?def#{self._next()}"), FALSE, z3.Const(f"idx#{self._next()}", V.Dyn))
        return undefined()

    def get_slice(self, base: SymValue, t: n.Slice, env: TermEnv) -> SymValue:
        const = all(x is None or _int_literal(x) is not None for x in (t.start, t.stop))
        lo = _int_literal(t.start) if const else None
        hi = _int_literal(t.stop) if const else None
        if base.kind == "list" and const and (lo is None or lo >= 0) and (hi is None or hi >= 0):
            lo = lo or 0
            items = base.items[lo:hi] if hi is not None else base.items[lo:]
            length = base.length - lo if hi is None else z3.If(base.length < hi, base.length, hi) - lo
            return SymValue("list", base.defined, base.null, items=items,
                            length=z3.If(length < 0, 0, length))
        if base.kind == "str":
            V.require_text(base)
        if base.kind == "str" and const and (lo is None or lo >= 0) and (hi is None or hi >= 0):
            lo = lo or 0
            size = z3.Length(base.value)
            end = size if hi is None else z3.If(size < hi, size, hi)
            count = z3.If(end - lo < 0, 0, end - lo)
            return SymValue("str", base.defined, base.null, z3.SubString(base.value, lo, count))
        if base.kind in ("list", "str"):
            self.approx.add("slices with computed or negative bounds")
            if base.kind == "str":
                return SymValue("str", base.present, FALSE, z3.String(f"slice#{self._next()}"))
            return _restrict(self._fresh_list("slice"), base.present)
        return undefined()

    def extern(self, t: n.Extern, env: TermEnv) -> SymValue:
        """An extern predicate: an uninterpreted function of its (defined) arguments."""
        args = [self.term(a, env) for a in t.args]
        V.require_text(*args)  # the replay calls the Python function with real strings
        self.approx.add(f"extern `{t.name}`")
        sorts = tuple(_sort_of(a) for a in args)
        key = (t.name, sorts)
        f = self.externs.get(key)
        if f is None:
            f = self.externs[key] = z3.Function(f"extern.{t.name}#{len(self.externs)}", *sorts, z3.BoolSort())
        payload = [a.value if a.value is not None else z3.IntVal(0) for a in args]
        return boolean(z3.And(*[a.defined for a in args], f(*payload)) if args else f())

    def _next(self) -> int:
        self._fresh += 1
        return self._fresh


_TERMS.complete()


def _int_literal(t: n.Term | None) -> int | None:
    """The value of an integer literal (not a boolean); None for any other term."""
    if isinstance(t, n.Lit) and isinstance(t.value, int) and not isinstance(t.value, bool):
        return t.value
    return None


def _sort_of(v: SymValue) -> z3.SortRef:
    return v.value.sort() if v.value is not None else z3.IntSort()


def _restrict(v: SymValue, cond: z3.BoolRef) -> SymValue:
    """The same value, undefined unless `cond`."""
    return SymValue(v.kind, z3.And(cond, v.defined), v.null, v.value, v.items, v.length, v.fields,
                    v.keys, v.members, v.approx)


def _select(hits: list[tuple[z3.BoolRef, SymValue]]) -> SymValue:
    """The value whose guard holds (guards are mutually exclusive), ⊥ when none does."""
    if not hits:
        return undefined()
    kinds = {v.kind for _, v in hits}
    if len(kinds) != 1 or next(iter(kinds)) not in ("int", "real", "str", "bool", "dyn", "null"):
        # composite elements: a list of candidates would be needed; pick by nested selection
        first_guard, first = hits[0]
        if len(hits) == 1:
            return _restrict(first, first_guard)
        return _merge_composite(hits)
    any_hit = z3.Or([g for g, _ in hits])
    value = hits[-1][1].value
    defined = z3.Or([z3.And(g, v.defined) for g, v in hits])
    null = z3.Or([z3.And(g, v.null) for g, v in hits])
    for g, v in reversed(hits[:-1]):
        value = z3.If(g, v.value, value) if v.value is not None else value
    return SymValue(hits[0][1].kind, z3.And(any_hit, defined), null, value)


def _merge_composite(hits: list[tuple[z3.BoolRef, SymValue]]) -> SymValue:
    kind = hits[0][1].kind
    if any(v.kind != kind for _, v in hits) or kind not in ("record", "list"):
        return undefined()
    defined = z3.Or([z3.And(g, v.defined) for g, v in hits])
    null = z3.Or([z3.And(g, v.null) for g, v in hits])
    if kind == "record":
        names = [name for name, _ in hits[0][1].fields]
        fields = tuple((name, _select([(g, v.field(name) or undefined()) for g, v in hits])) for name in names)
        return SymValue("record", defined, null, fields=fields)
    size = min(len(v.items) for _, v in hits)
    items = tuple(_select([(g, v.items[j]) for g, v in hits]) for j in range(size))
    length = hits[-1][1].length
    for g, v in reversed(hits[:-1]):
        length = z3.If(g, v.length, length)
    return SymValue("list", defined, null, items=items, length=length)


__all__ = ["TermEncoder", "TermEnv", "TRUE", "FALSE"]


def _scalars(v: SymValue) -> list[tuple[z3.BoolRef, SymValue]]:
    """The texts and numbers a value holds, each with the condition that it is there: the
    value itself, a record's fields, a bounded list's items (not inside untyped values)."""
    if v.kind in ("str", "int", "real"):
        return [(v.present, v)]
    if v.kind == "record":
        return [(V.conj(v.present, g), x) for _, f in v.fields for g, x in _scalars(f)]
    if v.kind in ("list", "dict"):
        return [(V.conj(V.item_live(v, j), g), x) for j, e in enumerate(v.items) for g, x in _scalars(e)]
    return []


def _word() -> z3.ReRef:
    """Letters and digits, at least one: a word wherever it stands between spaces."""
    return z3.Plus(z3.Union(z3.Range("a", "z"), z3.Range("A", "Z"), z3.Range("0", "9")))

