"""Variables bound at the call that triggers a rule: read from that call, not tracked per value.

`always (send_money(recipient: r) -> said(r) or once read_file(contains(result, r)))` lowers
to `forall r in send_money.recipient: G (not send_money(recipient: r) or ...)`. At a position
where `send_money` is called with recipient v, the body asks about v only *at that position*
and about the calls *before* it; for every other value it holds there. So the rule is the
plain formula

    G (not send_money(recipient != null) or send_money(said(recipient))
       or send_money(earlier read_file(contains(result, r)) with r = recipient))

whose atoms are read from the current call (`said(recipient)` with the run's request) and from
the run's history (`n.Earlier`, answered by per-run stores: `policyc.tables.earlier`). No
instance per value, no evaluator at the gate.

`bind_at_trigger` makes that rewrite when the shape allows it, exactly:

- the quantifier is `forall x in D: G φ`, φ a disjunction with one `not T(g)` whose guard g
  binds x by a conjunct `t == x` (t reading only the call; D contains `T.t`'s values) or
  `x in t` (D contains the elements of `T.t`'s lists); the rest of φ says, at the position,
  something about x built from conditions, events and `once` of events (and formulas that do
  not read x at all);
- `x == t` binds one value: t's, when it is neither ⊥ nor null (the domain holds no other);
- `x in t` binds every element of t when t is a list (a `forall` over them inside the
  call's guard); when t is a text or an object, `x in t` would read values the domain may only
  gain later (substrings, keys): such a call is marked unreadable (`unreadable(t)`, a guard
  atom no letter of the alphabet may make true), and the scorer and the gate fall back to the
  evaluator for that run, as for any call an automaton cannot read;
- `once E(x)` at the position is `E(x)` at it (the trigger's own call, when E is its tool) or
  an earlier call matching it: a history atom of the trigger's tool.

`miniscope` first moves quantifiers inward across parts that do not read their variable
(`forall s: forall c: A(s) and B(c)` is `A` for every s and `B` for every c, or an empty
domain), so that each rewrite sees one variable. Anything else is left as it was, for the
slicing (`fragment`) or the evaluator.

>>> from policyc.ir import build as b
>>> from policyc.ir.printer import show
>>> p = b.var("p")
>>> rule = b.forall("p", None, b.values("read_file", ("file_path",)), b.always(b.implies(
...     b.event("read_file", b.op("eq", b.arg("file_path"), p)),
...     b.cond(b.op("contains", b.field(b.request(), "text"), p)))))
>>> show(bind_at_trigger(rule))
'G (read_file(file_path != null) -> read_file(contains(request.text, file_path)))'
"""

from __future__ import annotations

import itertools

from policyc.ir import build as b
from policyc.ir import nodes as n
from policyc.ir.walk import free_vars, subformulas

from policyc.tables.atoms import is_call_local

#: At most this many parts of a rule that do not read the variable are split on (2^k cases).
MAX_SPLIT = 4


# ------------------------------------------------------------------ substitution


def substitute(t: n.Term, name: str, value: n.Term) -> n.Term:
    """`t` with the variable `name` replaced by `value` where it is free."""
    if name not in free_vars(t):
        return t
    if isinstance(t, n.Var):
        return value
    if isinstance(t, n.Field):
        return b.field(substitute(t.base, name, value), t.name)
    if isinstance(t, n.Index):
        return b.index(substitute(t.base, name, value), substitute(t.index, name, value))
    if isinstance(t, n.Slice):
        return b.slice_(substitute(t.base, name, value), None if t.start is None else substitute(t.start, name, value),
                        None if t.stop is None else substitute(t.stop, name, value))
    if isinstance(t, n.Op):
        return b.op(t.op, *(substitute(a, name, value) for a in t.args))
    if isinstance(t, n.Extern):
        return b.extern(t.name, *(substitute(a, name, value) for a in t.args))
    if isinstance(t, n.Quant):
        body = t.body if t.var == name else substitute(t.body, name, value)
        return b.quant(t.kind, t.var, substitute(t.domain, name, value), body)
    if isinstance(t, n.Project):
        return b.project(substitute(t.base, name, value), t.path)
    if isinstance(t, n.Earlier):
        guard = t.guard if t.var == name else substitute(t.guard, name, value)
        return b.earlier(t.tool, t.var, guard, substitute(t.value, name, value))
    if isinstance(t, n.From):
        return n.From(substitute(t.value, name, value), t.only, t.label, t.sources)
    if isinstance(t, n.Flows):
        return n.Flows(t.label, t.sources, substitute(t.text, name, value), t.span)
    raise TypeError(f"cannot substitute into {type(t).__name__}")  # pragma: no cover - every term kind above


