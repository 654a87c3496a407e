"""A continuation of the counting search, made concrete and checked on what the search does not read.

The joint search over per-value rules (`policyc.tables.counting`) reads a run's values by
profile. Two things it does not read, and that left most decisions on policies written by
others with an open question:

- rules over pairs of values (`always (deploy(service: s, version: v) -> once
  request_approval(service: s, version: v, ...))`), judged per pair apart from the search;
- guard atoms that test a place whose value a per-value rule binds (`matches(version, ...)`
  on `deploy`, whose `version` `built_before_deploy` binds): the search picks the value by
  profile and cannot tell whether the atom holds for it, so its continuation is no proof.

Here a continuation the search found (the call proposed, then the search's calls) is given
values: each value the search names by profile is a value of the run with that profile (a new
one a value of its own), each place a pair rule binds a value of the run or a new one, each
call a combination of its tool's guards that some call produces (the compiler's letters) and
that agrees with the search's on every atom the search reads. Every guard atom that reads a
place given a value is evaluated on that value, and must agree with the combination; the pair
rules' instances (every pair the run named, and the fresh one) are stepped by the letters
those give, and none may be violated. Calls the search did not make are put in where its
continuation needs them: a call that pays a pair's debt before the call that would break that
pair's instance (`_paid_before`: a test before a build), a new value made to have the profile
the search picks, where every value of the run with it fails a guard (`_made_before`: a build
of a new version before its deploy), and a call that pays what an instance owes at the end
(`_repaired`); the search's rules are stepped with each, and must still hold at the end. When
the continuation ends with every instance accepting, it is a real continuation (the search's
rules hold on it as the search found, or as stepped with the calls put in; the pair rules hold
on it as stepped here), so the rules of the group can hold together, and the questions about
them are settled.

What is not read here leaves the question open, as before: a pair rule of another shape (more
than one part, `exists`, literals, a domain of list elements), an atom that reads a given place
and another, a place whose type has few values (a new value of it may not exist), a choice
not found among the few tried per call (`MAX_CHOICES`). Each check is a function of the run and
the call, over a bounded number of choices per call of the continuation.

This module imports only the standard library, `policyc.ir` and `policyc.tables`.
"""

from __future__ import annotations

from itertools import product as cartesian
from typing import Any, Iterable, Iterator, Mapping, Sequence

from policyc.ir import nodes as n
from policyc.ir.data import DataEnv, eval_term
from policyc.ir.ops import UNDEF, value_key
from policyc.ir.regex import examples
from policyc.ir.types import BOOL, INT, STR, EnumT, OptionalT, RecordT, ToolSignature, Type
from policyc.ir.walk import subformulas
from policyc.tables.counting import (
    ABSENT, MEMO_LIMIT, NEW, Filling, Profile, Rules, SearchMove, Slot, State, mentions, overlap, remember, slot_of,
    slot_value,
)
from policyc.tables.dfa import VIOLATED, DfaTable
from policyc.tables.product import OTHER
from policyc.tables.rule import RuleTable
from policyc.tables.slicing import SliceRun, SliceTable

#: Choices tried per call of a continuation and way of choosing the calls before it (values
#: of the places, guard combinations).
MAX_CHOICES = 96
#: Ways of choosing a continuation's values kept from one call to the next (the fewest owing).
BEAM = 2
#: Calls of a continuation before which a call paying a pair's debt is tried (the last ones).
REPAIR_PLACES = 3
#: Paying calls tried per continuation, over every place and debt.
MAX_PAYMENTS = 24
#: Values of the run tried for one place a pair rule binds (besides a new value).
MAX_PLACE_VALUES = 12
#: Calls that make a new value of a profile the search picks, where the run's values of it
#: fail a guard (`Concrete._made_before`).
MAKER_CALLS = 2
#: Ways of making such a value tried (shortest first).
MAX_MAKERS = 4
#: Ways of choosing the values of one call's places looked at, those ruled out at once (one
#: value in two places the search keeps apart, a new value given two texts) included.
MAX_EXAMINED = 1024

Witness = tuple[tuple[SearchMove, Filling], ...]
Pair = tuple[object, object]


class _NewValue:
    """A value of a run no call has named: equal to nothing else."""

    __slots__ = ("number",)

    def __init__(self, number: int):
        self.number = number

    def __repr__(self) -> str:
        return f"<new value {self.number}>"


class _Made:
    """A new value of the continuation given a text where a guard first tests it: until then
    no guard read it and it equalled nothing else, so any text no one has named may be it."""

    __slots__ = ("old", "text")

    def __init__(self, old: _NewValue, text: str):
        self.old, self.text = old, text


def _given(value: object, made: Mapping[_NewValue, str]) -> object:
    """A value as the choice has it: a new value given a text is that text."""
    if isinstance(value, _Made):
        return value.text
    return made.get(value, value) if isinstance(value, _NewValue) else value


def _texts_given(values: Sequence[object]) -> dict[_NewValue, str] | None:
    """The texts a choice gives new values (None: one new value given two texts, or two new
    values, which the continuation kept apart, given one)."""
    out: dict[_NewValue, str] = {}
    for v in values:
        if isinstance(v, _Made) and out.setdefault(v.old, v.text) != v.text:
            return None
    return out if len(set(out.values())) == len(out) else None


def _identity(value: object) -> object:
    """What tells values apart: their key, or the new value itself."""
    return ("new", id(value)) if isinstance(value, _NewValue) else value


class _Trail:
    """One way of choosing a continuation's values so far: the run's values by the set's
    profile, the pair rules' instances, and the values the continuation has placed."""

    __slots__ = ("current", "instances", "introduced", "placed")

    def __init__(self, current: dict[object, Profile], instances: tuple["Instances", ...],
                 introduced: tuple[object, ...]):
        self.current, self.instances, self.introduced = current, instances, introduced
        self.placed = {_identity(v) for v in introduced}

    def named(self) -> set[object]:
        """The values this way of choosing has named: the run's, the pairs', its own."""
        return {*self.current, *self.introduced, *(c for i in self.instances for pair in i.states for c in pair)}

    def substituted(self, made: Mapping[_NewValue, str]) -> "_Trail":
        """The same way of choosing, each new value given its text."""
        return _Trail({_given(v, made): p for v, p in self.current.items()},
                      tuple(Instances(i.reading, {(_given(a, made), _given(b, made)): q
                                                  for (a, b), q in i.states.items()}, i.fresh)
                            for i in self.instances),
                      tuple(_given(v, made) for v in self.introduced))

    def mark(self) -> object:
        """What makes two ways alike for what follows."""
        return (tuple((tuple(sorted(i.states.items(), key=repr)), i.fresh) for i in self.instances),
                tuple(sorted(((repr(_identity(v)), p) for v, p in self.current.items()))))


