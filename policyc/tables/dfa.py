"""Automata as pure data: the alphabet of event classes and a minimal DFA table.

These are what the monitor artifact embeds and the runtime steps; the module imports only
the standard library and `policyc.ir`. A call is mapped to its letter by evaluating the
guard atoms of its tool (compiled to closures, `policyc.ir.closures`; a dictionary lookup on the truth
mask); a step is a table lookup. A proposed call whose result is not known yet maps to the
set of letters that agree with it on every atom that does not read the result.

>>> from policyc.ir import build as b
>>> atom = b.op("gt", b.arg("amount"), b.lit(100))
>>> ab = Alphabet((atom,), {"refund": ToolLetters((0,), {0: 0, 1: 1}, 0)}, other=2, var=None, exact=True)
>>> ab.letter("refund", {"amount": 250}), ab.letter("refund", {}), ab.letter("search", {"q": "x"})
(1, 0, 2)
>>> ab.describe(1)
'refund(amount > 100)'
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field as dataclass_field
from typing import Any, Callable, Mapping, Sequence, TypeVar, cast

from policyc.ir import nodes as n
from policyc.ir.closures import compile_term
from policyc.ir.data import DataEnv
from policyc.ir import ops
from policyc.ir.ops import UNDEF
from policyc.ir.printer import show
from policyc.ir.serialize import NodeTableError, dump_nodes, load_nodes
from policyc.ir.walk import free_vars

from policyc.tables.atoms import constant_groups, reads_call, reads_result
from policyc.tables.shape import TableError, check_int, field, mask_key, read_int, read_list

SATISFIED, VIOLATED, OPEN = "satisfied", "violated", "open"

T = TypeVar("T")


class AlphabetError(Exception):
    """A call produced a combination of guard truths the compiler proved impossible."""


@dataclass(frozen=True, slots=True)
class ToolLetters:
    """The letters of one tool: its guard atoms and, per truth mask, the letter."""

    atoms: tuple[int, ...]  # indices into Alphabet.atoms; bit i of a mask is atoms[i]
    letters: Mapping[int, int]  # truth mask -> letter
    result_bits: int  # bits of atoms that read the call's result


def shared_env(externs: Mapping[str, Callable[..., object]] | None, context: Any = None) -> DataEnv:
    """An environment binding no variable, for closures given the call's arguments and result:
    the run's own (`RunContext.env`) when it has these externs, else a new one."""
    env: DataEnv | None = getattr(context, "env", None)
    if env is not None and (env.externs is externs or env.externs == (externs or {})):
        return env
    return DataEnv({}, None, UNDEF, context, externs or {}, None if context is None else 0)


#: Per tool, how its atoms read the variable's value (`Alphabet._value_plan`).
_ValuePlan = tuple[tuple[tuple[int, Callable[..., Any]], ...],
                   tuple[tuple[int, Callable[[Any, Any], Any], Callable[..., Any], bool, int | None], ...],
                   tuple[tuple[int, Callable[..., Any]], ...]]
_FAILED = (TypeError, ValueError, OverflowError, RecursionError)


