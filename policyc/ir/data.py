"""Evaluation of data terms, shared by the reference evaluator, the automata and the runtime.

A term is evaluated against a `DataEnv`: values of the variables in scope, the call at the
current position (inside an event guard), and the trace-wide values that domains and
`outputs` draw on. The result is a JSON value or `UNDEF` (⊥).

An event's attributes (`actor`, `message_id`, `error`) travel with its arguments: the
mapping of arguments is a `CallArgs` that carries them, so every engine that reads a call's
arguments reads its attributes too, through the same interface. A plain mapping of
arguments is an event with the default attributes: a call the agent (`"assistant"`) made,
in no known message, that did not fail.

>>> args = CallArgs({"line_id": "L1"}, {"actor": "user", "error": True})
>>> env = DataEnv({}, args, None)
>>> [eval_term(t, env) for t in (n.Arg("line_id"), n.Attr("actor"), n.Attr("error"), n.Attr("message_id"))]
['L1', 'user', True, ⊥]
>>> eval_term(n.Attr("actor"), DataEnv({}, {"line_id": "L1"}, None)), dict(args)
('assistant', {'line_id': 'L1'})
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Protocol

from policyc.grounding import Extractor, actions_reader_of, extractor_of
from policyc.grounding.provenance import Label, SourceSet, comes_from
from policyc.ir import nodes as n
from policyc.ir.dispatch import Cases
from policyc.ir.ops import UNDEF, apply_op, domain_values, get_field, get_index, get_slice, truthy


class History(Protocol):
    """The sources a run had seen before one of its positions (`policyc.grounding.provenance`)."""

    def labels(self, value: object) -> set[Label] | None: ...

    def flows(self, sources: SourceSet, text: object, span: int) -> bool: ...


class Globals(Protocol):
    """Trace-wide values (appendix A.2.4: domains extracted from τ and μ)."""

    def values(self, tool: str, path: tuple[str | int, ...], flatten: bool) -> list[Any]: ...

    def outputs(self, tools: tuple[str, ...], extractor: Extractor) -> object: ...

    def done(self, terminal: tuple[str, ...]) -> list[str]: ...

    def metric(self, path: tuple[str | int, ...]) -> object: ...

    def request(self) -> object: ...

    def history(self, position: int) -> History: ...


#: The attributes of an event that a trace does not describe: the agent's call, in no
#: known message, that did not fail.
DEFAULT_ATTRIBUTES: Mapping[str, object] = {"actor": "assistant", "message_id": None, "error": False}


class CallArgs(dict[str, object]):
    """A call's arguments (the mapping itself) and its event attributes (`attrs`)."""

    __slots__ = ("attrs",)

    def __init__(self, args: Mapping[str, object] | None = None, attrs: Mapping[str, object] | None = None):
        super().__init__(args or {})
        self.attrs = {**DEFAULT_ATTRIBUTES, **(attrs or {})}

    def __reduce__(self) -> tuple[type[CallArgs], tuple[dict[str, object], dict[str, object]]]:
        return (CallArgs, (dict(self), self.attrs))

    # shown, compared and serialised as the plain mapping of arguments it is


def attributes(args: Mapping[str, object] | None) -> Mapping[str, object]:
    """The event attributes a mapping of arguments carries (the defaults for a plain one)."""
    return getattr(args, "attrs", DEFAULT_ATTRIBUTES)


def attribute(args: Mapping[str, object] | None, name: str) -> object:
    """One attribute of the event whose arguments these are; ⊥ outside an event or when unknown."""
    if args is None:
        return UNDEF
    value = attributes(args).get(name)
    return UNDEF if value is None else value


class ExternError(Exception):
    """An extern predicate has no binding, or its Python function raised."""


@dataclass(frozen=True, slots=True)
class DataEnv:
    """What a term is evaluated against. `position` is the position of the event a guard is
    read at, where the engine knows it: provenance (`from`, `flows`) reads the sources seen
    before it."""

    vars: Mapping[str, object] = field(default_factory=dict)
    args: Mapping[str, object] | None = None
    result: object = UNDEF
    globals: Globals | None = None
    externs: Mapping[str, Callable[..., object]] = field(default_factory=dict)
    position: int | None = None

    def bind(self, name: str, value: object) -> "DataEnv":
        return DataEnv({**self.vars, name: value}, self.args, self.result, self.globals, self.externs, self.position)

    def at_call(self, args: Mapping[str, object] | None, result: object, position: int | None = None) -> "DataEnv":
        """The environment of the event at `position` (the current one's when None)."""
        return DataEnv(self.vars, args, result, self.globals, self.externs,
                       self.position if position is None else position)


def path_value(value: object, path: tuple[str | int, ...]) -> object:
    for step in path:
        value = get_index(value, step) if isinstance(step, int) else get_field(value, step)
        if value is UNDEF:
            return UNDEF
    return value


def eval_term(t: n.Term, env: DataEnv) -> object:
    """The value of a term (a JSON value, or ⊥) in an environment: one case per kind of term."""
    return _TERMS[t.__class__](t, env)


Case = Callable[[Any, DataEnv], object]
_TERMS: Cases[Case] = Cases("eval_term", n.TERMS)


@_TERMS.on(n.Lit)
def _lit(t: n.Lit, env: DataEnv) -> object:
    return t.value


@_TERMS.on(n.Var)
def _var(t: n.Var, env: DataEnv) -> object:
    return env.vars.get(t.name, UNDEF)


