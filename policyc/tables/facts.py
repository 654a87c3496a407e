"""Rule classes read off compiled tables (appendix A.5.1 of the AgentLTL paper).

- enforceable: some prefix is bad (no continuation satisfies the rule): the gate can act;
- liveness: no prefix is bad; the rule is decided when the run ends (scored offline);
- safety: every violating trace has a bad prefix (each violation is seen as it happens);
- gateable: some violation is decided by a proposed call's name and arguments alone,
  before its result exists (the gate can refuse the call); fully gateable: every one is.

`kind` is what reports print: "gateable", "detectable" (enforceable, but only once a
call's result is known) or "offline-only" (liveness, or not compiled).

>>> from policyc.tables.dfa import Alphabet, DfaTable, ToolLetters
>>> from policyc.tables.rule import RuleTable
>>> ab = Alphabet((), {"a": ToolLetters((), {0: 0}, 0)}, other=1)
>>> never_a = DfaTable(ab, 0, ((1, 0), (1, 1)), (True, False), ("open", "violated"), (None, None), (0, None), (0, None))
>>> c = classify_table(RuleTable(0, (never_a,)))
>>> c.kind, c.is_safety, c.min_bad_prefix
('gateable', True, 1)
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Callable, Mapping

from policyc.ir import nodes as n
from policyc.ir.data import DataEnv, eval_term
from policyc.ir.ops import truthy
from policyc.ir.walk import subformulas
from policyc.tables.dfa import SATISFIED, VIOLATED, DfaTable
from policyc.tables.rule import RuleTable, combine
from policyc.tables.slicing import SliceTable

GATEABLE, DETECTABLE, OFFLINE_ONLY = "gateable", "detectable", "offline-only"


@dataclass(frozen=True)
class RuleClass:
    is_enforceable: bool
    is_gateable: bool
    is_fully_gateable: bool
    is_liveness: bool
    is_safety: bool
    compiled: bool
    reason: str
    min_bad_prefix: int | None = None  # length of the shortest bad prefix
    exact: bool = True  # False when sliced parts or undecided guards make it an estimate

    @property
    def kind(self) -> str:
        if not self.compiled or not self.is_enforceable:
            return OFFLINE_ONLY
        return GATEABLE if self.is_gateable else DETECTABLE


def not_compiled(reason: str) -> RuleClass:
    """The class of a rule the automata do not compile."""
    return RuleClass(False, False, False, False, False, False,
                     f"not compiled ({reason}): the rule is scored offline only")


@dataclass(frozen=True)
class DfaFacts:
    enforceable: bool
    satisfiable_forever: bool  # a permanently satisfied state is reachable
    gateable: bool
    fully_gateable: bool
    safety: bool
    min_bad: int | None


def dfa_facts(dfa: DfaTable) -> DfaFacts:
    """What one DFA says about its rule."""
    verdict = dfa.verdict
    ab = dfa.alphabet
    groups: list[list[int]] = [[ab.other]]
    for tl in ab.tools.values():
        by_known: dict[int, list[int]] = {}
        for mask, letter in tl.letters.items():
            by_known.setdefault(mask & ~tl.result_bits, []).append(letter)
        groups.extend(by_known.values())
    some, every = False, True
    for q, row in enumerate(dfa.delta):
        if verdict[q] == VIOLATED:
            continue
        for group in groups:
            bad = [verdict[row[letter]] == VIOLATED for letter in group]
            if all(bad):
                some = True
            elif any(bad):
                every = False
    starts = [dfa.initial, *(q for _, q in dfa.initials)]  # the free variant's, and one per truth of the constants
    dist = {q: 0 for q in starts}
    queue = deque(dist)
    min_bad = None
    while queue:
        q = queue.popleft()
        if verdict[q] == VIOLATED:
            min_bad = dist[q]
            break
        for t in dfa.delta[q]:
            if t not in dist:
                dist[t] = dist[q] + 1
                queue.append(t)
    enforceable = VIOLATED in verdict
    return DfaFacts(enforceable, SATISFIED in verdict, some, enforceable and every,
                    all(a or v == VIOLATED for a, v in zip(dfa.accepting, verdict)), min_bad)


def slice_facts(s: SliceTable) -> DfaFacts:
    """What a sliced part's instance automata say about it."""
    facts = [dfa_facts(d) for d in s.bodies.values()]
    if s.kind == "forall":
        # a value whose instance is lost from the start (its static conditions fail) breaks the
        # rule when a call's arguments bring it into the domain: the gate refuses that call
        lost_at_once = any(d.verdict[d.initial] == VIOLATED for d in s.bodies.values()) and \
            any(path and path[0] != "result" for _, path, _ in s.domain)
        return DfaFacts(any(f.enforceable for f in facts), all(f.satisfiable_forever for f in facts),
                        any(f.gateable for f in facts) or lost_at_once,
                        all(f.fully_gateable or not f.enforceable for f in facts)
                        and any(f.enforceable for f in facts),
                        all(f.safety for f in facts), min((f.min_bad for f in facts if f.min_bad is not None),
                                                          default=None))
    unsat = all(d.verdict[d.initial] == VIOLATED for d in s.bodies.values())
    return DfaFacts(unsat, any(f.satisfiable_forever for f in facts), False, False, unsat, 0 if unsat else None)