@dataclass(frozen=True)
class Alphabet:
    """Event classes: (tool, truth of that tool's guard atoms), plus one letter for any other tool."""

    atoms: tuple[n.Term, ...]
    tools: Mapping[str, ToolLetters]
    other: int
    var: str | None = None  # the quantified variable binding atoms read (sliced rules)
    exact: bool = True  # every impossible combination was pruned
    _by_known: dict[str, dict[int, tuple[int, ...]]] = dataclass_field(default_factory=dict, compare=False, repr=False)
    _plain: dict[str, int | None] = dataclass_field(default_factory=dict, compare=False, repr=False)
    _plans: dict[str, _ValuePlan] = dataclass_field(default_factory=dict, compare=False, repr=False)

    @property
    def size(self) -> int:
        return self.other + 1

    def _mask(self, tool: str, letters: ToolLetters, args: Mapping[str, object] | None, result: object,
              value: object, externs: Mapping[str, Callable[..., object]] | None, skip: int = 0,
              context: object = None) -> int:
        return self._masks(tool, letters, args, result, (value,), externs, skip, context)[0]

    def _value_plan(self, tool: str, letters: ToolLetters) -> _ValuePlan:
        """How the tool's atoms read the variable's value (`_masks`), worked out once per tool:
        atoms that do not read it; atoms `term == var` or `term != var` (either side) whose
        term does not read it, or `term == var[k]` for the component k of a part over a tuple;
        the others."""
        plan = self._plans.get(tool)
        if plan is None:
            fixed: list[tuple[int, Callable[..., Any]]] = []
            against: list[tuple[int, Callable[[Any, Any], Any], Callable[..., Any], bool, int | None]] = []
            general: list[tuple[int, Callable[..., Any]]] = []
            var = self.var
            for bit, index in enumerate(letters.atoms):
                atom = self.atoms[index]
                if var is None or var not in free_vars(atom):
                    fixed.append((bit, compile_term(atom)))
                    continue
                if isinstance(atom, n.Op) and atom.op in ("eq", "ne") and len(atom.args) == 2:
                    left, right = atom.args
                    for side, other, var_left in ((right, left, True), (left, right, False)):
                        if var in free_vars(side):
                            continue
                        if isinstance(other, n.Var) and other.name == var:
                            against.append((bit, ops.OPS[atom.op].fn, compile_term(side), var_left, None))
                            break
                        if isinstance(other, n.Index) and other.base == n.Var(var) and isinstance(other.index, n.Lit) \
                                and type(other.index.value) is int and other.index.value >= 0:
                            # `term == (s, v)[k]` of a part over a tuple: the value's component k
                            against.append((bit, ops.OPS[atom.op].fn, compile_term(side), var_left, other.index.value))
                            break
                    else:
                        general.append((bit, compile_term(atom)))
                    continue
                general.append((bit, compile_term(atom)))
            plan = self._plans[tool] = (tuple(fixed), tuple(against), tuple(general))
        return plan

    def _masks(self, tool: str, letters: ToolLetters, args: Mapping[str, object] | None, result: object,
               values: Sequence[object], externs: Mapping[str, Callable[..., object]] | None, skip: int = 0,
               context: object = None) -> list[int]:
        """The truth mask of the tool's atoms (bits in `skip` left false) for one call, per
        binding of the variable in `values`: an atom that does not read the variable is
        evaluated once for all of them, and the term a binding atom compares the variable
        with once (the same truths as evaluating each atom per value)."""
        fixed, against, general = self._value_plan(tool, letters)
        call_args = args if args is not None else {}
        env = shared_env(externs, context)  # the atoms read here read neither the value nor env's call
        base = 0
        for bit, closure in fixed:
            if not skip >> bit & 1 and closure(env, call_args, result) is True:
                base |= 1 << bit
        sides = [(bit, fn, closure(env, call_args, result), var_left, k) for bit, fn, closure, var_left, k in against
                 if not skip >> bit & 1]
        rest = [(bit, closure) for bit, closure in general if not skip >> bit & 1]
        out = []
        for value in values:
            mask = base
            for bit, fn, side, var_left, k in sides:
                mine = value if k is None else value[k] if type(value) is list and len(value) > k else UNDEF
                try:
                    true = (fn(mine, side) if var_left else fn(side, mine)) is True
                except _FAILED:
                    true = False  # a failed operation is ⊥, and ⊥ is not true
                if true:
                    mask |= 1 << bit
            if rest:
                bound = self._env(args, result, value, externs, context)
                for bit, closure in rest:
                    if closure(bound, call_args, result) is True:
                        mask |= 1 << bit
            out.append(mask)
        return out

    def _env(self, args: Mapping[str, object] | None, result: object, value: object,
             externs: Mapping[str, Callable[..., object]] | None, context: Any = None) -> DataEnv:
        """`context`: the run's constants and history (`policyc.tables.context.RunContext`)."""
        bound = {self.var: value} if self.var is not None else {}
        # with a run's context, provenance reads its sources at the run's current position
        return DataEnv(bound, args, result, context, externs or {}, None if context is None else 0)

    def plain_letters(self) -> dict[str, int | None]:
        """Per tool of the alphabet: its letter when it has no guard atoms (any call to it is
        that letter), None when its letter depends on the call. Memoised."""
        if not self._plain and self.tools:
            self._plain.update({tool: (letters.letters.get(0) if not letters.atoms else None)
                                for tool, letters in self.tools.items()})
        return self._plain

    def letter(self, tool: str, args: Mapping[str, object], result: object = UNDEF, value: object = UNDEF,
               externs: Mapping[str, Callable[..., object]] | None = None, context: object = None) -> int:
        """The letter of an executed call (`value`: the binding of `var` for a slice instance;
        `context`: the run's constants and history stores, which some atoms read)."""
        return self.letters(tool, args, result, (value,), externs, context)[0]

    def letters(self, tool: str, args: Mapping[str, object], result: object, values: Sequence[object],
                externs: Mapping[str, Callable[..., object]] | None = None, context: object = None) -> list[int]:
        """`letter` of one executed call for each binding of `var` in `values`, the atoms
        that do not read it evaluated once (`_masks`)."""
        letters = self.tools.get(tool)
        if letters is None:
            return [self.other] * len(values)
        masks = self._masks(tool, letters, args, result, values, externs, 0, context) if letters.atoms else \
            [0] * len(values)
        try:
            return [letters.letters[mask] for mask in masks]
        except KeyError:
            raise AlphabetError(f"call to `{tool}` made guard atoms true together that cannot be") from None

    def proposal_letters(self, tool: str, args: Mapping[str, object], value: object = UNDEF,
                         externs: Mapping[str, Callable[..., object]] | None = None,
                         context: object = None) -> tuple[int, ...]:
        """The letters a proposed call may turn out to be, whatever its result."""
        return self.proposal_letters_of(tool, args, (value,), externs, context)[0]

    def proposal_letters_of(self, tool: str, args: Mapping[str, object], values: Sequence[object],
                            externs: Mapping[str, Callable[..., object]] | None = None,
                            context: object = None) -> list[tuple[int, ...]]:
        """`proposal_letters` for each binding of `var` in `values`, the atoms that do not
        read it evaluated once (`_masks`)."""
        letters = self.tools.get(tool)
        if letters is None:
            return [(self.other,)] * len(values)
        groups = self._by_known.get(tool)
        if groups is None:
            by_known: dict[int, list[int]] = {}
            for mask, letter in letters.letters.items():
                by_known.setdefault(mask & ~letters.result_bits, []).append(letter)
            groups = self._by_known[tool] = {k: tuple(sorted(v)) for k, v in by_known.items()}
        masks = self._masks(tool, letters, args, UNDEF, values, externs, letters.result_bits, context) \
            if letters.atoms else [0] * len(values)
        return [groups.get(known, ()) for known in masks]

    def tool_of(self, letter: int) -> str | None:
        """The tool of a letter; None for the letter of any other tool."""
        for tool, letters in self.tools.items():
            if letter in letters.letters.values():
                return tool
        return None

    def truth_of(self, letter: int) -> dict[n.Term, bool]:
        """The truth of each guard atom of the letter's tool."""
        for letters in self.tools.values():
            for mask, value in letters.letters.items():
                if value == letter:
                    return {self.atoms[i]: bool(mask >> bit & 1) for bit, i in enumerate(letters.atoms)}
        return {}

    def describe(self, letter: int) -> str:
        """A readable guard: `refund(amount > 100, not order_id == o)`; `*` for any other tool."""
        tool = self.tool_of(letter)
        if tool is None:
            return "*"
        parts = [show(a) if v else f"not {show(a)}" for a, v in self.truth_of(letter).items()]
        return f"{tool}({', '.join(parts)})" if parts else tool

    # ------------------------------------------------------------------ JSON

    def to_json(self) -> dict[str, Any]:
        return {
            "atoms": dump_nodes(list(self.atoms)),
            "tools": {t: {"atoms": list(tl.atoms), "letters": {str(m): l for m, l in tl.letters.items()}}
                      for t, tl in self.tools.items()},
            "other": self.other,
            "var": self.var,
            "exact": self.exact,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any], where: str = "alphabet") -> "Alphabet":
        """Read and check an alphabet (`TableError` naming the field when it is not one the
        compiler could have written): every tool's atoms exist, its masks fit them, and the
        letters of all tools are exactly 0..other-1, each once."""
        try:
            atoms = tuple(cast(n.Term, a) for a in load_nodes(field(data, "atoms", where)))
        except NodeTableError as exc:
            raise TableError(f"{where}.atoms: {exc}") from None
        if any(not isinstance(a, n.Term) for a in atoms):
            raise TableError(f"{where}.atoms: a guard atom must be a term")
        other = read_int(data, "other", where)
        entries = field(data, "tools", where)
        if not isinstance(entries, dict):
            raise TableError(f"{where}.tools: must be an object")
        tools = {}
        owner: dict[int, str] = {}
        for tool, entry in entries.items():
            at = f"{where}.tools[{tool[:40]!r}]"
            ids = tuple(check_int(i, f"{at}.atoms", 0, len(atoms)) for i in read_list(entry, "atoms", at))
            if len(set(ids)) != len(ids):
                raise TableError(f"{at}.atoms: an atom is listed twice")
            letters = field(entry, "letters", at)
            if not isinstance(letters, dict) or not letters:
                raise TableError(f"{at}.letters: must be an object with at least one letter")
            table = {}
            for mask_text, letter in letters.items():
                mask = mask_key(mask_text, f"{at}.letters", len(ids))
                table[mask] = check_int(letter, f"{at}.letters[{mask_text!r}]", 0, other)
                if table[mask] in owner:
                    raise TableError(f"{at}.letters: letter {letter} also belongs to `{owner[table[mask]][:40]}`")
                owner[table[mask]] = tool
            result_bits = sum(1 << bit for bit, i in enumerate(ids) if reads_result(atoms[i]))
            tools[tool] = ToolLetters(ids, table, result_bits)
        if len(owner) != other:
            raise TableError(f"{where}: letters 0 to {other - 1} must each belong to one tool's truth mask "
                             f"({len(owner)} do)")
        var = data.get("var") if isinstance(data, dict) else None
        if var is not None and not isinstance(var, str):
            raise TableError(f"{where}.var: must be a name or null")
        exact = data.get("exact", True)
        if not isinstance(exact, bool):
            raise TableError(f"{where}.exact: must be true or false")
        return cls(atoms, tools, other, var, exact)


