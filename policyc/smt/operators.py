"""The operators of `policyc.ir.ops` over symbolic values, with the same ⊥ rules.

Strict operators (arithmetic, `len`, `min`, ...) are ⊥ when an operand is ⊥ or of the wrong
kind; comparisons and membership are false then; `not ⊥` is true.

>>> from policyc.ir import build as b
>>> from policyc.smt.symtrace import SymbolicTrace
>>> from policyc.smt.terms import TermEncoder, TermEnv
>>> enc = TermEncoder(SymbolicTrace({}, 0))
>>> v = apply_op(enc, b.op("mod", b.var("x"), b.lit(3)), TermEnv({"x": values.lit_value(-7)}))
>>> z3.simplify(v.value)
2
"""

from __future__ import annotations

import z3

from policyc.ir import nodes as n
from policyc.smt import values
from policyc.smt.values import FALSE, TRUE, SymValue, boolean, is_numeric, undefined


def apply_op(enc, t: n.Op, env) -> SymValue:  # noqa: C901 - one case per operator
    op = t.op
    if op == "and":
        return boolean(values.conj(*[values.truthy(enc.term(a, env)) for a in t.args]))
    if op == "or":
        return boolean(z3.Or([values.truthy(enc.term(a, env)) for a in t.args]))
    args = [enc.term(a, env) for a in t.args]
    if op == "len" and isinstance(t.args[0], n.Values):  # `len(search.query)`: its distinct values
        return _distinct_count(args[0])
    if op in _LIST_USES and any(a.kind == "family" for a in args):
        # trace-wide values compared as a list, or measured once combined: not encoded
        enc.approx.add("trace-wide values used as a list")
        if op == "len":
            return SymValue("int", TRUE, FALSE, z3.Int(f"len#{enc._next()}"))
        return boolean(z3.Bool(f"list#{enc._next()}"))
    if op == "not":
        return boolean(z3.Not(values.truthy(args[0])))
    if op == "eq":
        return boolean(values.values_equal(*args))
    if op == "ne":
        a, b = args
        return boolean(z3.And(a.defined, b.defined, z3.Not(values.values_equal(a, b))))
    if op in ("lt", "le", "gt", "ge"):
        return boolean(values.ordered(op, *args))
    if op == "in":
        x, coll = args
        if coll.kind == "outputs":
            return boolean(_outputs_member(enc, x, coll))
        return boolean(values.membership(x, coll))
    if op in ("add", "sub", "mul", "div", "mod"):
        return _arith(enc, op, *args)
    if op == "neg":
        (a,) = args
        return SymValue(a.kind, a.present, FALSE, -a.value) if is_numeric(a) else undefined()
    if op == "abs":
        (a,) = args
        return SymValue(a.kind, a.present, FALSE, z3.If(a.value < 0, -a.value, a.value)) if is_numeric(a) else undefined()
    if op in ("min", "max"):
        return _minmax(op, *args)
    if op == "len":
        return _length(args[0])
    if op in ("contains", "startswith", "endswith"):
        a, b = args
        if a.kind != "str" or b.kind != "str":
            return boolean(FALSE)
        values.require_text(a, b)
        test = {"contains": lambda x, y: z3.Contains(x, y),
                "startswith": lambda x, y: z3.PrefixOf(y, x),
                "endswith": lambda x, y: z3.SuffixOf(y, x)}[op](a.value, b.value)
        return boolean(z3.And(a.present, b.present, test))
    if op in ("lower", "upper", "strip"):
        (a,) = args
        if a.kind != "str":
            return undefined()
        values.require_text(a)
        enc.approx.add(f"`{op}`")
        return SymValue("str", a.present, FALSE, enc._func(op, z3.StringSort(), z3.StringSort())(a.value))
    if op == "entities":
        enc.approx.add("`entities`")
        (a,) = args
        out = enc._fresh_list("entities")
        if a.kind not in ("str", "list", "family"):
            return SymValue("list", items=(), length=z3.IntVal(0))
        return out
    if op == "list":
        return SymValue("list", items=tuple(args), length=z3.IntVal(len(args)),
                        defined=z3.And([a.defined for a in args] or [TRUE]))
    if op == "dict":
        keys = t.args[0::2]
        if all(isinstance(k, n.Lit) and isinstance(k.value, str) for k in keys):
            fields = tuple((k.value, v) for k, v in zip(keys, args[1::2]))
            return SymValue("record", defined=z3.And([a.defined for a in args] or [TRUE]), fields=fields)
        enc.approx.add("dicts with computed keys")
        return SymValue("dyn", TRUE, FALSE, z3.Const(f"dict#{enc._next()}", values.Dyn))
    raise TypeError(f"unknown operator {op}")