def classify_table(table: RuleTable) -> RuleClass:
    """The class of a compiled rule, with a one-line reason."""
    parts = [dfa_facts(p) if isinstance(p, DfaTable) else slice_facts(p) for p in table.parts]
    dfa = table.dfa
    exact = dfa is not None and dfa.alphabet.exact

    def pick(attr: str, op_and: Callable[[list[bool]], bool], op_or: Callable[[list[bool]], bool]) -> bool:
        values: list[bool] = [getattr(f, attr) for f in parts]
        return combine(table.skeleton, values, op_and, op_or, lambda v: False)

    enforceable = pick("enforceable", any, all)
    gateable = enforceable and pick("gateable", any, all)
    fully = enforceable and pick("fully_gateable", all, all)
    safety = pick("safety", all, all)
    mins = [f.min_bad for f in parts if f.min_bad is not None]
    min_bad = min(mins) if enforceable and mins else None
    if not enforceable:
        reason = ("no prefix is a bad prefix: any run so far can still be completed to satisfy the rule "
                  "(liveness), so it is decided when the run ends")
    elif gateable:
        reason = ("a violation can be decided from a proposed call's name and arguments, before it runs"
                  + ("" if fully else "; others only once a call's result is known"))
    else:
        reason = "a violation becomes certain on a finite prefix, but only once a call's result is known"
    if not exact:
        reason += " (estimated: " + ("quantified parts are judged per value" if dfa is None
                                     else "some guard combinations were not decided") + ")"
    return RuleClass(enforceable, gateable, fully, not enforceable, safety, True, reason, min_bad, exact)

def reads_result_of(formula: n.Formula, tool: str) -> bool:
    """Whether the formula reads the result (or the failure) of calls to `tool`.

    >>> from policyc.ir import build as b
    >>> reads_result_of(b.eventually(b.event("a", b.op("eq", b.result(), b.lit(1)))), "a")
    True
    """
    for node in subformulas(formula):
        if isinstance(node, n.Event) and node.tool == tool \
                and any(isinstance(t, n.Result) or t == n.Attr("error") for t in subformulas(node.guard)):
            return True
        if isinstance(node, n.Values) and node.tool == tool and node.path[:1] == ("result",):
            return True
        if isinstance(node, n.Outputs) and (not node.tools or tool in node.tools):
            return True
        if isinstance(node, n.Done) and tool not in node.terminal:  # whether the call failed
            return True
    return False


#: How far a formula reads the results of one tool's calls, evaluated at position p of a trace
#: whose last position is L: up to position p + rel, and up to L + end (None: not at all).
Reach = tuple[int | None, int | None]


def _most(*values: int | None) -> int | None:
    found = [v for v in values if v is not None]
    return max(found) if found else None


def _term_reach(term: n.Term, tool: str) -> int | None:
    """`end` of a term's trace-wide reads of the tool's results (`outputs`, `done`, a result
    path's values): every call's, up to the last (0)."""
    for t in subformulas(term):
        if isinstance(t, n.Values) and t.tool == tool and t.path[:1] == ("result",) \
                or isinstance(t, n.Outputs) and (not t.tools or tool in t.tools) \
                or isinstance(t, n.Done) and tool not in t.terminal:
            return 0
    return None


