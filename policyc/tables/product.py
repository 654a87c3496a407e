"""The policy's rule automata as one lazily built product.

A joint state is the tuple of every compiled rule's DFA state; joint states are interned to
small integers and their transitions memoised, so stepping the whole policy on a call costs
the evaluation of that tool's guard atoms (shared by all rules) and one dictionary lookup,
whatever the number of rules.

A call's *mask* is the truth of every guard atom any rule attaches to its tool, one bit per
distinct atom (hash-consing makes an atom used by two rules one atom). Each rule projects
the mask onto its own atoms to find its letter. A projection the compiler proved
impossible marks the mask impossible.

A tool's *letters* are the masks some call can produce. When one rule's atoms cover a tool's
pool, they are that rule's letters (its compiler decided them); when several rules guard the
tool, the compiler decides the joint combinations (`JointLetters`, from
`policyc.automata.joint`, stored in the artifact); without them, every mask each rule accepts
is tried, which may include combinations no call produces. Nothing is ever enumerated as
2^n: a tool whose combinations were not decided has no letters, and says so.

The product is what the lint and the gate share: joint states, steps, letters, acceptance
and the groups of rules that can constrain one another. What only the gate needs at
proposal time (the letters a call without its result may turn out to be, the rules a tool
can concern, per-state bit masks, reading a call's atoms) is `policyc.runtime.proposals`.

`keys()` with `letters_of(key)` and `other_endings` list every kind of call the declared tools
allow, for the search of `policyc.tables.joint` and the gate's guidance: each tool some rule
mentions with each of its letters, and "any other tool" once for each way such a tool ends a
run or not (a declared tool no rule mentions). Two facts per tool say how far a search over
them can be trusted:
`letters_complete` (every letter is listed) and `letters_exact` (every listed letter is a
combination some call produces).

>>> from policyc.tables.dfa import Alphabet, DfaTable, ToolLetters
>>> ab = Alphabet((), {"a": ToolLetters((), {0: 0}, 0)}, other=1)
>>> called_a = DfaTable(ab, 0, ((1, 0), (1, 1)), (False, True), ("open", "satisfied"), (0, None), (1, 0))
>>> space = JointSpace([called_a], {"a": (), "b": ()}, frozenset())
>>> j = space.initial
>>> space.accepting(space.step(j, "b", 0)), space.accepting(space.step(j, "a", 0))
(False, True)
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping, Sequence

from policyc.ir import nodes as n
from policyc.ir.walk import subformulas
from policyc.tables.dfa import VIOLATED, Alphabet, DfaTable
from policyc.tables.shape import TableError, check_int, field, read_bool, read_list

OTHER = "\0other"   # the tool key of a call no rule mentions
UNTRACKED = -1      # a rule whose automaton was given a letter it cannot read
MAX_ENUMERATED_BITS = 12  # without decided combinations, masks of at most this many atoms are tried

Move = tuple[str, int, bool]  # (tool key, mask, whether the call ends the run)



@dataclass(frozen=True)
class JointLetters:
    """The satisfiable combinations of a tool's pooled guard atoms, decided by the compiler.

    `atoms`: the structural keys of the pool, in bit order (checked against the pool the
    product builds); `masks`: the satisfiable combinations, None when there were more than the
    compiler's budget; `exact`: every piece of every atom was understood."""

    atoms: tuple[str, ...]
    masks: tuple[int, ...] | None
    exact: bool

    def to_json(self) -> dict[str, Any]:
        return {"atoms": list(self.atoms), "masks": None if self.masks is None else list(self.masks),
                "exact": self.exact}

    @classmethod
    def from_json(cls, data: dict[str, Any], where: str = "joint") -> "JointLetters":
        """Read and check (`TableError` naming the field): atom keys are strings, each mask fits them."""
        atoms = read_list(data, "atoms", where)
        if not all(isinstance(a, str) for a in atoms):
            raise TableError(f"{where}.atoms: must be structural keys (strings)")
        masks = field(data, "masks", where)
        if masks is not None and not isinstance(masks, list):
            raise TableError(f"{where}.masks: must be a list or null")
        return cls(tuple(atoms), None if masks is None else tuple(check_int(m, f"{where}.masks", 0, 1 << len(atoms))
                                                                 for m in masks), read_bool(data, "exact", where))