# ------------------------------------------------------------------ domains


def _path_term(tool_path: tuple) -> n.Term | None:
    """The term reading `tool.path` at a call of the tool (`result.a[0]`, `arg.b`)."""
    if not tool_path:
        return None
    head, rest = tool_path[0], tool_path[1:]
    term: n.Term = n.Result() if head == "result" else n.Arg(head)
    for step in rest:
        term = b.index(term, b.lit(step)) if isinstance(step, int) else b.field(term, step)
    return term


def _term_path(t: n.Term) -> tuple | None:
    """The inverse: the path a term reads at a call, when it is a path."""
    steps: list = []
    while isinstance(t, (n.Field, n.Index)):
        if isinstance(t, n.Field):
            steps.append(t.name)
        elif isinstance(t.index, n.Lit) and type(t.index.value) is int:
            steps.append(t.index.value)
        else:
            return None
        t = t.base
    if isinstance(t, n.Result):
        head = "result"
    elif isinstance(t, n.Arg) and t.name != "result":  # `values(T, ("result", ...))` reads the result
        head = t.name
    else:
        return None
    return (head, *reversed(steps))


def domain_parts(term: n.Term) -> tuple[list[tuple[str, tuple, bool]], list] | None:
    """(call domains, literal values) of a quantifier's domain; None when it is drawn from
    anything else."""
    if isinstance(term, n.Values):
        return [(term.tool, term.path, term.flatten)], []
    if isinstance(term, n.Lit):
        v = term.value
        return [], v if isinstance(v, list) else list(v) if isinstance(v, dict) else [] if v is None else [v]
    if isinstance(term, n.Op) and term.op == "add":
        calls, consts = [], []
        for a in term.args:
            found = domain_parts(a)
            if found is None or isinstance(a, n.Lit) and not isinstance(a.value, list):
                return None
            calls += found[0]
            consts += found[1]
        return calls, consts
    return None


def empty_domain(domain: n.Term) -> n.Formula | None:
    """A formula that holds exactly when the domain is empty on the trace (None: not drawn
    from calls and literals). `tool.path` gives nothing when no call to the tool has a value
    there other than ⊥ and null (with `flatten`, no empty list either)."""
    found = domain_parts(domain)
    if found is None:
        return None
    calls, consts = found
    if consts:
        return n.FALSE
    parts = []
    for tool, path, flatten in calls:
        term = _path_term(path)
        if term is None:
            return n.TRUE if not path else None  # `values` over no path is empty
        gives = b.op("ne", term, b.lit(None))
        if flatten:
            gives = b.op("and", gives, b.op("ne", term, b.lit([])))
        parts.append(b.always(b.neg(b.event(tool, gives))))
    return b.conj(*parts)


# ------------------------------------------------------------------ miniscoping


def miniscope(f: n.Formula) -> n.Formula:
    """Quantifiers moved inward across parts that do not read their variable, exactly (with
    `forall` over an empty domain true and `exists` false):

        forall x: A and B        = (forall x: A) and (forall x: B)
        forall x: C              = empty(D) or C               (x not in C)
        forall x: C or E         = C or forall x: E
        exists x: A or B         = (exists x: A) or (exists x: B)
        exists x: C              = not empty(D) and C
        exists x: C and E        = C and exists x: E
    """
    if isinstance(f, (n.And, n.Or)):
        return (b.conj if isinstance(f, n.And) else b.disj)(*(miniscope(a) for a in f.args))
    if isinstance(f, n.Not):
        return b.neg(miniscope(f.arg))
    if isinstance(f, (n.Forall, n.Exists)):
        return _push(f, miniscope(f.body))
    return f


