"""Per-value rules in the joint search: a counting abstraction over the values of a run.

A rule quantified over values (`forall t: always (open(ticket_id: t) -> eventually
close(ticket_id: t))`) has one automaton instance per value (`policyc.tables.slicing`). Alone
it is judged per value; together with other rules a run may be doomed without any single rule
being lost: once tier 2 has the queue no ticket is closed, yet an opened ticket owes its close.
This module answers the joint question for plain and per-value rules alike: from a state of
the run, does some continuation satisfy every rule of a set?

**Profiles.** A value's *profile* is the tuple of its instance states in every sliced part (in
a part that never named it, the value follows that part's fresh instance). Values with one
profile are interchangeable: no rule tells them apart but by their profile (parts that compare
the variable with literals are not counted, see `PartShape.countable`). A search state is the
plain automata's states, the fresh instances' states and the *multiset* of profiles, with
exact counts of the run's values: `(plain, fresh, ((profile, count), ...))`.

**Moves.** A call of a continuation is a tool, a combination of the truths of its pooled guard
atoms that some call can produce (the product's letters, decided by the compiler), and for
every *slot* of the tool (an argument or result field some part compares its variable with, or
takes its domain from) a filler: a value of the run (by profile), a new value, or nothing (an
optional argument left out). A value in a slot moves its instances by the letter that names
it; every other value moves by the letter that names no value, as the fresh instances do.

**Exactness.** New values make the space of states infinite, so the search is done two ways:
- *relaxed*: a new value fills a slot without obligations of its own (it is not added to the
  state), except that up to one new value per `exists` part may be kept as a candidate to
  satisfy those parts (tracked in them alone). Every real continuation is a relaxed one, so a
  relaxed "no" is certain; the relaxed space is finite;
- *tracked*: a new value joins the state with its profile. A witness of the tracked search is
  a real continuation, so its "yes" is certain.
A question is answered by refinement (counterexample-guided): search the relaxed problem for a
subset R of the rules (first those a run ending now would leave unsatisfied); if nothing
satisfies R, nothing satisfies them all; else replay the witness, tracked, on every rule: if
it satisfies them, yes; else add the rules it failed to R and search again. A witness that
fails only through the new values' own obligations is looked for tracked, with at most
`MAX_NEW_VALUES` new values per continuation; a "no" there is certain only when that limit cut
no branch. Each question has a budget of search states (`QUESTION_BUDGET`, per question, never
per monitor): past it, the answer is None (undecided). Answers are memoised per whole question
(its rules and their states), so a decision is a function of the policy and the run, whatever
was asked before.

This module imports only the standard library, `policyc.ir` and the other tables.
"""

from __future__ import annotations

import threading
from collections import deque
from heapq import heappop, heappush
from itertools import combinations, product as cartesian
from typing import TYPE_CHECKING, Any, Iterable, Iterator, Mapping, Sequence, TypeVar, cast

from policyc.ir import nodes as n
from policyc.ir.data import path_value
from policyc.ir.ops import UNDEF, value_key
from policyc.ir.walk import subformulas
from policyc.ir.printer import show
from policyc.tables.dfa import SATISFIED, VIOLATED, DfaTable
from policyc.tables.product import OTHER, JointSpace, Projector
from policyc.tables.rule import RuleTable, Skeleton, and3, combine, not3, or3
from policyc.tables.slicing import SliceTable

if TYPE_CHECKING:
    from policyc.tables.policy import CompiledPolicy

K = TypeVar("K")
V = TypeVar("V")
T = TypeVar("T")

#: Search states one question may visit, over all its refinement rounds.
QUESTION_BUDGET = 20000
#: Ways of filling one call's slots a question may enumerate (a tool whose result has many
#: slots read by per-value rules has a Bell number of them); beyond it the question is not
#: decided (`TooManyFillings`), never a search that eats the machine's memory.
MAX_FILLINGS = 20000
#: New values one tracked continuation may introduce.
MAX_NEW_VALUES = 3
#: Entries a memo of a pure function (`Rules.step`, `CountingSpace.fillings`) keeps before it
#: starts afresh: a bound on memory, never on what is decided.
MEMO_LIMIT = 200_000
#: New values a relaxed continuation tracks in the parts it keeps (later ones are tracked
#: nowhere: still a relaxation, so a "no" stays certain, and the space stays finite).
MAX_TRACKED_NEW = 2


class TooManyFillings(Exception):
    """A call's slots can be filled in more ways than `MAX_FILLINGS`."""

    def __init__(self, slots: int):
        self.slots = slots
        super().__init__(f"a call whose {slots} slots read by per-value rules can be filled in more than "
                         f"{MAX_FILLINGS:,} ways")


_MISSING = object()  # not in a memo
_NOTHING: frozenset[Any] = frozenset()  # no slots


def remember(memo: dict[K, V], key: K, value: V) -> None:
    """Keep `value` under `key` in a memo of a pure function, starting the memo afresh past
    `MEMO_LIMIT` entries (what it answers never depends on what it kept)."""
    if len(memo) >= MEMO_LIMIT:
        memo.clear()
    memo[key] = value


NEW, ABSENT = "new", "absent"  # fillers besides a value of the run (given by its profile)
FEW = "few"  # a search that tried only `few_fillings` for some call
#: A new value a relaxed search keeps as the one that may satisfy `exists` parts (its profile
#: is tracked in those parts only, and ends with a mark).
WITNESS = "witness"
CANDIDATE = 1  # the mark of such a value
TRACKED = 2  # the mark of a new value a relaxed search tracks in some parts (`Rules.step`'s `keep`)
NOT_NAMED = -1  # a value's entry in a part that never named it: it follows the fresh instance

Slot = tuple[str | int, ...]  # ("arg", name, field...) or ("result", field...)
Profile = tuple[int, ...]  # per part: NOT_NAMED, or 2 * state + (1 if the value is in the part's domain)
#: (plain states, fresh states, ((profile, count), ...) sorted)
State = tuple[tuple[int, ...], tuple[int, ...], tuple[tuple[Profile, int], ...]]
#: ((filler, slots), ...): the slots each value of the call fills; a filler is a profile of the
#: state, NEW, WITNESS or ABSENT
Filling = tuple[tuple[Any, frozenset[Slot]], ...]
#: A call of a continuation: (tool key, pool mask, whether it ends the run, letters of the plain
#: automata, slots, exact), as `Rules.moves` lists them
SearchMove = tuple[str, int, bool, tuple[int, ...], tuple[Slot, ...], bool]
#: How a rule's acceptance is read: ("plain", automaton) or ("sliced", skeleton, ((kind, ref), ...))
Goal = tuple[Any, ...]
#: A call of a one-value check: (whether it ends the run, letters of the automata read, per way
#: the value may sit in its slots, per part (letter, whether the value enters the domain))
ValueMove = tuple[bool, tuple[int, ...], tuple[tuple[tuple[int, int], ...], ...]]


def slot_of(term: n.Term) -> Slot | None:
    """The place of a call a term reads, when it is a plain path (`order_id`,
    `result.ticket_id`, `items[0]`); None for anything computed."""
    if isinstance(term, n.Arg):
        return ("arg", term.name)
    if isinstance(term, n.Result):
        return ("result",)
    if isinstance(term, n.Field):
        base = slot_of(term.base)
        return None if base is None else base + (term.name,)
    if isinstance(term, n.Index) and isinstance(term.index, n.Lit) and type(term.index.value) is int:
        base = slot_of(term.base)
        return None if base is None else base + (term.index.value,)
    return None


def domain_slot(path: tuple[Any, ...]) -> Slot:
    """A quantifier domain's path (as `SliceTable.domain` keeps it) as a slot."""
    return ("result",) + tuple(path[1:]) if path and path[0] == "result" else ("arg",) + tuple(path)


def slot_value(slot: Slot, args: Mapping[Any, Any], result: object) -> object:
    """The value a call holds in a slot (UNDEF when it holds none)."""
    if slot[0] == "result":
        return path_value(result, slot[1:])
    return path_value(args.get(slot[1], UNDEF), slot[2:])


def read_slots(atom: n.Node) -> frozenset[Slot]:
    """The places of a call an atom reads: its outermost plain paths (`result.tier` reads
    `("result", "tier")`, not all of `result`)."""
    out: set[Slot] = set()
    stack = [atom]
    while stack:
        node = stack.pop()
        slot = slot_of(node) if isinstance(node, n.Term) else None
        if slot is not None:
            out.add(slot)
        else:
            stack.extend(node.children)
    return frozenset(out)


def overlap(a: Slot, b: Slot) -> bool:
    """Whether one slot lies within the other (`result` holds `result.ticket_id`)."""
    k = min(len(a), len(b))
    return a[:k] == b[:k]


def mentions(term: n.Node, var: str) -> bool:
    """Whether a term reads the variable."""
    return any(isinstance(s, n.Var) and s.name == var for s in subformulas(term))


def _order(items: Iterable[T]) -> list[T]:
    """A deterministic order of slots, profiles and fillers (repr is stable across processes,
    hashes of strings are not)."""
    return sorted(items, key=repr)


def projectors(table: DfaTable, pools: Mapping[str, tuple[n.Term, ...]]) -> dict[str, Projector] | None:
    """Per tool of a plain automaton, its projector from the pools (None: an atom not pooled)."""
    ab = table.alphabet
    out = {}
    for tool, tl in ab.tools.items():
        pool = [a.skey for a in pools.get(tool, ())]
        keys = [ab.atoms[i].skey for i in tl.atoms]
        if any(k not in pool for k in keys):
            return None
        out[tool] = Projector(tuple(pool.index(k) for k in keys), tl.letters)
    return out


