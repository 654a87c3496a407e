"""Questions and their answers: is there a trace on which every claim takes its truth value?

Every analysis of the lint is a few such questions. `Asker.ask` answers one, trying the
cheapest way first and stopping at the first that settles it:

1. a known witness (a trace found earlier) on which every claim takes its value: yes;
2. the automata (`policyc.lint.automata`), when every claim compiles: a run (made concrete
   and replayed) or "no run of any length" (exact). When only some claims compile, those
   alone may already have no run (then neither have all of them: exact), and their
   shortest run says how long a trace the solver must at least look at;
3. the automata again, with the quantifiers over trace values instantiated with a few
   values (`policyc.lint.claims.instantiate`): a run found there is replayed against the
   original claims;
4. Z3 over traces of bounded length (`policyc.smt`): a replayed witness, "no trace up to
   length k" (bounded), or unknown when the solver reaches its resource limit.

An answer is `sat` (with its witness, replayed), `empty` (with its strength: exact, or up to
length k) or `undecided` (with the reason). Nothing is ever read into an undecided answer:
the analyses report it as a finding of its own.

One `Asker` serves one unit of lint work (one rule's questions, say), with one incremental
solver per bound: its answers depend only on the policy, the options, the witnesses it was
given and the questions asked of it, never on what other units asked, so units can run in
any process in any order.

>>> from policyc.check import check_text
>>> from policyc.lint.context import LintContext, LintOptions
>>> src = 'policy p\\ntool ping()\\nrule many: called_n(ping) >= 9\\nrule none: never(ping)\\n'
>>> ctx = LintContext(check_text(src, "p.altl")[0], LintOptions(bound=4))
>>> asker = Asker(ctx)
>>> claims = [ctx.rule_claim(r) for r in ctx.policy.rules]
>>> answer = asker.ask(claims)
>>> answer.status, str(answer.strength)
('empty', 'exact (automata)')
>>> len(asker.ask(claims[:1]).witness)   # beyond the bound of 4: found by the automata
9
>>> [c.name for c in asker.minimal_core(claims).claims]
['rule:many', 'rule:none']
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Sequence

from policyc.ir import nodes as n
from policyc.ir.data import ExternError
from policyc.ir.walk import tools_mentioned
from policyc.lint.automata import EMPTY, UNKNOWN, WITNESS
from policyc.lint.claims import Claim, NotInstantiable, equality_literals, existentials, instantiate, text_values
from policyc.lint.concretize import concretize, replay
from policyc.semantics.evaluator import evaluate
from policyc.tables.dfa import AlphabetError
from policyc.trace.model import Call, Trace
from policyc.smt import PolicySolver, Strength, WitnessTrace, approximations
from policyc.smt.operators import PLAIN_TEXTS
from policyc.smt.values import NeedsStrings

if TYPE_CHECKING:
    from policyc.lint.context import LintContext

SAT, EMPTY_ANSWER, UNDECIDED = "sat", "empty", "undecided"

#: An answer the automata settled for traces of every length.
AUTOMATA_EXACT = Strength(True, None, None, "automata")

#: Joint states a search for a witness among chosen values may visit (its "no run" proves nothing).
WITNESS_BUDGET = 20_000

#: Known compliant traces a run near the question is spliced with.
SPLICE_WITH = 4

#: Minimal sets are searched in the neighbourhood of the fixed claims first (claims that
#: share a tool with them, then with those, ...) when there are more candidates than this.
NARROW_FROM = 6


@dataclass(frozen=True)
class Answer:
    status: str
    witness: WitnessTrace | None = None
    strength: Strength | None = None  # of an empty answer
    reason: str = ""  # of an undecided answer
    core: tuple[str, ...] | None = None  # claims an empty answer needed (a superset of a minimal set)

    @property
    def is_sat(self) -> bool:
        return self.status == SAT

    @property
    def is_empty(self) -> bool:
        return self.status == EMPTY_ANSWER

    @property
    def is_undecided(self) -> bool:
        return self.status == UNDECIDED


@dataclass(frozen=True)
class Core:
    """A set of claims with no common trace. `minimal` is false when some smaller set could not
    be decided; `witnesses` holds, per claim, a trace that satisfies the others."""

    claims: tuple[Claim, ...]
    strength: Strength
    witnesses: dict[str, WitnessTrace] = field(default_factory=dict)
    minimal: bool = True


class Asker:
    """Answers the questions of one unit of lint work (see the module's docstring)."""

    def __init__(self, ctx: "LintContext", pool: Sequence[WitnessTrace] = ()):
        self.ctx = ctx
        self.pool = list(pool)
        self.found: list[WitnessTrace] = []
        self.used: set[str] = set()
        self.checks = 0
        self._answers: dict[tuple, Answer] = {}
        self._solvers: dict[int, PolicySolver] = {}
        self._coded = ctx.coded_strings
        self._tool_sets: dict = {}
        self._truths: dict = {}
        self._rejects: dict[str, int] = {}  # claim -> when it last rejected a spliced candidate
        self._tick = 0

    # ------------------------------------------------------------ one question

    def ask(self, claims: Sequence[Claim], min_bound: int = 0, focus: Sequence[Claim] = ()) -> Answer:
        """`min_bound`: the solver looks at traces of at least this many calls. `focus`: the
        claims the question is about (a rule's negation, a trigger), whose neighbourhood in
        the policy the automata try first: a neighbourhood with no run proves the question
        has none, with a far smaller product."""
        key = (tuple(sorted((c.name, c.expected) for c in claims)), min_bound)
        found = self._answers.get(key)
        if found is None:
            found = self._answers[key] = self._ask(list(claims), min_bound, list(focus))
            if found.is_sat and found.witness is not None and found.witness not in self.found:
                self.found.append(found.witness)
        return found

    def _ask(self, claims: list[Claim], min_bound: int = 0, focus: list[Claim] | None = None) -> Answer:
        for w in (*self.pool, *self.found):
            if self._holds(w, claims):
                self.used.add("known witnesses (no search)")
                return Answer(SAT, w)
        hint = 0
        if self.ctx.options.use_automata:
            settled, hint = self._automata(claims, focus or [])
            if settled is not None:
                return settled
        return self._solve(claims, max(self.ctx.options.bound, hint, min_bound))

    def _automata(self, claims: list[Claim], focus: list[Claim]) -> tuple[Answer | None, int]:
        """The automata's answer, or (None, the length a solver must at least look at)."""
        automata = self.ctx.automata
        over, whole = self._over(claims)
        names = {c.name for c in focus}
        near = [c for c in over if c.name in names]
        if near and len(near) == len(focus) and len(over) > NARROW_FROM:
            settled = self._neighbourhood(over, near, claims)
            if settled is not None:
                return settled, 0
        hint = 0
        decision = None
        if over:
            decision = automata.decide(over)
            if decision.status == EMPTY:
                self.used.add("automata: exact emptiness of the claims' product" if whole else
                              "automata: exact emptiness of a product that keeps every trace of the claims")
                return Answer(EMPTY_ANSWER, strength=AUTOMATA_EXACT, core=_named(over)), 0
            if decision.status == WITNESS:
                hint = len(decision.calls) if whole else 0
                w = self._concretize(decision, claims)  # replayed against the claims themselves
                if w is not None:
                    self.used.add("automata: a run of the claims' product")
                    return Answer(SAT, w), hint
        if (decision is None or decision.status == WITNESS) and any(automata.quantified(c.formula) for c in claims):
            # the runs that keep every trace had a run that is not one: look among fewer values
            w = self._instantiated(claims)
            if w is not None:
                self.used.add("automata: quantifiers instantiated with chosen values")
                return Answer(SAT, w), hint
        return None, hint

    def _over(self, claims: list[Claim]) -> tuple[list[Claim], bool]:
        """Claims the automata compile whose runs include every trace of `claims` (and whether
        they are exactly `claims`): each claim that compiles; each claim with quantifiers over
        trace values, instantiated with enough values (a weaker claim, see
        `policyc.lint.claims.equality_literals`); the others are left out."""
        automata = self.ctx.automata
        out: list[Claim] = []
        pending: list[Claim] = []
        for c in claims:
            if automata.compiles(c):
                out.append(c)
            elif automata.quantified(c.formula):
                pending.append(c)
        whole = len(out) == len(claims)
        if pending:
            counts = [existentials(c.formula, c.expected) for c in pending]
            literals = equality_literals([c.formula for c in pending], [c.formula for c in claims if c not in pending]) \
                if any(counts) else []
            fresh = max(1, sum(x or 0 for x in counts))
            for c, count in zip(pending, counts):
                if count is None or count and literals is None:
                    continue
                try:
                    done = instantiate(c.formula, self.ctx.policy.tools, fresh, literals or ())
                except NotInstantiable:
                    continue
                inst = Claim(c.name, done.formula, c.expected)
                if automata.compiles(inst):
                    out.append(inst)
        return out, whole

    def _neighbourhood(self, claims: list[Claim], focus: list[Claim], originals: list[Claim]) -> Answer | None:
        """"No run" for the claims near the focus (sharing a tool with it, then with those, ...)
        is "no run" for all of them; stop at the first neighbourhood that has a run, and try
        that run spliced with the known compliant traces (cheap, and often enough)."""
        automata = self.ctx.automata
        names = {c.name for c in focus}
        tools = set().union(*(self._tools(c) for c in focus))
        focus_tools = set(tools)
        by_name = {c.name: c for c in originals}
        chosen = list(focus)
        while True:
            grown = list(focus) + [c for c in claims if c.name not in names
                                   and (not self._tools(c) or self._tools(c) & tools)]
            if len(grown) == len(chosen) or len(grown) == len(claims):
                return None
            chosen = grown
            decision = automata.decide(chosen)
            if decision.status == EMPTY:
                self.used.add("automata: exact emptiness of the claims' product (near the question)")
                return Answer(EMPTY_ANSWER, strength=AUTOMATA_EXACT, core=_named(chosen))
            if decision.status != WITNESS:
                return None
            near = self._concretize(decision, [])
            spliced = self._splice(near, originals, focus_tools) if near is not None else None
            if spliced is None and len(near_originals := [by_name[c.name] for c in chosen if c.name in by_name]) \
                    == len(chosen) and any(c.formula is not by_name[c.name].formula for c in chosen):
                # quantified claims were weakened: a run with one value per quantifier splices better
                near = self._instantiated_with(near_originals, 1, replayed=False)
                spliced = self._splice(near, originals, focus_tools) if near is not None else None
            if spliced is not None:
                self.used.add("automata: a run near the question, spliced with a compliant trace")
                return Answer(SAT, spliced)
            tools |= set().union(*(self._tools(c) for c in chosen))

    def _splice(self, near: WitnessTrace, claims: list[Claim], tools: set[str]) -> WitnessTrace | None:
        """`near` inserted into a known compliant trace (at each place in turn; a terminal call
        only last), if every claim holds on the result: the automata screen each candidate,
        the evaluator replays the one that passes."""
        terminal = self.ctx.policy.terminal_tools
        # the whole run, its calls to the question's tools together, then each of those alone
        own = tuple(c for c in near.trace.calls if c.name in tools)
        blocks = [near.trace.calls, own] + [(c,) for c in own]
        for w in self.pool[:SPLICE_WITH]:
            other = w.trace.calls
            # both in order, a call to a tool they share taken once (from either)
            candidates: list[Sequence[Call]] = [_merge(other, near.trace.calls), _merge(near.trace.calls, other)]
            for calls in blocks:
                aligned = _aligned(calls, other)
                for block in (calls, aligned) if aligned != calls else (calls,):
                    candidates += [other[:i] + block + other[i:] for i in range(len(other) + 1)]
            for merged in candidates:
                kept = [c for j, c in enumerate(merged) if c.name not in terminal or j == len(merged) - 1]
                trace = Trace(tuple(Call(c.name, c.args, c.result, j) for j, c in enumerate(kept)),
                              {**w.trace.metrics, **near.trace.metrics})
                externs = {**w.externs, **near.externs}
                if not self._screen(trace, claims, externs):
                    continue
                found = replay(WitnessTrace(trace, True, externs), claims)
                if found is not None:
                    return found
        return None

    def _screen(self, trace: Trace, claims: list[Claim], externs) -> bool:
        """Whether every claim takes its value on the trace: first each claim that compiles
        to one automaton (the automata's verdict: a quick filter), then the others on the
        evaluator (the replay evaluates every claim again). The claim that rejected the last
        candidate is tried first: candidates of one splice tend to fail on the same claim."""
        automata = self.ctx.automata
        rank = self._rejects
        ordered = sorted(claims, key=lambda c: -rank.get(c.name, 0)) if rank else claims
        rest = []
        for c in ordered:
            dfa = automata.dfa(c.formula)
            if dfa is None:
                rest.append(c)
                continue
            try:
                state = dfa.initial
                for call in trace.calls:
                    state = dfa.delta[state][dfa.alphabet.letter(call.name, call.args, call.result)]
            except (AlphabetError, ExternError, RecursionError):  # an impossible letter or an extern: the replay decides
                continue
            if dfa.accepting[state] != c.expected:
                self._reject(c)
                return False
        for c in rest:
            try:
                truth = evaluate(c.formula, trace, externs)
            except (ExternError, RecursionError):
                continue  # the replay decides
            if truth != c.expected:
                self._reject(c)
                return False
        return True

    def _reject(self, claim: Claim) -> None:
        self._tick += 1
        self._rejects[claim.name] = self._tick

    def _tools(self, claim: Claim) -> frozenset[str]:
        found = self._tool_sets.get(claim.formula)
        if found is None:
            found = self._tool_sets[claim.formula] = tools_mentioned(claim.formula)
        return found

    def _instantiated(self, claims: list[Claim]) -> WitnessTrace | None:
        """A witness among the traces that use one value per quantifier's type and the values
        that pass the claims' text tests of the domain's calls, then two values per type."""
        texts = text_values([c.formula for c in claims])  # one value and these: more than one value alone
        found = self._instantiated_with(claims, 1, texts=texts or None)
        return found if found is not None else self._instantiated_with(claims, 2)

    def _instantiated_with(self, claims: list[Claim], fresh: int, replayed: bool = True,
                           texts: dict | None = None) -> WitnessTrace | None:
        """A run of the claims with their quantifiers instantiated over `fresh` chosen values
        per type (and `texts`, see `policyc.lint.claims.text_values`) and every call of a
        domain's tool restricted to them, made concrete and (with `replayed`) replayed
        against the claims themselves."""
        automata = self.ctx.automata
        inst: list[Claim] = []
        extra: dict = {}
        try:
            for c in claims:
                done = instantiate(c.formula, self.ctx.policy.tools, fresh, texts=texts)
                inst.append(Claim(c.name, done.formula, c.expected))
                extra.update(dict.fromkeys(done.restrictions))
        except NotInstantiable:
            return None
        inst.extend(Claim(f"restrict:{i}", r) for i, r in enumerate(extra))
        if not all(automata.compiles(c) for c in inst):
            return None
        # only a witness counts: a small budget, for all the truths of the metrics together
        decision = automata.decide(inst, budget=WITNESS_BUDGET, shared=True)
        if decision.status != WITNESS:
            return None
        return self._concretize(decision, claims if replayed else [])

    def _concretize(self, decision, claims: list[Claim]) -> WitnessTrace | None:
        opts = self.ctx.options
        return concretize(decision.calls, decision.metrics, claims, self.ctx.policy.tools, opts.list_bound,
                          opts.rlimit, self._coded)

    def _solve(self, claims: list[Claim], k: int) -> Answer:
        try:
            solver = self._solver(k)
            for c in claims:
                solver.require(c.name, c.formula, c.expected)
        except NeedsStrings:  # a derived formula needs real strings: start over without the coding
            self._coded, self._solvers = False, {}
            return self._solve(claims, k)
        self.checks += 1
        self.used.add(f"Z3 over traces of up to {k} calls")
        result = solver.check([c.name for c in claims])
        if result.is_sat:
            w = result.witness
            if w is not None and w.confirmed:
                return Answer(SAT, w)
            if solver.trace.plain_texts:
                plain = solver.check([*(c.name for c in claims), solver.require_plain_texts()])
                if plain.is_sat and plain.witness is not None and plain.witness.confirmed:
                    self.used.add("Z3 with texts the text functions leave unchanged")
                    return Answer(SAT, plain.witness)
            for text in PLAIN_TEXTS:
                plain = solver.check([*(c.name for c in claims), solver.require_plain_strings(text)])
                if plain.is_sat and plain.witness is not None and plain.witness.confirmed:
                    self.used.add("Z3 with the simplest strings (over-approximated text functions)")
                    return Answer(SAT, plain.witness)
            why = "; ".join(approximations([c.formula for c in claims])) or "the solver's model does not replay"
            return Answer(UNDECIDED, reason=f"a trace the solver found relies on an over-approximation ({why})")
        if result.is_unsat:
            return Answer(EMPTY_ANSWER, strength=result.strength, core=result.core)
        return Answer(UNDECIDED, reason=f"Z3 reached its resource limit ({self.ctx.options.rlimit:,} steps, "
                                        f"traces of up to {k} calls)")

    def _solver(self, k: int) -> PolicySolver:
        solver = self._solvers.get(k)
        if solver is None:
            opts = self.ctx.options
            solver = self._solvers[k] = PolicySolver(self.ctx.policy.tools, k, opts.list_bound, opts.rlimit,
                                                     name=f"t{k}", coded_strings=self._coded,
                                                     encoder=self.ctx.encoder(k, self._coded))
        return solver

    def _holds(self, w: WitnessTrace, claims: Sequence[Claim]) -> bool:
        """Whether every claim takes its value on a known witness (evaluations of the shared
        witnesses are remembered by the context, across units: they are facts)."""
        for c in claims:
            key = (id(w), c.formula)
            truth = self._truths.get(key)
            if truth is None:
                truth = self.ctx.truth(w, c.formula) if w in self.pool else _evaluate(w, c.formula)
                self._truths[key] = truth
            if truth != c.expected:
                return False
        return True

    # ------------------------------------------------------------ minimal sets

    def minimal_core(self, claims: Sequence[Claim], fixed: Sequence[Claim] = (),
                     answer: Answer | None = None) -> Core:
        """A minimal subset of `claims` that, with `fixed`, has no common trace. `answer`: the
        answer for all of them, when known; it must be empty.

        A single claim that already has no trace with `fixed` is looked for first (the pairs
        of the policy: cheap, and the usual case); otherwise QuickXplain (Junker, 2004) splits
        the candidates in halves, asking O(k log(n/k)) questions for a set of k out of n.
        Every claim of the set is then checked: without it the others have a trace (its
        witness is kept), or the set is marked as possibly not minimal."""
        fixed = list(fixed)
        answer = answer or self.ask([*fixed, *claims], focus=fixed)
        assert answer.is_empty and answer.strength is not None
        seed = [c for c in claims if answer.core is None or c.name in answer.core]
        self.used.add("minimal sets (single rules first, then QuickXplain)")
        if fixed and not self.ask(fixed).is_sat:
            alone = self.ask(fixed)
            if alone.is_empty and alone.strength is not None:
                return Core((), alone.strength, {}, True)
        if fixed and len(seed) > 1:
            for c in seed:
                pair = self.ask([*fixed, c])
                if pair.is_empty and pair.strength is not None:
                    return self._checked([c], fixed, pair.strength)
        if len(seed) > 1:
            seed = self._quickxplain(fixed, seed)
        found = self.ask([*fixed, *seed], focus=fixed)
        if not found.is_empty or found.strength is None:  # an undecided step: keep what was known empty
            return Core(tuple(c for c in claims if answer.core is None or c.name in answer.core),
                        answer.strength, {}, False)
        return self._checked(seed, fixed, found.strength)

    def _quickxplain(self, background: list[Claim], candidates: list[Claim]) -> list[Claim]:
        def empty(claims: list[Claim]) -> bool:
            return self.ask(claims, focus=background).is_empty

        def qx(base: list[Claim], changed: bool, todo: list[Claim]) -> list[Claim]:
            if changed and empty(base):
                return []
            if len(todo) == 1:
                return list(todo)
            half = len(todo) // 2
            first, second = todo[:half], todo[half:]
            right = qx(base + first, bool(first), second)
            left = qx(base + right, bool(right), first)
            return left + right

        chosen = qx(list(background), False, candidates)
        order = {c.name: i for i, c in enumerate(candidates)}
        return sorted(chosen, key=lambda c: order[c.name])

    def _checked(self, core: list[Claim], fixed: list[Claim], strength: Strength) -> Core:
        witnesses: dict[str, WitnessTrace] = {}
        minimal = True
        for c in core:
            rest = [x for x in core if x is not c]
            found = self.ask([*fixed, *rest], focus=fixed)
            if found.is_sat and found.witness is not None:
                witnesses[c.name] = found.witness
            else:
                minimal = False
        return Core(tuple(core), strength, witnesses, minimal)


def _named(claims: Sequence[Claim]) -> tuple[str, ...]:
    return tuple(c.name for c in claims)


__all__ = ["Answer", "Asker", "Core", "AUTOMATA_EXACT", "SAT", "EMPTY_ANSWER", "UNDECIDED", "replay", "UNKNOWN"]


def _evaluate(w: WitnessTrace, phi: n.Formula) -> bool | None:
    """The formula's truth on a witness; None when an extern cannot be called."""
    try:
        return evaluate(phi, w.trace, w.externs)
    except (ExternError, RecursionError):
        return None


def _merge(first: Sequence[Call], second: Sequence[Call]) -> list[Call]:
    """A shortest sequence that has both as subsequences, a call to the same tool shared (the
    first sequence's)."""
    key = lambda c: c.name  # noqa: E731
    a, b_ = [key(c) for c in first], [key(c) for c in second]
    rows, cols = len(a), len(b_)
    best = [[0] * (cols + 1) for _ in range(rows + 1)]  # longest common subsequence of the suffixes
    for i in range(rows - 1, -1, -1):
        for j in range(cols - 1, -1, -1):
            best[i][j] = best[i + 1][j + 1] + 1 if a[i] == b_[j] else max(best[i + 1][j], best[i][j + 1])
    out: list[Call] = []
    i = j = 0
    while i < rows and j < cols:
        if a[i] == b_[j]:
            out.append(first[i])
            i, j = i + 1, j + 1
        elif best[i + 1][j] >= best[i][j + 1]:
            out.append(first[i])
            i += 1
        else:
            out.append(second[j])
            j += 1
    return out + list(first[i:]) + list(second[j:])


def _aligned(calls: Sequence[Call], other: Sequence[Call]) -> tuple[Call, ...]:
    """The calls with each string argument replaced by the value the other trace gives an
    argument of that name most often (the values of a run made on its own rarely match
    another's, and rules over bound values compare them)."""
    counts: dict[str, dict[str, int]] = {}
    for c in other:
        for name, value in c.args.items():
            if isinstance(value, str) and value:
                tally = counts.setdefault(name, {})
                tally[value] = tally.get(value, 0) + 1
    seen = {name: max(tally, key=lambda v: tally[v]) for name, tally in counts.items()}
    return tuple(Call(c.name, {k: seen.get(k, v) if isinstance(v, str) else v for k, v in c.args.items()},
                      c.result, c.position) for c in calls)
