"""Parametric trace slicing: one automaton instance per value of a quantified variable.

`forall o in D: φ(o)` holds on a trace when φ(v) holds for every v in the domain D(τ). Each
value v gets an instance of φ's automaton, stepped on every call, where a binding atom
`order_id == o` is true exactly when the call's `order_id` is v. A value never seen so far
makes every binding atom false (and `!=` true where the term is defined), so all unseen
values share one instance, the *fresh* instance (one per truth assignment of the static
atoms); when a value first appears in a compared position or in the domain, its instance is
cloned from the fresh one. The verdict follows the evaluator's active-domain semantics: only
values in D(prefix) count; `forall` over an empty domain holds, `exists` fails.

Instances in the same automaton state move together on a call that does not mention them,
so they are kept in groups: a call costs one step per group (at most the number of states)
plus one per value the call mentions, whatever the length of the run.

Verdicts of the part: accepting is exact. Permanently violated (forall) is reported when
some value of the domain is in a violated state; permanently satisfied when every known and
every fresh instance is in a satisfied state (dually for exists). These are certain; a
conflict that only arises between two values' obligations is found when the run ends.

A part may quantify a tuple of variables (`forall s in D1: forall v in D2: φ(s, v)`, `arity`
2), when every event reads them only as "the call's (t1, t2) equals (s, v)" (the compiler's
`pair_part`). Its variable is the tuple; an instance is kept for each tuple some call named
(every component defined and not null), never for the product of the domains: the domain is
kept per component (`components` says which entries of `domain` feed which), and a member
of D1 × D2 that no call named sits at the fresh instance's state. So the fresh instance
counts in the verdict exactly when some member of the product has no instance of its own
(|D1|·|D2| is more than the instances whose components are all in the domains); one named
later is cloned from the fresh state then, so what the fresh instance reached it reached.

This module imports only the standard library and `policyc.ir`.
"""

from __future__ import annotations

from dataclasses import dataclass, field as dataclass_field
from typing import Any, Callable, Iterator, Mapping, cast

from policyc.ir import nodes as n
from policyc.ir.closures import compile_term
from policyc.ir.data import DataEnv, eval_term, path_value
from policyc.ir.ops import UNDEF, truthy, value_key
from policyc.ir.serialize import NodeTableError, dump_nodes, load_nodes

from policyc.tables.atoms import constant_groups
from policyc.tables.dfa import OPEN, SATISFIED, VIOLATED, Alphabet, AlphabetError, DfaTable, shared_env
from policyc.tables.shape import TableError, check_int, field, is_int, mask_key, read_int, read_list, read_str


