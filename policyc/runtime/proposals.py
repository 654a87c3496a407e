"""What the gate asks of the product when a call is proposed, memoised beside it.

The product (`policyc.tables.product.JointSpace`) is shared with the lint: joint states,
steps, letters, acceptance, groups. A proposal needs more, and only the gate needs it:

- reading a call's guard atoms (`mask`), without its result when it is only proposed;
- the letters a proposed call may turn out to be once its result exists (`completions` in
  the product's pool, `proposal_letters` in one rule's own alphabet) and, per rule, the
  states it may then lead to (`proposal_moves`);
- the rules a call to a tool can concern (`scope`, `scope_reader`): a non-final judgement
  depends on their states alone;
- per joint state, the rules not accepting and the rules still open, as bit masks (`unmet`,
  `open_bits`), carried along each step from a state that has them.

Every table here is a function of the product and the question (a tool, a mask, a joint
state), never of what was asked before, so no decision depends on what a cache saw. Runs in
several threads share one `Proposals`: two threads may compute an entry twice, alike.

>>> from policyc.tables.dfa import Alphabet, DfaTable, ToolLetters
>>> from policyc.tables.product import JointSpace
>>> ab = Alphabet((), {"a": ToolLetters((), {0: 0}, 0)}, other=1)
>>> called_a = DfaTable(ab, 0, ((1, 0), (1, 1)), (False, True), ("open", "satisfied"), (0, None), (1, 0))
>>> proposals = Proposals(JointSpace([called_a], {"a": (), "b": ()}, frozenset()))
>>> j = proposals.space.initial
>>> proposals.unmet(j), proposals.unmet(proposals.step(j, "a", 0))
(1, 0)
"""

from __future__ import annotations

from operator import itemgetter
from typing import Any, Callable, Iterable, Mapping

from policyc.ir.ops import UNDEF
from policyc.tables.atoms import reads_result
from policyc.tables.dfa import SATISFIED, VIOLATED
from policyc.tables.masks import MaskReader
from policyc.tables.product import OTHER, UNTRACKED, JointSpace

Moving = tuple[tuple[tuple[int, tuple[tuple[int, ...], ...]], ...], int]  # see `Proposals.proposal_moves`


def _nothing(states: tuple[int, ...]) -> tuple[()]:
    """The states of an empty scope."""
    return ()


def scope_of(space: JointSpace, key: str) -> tuple[int, ...] | None:
    """The rules that a call to this tool can concern: those it may move and every rule
    connected to them by `neighbours` (the only rules a conflict it starts can involve);
    None when that is every rule."""
    seen: set[int] = set(space.affected.get(key, ()))
    todo = list(seen)
    while todo:
        for j in space.neighbours[todo.pop()]:
            if j not in seen:
                seen.add(j)
                todo.append(j)
    return None if len(seen) == len(space.tables) else tuple(sorted(seen))