def tool_atoms(tables: Sequence[DfaTable], extra: Sequence[Alphabet] = ()) -> dict[str, tuple[n.Term, ...]]:
    """Per tool some rule mentions: every distinct guard atom of every rule on it, in order of
    first appearance (rule by rule), then the atoms of the `extra` alphabets (the parts of
    rules with quantified parts) that do not read their variable. The product numbers a
    call's mask by this order."""
    atoms: dict[str, list[n.Term]] = {}
    for ab in [t.alphabet for t in tables] + list(extra):
        for tool, letters in ab.tools.items():
            pool = atoms.setdefault(tool, [])
            for i in letters.atoms:
                atom = ab.atoms[i]
                if atom not in pool and (ab.var is None or not _reads_var(atom, ab.var)):
                    pool.append(atom)
    return {tool: tuple(pool) for tool, pool in atoms.items()}


def _reads_var(atom: n.Node, var: str) -> bool:
    return any(isinstance(s, n.Var) and s.name == var for s in subformulas(atom))


def spread(local: int, positions: Sequence[int]) -> int:
    """A mask over a few atoms as a mask over a larger pool: bit b goes to `positions[b]`.

    >>> bin(spread(0b101, (1, 4, 6)))
    '0b1000010'
    """
    out = 0
    for b, position in enumerate(positions):
        if local >> b & 1:
            out |= 1 << position
    return out


class Projector:
    """A rule's letter on a tool, read off a mask of the tool's pooled atoms."""

    __slots__ = ("bits", "letters")

    def __init__(self, bits: tuple[int, ...], letters: Mapping[int, int]):
        self.bits = bits  # per local atom, its position in the pool
        self.letters = letters

    def letter(self, mask: int) -> int | None:
        local = 0
        for b, g in enumerate(self.bits):
            if mask >> g & 1:
                local |= 1 << b
        return self.letters.get(local)


def mentioned_tools(tables: Sequence[DfaTable]) -> list[frozenset[str]]:
    """Per rule, the tools its alphabet names."""
    return [frozenset(t.alphabet.tools) for t in tables]


def is_local(table: DfaTable) -> bool:
    """Whether a call to a tool the rule does not mention never moves it."""
    return all(row[table.alphabet.other] == q for q, row in enumerate(table.delta))


def affected_rules(mentions: Sequence[frozenset[str]], local: Sequence[bool],
                   keys: Iterable[str]) -> dict[str, tuple[int, ...]]:
    """Per tool key (and `OTHER`), the rules a call may move: the local rules that mention
    the tool, and every rule that is not local."""
    nonlocal_rules = tuple(i for i, loc in enumerate(local) if not loc)
    out = {key: tuple(sorted({i for i, m in enumerate(mentions) if key in m} | set(nonlocal_rules))) for key in keys}
    out[OTHER] = nonlocal_rules
    return out


def neighbour_rules(mentions: Sequence[frozenset[str]], local: Sequence[bool],
                    terminal: frozenset[str]) -> list[tuple[int, ...]]:
    """Per rule, the rules that may constrain it: they share a tool, one is not local, or both
    name a terminal tool (only one call can end the run). Rules that cannot are independent:
    continuations satisfying each can be run one after the other."""
    ends = [bool(m & terminal) for m in mentions]
    return [tuple(j for j in range(len(mentions)) if j != i and (
        not local[i] or not local[j] or mentions[i] & mentions[j] or ends[i] and ends[j]))
        for i in range(len(mentions))]


