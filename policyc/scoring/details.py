"""Human details for rule verdicts, in the style of the AgentLTL paper's appendix B.

    "tool_a" (call #1) before "tool_d" (call #5).
    "tool_d" was called (call #5).
    "tool_b" called 3 time(s); expected >= 3.
    Predicate returned True (3 branch calls, expected >= 3).

A stdlib predicate at the top of a rule is recognised (`shapes.py`) and described with the
positions of its events; events are named as the rule's source names them, else as the
printer shows them. Call numbers count from 1; when the policy reads messages or the user's
calls, a position is named as the event it is and the agent's call it is (`event #9, call
#4`). Anything else gets a generic detail: for `always`, the first call where its body
fails; for `forall`, the values it fails for (for a grounding rule, the entities no output
shows); else when the violation became certain.
"""

from __future__ import annotations

import json
from bisect import bisect_left
from typing import Callable, Sequence

from policyc.grounding.actions import read_claims
from policyc.ir import build as b
from policyc.ir import nodes as n
from policyc.ir.data import eval_term
from policyc.ir.policy import Rule
from policyc.ir.printer import show
from policyc.scoring import shapes
from policyc.scoring.source import SourceCall, list_items, source_call
from policyc.semantics.domains import value_key
from policyc.semantics.positions import PositionEvaluator

COUNT_NAMES = {"called_n": None, "count": None, "at_least": ">=", "existence_n": ">=", "absence_n": "<",
               "exactly": "=="}
CALLED_NAMES = ("called", "called_with", "existence")  # called_with_result: its event shows the result
NEVER_NAMES = ("never", "absence")


class Context:
    """What a detail is written from: the trace's positions engine and the verdict (the
    same for every rule with that verdict on the trace)."""

    __slots__ = ("engine", "passed", "at", "by_tool")

    def __init__(self, engine: PositionEvaluator, passed: bool):
        self.engine = engine
        self.passed = passed
        #: `call #4`, or `event #9, call #4` when the policy reads events besides the agent's calls
        self.at: Callable[[int], str] = call_number if engine.trace.events_are_calls else engine.trace.step
        self.by_tool = engine.by_tool

    def positions(self, event: Event) -> list[int]:
        if event.__class__ is str:  # a tool's calls: the trace's index has them
            return list(self.by_tool.get(event, ()))
        return set_bits(self.engine.bits(event))  # type: ignore[arg-type]

    def first(self, event: Event, start: int = 0) -> int | None:
        """The first position at or after `start` where `event` holds."""
        if event.__class__ is str:
            calls = self.by_tool.get(event, ())
            if not start:
                return calls[0] if calls else None
            k = bisect_left(calls, start)
            return calls[k] if k < len(calls) else None
        return lowest_bit(self.engine.bits(event) >> start << start)  # type: ignore[arg-type]

    def count(self, event: Event) -> int:
        if event.__class__ is str:
            return len(self.by_tool.get(event, ()))
        return self.engine.bits(event).bit_count()  # type: ignore[arg-type]


def call_number(position: int) -> str:
    """`Trace.step` of a trace of the agent's calls alone.

    >>> call_number(3)
    'call #4'
    """
    return f"call #{position + 1}"


def _arg(source: SourceCall | None, names, index: int) -> str | None:
    """The source text of argument `index` when the source calls one of `names`."""
    if source is None or source.name not in names or index >= len(source.args):
        return None
    return source.args[index]


#: An event as a detail looks it up: a tool's name for its every call (the trace's index of
#: calls by tool has them), else the formula (the positions engine's bits).
Event = str | n.Formula


def _event(f: n.Formula) -> Event:
    return f.tool if isinstance(f, n.Event) and f.guard is b.LIT_TRUE else f


def lowest_bit(value: int) -> int | None:
    """The position of the lowest set bit of `value`; None when there is none."""
    return (value & -value).bit_length() - 1 if value else None


def set_bits(value: int) -> list[int]:
    """The positions of the set bits of `value`, in increasing order (linear in its length)."""
    if not value:
        return []
    digits = format(value, "b")
    top = len(digits) - 1
    return [top - i for i in range(top, -1, -1) if digits[i] == "1"]


def quote(event: n.Formula, label: str | None = None) -> str:
    return f'"{label or show(event)}"'


def describe(rule: Rule, engine: PositionEvaluator, passed: bool, violated_at: int | None = None) -> str:
    """The detail line of one rule's verdict on the trace behind `engine`."""
    return DetailPlan(rule).describe(engine, passed, violated_at)