def _arith(enc, op: str, a: SymValue, b: SymValue) -> SymValue:
    ok = z3.And(a.present, b.present)
    if op == "add" and a.kind == b.kind == "str":
        values.require_text(a, b)
        return SymValue("str", ok, FALSE, z3.Concat(a.value, b.value))
    if op == "add" and a.kind == b.kind == "list":
        return _concat(a, b)
    if op == "add" and "family" in (a.kind, b.kind) and {a.kind, b.kind} <= {"family", "list"}:
        return SymValue("family", members=_members(a) + _members(b))  # `check.id + ["x"]`
    if not (is_numeric(a) and is_numeric(b)):
        return undefined()
    if a.kind == b.kind == "int":
        x, y, kind = a.value, b.value, "int"
    else:
        x, y, kind = values.as_real(a), values.as_real(b), "real"
    if op == "add":
        return SymValue(kind, ok, FALSE, x + y)
    if op == "sub":
        return SymValue(kind, ok, FALSE, x - y)
    if op == "mul":
        return SymValue(kind, ok, FALSE, x * y)
    if op == "div":
        return SymValue("real", z3.And(ok, y != 0), FALSE, z3.ToReal(x) / z3.ToReal(y) if kind == "int" else x / y)
    if kind == "int":  # Python's %: the sign follows the divisor
        r = x % y  # Z3: 0 <= r < |y|
        return SymValue("int", z3.And(ok, y != 0), FALSE, z3.If(z3.And(y < 0, r != 0), r + y, r))
    enc.approx.add("`%` on floats")
    f = enc._func("fmod", z3.RealSort(), z3.RealSort(), z3.RealSort())
    return SymValue("real", z3.And(ok, y != 0), FALSE, f(x, y))


def _members(v: SymValue) -> tuple[tuple[z3.BoolRef, SymValue], ...]:
    """A family's members, or a bounded list's elements as (exists, value) members."""
    if v.kind == "family":
        return v.members
    return tuple((values.item_live(v, j), e) for j, e in enumerate(v.items))


def _concat(a: SymValue, b: SymValue) -> SymValue:
    """List concatenation, kept within the bound: element j of a+b picked by a's length."""
    size = len(a.items) + len(b.items)
    items = []
    for j in range(size):
        hits = []
        if j < len(a.items):
            hits.append((j < a.length, a.items[j]))
        for m, e in enumerate(b.items):
            hits.append((a.length + m == j, e))
        from policyc.smt.terms import _select

        items.append(_select(hits))
    return SymValue("list", z3.And(a.present, b.present), FALSE, items=tuple(items), length=a.length + b.length)


def _minmax(op: str, a: SymValue, b: SymValue) -> SymValue:
    ok = z3.And(a.present, b.present)
    if is_numeric(a) and is_numeric(b):
        kind = "int" if a.kind == b.kind == "int" else "real"
        x, y = (a.value, b.value) if kind == "int" else (values.as_real(a), values.as_real(b))
    elif a.kind == b.kind == "str":
        values.require_text(a, b)
        kind, x, y = "str", a.value, b.value
    else:
        return undefined()
    pick = (x <= y) if op == "min" else (x >= y)
    return SymValue(kind, ok, FALSE, z3.If(pick, x, y))


_LIST_USES = ("eq", "ne", "lt", "le", "gt", "ge", "len")


def _distinct_count(a: SymValue) -> SymValue:
    """How many distinct values a trace-wide path takes (the evaluator's active domain)."""
    if a.kind != "family":
        return undefined()
    firsts = []
    for j, (g, v) in enumerate(a.members):
        earlier = [z3.And(h, values.values_equal(w, v)) for h, w in a.members[:j]]
        firsts.append(z3.If(z3.And(g, z3.Not(z3.Or(earlier))) if earlier else g, 1, 0))
    return SymValue("int", TRUE, FALSE, z3.Sum(firsts) if firsts else z3.IntVal(0))


def _length(a: SymValue) -> SymValue:
    if a.kind in ("list", "dict"):
        return SymValue("int", a.present, FALSE, a.length)
    if a.kind == "str":
        values.require_text(a)
        return SymValue("int", a.present, FALSE, z3.Length(a.value))
    if a.kind == "record":
        count = z3.Sum([z3.If(v.defined, 1, 0) for _, v in a.fields]) if a.fields else z3.IntVal(0)
        return SymValue("int", a.present, FALSE, count)
    return undefined()


def _outputs_member(enc, x: SymValue, coll: SymValue) -> z3.BoolRef:
    """`x in outputs(...)`: an uninterpreted predicate of the entity (over-approximated)."""
    if x.kind != "str":
        return FALSE
    values.require_text(x)
    f = enc._func("outputs." + coll.value.as_string(), z3.StringSort(), z3.BoolSort())
    return z3.And(x.present, f(x.value))