def result_reach(formula: n.Formula, tool: str) -> Reach:
    """How far ahead of the position it is evaluated at a formula reads the results (or the
    failure) of `tool`'s calls: `(rel, end)`, see `Reach`. A pattern reads its own call's
    result (rel 0), `from` and `flows` the results before it (rel -1); `next` looks one call
    ahead, `yesterday` one behind; `until` and `release` as far as the last call, `since`
    and `trigger` as far as the position itself. `t -> b` with t a call to another tool reads
    nothing at a call to `tool`: the gate's `always (refund -> once lookup(result...))` does
    not read the result of a lookup proposed last.

    >>> from policyc.ir import build as b
    >>> page = b.event("fetch", b.op("eq", b.result(), b.lit("x")))
    >>> result_reach(b.always(b.implies(b.event("fetch"), b.once(page))), "fetch")
    (None, 0)
    >>> result_reach(b.always(b.implies(b.event("fetch"), b.yesterday(b.once(page)))), "fetch")
    (None, -1)
    >>> result_reach(b.always(b.implies(b.event("refund"), b.once(page))), "fetch")
    (None, -1)
    """
    key = f"facts.result_reach:{tool}"
    cached: Reach | None = formula._cache.get(key)
    if cached is not None:
        return cached
    f = formula
    out: Reach
    if isinstance(f, n.Event):
        guard = list(subformulas(f.guard))
        own = 0 if f.tool == tool and any(isinstance(t, n.Result) or t == n.Attr("error") for t in guard) else None
        earlier = -1 if any(isinstance(t, (n.From, n.Flows)) for t in guard) else None
        out = (_most(own, earlier), _term_reach(f.guard, tool))
    elif isinstance(f, n.Cond):
        out = (None, _term_reach(f.term, tool))
    elif isinstance(f, (n.Next, n.WNext, n.Yesterday, n.WYesterday)):
        rel, end = result_reach(f.arg, tool)
        shift = 1 if isinstance(f, (n.Next, n.WNext)) else -1
        out = (None if rel is None else rel + shift, end)
    elif isinstance(f, (n.Until, n.Release)):  # the arguments at every position up to the last
        (r1, e1), (r2, e2) = result_reach(f.left, tool), result_reach(f.right, tool)
        out = (None, _most(r1, e1, r2, e2))
    elif isinstance(f, (n.Since, n.Trigger)):  # the arguments at every position up to this one
        (r1, e1), (r2, e2) = result_reach(f.left, tool), result_reach(f.right, tool)
        out = (_most(r1, r2), _most(e1, e2))
    elif isinstance(f, (n.Forall, n.Exists)):
        rel, end = result_reach(f.body, tool)
        out = (rel, _most(end, _term_reach(f.domain, tool)))
    elif isinstance(f, (n.Not, n.And, n.Or)):
        parts = [result_reach(a, tool) for a in f.children if isinstance(a, n.Formula)]
        rel, end = _most(*(r for r, _ in parts)), _most(*(e for _, e in parts))
        if isinstance(f, n.Or) and any(isinstance(a, n.Not) and _elsewhere(a.arg, tool) for a in f.args) \
                or isinstance(f, n.And) and any(_elsewhere(a, tool) for a in f.args):
            # `t -> b`, `t and b` with t a call to another tool: settled without reading anything at
            # a call to `tool`, so never at the last call; before it, at most `rel` calls later
            out = (None, _most(end, None if rel is None else rel - 1))
        else:
            out = (rel, end)
    else:  # a constant
        out = (None, None)
    formula._cache[key] = out
    return out


def _elsewhere(f: n.Formula, tool: str) -> bool:
    """Whether `f` holds only at calls to other tools than `tool` (one call per position)."""
    if isinstance(f, n.Event):
        return f.tool != tool
    if isinstance(f, n.And):
        return any(_elsewhere(a, tool) for a in f.args)
    if isinstance(f, n.Or):
        return all(_elsewhere(a, tool) for a in f.args)
    return False


