"""History atoms, answered from per-run stores of the earlier calls they are about.

`earlier read_file(said(file_path) and contains(result, r)) with r = recipient` (`n.Earlier`,
made by the compiler from `once read_file(...)` read at the call that binds `r`) asks whether
some call before the current one matches the guard with `r` bound to the current call's
recipient. A run answers it without reading its trace again: each such atom has a store that
every recorded call to its tool passes through once.

At record time the guard's pieces that do not read the variable (`said(file_path)`) are
evaluated on the call; what is left is a condition on the variable alone (`contains(result,
r)`), kept in the form that answers fastest:

- equalities `t == r` and memberships `r in t` (a list): the values of `t`, in a set keyed
  by the language's equality (`value_key`), so a question costs one lookup;
- anything else (`contains(result, r)`, `exists t in result: lower(t.name) == lower(r)`): the
  call's arguments and result, with the condition compiled to a closure, tested per question;
- a guard true whatever the value: the atom is true from then on; false: nothing is kept.

This module imports only the standard library and `policyc.ir`.

>>> from policyc.ir import build as b
>>> r = b.var("r")
>>> rows = b.op("or", b.op("eq", b.field(b.index(b.result(), b.lit(0)), "iban"), r),
...             b.op("contains", b.field(b.index(b.result(), b.lit(1)), "note"), r))
>>> atom = b.earlier("contacts", "r", rows, b.arg("to"))
>>> store = EarlierStore(EarlierPlan(atom))
>>> env = DataEnv()
>>> store.add({}, [{"iban": "DE1"}, {"note": "pay FR7 today"}], env)
>>> store.holds("DE1", env), store.holds("FR7", env), store.holds("GB2", env)
(True, True, False)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Mapping

from policyc.ir import build as b
from policyc.ir import nodes as n
from policyc.ir.closures import Compiled, compile_term
from policyc.ir.data import DataEnv
from policyc.ir.ops import UNDEF, truthy, value_key, values_equal
from policyc.ir.walk import free_vars, subformulas

from policyc.tables.atoms import guard_leaves, reads_history

_CONNECTIVES = ("and", "or", "not")


def restrict(t: n.Term, truth: Mapping[n.Term, bool]) -> n.Term:
    """`t` with the leaves `truth` gives replaced by their truth, folded (`b.op` folds the
    connectives): what is left of a guard once some of its pieces are known."""
    if t in truth:
        return b.lit(truth[t])
    if isinstance(t, n.Op) and t.op in _CONNECTIVES:
        return b.op(t.op, *(restrict(a, truth) for a in t.args))
    return t


@dataclass(frozen=True)
class Residual:
    """What is left of a history atom's guard for one truth of its pieces that do not read the
    variable: always true, or a disjunction of equalities, memberships and other conditions."""

    always: bool
    keys: tuple[Compiled, ...] = ()      # `t == x`: the value of t
    members: tuple[tuple[Compiled, Compiled], ...] = ()  # `x in t`: (t, the membership itself)
    other: Compiled | None = None        # any other disjunct, on the stored call
    empty: bool = False                  # never true: the call is not kept


class EarlierPlan:
    """What a history atom's store does with a call, worked out once per atom (and per truth of
    the guard's pieces that do not read the variable)."""

    def __init__(self, atom: n.Earlier):
        self.atom = atom
        self.var = atom.var
        leaves = list(dict.fromkeys(guard_leaves(atom.guard)))
        self.fixed = tuple(leaf for leaf in leaves if atom.var not in free_vars(leaf))
        self.readers = tuple(compile_term(leaf) for leaf in self.fixed)
        self._residuals: dict[int, Residual] = {}

    def residual(self, mask: int) -> Residual:
        found = self._residuals.get(mask)
        if found is None:
            found = self._residuals[mask] = self._residual(mask)
        return found

    def _residual(self, mask: int) -> Residual:
        truth = {leaf: bool(mask >> i & 1) for i, leaf in enumerate(self.fixed)}
        left = restrict(self.atom.guard, truth)
        if isinstance(left, n.Lit):
            return Residual(truthy(left.value), empty=not truthy(left.value))
        x = n.Var(self.var)
        keys, members, other = [], [], []
        for part in left.args if isinstance(left, n.Op) and left.op == "or" else (left,):
            if isinstance(part, n.Op) and part.op == "eq" and x in part.args:
                side = part.args[1] if part.args[0] == x else part.args[0]
                if self.var not in free_vars(side):
                    keys.append(compile_term(side))
                    continue
            if isinstance(part, n.Op) and part.op == "in" and part.args[0] == x and self.var not in free_vars(part.args[1]):
                members.append((compile_term(part.args[1]), compile_term(part)))
                continue
            other.append(part)
        return Residual(False, tuple(keys), tuple(members), compile_term(b.op("or", *other)) if other else None)