@_TERMS.on(n.Arg)
def _arg(t: n.Arg, env: DataEnv) -> object:
    return UNDEF if env.args is None else env.args.get(t.name, UNDEF)


@_TERMS.on(n.Result)
def _result(t: n.Result, env: DataEnv) -> object:
    return env.result


@_TERMS.on(n.Attr)
def _attr(t: n.Attr, env: DataEnv) -> object:
    return attribute(env.args, t.name)


@_TERMS.on(n.Field)
def _field(t: n.Field, env: DataEnv) -> object:
    return get_field(eval_term(t.base, env), t.name)


@_TERMS.on(n.Index)
def _index(t: n.Index, env: DataEnv) -> object:
    return get_index(eval_term(t.base, env), eval_term(t.index, env))


@_TERMS.on(n.Slice)
def _slice(t: n.Slice, env: DataEnv) -> object:
    start = None if t.start is None else eval_term(t.start, env)
    stop = None if t.stop is None else eval_term(t.stop, env)
    return get_slice(eval_term(t.base, env), start, stop)


@_TERMS.on(n.Op)
def _op(t: n.Op, env: DataEnv) -> object:
    if t.op == "entities":  # by the extractor the evaluation was given
        text = eval_term(t.args[0], env)
        return UNDEF if text is UNDEF else extractor_of(env.externs).entities(text)
    if t.op == "actions":  # by the extractor's reader of claims, or the built-in one
        text, claims = eval_term(t.args[0], env), eval_term(t.args[1], env)
        return UNDEF if text is UNDEF or not isinstance(claims, dict) else \
            actions_reader_of(env.externs)(text, claims)
    if t.op == "and":  # short-circuit, as the connective reads
        return all(truthy(eval_term(a, env)) for a in t.args)
    if t.op == "or":
        return any(truthy(eval_term(a, env)) for a in t.args)
    return apply_op(t.op, *(eval_term(a, env) for a in t.args))


@_TERMS.on(n.Extern)
def _extern(t: n.Extern, env: DataEnv) -> object:
    fn = env.externs.get(t.name)
    if fn is None:
        raise ExternError(f"extern predicate `{t.name}` has no Python binding")
    args = [eval_term(a, env) for a in t.args]
    if any(a is UNDEF for a in args):
        return False
    try:
        return bool(fn(*args))
    except Exception as exc:  # a user's function: report, do not crash the evaluator
        raise ExternError(f"extern predicate `{t.name}` raised {type(exc).__name__}: {exc}") from exc


@_TERMS.on(n.Values)
def _values(t: n.Values, env: DataEnv) -> object:
    return env.globals.values(t.tool, t.path, t.flatten) if env.globals is not None else []


@_TERMS.on(n.Outputs)
def _outputs(t: n.Outputs, env: DataEnv) -> object:
    return env.globals.outputs(t.tools, extractor_of(env.externs)) if env.globals is not None else []


@_TERMS.on(n.Done)
def _done(t: n.Done, env: DataEnv) -> object:
    return env.globals.done(t.terminal) if env.globals is not None else []


@_TERMS.on(n.Metric)
def _metric(t: n.Metric, env: DataEnv) -> object:
    return env.globals.metric(t.path) if env.globals is not None else UNDEF


@_TERMS.on(n.Request)
def _request(t: n.Request, env: DataEnv) -> object:
    request = getattr(env.globals, "request", None)
    return request() if request is not None else UNDEF


@_TERMS.on(n.Quant)
def _quant(t: n.Quant, env: DataEnv) -> object:
    elements = domain_values(eval_term(t.domain, env))
    test = all if t.kind == "forall" else any
    return test(truthy(eval_term(t.body, env.bind(t.var, e))) for e in elements)


@_TERMS.on(n.Project)
def _project(t: n.Project, env: DataEnv) -> object:
    base = eval_term(t.base, env)
    if not isinstance(base, list):
        return UNDEF
    return [v for v in (path_value(item, t.path) for item in base) if v is not UNDEF and v is not None]


def history_of(env: DataEnv) -> History | None:
    """The sources seen before the event a guard is read at (None where they are not known)."""
    history = getattr(env.globals, "history", None)
    return history(env.position) if history is not None and env.position is not None else None


@_TERMS.on(n.From, n.Flows)
def provenance(t: n.From | n.Flows, env: DataEnv) -> bool:
    """`value from S`, `value only from S`, `flows(S, text, span)` (`policyc.grounding.provenance`)."""
    history = history_of(env)
    if history is None:
        return False
    if isinstance(t, n.Flows):
        text = eval_term(t.text, env)
        return text is not UNDEF and history.flows(t.sources, text, t.span)
    value = eval_term(t.value, env)
    found = history.labels(value) if value is not UNDEF else None
    return found is not None and comes_from(found, t.sources, t.only)


@_TERMS.on(n.Earlier)
def _earlier(t: n.Earlier, env: DataEnv) -> object:
    return earlier(t, eval_term(t.value, env), env)


def earlier(t: n.Earlier, value: object, env: DataEnv) -> bool:
    """A history atom (`n.Earlier`), answered by the run's history stores: only a compiled
    rule's run has them (`policyc.tables.context.RunContext`), never a plain trace."""
    answer = getattr(env.globals, "earlier", None)
    if answer is None:
        raise TypeError("a history atom is read from a run's history stores, and none were given")
    return value is not UNDEF and bool(answer(t, value))


def holds(t: n.Term, env: DataEnv) -> bool:
    """A term read as a condition."""
    return truthy(eval_term(t, env))


_TERMS.complete()