#: A describer of a stdlib predicate, in two halves: what it reads of the rule's formula and
#: source call (its shape: events, labels, bounds; None when the rule is not that predicate),
#: and the text it writes from that shape and a trace.
Shape = tuple
Describer = tuple[Callable[[n.Formula, "SourceCall | None"], "Shape | None"], Callable[[Shape, Context], str]]


class DetailPlan:
    """How one rule's details are written, worked out once for every trace: its source call,
    which describer speaks for it and the shape it reads (which depend on the rule's formula
    and source alone), so that a trace only fills in positions and counts."""

    __slots__ = ("formula", "source", "text", "shape")

    def __init__(self, rule: Rule):
        self.formula = rule.formula
        self.source = source_call(rule.source) if rule.source else None
        self.text: Callable[[Shape, Context], str] | None = None
        self.shape: Shape = ()
        for read, text in DESCRIBERS:
            shape = read(self.formula, self.source)
            if shape is not None:
                self.text, self.shape = text, shape
                break

    def describe(self, engine: PositionEvaluator, passed: bool, violated_at: int | None = None) -> str:
        return self.write(Context(engine, passed), violated_at)

    def write(self, ctx: Context, violated_at: int | None = None, shortest: bool = False) -> str:
        """`describe`, with the trace's context of the verdict made once for its rules
        (`shortest`: `violated_at` is the rule's automaton's shortest bad prefix)."""
        if self.text is not None:
            return self.text(self.shape, ctx)
        return generic(self.formula, ctx, violated_at, shortest)


# ------------------------------------------------------------------ the stdlib predicates


def _count_shape(f: n.Formula, src: SourceCall | None) -> Shape | None:
    shape = shapes.as_count(f)
    if shape is None:
        return None
    event, op, number = shape
    by_name = src is not None and src.name in COUNT_NAMES
    if not by_name and (op, number) in ((">=", 1), ("<", 1)):
        return None  # `called` / `never` read better
    label = _arg(src, COUNT_NAMES, 0)
    if by_name and src is not None:
        fixed = COUNT_NAMES[src.name]
        if fixed is None and src.op is not None and src.number is not None:
            op, number = src.op, src.number
        elif fixed is not None and len(src.args) > 1 and src.args[1].lstrip("-").isdigit():
            op, number = fixed, int(src.args[1])
    if isinstance(event, n.Event):
        return _event(event), f"{quote(event, label)} called ", f" time(s); expected {op} {number}."
    return _event(event), None, f" {label or show(event)} calls, expected {op} {number})."


def _count_text(shape: Shape, ctx: Context) -> str:
    event, head, tail = shape
    times = ctx.count(event)
    if head is not None:
        return f"{head}{times}{tail}"
    return f"Predicate returned {ctx.passed} ({times}{tail}"


def _called_shape(f: n.Formula, src: SourceCall | None, names=CALLED_NAMES, read=shapes.as_called) -> Shape | None:
    event = read(f)
    if event is None:
        return None
    return _event(event), quote(event, _arg(src, names, 0))


def _never_shape(f: n.Formula, src: SourceCall | None) -> Shape | None:
    return _called_shape(f, src, NEVER_NAMES, shapes.as_never)


def _called_text(shape: Shape, ctx: Context) -> str:
    event, q = shape
    first = ctx.first(event)
    if first is None:
        return f"{q} was never called."
    return f"{q} was called ({ctx.at(first)})."


def _before_shape(f: n.Formula, src: SourceCall | None) -> Shape | None:
    shape = shapes.as_before(f)
    if shape is None:
        return None
    first, second = shape
    if _arg(src, ("after",), 1) is not None:  # after(t1, t2) is before(t2, t1)
        return (_event(second), _event(first), quote(second, _arg(src, ("after",), 0)),
                quote(first, _arg(src, ("after",), 1)), "after")
    return (_event(first), _event(second), quote(first, _arg(src, ("before",), 0)),
            quote(second, _arg(src, ("before",), 1)), "before")


def _order_text(shape: Shape, ctx: Context) -> str:
    e1, e2, q1, q2, word = shape
    p1, p2 = ctx.first(e1), ctx.first(e2)
    if p1 is None and p2 is None:
        return f"{q1} and {q2} were never called."
    if p1 is None:
        return f"{q1} was never called; {q2} was ({ctx.at(p2)})."  # type: ignore[arg-type]
    if p2 is None:
        return f"{q2} was never called; {q1} was ({ctx.at(p1)})."
    verb = word if ctx.passed else f"is not {word}"
    return f"{q1} ({ctx.at(p1)}) {verb} {q2} ({ctx.at(p2)})."


