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

from typing import Callable, Mapping, Sequence, cast

from policyc.automata.one_value import OneValue
from policyc.automata.solver import independent_groups
from policyc.ir import build as b
from policyc.ir import nodes as n
from policyc.ir.data import DataEnv, ExternError, eval_term
from policyc.ir.ops import UNDEF, truthy
from policyc.ir.types import ANY, MESSAGE_SIGNATURE, ListT, OptionalT, ToolSignature, Type, value_problems
from policyc.ir.walk import subformulas
from policyc.lint.claims import Claim
from policyc.semantics.evaluator import evaluate
from policyc.smt import PolicySolver, WitnessTrace
from policyc.smt.decoder import default_value
from policyc.smt.values import NeedsStrings
from policyc.trace.model import ASSISTANT, CALL, MESSAGE_KIND, USER, Call, Trace
from policyc.smt.verifier import DEFAULT_RLIMIT

#: The text functions Z3 sees into only on texts they leave unchanged.
TEXT_FUNCTIONS = ("lower", "upper", "strip")

Calls = Sequence[tuple[str, Sequence[tuple[n.Term, bool]]]]


def concretize(calls: Calls, metrics: Sequence[tuple[n.Term, bool]], claims: Sequence[Claim],
               tools: Mapping[str, ToolSignature], list_bound: int = 3, rlimit: int = DEFAULT_RLIMIT,
               coded_strings: bool = False) -> WitnessTrace | None:
    """A trace with these calls and metrics conditions on which every claim replays; None when
    the types leave no such values (or the solver gives up)."""
    try:
        return _concretize(calls, metrics, claims, tools, list_bound, rlimit, coded_strings)
    except NeedsStrings:
        if not coded_strings:
            raise
        return _concretize(calls, metrics, claims, tools, list_bound, rlimit, False)


def _concretize(calls, metrics, claims, tools, list_bound, rlimit, coded) -> WitnessTrace | None:
    pinned = _pinned(metrics)
    record = _record(pinned) if metrics else {}
    if record is not None:
        guessed = _guessed(calls, tools)
        if guessed is not None:  # values chosen without a solver
            found = replay(WitnessTrace(Trace(guessed, record), True), claims)
            if found is not None:
                return found
    # the metrics conditions as equalities with values that give them first (easier for Z3); with
    # text functions read, then among texts they leave as they are: such a model replays
    texts = any(isinstance(t, n.Op) and t.op in TEXT_FUNCTIONS
                for atom, _ in (*metrics, *(x for _tool, truths in calls for x in truths)) for t in subformulas(atom))
    for chosen in ([pinned] if pinned is not None else []) + [metrics]:
        for plain in (False, True) if texts else (False,):
            found = _solve(calls, chosen, tools, list_bound, rlimit, coded, plain)
            done = replay(found, claims) if found is not None else None
            if done is not None:
                return done
    return None


def _solve(calls, metrics, tools, list_bound, rlimit, coded, plain: bool) -> WitnessTrace | None:
    """A model of the calls' truths (in a solver of its own: a check that reached its limit
    leaves nothing behind); `plain`: every text a text function reads is one it leaves as it is."""
    ps = PolicySolver(tools, max(1, len(calls)), list_bound, rlimit, name="w", coded_strings=coded)
    names = [ps.require_length(len(calls))]
    for i, (tool, truths) in enumerate(calls):
        names.append(ps.require_at(f"call{i}", b.event(tool), i))
        for j, (atom, value) in enumerate(truths):
            names.append(ps.require_at(f"atom{i}.{j}", b.event(tool, atom), i, value))
    for j, (atom, value) in enumerate(metrics):
        ps.require(f"metric{j}", b.cond(atom), value)
        names.append(f"metric{j}")
    if plain:
        names.append(ps.require_plain_texts())
    found = ps.check(names)
    return found.witness if found.is_sat else None