class _Fresh:
    """A value equal to nothing: the binding of the fresh instance."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "<fresh>"


FRESH = _Fresh()

#: `SliceRun.signature()`, the fresh states of its instance automata and whether the fresh
#: instance counts (`SliceRun.unnamed`): what a verdict depends on.
_StandingKey = tuple[frozenset[tuple[int, int, int]], tuple[tuple[int, int], ...], bool]


@dataclass(frozen=True)
class SliceTable:
    kind: str  # "forall" | "exists"
    var: str
    alphabet: Alphabet
    static_atoms: tuple[n.Term, ...]
    bodies: Mapping[int, DfaTable]  # static truth mask -> the instance automaton
    touch: Mapping[str, tuple[n.Term, ...]]  # tool -> call-local terms compared with var
    # (tool, path, flatten): the path an argument's name or "result", then field names and indices
    domain: tuple[tuple[str, tuple[Any, ...], bool], ...]
    constants: tuple[object, ...] = ()  # literal domain values
    arity: int = 1  # how many variables `var` stands for (a tuple of values when more than one)
    components: tuple[int, ...] = ()  # per entry of `domain`, the component it gives values to (arity > 1)
    # per letter: whether it loops (`loops`); under "groups": `constant_groups`
    _loops: dict[int | str, Any] = dataclass_field(default_factory=dict, compare=False, repr=False)
    _plans: dict[str, tuple[str, int, int, bool] | None] = dataclass_field(default_factory=dict, compare=False,
                                                                           repr=False)
    _standing: dict[_StandingKey, tuple[str, bool]] = dataclass_field(default_factory=dict, compare=False,
                                                                  repr=False)  # `SliceRun._standing`
    _idle: dict[str, bool] = dataclass_field(default_factory=dict, compare=False, repr=False)  # `idle`

    def idle(self, tool: str) -> bool:
        """Whether a call of `tool` leaves the part as it is, whatever its arguments and result:
        a tool the alphabet does not list (every instance reads the `other` letter), no term of
        it compared with the variable, none adding to the domain, and `other` a letter that
        moves no instance. Memoised."""
        found = self._idle.get(tool)
        if found is None:
            found = self._idle[tool] = tool not in self.alphabet.tools and not self.touch.get(tool) and \
                all(dtool != tool for dtool, _, _ in self.domain) and self.loops(self.alphabet.other)
        return found

    def call_plan(self, tool: str) -> tuple[str, int, int, bool] | None:
        """The common per-id shape, read without evaluating terms: every term of the tool that
        names a value of the variable is one argument N (`refund(order_id: o)`, a domain of
        `refund.order_id`), and every guard atom the tool has here compares N with the
        variable (`==` or `!=`). Then a call whose N is a string or an integer names exactly
        that value, with a letter fixed per tool, and every other value reads the fresh
        letter. Returns (N, fresh letter, the named value's letter, whether N is in the
        domain); None for any other shape (the general path evaluates each term). Memoised."""
        if tool in self._plans:
            return self._plans[tool]
        self._plans[tool] = found = self._call_plan(tool)
        return found

    def _call_plan(self, tool: str) -> tuple[str, int, int, bool] | None:
        letters = self.alphabet.tools.get(tool)
        if letters is None or self.arity > 1:
            return None
        names: set[str] = set()
        fresh_mask = value_mask = 0
        for bit, index in enumerate(letters.atoms):
            atom = self.alphabet.atoms[index]
            if not (isinstance(atom, n.Op) and atom.op in ("eq", "ne") and len(atom.args) == 2):
                return None
            left, right = atom.args
            arg = left if isinstance(left, n.Arg) and right == n.Var(self.var) else \
                right if isinstance(right, n.Arg) and left == n.Var(self.var) else None
            if arg is None:
                return None
            names.add(arg.name)
            if atom.op == "eq":
                value_mask |= 1 << bit
            else:
                fresh_mask |= 1 << bit
        for term in self.touch.get(tool, ()):
            if not isinstance(term, n.Arg):
                return None
            names.add(term.name)
        in_domain = False
        for dtool, path, _ in self.domain:
            if dtool == tool:
                if len(path) != 1 or path[0] == "result":
                    return None
                names.add(path[0])
                in_domain = True
        fresh, value = letters.letters.get(fresh_mask), letters.letters.get(value_mask)
        if len(names) != 1 or fresh is None or value is None:
            return None
        return names.pop(), fresh, value, in_domain

    def loops(self, letter: int) -> bool:
        """Whether the letter leaves every state of every instance automaton where it is (a
        call that names no value moves no group then). Memoised per letter."""
        found = self._loops.get(letter)
        if found is None:
            found = self._loops[letter] = all(row[letter] == q for dfa in self.bodies.values()
                                              for q, row in enumerate(dfa.delta))
        return found

    def static_mask(self, value: object, context: object = None) -> int:
        """The truth of the static atoms for a value (`context`: the run's constants)."""
        if not self.static_atoms:
            return 0
        env = DataEnv({self.var: value}, None, UNDEF, context, {}, None if context is None else 0)  # type: ignore[arg-type]
        return sum(1 << i for i, a in enumerate(self.static_atoms) if truthy(eval_term(a, env)))

    @property
    def constant_groups(self) -> frozenset[str]:
        """The run's constants the part's atoms read ("request", "metrics")."""
        found = self._loops.get("groups")
        if found is None:
            found = self._loops["groups"] = frozenset().union(
                *(constant_groups(a) for a in (*self.static_atoms, *self.alphabet.atoms)))
        return found

    def domain_values(self, tool: str, args: Mapping[str, Any], result: object) -> list[object]:
        """Values this call adds to the quantifier's domain (as the trace's `Values` reads them)."""
        return [value for _, value in self.component_values(tool, args, result)]

    def component_values(self, tool: str, args: Mapping[str, Any], result: object) -> list[tuple[int, object]]:
        """(component, value) of each value this call adds to the domain: the component is 0
        for a part over one variable, the entry's in `components` for a part over a tuple."""
        out: list[tuple[int, object]] = []
        for k, (dtool, path, flatten) in enumerate(self.domain):
            if dtool != tool or not path:
                continue
            value = path_value(result, path[1:]) if path[0] == "result" else path_value(args.get(path[0], UNDEF), path[1:])
            if value is UNDEF or value is None:
                continue
            i = self.components[k] if self.components else 0
            out.extend((i, v) for v in (value if flatten and isinstance(value, list) else [value]))
        return out

    def touched_tuples(self, tool: str, args: Mapping[str, Any], result: object,
                       externs: Mapping[str, Callable[..., object]] | None, context: object = None) -> list[object]:
        """The tuples this call names (arity > 1): per event of the tool, its terms' values,
        when every one is defined and not null (no member of a domain equals ⊥ or null)."""
        terms = self.touch.get(tool, ())
        if not terms:
            return []
        env = shared_env(externs, context)
        out: list[object] = []
        for k in range(0, len(terms), self.arity):
            values = [args.get(term.name, UNDEF) if type(term) is n.Arg else compile_term(term)(env, args, result)
                      for term in terms[k:k + self.arity]]
            if all(v is not UNDEF and v is not None for v in values):
                out.append(values)
        return out

    def touched_values(self, tool: str, args: Mapping[str, Any], result: object,
                       externs: Mapping[str, Callable[..., object]] | None, context: object = None) -> list[object]:
        terms = self.touch.get(tool, ())
        if not terms:
            return []
        env = shared_env(externs, context)
        out = []
        for term in terms:
            value = compile_term(term)(env, args, result)
            if value is not UNDEF:
                out.append(value)
        return out

    def start(self, context: object = None) -> "SliceRun":
        """A run of the part (`context`: the run's constants and history, a `RunContext`)."""
        run = SliceRun(self, context)
        if not run.blind:
            for value in self.constants:
                run._admit(value, in_domain=True)
        return run

    def to_json(self) -> dict[str, Any]:
        terms: list[n.Node] = [*self.static_atoms, *(t for ts in self.touch.values() for t in ts)]
        return {
            "kind": self.kind, "var": self.var,
            "alphabet": self.alphabet.to_json(),
            "terms": dump_nodes(terms),
            "static_atoms": len(self.static_atoms),
            "touch": [[tool, len(ts)] for tool, ts in self.touch.items()],
            "bodies": {str(mask): dfa.to_json() for mask, dfa in self.bodies.items()},
            "domain": [[t, list(p), f] for t, p, f in self.domain],
            "constants": list(self.constants),
            **({"arity": self.arity, "components": list(self.components)} if self.arity > 1 else {}),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any], where: str = "slice") -> "SliceTable":
        """Read and check a sliced part (`TableError` naming the field): its instance automata
        all read the part's alphabet, its masks fit its static atoms, its term lists add up."""
        kind = read_str(data, "kind", where, ("forall", "exists"))
        var = read_str(data, "var", where)
        alphabet_json = field(data, "alphabet", where)
        alphabet = Alphabet.from_json(alphabet_json, f"{where}.alphabet")
        if alphabet.var != var:
            raise TableError(f"{where}.alphabet.var: must be `{var[:40]}`, the part's variable")
        try:
            terms = [cast(n.Term, t) for t in load_nodes(field(data, "terms", where))]
        except NodeTableError as exc:
            raise TableError(f"{where}.terms: {exc}") from None
        if any(not isinstance(t, n.Term) for t in terms):
            raise TableError(f"{where}.terms: must all be terms")
        k = read_int(data, "static_atoms", where, 0, len(terms) + 1)
        static, rest = tuple(terms[:k]), terms[k:]
        touch: dict[str, tuple[n.Term, ...]] = {}
        for i, entry in enumerate(read_list(data, "touch", where)):
            if not (isinstance(entry, list) and len(entry) == 2 and isinstance(entry[0], str)):
                raise TableError(f"{where}.touch[{i}]: must be [tool, count]")
            count = check_int(entry[1], f"{where}.touch[{i}]", 0, len(rest) + 1)
            touch[entry[0]], rest = tuple(rest[:count]), rest[count:]
        if rest:
            raise TableError(f"{where}.touch: {len(rest)} term(s) are not given to any tool")
        bodies_json = field(data, "bodies", where)
        if not isinstance(bodies_json, dict) or not bodies_json:
            raise TableError(f"{where}.bodies: must be an object with at least one automaton")
        bodies = {}
        for mask_text, body in bodies_json.items():
            at = f"{where}.bodies[{str(mask_text)[:40]!r}]"
            if field(body, "alphabet", at) != alphabet_json:
                raise TableError(f"{at}.alphabet: must be the part's alphabet")
            bodies[mask_key(mask_text, f"{where}.bodies", k)] = DfaTable.from_json(body, at)
        domain = []
        for i, entry in enumerate(read_list(data, "domain", where)):
            if not (isinstance(entry, list) and len(entry) == 3 and isinstance(entry[0], str)
                    and isinstance(entry[1], list) and isinstance(entry[2], bool)
                    and all(isinstance(p, str) or is_int(p) for p in entry[1])):
                raise TableError(f"{where}.domain[{i}]: must be [tool, path, flatten]")
            domain.append((entry[0], tuple(entry[1]), entry[2]))
        constants = tuple(read_list(data, "constants", where))
        arity = read_int(data, "arity", where, 1, 9) if "arity" in data else 1
        components: tuple[int, ...] = ()
        if arity > 1:
            entries = read_list(data, "components", where)
            if len(entries) != len(domain):
                raise TableError(f"{where}.components: must give one component per entry of `domain`")
            components = tuple(check_int(c, f"{where}.components[{i}]", 0, arity) for i, c in enumerate(entries))
            if k or constants:
                raise TableError(f"{where}.arity: a part over a tuple has no static atoms and no literal domain")
            for tool, ts in touch.items():
                if len(ts) % arity:
                    raise TableError(f"{where}.touch: `{tool[:40]}` must have {arity} terms per event")
        elif "components" in data:
            raise TableError(f"{where}.components: only a part over a tuple (arity above 1) has components")
        return cls(kind, var, alphabet, static, bodies, touch, tuple(domain), constants, arity, components)