def reads_proposed_result(formula: n.Formula, tool: str, position: int) -> bool:
    """Whether the formula's value on a run whose last call, at `position`, is a call to `tool`
    may depend on that call's result (or failure): what a gate cannot know when the call is
    only proposed. `always (fetch(url: u) -> yesterday once fetch(u in urls(result)))` reads
    only the results of the calls before; with `once` alone it reads this call's too.

    >>> from policyc.ir import build as b
    >>> page = b.event("fetch", b.op("eq", b.result(), b.lit("x")))
    >>> reads_proposed_result(b.always(b.implies(b.event("fetch"), b.yesterday(b.once(page)))), "fetch", 3)
    False
    >>> reads_proposed_result(b.always(b.implies(b.event("fetch"), b.once(page))), "fetch", 3)
    True
    """
    rel, end = result_reach(formula, tool)
    return rel is not None and rel >= position or end is not None and end >= 0


def decided_by_final_call(formula: n.Formula, terminal: frozenset[str]) -> bool:
    """Whether the formula's value on a complete trace is known before the last call's
    result is: it reads no result of a terminal call (in a pattern, through `outputs`, or
    through the values of a result path) and no metrics. The gate decides a rule the
    automata do not compile only then, when a terminal call is proposed.

    >>> from policyc.ir import build as b
    >>> decided_by_final_call(b.eventually(b.event("read_file")), frozenset({"final_answer"}))
    True
    >>> decided_by_final_call(b.eventually(b.event("final_answer", n.Result())), frozenset({"final_answer"}))
    False
    """
    for node in subformulas(formula):
        if isinstance(node, n.Event) and node.tool in terminal \
                and any(isinstance(t, n.Result) or t == n.Attr("error") for t in subformulas(node.guard)):
            return False
        if isinstance(node, n.Metric):
            return False
        if isinstance(node, n.Outputs) and (not node.tools or set(node.tools) & terminal):
            return False
        if isinstance(node, n.Values) and node.tool in terminal and node.path[:1] == ("result",):
            return False
    return True


# ------------------------------------------------------------ calls that cannot hurt a formula

#: A formula's truth at one position of a trace (None: it depends on more than that position).
Truth = bool | None
#: The patterns of a formula that may hold at one call (those of its tool not surely false).
Live = frozenset[n.Event]


def _not(v: Truth) -> Truth:
    return None if v is None else not v


def _all(vs: list[Truth]) -> Truth:
    return False if False in vs else True if all(v is True for v in vs) else None


def _any(vs: list[Truth]) -> Truth:
    return True if True in vs else False if all(v is False for v in vs) else None


def at_inserted_call(f: n.Formula, live: Live = frozenset(), memo: dict[n.Formula, Truth] | None = None) -> Truth:
    """The formula's value at an inserted call at which no pattern holds but those in `live`
    (which may), whatever the rest of the trace; None when that depends on more than the call.
    `memo`: answers of the sub-formulas, for the same `live` (a formula shares them).

    >>> from policyc.ir import build as b
    >>> at_inserted_call(b.implies(b.event("deploy"), b.eventually(b.event("notify"))))
    True
    >>> at_inserted_call(b.eventually(b.event("notify"))) is None
    True
    """
    if memo is None:
        memo = {}
    if f in memo:
        return memo[f]
    out: Truth
    if isinstance(f, n.Const):
        out = f.value
    elif isinstance(f, n.Event):
        out = None if f in live else False
    elif isinstance(f, n.Not):
        out = _not(at_inserted_call(f.arg, live, memo))
    elif isinstance(f, (n.And, n.Or)):
        vs = [at_inserted_call(a, live, memo) for a in f.args]
        out = _all(vs) if isinstance(f, n.And) else _any(vs)
    elif isinstance(f, (n.Until, n.Since)):  # the right side here, or the left here and the right later
        left, right = at_inserted_call(f.left, live, memo), at_inserted_call(f.right, live, memo)
        out = True if right is True else False if right is False and left is False else None
    elif isinstance(f, (n.Release, n.Trigger)):  # the right side here, and the left here or the right later
        left, right = at_inserted_call(f.left, live, memo), at_inserted_call(f.right, live, memo)
        out = False if right is False else True if right is True and left is True else None
    elif isinstance(f, n.Forall):  # a domain may be empty: only a body true at every value settles it
        out = True if at_inserted_call(f.body, live, memo) is True else None
    elif isinstance(f, n.Exists):
        out = False if at_inserted_call(f.body, live, memo) is False else None
    else:
        out = None  # a condition on data, next, yesterday: not read off the call alone
    memo[f] = out
    return out


