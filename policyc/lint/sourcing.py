"""Values that must come from earlier results: what the lint's run search keeps of `x from T`.

A condition `x from T` (or `flows(T, text)`) reads every source the run had seen, so the
automata cannot compile it, and `policyc.lint.weaken` makes it as permissive as its place
allows. When every source `T` holds is a tool's result (no request, no user message), the
condition says one thing the automata can read: it is false unless a call of one of those
tools came before (`earlier`). `provenance_split` writes a pattern as cases on that fact,
`(before and E) or (not before and E')` with `E'` reading the condition as false: the cases
are equivalent to the pattern, and weakening (or strengthening) each case keeps the
direction its place needs. So the runs of a weakened claim still hold every trace of the
claim ("no run" stays exact), and a run the automata propose calls a source before a call
that needs one.

`sourced` is the other half, for making such a run concrete: a value a call must take from
`T`, where it does not yet, is put into the result of the latest earlier call of `T` (a list
result gets one more item), or into the request when the request is a source, or, when no
earlier call can hold it, a call of a source that can is put just before; a text that must
flow gets enough words to. A trace made so is only a candidate: the lint replays every
witness against the claims themselves.

>>> from policyc.ir import build as b
>>> from policyc.ir.printer import show
>>> cards = (("tool", "cards", (), True),)
>>> pay = b.event("pay", n.From(b.arg("card"), False, "cards", cards))
>>> show(earlier(pay.guard))
'Y O cards'
>>> show(provenance_split("pay", pay.guard, lambda g: b.event("pay", g)))
'Y O cards and pay(card from cards)'
>>> from policyc.ir.types import STR, ListT, Param, RecordT, ToolSignature, ANY
>>> tools = {"cards": ToolSignature("cards", (), ListT(RecordT("c", (("id", STR),)))),
...          "pay": ToolSignature("pay", (Param("card", STR),), ANY)}
>>> trace = Trace((Call("cards", {}, [], 0), Call("pay", {"card": "C-1"}, position=1)))
>>> sourced(trace, wanted([Claim("r", b.always(b.implies(b.event("pay"), pay)))]), tools).calls[0].result
[{'id': 'C-1'}]
"""

from __future__ import annotations

from dataclasses import replace
from typing import Callable, Mapping, Sequence, cast

from policyc.grounding.provenance import REQUEST, SourceSet, comes_from, flows, in_sources, labels, leaves_of, words
from policyc.ir import build as b
from policyc.ir import nodes as n
from policyc.ir.data import DataEnv, ExternError, eval_term
from policyc.ir.ops import UNDEF
from policyc.ir.types import ANY, MESSAGE_SIGNATURE, FLOAT, INT, STR, ListT, OptionalT, RecordT, ToolSignature, Type
from policyc.ir.walk import subformulas
from policyc.lint.claims import Claim
from policyc.trace.model import Call, Trace


def source_tools(sources: SourceSet, tools: Mapping[str, ToolSignature] | None = None) -> frozenset[str] | None:
    """The tools whose results a set of sources holds (those it does not name, when it holds
    them by default: known only with the policy's `tools`); None when it also holds the
    request or the user's messages, or no tool at all."""
    found: set[str] = set()
    for selector, tool, _path, included in sources:
        if not included:
            continue
        if selector in ("request", "user"):
            return None
        if selector == "tool":
            found.add(tool)
        elif selector == "default":
            if tools is None:
                return None
            found.update(t for t in tools if in_sources(sources, ("tool", t, ())))
    # a tool some of whose fields are sources, though its result as a whole is not
    found.update(tool for selector, tool, _path, included in sources if selector == "tool" and included)
    return frozenset(found) or None


def _holds_request(sources: SourceSet) -> bool:
    return any(selector == "request" and included for selector, _, _, included in sources)


def earlier(atom: n.Term, tools: Mapping[str, ToolSignature] | None = None) -> n.Formula | None:
    """For a provenance condition whose sources are tool results alone, a formula that holds
    wherever the condition does: some call of a source came before; None for any other
    condition."""
    if not isinstance(atom, (n.From, n.Flows)):
        return None
    found = source_tools(atom.sources, tools)
    return None if found is None else b.yesterday(b.once(b.disj(*(b.event(t) for t in sorted(found)))))