class _Group:
    __slots__ = ("mask", "state", "members", "in_domain")

    def __init__(self, mask: int, state: int):
        self.mask, self.state = mask, state
        self.members: set[object] = set()
        self.in_domain = 0  # members that are in the domain


class SliceRun:
    """The instances of one sliced part over one run."""

    def __init__(self, table: SliceTable, context: object = None):
        self.table = table
        self.context = context
        # a part that reads the run's constants, in a run that was not given them, is not
        # followed: it is open, never refuses, and the run's report reads it when the run ends
        groups = table.constant_groups
        self.blind = bool(groups) and (context is None or not context.knows(groups))  # type: ignore[attr-defined]
        self.fresh = {mask: dfa.initial for mask, dfa in table.bodies.items()} if not self.blind else {}
        self.groups: dict[tuple[int, int], _Group] = {}
        self.where: dict[object, _Group] = {}
        self.values: dict[object, object] = {}
        self.domain: set[object] = set()  # keys of the instances in the domain
        # arity > 1: per component, its domain (key -> value) and the instances naming each key
        self.parts: list[dict[object, object]] = [{} for _ in range(table.arity)] if table.arity > 1 else []
        self.by_part: list[dict[object, set[object]]] = [{} for _ in range(table.arity)] if table.arity > 1 else []
        self._signature: frozenset[tuple[int, int, int]] | None = None  # `signature()`, until the next step

    # ------------------------------------------------------------ bookkeeping

    def _place(self, key: object, mask: int, state: int) -> None:
        group = self.groups.get((mask, state))
        if group is None:
            group = self.groups[(mask, state)] = _Group(mask, state)
        group.members.add(key)
        group.in_domain += key in self.domain
        self.where[key] = group

    def _remove(self, key: object) -> tuple[int, int]:
        group = self.where.pop(key)
        group.members.discard(key)
        group.in_domain -= key in self.domain
        if not group.members:
            del self.groups[(group.mask, group.state)]
        return group.mask, group.state

    def _admit(self, value: object, in_domain: bool = False) -> object:
        key = value_key(value)
        if key not in self.values and self.parts:  # a tuple: in the domain when its components all are
            self.values[key] = value
            parts = cast(tuple[object, ...], key)[1:]
            for i, part_key in enumerate(parts):
                self.by_part[i].setdefault(part_key, set()).add(key)
            if all(part_key in self.parts[i] for i, part_key in enumerate(parts)):
                self.domain.add(key)
            self._place(key, 0, self.fresh[0])
            return key
        if key not in self.values:
            self.values[key] = value
            mask = self.table.static_mask(value, self.context)
            if mask not in self.table.bodies:
                raise AlphabetError(f"no automaton for the static conditions of value {value!r}")
            self._place(key, mask, self.fresh[mask])
        if in_domain and key not in self.domain:
            self.domain.add(key)
            self.where[key].in_domain += 1
        return key

    def _extend(self, i: int, value: object) -> None:
        """Add `value` to component i's domain (arity > 1): the instances naming it whose
        other components are in their domains come into the domain."""
        part_key = value_key(value)
        if part_key in self.parts[i]:
            return
        self.parts[i][part_key] = value
        for key in self.by_part[i].get(part_key, ()):
            if key not in self.domain and all(k in self.parts[j] for j, k in enumerate(cast(tuple[object, ...], key)[1:])):
                self.domain.add(key)
                self.where[key].in_domain += 1

    def unnamed(self) -> int:
        """How many members of the domains' product have no instance of their own (arity > 1;
        0 otherwise: every value of the domain has one). They sit at the fresh state."""
        if not self.parts:
            return 0
        size = 1
        for part in self.parts:
            size *= len(part)
        return size - len(self.domain)

    # ------------------------------------------------------------ stepping

    def signature(self) -> frozenset[tuple[int, int, int]]:
        """The run's groups as the judgement of a call sees them: (static mask, state, members
        in the domain, counted up to 2) per group. Two runs with the same signature judge a
        call naming a value alike when the value sits alike in both (`SlicedJudge`)."""
        found = self._signature
        if found is None:
            found = self._signature = frozenset(
                (mask, state, g.in_domain if g.in_domain < 2 else 2) for (mask, state), g in self.groups.items())
        return found

    def step(self, tool: str, args: Mapping[str, Any], result: object = UNDEF,
             externs: Mapping[str, Callable[..., object]] | None = None) -> None:
        t = self.table
        if t.idle(tool):  # no instance moves, no value is named: nothing changes
            return
        self._signature = None
        if self.blind:
            return
        if self.parts:
            self._step_tuples(tool, args, result, externs)
            return
        plan = t.call_plan(tool)
        if plan is not None:
            value = args.get(plan[0], UNDEF)
            if type(value) is str or type(value) is int:
                self._step_named(value, plan)
                return
        dom = t.domain_values(tool, args, result)
        mentioned = t.touched_values(tool, args, result, externs, self.context) + dom
        keys: dict[object, object] = {}
        for value in mentioned:
            keys.setdefault(self._admit(value), value)
        before = {key: self._remove(key) for key in keys}
        # the fresh instances' letter and each named value's, the atoms not on the value read once
        fresh_letter, *named = t.alphabet.letters(tool, args, result, [FRESH, *(self.values[k] for k in before)],
                                                  externs, self.context)
        self._step_groups(fresh_letter)
        self._place_named(before, named, dom)

    def _step_tuples(self, tool: str, args: Mapping[str, Any], result: object,
                     externs: Mapping[str, Callable[..., object]] | None) -> None:
        """`step` for a part over a tuple: the tuples the call names step on their own letters,
        every other instance and the fresh one on the fresh letter; then the call's values join
        their components' domains."""
        t = self.table
        keys: dict[object, object] = {}
        for value in t.touched_tuples(tool, args, result, externs, self.context):
            keys.setdefault(self._admit(value), value)
        before = {key: self._remove(key) for key in keys}
        # the fresh instance's letter and each named tuple's, the atoms not on the tuple read once
        fresh_letter, *named = t.alphabet.letters(tool, args, result, [FRESH, *(self.values[k] for k in before)],
                                                  externs, self.context)
        self._step_groups(fresh_letter)
        for (key, (mask, state)), letter in zip(before.items(), named):
            self._place(key, mask, t.bodies[mask].delta[state][letter])
        for i, value in t.component_values(tool, args, result):
            self._extend(i, value)

    def _step_named(self, value: object, plan: tuple[str, int, int, bool]) -> None:
        """`step` for a call of the per-id shape (`SliceTable.call_plan`) naming `value`."""
        _, fresh_letter, letter, in_domain = plan
        key = self._admit(value)
        group = self.where[key]
        mask, state = group.mask, group.state
        target = self.table.bodies[mask].delta[state][letter]
        if target == state and (not in_domain or key in self.domain) and self.table.loops(fresh_letter):
            return  # the instance stays where it is, and so does every other one
        self._remove(key)
        self._step_groups(fresh_letter)
        if in_domain:
            self.domain.add(key)
        self._place(key, mask, target)

    def _step_groups(self, fresh_letter: int) -> None:
        """Step every instance the call does not name, and the fresh ones, on the fresh letter."""
        t = self.table
        if t.loops(fresh_letter):  # they stay where they are
            return
        moved: dict[tuple[int, int], _Group] = {}
        for (mask, state), group in self.groups.items():
            group.state = t.bodies[mask].delta[state][fresh_letter]
            target = moved.get((mask, group.state))
            if target is None:
                moved[(mask, group.state)] = group
                continue
            small, big = (group, target) if len(group.members) < len(target.members) else (target, group)
            for key in small.members:
                self.where[key] = big
            big.members |= small.members
            big.in_domain += small.in_domain
            moved[(mask, group.state)] = big
        self.groups = moved
        self.fresh = {mask: t.bodies[mask].delta[s][fresh_letter] for mask, s in self.fresh.items()}

    def _place_named(self, before: Mapping[object, tuple[int, int]], letters: list[int], dom: list[object]) -> None:
        """Step the instances of the values the call names (taken out of their groups before),
        each on its letter (in the order of `before`)."""
        t = self.table
        dom_keys = {value_key(v) for v in dom} if dom else ()
        for (key, (mask, state)), letter in zip(before.items(), letters):
            if key in dom_keys:
                self.domain.add(key)
            self._place(key, mask, t.bodies[mask].delta[state][letter])

    # ------------------------------------------------------------ verdicts

    def _standing(self) -> tuple[str, bool]:
        """(verdict, accepting) of the run: a function of its `signature` and fresh states
        alone, memoised per table."""
        memo = (self.signature(), tuple(self.fresh.items()), self.unnamed() > 0)
        found = self.table._standing.get(memo)
        if found is None:
            found = self.table._standing[memo] = (self._verdict(), self._accepting())
        return found

    def _state_verdicts(self) -> Iterator[tuple[DfaTable, int, bool]]:
        bodies = self.table.bodies
        for (mask, state), group in self.groups.items():
            yield bodies[mask], state, group.in_domain > 0
        unnamed = self.unnamed() > 0  # members of a product of domains at the fresh state
        for mask, state in self.fresh.items():
            yield bodies[mask], state, unnamed

    def accepting(self) -> bool:
        return True if self.blind else self._standing()[1]

    def verdict(self) -> str:
        return OPEN if self.blind else self._standing()[0]

    def _accepting(self) -> bool:
        inst = [(dfa.accepting[q]) for dfa, q, dom in self._state_verdicts() if dom]
        return all(inst) if self.table.kind == "forall" else any(inst)

    def _verdict(self) -> str:
        items = list(self._state_verdicts())
        if self.table.kind == "forall":
            if any(dom and dfa.verdict[q] == VIOLATED for dfa, q, dom in items):
                return VIOLATED
            if all(dfa.verdict[q] == SATISFIED for dfa, q, _ in items):
                return SATISFIED
            return OPEN
        if any(dom and dfa.verdict[q] == SATISFIED for dfa, q, dom in items):
            return SATISFIED
        if all(dfa.verdict[q] == VIOLATED for dfa, q, _ in items):
            return VIOLATED
        return OPEN

    def instances(self) -> list[tuple[object, int, int, bool]]:
        """(value, static mask, state, in the domain) of every instance, for reports and
        snapshots (a list: values may be objects or lists, which no dict can be keyed by)."""
        return [(self.values[k], g.mask, g.state, k in self.domain) for k, g in self.where.items()]

    def to_json(self) -> dict[str, Any]:
        out = {"fresh": {str(m): s for m, s in self.fresh.items()},
               "values": [list(instance) for instance in self.instances()]}
        if self.parts:
            out["parts"] = [list(part.values()) for part in self.parts]
        return out

    @classmethod
    def from_json(cls, table: SliceTable, data: dict[str, Any], context: object = None) -> "SliceRun":
        run = cls(table, context)
        run.fresh = {int(m): s for m, s in data["fresh"].items()}
        if run.parts:  # the components' domains first: an instance is in the domain by them
            for i, values in enumerate(data["parts"]):
                for value in values:
                    run._extend(i, value)
            for value, mask, state, _ in data["values"]:
                run._admit(value)
                run._remove(key := value_key(value))
                run._place(key, mask, state)
            return run
        for value, mask, state, in_domain in data["values"]:
            key = value_key(value)
            run.values[key] = value
            if in_domain:
                run.domain.add(key)
            run._place(key, mask, state)
        return run