def _all_before_shape(f: n.Formula, src: SourceCall | None) -> Shape | None:
    shape = shapes.as_all_before(f)
    if shape is None:
        return None
    events: Sequence[n.Formula]
    events, goal = shape
    items = list_items(_arg(src, ("all_before",), 0) or "") or ()
    matched = _match_labels(events, items)
    labels: Sequence[str | None] = [None] * len(events)
    if matched is not None:
        events = [e for _, e in sorted(zip(matched, events), key=lambda p: items.index(p[0]))]
        matched.sort(key=items.index)
        labels = matched
    return tuple((_event(e), quote(e, label)) for e, label in zip(events, labels)), _event(goal), \
        quote(goal, _arg(src, ("all_before",), 1))


def _all_before_text(shape: Shape, ctx: Context) -> str:
    events, goal, qg = shape
    g = ctx.first(goal)
    if g is None:
        return f"{qg} was never called."
    parts = []
    for event, q in events:
        p = ctx.first(event)
        if p is None:
            parts.append(f"{q} was never called")
        elif ctx.passed or p > g:
            parts.append(f"{q} ({ctx.at(p)})" + ("" if ctx.passed else " is not"))
    if ctx.passed:
        return f"{', '.join(parts)} before {qg} ({ctx.at(g)})."
    return "; ".join(p if p.endswith("called") else f"{p} before {qg} ({ctx.at(g)})" for p in parts) + "."


def _match_labels(events: Sequence[n.Formula], items: Sequence[str]) -> list[str] | None:
    squash = {"".join(text.split()): text for text in items}
    found = [label for e in events if (label := squash.get("".join(show(e).split())))]
    return found if len(found) == len(events) and len(set(found)) == len(found) else None


def _in_order_shape(f: n.Formula, src: SourceCall | None) -> Shape | None:
    events = shapes.as_in_order(f)
    if events is None or len(events) < 2 or len(set(events)) == 1:
        return None
    labels: tuple[str | None, ...] = list_items(_arg(src, ("in_order",), 0) or "") or ()
    if len(labels) != len(events):
        labels = (None,) * len(events)
    return tuple((_event(event), quote(event, label)) for event, label in zip(events, labels))


def _in_order_text(shape: Shape, ctx: Context) -> str:
    found: list[str] = []
    start = 0
    for event, q in shape:
        later = ctx.first(event, start)
        if later is None:
            if not found:
                return f"{q} was never called."
            return f"{q} never follows {found[-1]}."
        found.append(f"{q} ({ctx.at(later)})")
        start = later + 1
    return f"{', '.join(found)} in order."


def _within_steps_shape(f: n.Formula, src: SourceCall | None) -> Shape | None:
    shape = shapes.as_within_steps(f)
    if shape is None:
        return None
    start, target, k = shape
    return (_event(start), _event(target), k, quote(start, _arg(src, ("within_steps",), 0)),
            quote(target, _arg(src, ("within_steps",), 1)))


def _within_steps_text(shape: Shape, ctx: Context) -> str:
    start, target, k, q1, q2 = shape
    s = ctx.first(start)
    if s is None:
        return f"{q1} was never called."
    later = ctx.first(target, s)
    if later is None:
        return f"No {q2} at or after {q1} ({ctx.at(s)})."
    if later - s <= k:
        return f"{q2} ({ctx.at(later)}) within {k} step(s) of {q1} ({ctx.at(s)})."
    return f"{q2} ({ctx.at(later)}) is {later - s} step(s) after {q1} ({ctx.at(s)}); expected at most {k}."


def _instance_before_shape(f: n.Formula, src: SourceCall | None) -> Shape | None:
    if src is None or src.name != "instance_before" or len(src.args) != 4 or not isinstance(f, n.Until):
        return None
    if not (src.args[1].isdigit() and src.args[3].isdigit()):
        return None
    left = f.left.args if isinstance(f.left, n.And) else ()
    events = [a.arg for a in left if isinstance(a, n.Not)]
    roles = _match_labels(events, [src.args[0], src.args[2]]) if len(events) == 2 else None
    if roles is None:
        return None
    e1 = events[roles.index(src.args[0])]
    e2 = events[roles.index(src.args[2])]
    return _event(e1), _event(e2), int(src.args[1]), int(src.args[3]), quote(e1, src.args[0]), quote(e2, src.args[2])