def provenance_split(tool: str, guard: n.Term, event: Callable[[n.Term], n.Formula],
                     tools: Mapping[str, ToolSignature] | None = None, most: int = 3) -> n.Formula | None:
    """`tool(guard)` as cases on whether a source of each provenance condition the guard
    holds (among its `and`, `or` and `not`) came before: `(before and E) or (not before and
    E')`, where `E'` reads the condition as false (it is, with no source before it). The
    cases are equivalent to the event; `event` makes each case's pattern (weakened or
    strengthened, as its place needs: the cases keep that direction). None when the guard
    holds no such condition."""
    atoms = [a for a in dict.fromkeys(_boolean_leaves(guard)) if earlier(a, tools) is not None][:most]
    if not atoms:
        return None

    def split(g: n.Term, left: list[n.Term]) -> n.Formula:
        if not left:
            return event(g)
        fact = earlier(left[0], tools)
        assert fact is not None
        return b.disj(b.conj(fact, split(g, left[1:])),
                      b.conj(b.neg(fact), split(_replaced(g, left[0], b.lit(False)), left[1:])))

    return split(guard, atoms)


def _boolean_leaves(t: n.Term) -> list[n.Term]:
    if isinstance(t, n.Op) and t.op in ("and", "or", "not"):
        return [leaf for a in t.args for leaf in _boolean_leaves(a)]
    return [t]


def _replaced(t: n.Term, old: n.Term, new: n.Term) -> n.Term:
    if t == old:
        return new
    if isinstance(t, n.Op) and t.op in ("and", "or", "not"):
        return b.op(t.op, *(_replaced(a, old, new) for a in t.args))
    return t


Wanted = tuple[str, "n.From | n.Flows"]


def wanted(claims: Sequence[Claim]) -> list[Wanted]:
    """The provenance conditions the claims assert somewhere (at a place where their truth
    helps the claim) whose sources are tool results or include the request, with the tool
    of their pattern."""
    out: dict[Wanted, None] = {}

    def term(tool: str, t: n.Term, positive: bool) -> None:
        if isinstance(t, n.Op) and t.op in ("and", "or"):
            for a in t.args:
                term(tool, a, positive)
        elif isinstance(t, n.Op) and t.op == "not":
            term(tool, t.args[0], not positive)
        elif positive and isinstance(t, (n.From, n.Flows)) \
                and (_holds_request(t.sources) or source_tools(t.sources) is not None
                     or any(sel == "default" and inc for sel, _, _, inc in t.sources)):
            out[(tool, t)] = None

    seen: set[tuple[n.Formula, bool]] = set()  # a formula shared by many parents is read once per polarity

    def go(f: n.Formula, positive: bool) -> None:
        stack = [(f, positive)]
        while stack:
            f, positive = stack.pop()
            if (f, positive) in seen:
                continue
            seen.add((f, positive))
            if isinstance(f, n.Event):
                term(f.tool, f.guard, positive)
            elif isinstance(f, n.Not):
                stack.append((f.arg, not positive))
            else:
                stack.extend((sub, positive) for sub in _subformulas(f))

    for claim in claims:
        go(claim.formula, claim.expected)
    return list(out)


def _subformulas(f: n.Formula) -> list[n.Formula]:
    """The direct subformulas of a formula."""
    out = []
    for name in f._fields:
        value = getattr(f, name)
        for item in value if isinstance(value, tuple) else (value,):
            if isinstance(item, n.Formula):
                out.append(item)
    return out