class PartShape:
    """One sliced part as the counting search reads it: per tool, which of its atoms are the
    product's pooled atoms and which compare the variable with a slot of the call.

    A part is *countable* when each of its binding atoms is `slot == var` or `slot != var`
    over a plain slot, every value its domain takes is one slot (no flattened list), it tests
    its variable against no literal (no static conditions or literal domain values: values
    then differ only by their profile), every other atom is pooled, and its compiler pruned
    every impossible combination (an exact alphabet)."""

    def __init__(self, table: SliceTable, pools: Mapping[str, tuple[n.Term, ...]]):
        self.table = table
        self.kind = table.kind
        self.dfa: DfaTable = next(iter(table.bodies.values()))
        ab, var = table.alphabet, table.var
        self.other = ab.other
        self.countable, self.why = True, ""  # why: the first reason it is not, for compile's note
        # a part over a tuple is judged apart (`judge_sliced`)
        for failed, why in ((table.arity != 1, "it binds two values together in one call"),
                            (len(table.bodies) != 1 or bool(table.static_atoms), "it tests its value against a literal"),
                            (bool(table.constants), "its values are listed in the policy"),
                            (not ab.exact, "the compiler did not decide its guards' combinations")):
            if failed:
                self._not_countable(why)
        # per tool: ((local bit, pool position), ...), ((local bit, slot, is ==), ...), letters
        self.tools: dict[str, tuple[tuple[tuple[int, int], ...], tuple[tuple[int, Slot, bool], ...],
                                    Mapping[int, int]]] = {}
        for tool, tl in ab.tools.items():
            pool = [a.skey for a in pools.get(tool, ())]
            pooled: list[tuple[int, int]] = []
            binding: list[tuple[int, Slot, bool]] = []
            for bit, index in enumerate(tl.atoms):
                atom = ab.atoms[index]
                if not mentions(atom, var):
                    if atom.skey in pool:
                        pooled.append((bit, pool.index(atom.skey)))
                    else:
                        self._not_countable(f"`{tool}`'s guard `{show(atom)}` is not among the tool's decided guards")
                    continue
                found = None
                if isinstance(atom, n.Op) and atom.op in ("eq", "ne") and len(atom.args) == 2:
                    left, right = atom.args
                    other = right if left == n.Var(var) else left if right == n.Var(var) else None
                    slot = slot_of(other) if other is not None and not mentions(other, var) else None
                    if slot is not None:
                        found = (bit, slot, atom.op == "eq")
                if found is None:
                    self._not_countable(f"it compares its value with `{tool}`'s call other than by `==` or `!=`")
                else:
                    binding.append(found)
            self.tools[tool] = (tuple(pooled), tuple(binding), tl.letters)
        touched: dict[str, set[Slot]] = {}
        for tool, terms in table.touch.items():
            for term in terms:
                slot = slot_of(term)
                if slot is None:
                    self._not_countable(f"it reads its value in `{tool}`'s `{show(term)}`, not an argument or a result field")
                else:
                    touched.setdefault(tool, set()).add(slot)
        domain: dict[str, set[Slot]] = {}
        for tool, path, flatten in table.domain:
            if flatten or not path:
                self._not_countable(f"its values are the elements of a list in `{tool}`'s calls")
            else:
                domain.setdefault(tool, set()).add(domain_slot(path))
        self.domain = {tool: frozenset(s) for tool, s in domain.items()}
        self.slots = {tool: frozenset(touched.get(tool, set()) | domain.get(tool, set()))
                      for tool in set(touched) | set(domain)}
        self._letters: dict[tuple[str, int, frozenset[Slot], frozenset[Slot]], int | None] = {}

    def _not_countable(self, why: str) -> None:
        self.countable = False
        self.why = self.why or why

    def letter(self, tool: str, mask: int, filled: frozenset[Slot], absent: frozenset[Slot]) -> int | None:
        """The letter of a value's instance on a call to `tool` whose pooled atoms are `mask`,
        the value being in the slots `filled` and the slots `absent` empty (None: a
        combination the compiler ruled out)."""
        key = (tool, mask, filled, absent)
        found = self._letters.get(key, -2)
        if found != -2:
            return found
        entry = self.tools.get(tool)
        if entry is None:
            found = self.other
        else:
            pooled, binding, letters = entry
            local = 0
            for bit, g in pooled:
                if mask >> g & 1:
                    local |= 1 << bit
            for bit, slot, is_eq in binding:
                if slot not in absent and (slot in filled) == is_eq:
                    local |= 1 << bit  # ⊥ compared with anything is false
            found = letters.get(local)
        self._letters[key] = found
        return found

    def pooled_bits(self, tool: str) -> int:
        return sum(1 << g for _, g in self.tools[tool][0]) if tool in self.tools else 0