def _instance_before_text(shape: Shape, ctx: Context) -> str:
    e1, e2, k1, k2, q1, q2 = shape
    p1, p2 = ctx.positions(e1), ctx.positions(e2)
    for q, p, k in ((q1, p1, k1), (q2, p2, k2)):
        if len(p) <= k:
            return f"{q} called {len(p)} time(s); occurrence {k + 1} does not exist."
    verb = "before" if ctx.passed else "is not before"
    return f"Occurrence {k1 + 1} of {q1} ({ctx.at(p1[k1])}) {verb} occurrence {k2 + 1} of {q2} ({ctx.at(p2[k2])})."


def _branch_shape(f: n.Formula, src: SourceCall | None) -> Shape | None:
    shape = shapes.as_branch(f)
    if shape is None:
        return None
    taken, forbidden = shape
    return _event(taken), _event(forbidden), quote(taken, _arg(src, ("branch_called",), 0)), \
        quote(forbidden, _arg(src, ("branch_called",), 1))


def _branch_text(shape: Shape, ctx: Context) -> str:
    taken, forbidden, qt, qf = shape
    pt, pf = ctx.first(taken), ctx.first(forbidden)
    first = f"{qt} was called ({ctx.at(pt)})" if pt is not None else f"{qt} was never called"
    second = f"{qf} was called ({ctx.at(pf)})" if pf is not None else f"{qf} was never called"
    return f"{first}; {second}."


# ------------------------------------------------------------------ anything else


def generic(f: n.Formula, ctx: Context, violated_at: int | None, shortest: bool = False) -> str:
    """A detail for a formula that is not one stdlib predicate (`shortest`: `violated_at` is
    the length of the shortest bad prefix, as the rule's automaton found it)."""
    engine = ctx.engine
    size = engine.n
    if b.is_always(f) and size:
        if ctx.passed:
            i = None
        elif shortest and violated_at is not None and 1 <= violated_at <= size and of_calls_so_far(f.right):
            i = violated_at - 1  # the first call where a condition on the calls so far fails made it certain
        else:
            i = first_failure(f.right, ctx)  # None: it held at every call
        if i is None:
            return f"Holds at every call ({size})."
        text = f"Does not hold at {ctx.at(i)} (`{engine.trace.calls[i].name}`)"
        if violated_at is not None and 1 <= violated_at <= size and violated_at - 1 > i \
                and _certain(f, engine, violated_at):
            k = violated_at - 1
            text += f"; the violation was certain at {ctx.at(k)} (`{engine.trace.calls[k].name}`)"
        return text + "."
    if isinstance(f, n.Forall):
        values = engine.domain(f.domain, engine.root_env)
        bad = [] if ctx.passed else [v for v in values if not engine.holds(f.body, 0, engine.root_env.bind(f.var, v))]
        grounding = _grounding_sources(f)
        shown = ", ".join(_value_text(v) for v in bad[:5]) + (f" and {len(bad) - 5} more" if len(bad) > 5 else "")
        claims = _claimed_actions(f)
        if claims is not None:
            return _actions_detail(claims, values, bad, engine)
        if grounding is not None:
            if not bad:
                return f"Every entity of {show(f.domain)} ({len(values)}) appears in the outputs of {grounding}."
            return f"Not grounded: {shown} from {show(f.domain)} {'is' if len(bad) == 1 else 'are'} not in " \
                   f"the outputs of {grounding}."
        if not bad:
            return f"Holds for all {len(values)} value(s) of {f.var}."
        return _failing_bindings(f, ctx, violated_at)
    if isinstance(f, n.And):
        told = [a for a in f.args if ctx.passed or not engine.holds(a)]
        at = violated_at if len(told) == 1 else None  # the one failing part's violation is the rule's
        return " ".join(dict.fromkeys(describe_part(a, ctx, at) for a in told))
    if ctx.passed:
        return "Satisfied."
    if violated_at == 0:  # a rule no trace satisfies, or one over the run's request or metrics
        return "Violated before the first call: no continuation of this run can satisfy it."
    if violated_at is not None and 1 <= violated_at <= size and _certain(f, engine, violated_at):
        call = engine.trace.calls[violated_at - 1].name
        return f"Violated once {ctx.at(violated_at - 1)} (`{call}`) happened: no continuation can satisfy it."
    return f"Not satisfied by the complete trace ({size} call(s))."


#: At most this many bindings of nested quantifiers are tried, and this many named.
MAX_BINDINGS, SHOWN_BINDINGS = 10_000, 5


