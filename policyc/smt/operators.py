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

from policyc.grounding.kinds import KINDS

from policyc.ir import nodes as n
from policyc.ir.types import MESSAGE_SIGNATURE
from policyc.smt import values
from policyc.smt.values import FALSE, TRUE, SymValue, boolean, is_numeric, undefined


#: Texts whose entities the encoding knows exactly (a model made of them replays): none in the
#: first two, one file name in the last.
PLAIN_TEXTS = ("", "x", "main.py")


def _lower_fixed() -> z3.ReRef:
    """Printable ASCII texts without a capital letter (`lower` leaves them as they are)."""
    return z3.Star(z3.Union(z3.Range(" ", "@"), z3.Range("[", "~")))


def _upper_fixed() -> z3.ReRef:
    return z3.Star(z3.Union(z3.Range(" ", "`"), z3.Range("{", "~")))


def _strip_fixed() -> z3.ReRef:
    """Printable ASCII texts that neither start nor end with a space (`strip` keeps them)."""
    ends, inner = z3.Range("!", "~"), z3.Range(" ", "~")
    return z3.Union(z3.Re(""), ends, z3.Concat(ends, z3.Star(inner), ends))


#: per text function, the texts it leaves unchanged
_UNCHANGED = {"lower": _lower_fixed, "upper": _upper_fixed, "strip": _strip_fixed}


def _entities_of(text: str) -> list[str]:
    from policyc.grounding import entities

    return [e for e in entities(text) if isinstance(e, str)]


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
        if coll.kind == "done":
            return boolean(_done_member(enc, x, coll))
        return boolean(values.membership(x, coll, lambda v, c: _opaque_member(enc, v, c)))
    if op in ("add", "sub", "mul", "div", "mod"):
        return _arith(enc, op, *args)
    if op in ("neg", "abs"):
        args = [values.as_scalar(args[0], "real")]
    if op == "neg":
        (a,) = args
        return SymValue(a.kind, a.present, FALSE, -a.value) if is_numeric(a) else undefined()
    if op == "abs":
        (a,) = args
        return SymValue(a.kind, a.present, FALSE, z3.If(a.value < 0, -a.value, a.value)) if is_numeric(a) else undefined()
    if op in ("min", "max"):
        return _minmax(op, *args)
    if op == "len":
        return _length(args[0], enc)
    if op in ("contains", "startswith", "endswith"):
        a, b = (values.as_scalar(v, "str") for v in args)
        if a.kind != "str" or b.kind != "str":
            return boolean(FALSE)
        values.require_text(a, b)
        test = {"contains": lambda x, y: z3.Contains(x, y),
                "startswith": lambda x, y: z3.PrefixOf(y, x),
                "endswith": lambda x, y: z3.SuffixOf(y, x)}[op](a.value, b.value)
        return boolean(z3.And(a.present, b.present, test))
    if op in ("lower", "upper", "strip"):
        a = values.as_scalar(args[0], "str")
        if a.kind != "str":
            return undefined()
        values.require_text(a)
        enc.approx.add(f"`{op}`")
        out = enc._func(op, z3.StringSort(), z3.StringSort())(a.value)
        plain = z3.InRe(a.value, _UNCHANGED[op]())
        # a true fact (Python's str.lower etc. leave such texts as they are), and the premise a
        # witness may be asked to meet, so that the function's value in the model is its value
        enc.trace.constraints.append(z3.Implies(plain, out == a.value))
        enc.trace.plain_texts.append(plain)
        return SymValue("str", a.present, FALSE, out)
    if op == "entities":
        enc.approx.add("`entities`")
        (a,) = args
        out = enc._fresh_list("entities")
        if a.kind not in ("str", "list", "family"):
            return SymValue("list", items=(), length=z3.IntVal(0))
        if a.kind == "family":  # texts over the calls: none, or only texts without entities, have none
            blank = [t for t in PLAIN_TEXTS if not _entities_of(t)]
            quiet = [z3.Or(z3.Not(g), z3.Not(v.present), *[v.value == enc.lit(t).value for t in blank])
                     for g, v in a.members if v.kind == "str"]
            if len(quiet) == len(a.members):
                enc.trace.constraints.append(z3.Implies(z3.And(quiet or [TRUE]), out.length == 0))
        if a.kind == "str":  # what the model knows for sure: the entities of a few plain texts
            for text in PLAIN_TEXTS:
                found = _entities_of(text)
                if len(found) > len(out.items):
                    continue
                known = [out.length == len(found)] + [item.value == z3.StringVal(e) for item, e in zip(out.items, found)]
                enc.trace.constraints.append(z3.Implies(z3.And(a.present, a.value == z3.StringVal(text)), z3.And(known)))
        return out
    if op == "matches":  # RE2 patterns are not encoded: a free condition of the text
        enc.approx.add("`matches`")
        return boolean(z3.Bool(f"matches#{enc._next()}"))
    if op in KINDS:  # typed entities of a text: a free list
        enc.approx.add(f"`{op}`")
        return enc._fresh_list(op, "real" if op == "amounts" else "str")
    if op == "actions":
        return _actions(enc, args[0], t.args[1].value if isinstance(t.args[1], n.Lit) else None)
    if op == "list":
        return SymValue("list", items=tuple(args), length=z3.IntVal(len(args)),
                        defined=z3.And([a.defined for a in args] or [TRUE]))
    if op == "dict":
        keys = t.args[0::2]
        names = [k.value for k in keys if isinstance(k, n.Lit) and isinstance(k.value, str)]
        if len(names) == len(keys):
            fields = tuple(zip(names, args[1::2]))
            return SymValue("record", defined=z3.And([a.defined for a in args] or [TRUE]), fields=fields)
        enc.approx.add("dicts with computed keys")
        return SymValue("dyn", TRUE, FALSE, z3.Const(f"dict#{enc._next()}", values.Dyn))
    raise TypeError(f"unknown operator {op}")


