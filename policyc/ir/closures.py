"""Data terms compiled to Python closures, for the engines' event guards and the gate's letters.

`compile_term(t)(env, args, result)` is `eval_term(t, env.at_call(args, result))` (or
`eval_term(t, env)` when args is None), without walking the term or building an environment
per call: a guard such as `order_id == o` is evaluated once per call and per binding of o,
which dominates scoring time. Terms over trace-wide values (domains, `outputs`, metrics) and
extern predicates defer to `eval_term`. Tests compare both on random terms.

>>> from policyc.ir import build as b
>>> from policyc.ir.data import DataEnv
>>> guard = compile_term(b.op("and", b.op("eq", b.arg("id"), b.var("o")), b.op("gt", b.field(b.result(), "n"), b.lit(1))))
>>> guard(DataEnv({"o": "A1"}), {"id": "A1"}, {"n": 2}), guard(DataEnv({"o": "A1"}), {"id": "A1"}, None)
(True, False)
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

from policyc.grounding import extractor_of
from policyc.ir import nodes as n
from policyc.ir.dispatch import Cases
from policyc.ir.data import DataEnv, attribute, earlier, eval_term, path_value
from policyc.ir.ops import OPS, UNDEF, apply_op, domain_values, get_index, get_slice

Args = Mapping[str, Any] | None
Compiled = Callable[[DataEnv, Args, Any], Any]


def compile_term(t: n.Term) -> Compiled:
    """The closure of a term, built once per (hash-consed) term node."""
    cached = t._cache.get("compiled")
    if cached is None:
        made = _COMPILE[t.__class__](t)
        cached = t._cache["compiled"] = _once_per_run(t, made) if _on_constants(t) else made
    return cached


_NOT_CONSTANT = (n.Arg, n.Result, n.Attr, n.Var, n.Values, n.Outputs, n.Done, n.From, n.Flows, n.Earlier, n.Extern,
                 n.Quant)


def _on_constants(t: n.Node) -> bool:
    """Whether a term reads the run's constants and nothing else that changes, and makes a
    value worth keeping: `lower(request.text)`. A test of such values (`contains(...)`, `==`,
    `and`) is not kept (reading the values it tests from the run's memo costs about what
    keeping it would), nor is a bare `request`, metric or field of one."""
    return _constancy(t) == "const" and isinstance(t, n.Op) and t.op not in _TESTS


#: Operators whose value is a truth: tests of values, computed afresh from the values they read.
_TESTS = frozenset(name for name, spec in OPS.items() if spec.kind in ("compare", "bool")) | {
    "contains", "startswith", "endswith", "matches", "unreadable"}


def _constancy(t: n.Node) -> str:
    """What a term reads among what may change: "const" when it reads the run's constants
    (a `request` or metric inside) and nothing else that changes, "lit" when it reads nothing
    that changes, "no" otherwise. Memoised per node."""
    found = t._cache.get("on_constants")
    if found is None:
        if isinstance(t, (n.Request, n.Metric)):
            found = "const"
        elif isinstance(t, _NOT_CONSTANT):
            found = "no"
        else:
            kinds = {_constancy(c) for c in t.children} | {"lit"}
            found = "no" if "no" in kinds else "const" if "const" in kinds else "lit"
        t._cache["on_constants"] = found
    return found


def _once_per_run(t: n.Term, inner: Compiled) -> Compiled:
    """A term on the run's constants, computed once per run: the run's context keeps it
    (`env.globals.memo`); an evaluation without one computes it."""
    missing = object()

    def cached(env: DataEnv, args: Args, result: Any) -> Any:
        memo = getattr(env.globals, "memo", None)
        if memo is None:
            return inner(env, args, result)
        value = memo.get(t, missing)
        if value is missing:
            value = memo[t] = inner(env, args, result)
        return value
    return cached


def _deferred(t: n.Term) -> Compiled:
    def run(env: DataEnv, args: Args, result: Any) -> Any:
        return eval_term(t, env if args is None else env.at_call(args, result))

    return run


#: The closure of each kind of term; kinds without a case of their own defer to `eval_term`.
_COMPILE: Cases[Callable[[Any], Compiled]] = Cases("compile_term", n.TERMS, default=_deferred)


@_COMPILE.on(n.Lit)
def _lit(t: n.Lit) -> Compiled:
    value = t.value
    return lambda env, args, result: value


@_COMPILE.on(n.Var)
def _var(t: n.Var) -> Compiled:
    name = t.name
    return lambda env, args, result: env.vars.get(name, UNDEF)


@_COMPILE.on(n.Arg)
def _arg(t: n.Arg) -> Compiled:
    name = t.name
    return lambda env, args, result: UNDEF if args is None else args.get(name, UNDEF)


@_COMPILE.on(n.Result)
def _result(t: n.Result) -> Compiled:
    return lambda env, args, result: result if args is not None else env.result


@_COMPILE.on(n.Attr)
def _attr(t: n.Attr) -> Compiled:
    name = t.name
    return lambda env, args, result: attribute(args if args is not None else env.args, name)


@_COMPILE.on(n.Field)
def _field(t: n.Field) -> Compiled:
    return _path(t)


@_COMPILE.on(n.Index)
def _index(t: n.Index) -> Compiled:
    if not isinstance(t.index, n.Lit):
        base, index = compile_term(t.base), compile_term(t.index)
        return lambda env, args, result: get_index(base(env, args, result), index(env, args, result))
    return _path(t)


_FIELD, _POSITION, _KEY = 0, 1, 2  # a path's steps: `.name`, `[integer]`, `[any other literal]`


def _path(t: n.Field | n.Index) -> Compiled:
    """A chain of fields and literal indices, `result[0].email`, read by one closure: the
    value `get_field` and `get_index` give step by step, without a closure per step (the
    common guard reads a record of a result this way). The chain's start (a result, an
    argument, a variable, or any other term) is read inline for the first three."""
    steps: list[tuple[int, Any]] = []
    base: n.Term = t
    while isinstance(base, n.Field) or isinstance(base, n.Index) and isinstance(base.index, n.Lit):
        if isinstance(base, n.Field):
            steps.append((_FIELD, base.name))
        else:
            literal = base.index
            assert isinstance(literal, n.Lit)  # tested by the loop's condition
            key = literal.value
            steps.append((_POSITION if type(key) is int else _KEY, key))
        base = base.base
    steps.reverse()
    path = tuple(steps)
    start: Compiled = compile_term(base)
    origin = "result" if isinstance(base, n.Result) else "arg" if isinstance(base, n.Arg) else \
        "var" if isinstance(base, n.Var) else None
    name = base.name if isinstance(base, (n.Arg, n.Var)) else ""

    def walk(env: DataEnv, args: Args, result: Any) -> Any:
        if origin == "result":
            value = result if args is not None else env.result
        elif origin == "arg":
            value = UNDEF if args is None else args.get(name, UNDEF)
        elif origin == "var":
            value = env.vars.get(name, UNDEF)
        else:
            value = start(env, args, result)
        for kind, key in path:
            if kind == _FIELD:
                value = value[key] if isinstance(value, dict) and key in value else UNDEF
            elif kind == _POSITION and isinstance(value, list):
                value = value[key] if -len(value) <= key < len(value) else UNDEF
            else:
                value = get_index(value, key)
        return value
    return walk


@_COMPILE.on(n.Slice)
def _slice(t: n.Slice) -> Compiled:
    base = compile_term(t.base)
    start = compile_term(t.start) if t.start is not None else None
    stop = compile_term(t.stop) if t.stop is not None else None
    return lambda env, args, result: get_slice(
        base(env, args, result), start(env, args, result) if start else None,
        stop(env, args, result) if stop else None)


@_COMPILE.on(n.Op)
def _op(t: n.Op) -> Compiled:
    if t.op in ("entities", "actions"):
        return _deferred(t)  # by the extractor the evaluation was given
    parts = [compile_term(a) for a in t.args]
    if t.op == "and":
        return _all(parts)
    if t.op == "or":
        return _any(parts)
    name = t.op
    if len(parts) == 2 and isinstance(t.args[1], n.Lit) and t.args[1].value is not UNDEF:
        return _binary_literal(name, parts[0], t.args[1].value)
    if len(parts) == 2:
        return _binary(name, parts[0], parts[1])
    if len(parts) == 1:
        return _unary(name, parts[0])
    return lambda env, args, result: apply_op(name, *[p(env, args, result) for p in parts])


def _all(parts: list[Compiled]) -> Compiled:
    """`and`: true when every operand is (only `true` is true), read left to right until one is not."""
    def conjunction(env: DataEnv, args: Args, result: Any) -> bool:
        for part in parts:
            if part(env, args, result) is not True:
                return False
        return True
    return conjunction


def _any(parts: list[Compiled]) -> Compiled:
    """`or`: true when some operand is, read left to right until one is."""
    def disjunction(env: DataEnv, args: Args, result: Any) -> bool:
        for part in parts:
            if part(env, args, result) is True:
                return True
        return False
    return disjunction


#: Operators that read a ⊥ operand as false rather than returning ⊥ (`apply_op`).
_FALSE_ON_UNDEF = ("contains", "startswith", "endswith")
_FAILED = (TypeError, ValueError, OverflowError, RecursionError)


def _on_undef(name: str) -> object:
    """What an operator gives for a ⊥ operand without being applied: false for a test that
    reads ⊥ as false, ⊥ for a strict one; None when it is applied to ⊥ like any value."""
    return False if name in _FALSE_ON_UNDEF else UNDEF if OPS[name].strict else None


def _binary(name: str, left: Compiled, right: Compiled) -> Compiled:
    """`apply_op(name, a, b)` without looking the operator up or packing its operands, per call."""
    fn, on_undef = OPS[name].fn, _on_undef(name)

    def binary(env: DataEnv, args: Args, result: Any) -> Any:
        a, b = left(env, args, result), right(env, args, result)
        if on_undef is not None and (a is UNDEF or b is UNDEF):
            return on_undef
        try:
            return fn(a, b)
        except _FAILED:
            return UNDEF
    return binary


def _binary_literal(name: str, left: Compiled, literal: object) -> Compiled:
    """`_binary` with a literal right operand (`contains(lower(query), "code")`, `x == "rw"`),
    not read through a closure per call."""
    fn, on_undef = OPS[name].fn, _on_undef(name)

    def binary(env: DataEnv, args: Args, result: Any) -> Any:
        a = left(env, args, result)
        if on_undef is not None and a is UNDEF:
            return on_undef
        try:
            return fn(a, literal)
        except _FAILED:
            return UNDEF
    return binary


def _unary(name: str, operand: Compiled) -> Compiled:
    spec = OPS[name]
    fn = spec.fn
    strict = spec.strict

    def unary(env: DataEnv, args: Args, result: Any) -> Any:
        a = operand(env, args, result)
        if strict and a is UNDEF:
            return UNDEF
        try:
            return fn(a)
        except _FAILED:
            return UNDEF
    return unary


@_COMPILE.on(n.Quant)
def _quant(t: n.Quant) -> Compiled:
    domain, body, name = compile_term(t.domain), compile_term(t.body), t.var
    if t.kind == "forall":
        def every(env: DataEnv, args: Args, result: Any) -> bool:
            for e in domain_values(domain(env, args, result)):
                if body(env.bind(name, e), args, result) is not True:
                    return False
            return True
        return every

    def some(env: DataEnv, args: Args, result: Any) -> bool:
        for e in domain_values(domain(env, args, result)):
            if body(env.bind(name, e), args, result) is True:
                return True
        return False
    return some


@_COMPILE.on(n.Outputs)
def _outputs(t: n.Outputs) -> Compiled:  # read once per entity by grounding rules
    tools = t.tools

    def outputs(env: DataEnv, args: Args, result: Any) -> Any:
        return env.globals.outputs(tools, extractor_of(env.externs)) if env.globals is not None else []
    return outputs


@_COMPILE.on(n.Request)
def _request(t: n.Request) -> Compiled:  # a run constant: read from what the evaluation was given
    def request(env: DataEnv, args: Args, result: Any) -> Any:
        read = getattr(env.globals, "request", None)
        return read() if read is not None else UNDEF
    return request


@_COMPILE.on(n.Metric)
def _metric(t: n.Metric) -> Compiled:
    metric_path = t.path

    def metric(env: DataEnv, args: Args, result: Any) -> Any:
        return env.globals.metric(metric_path) if env.globals is not None else UNDEF
    return metric


@_COMPILE.on(n.Earlier)
def _earlier(t: n.Earlier) -> Compiled:  # a history atom: the run's stores answer it
    value, atom = compile_term(t.value), t

    def seen_before(env: DataEnv, args: Args, result: Any) -> Any:
        return earlier(atom, value(env, args, result), env)
    return seen_before


@_COMPILE.on(n.Project)
def _project(t: n.Project) -> Compiled:
    projected, path = compile_term(t.base), t.path

    def project(env: DataEnv, args: Args, result: Any) -> Any:
        value = projected(env, args, result)
        if not isinstance(value, list):
            return UNDEF
        return [v for v in (path_value(item, path) for item in value) if v is not UNDEF and v is not None]
    return project


_COMPILE.complete()


def reads_history(t: n.Node) -> bool:
    """Whether a term reads the sources seen before its event (`from`, `flows`): its value
    then depends on the position it is read at, which an engine must give (`DataEnv.position`).
    Memoised per node."""
    cached = t._cache.get("reads_history")
    if cached is None:
        cached = t._cache["reads_history"] = isinstance(t, (n.From, n.Flows)) or any(
            reads_history(c) for c in t.children)
    return cached