def _reads_every_call(t: n.Node) -> bool:
    """Terms a call to any tool may change: the sources seen so far (`from`, `flows`), every
    tool's outputs (`outputs()` with no tools), the calls that did not fail (`done`)."""
    return isinstance(t, (n.From, n.Flows, n.Done)) or isinstance(t, n.Outputs) and not t.tools


#: (after the first call, as the first call): whether inserting a call keeps a true formula true.
Kept = tuple[bool, bool]


def _kept(f: n.Formula, live: Live, memo: dict[n.Formula, tuple[bool, bool, bool, bool]],
          here: dict[n.Formula, Truth]) -> tuple[bool, bool, bool, bool]:
    """(up, down, first_up, first_down): an inserted call at which only the `live` patterns
    may hold keeps the formula's truth at every position the trace had, when it was true (up)
    or false (down); and, inserted before the position the formula is read at, keeps its truth
    there (first). `memo`, `here`: its answers and `at_inserted_call`'s, per sub-formula."""
    out = memo.get(f)
    if out is not None:
        return out
    if isinstance(f, (n.Const, n.Cond)):  # the same at every position
        out = (True, True, True, True)
    elif isinstance(f, n.Event):  # unchanged where it was; read at the inserted call: false, or unknown
        out = (True, True, False, f not in live)
    elif isinstance(f, n.Not):
        up, down, fup, fdown = _kept(f.arg, live, memo, here)
        out = (down, up, fdown, fup)
    elif isinstance(f, (n.And, n.Or)):
        parts = [_kept(a, live, memo, here) for a in f.args]
        out = (all(p[0] for p in parts), all(p[1] for p in parts), all(p[2] for p in parts), all(p[3] for p in parts))
    elif isinstance(f, (n.Until, n.Since, n.Release, n.Trigger)):
        (lu, ld, _, _), (ru, rd, _, _) = _kept(f.left, live, memo, here), _kept(f.right, live, memo, here)
        left, right = at_inserted_call(f.left, live, here), at_inserted_call(f.right, live, here)
        if isinstance(f, (n.Until, n.Since)):
            # true: the witness stays, and an inserted call inside its span continues the left
            # side or is a witness itself; false: the inserted call is no new witness
            up = lu and ru and (left is True or right is True)
            down = ld and rd and right is False
        else:  # the duals: a R b = not (not a U not b)
            up = lu and ru and right is True
            down = ld and rd and (left is False or right is False)
        if isinstance(f, (n.Until, n.Release)):  # read at the inserted call: it is a step of the span
            out = (up, down, up, down)
        else:  # read at the start, since and trigger see only that position: their right side
            out = (up, down, right is True, right is False)
    elif isinstance(f, (n.Forall, n.Exists)):  # a domain the call adds to: `_grows_safely`
        out = _kept(f.body, live, memo, here)
    else:  # next and yesterday count positions: a call anywhere may shift what they read
        out = (False, False, False, False)
    memo[f] = out
    return out


def kept_after_call(formula: n.Formula, live: Live = frozenset()) -> Kept:
    """Whether a call inserted into a trace that satisfies the formula leaves it satisfied,
    when the call is one at which only the `live` patterns may hold and whose result, sources
    and values the formula does not read otherwise (`CallReads`): (inserted after the first
    call, inserted as the first call). When it does, a gate proposing that call cannot make
    the rule harder to satisfy: any continuation that satisfied it before still does. Not so
    under `next` and `yesterday`, for `always` of a pattern, for a pattern the call may make
    true where the rule wants it false, or for a rule reading every call's outputs or sources.

    >>> from policyc.ir import build as b
    >>> told = b.always(b.implies(b.event("deploy"), b.eventually(b.event("notify"))))
    >>> kept_after_call(told), kept_after_call(told, frozenset({b.event("notify")}))
    ((True, True), (True, True))
    >>> kept_after_call(told, frozenset({b.event("deploy")}))
    (False, False)
    >>> kept_after_call(b.always(b.implies(b.event("a"), b.next_(b.event("b")))))
    (False, False)
    >>> kept_after_call(b.always(b.event("a")))
    (False, False)
    >>> kept_after_call(b.always(b.implies(b.event("b"), b.once(b.event("a")))))
    (True, True)
    """
    if any(_reads_every_call(t) for t in subformulas(formula)):
        return (False, False)
    up, _, first_up, _ = _kept(formula, live, {}, {})
    return (up, up and first_up)