class Rules:
    """A set of rules the search is asked about: their automata and how each rule's
    acceptance and verdict are read from a state. Built once per set (`CountingSpace.rules`).

    `plain`: indices of the product's rules; `sliced`: indices of the sliced rules. The state
    of a set lists its plain automata (the plain rules, then the plain parts of its sliced
    rules) and its sliced parts, in that order."""

    def __init__(self, space: "CountingSpace", plain: tuple[int, ...], sliced: tuple[int, ...]):
        self.space = space
        self.plain, self.sliced = plain, sliced
        product = space.product
        self.tables: list[DfaTable] = [product.tables[i] for i in plain]
        # per automaton, which one it is in the policy: a plain rule's, or a sliced rule's part's
        self.table_ids: list[tuple[int, ...]] = [(i,) for i in plain]
        self.projectors: list[dict[str, Projector]] = [space.plain_projectors[i] for i in plain]
        self.parts: list[int] = []  # global part numbers (`CountingSpace.parts`)
        # per rule: how its acceptance is read: ("plain", automaton) or ("sliced", skeleton, refs)
        self.goals: list[Goal] = [("plain", k) for k in range(len(plain))]
        for r in sliced:
            refs: list[tuple[str, int]] = []
            for p, part in zip(space.part_numbers[r], space.sliced[r].parts):
                if p is None:
                    assert isinstance(part, DfaTable)  # parts the search does not count are automata
                    self.tables.append(part)
                    self.table_ids.append((r, len(refs)))
                    self.projectors.append(space.part_projectors[(r, len(refs))])
                    refs.append(("dfa", len(self.tables) - 1))
                else:
                    self.parts.append(p)
                    refs.append(("part", len(self.parts) - 1))
            self.goals.append(("sliced", space.sliced[r].skeleton, tuple(refs)))
        self.shapes = [space.parts[p] for p in self.parts]
        self.unnamed: Profile = tuple(NOT_NAMED for _ in self.parts)  # a value no part of the set named
        self.exists_parts = tuple(k for k, shape in enumerate(self.shapes) if shape.kind == "exists")
        self.exists_set = frozenset(self.exists_parts)
        self.polarity = [self._positive(g) for g in self.goals]
        tools: set[str] = set()
        for t in self.tables:
            tools.update(t.alphabet.tools)
        for s in self.shapes:
            tools.update(s.tools)
            tools.update(s.slots)
        self.tools = frozenset(tools)
        self.slots: dict[str, tuple[Slot, ...]] = {
            tool: tuple(_order({s for shape in self.shapes for s in shape.slots.get(tool, ())})) for tool in tools}
        self.violated = [tuple(v == VIOLATED for v in t.verdict) for t in self.tables]
        self.entangled = self._entangled()
        self._moves: tuple[tuple[SearchMove, ...], bool] | None = None
        self._profiles: dict[tuple[Profile, tuple[int, ...], str, int, frozenset[Slot], frozenset[Slot],
                                   frozenset[int] | None], Profile | None] = {}
        # rules read fast: plain rules (their automaton) and rules that are one `forall` part
        # (lost when a value of the domain is in a violated state); the others read in full
        self.simple_tables = [goal[1] for goal in self.goals if goal[0] == "plain"]
        self.simple_parts: list[int] = []
        self.complex_goals: list[Goal] = []
        for goal in self.goals:
            if goal[0] == "sliced":
                refs = goal[2]
                if goal[1] == 0 and len(refs) == 1 and refs[0][0] == "part" and \
                        self.shapes[refs[0][1]].kind == "forall":
                    self.simple_parts.append(refs[0][1])
                else:
                    self.complex_goals.append(goal)
        self.bad_entries = [frozenset(2 * q + 1 for q, v in enumerate(shape.dfa.verdict) if v == VIOLATED)
                            for shape in self.shapes]
        self._bad: dict[Profile, bool] = {}
        self._distance: dict[Profile, int] = {}
        self._views: dict[tuple[object, ...], Any] = {}  # per memo key: a view or its moves
        # `step`, per its arguments
        self._steps: dict[tuple[State, SearchMove, Filling, bool, frozenset[int], bool, bool], State | None] = {}
        self._values: dict[tuple[State, bool], list[bool | None]] = {}  # `rule_values`, per (state, relaxed)
        self._dropped: dict[tuple[Profile, bool], bool] = {}  # `_drops`, per its arguments
        self._fresh: dict[tuple[tuple[int, ...], str, int, frozenset[Slot]], tuple[int, ...] | None] = {}
        self._absent: dict[Filling, frozenset[Slot]] = {}  # per filling, the slots it leaves out

    def _entangled(self) -> str | None:
        """An atom of the set, besides the parts' bindings, that reads a slot whose filler the
        search picks by profile (`n == 1` on a call whose `n` a per-value part binds): its truth
        depends on which value fills the slot, which the search does not see. Such a set's "no"
        stays certain (every real continuation is among those searched), but a witness may pair
        a value with an atom it cannot make true: its "yes" is not (None: no such atom)."""
        pools = self.space.product.atoms
        for tool, slots in self.slots.items():
            if not slots:
                continue
            read: set[int] = set()
            for proj in self.projectors:
                if tool in proj:
                    read.update(proj[tool].bits)
            for shape in self.shapes:
                if tool in shape.tools:
                    read.update(g for _, g in shape.tools[tool][0])
            for g in sorted(read):
                if any(overlap(a, b) for a in self.space.atom_slots(tool, g) for b in slots):
                    atoms = pools.get(tool, ())
                    return f"`{tool}`'s atom `{atoms[g]}` reads a place a per-value rule binds"
        return None

    @staticmethod
    def _positive(goal: Goal) -> frozenset[int]:
        """The parts (by position) that occur only positively in a sliced rule's skeleton:
        for them a relaxed state's acceptance bounds the real one."""
        if goal[0] != "sliced":
            return frozenset()
        neg: set[int] = set()
        pos: set[int] = set()

        def walk(sk: Skeleton, negated: bool) -> None:
            if isinstance(sk, int):
                (neg if negated else pos).add(sk)
            elif sk[0] == "not":
                walk(sk[1], not negated)
            else:
                for s in sk[1]:
                    walk(s, negated)

        walk(goal[1], False)
        return frozenset(pos - neg)

    # ------------------------------------------------------------ the calls of a continuation

    def moves(self) -> tuple[tuple[SearchMove, ...], bool]:
        """((tool key, pool mask, final, letters of the plain automata, slots, exact), ...)
        and whether the list is complete (every mask some call can produce is listed).
        `exact`: the mask is one some call can produce."""
        if self._moves is not None:
            return self._moves
        product = self.space.product
        out: list[SearchMove] = []
        complete = True
        seen: set[tuple[str, int, bool]] = set()
        keys = [k for k in product.keys() if k == OTHER or k in self.tools]
        keys += _order(t for t in self.tools if t not in product.atoms and t in self.space.declared)
        for key in keys:
            if key == OTHER:
                masks: tuple[int, ...] = (0,)
                endings, exact = product.other_endings, True
            elif key in product.atoms:
                masks = product.letters_of(key)
                complete &= product.letters_complete(key)
                exact = product.letters_exact(key)
                endings = (key in product.terminal,)
            else:
                masks, exact, endings = (0,), True, (key in product.terminal,)
            relevant = self.relevant(key)
            tried: set[int] = set()  # masks as the set reads them (many of the tool's read alike)
            for mask in masks:
                mask &= relevant
                if mask in tried:
                    continue
                tried.add(mask)
                letters = tuple(self.tables[k].alphabet.other if key not in proj else proj[key].letter(mask)
                                for k, proj in enumerate(self.projectors))
                if any(x is None for x in letters):
                    continue
                for final in endings:
                    sig = (key, mask, final)
                    if sig not in seen:
                        seen.add(sig)
                        # no letter is None (the mask was skipped then)
                        out.append((key, mask, final, cast("tuple[int, ...]", letters), self.slots.get(key, ()), exact))
        self._moves = (tuple(out), complete)
        return self._moves

    def relevant(self, key: str) -> int:
        """The tool's pool bits the set reads: its automata's guards and its parts'. Memoised."""
        memo = ("relevant", key)
        found = self._views.get(memo)
        if found is None:
            found = 0
            for proj in self.projectors:
                if key in proj:
                    found |= sum(1 << g for g in proj[key].bits)
            for shape in self.shapes:
                found |= shape.pooled_bits(key)
            self._views[memo] = found
        return found

    def move_for(self, key: str, mask: int, final: bool) -> SearchMove | None:
        """The move of a call to the tool with this pool mask (None: a plain automaton of the
        set has no letter for it). Memoised."""
        memo = ("move", key, mask, final)
        found: SearchMove | None = self._views.get(memo, _MISSING)
        if found is not _MISSING:
            return found
        letters = tuple(self.tables[k].alphabet.other if key not in proj else proj[key].letter(mask)
                        for k, proj in enumerate(self.projectors))
        if any(x is None for x in letters):
            found = None
        else:
            product = self.space.product
            exact = key == OTHER or key not in product.atoms or product.letters_exact(key)
            found = (key, mask, final, cast("tuple[int, ...]", letters), self.slots.get(key, ()), exact)  # no None
        self._views[memo] = found
        return found

    def one_value_view(self, profile: Profile | None) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """For `CountingSpace._one_value_dead`: the plain automata of plain rules and the
        parts a value's check reads (the parts it was named in, and the plain rules that share
        a tool with them or move on any call; every plain rule when there is no value)."""
        parts = () if profile is None else tuple(k for k in range(len(self.shapes)) if profile[k] >= 0)
        memo = ("view", parts if profile is not None else None)
        found = self._views.get(memo)
        if found is None:
            if profile is None:
                tables = tuple(self.simple_tables)
            else:
                tools: set[str] = set()
                for k in parts:
                    tools.update(self.shapes[k].tools)
                    tools.update(self.shapes[k].slots)
                tables = tuple(k for k in self.simple_tables if tools & set(self.tables[k].alphabet.tools)
                               or any(row[self.tables[k].alphabet.other] != q
                                      for q, row in enumerate(self.tables[k].delta)))
            found = self._views[memo] = (tables, parts)
        return found

    def one_value_key(self, tables_at: tuple[int, ...], parts_at: tuple[int, ...]) -> tuple[object, ...]:
        """What a one-value check over this view answers from, besides its start, whichever
        set it is asked in: the automata and parts it reads (which ones of the policy), which
        of the parts are a rule's one `forall` part, and the set's calls as they see them: per
        call, its tool, the pool atoms they read, whether it ends the run and the slots they
        read (of the set's slots on the tool, those the parts read or bind). The check's calls
        (`one_value_moves`) are a function of it. Memoised per view."""
        memo = ("key", tables_at, parts_at)
        found: tuple[object, ...] | None = self._views.get(memo)
        if found is None:
            read: dict[str, int] = {}
            for k in tables_at:
                for key, proj in self.projectors[k].items():
                    read[key] = read.get(key, 0) | sum(1 << g for g in proj.bits)
            mine: dict[str, set[Slot]] = {}
            for k in parts_at:
                shape = self.shapes[k]
                for key in shape.tools:
                    read[key] = read.get(key, 0) | shape.pooled_bits(key)
                    mine.setdefault(key, set()).update(slot for _, slot, _ in shape.tools[key][1])
                for key, slots in shape.slots.items():
                    mine.setdefault(key, set()).update(slots)
                    read.setdefault(key, 0)
            # a call of a tool the view does not read is, to it, a call of any other tool
            calls = frozenset((key, mask & read[key], final, tuple(s for s in slots if s in mine.get(key, ())))
                              if key in read else (OTHER, 0, final, ())
                              for key, mask, final, _, slots, _ in self.moves()[0])
            found = self._views[memo] = (tuple(self.table_ids[k] for k in tables_at),
                                         tuple(self.parts[k] for k in parts_at),
                                         tuple(k in self.simple_parts for k in parts_at), calls)
        return found

    def one_value_moves(self, tables_at: tuple[int, ...], parts_at: tuple[int, ...]) -> list[ValueMove]:
        """The calls a one-value check tries: per call of the set as the view sees it
        (`one_value_key`; those that change some automaton read, or end the run), whether it
        ends the run, the letters of the automata read, and per way the value may sit in the
        call's slots (filled by it or not; an optional slot it does not fill left out or not),
        per part its (letter, whether the value enters the domain). A slot the view does not
        read changes no letter of it, so the set's other slots are not tried. Memoised per view."""
        memo = ("moves", tables_at, parts_at)
        found: list[ValueMove] | None = self._views.get(memo)
        if found is not None:
            return found
        out = []
        seen = set()
        for key, mask, final, slots in _order(cast("frozenset[tuple[str, int, bool, tuple[Slot, ...]]]",
                                                   self.one_value_key(tables_at, parts_at)[3])):
            picked = tuple(self.tables[k].alphabet.other if key not in self.projectors[k] else
                           cast(int, self.projectors[k][key].letter(mask)) for k in tables_at)  # the set's calls have letters
            optional = self.space.optional(key, slots)
            named: list[tuple[tuple[int, int], ...]] = []
            for filled in _subsets(slots):
                for absent in _subsets([s for s in slots if s in optional and s not in filled]):
                    row = []
                    for k in parts_at:
                        shape = self.shapes[k]
                        sits = frozenset(filled) & shape.slots.get(key, frozenset())
                        x = shape.letter(key, mask, sits, frozenset(absent))
                        if x is None:
                            break
                        row.append((x, 1 if sits & shape.domain.get(key, frozenset()) else 0))
                    else:
                        named.append(tuple(row))
            named = list(dict.fromkeys(named))
            moves_something = any(self._table_moves(k, x) for k, x in zip(tables_at, picked)) or \
                any(self._part_moves(k, x) or d for row in named for k, (x, d) in zip(parts_at, row))
            sig = (final, picked, tuple(named))
            if (moves_something or final) and sig not in seen and named:
                seen.add(sig)
                out.append(sig)
        self._views[memo] = out
        return out

    def _table_moves(self, k: int, x: int) -> bool:
        """Whether letter x moves automaton k out of some state. Memoised."""
        memo = ("table moves", k, x)
        found: bool | None = self._views.get(memo)
        if found is None:
            t = self.tables[k]
            found = self._views[memo] = any(t.delta[q][x] != q for q in range(t.size))
        return found

    def _part_moves(self, k: int, x: int) -> bool:
        """Whether letter x moves part k's automaton out of some state. Memoised."""
        memo = ("part moves", k, x)
        found: bool | None = self._views.get(memo)
        if found is None:
            dfa = self.shapes[k].dfa
            found = self._views[memo] = any(dfa.delta[q][x] != q for q in range(dfa.size))
        return found

    # ------------------------------------------------------------ reading a state

    def rule_values(self, state: State, relaxed: bool) -> list[bool | None]:
        """Per rule: is it satisfied if the run ends in this state (None: the relaxed state
        cannot tell). Memoised per (state, relaxed); the list returned is shared: read it only."""
        memo = (state, relaxed)
        found = self._values.get(memo)
        if found is None:
            found = self._rule_values(state, relaxed)
            remember(self._values, memo, found)
        return found

    def _rule_values(self, state: State, relaxed: bool) -> list[bool | None]:
        plain, _, tokens = state
        out: list[bool | None] = []
        for i, goal in enumerate(self.goals):
            if goal[0] == "plain":
                out.append(self.tables[goal[1]].accepting[plain[goal[1]]])
                continue
            values = []
            for j, (kind, ref) in enumerate(goal[2]):
                if kind == "dfa":
                    values.append(self.tables[ref].accepting[plain[ref]])
                    continue
                shape = self.shapes[ref]
                if relaxed and j not in self.polarity[i]:
                    values.append(None)
                    continue
                acc = shape.dfa.accepting
                inside = [acc[e >> 1] for e in (p[ref] for p, _ in tokens) if e >= 0 and e & 1]
                values.append(all(inside) if shape.kind == "forall" else any(inside))
            out.append(combine(goal[1], values, _and, _or, _not))
        return out

    def lost(self, state: State) -> bool:
        """Whether some rule of the set can no longer be satisfied, whatever comes next."""
        plain, fresh, tokens = state
        violated = self.violated
        if any(violated[k][plain[k]] for k in self.simple_tables):
            return True
        if any(self.bad(p) for p, _ in tokens):
            return True
        return any(self._goal_lost(goal, state) for goal in self.complex_goals)

    def bad(self, profile: Profile) -> bool:
        """Whether a value in this profile has lost a rule that is one `forall` part."""
        found = self._bad.get(profile)
        if found is None:
            found = self._bad[profile] = any(profile[k] in self.bad_entries[k] for k in self.simple_parts)
        return found

    def _goal_lost(self, goal: Goal, state: State) -> bool:
        plain, fresh, tokens = state
        verdicts: list[str] = []
        for kind, ref in goal[2]:
            if kind == "dfa":
                verdicts.append(self.tables[ref].verdict[plain[ref]])
                continue
            shape = self.shapes[ref]
            verdict = shape.dfa.verdict
            states = [e >> 1 for e in (p[ref] for p, _ in tokens) if e >= 0 and e & 1]
            everyone = [e >> 1 for e in (p[ref] for p, _ in tokens) if e >= 0] + [fresh[ref]]
            if shape.kind == "forall":
                verdicts.append(VIOLATED if any(verdict[q] == VIOLATED for q in states) else
                                SATISFIED if all(verdict[q] == SATISFIED for q in everyone) else "open")
            else:
                verdicts.append(SATISFIED if any(verdict[q] == SATISFIED for q in states) else
                                VIOLATED if all(verdict[q] == VIOLATED for q in everyone) else "open")
        return combine(goal[1], verdicts, and3, or3, not3) == VIOLATED

    def distance(self, state: State) -> int:
        """How far the state is from satisfying every rule, roughly: the plain automata's and
        the values' instances' distances to acceptance (the best-first search's guide)."""
        plain, _, tokens = state
        total = 0
        for t, q in zip(self.tables, plain):
            total += t.dist_accept[q] or 0
        for profile, count in tokens:
            d = self._distance.get(profile)
            if d is None:
                d = 0
                for shape, e in zip(self.shapes, profile):  # a mark may follow the entries
                    if e >= 0 and e & 1 and shape.kind == "forall":
                        d += shape.dfa.dist_accept[e >> 1] or 0
                self._distance[profile] = d
            total += d * count
        return total

    def accepts(self, state: State, relaxed: bool) -> bool:
        return all(v is not False for v in self.rule_values(state, relaxed))

    def failing(self, state: State) -> list[int]:
        """The rules (by position) a run ending in this state leaves unsatisfied."""
        return [i for i, v in enumerate(self.rule_values(state, False)) if v is False]

    # ------------------------------------------------------------ stepping a state

    def step(self, state: State, move: SearchMove, filling: Filling, relaxed: bool,
             keep: frozenset[int] = frozenset(), even_lost: bool = False, track_new: bool = True) -> State | None:
        """The state after a call (None: impossible, or some rule of the set lost). In a
        relaxed state a new value is tracked in the parts `keep` alone (not at all without,
        nor when not `track_new`). Memoised: a function of its arguments and the set alone."""
        memo = (state, move, filling, relaxed, keep, even_lost, track_new)
        found = self._steps.get(memo, _MISSING)
        if found is not _MISSING:
            return found  # type: ignore[return-value]
        result = self._step(state, move, filling, relaxed, keep, even_lost, track_new)
        remember(self._steps, memo, result)
        return result

    def _step(self, state: State, move: SearchMove, filling: Filling, relaxed: bool, keep: frozenset[int],
              even_lost: bool,
              track_new: bool) -> State | None:
        key, mask, _, letters, _, _ = move
        plain, fresh, tokens = state
        plain_after = tuple(t.delta[q][x] for t, q, x in zip(self.tables, plain, letters))
        absent = self._absent.get(filling)
        if absent is None:
            absent = frozenset(s for filler, slots in filling if filler == ABSENT for s in slots)
            remember(self._absent, filling, absent)
        counts = dict(tokens)
        named: list[tuple[Profile | None, frozenset[Slot]]] = []  # None: a new value
        for filler, slots in filling:
            if filler == ABSENT:
                continue
            if filler == NEW:
                named.append((None, slots))
            elif filler == WITNESS:
                named.append((self.unnamed + (CANDIDATE,), slots))
            else:
                counts[filler] -= 1
                named.append((filler, slots))
        after: dict[Profile, int] = {}
        profile: Profile | None  # a value's profile; None in `named`: a new value
        for profile, count in counts.items():
            if count:
                moved = self._move(profile, fresh, key, mask, _NOTHING, absent, keep)
                if moved is None:
                    return None
                after[moved] = after.get(moved, 0) + count
        for profile, slots in named:
            if profile is None:
                if relaxed and not (keep and track_new):
                    continue  # a new value's own obligations are not tracked here
                profile = self.unnamed + ((TRACKED,) if relaxed else ())
            moved = self._move(profile, fresh, key, mask, slots, absent, keep)
            if moved is None:
                return None
            after[moved] = after.get(moved, 0) + 1
        try:
            fresh_after = self._fresh[(fresh, key, mask, absent)]
        except KeyError:
            fresh_after = self._fresh_after(fresh, key, mask, absent)
            remember(self._fresh, (fresh, key, mask, absent), fresh_after)
        if fresh_after is None:
            return None
        result = (plain_after, fresh_after, self.canonical(after, relaxed, keep))
        return result if even_lost or not self.lost(result) else None

    def _fresh_after(self, fresh: tuple[int, ...], key: str, mask: int,
                     absent: frozenset[Slot]) -> tuple[int, ...] | None:
        """The fresh instances' states after a call naming no value (None: a part has no
        letter for it)."""
        out = []
        for k, shape in enumerate(self.shapes):
            letter = shape.letter(key, mask, _NOTHING, absent)
            if letter is None:
                return None
            out.append(shape.dfa.delta[fresh[k]][letter])
        return tuple(out)

    def lost_rules(self, state: State) -> list[int]:
        """The rules (by position) that can no longer be satisfied in this state."""
        plain, _, tokens = state
        out = []
        for i, goal in enumerate(self.goals):
            if goal[0] == "plain":
                lost = self.violated[goal[1]][plain[goal[1]]]
            elif goal in self.complex_goals:
                lost = self._goal_lost(goal, state)
            else:
                k = goal[2][0][1]
                lost = any(p[k] in self.bad_entries[k] for p, _ in tokens)
            if lost:
                out.append(i)
        return out

    def _move(self, profile: Profile, fresh: tuple[int, ...], key: str, mask: int, filled: frozenset[Slot],
              absent: frozenset[Slot], keep: frozenset[int] = frozenset()) -> Profile | None:
        marked = len(profile) > len(self.shapes)
        memo = (profile, fresh, key, mask, filled, absent, keep if marked else None)
        found = self._profiles.get(memo, ())
        if found != ():
            return found
        out = []
        kept = None if not marked else self.exists_set if profile[-1] == CANDIDATE else keep
        for k, shape in enumerate(self.shapes):
            entry = profile[k]
            slots = shape.slots.get(key, frozenset())
            mine = filled & slots
            if entry < 0 and not mine or kept is not None and k not in kept:
                out.append(NOT_NAMED)
                continue
            state, inside = (fresh[k], 0) if entry < 0 else (entry >> 1, entry & 1)
            letter = shape.letter(key, mask, mine, absent)
            if letter is None:
                self._profiles[memo] = None
                return None
            if mine & shape.domain.get(key, frozenset()):
                inside = 1
            out.append(2 * shape.dfa.delta[state][letter] + inside)
        if marked:
            out.append(profile[-1])
        result = tuple(out)
        self._profiles[memo] = result
        return result

    def _drops(self, profile: Profile, satisfied: bool) -> bool:
        """Whether `canonical` leaves out a value in this profile (`satisfied`: also when each
        of its parts is satisfied for good)."""
        shapes = self.shapes
        entries = profile[:len(shapes)]
        if all(e < 0 for e in entries):
            return True
        return satisfied and all(e < 0 or shapes[k].kind == "forall" and shapes[k].dfa.verdict[e >> 1] == SATISFIED
                                 for k, e in enumerate(entries))

    def canonical(self, counts: Mapping[Profile, int], relaxed: bool,
                  keep: frozenset[int] = frozenset()) -> tuple[tuple[Profile, int], ...]:
        """The multiset as a sorted tuple, without the values that cannot matter: those no
        part of the set ever named (they are like values never seen), and in a relaxed state
        that tracks new values nowhere, those every part of which is satisfied for good (a new
        value, without obligations, fills a slot as well)."""
        out = []
        dropped = self._dropped
        plain_drop = relaxed and not keep  # satisfied values dropped too
        for profile, count in counts.items():
            if not count:
                continue
            drop = dropped.get((profile, plain_drop))
            if drop is None:
                drop = self._drops(profile, plain_drop)
                remember(dropped, (profile, plain_drop), drop)
            if not drop:
                out.append((profile, count))
        out.sort()
        return tuple(out)