def _arith(enc, op: str, a: SymValue, b: SymValue) -> SymValue:
    if "dyn" in (a.kind, b.kind):
        return _dyn_arith(enc, op, a, b)
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


def _dyn_arith(enc, op: str, a: SymValue, b: SymValue) -> SymValue:
    """Arithmetic with an untyped operand (`metrics.steps + 1`): numbers give a number and,
    for `+`, strings a string, as `policyc.ir.ops` does; a list inside `any` is opaque, so
    `+` on one gives an unconstrained value (recorded as an approximation)."""
    da, db = values.dyn_of(a), values.dyn_of(b)
    if da is None or db is None:  # a typed list or record with an untyped value: only `+` of lists
        if op == "add" and "list" in (a.kind, b.kind):
            enc.approx.add("`+` on untyped values")
            return SymValue("dyn", TRUE, FALSE, z3.Const(f"add#{enc._next()}", values.Dyn))
        return undefined()
    Dyn = values.Dyn
    x, y = Dyn.d_r(da), Dyn.d_r(db)
    nums = z3.And(a.present, b.present, Dyn.is_d_num(da), Dyn.is_d_num(db))
    if op == "add":
        number = x + y
    elif op == "sub":
        number = x - y
    elif op == "mul":
        number = x * y
    elif op == "div":
        nums, number = z3.And(nums, y != 0), x / y
    else:  # `%`: Python's int and float rules differ, and an untyped number may be either
        enc.approx.add("`%` on untyped numbers")
        nums = z3.And(nums, y != 0)
        number = enc._func("fmod", z3.RealSort(), z3.RealSort(), z3.RealSort())(x, y)
    value = Dyn.d_num(number)
    defined = nums
    if op == "add":
        strs = z3.And(a.present, b.present, Dyn.is_d_str(da), Dyn.is_d_str(db))
        others = z3.And(a.present, b.present, z3.Or(Dyn.is_d_other(da), Dyn.is_d_other(db)))
        opaque = z3.Const(f"add#{enc._next()}", Dyn)
        enc.approx.add("`+` on untyped values")
        value = z3.If(nums, value, z3.If(strs, Dyn.d_str(z3.Concat(Dyn.d_s(da), Dyn.d_s(db))), opaque))
        defined = z3.Or(nums, strs, others)
    return SymValue("dyn", defined, FALSE, value)


def _minmax(op: str, a: SymValue, b: SymValue) -> SymValue:
    if a.kind == "dyn" and b.kind == "dyn":
        a = values.as_scalar(a, "real")  # two untyped values: compared as numbers (strings are rare here)
    a, b = values.scalar_like(a, b), values.scalar_like(b, a)
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