class CallReads:
    """What a formula reads of the calls to each tool it mentions: the patterns of that tool,
    and whether it reads more of those calls (their values, outputs or history: then a call
    to the tool is never taken as harmless). A tool that adds values to a quantifier's domain
    is harmless only where every one of its patterns is false (`_grows_safely`)."""

    def __init__(self, formula: n.Formula):
        self.formula = formula
        patterns: dict[str, list[n.Event]] = {}
        self.opaque: set[str] = set()   # tools whose calls it reads beyond patterns
        self.growing: set[str] = set()  # tools whose calls may add a value to a domain
        self._visit(formula, False, patterns)
        self.patterns = {tool: tuple(found) for tool, found in patterns.items()}
        self._kept: dict[tuple[str, Live], Kept] = {}

    def _visit(self, node: n.Node, in_domain: bool, patterns: dict[str, list[n.Event]]) -> None:
        stack = [(node, in_domain)]
        seen: set[tuple[n.Node, bool]] = set()  # a node shared by many parents is read once
        while stack:
            cur, domain = stack.pop()
            if (cur, domain) in seen:
                continue
            seen.add((cur, domain))
            if isinstance(cur, n.Event):
                patterns.setdefault(cur.tool, []).append(cur)
            for tool in _value_readers(cur):
                (self.growing if domain else self.opaque).add(tool)
            if isinstance(cur, (n.Forall, n.Exists)):
                stack.append((cur.domain, _grows_safely(cur)))
                stack.append((cur.body, False))
            else:
                stack.extend((c, domain) for c in cur.children)

    def live(self, tool: str, args: Mapping[str, object]) -> Live | None:
        """The patterns that may hold at a call to `tool` with these arguments; None when the
        formula reads the call beyond them."""
        if tool in self.opaque:
            return None
        found = frozenset(e for e in self.patterns.get(tool, ()) if not surely_false(e.guard, args))
        return None if found and tool in self.growing else found

    def harmless(self, tool: str, args: Mapping[str, object], first: bool) -> bool:
        """Whether proposing this call (as the run's first, or later) cannot make the formula
        harder to satisfy (`kept_after_call`)."""
        live = self.live(tool, args)
        if live is None:
            return False
        key = (tool, live)
        kept = self._kept.get(key)
        if kept is None:
            if len(self._kept) > 4096:  # a bound on memory, not on what is decided
                self._kept.clear()
            kept = self._kept[key] = kept_after_call(self.formula, live)
        return kept[1] if first else kept[0]


def _grows_safely(q: n.Forall | n.Exists) -> bool:
    """Whether a value a call adds to the quantifier's domain, at which every pattern is
    false, leaves its truth as it was: the domain is a union of call values (and literals),
    every pattern that binds the variable by `arg == var` draws on one of them (so a value only
    that call named matches no pattern anywhere), and with those patterns false the body is
    surely true (`forall`) or surely false (`exists`) for it."""
    parts = _union_parts(q.domain)
    if parts is None:
        return False
    drawn = {(t.tool, t.path) for t in parts if isinstance(t, n.Values) and not t.flatten}
    binding: set[n.Event] = set()
    for sub in subformulas(q.body):
        if isinstance(sub, n.Event):
            named = _bound_arguments(sub.guard, q.var)
            if named:
                if not all((sub.tool, (arg,)) in drawn for arg in named):
                    return False
                binding.add(sub)
    return _unnamed_value(q.body, q.var, frozenset(binding)) is isinstance(q, n.Forall)


def _union_parts(domain: n.Term) -> list[n.Term] | None:
    if isinstance(domain, (n.Values, n.Lit)):
        return [domain]
    if isinstance(domain, n.Op) and domain.op == "add":
        parts = [_union_parts(a) for a in domain.args]
        return None if any(p is None for p in parts) else [t for p in parts for t in p or ()]
    return None


