"""From a run of the automata to a concrete trace, replayed on the reference evaluator.

The automata answer with a sequence of letters: a tool and the truth of each of its guard
conditions, per call, and the truth of the metrics conditions. Z3 finds arguments, results
and metrics that give exactly those truths (the tool of every position is fixed, so the
query is small), over the declared types. The trace is then replayed: a witness is shown
only when every claim of the question takes its truth value on it.

>>> from policyc.ir import build as b
>>> from policyc.lint.claims import Claim
>>> from policyc.ir.types import INT, Param, ToolSignature, ANY
>>> tools = {"fetch": ToolSignature("fetch", (Param("id", INT),), ANY)}
>>> big = b.op("gt", b.arg("id"), b.lit(5))
>>> claim = Claim("r", b.eventually(b.event("fetch", big)))
>>> w = concretize((("fetch", ((big, True),)),), (), [claim], tools)
>>> w.confirmed, w.trace.calls[0].args["id"] > 5
(True, True)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Collection, Mapping, Sequence, cast

from policyc.automata.one_value import OneValue
from policyc.automata.solver import independent_groups
from policyc.ir import build as b
from policyc.ir import nodes as n
from policyc.ir.data import DataEnv, ExternError, eval_term
from policyc.ir.ops import UNDEF, truthy
from policyc.ir.types import ANY, MESSAGE_SIGNATURE, ListT, OptionalT, RecordT, ToolSignature, Type, value_problems
from policyc.ir.walk import subformulas
from policyc.lint.claims import Claim
from policyc.lint.sourcing import sourced, wanted
from policyc.semantics.evaluator import evaluate
from policyc.smt import PolicySolver, WitnessTrace
from policyc.smt.decoder import default_value
from policyc.smt.values import NeedsStrings
from policyc.trace.model import CALL, MESSAGE_KIND, Call, Trace, view_actors
from policyc.smt.verifier import DEFAULT_RLIMIT

#: The longest text or list made up without a solver (to meet a condition on its length).
MAX_GUESSED_LENGTH = 4096

#: The text of the user's request, as formulas read it.
_REQUEST_TEXT = b.field(b.request(), "text")

#: The text functions Z3 sees into only on texts they leave unchanged.
TEXT_FUNCTIONS = ("lower", "upper", "strip")

Calls = Sequence[tuple[str, Sequence[tuple[n.Term, bool]]]]


def concretize(calls: Calls, metrics: Sequence[tuple[n.Term, bool]], claims: Sequence[Claim],
               tools: Mapping[str, ToolSignature], list_bound: int = 3, rlimit: int = DEFAULT_RLIMIT,
               coded_strings: bool = False, observes: frozenset[str] = frozenset(),
               charge: Callable[[int], None] | None = None) -> WitnessTrace | None:
    """A trace with these calls and metrics conditions on which every claim replays; None when
    the types leave no such values (or the solver gives up). `observes`: the event classes of
    the policy's view (who may act); `charge(steps)` is told the solver steps spent; with an
    `rlimit` of 0 only values chosen without a solver are tried."""
    try:
        return _concretize(calls, metrics, claims, tools, list_bound, rlimit, coded_strings, observes, charge)
    except NeedsStrings:
        if not coded_strings:
            raise
        return _concretize(calls, metrics, claims, tools, list_bound, rlimit, False, observes, charge)


def _concretize(calls, metrics, claims, tools, list_bound, rlimit, coded, observes, charge) -> WitnessTrace | None:
    pinned = _pinned(metrics)
    record = _record(pinned) if metrics else ({}, None)
    records = [record] if record is not None else [({}, r) for r in _requests(metrics)]
    guessed = _guessed(calls, tools, observes) if records else None
    if guessed is not None:  # values chosen without a solver
        for values, request in records:
            found = sourced_replay(WitnessTrace(Trace(guessed, values, request=request), True), claims, tools)
            if found is not None:
                return found
    if rlimit <= 0:
        return None
    # the metrics conditions as equalities with values that give them first (easier for Z3); with
    # text functions read, then among texts they leave as they are: such a model replays
    texts = any(isinstance(t, n.Op) and t.op in TEXT_FUNCTIONS
                for atom, _ in (*metrics, *(x for _tool, truths in calls for x in truths)) for t in subformulas(atom))
    for chosen in ([pinned.atoms] if pinned is not None else []) + [metrics]:
        for plain in (False, True) if texts else (False,):
            found = _solve(calls, chosen, tools, list_bound, rlimit, coded, plain, observes, charge)
            done = sourced_replay(found, claims, tools) if found is not None else None
            if done is not None:
                return done
    return None


def sourced_replay(witness: WitnessTrace, claims: Sequence[Claim],
                   tools: Mapping[str, ToolSignature]) -> WitnessTrace | None:
    """The witness replayed; when it does not replay, the witness with the values its
    calls must take from earlier results put there (`policyc.lint.sourcing`), replayed."""
    found = replay(witness, claims)
    if found is not None:
        return found
    want = wanted(claims)
    if not want:
        return None
    trace = sourced(witness.trace, want, tools)
    return replay(WitnessTrace(trace, True, witness.externs), claims) if trace is not witness.trace else None


def _solve(calls, metrics, tools, list_bound, rlimit, coded, plain: bool, observes, charge) -> WitnessTrace | None:
    """A model of the calls' truths (in a solver of its own: a check that reached its limit
    leaves nothing behind); `plain`: every text a text function reads is one it leaves as it is."""
    ps = PolicySolver(tools, len(calls), list_bound, rlimit, name="w", coded_strings=coded, observes=observes,
                      skeleton=tuple(tool for tool, _ in calls))
    names: list[str] = []
    for i, (tool, truths) in enumerate(calls):
        for j, (atom, value) in enumerate(truths):
            names.append(ps.require_at(f"atom{i}.{j}", b.event(tool, atom), i, value))
    for j, (atom, value) in enumerate(metrics):
        ps.require(f"metric{j}", b.cond(atom), value)
        names.append(f"metric{j}")
    if plain:
        names.append(ps.require_plain_texts())
    found = ps.check(names)
    if charge is not None:
        charge(ps.steps)
    return found.witness if found.is_sat else None


@dataclass(frozen=True)
class _Pinned:
    """Metrics conditions with the groups that test one value pinned to a value that gives
    their truths: `atoms`, for the solver (a group pinned to a value left out keeps its
    conditions); `values`, each pinned subject's value (`UNDEF`: left out); `whole`: every
    group was pinned."""

    atoms: list[tuple[n.Term, bool]]
    values: dict[n.Term, object]
    whole: bool


def _pinned(metrics: Sequence[tuple[n.Term, bool]]) -> _Pinned | None:
    """The metrics conditions with each group that tests one value against literals pinned
    (`one_value`); None when no group could be."""
    out: list[tuple[n.Term, bool]] = []
    values: dict[n.Term, object] = {}
    whole = True
    atoms = [a for a, _ in metrics]
    for group in independent_groups(atoms):
        one = OneValue.of([atoms[i] for i in group])
        if one is not None:
            found, value = one.value(sum(1 << j for j, i in enumerate(group) if metrics[i][1]))
            if found and (value is None or value is UNDEF or isinstance(value, (bool, int, float, str))):
                values[one.subject] = value
                if value is UNDEF:
                    out.extend(metrics[i] for i in group)
                else:
                    out.append((b.op("eq", one.subject, b.lit(value)), True))
                continue
        whole = False
        out.extend(metrics[i] for i in group)
    return _Pinned(out, values, whole) if values else None


def _record(pinned: _Pinned | None) -> tuple[dict, str | None] | None:
    """The metrics record and the request the pinned values describe; None unless every
    group was pinned, to a metric (`metrics.a.b`) or the request's text, and their paths
    agree. A value left out (`UNDEF`) is a metric the record does not have, or no request."""
    if pinned is None or not pinned.whole:
        return None
    record: dict = {}
    request: str | None = None
    for subject, given in pinned.values.items():
        if subject == _REQUEST_TEXT and (given is UNDEF or isinstance(given, str)):
            request = given if isinstance(given, str) else None
            continue
        if not (isinstance(subject, n.Metric) and subject.path):
            return None
        *outer, last = subject.path
        place = record
        for key in outer:
            place = place.setdefault(key, {})
            if not isinstance(place, dict):
                return None
        if last in place:
            return None
        if given is not UNDEF:
            place[last] = given
    return record, request


def _requests(metrics: Sequence[tuple[n.Term, bool]]) -> list[str | None]:
    """Requests to try when every condition reads the request alone (and none could be
    pinned): none, an empty one, and one that holds every text the conditions that must
    hold look for.

    >>> from policyc.ir import build as b
    >>> asks = b.op("contains", b.op("lower", _REQUEST_TEXT), b.lit("refund"))
    >>> _requests([(asks, True)])
    [None, '', 'refund']
    """
    if not metrics or any(isinstance(s, n.Metric) for atom, _ in metrics for s in subformulas(atom)):
        return []
    wanted = [s.value for atom, truth in metrics if truth for s in subformulas(atom)
              if isinstance(s, n.Lit) and isinstance(s.value, str) and s.value]
    return list(dict.fromkeys([None, "", " ".join(dict.fromkeys(wanted))]))


def _guessed(calls: Calls, tools: Mapping[str, ToolSignature], observes: frozenset[str] = frozenset()
             ) -> tuple[Call, ...] | None:
    """The calls with values that give their conditions, chosen without a solver: each group
    of a call's conditions that tests one value (an argument, its length, a text function of
    it, a field of the result, the actor) takes a value of its type that gives the group's
    truths (`one_value`); every other value, and every value a group of another form tests
    (`len(card_numbers(text))`), is the simplest of its type. None when no such value was
    found, or the call, checked on the evaluator, does not give exactly its truths."""
    out = []
    for i, (tool, truths) in enumerate(calls):
        call = _guess_call(i, tool, truths, tools, observes)
        if call is None:
            return None
        out.append(call)
    return tuple(out)


def guessed_or_simplest(calls: Calls, tools: Mapping[str, ToolSignature],
                        observes: frozenset[str] = frozenset()) -> tuple[Call, ...]:
    """The calls with values chosen as `_guessed` chooses them, call by call: a call whose
    conditions no chosen value gives (the automata may pair conditions no value meets
    together, on `text` and `lower(text)`) keeps the simplest values of its types, the
    others keep theirs (a start for the local search of `policyc.lint.choose`).

    >>> from policyc.ir.types import STR, Param, ToolSignature
    >>> tools = {"status": ToolSignature("status", (), STR), "say": ToolSignature("say", (Param("text", STR),), ANY)}
    >>> locked = b.op("contains", b.result(), b.lit("locked"))
    >>> loud = b.op("contains", b.arg("text"), b.lit("HUMAN"))
    >>> quiet = b.op("contains", b.op("lower", b.arg("text")), b.lit("human"))
    >>> calls = guessed_or_simplest([("status", ((locked, True),)), ("say", ((loud, True), (quiet, False)))], tools)
    >>> calls[0].result, calls[1].args    # no text says HUMAN whose lower case does not say human
    ('locked', {'text': ''})
    """
    plain = simplest(calls, tools).calls
    return tuple(_guess_call(i, tool, truths, tools, observes) or plain[i] for i, (tool, truths) in enumerate(calls))


def _guess_call(i: int, tool: str, truths: Sequence[tuple[n.Term, bool]], tools: Mapping[str, ToolSignature],
                observes: frozenset[str]) -> Call | None:
    """Call i of `_guessed`: None when no values chosen give exactly its truths."""
    sig = tools[tool]
    plain = simplest([(tool, ())], tools).calls[0]
    args, result, actor = dict(plain.args), plain.result, plain.actor
    types = {p.name: p.type for p in sig.params}
    atoms = [a for a, _ in truths]
    texts: dict[str, list[str]] = {}
    for group in independent_groups(atoms):
        values = OneValue.of([atoms[j] for j in group])
        if values is None:
            continue  # the simplest values, if they give the group's truths (checked below)
        mask = sum(1 << k for k, j in enumerate(group) if truths[j][1])
        s = values.subject
        if isinstance(s, n.Arg) and s.name in types:
            t = types[s.name]
            found, v = values.value(mask, _fits(t))
            if found and v is UNDEF:
                args.pop(s.name, None)
            elif found:
                args[s.name] = v
        elif isinstance(s, n.Op) and s.op == "len" and isinstance(s.args[0], n.Arg) and s.args[0].name in types:
            found, v = values.value(mask, lambda v: type(v) is int and 0 <= v <= MAX_GUESSED_LENGTH)
            if found:
                args[s.args[0].name] = ["x"] * cast(int, v) if isinstance(types[s.args[0].name], ListT) \
                    else "x" * cast(int, v)
        elif isinstance(s, n.Op) and s.op in TEXT_FUNCTIONS and isinstance(s.args[0], n.Arg):
            fn = getattr(str, s.op)
            found, v = values.value(mask, _unchanged_by(fn))
            if found:
                texts.setdefault(s.args[0].name, []).append(cast(str, v))
        elif isinstance(s, n.Result) and sig.result is not ANY:  # the whole result (a text, a number)
            found, v = values.value(mask, _defined_of(sig.result))
            if found:
                result = v
        elif isinstance(s, n.Field) and isinstance(s.base, n.Result):
            found, v = values.value(mask)
            if found:
                result = {k: x for k, x in (result.items() if isinstance(result, dict) else ()) if k != s.name}
                if v is not UNDEF:
                    result[s.name] = v
        elif (steps := _result_steps(s)) is not None and (at := _type_at(sig.result, steps)) is not None:
            # deeper into the result: the records and items on the way made to exist
            found, v = values.value(mask, _defined_of(at))
            if found:
                put = _put(result, steps, v, sig.result)
                found, result = put is not None, put
        elif isinstance(s, n.Attr) and s.name == "actor":
            actors = view_actors(sig == MESSAGE_SIGNATURE, observes)
            found, v = values.value(mask, _one_of(actors))
            actor = cast(str, v)
        else:
            continue  # as above
        if not found:
            return None
    for name, pieces in texts.items():  # one text for every text function of an argument
        given = args.get(name)
        args[name] = " ".join([given, *pieces] if isinstance(given, str) and given else pieces)
    call = Call(tool, args, result, i, plain.kind, actor)
    if any(value_problems(v, types[k]) for k, v in args.items() if k in types) \
            or sig.result is not ANY and value_problems(result, sig.result):
        return None
    env = DataEnv({}, call.args, call.result)
    try:
        if any(truthy(eval_term(a, env)) != want for a, want in truths):
            return None
    except (ExternError, RecursionError):  # an extern (unbound here) or a term too deep: no guess
        return None
    return call


def _fits(t: Type) -> Callable[[object], bool]:
    """Accepts a value of type `t` (undefined when `t` is optional)."""
    return lambda v: v is UNDEF and isinstance(t, OptionalT) or v is not UNDEF and not value_problems(v, t)


def _unchanged_by(fn: Callable[[str], str]) -> Callable[[object], bool]:
    """Accepts a text the text function `fn` gives back as it is."""
    return lambda v: isinstance(v, str) and fn(v) == v


def _defined_of(t: Type) -> Callable[[object], bool]:
    """Accepts a defined value of type `t`."""
    return lambda v: v is not UNDEF and not value_problems(v, t)


def _one_of(options: Collection[object]) -> Callable[[object], bool]:
    """Accepts one of `options`."""
    return lambda v: v in options


def _result_steps(t: n.Term) -> list[str | int] | None:
    """The steps (field names, literal indices) of a path into a call's result, None for any
    other term."""
    steps: list[str | int] = []
    while isinstance(t, (n.Field, n.Index)):
        if isinstance(t, n.Field):
            steps.append(t.name)
        elif isinstance(t.index, n.Lit) and type(t.index.value) is int and 0 <= t.index.value < 16:
            steps.append(t.index.value)
        else:
            return None
        t = t.base
    return list(reversed(steps)) if isinstance(t, n.Result) and steps else None


def _type_at(kind: Type | None, steps: list[str | int]) -> Type | None:
    """The type at a path into a value of type `kind` (None: no such place)."""
    for step in steps:
        if isinstance(kind, OptionalT):
            kind = kind.inner
        if isinstance(step, str) and isinstance(kind, RecordT):
            kind = dict(kind.fields).get(step)
        elif isinstance(step, int) and isinstance(kind, ListT):
            kind = kind.elem
        else:
            return None
    return kind


def _put(value: object, steps: list[str | int], v: object, kind: Type) -> object:
    """`value` (of type `kind`) with `v` at the path `steps`, the records and list items on the
    way made to exist with the simplest values of their types; None when the type has no
    such place.

    >>> from policyc.ir.types import INT, ListT, RecordT
    >>> _put([], [1, "id"], 7, ListT(RecordT("r", (("id", INT),))))
    [{'id': 0}, {'id': 7}]
    """
    if isinstance(kind, OptionalT):
        kind = kind.inner
    if not steps:
        return v
    step, rest = steps[0], steps[1:]
    if isinstance(step, str) and isinstance(kind, RecordT):
        fields = dict(kind.fields)
        if step not in fields:
            return None
        record = dict(value) if isinstance(value, dict) else cast(dict[str, object], default_value(kind))
        inner = _put(record.get(step, default_value(fields[step])), rest, v, fields[step])
        if inner is None:
            return None
        record[step] = inner
        return record
    if isinstance(step, int) and isinstance(kind, ListT):
        out = list(value) if isinstance(value, list) else []
        while len(out) <= step:
            out.append(default_value(kind.elem))
        inner = _put(out[step], rest, v, kind.elem)
        if inner is None:
            return None
        out[step] = inner
        return out
    return None


def simplest(calls: Calls, tools: Mapping[str, ToolSignature]) -> Trace:
    """The calls with every argument and result the simplest value of its type (as
    `policyc.smt.decoder.decode_trace` gives a value no formula reads)."""
    out = []
    for i, (tool, _truths) in enumerate(calls):
        sig = tools[tool]
        args = {p.name: default_value(p.type) for p in sig.params if not isinstance(p.type, OptionalT)}
        result = UNDEF if sig.result is ANY else default_value(sig.result)
        out.append(Call(tool, args, result, i, MESSAGE_KIND if sig == MESSAGE_SIGNATURE else CALL))
    return Trace(tuple(out))


def replay(witness: WitnessTrace, claims: Sequence[Claim]) -> WitnessTrace | None:
    """The witness, if every claim takes its truth value on it (None otherwise)."""
    for claim in claims:
        try:
            if evaluate(claim.formula, witness.trace, witness.externs) != claim.expected:
                return None
        except (ExternError, RecursionError):
            return None
    return WitnessTrace(witness.trace, True, witness.externs)


def simple_traces(tools: Mapping[str, ToolSignature]) -> list[WitnessTrace]:
    """Traces worth trying before any search: the empty run (without a request or metrics),
    and each declared tool called once with the simplest values of its types.

    >>> from policyc.smt import bare_tools
    >>> [str(w) for w in simple_traces(bare_tools("a", "b"))]
    ['the empty trace', 'a()', 'b()']
    """
    out = [WitnessTrace(Trace(()), True)]
    out.extend(WitnessTrace(simplest([(name, ())], tools), True) for name in sorted(tools))
    return out