def _pinned(metrics: Sequence[tuple[n.Term, bool]]) -> list[tuple[n.Term, bool]] | None:
    """The metrics conditions with each group that tests one value against literals replaced
    by that value's equality with a value that gives the group's truths (`one_value`); None
    when no group could be replaced."""
    out: list[tuple[n.Term, bool]] = []
    changed = False
    atoms = [a for a, _ in metrics]
    for group in independent_groups(atoms):
        values = OneValue.of([atoms[i] for i in group])
        if values is not None:
            found, value = values.value(sum(1 << j for j, i in enumerate(group) if metrics[i][1]))
            if found and (value is None or isinstance(value, (bool, int, float, str))):
                out.append((b.op("eq", values.subject, b.lit(value)), True))
                changed = True
                continue
        out.extend(metrics[i] for i in group)
    return out if changed else None


def _record(pinned: Sequence[tuple[n.Term, bool]] | None) -> dict | None:
    """The metrics record the pinned equalities describe; None unless every condition is one
    (`metrics.a.b == v`) and their paths agree."""
    if pinned is None:
        return None
    record: dict = {}
    for atom, value in pinned:
        if not (value and isinstance(atom, n.Op) and atom.op == "eq" and isinstance(atom.args[0], n.Metric)
                and isinstance(atom.args[1], n.Lit) and atom.args[0].path):
            return None
        *outer, last = atom.args[0].path
        place = record
        for key in outer:
            place = place.setdefault(key, {})
            if not isinstance(place, dict):
                return None
        if last in place:
            return None
        place[last] = atom.args[1].value
    return record


def _guessed(calls: Calls, tools: Mapping[str, ToolSignature]) -> tuple[Call, ...] | None:
    """The calls with values that give their conditions, chosen without a solver: each group
    of a call's conditions that tests one value (an argument, its length, a text function of
    it, a field of the result, the actor) takes a value of its type that gives the group's
    truths (`one_value`); every other value is the simplest of its type. None when a
    condition is of another form, no such value was found, or the call, checked on the
    evaluator, does not give exactly its truths."""
    out = []
    for i, (tool, truths) in enumerate(calls):
        sig = tools[tool]
        plain = _simplest([(tool, ())], tools).calls[0]
        args, result, actor = dict(plain.args), plain.result, plain.actor
        types = {p.name: p.type for p in sig.params}
        atoms = [a for a, _ in truths]
        texts: dict[str, list[str]] = {}
        for group in independent_groups(atoms):
            values = OneValue.of([atoms[j] for j in group])
            if values is None:
                return None
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
                found, v = values.value(mask, lambda v: type(v) is int and 0 <= v <= 16)
                if found:
                    args[s.args[0].name] = ["x"] * cast(int, v) if isinstance(types[s.args[0].name], ListT) \
                        else "x" * cast(int, v)
            elif isinstance(s, n.Op) and s.op in TEXT_FUNCTIONS and isinstance(s.args[0], n.Arg):
                fn = getattr(str, s.op)
                found, v = values.value(mask, _unchanged_by(fn))
                if found:
                    texts.setdefault(s.args[0].name, []).append(cast(str, v))
            elif isinstance(s, n.Field) and isinstance(s.base, n.Result):
                found, v = values.value(mask)
                if found:
                    result = {k: x for k, x in (result.items() if isinstance(result, dict) else ()) if k != s.name}
                    if v is not UNDEF:
                        result[s.name] = v
            elif isinstance(s, n.Attr) and s.name == "actor":
                found, v = values.value(mask, lambda v: v in (ASSISTANT, USER))
                actor = cast(str, v)
            else:
                return None
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
        if any(truthy(eval_term(a, env)) != want for a, want in truths):
            return None
        out.append(call)
    return tuple(out)


def _fits(t: Type) -> Callable[[object], bool]:
    """Accepts a value of type `t` (undefined when `t` is optional)."""
    return lambda v: v is UNDEF and isinstance(t, OptionalT) or v is not UNDEF and not value_problems(v, t)


def _unchanged_by(fn: Callable[[str], str]) -> Callable[[object], bool]:
    """Accepts a text the text function `fn` gives back as it is."""
    return lambda v: isinstance(v, str) and fn(v) == v


def _simplest(calls: Calls, tools: Mapping[str, ToolSignature]) -> Trace:
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
