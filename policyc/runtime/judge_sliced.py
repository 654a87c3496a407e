"""Gating rules with quantified parts (parametric slicing): one automaton instance per value.

`forall o in issue_refund.order_id + check_eligibility.order_id: always (issue_refund(order_id: o)
-> once check_eligibility(order_id: o, result.eligible == true))` is monitored by
`policyc.automata`'s slice runs: an instance per order id. A proposed call is judged per
instance: an instance the call names (or any in a group the call moves) whose every
possible next state is violated makes a `forall` part certainly violated, whatever the
call's result. The parts combine through the rule's boolean skeleton in three-valued
logic, taking every outcome a part might have; a rule is refused only when every
combination is violated. These rules take no part in the conflict search: a decision on a
call that may set one in conflict with other open rules lists it as undecided (`Gate`).

A part over a tuple of variables (`forall s: forall v: φ(s, v)`, `SliceTable.arity` above 1)
is judged the same way, instance by instance (`_tuple_outcomes`): the tuples the call names,
the instances of tuples named before, and the fresh instance when some member of the
domains' product has no instance of its own.
"""

from __future__ import annotations

from itertools import product
from typing import Any, Callable, Collection, Mapping, cast

from policyc.tables.atoms import reads_result
from policyc.tables.counting import remember
from policyc.tables.rule import RuleRun, RuleTable, and3, combine, not3, or3
from policyc.ir.ops import value_key
from policyc.tables.slicing import FRESH, SliceRun, SliceTable
from policyc.tables.dfa import OPEN, SATISFIED, VIOLATED, DfaTable
from policyc.ir.ops import UNDEF

ALL = frozenset((OPEN, SATISFIED, VIOLATED))
EITHER = frozenset((True, False))

Externs = Mapping[str, Callable[..., object]]
#: What a rule may be once a proposed call ran: its possible verdicts, its possible acceptance.
Outcomes = tuple[frozenset[str], frozenset[bool]]


def _successors(dfa: DfaTable, state: int, letters: tuple[int, ...]) -> list[int]:
    return [dfa.delta[state][l] for l in letters] if letters else list(set(dfa.delta[state]))


def _dfa_outcomes(dfa: DfaTable, state: int, tool: str, args: Mapping[str, object], externs: Externs,
                  context: Any = None) -> Outcomes:
    after = _successors(dfa, state, dfa.alphabet.proposal_letters(tool, args, externs=externs, context=context))
    return frozenset(dfa.verdict[q] for q in after), frozenset(dfa.accepting[q] for q in after)


def _reads_result_for(table: SliceTable, tool: str) -> bool:
    """Whether the call's result may name values of the quantified variable."""
    return any(path and path[0] == "result" for t, path, _ in table.domain if t == tool) or \
        any(reads_result(term) for term in table.touch.get(tool, ()))


def _fresh_accepting(run: SliceRun, tool: str, args: Mapping[str, object], externs: Externs,
                     letters: tuple[int, ...] | None = None) -> bool:
    """Whether every value the call's result may bring into the domain (one the run has not
    met, whatever its static conditions, or one it met outside the domain) has an accepting
    instance after the call, whatever the result. The call's arguments do not hold such a
    value (those are named, and judged as such), so the letters are those of a value apart."""
    t = run.table
    if letters is None:  # `letters`: the call's letters for a value apart, when read already
        letters = t.alphabet.proposal_letters(tool, args, FRESH, externs, run.context)
    states = [(mask, state) for mask, state in run.fresh.items()] + list(run.groups)
    for mask, state in states:
        dfa = t.bodies.get(mask)
        if dfa is not None and not all(dfa.accepting[q] for q in _successors(dfa, state, letters)):
            return False
    return True