def _bound_arguments(guard: n.Term, var: str) -> list[str]:
    """The arguments a guard's conjuncts equate with the variable (`service == s`)."""
    out, stack = [], [guard]
    while stack:
        t = stack.pop()
        if isinstance(t, n.Op) and t.op == "and":
            stack.extend(t.args)
        elif isinstance(t, n.Op) and t.op == "eq" and len(t.args) == 2:
            a, b = t.args
            if isinstance(b, n.Arg) and a == n.Var(var):
                a, b = b, a
            if isinstance(a, n.Arg) and b == n.Var(var):
                out.append(a.name)
    return out


def _unnamed_value(f: n.Formula, var: str, binding: frozenset[n.Event],
                   memo: dict[n.Formula, Truth] | None = None) -> Truth:
    """The formula's value, on a non-empty trace, for a value of `var` that no pattern in
    `binding` matches anywhere (those patterns false): None when it depends on the trace."""
    if memo is None:
        memo = {}
    if f in memo:
        return memo[f]
    out: Truth = None
    if isinstance(f, n.Const):
        out = f.value
    elif isinstance(f, n.Event):
        out = False if f in binding else None
    elif isinstance(f, n.Not):
        out = _not(_unnamed_value(f.arg, var, binding, memo))
    elif isinstance(f, (n.And, n.Or)):
        vs = [_unnamed_value(a, var, binding, memo) for a in f.args]
        out = _all(vs) if isinstance(f, n.And) else _any(vs)
    elif isinstance(f, (n.Until, n.Since)):  # the right side true everywhere: true here
        out = True if _unnamed_value(f.right, var, binding, memo) is True else None
    elif isinstance(f, (n.Release, n.Trigger)):  # the right side the same everywhere: so here
        out = _unnamed_value(f.right, var, binding, memo)
    elif isinstance(f, (n.WNext, n.WYesterday)):
        out = True if _unnamed_value(f.arg, var, binding, memo) is True else None
    elif isinstance(f, (n.Next, n.Yesterday)):
        out = False if _unnamed_value(f.arg, var, binding, memo) is False else None
    elif isinstance(f, n.Forall) and f.var != var:
        out = True if _unnamed_value(f.body, var, binding, memo) is True else None
    elif isinstance(f, n.Exists) and f.var != var:
        out = False if _unnamed_value(f.body, var, binding, memo) is False else None
    memo[f] = out
    return out


def _value_readers(t: n.Node) -> tuple[str, ...]:
    if isinstance(t, (n.Values, n.Earlier)):
        return (t.tool,)
    if isinstance(t, n.Outputs):
        return t.tools
    if isinstance(t, n.Done):
        return t.terminal
    return ()


def surely_false(guard: n.Term, args: Mapping[str, object]) -> bool:
    """Whether a pattern's guard is false at a call with these arguments whatever its result
    and the values of its variables: a conjunct that reads only the arguments is not true.

    >>> from policyc.ir import build as b
    >>> g = b.op("and", b.op("eq", b.arg("service"), b.var("s")), b.op("eq", b.arg("env"), b.lit("prod")))
    >>> surely_false(g, {"service": "api", "env": "staging"}), surely_false(g, {"service": "api", "env": "prod"})
    (True, False)
    """
    env = DataEnv(args=args)
    return any(not truthy(eval_term(t, env)) for t in _argument_conjuncts(guard))


def _argument_conjuncts(guard: n.Term) -> tuple[n.Term, ...]:
    """The conjuncts of a guard that read only the call's arguments (memoised on the guard)."""
    found: tuple[n.Term, ...] | None = guard._cache.get("facts.argument_conjuncts")
    if found is not None:
        return found
    out, stack = [], [guard]
    while stack:
        t = stack.pop()
        if isinstance(t, n.Op) and t.op == "and":
            stack.extend(t.args)
        elif _reads_arguments_only(t):
            out.append(t)
    found = guard._cache["facts.argument_conjuncts"] = tuple(out)
    return found


_EXTRACTING = frozenset({"entities", "actions"})  # ops that read the extractor the evaluation was given


def _reads_arguments_only(t: n.Term) -> bool:
    return all(isinstance(s, (n.Arg, n.Lit)) or isinstance(s, n.Op) and s.op not in _EXTRACTING for s in subformulas(t))