def _and(values: Sequence[bool | None]) -> bool | None:
    return False if False in values else None if None in values else True


def _or(values: Sequence[bool | None]) -> bool | None:
    return True if True in values else None if None in values else False


def _not(value: bool | None) -> bool | None:
    return None if value is None else not value


def fillings(slots: Sequence[Slot], tokens: Sequence[tuple[Profile, int]], optional: frozenset[Slot],
             allow_new: bool, allow_witness: bool = False) -> Iterator[Filling]:
    """Every way of filling a call's slots: groups of slots holding one value each, and what
    the value is (a profile of the state, NEW, WITNESS, or ABSENT for an optional slot left
    out), up to the identity of values with one profile; in a deterministic order, a new value
    before the state's profiles (so that, of two continuations equally near, a search finds
    first the one with a new value, which a check with values can give any text a guard
    wants, `policyc.runtime.witness`)."""
    if not slots:
        yield ()
        return
    counts = dict(tokens)
    choices: list[Any] = ([NEW] if allow_new else []) + [p for p, _ in tokens] + ([WITNESS] if allow_witness else [])
    seen: set[Filling] = set()
    work = 0
    for partition in _partitions(list(slots)):
        work += 1
        options = []
        for block in partition:
            opts = list(choices)
            if len(block) == 1 and block[0] in optional:
                opts.append(ABSENT)
            options.append(opts)
        for picked in cartesian(*options):
            work += 1
            if work > MAX_FILLINGS:
                raise TooManyFillings(len(slots))
            used: dict[Any, int] = {}
            ok = True
            for c in picked:
                if c not in (NEW, ABSENT, WITNESS):
                    used[c] = used.get(c, 0) + 1
                    ok &= used[c] <= counts[c]
            if not ok:
                continue
            groups = tuple(sorted(((c, frozenset(b)) for c, b in zip(picked, partition)), key=repr))
            if groups not in seen:
                seen.add(groups)
                yield groups


def few_fillings(slots: Sequence[Slot], optional: frozenset[Slot], allow_new: bool) -> list[Filling]:
    """A few ways of filling a call's slots, for a call with too many (`TooManyFillings`):
    every slot a new value of its own, all of them one new value, and every optional slot left
    out. A continuation found through them is real; a search that finds none has not tried
    every way."""
    if not slots:
        return [()]
    out: list[Filling] = []
    if allow_new:
        out.append(tuple(sorted(((NEW, frozenset((s,))) for s in slots), key=repr)))
        out.append(((NEW, frozenset(slots)),))
        if optional:
            out.append(tuple(sorted(((ABSENT if s in optional else NEW, frozenset((s,))) for s in slots), key=repr)))
    elif all(s in optional for s in slots):
        out.append(tuple(sorted(((ABSENT, frozenset((s,))) for s in slots), key=repr)))
    return out


def _subsets(items: Sequence[T]) -> Iterator[tuple[T, ...]]:
    """Every subset of the items, the empty one first."""
    for size in range(len(items) + 1):
        yield from combinations(items, size)