@dataclass(frozen=True)
class DfaTable:
    """A complete minimal DFA over an alphabet, with the verdict of every state.

    `verdict[q]` is SATISFIED when every continuation from q is accepted, VIOLATED when none
    is, OPEN otherwise; `accepting[q]` says whether the trace ending in q satisfies the
    formula. `to_accept[q]` is the first letter of a shortest continuation to acceptance
    (None when q accepts or is violated) and `dist_accept[q]` its length.
    """

    alphabet: Alphabet
    initial: int
    delta: tuple[tuple[int, ...], ...]
    accepting: tuple[bool, ...]
    verdict: tuple[str, ...]
    to_accept: tuple[int | None, ...]
    dist_accept: tuple[int | None, ...]
    to_reject: tuple[int | None, ...] = ()
    residual: tuple[str, ...] = ()  # the residual formula of each state, printed
    # A rule that reads the run's constants (`request.text`, `metrics`) has a start state per
    # truth of its *static atoms* (conditions on the constants alone): `initials` maps each
    # satisfiable truth mask to its start state. `initial` is then the start of its free
    # variant, for a run that was not given the constants (see `start_state`).
    static_atoms: tuple[n.Term, ...] = ()
    initials: tuple[tuple[int, int], ...] = ()
    _memo: dict[str, Any] = dataclass_field(default_factory=dict, compare=False, repr=False)

    @property
    def size(self) -> int:
        return len(self.delta)

    @property
    def constant_groups(self) -> frozenset[str]:
        """The run's constants some atom of the table reads ("request", "metrics")."""
        found: frozenset[str] | None = self._memo.get("groups")
        if found is None:
            found = self._memo["groups"] = frozenset().union(
                *(constant_groups(a) for a in (*self.static_atoms, *self.alphabet.atoms)))
        return found

    def start_state(self, context: object = None) -> int:
        """Where a run starts: with the run's constants known (`context`, a `RunContext`), the
        start state of the truth of the static atoms they give; otherwise `initial`, the free
        variant's start, which judges by every value the unknown constants could take (a rule is
        violated there only when it is for all of them)."""
        if not self.initials or context is None:
            return self.initial
        plan: tuple[frozenset[str], tuple[Callable[..., Any], ...], dict[int, int]] | None = self._memo.get("start")
        if plan is None:  # what a start reads, found once: the constants, the static atoms' closures, the starts
            plan = self._memo["start"] = (self.constant_groups, tuple(compile_term(a) for a in self.static_atoms),
                                          dict(self.initials))
        groups, tests, starts = plan
        if not context.knows(groups):  # type: ignore[attr-defined]
            return self.initial
        env = context.env  # type: ignore[attr-defined]
        mask = 0
        for i, test in enumerate(tests):
            if test(env, None, UNDEF) is True:
                mask |= 1 << i
        return starts.get(mask, self.initial)

    def step(self, state: int, letter: int) -> int:
        return self.delta[state][letter]

    def shortest_continuation(self, state: int) -> list[int] | None:
        """Letters of a shortest continuation from `state` to acceptance ([] if it accepts)."""
        if self.dist_accept[state] is None:
            return None
        out: list[int] = []
        while not self.accepting[state]:
            letter = self.to_accept[state]
            assert letter is not None  # a state that can reach acceptance has a first letter
            out.append(letter)
            state = self.delta[state][letter]
        return out

    def shortest_rejection(self, state: int) -> list[int] | None:
        """Letters of a shortest continuation after which the formula fails ([] if it fails now)."""
        if self.verdict[state] == SATISFIED:
            return None
        out: list[int] = []
        while self.accepting[state]:
            letter = self.to_reject[state]
            assert letter is not None  # a state that can fail has a first letter to failure
            out.append(letter)
            state = self.delta[state][letter]
        return out

    def to_json(self) -> dict[str, Any]:
        return {
            "alphabet": self.alphabet.to_json(),
            "initial": self.initial,
            "delta": [list(row) for row in self.delta],
            "accepting": list(self.accepting),
            "verdict": list(self.verdict),
            "to_accept": list(self.to_accept),
            "dist_accept": list(self.dist_accept),
            "to_reject": list(self.to_reject),
            "residual": list(self.residual),
            **({"static_atoms": dump_nodes(list(self.static_atoms)), "initials": [list(p) for p in self.initials]}
               if self.initials else {}),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any], where: str = "dfa") -> "DfaTable":
        """Read a DFA and check it (`validate`): `TableError` naming the field when it is not
        one the compiler could have written."""
        alphabet = Alphabet.from_json(field(data, "alphabet", where), f"{where}.alphabet")
        rows = read_list(data, "delta", where)
        size, letters = len(rows), alphabet.size
        if not size:
            raise TableError(f"{where}.delta: an automaton has at least one state")
        delta = []
        for q, row in enumerate(rows):
            if not isinstance(row, list) or len(row) != letters:
                raise TableError(f"{where}.delta[{q}]: must list a next state for each of the {letters} letters")
            delta.append(tuple(check_int(t, f"{where}.delta[{q}]", 0, size) for t in row))

        def column(key: str, check: Callable[[Any, str], T]) -> tuple[T, ...]:
            return tuple(check(v, f"{where}.{key}[{q}]") for q, v in enumerate(read_list(data, key, where, size)))

        def boolean(v: object, at: str) -> bool:
            if not isinstance(v, bool):
                raise TableError(f"{at}: must be true or false")
            return v

        def verdict(v: object, at: str) -> str:
            if v not in (SATISFIED, VIOLATED, OPEN):
                raise TableError(f"{at}: must be {SATISFIED}, {VIOLATED} or {OPEN}")
            return v

        def letter_or_none(v: object, at: str) -> int | None:
            return None if v is None else check_int(v, at, 0, letters)

        def distance_or_none(v: object, at: str) -> int | None:
            return None if v is None else check_int(v, at, 0, size)

        def text(v: object, at: str) -> str:
            if not isinstance(v, str):
                raise TableError(f"{at}: must be a string")
            return v

        residual = data.get("residual", []) if isinstance(data, dict) else []
        static, initials = _read_initials(data, where, size)
        table = cls(alphabet, read_int(data, "initial", where, 0, size), tuple(delta), column("accepting", boolean),
                    column("verdict", verdict), column("to_accept", letter_or_none),
                    column("dist_accept", distance_or_none), column("to_reject", letter_or_none),
                    column("residual", text) if residual else (), static, initials)
        table.validate(where)
        return table

    def validate(self, where: str = "dfa") -> None:
        """Check that the verdicts and shortest paths are those of the transitions (`TableError`
        otherwise): every state's verdict, its distance to acceptance, and first letters that
        lead one step closer to acceptance (or rejection), so that following them ends."""
        verdict, _, dist_acc, _ = analyse(self.delta, self.accepting)
        dist_rej = _distances(self.delta, [not a for a in self.accepting])[0]
        for q in range(self.size):
            if self.verdict[q] != verdict[q]:
                raise TableError(f"{where}.verdict[{q}]: the state is {verdict[q]}, not {self.verdict[q]}")
            if self.dist_accept[q] != dist_acc[q]:
                raise TableError(f"{where}.dist_accept[{q}]: the state is {dist_acc[q]} letters from acceptance, "
                                 f"not {self.dist_accept[q]}")
            for key, first, dist in (("to_accept", self.to_accept[q], dist_acc), ("to_reject", self.to_reject[q],
                                                                                 dist_rej)):
                d = dist[q]
                if (first is None) != (d is None or d == 0):
                    raise TableError(f"{where}.{key}[{q}]: must be " + ("null" if first is not None else "a letter"))
                if first is not None and dist[self.delta[q][first]] != d - 1:  # type: ignore[operator]
                    raise TableError(f"{where}.{key}[{q}]: letter {first} does not lead closer to the goal")