def _reflexive(value: object) -> bool:
    """Whether a value equals itself (NaN, and lists holding one, equal nothing)."""
    return values_equal(value, value)


class EarlierStore:
    """One run's store for one history atom."""

    __slots__ = ("plan", "always", "keys", "kept")

    def __init__(self, plan: EarlierPlan):
        self.plan = plan
        self.always = False
        self.keys: set[object] = set()
        self.kept: list[tuple[Compiled, Mapping[str, Any], Any]] = []

    def add(self, args: Mapping[str, Any], result: Any, env: DataEnv) -> None:
        """A call to the atom's tool was recorded (`env`: the run's constants)."""
        if self.always:
            return
        plan = self.plan
        mask = 0
        for i, read in enumerate(plan.readers):
            if truthy(read(env, args, result)):
                mask |= 1 << i
        left = plan.residual(mask)
        if left.always:
            self.always = True
            self.keys.clear()
            self.kept.clear()
            return
        if left.empty:
            return
        for read in left.keys:
            value = read(env, args, result)
            if value is not UNDEF and _reflexive(value):
                self.keys.add(value_key(value))
        for read, membership in left.members:
            coll = read(env, args, result)
            if isinstance(coll, list):
                self.keys.update(value_key(v) for v in coll if _reflexive(v))
            elif isinstance(coll, (str, dict)):  # a text's substrings, an object's keys: asked as such
                self.kept.append((membership, args, result))
        if left.other is not None:
            self.kept.append((left.other, args, result))

    def holds(self, value: object, env: DataEnv) -> bool:
        """Whether some stored call matches the guard with the variable bound to `value`."""
        if self.always:
            return True
        if self.keys and _reflexive(value) and value_key(value) in self.keys:
            return True
        if self.kept:
            bound = env.bind(self.plan.var, value)
            return any(truthy(test(bound, args, result)) for test, args, result in self.kept)
        return False


class HistoryPlan:
    """The history atoms of a set of compiled tables, by the tool whose calls feed them."""

    def __init__(self, atoms: Iterable[n.Earlier]):
        self.plans = {atom: EarlierPlan(atom) for atom in dict.fromkeys(atoms)}
        by_tool: dict[str, list[n.Earlier]] = {}
        for atom in self.plans:
            by_tool.setdefault(atom.tool, []).append(atom)
        self.by_tool = {tool: tuple(atoms) for tool, atoms in by_tool.items()}

    def __bool__(self) -> bool:
        return bool(self.plans)

    def stores(self) -> dict[n.Earlier, EarlierStore]:
        return {atom: EarlierStore(plan) for atom, plan in self.plans.items()}


def earlier_atoms(terms: Iterable[n.Node]) -> list[n.Earlier]:
    """The history atoms inside these terms (guard atoms of an alphabet, say), once each."""
    found: dict[n.Earlier, None] = {}
    for term in terms:
        if reads_history(term):
            for sub in subformulas(term):
                if isinstance(sub, n.Earlier):
                    found[sub] = None
    return list(found)