def _slice_outcomes(run: SliceRun, tool: str, args: Mapping[str, object], externs: Externs, unknown: bool,
                    memo: dict[tuple[object, ...], Outcomes] | None = None) -> Outcomes:
    """What a sliced part may be after the proposed call: (verdicts, accepting values);
    `unknown`: whether the call's result may name values of the variable. A call that names
    no value (its terms on the variable read its result, not known yet) is judged by the
    run's groups and fresh instances and the call's letters for a value apart alone: kept in
    `memo` so."""
    t = run.table
    if run.blind:  # reads the run's constants, which this run was not given: anything may come
        return ALL, EITHER
    if run.parts:
        return _tuple_outcomes(run, tool, args, externs)
    instances: list[tuple[DfaTable, list[int]]] = []  # in-domain instances after the call
    plan = t.call_plan(tool)
    one = args.get(plan[0], UNDEF) if plan is not None else UNDEF
    named_letters: tuple[int, ...] | None = None
    value_letters: dict[object, tuple[int, ...]] = {}
    if plan is not None and (type(one) is str or type(one) is int):  # the per-id shape: one value, fixed letters
        mentioned: dict[object, object] = {value_key(one): one}
        new_domain: Collection[object] = tuple(mentioned) if plan[3] else ()
        fresh_letters: tuple[int, ...] = (plan[1],)
        named_letters = (plan[2],)
    else:
        mentioned = {}
        dom = t.domain_values(tool, args, UNDEF)
        for value in t.touched_values(tool, args, UNDEF, externs, run.context) + dom:
            mentioned.setdefault(value_key(value), value)
        new_domain = {value_key(v) for v in dom}
        # the fresh instances' letters and each named value's, the atoms not on the value read once
        fresh_letters, *each = t.alphabet.proposal_letters_of(tool, args, [FRESH, *mentioned.values()], externs,
                                                             run.context)
        value_letters = dict(zip(mentioned, each))
        if not mentioned and memo is not None:
            memo_key: tuple[object, ...] = (run.signature(), tuple(run.fresh.items()) if unknown else None,
                                            fresh_letters, unknown)
            found = memo.get(memo_key)
            if found is None:
                found = _outcomes_of(t.kind, [(t.bodies[mask], _successors(t.bodies[mask], state, fresh_letters))
                                              for (mask, state), group in run.groups.items() if group.in_domain > 0],
                                     unknown, lambda: _fresh_accepting(run, tool, args, externs, fresh_letters))
                remember(memo, memo_key, found)
            return found
    named: dict[int, int] = {}  # per group (by id): its members in the domain that the call names
    for key in mentioned:
        group = run.where.get(key)
        if group is not None and key in run.domain:
            named[id(group)] = named.get(id(group), 0) + 1
    for (mask, state), group in run.groups.items():
        in_domain = group.in_domain - named.get(id(group), 0)
        if in_domain > 0:
            instances.append((t.bodies[mask], _successors(t.bodies[mask], state, fresh_letters)))
    for key, value in mentioned.items():
        if key in run.where:
            mask, state = run.where[key].mask, run.where[key].state
        else:
            mask = t.static_mask(value, run.context)
            if mask not in t.bodies:
                continue
            state = run.fresh[mask]
        if key in run.domain or key in new_domain:
            dfa = t.bodies[mask]
            letters = named_letters if named_letters is not None else value_letters[key]
            instances.append((dfa, _successors(dfa, state, letters)))
    return _outcomes_of(t.kind, instances, unknown, lambda: _fresh_accepting(run, tool, args, externs))


def _outcomes_of(kind: str, instances: list[tuple[DfaTable, list[int]]], unknown: bool,
                 fresh_accepting: Callable[[], bool]) -> Outcomes:
    """The outcomes of a sliced part from its in-domain instances' states after the call
    (`fresh_accepting`: `_fresh_accepting`, asked only when it matters)."""
    if kind == "forall":
        if any(all(dfa.verdict[q] == VIOLATED for q in after) for dfa, after in instances):
            return frozenset((VIOLATED,)), frozenset((False,))
        if any(all(not dfa.accepting[q] for q in after) for dfa, after in instances):
            return ALL, frozenset((False,))
        if all(all(dfa.accepting[q] for q in after) for dfa, after in instances) and \
                (not unknown or fresh_accepting()):
            return ALL, frozenset((True,))  # every instance satisfied if the run ended here
        return ALL, EITHER
    if any(all(dfa.verdict[q] == SATISFIED for q in after) for dfa, after in instances):
        return frozenset((SATISFIED,)), frozenset((True,))
    if any(all(dfa.accepting[q] for q in after) for dfa, after in instances):
        return ALL, frozenset((True,))
    if not unknown and all(all(not dfa.accepting[q] for q in after) for dfa, after in instances):
        return ALL, frozenset((False,))
    return ALL, EITHER