def _push(q: n.Forall | n.Exists, body: n.Formula) -> n.Formula:
    universal = isinstance(q, n.Forall)
    make = b.forall if universal else b.exists

    def requant(g: n.Formula) -> n.Formula:
        return _push(q, g) if q.var in free_vars(g) else _closed(q, g)

    spread, keep = (n.And, n.Or) if universal else (n.Or, n.And)
    if isinstance(body, spread):  # distributes exactly
        return (b.conj if universal else b.disj)(*(requant(a) for a in body.args))
    if q.var not in free_vars(body):
        return _closed(q, body)
    if isinstance(body, keep):
        inside = [a for a in body.args if q.var in free_vars(a)]
        outside = [a for a in body.args if q.var not in free_vars(a)]
        if outside:
            joined = (b.disj if universal else b.conj)(*inside)
            pushed = _push(q, joined)
            return (b.disj if universal else b.conj)(*outside, pushed)
    return make(q.var, q.type, q.domain, body)


def _closed(q: n.Forall | n.Exists, body: n.Formula) -> n.Formula:
    """A quantifier over a body that does not read its variable."""
    empty = empty_domain(q.domain)
    if empty is None:
        return (b.forall if isinstance(q, n.Forall) else b.exists)(q.var, q.type, q.domain, body)
    return b.disj(empty, body) if isinstance(q, n.Forall) else b.conj(b.neg(empty), body)


# ------------------------------------------------------------------ binding at the trigger


class _NotAtTrigger(Exception):
    """The body reads the variable somewhere it cannot be read at the triggering call."""


def _binder(guard: n.Term, var: str) -> tuple[str, n.Term, n.Term] | None:
    """("eq" or "in", the call's term that binds `var`, the guard's other conjuncts)."""
    conjuncts = guard.args if isinstance(guard, n.Op) and guard.op == "and" else (guard,)
    x = n.Var(var)
    for k, c in enumerate(conjuncts):
        if not (isinstance(c, n.Op) and len(c.args) == 2):
            continue
        left, right = c.args
        found = None
        if c.op == "eq" and right == x and is_call_local(left):
            found = ("eq", left)
        elif c.op == "eq" and left == x and is_call_local(right):
            found = ("eq", right)
        elif c.op == "in" and left == x and is_call_local(right):
            found = ("in", right)
        if found is not None:
            return found[0], found[1], b.op("and", *(d for j, d in enumerate(conjuncts) if j != k))
    return None


def _at_position(f: n.Formula, tool: str, var: str) -> n.Formula:
    """`f` read at a position where `tool` is called: every piece that reads `var` becomes an
    event of `tool` whose guard still reads it (a condition, the call itself, a history atom)."""
    if var not in free_vars(f):
        return f
    if isinstance(f, n.Not):
        return b.neg(_at_position(f.arg, tool, var))
    if isinstance(f, (n.And, n.Or)):
        return (b.conj if isinstance(f, n.And) else b.disj)(*(_at_position(a, tool, var) for a in f.args))
    if isinstance(f, n.Cond):
        return b.event(tool, f.term)
    if isinstance(f, n.Event):
        return b.event(tool, f.guard) if f.tool == tool else n.FALSE
    if b.is_once(f):
        disjuncts = f.right.args if isinstance(f.right, n.Or) else (f.right,)
        return b.disj(*(_once_at_position(d, tool, var) for d in disjuncts))
    raise _NotAtTrigger


def _once_at_position(f: n.Formula, tool: str, var: str) -> n.Formula:
    """`once f` at a position of `tool`, f one disjunct: an event (maybe with conditions)."""
    if var not in free_vars(f):
        return b.once(f)
    if isinstance(f, n.Cond):
        return b.event(tool, f.term)  # a condition holds at every position, this one included
    event, conditions = f, []
    if isinstance(f, n.And):
        events = [a for a in f.args if isinstance(a, n.Event)]
        conditions = [a.term for a in f.args if isinstance(a, n.Cond)]
        if len(events) != 1 or len(events) + len(conditions) != len(f.args):
            raise _NotAtTrigger
        event = events[0]
    if not isinstance(event, n.Event):
        raise _NotAtTrigger
    guard = b.op("and", event.guard, *conditions)
    now = b.event(tool, guard) if event.tool == tool else n.FALSE
    return b.disj(now, b.event(tool, b.earlier(event.tool, var, guard, n.Var(var))))


