"""The policy's rule automata as one lazily built product.

A joint state is the tuple of every compiled rule's DFA state; joint states are interned to
small integers and their transitions memoised, so stepping the whole policy on a call costs
the evaluation of that tool's guard atoms (shared by all rules) and one dictionary lookup,
whatever the number of rules.

A call's *mask* is the truth of every guard atom any rule attaches to its tool, one bit per
distinct atom (hash-consing makes an atom used by two rules one atom). Each rule projects
the mask onto its own atoms to find its letter. A projection the compiler proved
impossible marks the mask impossible.

`moves()` lists every kind of call the declared tools allow, for the searches of
`policyc.tables.pairs`, `.joint` and the gate's guidance: each tool some rule mentions with
each of its masks, and "any other tool" once for each way such a tool ends a run or not
(a declared tool no rule mentions). Two facts say how far a search over them can be
trusted: `moves_complete` (no tool has more atoms than the masks enumerated) and
`moves_exact` (every mask is a combination some call can produce: on each tool, one rule's
atoms cover every other rule's, so that rule's compiler decided the combinations).

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
from itertools import product as cartesian
from typing import Iterable, Mapping

from policyc.ir import nodes as n
from policyc.ir.data import DataEnv, eval_term
from policyc.ir.ops import UNDEF, truthy
from policyc.tables.atoms import reads_result
from policyc.tables.dfa import SATISFIED, VIOLATED, DfaTable

OTHER = "\0other"   # the tool key of a call no rule mentions
UNTRACKED = -1      # a rule whose automaton was given a letter it cannot read
MAX_RESULT_BITS = 8  # proposals with more unknown atoms are judged rule by rule
MAX_MASK_BITS = 2 * MAX_RESULT_BITS  # tools with more atoms have no enumerated masks

Move = tuple[str, int, bool]  # (tool key, mask, whether the call ends the run)


class JointSpace:
    """Interned joint states of a list of DFAs, with memoised transitions."""

    def __init__(self, tables: list[DfaTable], tools: Mapping[str, object], terminal: frozenset[str],
                 externs: Mapping | None = None):
        self.tables = tables
        self.terminal = terminal
        self.externs = dict(externs or {})
        atoms: dict[str, list[n.Term]] = {}
        for table in tables:
            ab = table.alphabet
            for tool, letters in ab.tools.items():
                pool = atoms.setdefault(tool, [])
                for i in letters.atoms:
                    if ab.atoms[i] not in pool:
                        pool.append(ab.atoms[i])
        self.atoms = {tool: tuple(pool) for tool, pool in atoms.items()}
        self.result_bits = {tool: sum(1 << b for b, a in enumerate(pool) if reads_result(a))
                            for tool, pool in self.atoms.items()}
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
        self.mentions = [frozenset(t.alphabet.tools) for t in tables]
        self.local = [all(row[t.alphabet.other] == q for q, row in enumerate(t.delta)) for t in tables]
        nonlocal_rules = tuple(i for i, loc in enumerate(self.local) if not loc)
        self.affected: dict[str, tuple[int, ...]] = {
            key: tuple(sorted({i for i, m in enumerate(self.mentions) if key in m} | set(nonlocal_rules)))
            for key in self.atoms}
        self.affected[OTHER] = nonlocal_rules
        # rules that may constrain one another: they share a tool, or one is not local
        self.neighbours: list[tuple[int, ...]] = [
            tuple(j for j in range(len(tables)) if j != i and (
                not self.local[i] or not self.local[j] or self.mentions[i] & self.mentions[j]))
            for i in range(len(tables))]
        self._open = [tuple(v not in (SATISFIED, VIOLATED) for v in t.verdict) for t in tables]
        self.violated = [tuple(v == VIOLATED for v in t.verdict) for t in tables]
        self._open_sets: dict[int, frozenset[int]] = {}
        self.letter_tools = [[t.alphabet.tool_of(letter) for letter in range(t.alphabet.size)] for t in tables]
        self._lock = threading.Lock()
        self._ids: dict[tuple[int, ...], int] = {}
        self.states: list[tuple[int, ...]] = []
        self._step: dict[tuple[int, str, int], int | None] = {}
        self._columns: dict[tuple[str, int], tuple | None] = {}
        self._letters_memo: dict[str, tuple[int, ...]] = {}
        self._moves_all: tuple[Move, ...] | None = None
        self._accepting: dict[int, tuple[bool | None, ...]] = {}
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
                    self.states.append(states)  # before the number is published
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

    def run_calls(self, calls: Iterable) -> int:
        """The joint state after executed calls (objects with name, args and result), from the
        initial state: the offline path, one memo lookup per call when warm."""
        jid, step, atoms = self.initial, self._step, self.atoms
        for call in calls:
            name = call.name
            key = name if name in atoms else OTHER
            mask = self.mask(name, call.args, call.result) if atoms.get(name) else 0
            nxt = step.get((jid, key, mask), -2)
            jid = nxt if nxt is not None and nxt != -2 else self.advance(jid, key, mask)
        return jid

    def accepting_each(self, jid: int) -> tuple[bool | None, ...]:
        """Per rule: does the trace ending in `jid` satisfy it (None: untracked)? Memoised."""
        found = self._accepting.get(jid)
        if found is None:
            st = self.states[jid]
            found = self._accepting[jid] = tuple(
                None if s == UNTRACKED else bool(t.accepting[s]) for s, t in zip(st, self.tables))
        return found

    # ------------------------------------------------------------ calls to masks

    def tool_key(self, tool: str) -> str:
        return tool if tool in self.atoms else OTHER

    def mask(self, tool: str, args: Mapping, result: object = UNDEF, known_only: bool = False) -> int:
        """The truth of the tool's atoms for a call (without the result's when `known_only`)."""
        pool = self.atoms.get(tool)
        if not pool:
            return 0
        env = DataEnv({}, args, result, None, self.externs)
        skip = self.result_bits[tool] if known_only else 0
        mask = 0
        for bit, atom in enumerate(pool):
            if not skip >> bit & 1 and truthy(eval_term(atom, env)):
                mask |= 1 << bit
        return mask

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

    # ------------------------------------------------------------ transitions

    def columns(self, key: str, mask: int) -> tuple[tuple[int, tuple], ...] | None:
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
            out.append((i, tuple(row[letter] for row in self.tables[i].delta)))
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
        changed = []
        for i, column in moves:
            s = states[i]
            if s != UNTRACKED:
                t = column[s]
                if t != s:
                    if nxt is None:
                        nxt = list(states)
                    nxt[i] = t
                    changed.append(i)
        if nxt is None:
            out = jid
        else:
            out = self.intern(tuple(nxt))
            parent = self._open_sets.get(jid)
            if parent is not None and out not in self._open_sets:
                opened = {i for i in changed if self._open[i][nxt[i]]}
                self._open_sets[out] = parent.difference(changed).union(opened)
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

    def completions(self, key: str, known: int) -> tuple[int, ...] | None:
        """Every mask a proposed call with these known atoms may have once its result exists
        (None when there are too many unknown atoms to enumerate)."""
        rbits = self.result_bits.get(key, 0)
        positions = [b for b in range(rbits.bit_length()) if rbits >> b & 1]
        if len(positions) > MAX_RESULT_BITS:
            return None
        out = []
        for values in cartesian((0, 1), repeat=len(positions)):
            m = known
            for b, v in zip(positions, values):
                if v:
                    m |= 1 << b
            out.append(m)
        return tuple(out)

    def letters_of(self, key: str) -> tuple[int, ...]:
        """Every mask of a tool that no rule's compiler ruled out (the product's letters)."""
        memo = self._letters_memo.get(key)
        if memo is not None:
            return memo
        width = len(self.atoms.get(key, ()))
        out = []
        if width <= MAX_MASK_BITS:
            for mask in range(1 << width):
                if all(self.letter(i, key, mask) is not None for i in range(len(self.tables))):
                    out.append(mask)
        self._letters_memo[key] = tuple(out)
        return self._letters_memo[key]

    def keys(self) -> tuple[str, ...]:
        """Every distinct kind of call: each tool some rule mentions, then any other tool."""
        return tuple(self.atoms) + (OTHER,)

    def moves(self) -> tuple[Move, ...]:
        """Every kind of call the declared tools allow (see the module's docstring). Memoised."""
        found = self._moves_all
        if found is None:
            out: list[Move] = [(key, mask, key in self.terminal) for key in self.atoms for mask in self.letters_of(key)]
            out.extend((OTHER, 0, final) for final in self.other_endings)
            found = self._moves_all = tuple(out)
        return found

    @property
    def other_endings(self) -> tuple[bool, ...]:
        """For "any other tool": whether such a call can go on (False) and end a run (True).
        With no declared tools (bare tables), any other tool may be called and go on."""
        if not self.declared:
            return (False,)
        return tuple(sorted({t in self.terminal for t in self.declared if t not in self.atoms}))

    @property
    def moves_complete(self) -> bool:
        """Whether `moves()` lists every mask of every tool (none has too many atoms)."""
        return all(len(pool) <= MAX_MASK_BITS for pool in self.atoms.values())

    @property
    def moves_exact(self) -> bool:
        """Whether every move is a combination of guard truths some call can produce."""
        for tool, pool in self.atoms.items():
            covered = [t for t in self.tables if tool in t.alphabet.tools]
            if not all(t.alphabet.exact for t in covered):
                return False
            if not any(len(t.alphabet.tools[tool].atoms) == len(pool) for t in covered):
                return False  # the atoms of two rules combine in ways no compiler decided
        return True

    def open_rules(self, jid: int) -> frozenset[int]:
        """The rules open in joint state `jid` (memoised)."""
        out = self._open_sets.get(jid)
        if out is None:
            st = self.states[jid]
            out = self._open_sets[jid] = frozenset(
                i for i, s in enumerate(st) if s != UNTRACKED and self._open[i][s])
        return out

    def is_open(self, jid: int, rule: int) -> bool:
        """Neither lost nor won for good (nor untracked) in joint state `jid`."""
        s = self.states[jid][rule]
        return s != UNTRACKED and self._open[rule][s]