def _failing_bindings(f: n.Forall, ctx: Context, violated_at: int | None) -> str:
    """`Does not hold for o = "A1", m = 12.5 at call #3 (`issue_refund`).`: every variable of
    the rule's leading quantifiers, for the bindings that fail, and the call that failed: the
    one after which the violation was certain, or, when no call made it certain (an
    obligation never met), the first call where the body did not hold."""
    engine = ctx.engine
    names: list[str] = []
    body: n.Formula = f
    while isinstance(body, n.Forall):
        names.append(body.var)
        body = body.body
    failing: list[tuple] = []
    seen: set = set()
    budget = [MAX_BINDINGS]

    def walk(q: n.Formula, env, bound: tuple) -> None:
        if budget[0] <= 0:
            return
        if not isinstance(q, n.Forall):
            budget[0] -= 1
            key = tuple(value_key(v) for v in bound)
            if key not in seen and not engine.holds(q, 0, env):
                seen.add(key)
                failing.append(bound)
            return
        for value in engine.domain(q.domain, env):
            walk(q.body, env.bind(q.var, value), bound + (value,))

    walk(f, engine.root_env, ())
    if not failing:  # a failure across bindings (or beyond the budget): name the outer values
        values = list({value_key(v): v for v in engine.domain(f.domain, engine.root_env)
                       if not engine.holds(f.body, 0, engine.root_env.bind(f.var, v))}.values())
        failing, names = [(v,) for v in values], [f.var]
    if len(names) == 1:
        shown = ", ".join(_value_text(v) for (v,) in failing[:SHOWN_BINDINGS])
        text = f"{names[0]} = {shown}"
    else:
        text = "; ".join(", ".join(f"{name} = {_value_text(v)}" for name, v in zip(names, bound))
                         for bound in failing[:SHOWN_BINDINGS])
    if len(failing) > SHOWN_BINDINGS:
        text += f" and {len(failing) - SHOWN_BINDINGS} more"
    size = engine.n
    certain = violated_at is not None and 1 <= violated_at <= size and _certain(f, engine, violated_at)
    several = len(failing) > 1
    if certain:
        i = violated_at - 1  # type: ignore[operator]
        call = f"{ctx.at(i)} (`{engine.trace.calls[i].name}`)"
        return f"Does not hold for {text} (first at {call})." if several else f"Does not hold for {text} at {call}."
    if b.is_always(body) and size:
        env = engine.root_env
        for name, value in zip(names, failing[0]):
            env = env.bind(name, value)
        first = lowest_bit(engine.mask & ~engine.bits(body.right, env))
        if first is not None:
            return f"Does not hold for {text} (first at {ctx.at(first)}, `{engine.trace.calls[first].name}`)."
    return f"Does not hold for {text}."


def first_failure(f: n.Formula, ctx: Context) -> int | None:
    """The first position where `f` does not hold (None: it holds at every one). A response
    `t -> eventually c` over tools' every call fails at the first `t` after the last `c`, read
    from the trace's index by tool; anything else from the positions engine's bits."""
    response = _response(f)
    if response is None:
        engine = ctx.engine
        return lowest_bit(engine.mask & ~engine.bits(f))
    triggers, answers = ctx.by_tool.get(response[0], ()), ctx.by_tool.get(response[1], ())
    last = answers[-1] if answers else -1
    k = bisect_left(triggers, last)  # the first trigger at or after the last answer...
    if k < len(triggers) and triggers[k] == last:  # ...is answered when it is the same call
        k += 1
    return triggers[k] if k < len(triggers) else None


def _response(f: n.Formula) -> tuple[str, str] | None:
    """(t, c) for `not t or eventually c`, t and c tools' every call (kept in the node's memo:
    asked of the same rule on every trace)."""
    if "details.response" in f._cache:
        return f._cache["details.response"]
    found = None
    if isinstance(f, n.Or) and len(f.args) == 2:
        negated = [a.arg for a in f.args if isinstance(a, n.Not)]
        later = [a.right for a in f.args if b.is_eventually(a)]
        if len(negated) == 1 and len(later) == 1:
            trigger, answer = _event(negated[0]), _event(later[0])
            if isinstance(trigger, str) and isinstance(answer, str):
                found = (trigger, answer)
    f._cache["details.response"] = found
    return found