def _fits(value: object, t: Type | None) -> bool:
    """Whether a value (a key) is one of a place's declared type."""
    if isinstance(value, _NewValue):
        return t in (STR, INT)
    if isinstance(t, EnumT):
        return value in t.members
    if t == STR:
        return isinstance(value, str)
    if t == INT:
        return isinstance(value, tuple) and len(value) == 2 and value[0] == "num" and type(value[1]) is int
    if t == BOOL:
        return value in (("bool", True), ("bool", False))
    return False


def _distinct(values: Iterable[object], t: Type | None) -> list[object]:
    """The first `MAX_PLACE_VALUES` values of a place's type, each once."""
    out: list[object] = []
    marks: set[object] = set()
    for v in values:
        mark = _identity(v)
        if mark not in marks and _fits(v, t):
            marks.add(mark)
            out.append(v)
    return out[:MAX_PLACE_VALUES]


def _holds_fillers(state: State, filling: Filling) -> bool:
    """Whether the state has a value of each profile the filling picks (as many as it picks)."""
    counts = dict(state[2])
    for filler, _ in filling:
        if isinstance(filler, tuple):
            left = counts.get(filler, 0)
            if left <= 0:
                return False
            counts[filler] = left - 1
    return True


def _component(term: n.Node, var: str) -> int | None:
    """k when the term is `var[k]` (a pair rule's variable is a tuple)."""
    if isinstance(term, n.Index) and term.base == n.Var(var) and isinstance(term.index, n.Lit) and \
            term.index.value in (0, 1) and type(term.index.value) is int:
        return term.index.value
    return None


class PairReading:
    """A rule over pairs as this module reads it: one `forall` part of arity 2 with no
    literals, whose every binding atom is `place == var[k]` or `place != var[k]`, every
    other atom one of its tool's pooled guards, and whose calls name one place per component.

    `tools`: per tool, ((local bit, pool position), ...), ((local bit, place, component, is
    ==), ...), letters; `places`: per tool, the place of each component."""

    def __init__(self, table: SliceTable, pools: Mapping[str, tuple[n.Term, ...]]):
        self.table = table
        self.dfa: DfaTable = next(iter(table.bodies.values()))
        self.other = table.alphabet.other
        # whether a call to a tool the rule does not name leaves every instance where it is
        self.idle = all(row[self.other] == q for q, row in enumerate(self.dfa.delta))
        self.tools: dict[str, tuple[tuple[tuple[int, int], ...], tuple[tuple[int, Slot, int, bool], ...],
                                    Mapping[int, int]]] = {}
        self.places: dict[str, tuple[Slot, Slot]] = {}
        ab, var = table.alphabet, table.var
        named: dict[str, list[set[Slot]]] = {}
        for tool, tl in ab.tools.items():
            pool = [a.skey for a in pools.get(tool, ())]
            pooled, binding = [], []
            for bit, index in enumerate(tl.atoms):
                atom = ab.atoms[index]
                if not mentions(atom, var):
                    if atom.skey not in pool:
                        raise ValueError("a guard not pooled")
                    pooled.append((bit, pool.index(atom.skey)))
                    continue
                if not (isinstance(atom, n.Op) and atom.op in ("eq", "ne") and len(atom.args) == 2):
                    raise ValueError("a binding atom other than == or !=")
                left, right = atom.args
                k, other = _component(right, var), left
                if k is None:
                    k, other = _component(left, var), right
                slot = slot_of(other) if k is not None and not mentions(other, var) else None
                if slot is None or k is None:
                    raise ValueError("a binding atom of another shape")
                binding.append((bit, slot, k, atom.op == "eq"))
                named.setdefault(tool, [set(), set()])[k].add(slot)
            self.tools[tool] = (tuple(pooled), tuple(binding), tl.letters)
        for _, path, flatten in table.domain:
            if flatten or not path:
                raise ValueError("a domain of list elements")
        for terms in table.touch.values():
            for term in terms:
                if slot_of(term) is None:
                    raise ValueError("a value read other than in a place")
        for tool, (first, second) in named.items():
            if len(first) != 1 or len(second) != 1:
                raise ValueError("a call naming more than one place per component")
            self.places[tool] = (next(iter(first)), next(iter(second)))

    @staticmethod
    def of(rule: RuleTable, pools: Mapping[str, tuple[n.Term, ...]]) -> "PairReading | None":
        if rule.skeleton != 0 or len(rule.parts) != 1:
            return None
        part = rule.parts[0]
        if not isinstance(part, SliceTable) or part.arity != 2 or part.kind != "forall" or part.static_atoms or \
                part.constants or len(part.bodies) != 1 or not part.alphabet.exact:
            return None
        try:
            return PairReading(part, pools)
        except ValueError:
            return None

    def slots(self, tool: str) -> frozenset[Slot]:
        entry = self.tools.get(tool)
        return frozenset() if entry is None else frozenset(s for _, s, _, _ in entry[1])

    def letter(self, tool: str, mask: int, values: Mapping[Slot, object], key: Pair | None) -> int | None:
        """The letter of the instance of pair `key` (None: the fresh instance) on a call whose
        pool mask is `mask` and whose places hold `values` (a place not listed is empty)."""
        entry = self.tools.get(tool)
        if entry is None:
            return self.other
        pooled, binding, letters = entry
        local = 0
        for bit, g in pooled:
            if mask >> g & 1:
                local |= 1 << bit
        for bit, slot, k, is_eq in binding:
            value = values.get(slot, UNDEF)
            if value is UNDEF:
                continue  # ⊥ compared with anything is false
            same = key is not None and value == key[k]
            if same == is_eq:
                local |= 1 << bit
        return letters.get(local)