def _tuple_outcomes(run: SliceRun, tool: str, args: Mapping[str, object], externs: Externs) -> Outcomes:
    """`_slice_outcomes` of a part over a tuple: per instance (and the fresh one), its
    possible states after the call, and whether it is in the domain after the call certainly
    (by the call's arguments) or only possibly (a domain the call's result adds to).

    An instance the call does not name moves as the fresh instance does, unless an event of
    the tool compares a component with the result: then every instance reads its own letters
    (its value known, the result's atoms free) and the fresh instance may move anywhere (a
    tuple the result names is cloned from it)."""
    t = run.table
    dfa = t.bodies[0]
    fresh_letters = t.alphabet.proposal_letters(tool, args, FRESH, externs, run.context)
    by_result = any(reads_result(term) for term in t.touch.get(tool, ()))
    result_domain = any(path and path[0] == "result" for dtool, path, _ in t.domain if dtool == tool)
    named = {value_key(v): v for v in t.touched_tuples(tool, args, UNDEF, externs, run.context)}
    added: list[set[object]] = [set() for _ in run.parts]
    for i, value in t.component_values(tool, args, UNDEF):
        if value_key(value) not in run.parts[i]:
            added[i].add(value_key(value))

    def in_domain_after(key: object) -> bool:
        return all(k in run.parts[j] or k in added[j] for j, k in enumerate(cast(tuple[object, ...], key)[1:]))

    certain: list[list[int]] = []  # per instance certainly in the domain after the call: its next states
    possible: list[list[int]] = []  # per instance that may be in the domain after the call
    counted = 0  # instances in the domain after the call
    instances = [*((k, run.values[k]) for k in run.where), *((k, v) for k, v in named.items() if k not in run.where)]
    own = [(k, v) for k, v in instances if k in named or by_result]  # read with their own letters
    # each one's letters, the atoms that do not read the tuple read once
    letters_of = dict(zip((k for k, _ in own), t.alphabet.proposal_letters_of(
        tool, args, [v for _, v in own], externs, run.context)))
    for key, _ in instances:
        letters = letters_of.get(key, fresh_letters)
        group = run.where.get(key)
        after = _successors(dfa, run.fresh[0] if group is None else group.state, letters)
        if in_domain_after(key):
            certain.append(after)
            counted += 1
        elif result_domain:
            possible.append(after)
    size = 1
    for j, part in enumerate(run.parts):
        size *= len(part) + len(added[j])
    fresh_after = _successors(dfa, run.fresh[0], () if by_result else fresh_letters)
    if size > counted:
        certain.append(fresh_after)
    elif result_domain:
        possible.append(fresh_after)
    possible += certain
    if t.kind == "forall":
        if any(all(dfa.verdict[q] == VIOLATED for q in after) for after in certain):
            return frozenset((VIOLATED,)), frozenset((False,))
        if any(all(not dfa.accepting[q] for q in after) for after in certain):
            return ALL, frozenset((False,))
        if all(all(dfa.accepting[q] for q in after) for after in possible):
            return ALL, frozenset((True,))
        return ALL, EITHER
    if any(all(dfa.verdict[q] == SATISFIED for q in after) for after in certain):
        return frozenset((SATISFIED,)), frozenset((True,))
    if any(all(dfa.accepting[q] for q in after) for after in certain):
        return ALL, frozenset((True,))
    if all(all(not dfa.accepting[q] for q in after) for after in possible):
        return ALL, frozenset((False,))
    return ALL, EITHER