class JointSpace:
    """Interned joint states of a list of DFAs, with memoised transitions: the product, shared
    by the lint and the gate. Its memo tables (joint state numbers, transitions, letters,
    groups) hold only what any caller computes alike, so no answer depends on what was asked
    before."""

    def __init__(self, tables: list[DfaTable], tools: Mapping[str, object], terminal: frozenset[str],
                 joint: Mapping[str, JointLetters] | None = None, extra: Sequence[Alphabet] = ()):
        self.tables = tables
        self.terminal = terminal
        self.atoms = tool_atoms(tables, extra)
        # the compiler's joint letters, used only when they describe this very pool
        self.joint = {tool: j for tool, j in (joint or {}).items()
                      if tool in self.atoms and j.atoms == tuple(a.skey for a in self.atoms[tool])}
        # per rule, per tool: the global bit of each local atom, and the rule's letter table
        self._proj: list[dict[str, tuple[tuple[int, ...], Mapping[int, int]]]] = []
        for table in tables:
            ab = table.alphabet
            self._proj.append({tool: (tuple(self.atoms[tool].index(ab.atoms[i]) for i in letters.atoms),
                                      letters.letters)
                               for tool, letters in ab.tools.items()})
        self.declared = tuple(tools)
        # a rule is *local* when a call to a tool it does not mention never moves it; a call
        # then only moves the local rules that mention its tool, and the non-local ones
        self.mentions = mentioned_tools(tables)
        self.local = [is_local(t) for t in tables]
        self.affected = affected_rules(self.mentions, self.local, self.atoms)
        self.neighbours = neighbour_rules(self.mentions, self.local, terminal)
        self._neighbour_bits = [sum(1 << j for j in near) for near in self.neighbours]
        self.violated = [tuple(v == VIOLATED for v in t.verdict) for t in tables]
        self._lock = threading.Lock()
        self._ids: dict[tuple[int, ...], int] = {}
        self.states: list[tuple[int, ...]] = []
        self._step: dict[tuple[int, str, int], int | None] = {}
        self._columns: dict[tuple[str, int], tuple[tuple[int, tuple[int, ...]], ...] | None] = {}
        self._letters_memo: dict[str, tuple[tuple[int, ...], bool, bool]] = {}
        self._groups: dict[tuple[int, tuple[int, ...]], tuple[tuple[int, tuple[int, ...]], ...]] = {}
        self.initial = self.intern(tuple(t.initial for t in tables))

    # ------------------------------------------------------------ joint states

    def intern(self, states: tuple[int, ...]) -> int:
        """The number of a joint state (new states are numbered under a lock: runs in several
        threads share the table; every other memo table holds values any thread would compute
        alike, so it needs none)."""
        jid = self._ids.get(states)
        if jid is None:
            with self._lock:
                jid = self._ids.get(states)
                if jid is None:
                    jid = len(self.states)
                    self.states.append(states)  # before the number is published in `_ids`
                    self._ids[states] = jid
        return jid

    def rule_state(self, jid: int, rule: int) -> int:
        return self.states[jid][rule]

    def verdict(self, jid: int, rule: int) -> str:
        s = self.states[jid][rule]
        return "untracked" if s == UNTRACKED else self.tables[rule].verdict[s]

    def accepting(self, jid: int, rules: Iterable[int] | None = None) -> bool:
        st = self.states[jid]
        idx = range(len(self.tables)) if rules is None else rules
        return all(st[i] != UNTRACKED and self.tables[i].accepting[st[i]] for i in idx)

    # ------------------------------------------------------------ calls to letters

    def tool_key(self, tool: str) -> str:
        return tool if tool in self.atoms else OTHER

    def letter(self, rule: int, key: str, mask: int) -> int | None:
        entry = self._proj[rule].get(key)
        if entry is None:
            return self.tables[rule].alphabet.other
        bits, letters = entry
        local = 0
        for b, g in enumerate(bits):
            if mask >> g & 1:
                local |= 1 << b
        return letters.get(local)

    def projectors(self, rule: int) -> dict[str, Projector]:
        """The rule's letters per tool, read off a pool mask (`policyc.tables.counting`)."""
        return {tool: Projector(bits, letters) for tool, (bits, letters) in self._proj[rule].items()}

    def projector(self, rule: int, key: str) -> Projector | None:
        """The rule's letters on one tool (None: the rule does not mention it)."""
        entry = self._proj[rule].get(key)
        return None if entry is None else Projector(*entry)

    # ------------------------------------------------------------ transitions

    def columns(self, key: str, mask: int) -> tuple[tuple[int, tuple[int, ...]], ...] | None:
        """(rule, its transition column) for every rule a call with this mask may move;
        None when some rule's compiler ruled the mask out."""
        memo = (key, mask)
        if memo in self._columns:
            return self._columns[memo]
        out: list[tuple[int, tuple[int, ...]]] = []
        for i in self.affected.get(key, ()):
            letter = self.letter(i, key, mask)
            if letter is None:
                self._columns[memo] = None
                return None
            column = tuple(row[letter] for row in self.tables[i].delta)
            if any(t != q for q, t in enumerate(column)):  # a column that moves no state is left out
                out.append((i, column))
        found = self._columns[memo] = tuple(out)
        return found

    def step(self, jid: int, key: str, mask: int) -> int | None:
        """The joint state after a call with this mask; None when the mask is impossible."""
        memo = (jid, key, mask)
        out = self._step.get(memo, -2)
        if out != -2:
            return out
        moves = self.columns(key, mask)
        if moves is None:
            self._step[memo] = None
            return None
        states = self.states[jid]
        nxt = None
        for i, column in moves:
            s = states[i]
            if s != UNTRACKED:
                t = column[s]
                if t != s:
                    if nxt is None:
                        nxt = list(states)
                    nxt[i] = t
        out = jid if nxt is None else self.intern(tuple(nxt))
        self._step[memo] = out
        return out

    def advance(self, jid: int, key: str, mask: int) -> int:
        """Step on an executed call; a rule that cannot read its letter stops being tracked."""
        out = self.step(jid, key, mask)
        if out is not None:
            return out
        nxt = list(self.states[jid])
        for i in self.affected.get(key, ()):
            letter = self.letter(i, key, mask)
            s = nxt[i]
            nxt[i] = UNTRACKED if s == UNTRACKED or letter is None else self.tables[i].delta[s][letter]
        return self.intern(tuple(nxt))

    def groups(self, rules: Iterable[int], seeds: Iterable[int]) -> list[tuple[int, ...]]:
        """The groups of `rules` that can constrain one another (connected by `neighbours`),
        each containing one of `seeds`, sorted: independent questions for a joint search."""
        pool = 0
        for i in rules:
            pool |= 1 << i
        return [group for _, group in self.group_bits(pool, tuple(seeds))]

    def group_bits(self, pool: int, seeds: tuple[int, ...]) -> tuple[tuple[int, tuple[int, ...]], ...]:
        """`groups` of the rules in the bit mask `pool`, each as (bit mask, sorted rules).
        Sets of rules are bit masks here: a group grows by whole neighbourhoods at a time.
        Memoised per (pool, seeds): the open rules change far less often than the states."""
        memo = (pool, seeds)
        found = self._groups.get(memo)
        if found is None:
            found = self._groups[memo] = self._group_bits(pool, seeds)
        return found

    def _group_bits(self, pool: int, seeds: tuple[int, ...]) -> tuple[tuple[int, tuple[int, ...]], ...]:
        near = self._neighbour_bits
        out = []
        placed = 0
        for seed in seeds:
            bit = 1 << seed
            if not pool & bit or placed & bit:
                continue
            group = frontier = bit
            while frontier:
                reach = 0
                while frontier:
                    low = frontier & -frontier
                    reach |= near[low.bit_length() - 1]
                    frontier ^= low
                frontier = reach & pool & ~group
                group |= frontier
            placed |= group
            out.append((group, tuple(i for i in range(group.bit_length()) if group >> i & 1)))
        return tuple(out)

    def guards(self, rule: int, key: str) -> bool:
        """Whether the rule puts guard atoms on the tool."""
        letters = self.tables[rule].alphabet.tools.get(key)
        return letters is not None and bool(letters.atoms)

    def owner_masks(self, key: str, rule: int) -> tuple[int, ...]:
        """The rule's own letters on the tool, as masks of the tool's pool (the other rules'
        atoms false): what a search over rules of which only this one guards the tool needs."""
        bits, letters = self._proj[rule][key]
        return tuple(sorted(spread(local, bits) for local in letters))

    def letters_of(self, key: str) -> tuple[int, ...]:
        """The tool's letters: the masks some call can produce (see the module's docstring)."""
        return self._letters(key)[0]

    def letters_complete(self, key: str) -> bool:
        """Whether `letters_of(key)` lists every mask some call can produce."""
        return key == OTHER or self._letters(key)[1]

    def letters_exact(self, key: str) -> bool:
        """Whether every mask `letters_of(key)` lists is one some call can produce."""
        return key == OTHER or self._letters(key)[2]

    def _letters(self, key: str) -> tuple[tuple[int, ...], bool, bool]:
        """(letters, complete, exact), memoised per tool."""
        found = self._letters_memo.get(key)
        if found is not None:
            return found
        pool = self.atoms.get(key, ())
        guarded = [i for i, t in enumerate(self.tables) if key in t.alphabet.tools and t.alphabet.tools[key].atoms]
        valid: Callable[[int], bool] = lambda m: all(self.letter(i, key, m) is not None for i in guarded)  # noqa: E731
        owner = next((i for i in guarded if len(self.tables[i].alphabet.tools[key].atoms) == len(pool)), None)
        joint = self.joint.get(key)
        if not pool:
            found = ((0,), True, True)
        elif joint is not None and joint.masks is not None:
            found = (tuple(m for m in joint.masks if valid(m)), True, joint.exact)
        elif owner is not None:  # one rule's compiler decided every combination of the pool
            found = (tuple(m for m in self.owner_masks(key, owner) if valid(m)), True, True)
        elif len(pool) <= MAX_ENUMERATED_BITS:  # combinations not decided together: try each mask
            found = (tuple(m for m in range(1 << len(pool)) if valid(m)), True, False)
        else:
            found = ((), False, False)
        if found[2] and not all(self.tables[i].alphabet.exact for i in guarded):
            found = (found[0], found[1], False)
        self._letters_memo[key] = found
        return found

    def keys(self) -> tuple[str, ...]:
        """Every distinct kind of call: each tool some rule mentions, then any other tool."""
        return tuple(self.atoms) + (OTHER,)

    @property
    def other_endings(self) -> tuple[bool, ...]:
        """For "any other tool": whether such a call can go on (False) and end a run (True).
        With no declared tools (bare tables), any other tool may be called and go on."""
        if not self.declared:
            return (False,)
        return tuple(sorted({t in self.terminal for t in self.declared if t not in self.atoms}))