def _length(a: SymValue, enc=None) -> SymValue:
    if a.kind == "dyn":  # a string's length, or an unconstrained one for a list or object inside `any`
        text = values.as_scalar(a, "str")
        other = z3.And(a.present, values.Dyn.is_d_other(a.value))
        size = enc._func("len.other", z3.IntSort(), z3.IntSort())(values.Dyn.d_id(a.value))
        enc.approx.add("`len` of untyped values")
        return SymValue("int", z3.Or(text.present, other), FALSE,
                        z3.If(text.present, z3.Length(text.value), z3.If(size < 0, -size, size)))
    if a.kind in ("list", "dict"):
        return SymValue("int", a.present, FALSE, a.length)
    if a.kind == "str":
        values.require_text(a)
        return SymValue("int", a.present, FALSE, z3.Length(a.value))
    if a.kind == "record":
        count = z3.Sum([z3.If(v.defined, 1, 0) for _, v in a.fields]) if a.fields else z3.IntVal(0)
        return SymValue("int", a.present, FALSE, count)
    return undefined()


def _opaque_member(enc, x: SymValue, coll: SymValue) -> z3.BoolRef:
    """`x in v` for a list or object inside `any`: not modelled, an unconstrained answer per
    (element, collection) pair."""
    enc.approx.add("membership in untyped values")
    key = values.dyn_of(x)
    if key is None:
        return z3.Bool(f"member#{enc._next()}")
    f = enc._func("member.other", values.Dyn, z3.IntSort(), z3.BoolSort())
    return f(key, values.Dyn.d_id(coll.value))


def _outputs_member(enc, x: SymValue, coll: SymValue) -> z3.BoolRef:
    """`x in outputs(...)`: an uninterpreted predicate of the entity (over-approximated)."""
    if x.kind != "str":
        return FALSE
    values.require_text(x)
    f = enc._func("outputs." + coll.value.as_string(), z3.StringSort(), z3.BoolSort())
    return z3.And(x.present, f(x.value))


def _done_member(enc, x: SymValue, coll: SymValue) -> z3.BoolRef:
    """`x in done`, exactly: some call to the tool named x (not a terminal one, not a message)
    did not fail."""
    if x.kind != "str":
        return FALSE
    terminal = set(coll.value.as_string().split(","))
    parts: list[z3.BoolRef] = []
    for tool in enc.trace.signatures:
        if tool in terminal or tool == MESSAGE_SIGNATURE.name:
            continue
        name = values.values_equal(x, enc.lit(tool))
        parts.extend(z3.And(enc.trace.is_call(i, tool), z3.Not(values.truthy(enc.trace.attribute(i, tool, "error"))),
                            name) for i in range(enc.trace.k))
    return z3.And(x.present, z3.Or(parts)) if parts else FALSE


def _actions(enc, text: SymValue, claims: object) -> SymValue:
    """`actions(text)`: any list of names (over-approximated), except that what the model
    knows for sure is stated: a text among `PLAIN_TEXTS` claims nothing, and a sentence made
    of a declared phrase (`refunded is done.`) claims its tool alone, so that a witness made of
    them replays. Over the texts of several calls: when one of them is such a sentence and
    the others claim nothing."""
    enc.approx.add("`actions`")
    out = enc._fresh_list("actions")
    if not isinstance(claims, dict) or text.kind not in ("str", "family"):
        return SymValue("list", items=(), length=z3.IntVal(0)) if text.kind not in ("str", "list", "family") else out
    from policyc.grounding.actions import claimed_actions

    blank = [t for t in PLAIN_TEXTS if not claimed_actions(t, claims)]
    sentences = {tool: s for tool, phrases in claims.items() for s in [f"{phrases[0]} is done."]
                 if phrases and claimed_actions(s, claims) == [tool]}

    def claims_only(tool: str | None) -> z3.BoolRef:
        if tool is None:
            return out.length == 0
        return z3.And(out.length == 1, values.values_equal(out.items[0], enc.lit(tool))) if out.items else FALSE

    members = [(TRUE, text)] if text.kind == "str" else [(g, v) for g, v in text.members if v.kind == "str"]
    if text.kind == "family" and len(members) != len(text.members):
        return out
    quiet = [z3.Or(z3.Not(g), z3.Not(v.present), *[values.values_equal(v, enc.lit(b)) for b in blank])
             for g, v in members]
    enc.trace.constraints.append(z3.Implies(z3.And(quiet or [TRUE]), claims_only(None)))
    for j, (g, v) in enumerate(members):
        others = z3.And([q for k, q in enumerate(quiet) if k != j] or [TRUE])
        for tool, sentence in sentences.items():
            said = z3.And(g, v.present, values.values_equal(v, enc.lit(sentence)), others)
            enc.trace.constraints.append(z3.Implies(said, claims_only(tool)))
        # the premise a witness may be asked to meet: texts whose claims the model knows
        enc.trace.plain_texts.append(z3.Or(z3.Not(v.present), *[values.values_equal(v, enc.lit(s))
                                                                for s in (*blank, *sentences.values())]))
    return out