class Proposals:
    """The gate's proposal-time tables over one product (see the module's docstring)."""

    def __init__(self, space: JointSpace, externs: Mapping[str, Callable[..., object]] | None = None):
        self.space = space
        self.externs = dict(externs or {})
        tables = space.tables
        #: per tool, the bits of its pool's atoms that read the result
        self.result_bits = {tool: sum(1 << b for b, a in enumerate(pool) if reads_result(a))
                            for tool, pool in space.atoms.items()}
        #: per rule, the tool of each of its letters (None: any other tool)
        self.letter_tools = [[t.alphabet.tool_of(letter) for letter in range(t.alphabet.size)] for t in tables]
        opened = [tuple(v not in (SATISFIED, VIOLATED) for v in t.verdict) for t in tables]
        # per rule and state, the rule's bit in a joint state's `unmet` (not accepting) and
        # `open_bits` (neither won nor lost for good) masks
        self._unmet_bit = [tuple(0 if a else 1 << i for a in t.accepting) for i, t in enumerate(tables)]
        self._open_bit = [tuple(1 << i if o else 0 for o in row) for i, row in enumerate(opened)]
        self._masks: dict[int, tuple[int, int]] = {}  # per joint state: (unmet, open_bits)
        self._open_sets: dict[int, frozenset[int]] = {}
        self._accepting: dict[int, tuple[bool | None, ...]] = {}
        self._readers: dict[str, MaskReader] = {}
        self._completions: dict[tuple[str, int], tuple[int, ...]] = {}
        self._proposals: dict[tuple[int, str, int], tuple[int, ...]] = {}
        self._moving: dict[tuple[str, int], Moving] = {}
        self._scopes: dict[str, tuple[int, ...] | None] = {}
        self._scope_readers: dict[str, Callable[[tuple[int, ...]], object] | None] = {}
        self._starts: tuple[list[int], list[int]] | None = None  # `start`'s plan

    # ------------------------------------------------------------ runs

    def start(self, context: Any = None) -> int:
        """The joint state a run starts in: each rule's start for the run's constants
        (`DfaTable.start_state`; `context` a `RunContext`, None: the constants unknown)."""
        space = self.space
        if context is None:
            return space.initial
        if self._starts is None:  # each rule's start, and the rules whose start reads the constants
            self._starts = ([t.initial for t in space.tables], [i for i, t in enumerate(space.tables) if t.initials])
        states, reading = self._starts
        states = list(states)
        tables = space.tables
        for i in reading:
            states[i] = tables[i].start_state(context)
        return space.intern(tuple(states))

    def mask(self, tool: str, args: Mapping[str, Any], result: object = UNDEF, known_only: bool = False, env: Any = None,
             skip: int = 0) -> int:
        """The truth of the tool's atoms for a call (without the result's when `known_only`;
        `env`: the run's constants and history, `RunContext.env`; `skip`: atoms left false)."""
        reader = self._readers.get(tool)
        if reader is None:
            pool = self.space.atoms.get(tool)
            if not pool:
                return 0
            reader = self._readers[tool] = MaskReader(pool, self.externs)
        return reader.read(args, result, skip | self.result_bits[tool] if known_only else skip, env)

    def step(self, jid: int, key: str, mask: int) -> int | None:
        """`JointSpace.step`, the new state's bit masks carried from `jid`'s when it has them."""
        out = self.space.step(jid, key, mask)
        if out is not None and out != jid:
            self._carry(jid, out, key)
        return out

    def advance(self, jid: int, key: str, mask: int) -> int:
        """`JointSpace.advance` (an executed call), the bit masks carried as by `step`."""
        out = self.space.advance(jid, key, mask)
        if out != jid:
            self._carry(jid, out, key)
        return out

    def run_calls(self, calls: Iterable[Any], context: Any = None) -> int:
        """The joint state after executed calls (objects with name, args and result), from the
        start state: the offline path, one memo lookup per call when warm. `context`: the
        run's constants and history, fed with each call."""
        space = self.space
        jid, atoms = self.start(context), space.atoms
        env = None if context is None else context.env
        record = None if context is None else context.record
        for call in calls:
            name = call.name
            key = name if name in atoms else OTHER
            mask = self.mask(name, call.args, call.result, env=env) if atoms.get(name) else 0
            jid = space.advance(jid, key, mask)
            if record is not None:
                record(name, call.args, call.result)
        return jid

    # ------------------------------------------------------------ joint states as bit masks

    def unmet(self, jid: int) -> int:
        """The rules not accepting in joint state `jid` (untracked ones included), as bits."""
        found = self._masks.get(jid)
        return (found if found is not None else self._fill(jid))[0]

    def open_bits(self, jid: int) -> int:
        """The rules open (neither won nor lost for good, tracked) in joint state `jid`, as bits."""
        found = self._masks.get(jid)
        return (found if found is not None else self._fill(jid))[1]

    def _fill(self, jid: int) -> tuple[int, int]:
        unmet = opened = 0
        for i, s in enumerate(self.space.states[jid]):
            if s == UNTRACKED:
                unmet |= 1 << i
            else:
                unmet |= self._unmet_bit[i][s]
                opened |= self._open_bit[i][s]
        found = self._masks[jid] = (unmet, opened)  # any thread computes the same
        return found

    def _carry(self, parent: int, jid: int, key: str) -> None:
        """A new state's masks from its parent's: only the rules a call to `key` may move can
        differ (`JointSpace.affected`; an untracked rule is one of them)."""
        if jid in self._masks:
            return
        known = self._masks.get(parent)
        if known is None:
            return
        unmet, opened = known
        before, after = self.space.states[parent], self.space.states[jid]
        for i in self.space.affected.get(key, ()):
            s = after[i]
            if s == before[i]:
                continue
            bit = 1 << i
            if s == UNTRACKED:
                unmet, opened = unmet | bit, opened & ~bit
            else:
                unmet = unmet & ~bit | self._unmet_bit[i][s]
                opened = opened & ~bit | self._open_bit[i][s]
        self._masks[jid] = (unmet, opened)

    def open_rules(self, jid: int) -> frozenset[int]:
        """The rules open in joint state `jid` (memoised)."""
        out = self._open_sets.get(jid)
        if out is None:
            bits = self.open_bits(jid)
            out = self._open_sets[jid] = frozenset(i for i in range(bits.bit_length()) if bits >> i & 1)
        return out

    def is_open(self, jid: int, rule: int) -> bool:
        """Neither lost nor won for good (nor untracked) in joint state `jid`."""
        return bool(self.open_bits(jid) >> rule & 1)

    def accepting_each(self, jid: int) -> tuple[bool | None, ...]:
        """Per rule: does the trace ending in `jid` satisfy it (None: untracked)? Memoised."""
        found = self._accepting.get(jid)
        if found is None:
            st = self.space.states[jid]
            found = self._accepting[jid] = tuple(
                None if s == UNTRACKED else bool(t.accepting[s]) for s, t in zip(st, self.space.tables))
        return found

    # ------------------------------------------------------------ a call without its result

    def completions(self, key: str, known: int) -> tuple[int, ...] | None:
        """Every letter a proposed call whose argument atoms are `known` may turn out to be once
        its result exists (None: the tool's letters are not all known; see `letters_complete`)."""
        space = self.space
        if not space.letters_complete(key):
            return None
        memo = (key, known)
        found = self._completions.get(memo)
        if found is None:
            rbits = self.result_bits.get(key, 0)
            found = self._completions[memo] = tuple(m for m in space.letters_of(key) if m & ~rbits == known)
        return found

    def proposal_letters(self, rule: int, key: str, known: int) -> tuple[int, ...]:
        """The letters of the rule's own alphabet a proposed call may turn out to be, given the
        truth `known` of the tool's atoms that do not read the result (a pool mask). Memoised."""
        memo = (rule, key, known)
        found = self._proposals.get(memo)
        if found is None:
            ab = self.space.tables[rule].alphabet
            letters = ab.tools.get(key)
            projector = self.space.projector(rule, key)
            if letters is None or projector is None:
                found = (ab.other,)
            else:
                rbits = letters.result_bits
                local = 0
                for b, g in enumerate(projector.bits):
                    if known >> g & 1:
                        local |= 1 << b
                found = tuple(sorted(x for m, x in letters.letters.items() if m & ~rbits == local & ~rbits))
            self._proposals[memo] = found
        return found

    def proposal_moves(self, key: str, known: int) -> Moving:
        """For a proposed call whose argument atoms are `known`: every rule that the call may
        move out of some state, with, per state of the rule, the states the call may lead it to
        (distinct, sorted; whatever the result turns out to be); and the bit mask of the rules
        that have no letter for the call (a combination their compiler ruled out). A rule not
        listed stays where it is. Memoised per (tool, known)."""
        memo = (key, known)
        found = self._moving.get(memo)
        if found is None:
            moving = []
            blind = 0
            for i in self.space.affected.get(key, ()):
                letters = self.proposal_letters(i, key, known)
                if not letters:
                    blind |= 1 << i
                    continue
                nexts = tuple(tuple(sorted({row[x] for x in letters})) for row in self.space.tables[i].delta)
                if any(reached != (q,) for q, reached in enumerate(nexts)):
                    moving.append((i, nexts))
            found = self._moving[memo] = (tuple(moving), blind)
        return found

    # ------------------------------------------------------------ the rules a tool can concern

    def scope(self, key: str) -> tuple[int, ...] | None:
        """`scope_of` the tool, memoised per tool. A non-final proposal's judgement depends on
        the states of these rules alone."""
        if key not in self._scopes:
            self._scopes[key] = scope_of(self.space, key)
        return self._scopes[key]

    def scope_reader(self, key: str) -> Callable[[tuple[int, ...]], object] | None:
        """A function reading the states of the tool's `scope` out of a joint state (one
        value, in a fixed form, per combination of them); None when the scope is every rule.
        Memoised per tool."""
        if key in self._scope_readers:
            return self._scope_readers[key]
        scope = self.scope(key)
        found = self._scope_readers[key] = None if scope is None else itemgetter(*scope) if scope else _nothing
        return found


__all__ = ["Proposals", "scope_of"]