class SlicedJudge:
    """A compiled rule that is not a single automaton (it has quantified parts)."""

    def __init__(self, table: RuleTable, externs: Externs | None = None):
        self.table = table
        self.externs = dict(externs or {})
        self.moved_by = moved_by(table)
        self._unknown: dict[tuple[int, str], bool] = {}  # per (sliced part, tool): `_reads_result_for`
        self._per_id: dict[tuple[object, ...], Outcomes] = {}  # `_named_outcomes`
        self._idle: dict[tuple[object, ...], Outcomes] = {}  # `outcomes` of a call that moves no part
        # per part, `_slice_outcomes` of a call naming no value
        self._unnamed: list[dict[tuple[object, ...], Outcomes]] = [{} for _ in table.parts]
        # what each tool a sliced part reads asks of a proposal, known when the monitor is made
        # rather than at the tool's first proposal (another tool's is found then: it is None)
        for k, part in enumerate(table.parts):
            if isinstance(part, SliceTable):
                for tool in {*part.alphabet.tools, *part.touch, *(t for t, _, _ in part.domain)}:
                    try:
                        part.call_plan(tool)
                        self._unknown[(k, tool)] = _reads_result_for(part, tool)
                    except RecursionError:  # a term too deep to read here: as before, at a proposal
                        continue

    def start(self, context: Any = None) -> RuleRun:
        """A run of the rule reading the gate's context (its constants and history stores)."""
        return self.table.start(context)

    def advance(self, run: RuleRun, tool: str, args: Mapping[str, object], result: Any) -> None:
        if self.moved_by is None or tool in self.moved_by:
            run.step(tool, args, result, self.externs)

    def outcomes(self, run: RuleRun, tool: str, args: Mapping[str, object]) -> Outcomes:
        """Every (verdict, accepting) the rule may have once the proposed call ran."""
        if self.moved_by is not None and tool not in self.moved_by:
            return self._idle_outcomes(run, tool, args)
        return self._outcomes(run, tool, args)

    def _idle_outcomes(self, run: RuleRun, tool: str, args: Mapping[str, object]) -> Outcomes:
        """`_outcomes` of a call that moves no part (a terminal call, judged on what it leaves
        owed): every part reads the `other` letter, which loops, and names no value, so the
        outcomes depend only on where the parts stand (a plain part's state, a sliced part's
        `signature` and whether it is followed; a part over a tuple, also its fresh state and
        whether some member of its domains' product sits there), not on the tool or its
        arguments. Memoised so."""
        memo = tuple(state if isinstance(state, int) else
                     (state.blind, state.signature(), tuple(state.fresh.items()), state.unnamed() > 0) if state.parts
                     else (state.blind, state.signature()) for state in run.states)
        found = self._idle.get(memo)
        if found is None:
            found = self._outcomes(run, tool, args)
            remember(self._idle, memo, found)
        return found

    def _outcomes(self, run: RuleRun, tool: str, args: Mapping[str, object]) -> Outcomes:
        parts = self.table.parts
        if self.table.skeleton == 0 and isinstance(parts[0], SliceTable):  # one sliced part: the rule
            unknown = self._unknown.get((0, tool))
            if unknown is None:
                unknown = self._unknown[(0, tool)] = _reads_result_for(parts[0], tool)
            return self._named_outcomes(0, run.states[0], tool, args, unknown)
        verdicts, accepts = [], []
        for k, (part, state) in enumerate(zip(self.table.parts, run.states)):
            if isinstance(part, DfaTable):
                v, a = _dfa_outcomes(part, state, tool, args, self.externs, run.context)
            else:
                unknown = self._unknown.get((k, tool))
                if unknown is None:
                    unknown = self._unknown[(k, tool)] = _reads_result_for(part, tool)
                v, a = self._named_outcomes(k, state, tool, args, unknown)
            verdicts.append(v)
            accepts.append(a)
        sk = self.table.skeleton
        if sk == 0:  # one part: its outcomes are the rule's
            return verdicts[0], accepts[0]
        v_out = frozenset(combine(sk, list(c), and3, or3, not3) for c in product(*verdicts))
        a_out = frozenset(combine(sk, list(c), all, any, lambda x: not x) for c in product(*accepts))
        return v_out, a_out

    def _named_outcomes(self, k: int, run: SliceRun, tool: str, args: Mapping[str, object],
                        unknown: bool) -> Outcomes:
        """`_slice_outcomes` of sliced part k, memoised for calls of the per-id shape
        (`SliceTable.call_plan`): their outcomes depend only on the run's `signature`, where the
        named value's instance is (static mask and state, or fresh) and whether it is in the
        domain; the run's values themselves do not matter."""
        t = run.table
        plan = t.call_plan(tool)
        one = args.get(plan[0], UNDEF) if plan is not None else UNDEF
        if plan is None or run.blind or not (type(one) is str or type(one) is int):
            return _slice_outcomes(run, tool, args, self.externs, unknown, self._unnamed[k])
        key = value_key(one)
        group = run.where.get(key)
        if group is None:  # a value the run has not met: a fresh instance, if its conditions have one
            mask = t.static_mask(one, run.context)
            memo: tuple[object, ...] = (k, tool, run.signature(), mask, run.fresh.get(mask), False)
        else:
            memo = (k, tool, run.signature(), group.mask, group.state, key in run.domain)
        found = self._per_id.get(memo)
        if found is None:
            found = self._per_id[memo] = _slice_outcomes(run, tool, args, self.externs, unknown)
        return found


def moved_by(table: RuleTable) -> frozenset[str] | None:
    """The tools a call to which can change the rule's state; None when any call can (a part
    whose automaton moves on calls to tools it does not name). Other calls leave every
    instance where it is: they can neither break the rule nor need stepping."""
    out: set[str] = set()
    for part in table.parts:
        if isinstance(part, DfaTable):
            dfas, alphabet = [part], part.alphabet
        else:
            dfas, alphabet = list(part.bodies.values()), part.alphabet
            out.update(part.touch)
            out.update(tool for tool, _, _ in part.domain)
        if any(row[alphabet.other] != q for d in dfas for q, row in enumerate(d.delta)):
            return None
        out.update(alphabet.tools)
    return frozenset(out)
