"""Guard combinations shown possible by calls built from what the atoms read.

The solver leaves some atoms free, or reads them only in part: a quantifier over a list whose
type the atom does not carry (`exists i in result: i.severity == 1 and i.open == true`), a
path into an untyped result. Its answer for such a group keeps every combination it cannot
rule out, and is then not exact: a search over the letters cannot take one of them as a
step some call makes. For a group that reads only the call (its arguments and its result),
`witnessed` tries the kept combinations on calls built from the atoms themselves: per
argument and for the result, the paths the atoms take into it (fields, a list's elements,
an index) as a tree, with at each leaf the literals it is compared with and values equal to
none of them; a list gets none, one and two elements. A combination such a call gives on the
evaluator (`eval_term`, the engines' own reading) is one a call can produce; when every kept
combination is given, the group's answer is exact. At most `MAX_BUILT` calls are tried.
`read_paths` and `apart` tell whether two groups the solver's encoding splits read places of
the call that one call ties together (`result.rows` and `len(result)`): then neither is exact.

>>> from policyc.ir import build as b
>>> sev1 = b.quant("exists", "i", b.result(), b.op("and", b.op("eq", b.field(b.var("i"), "severity"), b.lit(1)),
...                                                b.op("eq", b.field(b.var("i"), "open"), b.lit(True))))
>>> witnessed([sev1], [0, 1]), witnessed([sev1, b.op("eq", b.arg("n"), b.var("s"))], [0, 1])
(True, False)
"""

from __future__ import annotations

import itertools
from typing import Iterator, Sequence

from policyc.ir import nodes as n
from policyc.ir.data import DataEnv, eval_term
from policyc.ir.ops import UNDEF, is_number, truthy
from policyc.ir.walk import subformulas

#: The most calls `witnessed` builds for one group.
MAX_BUILT = 4096
#: The most values built for one place (a leaf, a record, a list) before combining places.
MAX_PER_PLACE = 48

#: What an atom may read for a built call to show its truth: the call alone (no bound
#: variable of a rule, no run's history, request or metrics, no extern predicate).
_CONTEXT = (n.Metric, n.Request, n.Attr, n.Extern, n.Values, n.Outputs, n.Done, n.From, n.Flows, n.Earlier)

Root = tuple[str, ...]          # ("arg", name) or ("result",)
Step = tuple[object, ...]       # ("field", name), ("index", k), ("each",)


class _Place:
    """A place the atoms read in a value: the literals compared with it, and the places below."""

    def __init__(self) -> None:
        self.read = False  # the atoms read the value here (not only places below it)
        self.literals: list[object] = []
        self.fields: dict[str, _Place] = {}
        self.items: dict[int, _Place] = {}
        self.each: _Place | None = None

    def below(self, step: Step) -> "_Place":
        if step[0] == "field":
            return self.fields.setdefault(str(step[1]), _Place())
        if step[0] == "index":
            return self.items.setdefault(int(step[1]), _Place())  # type: ignore[call-overload]
        if self.each is None:
            self.each = _Place()
        return self.each

    def values(self) -> list[object]:
        """Values for this place, at most `MAX_PER_PLACE`: scalars from its literals, records
        of its fields' values, lists of its elements' values."""
        out: list[object] = list(_scalars(self.literals)) if self.literals or not (self.fields or self.items
                                                                                      or self.each) else []
        if self.fields:
            names = sorted(self.fields)
            choices = [[UNDEF, *self.fields[k].values()] for k in names]
            for combo in itertools.islice(itertools.product(*choices), MAX_PER_PLACE):
                out.append({k: v for k, v in zip(names, combo) if v is not UNDEF})
        if self.each is not None or self.items:
            element = self.each if self.each is not None else _Place()
            if self.each is None:  # only indexed: each index's place is one element's
                for place in self.items.values():
                    element.literals += place.literals
                    element.fields.update(place.fields)
            elements = element.values()[:MAX_PER_PLACE]
            length = max(self.items, default=-1) + 1
            out.append([])
            out += [[e] * max(1, length) for e in elements]
            out += [[a, c] for a, c in itertools.islice(itertools.permutations(elements, 2), MAX_PER_PLACE)]
        return out[:MAX_PER_PLACE * 4]


def _scalars(literals: Sequence[object]) -> Iterator[object]:
    """The literals and values equal to none of them, of each kind they have."""
    seen: list[object] = []
    extra: list[object] = [None, True, False]
    for v in literals:
        if is_number(v):
            extra += [v + 1, v - 1]  # type: ignore[operator]
        elif isinstance(v, str):
            extra += ["", v + "~"]
    for v in [*literals, *extra]:
        if not any(type(v) is type(s) and v == s for s in seen):
            seen.append(v)
            yield v