class Instances:
    """A pair rule's instances in one run, as a continuation steps them: per pair its state,
    and the fresh instance's."""

    __slots__ = ("reading", "states", "fresh")

    def __init__(self, reading: PairReading, states: dict[Pair, int], fresh: int):
        self.reading, self.states, self.fresh = reading, states, fresh

    @staticmethod
    def of_run(reading: PairReading, run: SliceRun) -> "Instances | None":
        if run.blind or 0 not in run.fresh:
            return None
        states: dict[Pair, int] = {}
        for key, group in run.where.items():
            if not (isinstance(key, tuple) and len(key) == 3):
                return None
            states[(key[1], key[2])] = group.state
        return Instances(reading, states, run.fresh[0])

    def step(self, tool: str, mask: int, values: Mapping[Slot, object]) -> "Instances | None":
        """The instances after a call (None: one violated, or a letter the compiler ruled out)."""
        reading = self.reading
        if tool not in reading.tools and reading.idle:
            return self  # every instance reads the letter of other tools, which moves none
        dfa = reading.dfa
        violated = dfa.verdict
        states = dict(self.states)
        places = reading.places.get(tool)
        if places is not None:
            first, second = values.get(places[0], UNDEF), values.get(places[1], UNDEF)
            if first is not UNDEF and second is not UNDEF and first is not None and second is not None:
                states.setdefault((first, second), self.fresh)
        out: dict[Pair, int] = {}
        for key, q in states.items():
            x = reading.letter(tool, mask, values, key)
            if x is None:
                return None
            q = dfa.delta[q][x]
            if violated[q] == VIOLATED:
                return None
            out[key] = q
        x = reading.letter(tool, mask, values, None)
        if x is None:
            return None
        fresh = dfa.delta[self.fresh][x]
        if violated[fresh] == VIOLATED:
            return None
        return Instances(reading, out, fresh)

    def blocking(self, tool: str, mask: int, values: Mapping[Slot, object]) -> tuple[Pair, int, int] | None:
        """When the call's own pair is what `step` finds violated: (the pair, its state before
        the call, the call's letter for it), so that a call paying for it can be put before."""
        reading = self.reading
        places = reading.places.get(tool)
        if places is None:
            return None
        pair = (values.get(places[0], UNDEF), values.get(places[1], UNDEF))
        if any(v is UNDEF or v is None for v in pair):
            return None
        q = self.states.get(pair, self.fresh)
        x = reading.letter(tool, mask, values, pair)
        if x is None or reading.dfa.verdict[reading.dfa.delta[q][x]] != VIOLATED:
            return None
        return pair, q, x

    def distance(self) -> int:
        """Calls the instances need at least, each alone, to accept (a choice's score)."""
        dist = self.reading.dfa.dist_accept
        total = 0
        for q in (*self.states.values(), self.fresh):
            d = dist[q]
            total += 1000 if d is None else d
        return total

    def accepting(self) -> bool:
        accepting = self.reading.dfa.accepting
        return accepting[self.fresh] and all(accepting[q] for q in self.states.values())


def _place_type(sig: ToolSignature | None, slot: Slot) -> Type | None:
    """The declared type of a place (None: not known)."""
    if sig is None:
        return None
    if slot[0] == "arg":
        param = sig.param(str(slot[1]))
        if param is None:
            return None
        t: Type | None = param.type
        path = slot[2:]
    else:
        t, path = sig.result, slot[1:]
    for step in path:
        while isinstance(t, OptionalT):
            t = t.inner
        if isinstance(t, RecordT) and isinstance(step, str):
            t = t.field(step)
        else:
            return None
    while isinstance(t, OptionalT):
        t = t.inner
    return t


#: What an atom evaluated here may hold: the call's places, literals and operators alone.
_CALL_ONLY = (n.Op, n.Lit, n.Arg, n.Result, n.Field, n.Index)


def _of_the_call(atom: n.Node) -> bool:
    """Whether an atom reads the call alone (no request, history, bound variable, extern)."""
    return all(isinstance(node, _CALL_ONLY) for node in subformulas(atom))


def _plain(key: object) -> object:
    """The JSON value of a value's key, for a value an atom is evaluated on (UNDEF: not one)."""
    if key is None or isinstance(key, str):
        return key
    if isinstance(key, tuple) and len(key) == 2 and key[0] in ("num", "bool"):
        return key[1]
    return UNDEF


def _put(args: dict[str, Any], result: dict[str, Any], slot: Slot, value: object) -> bool:
    """Place a value in a call being built (False: a place this module does not build)."""
    if slot[0] == "arg" and len(slot) == 2:
        args[str(slot[1])] = value
        return True
    if slot[0] == "result" and len(slot) == 2 and isinstance(slot[1], str):
        result[slot[1]] = value
        return True
    return False