def _leaves(f: n.Formula) -> list[n.Formula]:
    """The pieces of a boolean combination (below `and`, `or`, `not`)."""
    if isinstance(f, (n.And, n.Or)):
        return [leaf for a in f.args for leaf in _leaves(a)]
    if isinstance(f, n.Not):
        return _leaves(f.arg)
    return [f]


def _as_term(f: n.Formula, truth: dict[n.Formula, bool], tool: str) -> n.Term:
    """A boolean combination of events of `tool` (and pieces given by `truth`) as one guard."""
    if f in truth:
        return b.lit(truth[f])
    if isinstance(f, n.Const):
        return b.lit(f.value)
    if isinstance(f, n.Not):
        return b.op("not", _as_term(f.arg, truth, tool))
    if isinstance(f, (n.And, n.Or)):
        return b.op("and" if isinstance(f, n.And) else "or", *(_as_term(a, truth, tool) for a in f.args))
    assert isinstance(f, n.Event) and f.tool == tool
    return f.guard


def bind_at_trigger(q: n.Formula) -> n.Formula | None:
    """The plain formula of `forall x in D: G (T(x) -> ψ(x))` read at the trigger (see the
    module's docstring); None when the quantifier does not have that shape."""
    if not isinstance(q, n.Forall) or not b.is_always(q.body):
        return None
    var = q.var
    phi = q.body.right
    disjuncts = phi.args if isinstance(phi, n.Or) else (phi,)
    triggers = [(k, d.arg) for k, d in enumerate(disjuncts) if isinstance(d, n.Not) and isinstance(d.arg, n.Event)
                and var in free_vars(d.arg.guard)]
    if len(triggers) != 1:
        return None
    k, trigger = triggers[0]
    found = _binder(trigger.guard, var)
    parts = domain_parts(q.domain)
    if found is None or parts is None:
        return None
    kind, bound, rest = found
    path = _term_path(bound)
    if path is None or (trigger.tool, path, kind == "in") not in parts[0]:
        return None  # the domain may hold values the trigger binds only later, or not at all
    tool = trigger.tool
    try:
        psi = _at_position(b.disj(*(d for j, d in enumerate(disjuncts) if j != k)), tool, var)
    except _NotAtTrigger:
        return None
    if kind == "eq":
        guard = b.op("and", b.op("ne", bound, b.lit(None)), substitute(rest, var, bound))
        return b.always(b.implies(b.event(tool, guard), _substitute_formula(psi, var, bound)))
    # `x in t`: every element of t, when t is a list
    free = list(dict.fromkeys(leaf for leaf in _leaves(psi) if var not in free_vars(leaf)
                              and not (isinstance(leaf, n.Event) and leaf.tool == tool)))
    if len(free) > MAX_SPLIT:
        return None
    x = n.Var(var)
    cases = []
    for values in itertools.product((False, True), repeat=len(free)):
        truth = dict(zip(free, values))
        body = b.op("or", b.op("not", b.op("and", b.op("in", x, bound), rest)), _as_term(psi, truth, tool))
        each = b.event(tool, b.quant("forall", var, bound, body))
        cases.append(b.conj(*(f if v else b.neg(f) for f, v in truth.items()), each))
    readable = b.op("not", b.op("unreadable", bound))
    return b.always(b.implies(b.event(tool, readable), b.disj(*cases)))


def _substitute_formula(f: n.Formula, var: str, value: n.Term) -> n.Formula:
    """`f` with `var` replaced by `value` in the guards of its events (the only place
    `_at_position` leaves it)."""
    if var not in free_vars(f):
        return f
    if isinstance(f, n.Event):
        return b.event(f.tool, substitute(f.guard, var, value))
    if isinstance(f, n.Not):
        return b.neg(_substitute_formula(f.arg, var, value))
    if isinstance(f, (n.And, n.Or)):
        return (b.conj if isinstance(f, n.And) else b.disj)(*(_substitute_formula(a, var, value) for a in f.args))
    raise TypeError(f"`{var}` left outside an event")  # pragma: no cover - `_at_position` leaves none


def reads_only_at_trigger(f: n.Formula) -> bool:
    """Whether a formula (after `bind_at_trigger`) is free of quantifiers over trace values."""
    return not any(isinstance(s, (n.Forall, n.Exists)) for s in subformulas(f))