def witnessed(atoms: Sequence[n.Term], masks: Sequence[int]) -> bool:
    """Whether every combination in `masks` (bit i: atom i holds) is the truth of the atoms
    on some call built from what they read (see the module's docstring)."""
    roots = _places(atoms)
    if roots is None or len(masks) > MAX_BUILT:
        return False
    wanted = set(masks)
    choices = [[(root, v) for v in place.values()] for root, place in roots.items()]
    for combo in itertools.islice(itertools.product(*choices), MAX_BUILT):
        args = {root[1]: v for root, v in combo if root[0] == "arg" and v is not UNDEF}
        result = next((v for root, v in combo if root[0] == "result"), UNDEF)
        env = DataEnv({}, args, result)
        wanted.discard(sum(1 << i for i, atom in enumerate(atoms) if truthy(eval_term(atom, env))))
        if not wanted:
            return True
    return False


def _places(atoms: Sequence[n.Term]) -> dict[Root, _Place] | None:
    """The places the atoms read, per root (None: some atom reads more than the call, or
    reads it in a way no place describes)."""
    roots: dict[Root, _Place] = {}
    for atom in atoms:
        quantified = {q.var for q in subformulas(atom) if isinstance(q, n.Quant)}
        if any(isinstance(sub, _CONTEXT) or isinstance(sub, n.Var) and sub.name not in quantified
               for sub in subformulas(atom)) or not _read(atom, {}, roots):
            return None
    return roots


def _read(t: n.Term, env: dict[str, tuple[Root, tuple[Step, ...]]], roots: dict[Root, _Place],
          above: Sequence[object] = ()) -> bool:
    """Record the places `t` reads (with the literals compared with them, and those compared
    with a function of them: `above`) under `roots`; False when it reads the call in a way no
    place describes (a computed index)."""
    if isinstance(t, n.Quant):
        domain = _path(t.domain, env)
        if domain is None:
            return False
        _place(roots, domain)
        inner = dict(env)
        inner[t.var] = (domain[0], (*domain[1], ("each",)))
        return _read(t.body, inner, roots)
    if isinstance(t, n.Op):
        literals = [a.value for a in t.args if isinstance(a, n.Lit)] + list(above)
        for a in t.args:
            if isinstance(a, n.Lit):
                continue
            path = _path(a, env)
            if path is not None:
                place = _place(roots, path)
                place.literals += [v for v in literals if v is None or isinstance(v, (bool, int, float, str))]
                if t.op == "in" and literals and isinstance(literals[0], list):
                    place.literals += [v for v in literals[0] if isinstance(v, (bool, int, float, str))]
            elif not _read(a, env, roots, literals):
                return False
        return True
    if isinstance(t, n.Lit):
        return True
    path = _path(t, env)
    if path is None:
        return False
    _place(roots, path).literals += [v for v in above if v is None or isinstance(v, (bool, int, float, str))]
    return True


def _path(t: n.Term, env: dict[str, tuple[Root, tuple[Step, ...]]]) -> tuple[Root, tuple[Step, ...]] | None:
    if isinstance(t, n.Arg):
        return ("arg", t.name), ()
    if isinstance(t, n.Result):
        return ("result",), ()
    if isinstance(t, n.Var):
        return env.get(t.name)
    if isinstance(t, n.Field):
        base = _path(t.base, env)
        return None if base is None else (base[0], (*base[1], ("field", t.name)))
    if isinstance(t, n.Index) and isinstance(t.index, n.Lit):
        base = _path(t.base, env)
        k = t.index.value
        if base is None:
            return None
        if isinstance(k, str):
            return base[0], (*base[1], ("field", k))
        if isinstance(k, int) and not isinstance(k, bool) and 0 <= k < 4:
            return base[0], (*base[1], ("index", k))
    return None


def _place(roots: dict[Root, _Place], path: tuple[Root, tuple[Step, ...]]) -> _Place:
    place = roots.setdefault(path[0], _Place())
    for step in path[1]:
        place = place.below(step)
    place.read = True
    return place


def read_paths(atoms: Sequence[n.Term]) -> frozenset[tuple[object, ...]] | None:
    """The places of the call the atoms read, each as (root, steps...); None when some atom
    reads something else (a variable, the run, an extern) or in a way no place describes."""
    roots = _places(atoms)
    if roots is None:
        return None
    out: set[tuple[object, ...]] = set()

    def walk(place: _Place, at: tuple[object, ...]) -> None:
        if place.read:
            out.add(at)
        for name, below in place.fields.items():
            walk(below, (*at, ("field", name)))
        for k, below in place.items.items():
            walk(below, (*at, ("index", k)))
        if place.each is not None:
            walk(place.each, (*at, ("each",)))

    for root, place in roots.items():
        walk(place, (root,))
    return frozenset(out)


def apart(a: frozenset[tuple[object, ...]], b: frozenset[tuple[object, ...]]) -> bool:
    """Whether no call ties the places of `a` to those of `b`: no place of one is inside a
    place of the other, and where two part, they are two fields of one object (or two indexes
    of one list), never an object's field beside a list's elements."""
    for p in a:
        for q in b:
            if p[0] != q[0]:
                continue
            for x, y in zip(p[1:], q[1:]):
                if x != y:
                    if x[0] != y[0] or x[0] == "each":  # type: ignore[index]
                        return False
                    break
            else:
                return False  # one is a prefix of the other (or they are the same place)
    return True