def _read_initials(data: object, where: str, size: int) -> tuple[tuple[n.Term, ...], tuple[tuple[int, int], ...]]:
    """A table's static atoms and start state per truth of them (`TableError` naming the
    field): terms reading the run's constants, masks that fit them, each once, states in range."""
    if not isinstance(data, dict) or "initials" not in data:
        return (), ()
    try:
        static = tuple(cast(n.Term, a) for a in load_nodes(field(data, "static_atoms", where)))
    except NodeTableError as exc:
        raise TableError(f"{where}.static_atoms: {exc}") from None
    if any(not isinstance(a, n.Term) or not constant_groups(a) or reads_call(a) for a in static):
        raise TableError(f"{where}.static_atoms: each must be a term on the run's request or metrics alone")
    entries = read_list(data, "initials", where)
    if not entries:
        raise TableError(f"{where}.initials: must list at least one start state")
    out: list[tuple[int, int]] = []
    for i, entry in enumerate(entries):
        if not isinstance(entry, list) or len(entry) != 2:
            raise TableError(f"{where}.initials[{i}]: must be [mask, state]")
        mask = check_int(entry[0], f"{where}.initials[{i}]", 0, 1 << len(static))
        if any(mask == m for m, _ in out):
            raise TableError(f"{where}.initials[{i}]: mask {mask} is listed twice")
        out.append((mask, check_int(entry[1], f"{where}.initials[{i}]", 0, size)))
    return static, tuple(out)