class Concrete:
    """Checks continuations of one gate's counting search on its pair rules and tested places."""

    def __init__(self, space: Any, sliced: Sequence[RuleTable], tools: Mapping[str, ToolSignature]):
        self.space = space  # the gate's `CountingSpace`
        self.product = space.product
        self.tools = tools
        self.pairs: dict[int, PairReading] = {}
        for k, rule in enumerate(sliced):
            reading = PairReading.of(rule, self.product.atoms)
            if reading is not None:
                self.pairs[k] = reading
        self._by_tool: dict[str, list[tuple[int, n.Term, frozenset[Slot]]]] = {}
        self._truths: dict[tuple[str, int, object], bool | None] = {}  # `_truth`, per tool, atom and value
        self._readings: dict[tuple[str, frozenset[Slot]], list[tuple[int, n.Term, Slot | None]]] = {}
        self._places: dict[tuple[str, tuple[Slot, ...], tuple[int, ...]], list[Slot]] = {}
        self._makers_memo: dict[tuple[object, ...], list[tuple[tuple[SearchMove, Slot], ...]]] = {}

    def holds(self, rules: Rules, here: State, run_values: Mapping[object, Profile],
              instances: Sequence[Instances], witness: Witness, tool: str, args: Mapping[str, Any],
              masks: Sequence[int]) -> bool:
        """Whether the continuation (the proposed call `tool(args)`, then the search's calls) has
        values with which every pair rule's instances end accepting, none violated, and every
        guard atom reading a place given a value agrees with the call's combination.
        `here`: the run's state as the set's; `run_values`: the run's values by the set's
        profile; `masks`: the combinations the proposed call may produce. The choices are
        searched call by call, keeping the `BEAM` with the fewest calls owed. When none ends
        with every instance accepting, a call that pays what one instance owes is tried in the
        continuation (`_repaired`)."""
        beam = [_Trail(dict(run_values), tuple(instances), ())]
        state = here
        beams: list[Sequence[_Trail]] = []  # before each call of the continuation
        states: list[State] = []
        ahead = self._ahead(instances, witness)
        paid = [0]  # paying calls tried before a call of the continuation
        step, retried = 0, False
        while step < len(witness):
            move, filling = witness[step]
            if (tool if step == 0 else move[0]) == OTHER:
                return False  # a call to an undeclared tool: not built here
            if step and paid[0] and not _holds_fillers(state, filling):
                return False  # a call paid for earlier moved a value the search picks here
            stepped = self._step_beam(rules, state, beam, move, filling, tool if step == 0 else move[0],
                                      args if step == 0 else None, masks if step == 0 else None, ahead=ahead[step])
            if not stepped and step:
                found = self._paid_before(rules, state, beam, move, filling, ahead[step], paid) or \
                    self._made_before(rules, state, beam, move, filling, ahead[step], paid)
                if found is None and step > 1 and not retried:
                    # the values the call before took (a run's version its tests passed for)
                    # leave this one none: that call again, with new values paid for
                    retried, step = True, step - 1
                    move, filling = witness[step]
                    found = self._paid_before(rules, states[step], beams[step], move, filling, ahead[step], paid)
                    if found is None:
                        return False
                    del beams[step:], states[step:]
                if found is not None:
                    state, beam, stepped = found
            beams.append(beam)
            states.append(state)
            beam = stepped
            after = rules.step(state, move, filling, relaxed=False)
            if not beam or after is None:
                return False
            state = after
            step += 1
        if paid[0] and not rules.accepts(state, relaxed=False):
            return False
        if any(all(i.accepting() for i in trail.instances) for trail in beam):
            return True
        beams.append(beam)
        states.append(state)
        return self._repaired(rules, witness, beams, states, beam, ahead)

    @staticmethod
    def _ahead(instances: Sequence[Instances], witness: Witness) -> list[dict[Slot, object]]:
        """Per call of the continuation, the values its places a pair rule binds had best
        hold: per place, the filler of the same component's place in the next call of the
        continuation that the rule reads and the search fills (a value of the run by its
        profile, or a new one)."""
        out: list[dict[Slot, object]] = [{} for _ in witness]
        for inst in instances:
            places = inst.reading.places
            for i, (move, _) in enumerate(witness):
                mine = places.get(move[0])
                if mine is None:
                    continue
                for k, slot in enumerate(mine):
                    for later, filling in witness[i + 1:]:
                        theirs = places.get(later[0])
                        if theirs is None:
                            continue
                        filler = next((f for f, held in filling if theirs[k] in held), None)
                        if filler is not None and filler != ABSENT:
                            out[i].setdefault(slot, filler)
                            break
        return out

    def _step_beam(self, rules: Rules, state: State, beam: Sequence["_Trail"], move: SearchMove, filling: Filling,
                   tool: str, args: Mapping[str, Any] | None, masks: Sequence[int] | None,
                   pinned: Mapping[str, object] | None = None, ahead: Mapping[Slot, object] = {}) -> list["_Trail"]:
        """The `BEAM` fewest-owing trails after one call, unlike one another. `ahead`: the
        fillers later calls give places of this one (`_ahead`)."""
        found: list[tuple[int, int, _Trail]] = []
        for trail in beam:
            found += self._choices(rules, state, trail, move, filling, tool, args, masks, len(found), pinned, ahead)
        found.sort(key=lambda x: (x[0], x[1]))
        out, seen = [], set()
        for _, _, trail in found:
            mark = trail.mark()
            if mark not in seen:
                seen.add(mark)
                out.append(trail)
                if len(out) == BEAM:
                    break
        return out

    def _repaired(self, rules: Rules, witness: Witness, beams: Sequence[Sequence["_Trail"]],
                  states: Sequence[State], last: Sequence["_Trail"], ahead: Sequence[Mapping[Slot, object]]) -> bool:
        """Whether a call that pays what a pair's instance still owes at the end (its
        automaton's first call toward accepting, with the pair's values in its places),
        made at the end or before one of the continuation's last `REPAIR_PLACES` calls (never
        before the proposed call, nor after a final one; `MAX_PAYMENTS` tried in all), leaves a
        continuation that holds: the
        search's rules stepped with it too, and satisfied at the end as every instance is.
        `beams`, `states`: the trails and the set's state before each call, and at the end."""
        owed = []
        for trail in last:
            for r, inst in enumerate(trail.instances):
                for pair, q in sorted(inst.states.items(), key=repr):
                    if not inst.reading.dfa.accepting[q] and (r, pair) not in owed:
                        owed.append((r, pair))
        ends = bool(witness) and witness[-1][0][2]  # the continuation ends with a final call
        tried = 0
        for at in range(len(witness) - ends, max(0, len(witness) - REPAIR_PLACES - 1), -1):
            for trail in beams[at]:
                for r, pair in owed[:BEAM]:
                    inst = trail.instances[r]
                    owing = inst.states.get(pair)
                    if owing is None or inst.reading.dfa.to_accept[owing] is None:
                        continue
                    for move, filling, args, masks in self._payments(rules, trail, inst.reading, pair, owing):
                        tried += 1
                        if tried > MAX_PAYMENTS:
                            return False
                        # the search's rules first, which cost little: with the paying call
                        # the rest must still be a continuation that satisfies them
                        state: State | None = rules.step(states[at], move, filling, relaxed=False)
                        before = []
                        for step_move, step_filling in witness[at:]:
                            if state is None or not _holds_fillers(state, step_filling):
                                state = None  # the paying call moved a value the search picks next
                                break
                            before.append(state)
                            state = rules.step(state, step_move, step_filling, relaxed=False)
                        if state is None or not rules.accepts(state, relaxed=False):
                            continue
                        beam = self._step_beam(rules, states[at], [trail], move, filling, move[0], None, masks, args)
                        for step, (step_move, step_filling) in enumerate(witness[at:], at):
                            if not beam:
                                break
                            beam = self._step_beam(rules, before[step - at], beam, step_move, step_filling,
                                                   step_move[0], None, None, ahead=ahead[step])
                        if any(all(i.accepting() for i in t.instances) for t in beam):
                            return True
        return False

    def _made_before(self, rules: Rules, state: State, beam: Sequence["_Trail"], move: SearchMove,
                     filling: Filling, ahead: Mapping[Slot, object],
                     paid: list[int]) -> tuple[State, list["_Trail"], list["_Trail"]] | None:
        """When no value of the run with the profile the search picks for a place of this call
        lets it through (`deploy` of a built version, where every version the run built fails
        the deploy's `matches(version, ...)`), a new value made to have that profile, by calls
        put just before (`build_image` of a new version, its tests paid for as `_paid_before`
        does): (the set's state and the trails before the call, and the trails after it). A new
        value may be given any text a guard wants. `paid`: as `_paid_before`'s."""
        key = move[0]
        for filler, _ in filling:
            if not isinstance(filler, tuple):
                continue
            for path in self._makers(rules, state[1], filler):
                for trail in beam:
                    value = _NewValue(3000 + paid[0])
                    here, trails = state, [trail]
                    for make, slot in path:
                        paid[0] += 1
                        if paid[0] > MAX_PAYMENTS:
                            return None
                        args: dict[str, Any] = {str(slot[1]): value}
                        made = self._filling_for(rules, trails[0], make[0], args)
                        after = None if made is None else rules.step(here, make, made, relaxed=False)
                        if made is None or after is None:
                            break
                        stepped = self._step_beam(rules, here, trails, make, made, make[0], None, None, args)
                        if not stepped:
                            found = self._paid_before(rules, here, trails, make, made, {}, paid, args)
                            if found is None:
                                break
                            here, _, stepped = found
                            after = rules.step(here, make, made, relaxed=False)
                            if after is None:
                                break
                        here, trails = after, stepped
                    else:
                        trails = [t for t in trails if t.current.get(value) == filler]
                        if trails and _holds_fillers(here, filling):
                            through = self._step_beam(rules, here, trails, move, filling, key, None, None, None, ahead)
                            if through:
                                return here, trails, through
        return None

    def _makers(self, rules: Rules, fresh: tuple[int, ...], target: Profile) -> list[tuple[tuple[SearchMove, Slot], ...]]:
        """Up to `MAKER_CALLS` calls, each naming one value in one argument place, that take a
        value no call named to the profile `target` (as the set's fresh instances stand now),
        the shortest first. Memoised per set, fresh instances and profile."""
        memo = (rules.plain, rules.sliced, fresh, target)
        found = self._makers_memo.get(memo)
        if found is not None:
            return found
        moves = [m for m in rules.moves()[0] if not m[2] and m[0] != OTHER]
        out: list[tuple[tuple[SearchMove, Slot], ...]] = []
        layer: list[tuple[Profile, tuple[tuple[SearchMove, Slot], ...]]] = [(rules.unnamed, ())]
        seen = {rules.unnamed}
        for _ in range(MAKER_CALLS):
            following = []
            for profile, path in layer:
                for m in moves:
                    for slot in m[4]:
                        if slot[0] != "arg" or len(slot) != 2:
                            continue
                        after = rules._move(profile, fresh, m[0], m[1], frozenset((slot,)), frozenset())
                        if after == target:  # every call that ends there: the set's other rules choose
                            out.append((*path, (m, slot)))
                        elif after is not None and after not in seen:
                            seen.add(after)
                            following.append((after, (*path, (m, slot))))
            layer = following
        out = out[:MAX_MAKERS]
        remember(self._makers_memo, memo, out)
        return out

    def _paid_before(self, rules: Rules, state: State, beam: Sequence["_Trail"], move: SearchMove,
                     filling: Filling, ahead: Mapping[Slot, object], paid: list[int],
                     pinned: Mapping[str, object] | None = None) -> tuple[State, list["_Trail"], list["_Trail"]] | None:
        """When no choice of values lets a call of the continuation through because it would
        break its own pair's instance (`build_image(service: s, version: v)` with no
        `run_tests` of that pair before), a call that takes the instance to a state the call
        does not break, put just before it with the pair's values: (the set's state and the
        trails after the paying call, and the trails after the call). The search's rules are
        stepped with the paying call, and the call it pays for must still be the search's:
        its values, pinned to the pair's, are none the search has given another profile.
        `paid`: paying calls tried so far in this continuation (`MAX_PAYMENTS` in all);
        `pinned`: the arguments the call's own maker fixes (`_made_before`)."""
        key = move[0]
        for trail in beam:
            rejected: list[tuple["_Trail", int, Pair, int, int]] = []
            self._choices(rules, state, trail, move, filling, key, None, None, 0, pinned, ahead, rejected)
            # a pair of new values first: a new value may still become any text a later guard
            # wants, where a value of the run is what it is
            rejected.sort(key=lambda c: -sum(isinstance(v, (_NewValue, _Made)) for v in c[2]))
            for base, r, pair, q, x in rejected[:2 * BEAM]:
                inst = base.instances[r]
                places = inst.reading.places.get(key)
                if places is None or any(p[0] != "arg" or len(p) != 2 for p in places):
                    continue
                pinned = {str(place[1]): value for place, value in zip(places, pair)}
                for pay_move, pay_filling, pay_args, pay_masks in self._payments(rules, base, inst.reading, pair, q, x):
                    paid[0] += 1
                    if paid[0] > MAX_PAYMENTS:
                        return None
                    after = rules.step(state, pay_move, pay_filling, relaxed=False)
                    if after is None or not _holds_fillers(after, filling):
                        continue
                    trails = self._step_beam(rules, state, [base], pay_move, pay_filling, pay_move[0], None,
                                             pay_masks, pay_args)
                    # the pair's values as the search fills the call: a value the paying call
                    # gave a profile of the set's is not the new one the search may put there
                    trails = [t for t in trails if all(t.current.get(v, rules.unnamed) == rules.unnamed
                                                       or t.current.get(v) == base.current.get(v) for v in pair)]
                    if not trails:
                        continue
                    through = self._step_beam(rules, after, trails, move, filling, key, None, None, pinned, ahead)
                    if through:
                        return after, trails, through
        return None

    def _payments(self, rules: Rules, trail: "_Trail", reading: PairReading, pair: Pair,
                  q: int, then: int | None = None) -> Iterator[tuple[SearchMove, Filling, dict[str, Any], list[int]]]:
        """Calls that take the pair's instance, in state q, one letter toward accepting: per
        combination of the guards the set reads, (its move, filling, the arguments the pair
        fixes, the combinations of every guard that agree). `then`: a letter the instance must
        read next; the paying call then takes it to a state that letter does not violate."""
        dfa = reading.dfa
        toward: set[int | None]
        if then is None:
            toward = {dfa.to_accept[q]}
        else:
            toward = {y for y, r in enumerate(dfa.delta[q])
                      if dfa.verdict[r] != VIOLATED and dfa.verdict[dfa.delta[r][then]] != VIOLATED and r != q}
        product = self.product
        for tool in sorted(reading.tools):
            pooled, binding, letters = reading.tools[tool]
            sig = self.tools.get(tool)
            if sig is None or sig.terminal or tool not in product.atoms or not product.letters_exact(tool):
                continue  # a final call ends the run: it pays nothing before the continuation's end
            for local in sorted(k for k, letter in letters.items() if letter in toward):
                args: dict[str, Any] = {}
                ok = True
                for bit, slot, k, is_eq in binding:
                    if is_eq and local >> bit & 1:
                        ok &= slot[0] == "arg" and len(slot) == 2 and args.get(str(slot[1]), pair[k]) == pair[k]
                        args[str(slot[1])] = pair[k]
                if not ok:
                    continue
                wanted = [(g, bool(local >> bit & 1)) for bit, g in pooled]
                masks = [m for m in product.letters_of(tool) if all(bool(m >> g & 1) == b for g, b in wanted)]
                relevant = rules.relevant(tool)
                filling = self._filling_for(rules, trail, tool, args)
                if filling is None:
                    continue
                for restricted in sorted({m & relevant for m in masks}):
                    move = rules.move_for(tool, restricted, False)
                    if move is not None:
                        yield move, filling, args, [m for m in masks if m & relevant == restricted]

    @staticmethod
    def _filling_for(rules: Rules, trail: "_Trail", tool: str, args: dict[str, Any]) -> Filling | None:
        """The set's filling of a call whose arguments `args` fix some places: each fixed
        value by its profile (new when the set has not named it), every other place a new
        value of its own (put in `args` for an argument)."""
        blank = rules.unnamed
        by_value: dict[object, set[Slot]] = {}
        out: list[tuple[Any, frozenset[Slot]]] = []
        for slot in rules.slots.get(tool, ()):
            if slot[0] == "arg" and len(slot) == 2 and str(slot[1]) in args:
                by_value.setdefault(_identity(args[str(slot[1])]), set()).add(slot)
            elif slot[0] == "arg" and len(slot) == 2:
                args[str(slot[1])] = _NewValue(2000 + len(args))
                out.append((NEW, frozenset((slot,))))
            elif slot[0] == "result":
                out.append((NEW, frozenset((slot,))))
            else:
                return None
        for mark, held in by_value.items():
            value = next(v for v in args.values() if _identity(v) == mark)
            profile = trail.current.get(value, blank)
            out.append((NEW if profile == blank else profile, frozenset(held)))
        return tuple(sorted(out, key=repr))

    def _choices(self, rules: Rules, state: State, trail: "_Trail", move: SearchMove, filling: Filling, tool: str,
                 args: Mapping[str, Any] | None, masks: Sequence[int] | None,
                 order: int, pinned: Mapping[str, object] | None = None,
                 ahead: Mapping[Slot, object] = {},
                 rejected: list[tuple["_Trail", int, Pair, int, int]] | None = None) -> list[tuple[int, int, "_Trail"]]:
        """The trail's next steps for one call of the continuation: (calls owed, order found,
        trail), the `BEAM` fewest-owing of the first `MAX_CHOICES` choices tried (among at most
        `MAX_EXAMINED` ways of choosing looked at). `args`: the
        proposed call's arguments; `pinned`: the arguments a paying call fixes, as keys;
        `masks`: the combinations of guards the call may have (else the tool's); `rejected`:
        where to list the choices that break their own pair's instance (`Instances.blocking`)."""
        key, mask, _, _, slots, _ = move
        product = self.product
        sig = self.tools.get(tool)
        relevant = rules.relevant(key)

        def pin(slot: Slot) -> object:
            """The value an argument place holds when the call fixes it (UNDEF: left empty), as a
            key; None when it is to be chosen."""
            if slot[0] != "arg":
                return None
            if args is not None:
                value = slot_value(slot, args, UNDEF)
                return UNDEF if value is UNDEF else value_key(value)
            if pinned is not None and len(slot) == 2 and str(slot[1]) in pinned:
                return pinned[str(slot[1])]
            return None

        if masks is not None:
            full = [m for m in masks if m & relevant == mask & relevant]
        elif key in product.atoms:
            if not product.letters_exact(key):
                return []
            full = [m for m in product.letters_of(key) if m & relevant == mask]
        else:
            full = [0]
        if not full:
            return []
        instances = trail.instances
        pair_slots = self._pair_slots(key, slots, instances)
        absent = frozenset(s for filler, held in filling if filler == ABSENT for s in held)
        # per filler of the search: the values it may be
        options: list[list[tuple[object, frozenset[Slot]] | None]] = []
        news = 0
        for filler, held in filling:
            if filler == ABSENT:
                options.append([None])
                continue
            given = [v for v in (pin(s) for s in sorted(held, key=repr)) if v is not None]
            if given:  # the call's own argument (a result may hold it too)
                options.append([(given[0], held)])
                continue
            if filler == NEW:
                made = self._new_values(key, held, sig, trail, news, rules.unnamed)
                news += 1
            else:
                made = [v for v in sorted(trail.current, key=repr) if trail.current[v] == filler][:MAX_PLACE_VALUES]
            if not made:
                return []
            options.append([(v, held) for v in self._concrete(key, held, sig, trail, made)])
        place_options: list[list[object]] = []
        for slot in pair_slots:
            fixed = pin(slot)
            place_options.append([fixed] if fixed is not None else
                                 self._concrete(key, frozenset((slot,)), sig, trail,
                                                self._place_values(key, slot, sig, trail, news, ahead.get(slot))))
        found: list[tuple[int, int, list[tuple[object, frozenset[Slot]]], list[Instances], dict[Slot, object],
                          _Trail]] = []
        given_texts: dict[tuple[tuple[int, str], ...], _Trail] = {}
        tried = examined = 0
        for picked in cartesian(*options):
            for places in cartesian(*place_options):
                examined += 1
                if examined > MAX_EXAMINED:  # most ways of choosing were ruled out before a guard was read
                    return self._kept(rules, state, move, absent, found, order)
                as_text = _texts_given((*(p[0] for p in picked if p is not None), *places))
                if as_text is None:
                    continue  # one new value given two texts, or two given one
                chosen = [(_given(v, as_text), held) for v, held in (p for p in picked if p is not None)]
                if len({_identity(v) for v, _ in chosen}) != len(chosen):
                    continue  # one value in two fillers: the search kept them apart
                base = trail
                if as_text:
                    mark = tuple(sorted(((id(k), t) for k, t in as_text.items())))
                    base = given_texts.get(mark) or given_texts.setdefault(mark, trail.substituted(as_text))
                values: dict[Slot, object] = {}
                for v, held in chosen:
                    for s in held:
                        values[s] = v
                for s in absent:
                    values[s] = UNDEF  # left empty: the guards reading it read ⊥
                for slot, v in zip(pair_slots, places):
                    values[slot] = _given(v, as_text)
                bits = self._value_bits(key, values)
                for m in full:
                    tried += 1
                    if tried > MAX_CHOICES:
                        return self._kept(rules, state, move, absent, found, order)
                    if bits is None or m & bits[0] != bits[1]:
                        continue
                    stepped = []
                    for r, inst in enumerate(base.instances):
                        after = inst.step(key, m, values)
                        if after is None:
                            why = None if rejected is None else inst.blocking(key, m, values)
                            if rejected is not None and why is not None:
                                rejected.append((base, r, *why))
                            break
                        stepped.append(after)
                    else:
                        found.append((sum(i.distance() for i in stepped), len(found), chosen, stepped, values, base))
        return self._kept(rules, state, move, absent, found, order)

    def _kept(self, rules: Rules, state: State, move: SearchMove, absent: frozenset[Slot],
              found: list[tuple[int, int, list[tuple[object, frozenset[Slot]]], list[Instances], dict[Slot, object],
                                _Trail]],
              order: int) -> list[tuple[int, int, _Trail]]:
        """The `BEAM` fewest-owing choices found, as trails (the run's values moved only for them)."""
        out: list[tuple[int, int, _Trail]] = []
        for score, k, chosen, stepped, values, trail in sorted(found, key=lambda x: (x[0], x[1])):
            moved = self._move_values(rules, state, trail.current, move, chosen, absent)
            if moved is None:
                continue
            placed = [v for v in values.values() if v is not UNDEF and _identity(v) not in trail.placed]
            out.append((score, order + k, _Trail(moved, tuple(stepped), trail.introduced + tuple(dict.fromkeys(placed)))))
            if len(out) == BEAM:
                break
        return out

    def _pair_slots(self, key: str, slots: tuple[Slot, ...], instances: Sequence[Instances]) -> list[Slot]:
        """The tool's places the pair rules bind and the search does not fill, in a fixed
        order. Memoised per tool, the search's places and the rules."""
        memo = (key, slots, tuple(id(i.reading) for i in instances))
        found = self._places.get(memo)
        if found is None:
            found = sorted({s for i in instances for s in i.reading.slots(key)} - set(slots), key=repr)
            if len(self._places) >= MEMO_LIMIT:
                self._places.clear()
            self._places[memo] = found
        return found

    def _concrete(self, key: str, held: frozenset[Slot], sig: ToolSignature | None, trail: _Trail,
                  values: list[object]) -> list[object]:
        """The values to try in places a guard of the tool tests: each new value the
        continuation placed before (where no guard tested it) given, in turn, each text the
        testing guards are built from that no one has named; a value of no text kept as it is."""
        if not self._is_tested(key, held) or not any(isinstance(v, _NewValue) for v in values):
            return values
        if any(_place_type(sig, s) != STR for s in held):
            return [v for v in values if not isinstance(v, _NewValue)]
        named = trail.named()
        texts = [t for t in dict.fromkeys(self._texts(key, held)) if t not in named]
        out: list[object] = []
        for v in values:
            if isinstance(v, _NewValue):
                out += [_Made(v, t) for t in texts]
            else:
                out.append(v)
        return out

    def _tested(self, key: str) -> list[tuple[int, n.Term, frozenset[Slot]]]:
        """The tool's pooled atoms with the places each reads. Memoised per tool."""
        found = self._by_tool.get(key)
        if found is None:
            found = self._by_tool[key] = [(g, atom, self.space.atom_slots(key, g))
                                          for g, atom in enumerate(self.product.atoms.get(key, ()))]
        return found

    def _is_tested(self, key: str, held: frozenset[Slot]) -> bool:
        """Whether a pooled atom of the tool reads one of these places."""
        return any(overlap(s, h) for _, _, reads in self._tested(key) for s in reads for h in held)

    def _value_bits(self, key: str, values: Mapping[Slot, object]) -> tuple[int, int] | None:
        """(care, want): the combinations of the tool's guards that agree with the values are
        those whose bits under `care` are `want`: every pooled atom that reads a place given
        a value reads that place alone and is evaluated on the value (None: one is not, and no
        combination agrees)."""
        care = want = 0
        for g, atom, slot in self._reading(key, frozenset(values)):
            if slot is None:
                return None
            truth = self._truth(key, g, atom, slot, values[slot])
            if truth is None:
                return None
            care |= 1 << g
            want |= truth << g
        return care, want

    def _reading(self, key: str, places: frozenset[Slot]) -> list[tuple[int, n.Term, Slot | None]]:
        """The tool's pooled atoms that read a place among `places`, each with that place (None:
        the atom reads another place too, or a part of one). Memoised per tool and places."""
        memo = (key, places)
        found = self._readings.get(memo)
        if found is None:
            found = []
            for g, atom, reads in self._tested(key):
                touched = [s for s in reads if any(overlap(s, p) for p in places)]
                if touched:
                    found.append((g, atom, touched[0] if len(reads) == 1 and touched[0] in places else None))
            if len(self._readings) >= MEMO_LIMIT:
                self._readings.clear()
            self._readings[memo] = found
        return found

    def _truth(self, key: str, g: int, atom: n.Term, slot: Slot, value: object) -> bool | None:
        """An atom that reads one place, evaluated with a value there (None: not evaluated
        here: an atom reading more than the call, a new value, a place not built)."""
        memo = (key, g, _identity(value))
        if memo in self._truths:
            return self._truths[memo]
        plain = _plain(value)
        truth: bool | None = None
        if (plain is not UNDEF or value is UNDEF) and _of_the_call(atom):
            args: dict[str, Any] = {}
            result: dict[str, Any] = {}
            if value is UNDEF or _put(args, result, slot, plain):  # an empty place: the call lacks it
                truth = eval_term(atom, DataEnv(args=args, result=result if slot[0] == "result" else UNDEF)) is True
        if len(self._truths) >= MEMO_LIMIT:
            self._truths.clear()
        if not isinstance(value, _NewValue):
            self._truths[memo] = truth
        return truth

    def _new_values(self, key: str, held: frozenset[Slot], sig: ToolSignature | None, trail: _Trail,
                    number: int, blank: Profile) -> list[object]:
        """Values a value the search's rules have not named may be in these places: values the
        continuation placed already or the pair rules' pairs hold, which those rules have not
        named either; then one equal to nothing, where the places' type has more values than
        any run names and no atom tests them, or else texts the testing atoms are built from,
        which no rule of the set has named."""
        types = {_place_type(sig, s) for s in held}
        if len(types) != 1:
            return []
        t = next(iter(types))
        seen = [*trail.introduced, *(c for i in trail.instances for pair in sorted(i.states, key=repr) for c in pair)]
        out = _distinct((v for v in seen if trail.current.get(v, blank) == blank), t)
        if not self._is_tested(key, held):
            if t in (STR, INT):
                out.append(_NewValue(number))
            return out
        if t != STR:
            return [v for v in out if not isinstance(v, _NewValue)]  # a tested place needs a value the test reads
        named = trail.named()
        for text in self._texts(key, held):
            if text not in named and text not in out:
                out.append(text)
        return out[:2 * MAX_PLACE_VALUES]

    def _texts(self, key: str, held: frozenset[Slot]) -> Iterator[str]:
        """Texts to try for a tested place: the atoms' literals and pattern examples, and
        texts equal to none of them."""
        for _, atom, reads in self._tested(key):
            if not reads & held:
                continue
            for node in subformulas(atom):
                if isinstance(node, n.Lit) and isinstance(node.value, str):
                    yield node.value
                    if isinstance(atom, n.Op) and atom.op == "matches":
                        yield from examples(node.value)
        for k in range(3):
            yield f"\x00new value {k}"

    def _place_values(self, key: str, slot: Slot, sig: ToolSignature | None, trail: _Trail,
                      number: int, hint: object = None) -> list[object]:
        """Values to try in a place a pair rule binds and the search does not: values the
        continuation placed already, the values of that component in the pairs named,
        members of an enumeration, a value equal to nothing (a text or a number); for a place
        of another type, UNDEF alone (left empty) when the call may leave it so, else none."""
        t = _place_type(sig, slot)
        seen: list[object] = list(trail.introduced)
        for inst in trail.instances:
            places = inst.reading.places.get(key)
            if places is not None and slot in places:
                k = places.index(slot)
                seen += [pair[k] for pair in sorted(inst.states, key=repr)]
        if isinstance(t, EnumT):
            seen += list(t.members)
        elif t == BOOL:
            seen += [("bool", True), ("bool", False)]
        elif t not in (STR, INT):
            # a place of another type is left empty, when a call may leave it so
            param = sig.param(str(slot[1])) if sig is not None and slot[0] == "arg" and len(slot) == 2 else None
            return [UNDEF] if param is not None and isinstance(param.type, OptionalT) else []
        out = _distinct(seen, t)
        if hint is not None and hint != NEW:  # first the run's values a later call places here
            out.sort(key=lambda v: trail.current.get(v) != hint)
        if t in (STR, INT):
            out.insert(0 if hint == NEW else len(out), _NewValue(1000 + number))
        return out

    def _move_values(self, rules: Rules, state: State, current: dict[object, Profile], move: SearchMove,
                     chosen: Sequence[tuple[object, frozenset[Slot]]],
                     absent: frozenset[Slot]) -> dict[object, Profile] | None:
        """The run's values by the set's profile after the call (None: a value cannot move)."""
        key, mask = move[0], move[1]
        fresh = state[1]
        placed = {v: held for v, held in chosen}
        out: dict[object, Profile] = {}
        blank = rules.unnamed
        for v in set(current) | set(placed):
            held = placed.get(v, frozenset())
            moved = rules._move(current.get(v, blank), fresh, key, mask, held, absent)
            if moved is None:
                return None
            out[v] = moved
        return out