def of_calls_so_far(f: n.Formula) -> bool:
    """Whether `f` at a position is a condition on the calls up to it alone (tools' every call,
    constants, boolean and past operators): `always f` then first fails where its shortest bad
    prefix ends (that prefix, as a complete run, satisfies it up to its last call, and no
    extension repairs a position where `f` failed).

    >>> a, c = b.event("a"), b.event("c")
    >>> of_calls_so_far(b.implies(a, b.once(c))), of_calls_so_far(b.implies(a, b.eventually(c)))
    (True, False)
    """
    found = f._cache.get("details.of_calls_so_far")  # kept in the node's memo, as `_response`
    if found is None:
        if isinstance(f, n.Event):
            found = f.guard is b.LIT_TRUE
        elif isinstance(f, n.Const):
            found = True
        elif isinstance(f, (n.Not, n.And, n.Or, n.Yesterday, n.WYesterday, n.Since, n.Trigger)):
            found = all(of_calls_so_far(c) for c in f.children if isinstance(c, n.Formula))
        else:
            found = False
        f._cache["details.of_calls_so_far"] = found
    return found


def _certain(f: n.Formula, engine: PositionEvaluator, violated_at: int) -> bool:
    """Whether `violated_at` marks a bad prefix rather than the end of the trace: a violation
    certain before the last call, or at it for a rule whose failures are final."""
    from policyc.scoring.certain import is_final_on_prefixes

    return violated_at < engine.n or is_final_on_prefixes(f)


def _grounding_sources(f: n.Forall) -> str | None:
    """For `forall e in D: e in outputs(T...)`, the tools whose outputs ground D (readable)."""
    body = f.body
    if not (isinstance(body, n.Cond) and isinstance(body.term, n.Op) and body.term.op == "in"):
        return None
    element, pool = body.term.args
    if not (isinstance(element, n.Var) and element.name == f.var and isinstance(pool, n.Outputs)):
        return None
    return ", ".join(pool.tools) if pool.tools else "any tool"


def _claimed_actions(f: n.Forall) -> n.Op | None:
    """For `forall a in actions(text): a in done`, the `actions(...)` term."""
    body, domain = f.body, f.domain
    if not (isinstance(domain, n.Op) and domain.op == "actions" and isinstance(body, n.Cond)
            and isinstance(body.term, n.Op) and body.term.op == "in"):
        return None
    element, pool = body.term.args
    return domain if isinstance(element, n.Var) and element.name == f.var and isinstance(pool, n.Done) else None


def _actions_detail(claims: n.Op, values: list, bad: list, engine: PositionEvaluator) -> str:
    """`Claimed but not done: "ship_replacement" ("has been dispatched", in reply.text).`"""
    source = show(claims.args[0])
    if not bad:
        return f"Every action claimed in {source} ({len(values)}) was done by a call that succeeded."
    table = claims.args[1].value if isinstance(claims.args[1], n.Lit) else None
    phrases: dict[str, str] = {}
    if isinstance(table, dict):
        texts = eval_term(claims.args[0], engine.root_env)
        for claim in read_claims(texts, table):
            if claim.is_claimed:
                phrases.setdefault(claim.tool, claim.phrase)
    parts = [_value_text(v) + (f" ({_value_text(phrases[v])})" if v in phrases else "") for v in bad[:5]]
    more = f" and {len(bad) - 5} more" if len(bad) > 5 else ""
    return f"Claimed but not done: {', '.join(parts)}{more}, in {source}; no call to " \
           f"{'it' if len(bad) == 1 else 'them'} succeeded."


DESCRIBERS: tuple[Describer, ...] = (
    (_count_shape, _count_text), (_called_shape, _called_text), (_never_shape, _called_text),
    (_before_shape, _order_text), (_all_before_shape, _all_before_text), (_in_order_shape, _in_order_text),
    (_within_steps_shape, _within_steps_text), (_instance_before_shape, _instance_before_text),
    (_branch_shape, _branch_text))
#: Those that describe a conjunct of a rule (which has no source call of its own)
PART_DESCRIBERS = tuple(d for d in DESCRIBERS if d[0] is not _instance_before_shape)


def describe_part(f: n.Formula, ctx: Context, violated_at: int | None = None) -> str:
    """The detail of one conjunct of a rule, judged on its own (`violated_at`: where the rule's
    violation became certain, when this part alone fails)."""
    part = Context(ctx.engine, ctx.engine.holds(f))
    for read, text in PART_DESCRIBERS:
        shape = read(f, None)
        if shape is not None:
            return text(shape, part)
    return generic(f, part, violated_at)


def _value_text(value: object) -> str:
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        return repr(value)