def _distances(delta: Sequence[Sequence[int]], goal: Sequence[bool]) -> tuple[list[int | None], list[int | None]]:
    """Per state: the length of a shortest path to a goal state, and its first letter (None
    when there is no such path or the state is a goal)."""
    size = len(delta)
    preds: list[list[tuple[int, int]]] = [[] for _ in range(size)]
    for q, row in enumerate(delta):
        for letter, t in enumerate(row):
            preds[t].append((q, letter))
    dist: list[int | None] = [0 if g else None for g in goal]
    first: list[int | None] = [None] * size
    queue = deque(q for q in range(size) if goal[q])
    while queue:
        t = queue.popleft()
        for q, letter in preds[t]:
            if dist[q] is None:
                dist[q] = cast(int, dist[t]) + 1
                first[q] = letter
                queue.append(q)
    return dist, first


def analyse(delta: Sequence[Sequence[int]], accepting: Sequence[bool]) -> tuple[
        tuple[str, ...], tuple[int | None, ...], tuple[int | None, ...], tuple[int | None, ...]]:
    """Per state: verdict, first letter and length of a shortest path to acceptance, and the
    first letter of a shortest path to rejection.

    >>> analyse(((1, 0), (1, 1)), (True, False))   # `never a`: state 1 is lost for good
    (('open', 'violated'), (None, None), (0, None), (0, None))
    """
    dist_acc, to_acc = _distances(delta, accepting)
    dist_rej, to_rej = _distances(delta, [not a for a in accepting])
    verdict = tuple(VIOLATED if dist_acc[q] is None else SATISFIED if dist_rej[q] is None else OPEN
                    for q in range(len(delta)))
    return verdict, tuple(to_acc), tuple(dist_acc), tuple(to_rej)