def sourced(trace: Trace, wanted: Sequence[Wanted], tools: Mapping[str, ToolSignature]) -> Trace:
    """The trace with each value a wanted condition reads at a call, where the condition
    does not hold yet, put into the result of the latest earlier call of one of its sources
    (where the result's type has a place for it), or else, when the request is one of its
    sources, added to the request's text; the trace itself when nothing was put."""
    if not wanted:
        return trace
    calls = list(trace.calls)
    request = trace.request
    changed = False
    inserted: list[tuple[int, Call]] = []
    for i, call in enumerate(calls):
        for tool, cond in wanted:
            if call.name != tool:
                continue
            try:
                value = eval_term(cond.value if isinstance(cond, n.From) else cond.text,
                                  DataEnv({}, call.args, call.result))
            except (ExternError, RecursionError, KeyError, TypeError):
                continue
            if isinstance(value, list) and isinstance(cond, n.Flows) and all(isinstance(v, str) for v in value):
                value = " ".join(value)
            if isinstance(cond, n.Flows) and isinstance(cond.text, n.Arg) and isinstance(value, str) \
                    and len(words(value)) < cond.span:  # too few words to flow: a text of its own that has them
                value = " ".join([value, *(f"word{k}" for k in range(cond.span))]).strip()
                call = calls[i] = replace(call, args={**call.args, cond.text.name: value})
                changed = True
            if isinstance(value, bool) or not isinstance(value, (str, int, float)) or value == "":
                continue
            if _holds(cond, value, calls[:i], request):
                continue
            placed = False
            sources = source_tools(cond.sources, tools) or frozenset()
            for j in range(i - 1, -1, -1):
                before = calls[j]
                sig = tools.get(before.name)
                if before.name not in sources or sig is None:
                    continue
                put = _place(before.result, sig.result, value, ("tool", before.name, ()), cond.sources)
                if put is not None:
                    calls[j] = replace(before, result=put)
                    placed = changed = True
                    break
            if not placed and isinstance(cond, n.From) and _holds_request(cond.sources):
                request = f"{request} {value}" if request else str(value)
                placed = changed = True
            if not placed:  # no earlier call holds it: a call of a source that does, just before
                source = _source_call(sorted(sources), value, cond.sources, tools)
                if source is not None:
                    inserted.append((i, source))
                    changed = True
    if not changed:
        return trace
    for i, source in reversed(inserted):
        calls.insert(i, source)
    calls = [replace(c, position=k) for k, c in enumerate(calls)]
    return replace(trace, calls=tuple(calls), request=request, events=None, positions=None)


def _source_call(names: Sequence[str], value: object, sources: SourceSet,
                 tools: Mapping[str, ToolSignature]) -> Call | None:
    """A call of the first of these tools whose result can hold the value where the sources
    hold it (its arguments the simplest of their types); None when none can."""
    from policyc.smt.decoder import default_value
    for name in sorted(names, key=lambda t: (t not in tools or tools[t].result == ANY, t)):  # typed results first
        sig = tools.get(name)
        if sig is None or sig == MESSAGE_SIGNATURE:
            continue
        put = _place(UNDEF, sig.result, value, ("tool", name, ()), sources)
        if put is not None:
            args = {p.name: default_value(p.type) for p in sig.params if not isinstance(p.type, OptionalT)}
            return Call(name, args, put)
    return None


def _holds(cond: n.From | n.Flows, value: object, before: Sequence[Call], request: str | None) -> bool:
    """Whether the condition already holds of this value after these calls and request."""
    leaves = list(leaves_of(request, REQUEST, 0)) if request is not None else []
    for j, call in enumerate(before):
        if call.result is not UNDEF:
            leaves.extend(leaves_of(call.result, ("tool", call.name, ()), j + 1))
    if isinstance(cond, n.From):
        return comes_from(labels(value, leaves), cond.sources, cond.only)
    return flows(cond.sources, value, cond.span, leaves)


def _fits(kind: Type, value: object) -> bool:
    if isinstance(value, str):
        return kind == STR
    if isinstance(value, int):
        return kind in (INT, FLOAT)
    return kind == FLOAT


def _place(result: object, kind: Type, value: object, label: tuple, sources: SourceSet) -> object | None:
    if isinstance(kind, OptionalT):
        kind = kind.inner
    if kind == ANY or _fits(kind, value):  # a result of any type may be the value itself
        return value if in_sources(sources, label) else None
    if isinstance(kind, ListT):
        items = list(result) if isinstance(result, list) else []
        item = _place(UNDEF, kind.elem, value, label, sources)
        return None if item is None else [*items, item]
    if isinstance(kind, RecordT):
        from policyc.smt.decoder import default_value
        record = dict(result) if isinstance(result, dict) else cast(dict, default_value(kind))
        kind_, tool, path = label
        for name, field in kind.fields:
            inner = _place(record.get(name, UNDEF), field, value, (kind_, tool, (*path, name)), sources)
            if inner is not None:
                record[name] = inner
                return record
    return None


def mentions_sources(claims: Sequence[Claim]) -> bool:
    """Whether any claim reads provenance."""
    return any(isinstance(s, (n.From, n.Flows)) for c in claims for s in subformulas(c.formula))