def _partitions(items: list[T]) -> Iterator[list[list[T]]]:
    if not items:
        yield []
        return
    first, rest = items[0], items[1:]
    for smaller in _partitions(rest):
        yield [[first]] + smaller
        for i in range(len(smaller)):
            yield smaller[:i] + [[first] + smaller[i]] + smaller[i + 1:]


class CountingSpace:
    """The plain rules of a product and the sliced rules of a policy, for joint questions.

    `product`: the plain rules' product (its pools hold the sliced parts' atoms too, see
    `JointSpace`); `sliced`: the sliced rules' tables; `required`: per declared tool, its
    required arguments (every other slot a well-formed call may leave empty: optional
    arguments, fields below an argument, anything in a result, which a failed call lacks)."""

    def __init__(self, product: JointSpace, sliced: Sequence[RuleTable], required: Mapping[str, frozenset[str]],
                 budget: int = QUESTION_BUDGET, max_new: int = MAX_NEW_VALUES):
        self.product = product
        self.sliced = list(sliced)
        self.required = required
        self._optional: dict[tuple[str, tuple[Slot, ...]], frozenset[Slot]] = {}
        self._atom_slots: dict[tuple[str, int], frozenset[Slot]] = {}
        self.declared = frozenset(product.declared)
        self.budget, self.max_new = budget, max_new
        pools = product.atoms
        self.plain_projectors = [product.projectors(i) for i in range(len(product.tables))]
        self.parts: list[PartShape] = []
        self.part_numbers: list[list[int | None]] = []  # per sliced rule, per part: its number (None: a DFA)
        self.part_projectors: dict[tuple[int, int], dict[str, Projector]] = {}
        self.countable: list[bool] = []
        for r, table in enumerate(self.sliced):
            numbers: list[int | None] = []
            ok = True
            for j, part in enumerate(table.parts):
                if isinstance(part, DfaTable):
                    proj = projectors(part, pools)
                    if proj is None:
                        ok = False
                        proj = {}
                    self.part_projectors[(r, j)] = proj
                    numbers.append(None)
                else:
                    shape = PartShape(part, pools)
                    ok &= shape.countable
                    self.parts.append(shape)
                    numbers.append(len(self.parts) - 1)
            self.part_numbers.append(numbers)
            self.countable.append(ok)
        self._rules: dict[tuple[tuple[int, ...], tuple[int, ...]], Rules] = {}
        # per question: its answer, and the continuation found (`witness`), kept together so
        # that what one says the other says too, whatever was asked before
        self._answers: dict[tuple[object, ...], tuple[bool | None, tuple[tuple[SearchMove, Filling], ...] | None]] = {}
        self._lock = threading.Lock()
        self._slots: dict[str, tuple[Slot, ...]] = {}
        self._arg_slots: dict[str, tuple[Slot, ...]] = {}
        self._moves: dict[tuple[Profile, tuple[int, ...], str, int, frozenset[Slot], frozenset[Slot]], Profile] = {}
        self._loops: dict[tuple[str, int, frozenset[Slot]], bool] = {}
        self._runs: dict[tuple[tuple[tuple[Profile, int], ...], tuple[int, ...]], int] = {}
        self._profile_ids: dict[Profile, int] = {}
        self._why: dict[tuple[tuple[int, ...], tuple[int, ...], State], str] = {}  # per question answered None: why
        # the one-value check (`_can_finish`): per view, its answer per start, and its calls
        self._finish: dict[tuple[object, ...], dict[tuple[tuple[int, ...], tuple[int, ...]], bool]] = {}
        self._value_steps: dict[tuple[object, ...], list[tuple[ValueMove, tuple[tuple[int, int], ...]]]] = {}
        self._guides: dict[tuple[object, ...], list[list[list[int]]]] = {}  # `_apart_guide`, per view
        self._value_next: dict[tuple[object, ...], tuple[dict[Any, Any], dict[Any, Any], dict[Any, Any],
                                                         dict[Any, Any]]] = {}
        # `fillings`, per its arguments (an int: too many)
        self._fillings: dict[tuple[tuple[Slot, ...], tuple[tuple[Profile, int], ...], frozenset[Slot], bool, bool],
                             tuple[Filling, ...] | int] = {}

    def atom_slots(self, tool: str, g: int) -> frozenset[Slot]:
        """The slots the tool's pooled atom g reads (`read_slots`), memoised."""
        found = self._atom_slots.get((tool, g))
        if found is None:
            found = self._atom_slots[(tool, g)] = read_slots(self.product.atoms[tool][g])
        return found

    def optional(self, key: str, slots: Sequence[Slot]) -> frozenset[Slot]:
        """The slots of a call to the tool that a well-formed call may leave empty."""
        memo = (key, tuple(slots))
        found = self._optional.get(memo)
        if found is None:
            required = self.required.get(key, frozenset())
            found = self._optional[memo] = frozenset(
                s for s in slots if not (s[0] == "arg" and len(s) == 2 and s[1] in required))
        return found

    def fillings(self, slots: Sequence[Slot], tokens: Sequence[tuple[Profile, int]], optional: frozenset[Slot],
                 allow_new: bool, allow_witness: bool = False) -> tuple[Filling, ...]:
        """`fillings`, all of them, memoised (a function of its arguments alone); raises
        `TooManyFillings` as it does."""
        memo = (tuple(slots), tuple(tokens), optional, allow_new, allow_witness)
        found = self._fillings.get(memo)
        if found is None:
            try:
                found = tuple(fillings(slots, tokens, optional, allow_new, allow_witness))
            except TooManyFillings as exc:
                found = exc.slots
            remember(self._fillings, memo, found)
        if isinstance(found, int):
            raise TooManyFillings(found)
        return found

    def rules(self, plain: tuple[int, ...], sliced: tuple[int, ...]) -> Rules:
        key = (plain, sliced)
        found = self._rules.get(key)
        if found is None:
            found = self._rules[key] = Rules(self, plain, sliced)
        return found

    # ------------------------------------------------------------ a run's values (`TokenRun`)

    @property
    def unnamed_profile(self) -> Profile:
        return tuple(NOT_NAMED for _ in self.parts)

    def named(self, key: str, args: Mapping[str, Any],
              result: object) -> tuple[list[tuple[object, frozenset[Slot]]], frozenset[Slot]]:
        """The values a call holds in the slots of the parts, with the slots each fills, and
        the slots it leaves empty."""
        by_value: dict[object, set[Slot]] = {}
        absent: set[Slot] = set()
        for slot in self.slots_of(key):
            value = slot_value(slot, args, result)
            if value is UNDEF:
                absent.add(slot)
            else:
                by_value.setdefault(value_key(value), set()).add(slot)
        return [(k, frozenset(s)) for k, s in by_value.items()], frozenset(absent)

    def slots_of(self, key: str) -> tuple[Slot, ...]:
        """Every slot some countable part reads on the tool (memoised)."""
        found = self._slots.get(key)
        if found is None:
            found = self._slots[key] = tuple(_order({s for part in self.parts for s in part.slots.get(key, ())}))
        return found

    def search_key(self, tool: str) -> str:
        """The key the search reads a call to `tool` by: its own name when a plain rule's guard
        or a part reads it (a tool named only by a part's domain, `forall x in a.v`, included:
        its calls bring values into the domain), else `OTHER`, as `Rules.moves` lists them."""
        if tool in self.product.atoms or tool in self.declared and self.slots_of(tool):
            return tool
        return OTHER

    def arg_slots(self, key: str) -> tuple[Slot, ...]:
        found = self._arg_slots.get(key)
        if found is None:
            found = self._arg_slots[key] = tuple(s for s in self.slots_of(key) if s[0] == "arg")
        return found

    def move(self, profile: Profile, fresh: tuple[int, ...], key: str, mask: int, filled: frozenset[Slot],
             absent: frozenset[Slot]) -> Profile:
        """A value's profile after a call (memoised); a combination the compiler ruled out is
        read as any other tool's letter (the scorer then says why)."""
        memo = (profile, fresh, key, mask, filled, absent)
        found = self._moves.get(memo)
        if found is not None:
            return found
        out = []
        for k, part in enumerate(self.parts):
            entry = profile[k]
            mine = filled & part.slots.get(key, frozenset())
            if entry < 0 and not mine:
                out.append(NOT_NAMED)
                continue
            state, inside = (fresh[k], 0) if entry < 0 else (entry >> 1, entry & 1)
            letter = part.letter(key, mask, mine, absent)
            if letter is None:
                letter = part.other
            if mine & part.domain.get(key, frozenset()):
                inside = 1
            out.append(2 * part.dfa.delta[state][letter] + inside)
        found = self._moves[memo] = tuple(out)
        return found

    def loops(self, key: str, mask: int, absent: frozenset[Slot]) -> bool:
        """Whether a call naming no value leaves every instance of every part where it is."""
        memo = (key, mask, absent)
        found = self._loops.get(memo)
        if found is None:
            found = True
            for part in self.parts:
                letter = part.letter(key, mask, frozenset(), absent)
                if letter is None or any(row[letter] != q for q, row in enumerate(part.dfa.delta)):
                    found = False
                    break
            self._loops[memo] = found
        return found

    def fresh_after(self, fresh: tuple[int, ...], key: str, mask: int, absent: frozenset[Slot]) -> tuple[int, ...]:
        out = []
        for part, q in zip(self.parts, fresh):
            letter = part.letter(key, mask, frozenset(), absent)
            out.append(part.dfa.delta[q][part.other if letter is None else letter])
        return tuple(out)

    def intern_run(self, tokens: tuple[tuple[Profile, int], ...], fresh: tuple[int, ...]) -> int:
        """The number of a run's multiset of profiles with its fresh states."""
        memo = (tokens, fresh)
        found = self._runs.get(memo)
        if found is None:
            with self._lock:
                found = self._runs.setdefault(memo, len(self._runs))
        return found

    def profile_id(self, profile: Profile) -> int:
        found = self._profile_ids.get(profile)
        if found is None:
            with self._lock:
                found = self._profile_ids.setdefault(profile, len(self._profile_ids))
        return found

    # ------------------------------------------------------------ states of a run

    def project(self, rules: Rules, plain_states: Sequence[int], part_states: Mapping[tuple[int, int], int],
                part_fresh: Sequence[int], profiles: Mapping[Profile, int]) -> State:
        """A run's state as the state of a set of rules: the product's states, the states of
        the sliced rules' plain parts (by (rule, part)), every countable part's fresh state and
        the run's values by their profile over every countable part (`TokenRun.profiles`)."""
        plain = [plain_states[i] for i in rules.plain]
        for r in rules.sliced:
            plain.extend(part_states[(r, j)] for j, p in enumerate(self.part_numbers[r]) if p is None)
        fresh = tuple(part_fresh[p] for p in rules.parts)
        counts: dict[Profile, int] = {}
        for profile, count in profiles.items():
            small = tuple(profile[p] for p in rules.parts)
            counts[small] = counts.get(small, 0) + count
        return (tuple(plain), fresh, rules.canonical(counts, False))

    # ------------------------------------------------------------ the question

    def check(self, rules: Rules, state: State) -> bool | None:
        """Whether some continuation from `state` satisfies every rule of the set (None: not
        decided within the question's budget, or the letters cannot settle it)."""
        key = (rules.plain, rules.sliced, state)
        if key in self._answers:
            return self._answers[key][0]
        why: list[str] = []
        path: list[tuple[SearchMove, Filling]] = []
        try:
            answer = self._decide(rules, state, why, path)
        except TooManyFillings as exc:
            answer, why = None, [str(exc)]
        if answer is None:
            self._why[key] = why[0] if why else "not decided"
        self._answers[key] = (answer, tuple(path) if answer is True or path else None)
        return answer

    def witness(self, rules: Rules, state: State) -> tuple[tuple[SearchMove, Filling], ...] | None:
        """The continuation `check` found from this state (after it answered): its calls, each a
        move of the set and a filling of its slots, all of them the set's own (not a subset's);
        None when it found none. Found also for a question left undecided because the set's
        atoms read places a per-value rule binds (`Rules.entangled`), which only a concrete
        reading of its values can settle (`policyc.runtime.witness`)."""
        found = self._answers.get((rules.plain, rules.sliced, state))
        return None if found is None else found[1]

    def why(self, rules: Rules, state: State) -> str:
        """Why the question was not decided (after `check` answered None)."""
        return self._why.get((rules.plain, rules.sliced, state), "not decided")

    def _decide(self, rules: Rules, state: State, why: list[str],
                path: list[tuple[SearchMove, Filling]]) -> bool | None:
        """`check`'s answer; `path` receives the continuation found, when one is."""
        if rules.lost(state):
            return False
        if rules.accepts(state, relaxed=False):
            return True
        moves, complete = rules.moves()
        if complete and self._one_value_dead(rules, state):
            return False
        certain = sum(1 for m in moves if m[5])
        budget = [self.budget]
        # calls some call certainly produces first: their witnesses are real
        answer = self._refine(rules, state, True, budget, why, path)
        if answer is True and rules.entangled is not None:
            why[:] = [f"a continuation was found, but {rules.entangled}: whether its values can make it true "
                      "was not decided"]
            return None
        if answer is not False:
            return answer
        if not complete:
            why.append("the guard combinations of some tool were not decided")
            return None
        if certain == len(moves):
            return False
        # no witness among certain calls; with every listed call, a "no" is still certain
        answer = self._refine(rules, state, False, budget, why)
        if answer is False:
            return False
        if answer is True:
            why[:] = ["a continuation needs guards the solver cannot see into"]
        return None

    def _refine(self, rules: Rules, state: State, certain_only: bool, budget: list[int],
                why: list[str], found_path: list[tuple[SearchMove, Filling]] | None = None) -> bool | None:
        """The refinement loop of the module's docstring, over the calls some call certainly
        produces (`certain_only`) or over every listed call. `budget`: states left, spent here;
        `found_path` receives the witness, as the set's calls, when one is found."""
        n_rules = len(rules.goals)
        subset = sorted(set(rules.failing(state)) or {0})
        relaxed = True
        kept: set[int] = set()  # rules (by position) whose parts a relaxed search tracks new values in
        while True:
            sub = self._subset(rules, subset)
            keep = _kept_parts(rules, subset, kept) if relaxed else frozenset()
            sub_state = self._restrict(rules, sub, state, subset, relaxed, keep)
            found: bool | None = False
            if not relaxed:  # a witness among the run's own values first: new ones add obligations
                found, path, spent, _ = self._search(sub, sub_state, False, min(budget[0], self.budget // 8),
                                                     certain_only, max_new=0)
                budget[0] -= spent
            elif keep:  # a witness whose every new value is tracked first: it is likelier real
                found, path, spent, _ = self._search(sub, sub_state, True, min(budget[0], self.budget // 8),
                                                     certain_only, keep=keep, overflow=False)
                budget[0] -= spent
            if not found:
                found, path, spent, cut = self._search(sub, sub_state, relaxed, budget[0], certain_only, keep=keep)
                budget[0] -= spent
            if found is None:
                why.append(f"a search beyond {self.budget} states")
                return None
            if found is False:
                if cut == FEW:
                    why.append(f"a call's slots read by per-value rules can be filled in more than {MAX_FILLINGS:,} "
                               "ways, and the few tried found no continuation")
                    return None
                if relaxed or not cut:
                    return False
                why.append(f"continuations with more than {self.max_new} new values were not searched")
                return None
            stepped: list[tuple[SearchMove, Filling]] = []
            ok, failed = self._replay(rules, state, sub, subset, path, certain_only, stepped)
            if ok:
                if found_path is not None:
                    found_path[:] = stepped
                return True
            grown = sorted(set(subset) | set(failed))
            if len(grown) > len(subset):
                subset = grown
                relaxed = True  # more rules: the cheap search again first
                continue
            if relaxed:
                # the witness failed only through new values (or `exists` parts): track new values
                # in the parts of the rules it failed, then in every part
                more = {i for i in failed if rules.goals[i][0] == "sliced"} - kept
                if more:
                    kept |= more
                    continue
                relaxed = False
                continue
            if len(subset) < n_rules:
                subset = list(range(n_rules))
                continue
            why.append("a witness could not be made concrete")
            return None

    def _one_value_dead(self, rules: Rules, state: State) -> bool:
        """Whether one value of the state (or none) cannot be brought to satisfy its rules
        together with the plain rules it shares tools with, whatever comes next: a search
        over those automata and that one value's instances alone (other values, new ones and
        parts the value was never named in left without obligations). Such a "no" is certain,
        and cheap: an opened ticket that owes its close, once a rule forbids every close, is
        found here."""
        plain, _, tokens = state
        for profile in [None] + [p for p, _ in tokens]:
            if not self._can_finish(rules, plain, profile):
                return True
        return False

    def _can_finish(self, rules: Rules, plain: tuple[int, ...], profile: Profile | None) -> bool:
        """`_one_value_dead`'s search for one value (None: the plain rules alone); True when
        it cannot tell within its budget of 2,000 states.

        Its answer is True when an accepting state is reachable or more than 2,000 states are,
        else False: a function of the view (`Rules.one_value_key`, shared by the sets that give
        it the same calls) and the start, memoised so. A search that ends False has seen every
        state reachable from its start, none accepting: every state it saw answers False too
        (it reaches fewer); one that reaches an accepting state answers True for every state
        on its way there. Both are kept, so a later question (the run one call further, a set
        with a rule fewer when a conflict is made minimal) starts from an answer."""
        tables_at, parts_at = rules.one_value_view(profile)
        start = (tuple(plain[k] for k in tables_at),
                 () if profile is None else tuple(profile[k] for k in parts_at))
        view = rules.one_value_key(tables_at, parts_at)
        known = self._finish.get(view)
        if known is None:
            known = {}
            remember(self._finish, view, known)
        found = known.get(start)
        if found is not None:
            return found
        tables = [rules.tables[k] for k in tables_at]
        violated = [rules.violated[k] for k in tables_at]
        shapes = [rules.shapes[k] for k in parts_at]
        forall = [j for j, k in enumerate(parts_at) if k in rules.simple_parts]
        # an instance lost for good dooms the value only in a rule that is that one `forall`
        # part: an `exists` part (or a part under `or`) may still be satisfied by another value
        bad = [rules.bad_entries[k] if k in rules.simple_parts else frozenset() for k in parts_at]
        calls = self._value_steps.get(view)
        if calls is None:
            steps = rules.one_value_moves(tables_at, parts_at)
            # per step, the automata its letters move (a letter that moves no state of an
            # automaton leaves it where it is, not violated: every state the search reaches
            # past its start has no violated automaton)
            moving = [tuple((j, x) for j, (k, x) in enumerate(zip(tables_at, letters)) if rules._table_moves(k, x))
                      for _, letters, _ in steps]
            calls = list(zip(steps, moving))
            remember(self._value_steps, view, calls)

        # the view's steps, kept across searches: per (automata's states, call), where the call
        # takes them (None: some automaton violated); per (value's entries, call), where it may
        # take them (none lost); whether states of the automata, entries of the value accept
        cache = self._value_next.get(view)
        if cache is None or len(cache[0]) + len(cache[1]) >= MEMO_LIMIT:
            cache = ({}, {}, {}, {})
            remember(self._value_next, view, cache)
        plain_next, part_next, plain_done, part_done = cache

        def done(p: tuple[int, ...], prof: tuple[int, ...]) -> bool:
            accepts = plain_done.get(p)
            if accepts is None:
                accepts = plain_done[p] = all(t.accepting[q] for t, q in zip(tables, p))
            if not accepts:
                return False
            accepts = part_done.get(prof)
            if accepts is None:
                accepts = part_done[prof] = all(not prof[j] & 1 or shapes[j].dfa.accepting[prof[j] >> 1] for j in forall)
            return accepts

        start_violated = any(v[q] for v, q in zip(violated, start[0]))
        if not parts_at and not start_violated:  # the plain rules alone: automata apart, searched apart
            if len(known) >= MEMO_LIMIT:
                known.clear()
            guide = self._guides.get(view)
            if guide is None:
                guide = _apart_guide(tables, violated, calls)
                remember(self._guides, view, guide)
            answer = known[start] = _apart_can_finish(tables, violated, calls, start[0], guide)
            return answer
        seen: dict[tuple[tuple[int, ...], tuple[int, ...]], Any] = {start: None}  # per state, the one before
        queue = deque([start])
        answer = False
        reached = None  # the state from which an accepting one was reached
        first = True
        while queue and not answer:
            here_plain, here = queue.popleft()
            if done(here_plain, here):
                answer, reached = True, (here_plain, here)
                break
            whole, first = first and start_violated, False  # a violated start: every automaton read
            for i, ((final, letters, named), moves) in enumerate(calls):
                after_plain: tuple[int, ...] | None
                if whole:
                    after_plain = tuple(t.delta[q][x] for t, q, x in zip(tables, here_plain, letters))
                    if any(v[q] for v, q in zip(violated, after_plain)):
                        continue
                elif not moves:
                    after_plain = here_plain
                else:
                    after_plain = plain_next.get((here_plain, i), _MISSING)
                    if after_plain is _MISSING:
                        stepped = list(here_plain)
                        for j, x in moves:
                            q = tables[j].delta[stepped[j]][x]
                            if violated[j][q]:
                                after_plain = None
                                break
                            stepped[j] = q
                        else:
                            after_plain = tuple(stepped)
                        plain_next[(here_plain, i)] = after_plain
                    if after_plain is None:
                        continue
                values = part_next.get((here, i))
                if values is None:
                    values = part_next[(here, i)] = tuple(
                        moved for moved in (tuple(2 * shapes[j].dfa.delta[e >> 1][x] + (e & 1 | d)
                                                  for j, (e, (x, d)) in enumerate(zip(here, part_letters)))
                                            for part_letters in named)
                        if not any(e in b for e, b in zip(moved, bad)))
                for moved in values:
                    if final:
                        if done(after_plain, moved):
                            answer, reached = True, (here_plain, here)
                            break
                        continue
                    nxt = (after_plain, moved)
                    if nxt not in seen:
                        if known.get(nxt):  # a state known to reach an accepting one
                            answer, reached = True, (here_plain, here)
                            break
                        if len(seen) >= 2000:
                            answer = True  # cannot tell: not dead
                            break
                        seen[nxt] = (here_plain, here)
                        queue.append(nxt)
                if answer:
                    break
        if len(known) >= MEMO_LIMIT:
            known.clear()
        if not answer:
            known.update(dict.fromkeys(seen, False))
        elif reached is None:
            known[start] = True
        else:
            at: Any = reached
            while at is not None:
                known[at] = True
                at = seen[at]
        return answer

    def _subset(self, rules: Rules, positions: Sequence[int]) -> Rules:
        n_plain = len(rules.plain)
        return self.rules(tuple(rules.plain[i] for i in positions if i < n_plain),
                          tuple(rules.sliced[i - n_plain] for i in positions if i >= n_plain))

    def _restrict(self, rules: Rules, sub: Rules, state: State, positions: Sequence[int], relaxed: bool,
                  keep: frozenset[int] = frozenset()) -> State:
        """A state of `rules` as a state of its subset `sub`."""
        plain, fresh, tokens = state
        table_at = _table_positions(rules)
        part_at = _part_positions(rules)
        sub_plain = tuple(plain[t] for i in positions for t in table_at[i])
        sub_parts = [p for i in positions for p in part_at[i]]
        sub_fresh = tuple(fresh[p] for p in sub_parts)
        counts: dict[Profile, int] = {}
        for profile, count in tokens:
            small = tuple(profile[p] for p in sub_parts)
            counts[small] = counts.get(small, 0) + count
        return (sub_plain, sub_fresh, sub.canonical(counts, relaxed, keep))

    def _search(self, rules: Rules, state: State, relaxed: bool, budget: int, certain_only: bool,
                max_new: int | None = None, keep: frozenset[int] = frozenset(),
                overflow: bool = True) -> tuple[bool | None, list[tuple[SearchMove, Filling]], int, str | None]:
        """Best first from `state` (nearest to satisfying the rules first, `Rules.distance`, then
        in the order found): (found, the
        witness's calls, states visited, what cut a branch: None, `NEW` (the limit on new
        values) or `FEW` (a call with too many ways to fill its slots, tried a few ways)). found
        is None past the budget. Every state reachable is visited before a "no". `max_new`:
        the new values a tracked continuation may introduce (`MAX_NEW_VALUES` by default);
        `keep`: the parts a relaxed search tracks new values in (`MAX_TRACKED_NEW` of them
        per continuation; more are tracked nowhere, or not introduced without `overflow`)."""
        limit = self.max_new if max_new is None else max_new
        moves = [m for m in rules.moves()[0] if m[5] or not certain_only]
        if rules.accepts(state, relaxed):
            return True, [], 1, None
        # per state: (the state before, the move and filling from it, new values used); None at the start
        parent: dict[State, tuple[Any, Any, Any, int]] = {state: (None, None, None, 0)}
        queue: list[tuple[int, int, State]] = [(0, 0, state)]
        order = 0
        cut: str | None = None
        while queue:
            _, _, here = heappop(queue)
            fresh_used = parent[here][3]
            allow_new = relaxed or fresh_used < limit
            witness = relaxed and sum(count for p, count in here[2] if len(p) > len(rules.shapes) and
                                      p[-1] == CANDIDATE) < len(rules.exists_parts)
            tracked = keep and sum(count for p, count in here[2]
                                   if len(p) > len(rules.shapes) and p[-1] == TRACKED) < MAX_TRACKED_NEW
            for move in moves:
                key, _, final, _, slots, _ = move
                optional = self.optional(key, slots)
                try:
                    ways: Iterable[Filling] = self.fillings(slots, here[2], optional, True, witness)
                except TooManyFillings:
                    ways, cut = few_fillings(slots, optional, True), FEW
                for filling in ways:
                    news = sum(1 for f, _ in filling if f == NEW)
                    if news and not allow_new:
                        cut = cut or NEW
                        continue
                    if news and keep and not tracked and not overflow:
                        continue
                    after = rules.step(here, move, filling, relaxed, keep, track_new=bool(tracked))
                    if after is None or after in parent:
                        continue
                    if rules.accepts(after, relaxed):
                        path = [(move, filling)]
                        back = here
                        while parent[back][0] is not None:
                            prev, m, f, _ = parent[back]
                            path.append((m, f))
                            back = prev
                        path.reverse()
                        return True, path, len(parent), cut
                    if final:
                        continue
                    if len(parent) >= budget:
                        return None, [], len(parent), cut
                    parent[after] = (here, move, filling, fresh_used + (0 if relaxed else news))
                    order += 1
                    heappush(queue, (rules.distance(after), order, after))
        return False, [], len(parent), cut

    def _replay(self, rules: Rules, state: State, sub: Rules, positions: Sequence[int],
                path: list[tuple[SearchMove, Filling]], certain_only: bool,
                stepped: list[tuple[SearchMove, Filling]] | None = None) -> tuple[bool, list[int]]:
        """Replay a witness found for a subset, tracked, on every rule of the set: (every rule
        satisfied at the end, the rules it failed). `stepped` receives the set's calls it made."""
        moves = [m for m in rules.moves()[0] if m[5] or not certain_only]
        by_sig: dict[tuple[str, bool], list[SearchMove]] = {}
        for m in moves:
            by_sig.setdefault((m[0], m[2]), []).append(m)
        part_at = _part_positions(rules)
        sub_parts = [p for i in positions for p in part_at[i]]
        here = state
        for (key, mask, final, _, _, _), filling in path:
            # the set's call that agrees with the subset's on the atoms the subset reads
            sub_bits = sub.relevant(key)
            candidates = [m for m in by_sig.get((key, final), ()) if m[1] & sub_bits == mask]
            lifted = self._lift_filling(rules, sub, here, sub_parts, filling, key)
            step_to = None
            for m in candidates:
                if lifted is None:
                    break
                step_to = rules.step(here, m, lifted, relaxed=False)
                if step_to is not None:
                    if stepped is not None:
                        stepped.append((m, lifted))
                    break
            if step_to is None:
                lost: list[int] = []
                for m in candidates if lifted is not None else ():
                    assert lifted is not None
                    reached = rules.step(here, m, lifted, relaxed=False, even_lost=True)
                    if reached is not None:
                        lost = rules.lost_rules(reached)
                        break
                return False, lost or self._blame(rules, here, key, positions)
            here = step_to
        failed = rules.failing(here)
        return not failed, failed

    def _lift_filling(self, rules: Rules, sub: Rules, state: State, sub_parts: list[int], filling: Filling,
                      key: str) -> Filling | None:
        """The subset's fillers as values of the whole set's state: a profile of the subset
        becomes a value of the set whose profile restricts to it (the first, in order)."""
        counts = dict(state[2])
        out: list[tuple[Any, frozenset[Slot]]] = []
        covered: set[Slot] = set()
        for filler, slots in filling:
            covered |= slots
            if filler in (NEW, ABSENT, WITNESS):
                out.append((ABSENT if filler == ABSENT else NEW, slots))
                continue
            candidate = len(filler) > len(sub_parts)  # a new value tracked in some parts: match those
            wanted = [(k, e) for k, e in enumerate(filler[:len(sub_parts)]) if not candidate or e >= 0]
            for profile in _order(counts):
                if counts[profile] > 0 and all(profile[sub_parts[k]] == e for k, e in wanted):
                    counts[profile] -= 1
                    out.append((profile, slots))
                    break
            else:
                if candidate or all(e < 0 for e in filler):  # a value the set never named: a new one does
                    out.append((NEW, slots))
                    continue
                return None
        rest = [s for s in rules.slots.get(key, ()) if s not in covered]
        for s in rest:
            out.append((NEW, frozenset((s,))))
        return tuple(sorted(out, key=repr))

    def _blame(self, rules: Rules, state: State, key: str, positions: Sequence[int]) -> list[int]:
        """The rules a lifted call could not be made for: those outside the subset that read
        the tool (or every rule outside it when none does)."""
        inside = set(positions)
        readers = []
        for i, goal in enumerate(rules.goals):
            if i in inside:
                continue
            tables = [goal[1]] if goal[0] == "plain" else [ref for kind, ref in goal[2] if kind == "dfa"]
            parts = [] if goal[0] == "plain" else [ref for kind, ref in goal[2] if kind == "part"]
            if any(key in rules.tables[t].alphabet.tools for t in tables) or \
                    any(key in rules.shapes[p].tools or key in rules.shapes[p].slots for p in parts):
                readers.append(i)
        return readers or [i for i in range(len(rules.goals)) if i not in inside]


def _apart_can_finish(tables: Sequence[DfaTable], violated: Sequence[Sequence[bool]],
                      calls: Sequence[tuple[ValueMove, tuple[tuple[int, int], ...]]], start: tuple[int, ...],
                      guide: Sequence[Sequence[Sequence[int]]] | None = None) -> bool:
    """`CountingSpace._can_finish` over automata alone (no value's parts), from a start where
    none is violated: True when a state with every automaton accepting (or one a final call
    takes there) is reachable, or more than 2,000 states are, else False; the answer of a
    breadth-first search over every automaton, whatever order the states are visited in.

    A call that does not end the run moves automata of one group only (groups joined by the
    calls that move several), so the reachable states are every combination of each group's,
    reached apart: there are as many as the product of the groups' counts, and a way to finish
    (ending now, or one final call) is open when each group reaches a state that finishes that
    way. Each group is searched best first, by how many calls its automata need at least, each
    alone, to finish (`_apart_guide`, which `guide` gives when computed already), and every
    state is checked against every way: a search ends at the first way every group has
    reached. A state no automaton of which is near its end is met last, not first, as a
    breadth-first search would among the many calls that move only counters."""
    group = list(range(len(tables)))

    def root(j: int) -> int:
        while group[j] != j:
            group[j] = group[group[j]]
            j = group[j]
        return j

    for (final, _, _), moves in calls:
        if not final:
            for j, _ in moves[1:]:
                group[root(j)] = root(moves[0][0])
    members: dict[int, list[int]] = {}
    for j in range(len(tables)):
        members.setdefault(root(j), []).append(j)
    ways = _finish_ways(calls)
    if guide is None:
        guide = _apart_guide(tables, violated, calls)
    searches = [_GroupSearch(tables, violated, js, calls, start, ways, guide) for js in members.values()]
    open_ways = set(range(len(ways)))
    while open_ways:
        for search in searches:
            if search.exhausted:
                open_ways &= search.found  # what an exhausted group has not reached, it never will
        if any(all(w in search.found for search in searches) for w in open_ways):
            return True
        moved = False
        for search in searches:
            if not search.exhausted and open_ways - search.found:
                search.expand()
                moved = True
                if len(search.seen) > 2000:
                    return True  # more than 2,000 states: cannot tell
        if not moved:
            break
    total = 1
    for search in searches:
        while search.expand():
            if len(search.seen) > 2000:
                return True
        total *= len(search.seen)
    return total > 2000  # more than 2,000 states: cannot tell


def _finish_ways(calls: Sequence[tuple[ValueMove, tuple[tuple[int, int], ...]]]) -> list[dict[int, int] | None]:
    """The ways a run may finish: ending now (None), or each final call, as the letters it
    moves automata by."""
    return [None] + [dict(moves) for (final, _, _), moves in calls if final]


#: A distance of `_apart_guide` for a state that cannot finish that way.
_FAR = 1 << 20


def _apart_guide(tables: Sequence[DfaTable], violated: Sequence[Sequence[bool]],
                 calls: Sequence[tuple[ValueMove, tuple[tuple[int, int], ...]]]) -> list[list[list[int]]]:
    """Per way to finish (`_finish_ways`), per automaton, per state: the fewest calls that do
    not end the run after which it finishes that way, stepped alone by the letters the calls
    give it (`_FAR`: never). A lower bound of each automaton's part of a search, which orders it."""
    letters: list[set[int]] = [set() for _ in tables]
    for (final, _, _), moves in calls:
        if not final:
            for j, x in moves:
                letters[j].add(x)
    back: list[list[list[int]]] = []
    for j, table in enumerate(tables):
        into: list[list[int]] = [[] for _ in table.delta]
        for q, row in enumerate(table.delta):
            for x in letters[j]:
                r = row[x]
                if not violated[j][r] and r != q:
                    into[r].append(q)
        back.append(into)
    out = []
    for way in _finish_ways(calls):
        per_table = []
        for j, table in enumerate(tables):
            far = [_FAR] * len(table.delta)
            frontier = []
            for q in range(len(table.delta)):
                if violated[j][q]:
                    continue
                if way is None or j not in way:
                    ends = table.accepting[q]
                else:
                    r = table.delta[q][way[j]]
                    ends = table.accepting[r] and not violated[j][r]
                if ends:
                    far[q] = 0
                    frontier.append(q)
            d = 0
            while frontier:
                d += 1
                nxt = []
                for r in frontier:
                    for q in back[j][r]:
                        if far[q] == _FAR:
                            far[q] = d
                            nxt.append(q)
                frontier = nxt
            per_table.append(far)
        out.append(per_table)
    return out


class _GroupSearch:
    """The search of one group of `_apart_can_finish`: the states seen, those not expanded yet
    by their distance to a finish (`_apart_guide`), and the ways to finish (by index) some
    state seen finishes."""

    __slots__ = ("tables", "violated", "js", "steps", "ways", "guide", "seen", "queue", "count", "found",
                 "exhausted")

    def __init__(self, tables: Sequence[DfaTable], violated: Sequence[Sequence[bool]], js: list[int],
                 calls: Sequence[tuple[ValueMove, tuple[tuple[int, int], ...]]], start: tuple[int, ...],
                 ways: Sequence[Mapping[int, int] | None], guide: Sequence[Sequence[Sequence[int]]]):
        self.tables, self.violated, self.js, self.ways = tables, violated, js, ways
        self.guide = [[guide[w][j] for j in js] for w in range(len(ways))]
        at = {j: i for i, j in enumerate(js)}
        # calls that move the group's automata alike are one step (the states reached are the same)
        self.steps = list(dict.fromkeys(tuple((at[j], x) for j, x in moves) for (final, _, _), moves in calls
                                        if not final and moves and moves[0][0] in at))
        first = tuple(start[j] for j in js)
        self.seen = {first}
        self.queue: list[tuple[int, int, tuple[int, ...]]] = []
        self.count = 0  # states queued so far: ties are broken by the order found
        self.found: set[int] = set()
        self.exhausted = False
        self._add(first)

    def _add(self, here: tuple[int, ...]) -> None:
        """Queue a state seen first, and note the ways to finish it opens."""
        best = _FAR * len(here) + 1
        for w, far in enumerate(self.guide):
            d = 0
            for q, row in zip(here, far):
                d += row[q]
            if d == 0:
                self.found.add(w)
            best = min(best, d)
        heappush(self.queue, (best, self.count, here))
        self.count += 1

    def expand(self) -> bool:
        """Expand the group's nearest state not expanded yet (False: there is none)."""
        if not self.queue:
            self.exhausted = True
            return False
        here = heappop(self.queue)[2]
        tables, violated, js, seen = self.tables, self.violated, self.js, self.seen
        for moves in self.steps:
            stepped = list(here)
            for i, x in moves:
                q = tables[js[i]].delta[stepped[i]][x]
                if violated[js[i]][q]:
                    break
                stepped[i] = q
            else:
                nxt = tuple(stepped)
                if nxt not in seen:
                    seen.add(nxt)
                    self._add(nxt)
        if not self.queue:
            self.exhausted = True
        return True


def uncounted(compiled: CompiledPolicy) -> dict[str, str]:
    """The rules with per-value parts the joint search does not read (a part that is not
    `PartShape.countable`), by name, in the policy's order, each with why (its first part's)."""
    from policyc.tables.product import tool_atoms

    sliced = [(r.name, t) for r in compiled.policy.rules
              if (t := compiled.table(r.name)) is not None and t.dfa is None]
    plain = [t.dfa for r in compiled.policy.rules if (t := compiled.table(r.name)) is not None and t.dfa is not None]
    pools = tool_atoms(plain, [p.alphabet for _, t in sliced for p in t.parts])
    out: dict[str, str] = {}
    for name, t in sliced:
        why = next((shape.why for p in t.parts if not isinstance(p, DfaTable)
                    and not (shape := PartShape(p, pools)).countable), None)
        if why is not None:
            out[name] = why
    return out


def _kept_parts(rules: Rules, subset: Sequence[int], kept: set[int]) -> frozenset[int]:
    """The parts (by position in the subset's state) of the kept rules."""
    out: list[int] = []
    at = 0
    for i in subset:
        goal = rules.goals[i]
        parts = [] if goal[0] == "plain" else [ref for kind, ref in goal[2] if kind == "part"]
        if i in kept:
            out.extend(range(at, at + len(parts)))
        at += len(parts)
    return frozenset(out)


def _table_positions(rules: Rules) -> list[list[int]]:
    """Per rule of the set (by position), its plain automata (by position in the state)."""
    out = []
    for goal in rules.goals:
        out.append([goal[1]] if goal[0] == "plain" else [ref for kind, ref in goal[2] if kind == "dfa"])
    return out


def _part_positions(rules: Rules) -> list[list[int]]:
    """Per rule of the set (by position), its sliced parts (by position in the state)."""
    return [[] if goal[0] == "plain" else [ref for kind, ref in goal[2] if kind == "part"] for goal in rules.goals]


# ---------------------------------------------------------------- a run's values


class TokenRun:
    """The values of one run by profile over every countable part (`CountingSpace.parts`),
    stepped with each executed call; values with one profile share a group. `key` numbers the
    run's multiset of profiles with its fresh states: two runs with one key are alike to every
    per-value rule (a gate's judgement of a call depends on the key and where the call's
    values sit, `pattern`)."""

    __slots__ = ("space", "fresh", "groups", "where", "key")

    def __init__(self, space: CountingSpace):
        self.space = space
        self.fresh = tuple(part.dfa.initial for part in space.parts)
        self.groups: dict[Profile, set[object]] = {}
        self.where: dict[object, Profile] = {}
        self.key = space.intern_run((), self.fresh)

    def profiles(self) -> dict[Profile, int]:
        return {p: len(members) for p, members in self.groups.items()}

    def step(self, key: str, mask: int, args: Mapping[str, Any], result: object) -> None:
        space = self.space
        named, absent = space.named(key, args, result)
        fresh = self.fresh
        moved_named = []
        for value, slots in named:
            profile = self.where.get(value)
            if profile is None:
                profile = space.unnamed_profile
            else:
                self._leave(value, profile)
            moved_named.append((value, space.move(profile, fresh, key, mask, slots, absent)))
        if not space.loops(key, mask, absent):
            old = self.groups
            self.groups = {}
            for profile, members in old.items():
                target = space.move(profile, fresh, key, mask, frozenset(), absent)
                group = self.groups.get(target)
                if group is None:
                    self.groups[target] = members
                else:
                    group |= members
                for value in members:
                    self.where[value] = target
            self.fresh = space.fresh_after(fresh, key, mask, absent)
        for value, profile in moved_named:
            if all(e < 0 for e in profile):
                continue
            self.where[value] = profile
            self.groups.setdefault(profile, set()).add(value)
        self.key = space.intern_run(tuple(sorted((p, len(m)) for p, m in self.groups.items())), self.fresh)

    def pattern(self, key: str, args: Mapping[str, Any]) -> tuple[object, ...]:
        """Where the values of a proposed call's arguments sit: per slot of the parts on the
        tool, the number of its value's profile (-1: a value the run has not named, -2: none),
        and which slots hold one same value."""
        space = self.space
        out: list[object] = []
        seen: dict[object, int] = {}
        for slot in space.arg_slots(key):
            value = slot_value(slot, args, UNDEF)
            if value is UNDEF:
                out.append(-2)
                continue
            k = value_key(value)
            profile = self.where.get(k)
            out.append((space.profile_id(profile) if profile is not None else -1, seen.setdefault(k, len(seen))))
        return tuple(out)

    def _leave(self, value: object, profile: Profile) -> None:
        group = self.groups[profile]
        group.discard(value)
        if not group:
            del self.groups[profile]
        del self.where[value]
