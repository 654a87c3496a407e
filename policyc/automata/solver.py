"""Which combinations of a tool's guard atoms can hold together: decided by Z3.

A call's arguments and result, and the run's metrics, are arbitrary JSON values (the
evaluator accepts any, typed or not), so a term is encoded as a JSON value: a kind (⊥, null, bool, number, string, other)
with a boolean, a real and a string component. Comparisons follow `policyc.ir.ops`: an
operand that is ⊥ makes `==`, `!=`, `<`... false; numbers compare by value; booleans are
not numbers. Pieces Z3 cannot see into (extern predicates, `len`, `%`, list and object
equality, membership, arithmetic: Python's floating point and Z3's exact reals would
disagree on `0.1 + 0.2 == 0.3`) become fresh unconstrained values: a combination is pruned only when
it is impossible, never because it was not understood, and `exact` says whether every
piece was understood.

>>> from policyc.ir import build as b
>>> gt, lt = b.op("gt", b.arg("amount"), b.lit(100)), b.op("lt", b.arg("amount"), b.lit(50))
>>> masks, exact = satisfiable_masks([gt, lt])
>>> sorted(masks), exact       # bit i set: atom i holds; both together is impossible
([0, 1, 2], True)
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from policyc.automata.built import apart, read_paths, witnessed
from policyc.automata.one_value import OneValue, path_shape
from policyc.ir import nodes as n
from policyc.ir.dispatch import Cases
from policyc.ir.walk import subformulas

UNDEF, NULL, BOOL, NUM, STR, OTHER = range(6)


class TooManyCombinations(Exception):
    """More satisfiable combinations of guard atoms than a budget allows."""

    def __init__(self, limit: int):
        super().__init__(f"more than {limit} combinations of guard atoms can hold")
        self.limit = limit


#: The encoded value of each kind of term (a method of `_Encoder` each); kinds without a case
#: of their own are opaque: a fresh value, and the answer is no longer exact.
_VALUES: Cases[Callable[[_Encoder, Any], tuple]] = Cases("the guard encoding", n.TERMS,
                                                        default=lambda enc, t: enc.opaque("opaque"))


class _Encoder:
    def __init__(self, z3):
        self.z3 = z3
        self.vals: dict[n.Node, tuple] = {}
        self.side: list = []  # constraints that tie fresh values to their definitions
        self.lists: dict[n.Node, object] = {}  # per base term: whether its OTHER value is a list
        self.compared: set[n.Node] = set()  # terms compared with `==` / `!=` to something not literal
        self.exact = True
        self._fresh = 0

    def congruent(self) -> bool:
        """Whether equal values have equal contents as far as the atoms can tell: no term compared
        with another (possibly a list or an object, equal by identity) has paths taken from it.
        Otherwise `a == b`, `a.x == 1`, `b.x == 2` all hold for the encoding, so the answer is
        not exact."""
        return not any(t in self.lists for t in self.compared)

    def fresh_val(self, hint: str) -> tuple:
        z3 = self.z3
        self._fresh += 1
        k = f"{hint}#{self._fresh}"
        kind = z3.Int(f"k_{k}")
        self.side.append(z3.And(kind >= UNDEF, kind <= OTHER))
        return kind, z3.Bool(f"b_{k}"), z3.Real(f"r_{k}"), z3.String(f"s_{k}")

    def _listy(self, base: n.Term):
        """Whether an OTHER value is a list (not an object): one Z3 boolean per base term."""
        found = self.lists.get(base)
        if found is None:
            found = self.lists[base] = self.z3.Bool(f"list#{len(self.lists)}")
        return found

    def opaque(self, hint: str) -> tuple:
        self.exact = False
        return self.fresh_val(hint)

    # -------------------------------------------------------------- values

    def val(self, t: n.Term) -> tuple:
        """The encoded value of a term: one case per kind of term, opaque for the kinds the
        encoding does not see into."""
        cached = self.vals.get(t)
        if cached is not None:
            return cached
        out = self.vals[t] = _VALUES[t.__class__](self, t)
        return out

    @_VALUES.on(n.Lit)
    def _lit(self, t: n.Lit) -> tuple:
        return self.literal(t.value)

    @_VALUES.on(n.Arg, n.Result, n.Metric, n.Request)
    def _given(self, t: n.Term) -> tuple:
        return self.fresh_val("arg")  # a call's value, or a trace-level one (metrics, request): any JSON value

    @_VALUES.on(n.Var)
    def _var(self, t: n.Var) -> tuple:
        out = self.fresh_val("var")
        self.side.append(out[0] != UNDEF)
        return out

    @_VALUES.on(n.Field, n.Index)
    def _path(self, t: n.Field | n.Index) -> tuple:
        z3 = self.z3
        base = self.val(t.base)
        out = self.fresh_val("path")
        shape = path_shape(t)
        listy = self._listy(t.base)  # an object or a list, when the base is OTHER
        if shape == "object":  # `.name` or `["name"]`: only an object has it
            allowed = z3.And(base[0] == OTHER, z3.Not(listy))
        elif shape == "list":  # `[i]`: an item of a list, or a text's character
            allowed = z3.Or(z3.And(base[0] == OTHER, listy), base[0] == STR)
            i = t.index.value  # type: ignore[union-attr]  # a list path is an index by a literal int
            length = z3.Length(base[3])
            at = z3.IntVal(i) if i >= 0 else length + i
            self.side.append(z3.Implies(base[0] == STR, z3.If(
                z3.And(at >= 0, at < length), z3.And(out[0] == STR, out[3] == z3.SubString(base[3], at, 1)),
                out[0] == UNDEF)))
        else:  # an index known only on the call: either, not told apart
            allowed = z3.Or(base[0] == OTHER, base[0] == STR)
            self.exact = False
        self.side.append(z3.Implies(out[0] != UNDEF, allowed))
        if not isinstance(t.base, (n.Arg, n.Result, n.Request, n.Field, n.Index, n.Var)):
            self.exact = False
        return out

    @_VALUES.on(n.Op)
    def _op(self, t: n.Op) -> tuple:
        if t.op == "neg":
            return self.negation(t)
        if _is_boolean_op(t.op):
            out = self.fresh_val("bool")
            self.side.append(out[0] == BOOL)
            self.side.append(out[1] == self.truth(t))
            return out
        return self.opaque("opaque")

    def literal(self, v: object) -> tuple:
        z3 = self.z3
        kind, b, r, s = self.fresh_val("lit")
        if v is None:
            self.side.append(kind == NULL)
        elif isinstance(v, bool):
            self.side.append(z3.And(kind == BOOL, b == v))
        elif isinstance(v, (int, float)):
            self.side.append(z3.And(kind == NUM, r == z3.RealVal(repr(v) if isinstance(v, float) else v)))
        elif isinstance(v, str):
            self.side.append(z3.And(kind == STR, s == z3.StringVal(v)))
        else:
            self.side.append(kind == OTHER)
        return kind, b, r, s

    def negation(self, t: n.Op) -> tuple:
        z3 = self.z3
        (ka, _, ra, _), = (self.val(a) for a in t.args)
        kind, b, r, s = out = self.fresh_val("neg")
        self.side.append(z3.If(ka == NUM, z3.And(kind == NUM, r == -ra), kind == UNDEF))
        return out

    # -------------------------------------------------------------- conditions

    def truth(self, t: n.Term):  # noqa: C901 - one case per operator
        """A Z3 boolean: the term read as a condition (only `true` is true)."""
        z3 = self.z3
        if isinstance(t, n.Op):
            if t.op == "and":
                return z3.And(*[self.truth(a) for a in t.args])
            if t.op == "or":
                return z3.Or(*[self.truth(a) for a in t.args])
            if t.op == "not":
                return z3.Not(self.truth(t.args[0]))
            if t.op in ("eq", "ne", "lt", "le", "gt", "ge", "contains", "startswith", "endswith"):
                a, c = (self.val(x) for x in t.args)
                defined = z3.And(a[0] != UNDEF, c[0] != UNDEF)
                if t.op in ("eq", "ne") and any(isinstance(x, n.Lit) and isinstance(x.value, (list, dict))
                                                for x in t.args):
                    self.exact = False  # a list's or an object's literal contents are not encoded
                if t.op in ("eq", "ne") and not any(isinstance(x, n.Lit) for x in t.args):
                    self.compared.update(t.args)
                if t.op == "eq":
                    return self.equal(t, a, c)
                if t.op == "ne":
                    return z3.And(defined, z3.Not(self.equal(t, a, c)))
                if t.op in ("contains", "startswith", "endswith"):
                    strs = z3.And(a[0] == STR, c[0] == STR)
                    fn = {"contains": lambda x, y: z3.Contains(x, y), "startswith": lambda x, y: z3.PrefixOf(y, x),
                          "endswith": lambda x, y: z3.SuffixOf(y, x)}[t.op]
                    return z3.And(strs, fn(a[3], c[3]))
                cmp = {"lt": lambda x, y: x < y, "le": lambda x, y: x <= y,
                       "gt": lambda x, y: x > y, "ge": lambda x, y: x >= y}[t.op]
                nums = z3.And(a[0] == NUM, c[0] == NUM, cmp(a[2], c[2]))
                strs = z3.And(a[0] == STR, c[0] == STR, cmp(a[3], c[3]))
                return z3.Or(nums, strs)
            if t.op == "in":
                x, coll = t.args
                if isinstance(coll, n.Lit) and isinstance(coll.value, list) \
                        and all(v is None or isinstance(v, (bool, int, float, str)) for v in coll.value):
                    a = self.val(x)  # a literal list of scalars: equal to one of them
                    return z3.Or(*[self.equal(t, a, self.literal(v)) for v in coll.value]) if coll.value \
                        else z3.BoolVal(False)
                if isinstance(coll, n.Lit) and isinstance(coll.value, str):
                    a = self.val(x)
                    return z3.And(a[0] == STR, z3.Contains(z3.StringVal(coll.value), a[3]))
                self.exact = False
                return z3.And(self.val(t.args[0])[0] != UNDEF, z3.Bool(f"in#{t.skey}"))
        if isinstance(t, n.Extern):
            self.exact = False
            return z3.Bool(f"extern#{t.skey}")
        kind, b, _, _ = self.val(t)
        return z3.And(kind == BOOL, b)

    def equal(self, t: n.Term, a: tuple, c: tuple):
        z3 = self.z3
        # two lists or objects are equal when they are the same value: one identity per value
        # (so equality is transitive); their contents are not compared (see `congruent`)
        same_other = z3.Int(f"id_{a[0]}") == z3.Int(f"id_{c[0]}")
        return z3.And(a[0] == c[0], a[0] != UNDEF, z3.Or(
            a[0] == NULL,
            z3.And(a[0] == BOOL, a[1] == c[1]),
            z3.And(a[0] == NUM, a[2] == c[2]),
            z3.And(a[0] == STR, a[3] == c[3]),
            z3.And(a[0] == OTHER, same_other),
        ))


_VALUES.complete()


def _is_boolean_op(op: str) -> bool:
    return op in ("and", "or", "not", "eq", "ne", "lt", "le", "gt", "ge", "in", "contains", "startswith", "endswith")


#: Solver steps one combination may take (a resource limit: the same answer on every machine).
MASK_RLIMIT = 5_000_000


def satisfiable_masks(atoms: Sequence[n.Term], limit: int | None = None) -> tuple[list[int], bool]:
    """Every truth assignment of `atoms` (bit i = atom i) some call can produce.

    Returns the satisfiable assignments and whether the decision was exact (every piece of
    every atom understood); when it is not, unknown pieces were left free, so the list can
    only contain too many assignments, never too few. With a `limit`, more than `limit`
    assignments raise `TooManyCombinations`.

    The atoms are split into groups that share no value of the encoding (`amount` and
    `note`; `lower(text)` and `text`, which the encoding does not relate): the assignments
    are every combination of the groups' own. A group whose atoms all test one value against
    literals is decided by trying values (`one_value`), asking the solver only about
    assignments no value tried gives, and not even then when the values tried cover every
    case. The answer, in the order of `solver_masks`, is that search's over all atoms at
    once, found faster (or fewer, where that search's solver gives up on a combination a
    smaller group settles).
    """
    if not atoms:
        return [0], True
    out = [0]
    exact = True
    through: list[set[n.Term]] = []  # per group decided through a function (`lower(x)`), its inputs
    others: list[set[n.Term]] = []
    numbered = independent_groups(atoms)
    groups = [[atoms[i] for i in group] for group in numbered]
    built: list[int] = []  # the groups shown exact by built calls
    for k, (group, part) in enumerate(zip(numbered, groups)):
        values = OneValue.of(part)
        masks, sure = _search(part, limit, values)
        # what the solver left free (a piece it does not see into, tried as a free value,
        # witnesses nothing real) may be shown possible by calls built from what the atoms read
        if not sure and (values is None or not values.real) and witnessed(part, masks):
            sure = True
            built.append(k)
        (through if values is not None and values.real and not values.exact and sure else others).append(
            _roots(part))
        exact &= sure
        placed = [sum(1 << group[bit] for bit in range(len(group)) if m >> bit & 1) for m in masks]
        out = [a | c for a in out for c in placed]
        if limit is not None and len(out) > limit:
            raise TooManyCombinations(limit)
    for k, roots in enumerate(through):  # an input read through a function and another way too:
        if any(roots & other for other in others + through[:k] + through[k + 1:]):
            exact = False  # the groups are not independent after all (`lower(x)`, `len(x)`)
    if built and exact and not _built_apart(groups, built):
        exact = False
    return sorted(out, key=lambda m: [m >> i & 1 for i in range(len(atoms))]), exact


def _built_apart(groups: Sequence[Sequence[n.Term]], built: Sequence[int]) -> bool:
    """Whether each group shown exact by built calls reads no place of the call another group
    reads (the encoding splits `result.rows` from `len(result)`, which a call ties together)."""
    paths = [read_paths(group) for group in groups]
    for k in built:
        mine = paths[k]
        for j, theirs in enumerate(paths):
            if j == k:
                continue
            if mine is None or theirs is None:
                if _roots(groups[k]) & _roots(groups[j]):
                    return False
            elif not apart(mine, theirs):
                return False
    return True


def _roots(atoms: Sequence[n.Term]) -> set[n.Term]:
    """The inputs of a call the atoms read (arguments, result, attributes, metrics, request,
    variables)."""
    kinds = (n.Arg, n.Result, n.Attr, n.Metric, n.Request, n.Var)
    return {sub for atom in atoms for sub in subformulas(atom) if isinstance(sub, kinds)}


def solver_masks(atoms: Sequence[n.Term], limit: int | None = None) -> tuple[list[int], bool]:
    """`satisfiable_masks` by the solver alone, over all atoms at once: the reference the
    faster decision is tested against. The search refines the assignments atom by atom,
    keeping only satisfiable partial ones, so its cost follows the number of combinations
    that exist, not 2^n; the masks come in the order of that search (atom 0 false first)."""
    if not atoms:
        return [0], True
    return _search(atoms, limit, None)


def _search(atoms: Sequence[n.Term], limit: int | None, values: OneValue | None) -> tuple[list[int], bool]:
    """The refinement search. With `values` (the atoms test one value), a partial assignment a
    tried value gives needs no solver, nor one the values tried show impossible; the solver
    is built only when some assignment needs it."""
    checker: list = []  # [solver, per atom its literal and the literal's negation, encoder], once built
    unknown: list[int] = []  # combinations the solver could not settle (kept: the answer is then not exact)

    def satisfiable(mask: int, known: int) -> bool:
        if values is not None:
            if values.witness(mask, known) is not None:
                return True
            if values.complete:
                return False
        import z3

        if not checker:
            checker.extend(_checker(z3, atoms))
        solver, lits, _ = checker
        assumed = [lits[i][mask >> i & 1] for i in range(len(atoms)) if known >> i & 1]
        answer = solver.check(*assumed)
        if answer == z3.unknown:
            unknown.append(mask)
        return answer != z3.unsat

    out: list[int] = []

    def search(i: int, mask: int) -> None:
        if i == len(atoms):
            out.append(mask)
            if limit is not None and len(out) > limit:
                raise TooManyCombinations(limit)
            return
        for value in (False, True):
            now = mask | (1 << i) if value else mask
            if satisfiable(now, (1 << (i + 1)) - 1):
                search(i + 1, now)

    search(0, 0)
    if values is not None:
        full = (1 << len(atoms)) - 1
        if values.real and all(values.witness(m, full) is not None for m in out):
            return out, True  # each combination given by a value the subject takes: by some call
        return out, values.exact and not unknown
    # without `values`, every assignment asked the solver
    return out, checker[2].exact and checker[2].congruent() and not unknown


def _checker(z3, atoms: Sequence[n.Term]) -> tuple:
    """A solver holding the atoms' encoding, per atom a literal and its negation (assumed: no
    push and pop, slow with strings), and the encoder."""
    enc = _Encoder(z3)
    conds = [enc.truth(a) for a in atoms]
    solver = z3.Solver()
    solver.set("rlimit", MASK_RLIMIT)  # a combination the solver cannot settle in time stays possible
    solver.add(*enc.side)
    lits = [z3.Bool(f"atom#{i}") for i in range(len(conds))]
    solver.add(*[lit == cond for lit, cond in zip(lits, conds)])
    return solver, [(z3.Not(lit), lit) for lit in lits], enc


def independent_groups(atoms: Sequence[n.Term]) -> list[list[int]]:
    """The atoms (by index) in groups that share no value of the solver's encoding, in the
    order of their first atoms."""
    parent = list(range(len(atoms)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    reads = [_truth_reads(atom) for atom in atoms]
    direct = set().union(*reads)
    shapes: dict = {}  # per base: the shapes of the path steps taken from it
    for key in direct:
        while isinstance(key, (n.Field, n.Index)):
            shapes.setdefault(key.base, set()).add(path_shape(key))
            key = key.base
    told_apart = {base for base, seen in shapes.items() if len(seen) > 1 or "either" in seen}
    owner: dict = {}
    for i, keys in enumerate(reads):
        for key in keys:
            if isinstance(key, tuple):  # a path's base, which relates paths only when it is read
                # itself, or when steps of different shapes are taken from it (an object has no
                # items, a list no names)
                if key[1] not in direct and key[1] not in told_apart:
                    continue
                key = key[1]
            if key in owner:
                parent[find(i)] = find(owner[key])
            else:
                owner[key] = i
    groups: dict[int, list[int]] = {}
    for i in range(len(atoms)):
        groups.setdefault(find(i), []).append(i)
    return list(groups.values())


def _value_reads(t: n.Term) -> set:
    """The terms whose encoded values (or named conditions) `_Encoder.val(t)` constrains.

    A path (`result.a`) only asks of its base to be an object (or a list or text) when the
    path is defined, which a base can be for every path of one shape at once: two paths of one
    base are related only through an atom that reads the base itself, or when one names a
    field and the other an item. Such a base is listed as ("base", term), for
    `independent_groups` to keep then."""
    if isinstance(t, n.Lit):
        return set()  # a constant: relates nothing
    if isinstance(t, (n.Field, n.Index)):
        out: set = {t}
        base = t.base
        while isinstance(base, (n.Field, n.Index)):
            out.add(("base", base))
            base = base.base
        if isinstance(base, (n.Arg, n.Result, n.Request, n.Metric, n.Var)):
            return out | {("base", base)}
        return out | _value_reads(base)
    if isinstance(t, n.Op) and t.op == "neg":
        return {t} | _value_reads(t.args[0])
    if isinstance(t, n.Op) and _is_boolean_op(t.op):
        return {t} | _truth_reads(t)
    return {t}  # a call's or the trace's value, a variable, or a fresh value for an opaque piece


def _truth_reads(t: n.Term) -> set:
    """The same for `_Encoder.truth(t)`."""
    if isinstance(t, n.Op):
        if t.op in ("and", "or", "not"):
            return set().union(*(_truth_reads(a) for a in t.args))
        if t.op in ("eq", "ne", "lt", "le", "gt", "ge", "contains", "startswith", "endswith"):
            return {t} | _value_reads(t.args[0]) | _value_reads(t.args[1])  # t: its own name for unequal objects
        if t.op == "in":
            return {t} | _value_reads(t.args[0])
    if isinstance(t, n.Extern):
        return {t}
    return _value_reads(t)
