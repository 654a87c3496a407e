"""What the lint asks the automata: exact answers for traces of every length.

A question is a list of claims (`policyc.lint.claims`). The automata answer it when every
claim compiles to one DFA (`policyc.automata`): they search the claims' product, the one
product of `policyc.tables.product` (`JointSpace`), for a run that satisfies every claim,
with the search the gate uses too (`policyc.tables.joint.JointSearch.run`: a shortest run by
A* with the claims' own distances to acceptance, or a greedy one). Three things make the
answer exact:

- a condition on the run's metrics is a free input, the same at every position: the
  question is answered once per possible truth of the metrics conditions it reads
  (combinations no metrics record can produce are left out);
- guards of several claims on one tool (`fetch(id == 3)` in one rule, `fetch(id > 5)` in
  another) combine in ways no single rule's compiler decided: a carrier automaton with one
  state, whose alphabet holds every combination of all those guards that some call can
  produce (decided by the same solver the compiler uses), joins the product, so that the
  product's moves are exactly the calls that can happen;
- a terminal tool only ends a run.

The answer is a path of moves (a witness, made concrete by `policyc.lint.concretize` and
replayed on the evaluator before anyone sees it), "empty" (no run of any length: exact), or
unknown when a claim does not compile, a tool has too many guard atoms to enumerate, or the
search outgrows its budget. Every answer is a pure function of the claims, so it is
memoised (the per-pair answers of the lint, for instance, are asked once).

>>> from policyc.ir import build as b
>>> from policyc.lint.claims import Claim
>>> from policyc.smt import bare_tools
>>> auto = LintAutomata(bare_tools("a", "b"))
>>> a = b.event("a")
>>> at_least_3 = b.eventually(b.conj(a, b.next_(b.eventually(b.conj(a, b.next_(b.eventually(a)))))))
>>> auto.decide([Claim("n", at_least_3, False)]).status, len(auto.decide([Claim("y", at_least_3)]).calls)
('witness', 3)
>>> auto.decide([Claim("f", b.eventually(a)), Claim("g", b.always(b.neg(a)))]).status
'empty'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

from policyc.automata import NotCompilable, compile_rule
from policyc.automata.joint import MAX_JOINT_COMBINATIONS, combinations
from policyc.automata.one_value import OneValue
from policyc.automata.solver import TooManyCombinations, independent_groups
from policyc.automata.specialise import specialise
from policyc.ir import nodes as n
from policyc.ir.data import CallArgs, DataEnv, eval_term
from policyc.ir.ops import UNDEF, truthy
from policyc.ir.types import MESSAGE_SIGNATURE, OptionalT, ToolSignature, value_problems
from policyc.ir.walk import subformulas
from policyc.lint.claims import Claim, metric_atoms, reads_only_metrics
from policyc.tables.atoms import guard_leaves, reads_constants, reads_history, reads_result
from policyc.tables.dfa import SATISFIED, VIOLATED, Alphabet, DfaTable, ToolLetters
from policyc.tables.joint import GREEDY, OVER_BUDGET, SHORTEST, JointSearch
from policyc.tables.product import OTHER, JointSpace
from policyc.tables.rule import RuleTable
from policyc.trace.model import view_actors

#: Table entries (joint states times automata) one search may hold before it gives up.
SEARCH_ENTRIES = 500_000
#: ... and joint states, at most.
SEARCH_STATES = 200_000

#: Conditions on one tool's calls a formula may have for the lint to compile it, and the
#: conditions of several claims on one tool whose combinations a product decides (each
#: combination is a solver call: beyond them, the tool's letters are left as the claims have them).
MAX_TOOL_CONDITIONS = 8

#: Conditions on the request and the metrics one question may read (it is searched once per
#: combination of their truths).
MAX_INPUT_CONDITIONS = 6

WITNESS, EMPTY, UNKNOWN = "witness", "empty", "unknown"


@dataclass(frozen=True)
class Decision:
    """The automata's answer to a question.

    `calls`: for a witness, each call of a shortest run, as (tool, the truth of each guard
    atom of that tool); `metrics`: the truth of each metrics condition the run needs.
    `reason`: why an unknown answer is unknown."""

    status: str
    calls: tuple[tuple[str, tuple[tuple[n.Term, bool], ...]], ...] = ()
    metrics: tuple[tuple[n.Term, bool], ...] = ()
    reason: str = ""
    explored: int = 0


class LintAutomata:
    """The automata of one lint run: every formula compiled at most once, every product
    search done at most once."""

    def __init__(self, tools: Mapping[str, ToolSignature], terminal: frozenset[str] = frozenset(),
                 observes: frozenset[str] = frozenset()):
        self.tools = tools
        self.terminal = terminal
        self.observes = observes
        self._tables: dict[n.Formula, RuleTable | None] = {}
        self._reasons: dict[n.Formula, str] = {}
        self._searches: dict[tuple, Decision] = {}
        self._masks: dict[tuple[n.Term, ...], tuple[list[int], bool] | None] = {}
        self._complements: dict[n.Formula, DfaTable] = {}
        self._compiles: dict[tuple[n.Formula, bool], bool] = {}
        self._quantified: dict[n.Formula, bool] = {}

    def masks(self, atoms: Sequence[n.Term]) -> tuple[list[int], bool] | None:
        """The combinations of these conditions some call (or metrics record) can produce, and
        whether no impossible one is among them; None when there are more than
        `MAX_JOINT_COMBINATIONS`. Read off an earlier answer for more atoms when there is one
        (a projection of every combination of a superset is every combination of the set)."""
        key = tuple(atoms)
        if key in self._masks:
            return self._masks[key]
        found = self._project(key)
        if found is None:
            try:
                found = combinations(key, MAX_JOINT_COMBINATIONS)
            except TooManyCombinations:
                found = None
        if found is not None and not found[1]:
            found = (_without_blank_conflicts(key, found[0]), False)
        self._masks[key] = found
        return found

    def tool_masks(self, tool: str, atoms: Sequence[n.Term]) -> tuple[list[int], bool] | None:
        """`masks` of a tool's guard atoms, without the combinations no call as the tool is
        declared can produce (its required arguments are given) nor any actor of the policy's
        view (a call is the agent's unless the policy observes the user's calls; a message is
        the agent's or the user's)."""
        sig = self.tools.get(tool)
        found = self.masks(atoms)
        if found is not None and sig is not None:
            found = (_typed(atoms, found[0], sig), found[1])
        reading = [i for i, a in enumerate(atoms) if _reads_actor(a)]
        if found is None or sig is None or not reading:
            return found
        actors = view_actors(sig == MESSAGE_SIGNATURE, self.observes)
        truths = [[_actor_truth(atoms[i], u) for i in reading] for u in actors]
        kept = [m for m in found[0]
                if any(all(t is None or t == bool(m >> i & 1) for i, t in zip(reading, row)) for row in truths)]
        return kept, found[1]

    def _project(self, key: tuple[n.Term, ...]) -> tuple[list[int], bool] | None:
        wanted = set(key)
        for pool, answer in self._masks.items():
            if answer is None or len(pool) <= len(key) or not wanted <= set(pool):
                continue
            bits = [pool.index(a) for a in key]
            seen = {sum(1 << i for i, bit in enumerate(bits) if m >> bit & 1) for m in answer[0]}
            return sorted(seen), answer[1]
        return None

    # ------------------------------------------------------------ compiling

    def table(self, phi: n.Formula) -> RuleTable | None:
        """The formula's compiled table; None outside the compiled fragment, or when one tool
        has more than `MAX_TOOL_CONDITIONS` conditions (their combinations are enumerated)."""
        if phi not in self._tables:
            crowded = _crowded_tool(phi)
            try:
                if crowded is not None:
                    raise NotCompilable(f"`{crowded}` has more than {MAX_TOOL_CONDITIONS} conditions on its calls")
                self._tables[phi] = compile_rule(phi, self.tools).table
            except NotCompilable as exc:
                self._tables[phi] = None
                self._reasons[phi] = exc.reason
        return self._tables[phi]

    def reason(self, phi: n.Formula) -> str | None:
        """Why a formula does not compile (None when it does)."""
        self.table(phi)
        return self._reasons.get(phi)

    def dfa(self, phi: n.Formula) -> DfaTable | None:
        """The formula's single DFA; None when it has quantified parts or does not compile.
        A negation's is the complement of its argument's (not compiled again)."""
        if isinstance(phi, n.Not) and phi not in self._tables:
            if phi in self._complements:
                return self._complements[phi]
            inner = self.dfa(phi.arg)
            if inner is not None:
                found = self._complements[phi] = _complement(inner)
                return found
        table = self.table(phi)
        dfa = None if table is None else table.dfa
        if dfa is not None and reads_the_run(dfa):
            # its language depends on the run's constants or history: the gate reads it with a
            # run's, a question over every run is the solver's (as before the automata took it)
            self._reasons.setdefault(phi, "it reads the run's request, metrics or history at each call")
            return None
        return dfa

    def compiles(self, claim: Claim) -> bool:
        """Whether the automata can take this claim into a product (metrics conditions aside)."""
        key = (claim.formula, claim.expected)
        found = self._compiles.get(key)
        if found is None:
            phi = _without_metrics(claim.positive)
            found = self._compiles[key] = phi is not None and self.dfa(phi) is not None
        return found

    def quantified(self, phi: n.Formula) -> bool:
        """Whether the formula has a quantifier over trace values (remembered)."""
        found = self._quantified.get(phi)
        if found is None:
            found = self._quantified[phi] = any(isinstance(s, (n.Forall, n.Exists)) for s in subformulas(phi))
        return found

    def shortest_satisfying_length(self, phi: n.Formula) -> int | None:
        """The length of a shortest run satisfying `phi` alone, read off its minimal DFA;
        None when it does not compile to one DFA, or no run satisfies it.

        >>> from policyc.ir import build as b
        >>> from policyc.smt import bare_tools
        >>> seq = b.eventually(b.conj(b.event("a"), b.next_(b.eventually(b.event("b")))))
        >>> LintAutomata(bare_tools("a", "b")).shortest_satisfying_length(seq)
        2
        """
        dfa = self.dfa(phi)
        return None if dfa is None else dfa.dist_accept[dfa.initial]

    # ------------------------------------------------------------ deciding

    def decide(self, claims: Sequence[Claim], shortest: bool = False, budget: int = SEARCH_STATES,
               shared: bool = False) -> Decision:
        """Is there a run, of any length, on which every claim takes its truth value? With
        `shortest`, a witness is a shortest run (A*); otherwise the search heads for
        acceptance greedily, which is much faster on large products. `budget`: the joint
        states one search may visit, or, `shared`, all the searches of the question (one per
        truth of the metrics conditions) together."""
        formulas = [c.positive for c in claims]
        atoms = metric_atoms(formulas)
        if len(atoms) > MAX_INPUT_CONDITIONS:
            return Decision(UNKNOWN, reason=f"{len(atoms)} conditions on the trace's metrics and request: more "
                                            f"than {MAX_INPUT_CONDITIONS} to search once per combination")
        decided = self.masks(atoms) if atoms else ([0], True)
        if decided is None:
            return Decision(UNKNOWN, reason=f"{len(atoms)} conditions on the trace's metrics and request have "
                                            f"more than {MAX_JOINT_COMBINATIONS} combinations")
        masks = decided[0]
        unknown = None
        explored = 0
        for mask in masks:
            truth = {a: bool(mask >> i & 1) for i, a in enumerate(atoms)}
            specialised = [_specialise_metrics(f, truth) if atoms else f for f in formulas]
            if any(f is None for f in specialised):
                return Decision(UNKNOWN, reason="a metrics condition the automata cannot read")
            left = budget - explored if shared else budget
            if left <= 0:
                return Decision(UNKNOWN, reason=f"the searches outgrew {budget} joint states", explored=explored)
            found = self._search(tuple(specialised), shortest, left)  # type: ignore[arg-type]
            explored += found.explored
            if found.status == WITNESS:
                metrics = tuple((a, truth[a]) for a in atoms)
                return Decision(WITNESS, found.calls, metrics, explored=explored)
            if found.status == UNKNOWN:
                unknown = found
        if unknown is not None:
            return Decision(UNKNOWN, reason=unknown.reason, explored=explored)
        return Decision(EMPTY, explored=explored)

    def _search(self, formulas: tuple[n.Formula, ...], shortest: bool, budget: int) -> Decision:
        key = (formulas, shortest, budget)
        found = self._searches.get(key)
        if found is None and not shortest:
            done = self._searches.get((formulas, True, budget))  # a shortest run is a run
            found = done if done is not None and done.status != UNKNOWN else None
        if found is None:
            found = self._searches[key] = self._search_product(formulas, shortest, budget)
        return found

    def _search_product(self, formulas: tuple[n.Formula, ...], shortest: bool, states: int) -> Decision:
        """Search the claims' product; claims over disjoint tools (local automata: a call to a
        tool they do not mention leaves them where they are) are searched apart, each group
        once for every question it is part of, and their runs put one after the other."""
        dfas = []
        for phi in formulas:
            dfa = self.dfa(phi)
            if dfa is None:
                return Decision(UNKNOWN, reason=self.reason(phi) or "quantified parts")
            dfas.append(dfa)
        groups = _independent_groups(dfas)
        if len(groups) == 1:
            return self._search_group(dfas, shortest, states, keep_others=True)
        runs: list[Decision] = []
        explored = 0
        for group in groups:
            found = self._search(tuple(formulas[i] for i in group), shortest, states) if len(group) < len(dfas) \
                else self._search_group(dfas, shortest, states, keep_others=True)
            explored += found.explored
            if found.status != WITNESS:
                return Decision(found.status, reason=found.reason, explored=explored)
            runs.append(found)
        mentioned = {t for d in dfas for t in d.alphabet.tools}
        pieces = [tuple(c for c in run.calls if c[0] in mentioned) for run in runs]
        ending = [p for p in pieces if p and p[-1][0] in self.terminal]
        if len(ending) > 1:  # two groups need to end the run: only the whole product can tell
            return self._search_group(dfas, shortest, states, keep_others=True)
        calls = tuple(c for p in pieces if p not in ending for c in p) + tuple(c for p in ending for c in p)
        return Decision(WITNESS, calls, explored=explored)

    def _search_group(self, dfas: list[DfaTable], shortest: bool, states: int, keep_others: bool) -> Decision:
        carrier = _carrier(dfas, self.tool_masks)
        space = JointSpace(dfas + ([carrier] if carrier is not None else []), self.tools, self.terminal)
        budget = min(states, max(1_000, SEARCH_ENTRIES // max(1, len(space.tables))))
        found = JointSearch(space, budget).run(space.initial, range(len(space.tables)),
                                               SHORTEST if shortest else GREEDY)
        if found.why == OVER_BUDGET:
            return Decision(UNKNOWN, reason=f"the product of {len(dfas)} automata outgrew {budget} joint states",
                            explored=budget)
        if found.answer is None:
            return Decision(UNKNOWN, reason="a tool has too many guard conditions to enumerate",
                            explored=found.explored)
        if found.answer is False:
            return Decision(EMPTY, explored=found.explored)
        return Decision(WITNESS, tuple(self._call(space, move) for move in found.calls), explored=found.explored)

    def _call(self, space: JointSpace, move: tuple[str, int, bool]) -> tuple[str, tuple[tuple[n.Term, bool], ...]]:
        key, mask, final = move
        if key == OTHER:
            return _other_tool(space, self.tools, self.terminal, final), ()
        return key, tuple((atom, bool(mask >> bit & 1)) for bit, atom in enumerate(space.atoms[key]))


def _related(pool: list[n.Term]) -> list[n.Term]:
    """The conditions of a pool whose truths can depend on one another: those that read a
    value another one reads too, and those on who made the call (a condition alone on its
    value takes either truth wherever its claim's compiler allowed it)."""
    roots = [_roots(a) for a in pool]
    return [a for i, a in enumerate(pool)
            if _reads_actor(a) or any(roots[i] & roots[j] for j in range(len(pool)) if j != i)]


def _roots(atom: n.Term) -> frozenset:
    """The call values a condition reads: its arguments, its result, its attributes (a value
    seen through `strip` or a path is still that value)."""
    return frozenset(s if isinstance(s, (n.Arg, n.Attr)) else "result" for s in subformulas(atom)
                     if isinstance(s, (n.Arg, n.Attr, n.Result)))


def _typed(atoms: Sequence[n.Term], masks: list[int], sig: ToolSignature) -> list[int]:
    """The masks some call as the tool is declared can produce: for each group of atoms that
    test one argument against literals (`OneValue`, when its candidates cover every class of
    values), a value of the argument's type (left out only when it is optional) must give
    the group's truths. The compiler's solver lets any value stand there, of any type."""
    for group in independent_groups(atoms):
        one = OneValue.of([atoms[i] for i in group])
        if one is None or not one.complete or not isinstance(one.subject, n.Arg):
            continue
        param = sig.param(one.subject.name)
        if param is None:
            continue
        kind = param.type

        def typed(v: object, kind=kind) -> bool:
            return isinstance(kind, OptionalT) if v is UNDEF else not value_problems(v, kind)

        local = {m: sum(1 << j for j, i in enumerate(group) if m >> i & 1) for m in masks}
        possible = {x: one.value(x, typed)[0] for x in set(local.values())}
        masks = [m for m in masks if possible[local[m]]]
    return masks


def _crowded_tool(phi: n.Formula) -> str | None:
    """A tool with more than `MAX_TOOL_CONDITIONS` distinct conditions in the formula's
    patterns (the compiler enumerates their combinations), if any."""
    leaves: dict[str, set[n.Term]] = {}
    for sub in subformulas(phi):
        if isinstance(sub, n.Event):
            found = leaves.setdefault(sub.tool, set())
            found.update(guard_leaves(sub.guard))
            if len(found) > MAX_TOOL_CONDITIONS:
                return sub.tool
    return None


def _reads_actor(atom: n.Term) -> bool:
    return any(isinstance(s, n.Attr) and s.name == "actor" for s in subformulas(atom))


def _actor_truth(atom: n.Term, actor: str) -> bool | None:
    """The truth of a condition on who made a call, for this actor; None when it reads more
    than the actor and literals.

    >>> from policyc.ir import build as b
    >>> by_user = b.op("eq", b.attr("actor"), b.lit("user"))
    >>> _actor_truth(by_user, "user"), _actor_truth(by_user, "assistant"), _actor_truth(b.arg("x"), "user")
    (True, False, None)
    """
    if any(isinstance(s, (n.Arg, n.Result, n.Var, n.Extern, n.Metric, n.Request, n.Values, n.Outputs, n.Done))
           or isinstance(s, n.Attr) and s.name != "actor" for s in subformulas(atom)):
        return None
    return truthy(eval_term(atom, DataEnv({}, CallArgs({}, {"actor": actor}), UNDEF)))


def _without_blank_conflicts(atoms: Sequence[n.Term], masks: list[int]) -> list[int]:
    """The masks without those that say a text strips to nothing (`strip(text) == ""`: it is
    white space only) and that it, or its `lower`/`upper`, contains, starts with, ends with
    or equals a literal with a character that is not white space: no text does both. (The
    compiler's solver does not see into `strip` and keeps every combination.)

    >>> from policyc.ir import build as b
    >>> text = b.arg("text")
    >>> atoms = [b.op("eq", b.op("strip", text), b.lit("")), b.op("contains", text, b.lit("HUMAN AGENT"))]
    >>> _without_blank_conflicts(atoms, [0, 1, 2, 3])
    [0, 1, 2]
    """
    blank: dict[n.Term, int] = {}  # text -> bit of its `strip(text) == ""` atom
    shows: list[tuple[n.Term, int]] = []  # (text, bit of an atom that needs a visible character in it)
    for i, a in enumerate(atoms):
        if not (isinstance(a, n.Op) and len(a.args) == 2):
            continue
        x, lit = a.args
        if a.op == "eq" and isinstance(x, n.Lit):
            x, lit = lit, x
        if not (isinstance(lit, n.Lit) and isinstance(lit.value, str)):
            continue
        if a.op == "eq" and lit.value == "" and isinstance(x, n.Op) and x.op == "strip" and len(x.args) == 1:
            blank[x.args[0]] = i
        elif a.op in ("eq", "contains", "startswith", "endswith") and not lit.value.isspace() and lit.value:
            while isinstance(x, n.Op) and x.op in ("lower", "upper") and len(x.args) == 1:
                x = x.args[0]  # white space stays white space under lower and upper
            shows.append((x, i))
    clashes = [(blank[x], i) for x, i in shows if x in blank]
    if not clashes:
        return masks
    return [m for m in masks if not any(m >> i & 1 and m >> j & 1 for i, j in clashes)]


def _complement(dfa: DfaTable) -> DfaTable:
    """The DFA of the negation: acceptance and verdicts swapped, distances recomputed."""
    flip = {SATISFIED: VIOLATED, VIOLATED: SATISFIED}
    accepting = tuple(not a for a in dfa.accepting)
    size, letters = len(dfa.delta), dfa.alphabet.size
    dist: list[int | None] = [0 if a else None for a in accepting]
    first: list[int | None] = [None] * size
    frontier = [q for q in range(size) if accepting[q]]
    back: list[list[tuple[int, int]]] = [[] for _ in range(size)]
    for q, row in enumerate(dfa.delta):
        for letter in range(letters):
            back[row[letter]].append((q, letter))
    d = 0
    while frontier:
        d += 1
        nxt = []
        for t in frontier:
            for q, letter in back[t]:
                if dist[q] is None:
                    dist[q], first[q] = d, letter
                    nxt.append(q)
        frontier = nxt
    return DfaTable(dfa.alphabet, dfa.initial, dfa.delta, accepting, tuple(flip.get(v, v) for v in dfa.verdict),
                    tuple(first), tuple(dist), tuple(dfa.to_accept), ())


def reads_the_run(dfa: DfaTable) -> bool:
    """Whether a DFA's letters read the run's constants or history (a start per truth of the
    constants, or guard atoms that read them)."""
    return bool(dfa.initials) or any(reads_constants(a) or reads_history(a) for a in dfa.alphabet.atoms)


def _without_metrics(phi: n.Formula) -> n.Formula | None:
    """`phi` with its metrics conditions read as true (only to test whether it compiles)."""
    atoms = metric_atoms([phi])
    return _specialise_metrics(phi, {a: True for a in atoms}) if atoms else phi


def _specialise_metrics(phi: n.Formula, truth: Mapping[n.Term, bool]) -> n.Formula | None:
    """`phi` for one truth of its metrics conditions; None when a condition mixes the metrics
    with something else (then the formula does not compile anyway)."""
    conds = [s for s in subformulas(phi) if isinstance(s, n.Cond)]
    if not conds:
        return phi
    for c in conds:
        for leaf in guard_leaves(c.term):
            if reads_only_metrics(leaf) and leaf not in truth:
                return None
            if not reads_only_metrics(leaf) and any(isinstance(s, (n.Metric, n.Request)) for s in subformulas(leaf)):
                return None
    if not any(reads_only_metrics(leaf) for c in conds for leaf in guard_leaves(c.term)):
        return phi
    return _specialise_conds(phi, truth)


def _specialise_conds(phi: n.Formula, truth: Mapping[n.Term, bool]) -> n.Formula:
    """Replace the metrics conditions by their truth; other conditions are kept as they are."""
    covered: dict[n.Formula, n.Formula] = {}
    for sub in subformulas(phi):
        if isinstance(sub, n.Cond) and all(leaf in truth for leaf in guard_leaves(sub.term)):
            covered[sub] = specialise(sub, truth)
    if not covered:
        return phi
    from policyc.lint.rewrite import replace

    return replace(phi, covered)


def _carrier(dfas: list[DfaTable], decide) -> DfaTable | None:
    """A one-state automaton whose letters are the calls that can happen on the tools where
    the claims' guards meet, and on the tools whose guards test who made the call (None when
    there is no such tool). `decide(tool, atoms)` gives the combinations. A tool with too
    many combinations is left out: the product then keeps combinations no call produces,
    which can only add runs (an "empty" answer stays exact; a run found is made concrete and
    replayed before anyone sees it)."""
    pools: dict[str, list[n.Term]] = {}
    sets: dict[str, set[frozenset]] = {}
    for dfa in dfas:
        ab = dfa.alphabet
        for tool, letters in ab.tools.items():
            own = [ab.atoms[i] for i in letters.atoms]
            pool = pools.setdefault(tool, [])
            pool.extend(a for a in own if a not in pool)
            sets.setdefault(tool, set()).add(frozenset(own))
    meeting = [t for t in pools if not any(len(s) == len(pools[t]) for s in sets[t])
               or any(_reads_actor(a) for a in pools[t]) or len(_related(pools[t])) > 1]
    if not meeting:
        return None
    atoms: list[n.Term] = []
    tools: dict[str, ToolLetters] = {}
    letter = 0
    exact = True
    for tool in meeting:
        pool = _related(pools[tool])
        decided = decide(tool, pool) if pool and len(pool) <= 2 * MAX_TOOL_CONDITIONS else None
        if decided is None:
            continue
        ids = []
        for a in pool:
            if a not in atoms:
                atoms.append(a)
            ids.append(atoms.index(a))
        masks, sure = decided
        exact &= sure
        table = {}
        for mask in sorted(masks):
            table[mask] = letter
            letter += 1
        tools[tool] = ToolLetters(tuple(ids), table, sum(1 << i for i, a in enumerate(pool) if reads_result(a)))
    if not tools:
        return None
    alphabet = Alphabet(tuple(atoms), tools, letter, None, exact)
    row = tuple(0 for _ in range(alphabet.size))
    return DfaTable(alphabet, 0, (row,), (True,), (SATISFIED,), (None,), (0,), (None,))


def _independent_groups(dfas: list[DfaTable]) -> list[list[int]]:
    """Indices of the automata in groups that share no tool (one group when an automaton is
    not local: a call to any tool may move it)."""
    parent: dict[str, str] = {}

    def find(t: str) -> str:
        while parent.setdefault(t, t) != t:
            parent[t] = parent[parent[t]]
            t = parent[t]
        return t

    for dfa in dfas:
        other = dfa.alphabet.other
        if any(row[other] != q for q, row in enumerate(dfa.delta)):
            return [list(range(len(dfas)))]
        tools = sorted(dfa.alphabet.tools)
        for t in tools[1:]:
            parent[find(t)] = find(tools[0])
    groups: dict[str, list[int]] = {}
    alone: list[list[int]] = []
    for i, dfa in enumerate(dfas):
        if dfa.alphabet.tools:
            groups.setdefault(find(min(dfa.alphabet.tools)), []).append(i)
        else:
            alone.append([i])  # no tool moves it: its initial state decides
    return sorted(groups.values()) + alone


def _other_tool(space: JointSpace, tools: Mapping[str, ToolSignature], terminal: frozenset[str], final: bool) -> str:
    """A declared tool no claim mentions, ending the run or not as the move says."""
    for name in sorted(tools):
        if name not in space.atoms and (name in terminal) == final:
            return name
    raise ValueError("no tool for the move")  # JointSpace offers the move only when one exists


__all__ = ["LintAutomata", "Decision", "WITNESS", "EMPTY", "UNKNOWN"]
