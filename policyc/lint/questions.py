"""Questions and their answers: is there a trace on which every claim takes its truth value?

Every analysis of the lint is a few such questions. `Asker.ask` answers one, trying the
cheapest way first and stopping at the first that settles it:

1. a known trace on which every claim takes its value: the compliant traces found so far,
   and a few simple traces (the empty run, each tool called once): yes;
2. the question split into components (`policyc.lint.components`): claims that share no
   tool nor trace-wide value are asked apart; one component without a trace settles the
   question, and traces of every component, one after the other, are tried as a witness;
3. the automata (`policyc.lint.automata`), when every claim compiles: a run (made concrete
   and replayed) or "no run of any length" (exact). When only some claims compile, those
   alone may already have no run (then neither have all of them: exact), and their run
   says how long a trace the solver must at least look at;
4. the automata again, with the quantifiers over trace values instantiated with a few
   values (`policyc.lint.claims.instantiate`): a run found there is replayed against the
   original claims;
5. Z3 over traces of bounded length (`policyc.smt`): a replayed witness, "no trace up to
   length k" (bounded), or not decided when the solver reaches its limit.

An answer is `sat` (with its witness, replayed), `empty` (with its strength: exact, or up to
length k) or `undecided` (with the reason: what was tried, and what ran out). Nothing is
ever read into an undecided answer: the analyses report it as a finding of its own.

Every question has a budget (`policyc.lint.budget`): solver steps and joint states of the
automata; the unit of work it belongs to has an allowance from the run's budget. A question
that runs out is undecided at once.

One `Asker` serves one unit of lint work (one rule's questions, say), with one incremental
solver per bound: its answers depend only on the policy, the options, the witnesses it was
given, its allowance and the questions asked of it, never on what other units asked, so
units can run in any process in any order.

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

from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Sequence

from policyc.ir import nodes as n
from policyc.ir.data import ExternError
from policyc.ir.walk import subformulas, tools_mentioned
from policyc.lint.automata import EMPTY, MAX_INPUT_CONDITIONS, UNKNOWN, WITNESS, Decision
from policyc.lint.budget import ENCODE_STEPS, STATE_STEPS, Budget, steps_text
from policyc.lint.choose import choose_values
from policyc.lint.claims import (Claim, NotInstantiable, equality_literals, existentials, instantiate, metric_atoms,
                                 values_tested)
from policyc.lint.components import METRICS, REQUEST, components, joined, reads
from policyc.lint.concretize import concretize, guessed_or_simplest, replay, sourced_replay
from policyc.lint.refine import grown_witness
from policyc.lint.splice import Splicer
from policyc.lint.weaken import opaque, weaken
from policyc.semantics.evaluator import evaluate
from policyc.smt import PolicySolver, Strength, WitnessTrace, approximations
from policyc.smt.operators import PLAIN_TEXTS
from policyc.smt.symtrace import EncodingTooLarge, counted
from policyc.smt.values import NeedsStrings

if TYPE_CHECKING:
    from policyc.lint.context import LintContext

SAT, EMPTY_ANSWER, UNDECIDED = "sat", "empty", "undecided"

#: An answer the automata settled for traces of every length.
AUTOMATA_EXACT = Strength(True, None, None, "automata")

#: Joint states a search for a witness among chosen values may visit (its "no run" proves nothing).
WITNESS_BUDGET = 20_000

#: Shorter bounds Z3 looks at first, when the question's bound is longer.
DEEPENING = (2, 4)

#: Solver steps the values of one run of the automata may take. The run fixes every call's tool
#: and the truth of each of its conditions, so a model, when there is one, takes a few
#: thousand steps; a run with none (the automata read `text` and `lower(text)` as independent
#: values, and may pair a text that says "HUMAN" with a lower-cased one that does not say
#: "human") can hold the string solver for millions, which later attempts need more.
RUN_STEPS = 250_000

#: Values per quantifier a witness among chosen values is looked for with, in turn.
INSTANCES = (1, 2, 3)

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


@dataclass
class _Effort:
    """What one question may still spend, and what it tried."""

    steps: int
    states: int
    tried: list[str] = field(default_factory=list)
    #: the most calls of one tool in the run the automata found for claims weakened per value
    #: (a bounded "no trace" is checked against runs with that many values, `policyc.lint.refine`)
    repeated: int = 0

    def note(self, what: str) -> None:
        if what not in self.tried:
            self.tried.append(what)


class Asker:
    """Answers the questions of one unit of lint work (see the module's docstring).
    `budget`: the unit's allowance (unlimited: the run's budget)."""

    def __init__(self, ctx: "LintContext", pool: Sequence[WitnessTrace] = (), budget: Budget | None = None):
        self.ctx = ctx
        self.pool = list(pool)
        self.budget = budget or Budget(ctx.options.budget)
        self.found: list[WitnessTrace] = []
        self.used: set[str] = set()
        self.checks = 0
        self._answers: dict[tuple, Answer] = {}
        self._solvers: dict[int, PolicySolver] = {}
        self._coded = ctx.coded_strings
        self._tool_sets: dict = {}
        self._truths: dict = {}
        self._effort: _Effort | None = None
        self._weak: dict[str, Claim | None] = {}
        self._splicer = Splicer(ctx.automata, ctx.policy.terminal_tools)

    # ------------------------------------------------------------ one question

    def ask(self, claims: Sequence[Claim], min_bound: int = 0, focus: Sequence[Claim] = ()) -> Answer:
        """`min_bound`: the solver looks at traces of at least this many calls. `focus`: the
        claims the question is about (a rule's negation, a trigger), whose neighbourhood in
        the policy the automata try first: a neighbourhood with no run proves the question
        has none, with a far smaller product."""
        key = (tuple(sorted((c.name, c.expected) for c in claims)), min_bound)
        found = self._answers.get(key)
        if found is None:
            outer = self._effort
            if outer is None:  # a question of its own (not a part of another): its own budget
                opts = self.ctx.options
                self._effort = _Effort(opts.rlimit, opts.states)
            try:
                found = self._ask(list(claims), min_bound, list(focus))
            finally:
                self._effort = outer
            self._answers[key] = found
            if found.is_sat and found.witness is not None and found.witness not in self.found:
                self.found.append(found.witness)
        return found

    def _ask(self, claims: list[Claim], min_bound: int = 0, focus: list[Claim] | None = None) -> Answer:
        for w in (*self.pool, *self.found):
            if self._holds(w, claims):
                self.used.add("known witnesses (no search)")
                return Answer(SAT, w)
        for w in self.ctx.probes:
            if self._holds(w, claims):
                self.used.add("simple traces (no search)")
                return Answer(SAT, w)
        if self.budget.exhausted:
            return self._spent()
        parts = components(claims)
        if len(parts) > 1:
            settled = self._by_components(parts, claims, min_bound, focus or [])
            if settled is not None:
                return settled
        hint = 0
        if self.ctx.options.use_automata:
            settled, hint = self._automata(claims, focus or [])
            if settled is not None:
                return settled
        return self._solve(claims, max(self.ctx.options.bound, hint, min_bound))

    def _spent(self) -> Answer:
        return Answer(UNDECIDED, reason=f"the lint's budget ({steps_text(self.ctx.options.budget)} solver steps "
                                        f"for the whole run, `--budget`) was spent before this question")

    def _by_components(self, parts: list[list[Claim]], claims: list[Claim], min_bound: int,
                       focus: list[Claim]) -> Answer | None:
        """The question from its components' answers (None: ask it whole)."""
        answers = []
        for part in parts:
            names = {c.name for c in part}
            answer = self.ask(part, min_bound, [c for c in focus if c.name in names])
            if answer.is_empty:
                self.used.add("components: claims that share nothing asked apart")
                core = answer.core if answer.core is not None else tuple(c.name for c in part)
                return Answer(EMPTY_ANSWER, strength=answer.strength, core=core)
            answers.append(answer)
        undecided = [a for a in answers if a.is_undecided]
        if undecided:
            return undecided[0]  # the whole is no easier than a part of it
        together = joined([a.witness for a in answers if a.witness is not None], self.ctx.policy.terminal_tools)
        found = replay(together, claims) if together is not None else None
        if found is not None:
            self.used.add("components: claims that share nothing asked apart")
            return Answer(SAT, found)
        return None

    # ------------------------------------------------------------ the automata

    def _states(self) -> int:
        """The joint states the current question's next search may visit."""
        effort = self._effort
        left = self.budget.left // STATE_STEPS
        return max(0, min(left, effort.states if effort is not None else left))

    def _charge(self, decision: Decision) -> Decision:
        self.budget.charge_states(decision.explored)
        if self._effort is not None:
            self._effort.states -= decision.explored
        return decision

    def _decide(self, claims: list[Claim], budget: int | None = None, shared: bool = False,
                shortest: bool = False) -> Decision:
        allowed = self._states() if budget is None else min(budget, self._states())
        if allowed <= 0:
            return Decision(UNKNOWN, reason="the question's budget of joint states was spent")
        return self._charge(self.ctx.automata.decide(claims, shortest=shortest, budget=allowed, shared=shared))

    def shortest_run(self, claims: list[Claim]) -> WitnessTrace | None:
        """A shortest trace on which every claim takes its value, when the automata compile
        every claim and find one within the budget (made concrete and replayed)."""
        if not self.ctx.options.use_automata or not all(self.ctx.automata.compiles(c) for c in claims):
            return None
        outer = self._effort
        opts = self.ctx.options
        self._effort = outer or _Effort(opts.rlimit, opts.states)
        try:
            decision = self._decide(claims, shortest=True)
            return self._concretize(decision, claims) if decision.status == WITNESS else None
        finally:
            self._effort = outer

    def _automata(self, claims: list[Claim], focus: list[Claim]) -> tuple[Answer | None, int]:
        """The automata's answer, or (None, the length a solver must at least look at)."""
        automata = self.ctx.automata
        effort = self._effort
        over, whole = self._over(claims, focus)
        names = {c.name for c in focus}
        near = [c for c in over if c.name in names]
        if near and len(near) == len(focus) and len(over) > NARROW_FROM:
            settled = self._neighbourhood(over, near, claims)
            if settled is not None:
                return settled, 0
        hint = 0
        decision = None
        if over:
            decision = self._decide(over)
            if decision.status == EMPTY:
                self.used.add("automata: exact emptiness of the claims' product" if whole else
                              "automata: exact emptiness of a product that keeps every trace of the claims")
                return Answer(EMPTY_ANSWER, strength=AUTOMATA_EXACT, core=_named(over)), 0
            if decision.status == WITNESS:
                # every trace of the claims is a run of `over`: the solver looks at least that far
                hint = len(decision.calls)
                if effort is not None and not whole:
                    effort.repeated = max(effort.repeated, *Counter(tool for tool, _ in decision.calls).values(), 1)
                # replayed against the claims themselves (the solver finds values for the run's
                # conditions only when those are all the claims say: else Z3 along the run does)
                w = self._concretize(decision, claims, solve=whole)
                if w is not None:
                    self.used.add("automata: a run of the claims' product")
                    return Answer(SAT, w), hint
                # values the solver cannot give (a text with a card number in it, `card_numbers` being
                # free to Z3) may be found by local search on the evaluator
                w = self._chosen(decision, claims)
                if w is not None:
                    self.used.add("automata: a run of the claims' product, values chosen by local search")
                    return Answer(SAT, w), hint
                if not whole:
                    w = self._along(decision, claims)
                    if w is not None:
                        self.used.add("Z3 along a run of the automata (its tools fixed)")
                        return Answer(SAT, w), hint
                    if effort is not None:
                        effort.note(f"Z3 along a run of {len(decision.calls)} calls the automata found")
            elif effort is not None:
                effort.note(f"the automata ({decision.reason})")
        if effort is not None and not whole:
            left = [c for c in claims if not automata.compiles(c)]
            why = "; ".join(dict.fromkeys(self._not_compiled(c) for c in left[:3]))
            effort.note(f"the automata on the claims they compile ({why})")
        if (decision is None or decision.status == WITNESS) and any(automata.quantified(c.formula) for c in claims):
            # the runs that keep every trace had a run that is not one: look among fewer values
            w = self._instantiated(claims)
            if w is not None:
                self.used.add("automata: quantifiers instantiated with chosen values")
                return Answer(SAT, w), hint
            if effort is not None:
                effort.note("the automata with chosen values for the quantifiers")
        return None, hint

    def _not_compiled(self, claim: Claim) -> str:
        automata = self.ctx.automata
        if automata.quantified(claim.formula):
            return f"`{claim.name.split(':', 1)[-1]}` is weakened to a few values per quantifier"
        reason = automata.reason(claim.formula) or "it reads values the automata do not track"
        return f"`{claim.name.split(':', 1)[-1]}` does not compile: {reason}"

    def _over(self, claims: list[Claim], focus: Sequence[Claim] = ()) -> tuple[list[Claim], bool]:
        """Claims the automata compile whose runs include every trace of `claims` (and whether
        they are exactly `claims`): each claim that compiles; each claim with quantifiers over
        trace values, instantiated with enough values (a weaker claim, see
        `policyc.lint.claims.equality_literals`); the others are left out, and so are claims
        beyond `MAX_INPUT_CONDITIONS` conditions on the request and the metrics (the focus
        first: the automata answer once per combination of them)."""
        automata = self.ctx.automata
        out: list[Claim] = []
        pending: list[Claim] = []
        rest: list[Claim] = []
        for c in claims:
            if automata.compiles(c):
                out.append(c)
            elif automata.quantified(c.formula):
                pending.append(c)
            else:
                rest.append(c)
        whole = len(out) == len(claims)
        if pending:
            counts = [existentials(c.formula, c.expected) for c in pending]
            literals = equality_literals([c.formula for c in pending], [c.formula for c in claims if c not in pending]) \
                if any(counts) else []
            fresh = max(1, sum(x or 0 for x in counts))
            for c, count in zip(pending, counts):
                inst = None
                if count is not None and not (count and literals is None):
                    try:
                        done = instantiate(c.formula, self.ctx.policy.tools, fresh, literals or ())
                        inst = Claim(c.name, done.formula, c.expected)
                    except NotInstantiable:
                        pass
                if inst is not None and automata.compiles(inst):
                    out.append(inst)
                rest.append(c)  # weakened too: each keeps every trace, and so do both together
        for c in rest:  # the conditions the automata cannot read made as permissive as they can be
            weak = self._weakened(c)
            if weak is not None and all(weak.formula != o.formula for o in out):
                out.append(weak)
        kept = _few_inputs(out, focus)
        return kept, whole and len(kept) == len(out)

    def _weakened(self, claim: Claim) -> Claim | None:
        """The claim weakened until the automata compile it (`policyc.lint.weaken`): its opaque
        conditions first, then every condition; None when even that does not compile, or
        nothing is left of it."""
        if claim.name in self._weak:
            return self._weak[claim.name]
        tools = self.ctx.policy.tools
        out = None
        for drop in (opaque, _every):
            phi = weaken(claim.formula, claim.expected, drop, tools)
            if phi is n.TRUE:
                break  # nothing left to say
            weak = Claim(claim.name, phi)
            if self.ctx.automata.compiles(weak):
                out = weak
                break
        self._weak[claim.name] = out
        return out

    def _neighbourhood(self, claims: list[Claim], focus: list[Claim], originals: list[Claim]) -> Answer | None:
        """"No run" for the claims near the focus (sharing a tool with it, then with those, ...)
        is "no run" for all of them; stop at the first neighbourhood that has a run, and try
        that run spliced with the known compliant traces (cheap, and often enough)."""
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
            decision = self._decide(chosen)
            if decision.status == EMPTY:
                self.used.add("automata: exact emptiness of the claims' product (near the question)")
                return Answer(EMPTY_ANSWER, strength=AUTOMATA_EXACT, core=_named(chosen))
            if decision.status != WITNESS:
                return None
            near = self._concretize(decision, [])
            spliced = self._splicer.splice(near, self.pool, originals, focus_tools) if near is not None else None
            if spliced is None and len(near_originals := [by_name[c.name] for c in chosen if c.name in by_name]) \
                    == len(chosen) and any(c.formula is not by_name[c.name].formula for c in chosen):
                # quantified claims were weakened: a run with one value per quantifier splices better
                near = self._instantiated_with(near_originals, 1, replayed=False)
                spliced = self._splicer.splice(near, self.pool, originals, focus_tools) if near is not None else None
            if spliced is not None:
                self.used.add("automata: a run near the question, spliced with a compliant trace")
                return Answer(SAT, spliced)
            tools |= set().union(*(self._tools(c) for c in chosen))

    def _tools(self, claim: Claim) -> frozenset[str]:
        found = self._tool_sets.get(claim.formula)
        if found is None:
            found = self._tool_sets[claim.formula] = tools_mentioned(claim.formula)
        return found

    def _instantiated(self, claims: list[Claim]) -> WitnessTrace | None:
        """A witness among the traces that use a few values per quantifier: one, then two, ...
        (`INSTANCES`), of the quantifier's type, with the values that pass the conditions the
        claims put on the domain's calls (`policyc.lint.claims.values_tested`)."""
        tested = values_tested([c.formula for c in claims])
        for fresh in INSTANCES:
            found = self._instantiated_with(claims, fresh, tested=tested if fresh == 1 else None)
            if found is not None:
                return found
            if self._states() <= 0:
                break
        return None

    def _instantiated_with(self, claims: list[Claim], fresh: int, replayed: bool = True,
                           tested: dict | None = None) -> WitnessTrace | None:
        """A run of the claims with their quantifiers instantiated over `fresh` chosen values
        per type (and `tested`, see `policyc.lint.claims.values_tested`) and every call of a
        domain's tool restricted to them, made concrete and (with `replayed`) replayed
        against the claims themselves."""
        automata = self.ctx.automata
        inst: list[Claim] = []
        extra: dict = {}
        try:
            for c in claims:
                done = instantiate(c.formula, self.ctx.policy.tools, fresh, texts=tested)
                inst.append(Claim(c.name, done.formula, c.expected))
                extra.update(dict.fromkeys(done.restrictions))
        except NotInstantiable:
            return None
        inst.extend(Claim(f"restrict:{i}", r) for i, r in enumerate(extra))
        if not all(automata.compiles(c) for c in inst):
            return None
        # only a witness counts: a small budget, for all the truths of the metrics together
        decision = self._decide(inst, budget=WITNESS_BUDGET, shared=True)
        if decision.status != WITNESS:
            return None
        return self._concretize(decision, claims if replayed else [])

    def _concretize(self, decision, claims: list[Claim], solve: bool = True) -> WitnessTrace | None:
        opts = self.ctx.options
        rlimit = min(opts.rlimit, RUN_STEPS, max(1, self._steps())) if solve else 0
        return concretize(decision.calls, decision.metrics, claims, self.ctx.policy.tools, opts.list_bound,
                          rlimit, self._coded, self.ctx.policy.observes, self._charge_steps)

    # ------------------------------------------------------------ the solver

    def _charge_steps(self, steps: int) -> None:
        self.budget.charge_steps(steps)
        if self._effort is not None:
            self._effort.steps -= steps

    def _steps(self) -> int:
        effort = self._effort
        left = self.budget.left
        return max(0, min(left, effort.steps if effort is not None else left))

    def _require(self, solver: PolicySolver, claims: list[Claim]) -> list[str] | None:
        """The claims' names, each required of the solver (encoded within the question's
        budget, `ENCODE_STEPS` per Z3 term made: None when the encoding outgrew it)."""
        trace = solver.trace
        before = trace.work
        trace.work_limit = before + self._steps() // ENCODE_STEPS
        try:
            with counted(trace):
                for c in claims:
                    solver.require(c.name, c.formula, c.expected)
        except EncodingTooLarge:
            return None
        finally:
            self._charge_steps((trace.work - before) * ENCODE_STEPS)
            trace.work_limit = None
        return [c.name for c in claims]

    def _solve(self, claims: list[Claim], k: int) -> Answer:
        """Z3 over traces of up to `k` calls, after shorter bounds (`DEEPENING`): a witness is
        often short, and the encoding over a short trace is a fraction of the one over `k`
        calls (it grows faster than the length). "No trace" counts only at `k`."""
        effort = self._effort
        for short in [d for d in DEEPENING if d < k]:
            answer = self._solve_at(claims, short)
            if answer.is_sat or answer.is_undecided:
                return answer
            if effort is not None:
                effort.note(f"Z3 found no trace of up to {short} calls")
        answer = self._solve_at(claims, k)
        if answer.is_empty and answer.strength is not None and not answer.strength.exact \
                and effort is not None and effort.repeated:
            # a bounded "no trace": the claims it rests on, with a value per repeated call
            grown = grown_witness(self, claims, answer.core or _named(claims), effort.repeated)
            if grown.witness is not None:
                self.used.add("automata: the claims Z3's bounded answer rests on, a value per call")
                return Answer(SAT, grown.witness)
            if grown.core_trace > k:
                return self._undecided(
                    f"Z3 found no trace of up to {k} calls, but the claims that answer rests on have one of "
                    f"{grown.core_trace} calls (a value of its own per repeated call of a rule quantified over "
                    f"values), so a longer trace of them all may exist")
        return answer

    def _solve_at(self, claims: list[Claim], k: int) -> Answer:
        if self._steps() <= 0:
            return self._undecided(f"no solver steps were left for Z3 over traces of up to {k} calls (the "
                                   f"attempts before spent the question's budget)")
        try:
            solver = self._solver(k)
            names = self._require(solver, claims)
        except NeedsStrings:  # a derived formula needs real strings: start over without the coding
            self._coded, self._solvers = False, {}
            return self._solve_at(claims, k)
        if names is None:
            return self._undecided(f"the encoding of the claims over traces of up to {k} calls for Z3 outgrew "
                                   f"the question's budget")
        result = self._check(solver, names)
        if result is None:
            return self._undecided(f"Z3 over traces of up to {k} calls had no solver steps left")
        self.used.add(f"Z3 over traces of up to {k} calls")
        if result.is_sat:
            w = result.witness
            if w is not None and w.confirmed:
                return Answer(SAT, w)
            w = sourced_replay(w, claims, self.ctx.policy.tools) if w is not None else None
            w = w or self._plain(solver, names, claims)
            if w is not None:
                return Answer(SAT, w)
            why = "; ".join(approximations([c.formula for c in claims])) or "the solver's model does not replay"
            return self._undecided(f"a trace the solver found relies on an over-approximation ({why})")
        if result.is_unsat:
            return Answer(EMPTY_ANSWER, strength=result.strength, core=result.core)
        return self._undecided(f"Z3 reached its limit of {steps_text(solver.rlimit)} solver steps over traces of "
                               f"up to {k} calls")

    def _check(self, solver: PolicySolver, names: list[str]):
        """One solver check within the question's budget (None: no steps left)."""
        allowed = self._steps()
        if allowed <= 0:
            return None
        self.checks += 1
        before = solver.steps
        try:
            return solver.check(names, rlimit=allowed)
        finally:
            self._charge_steps(solver.steps - before)

    def _chosen(self, decision: Decision, claims: list[Claim]) -> WitnessTrace | None:
        """The automata's run with values and a request chosen by local search on the
        evaluator (`policyc.lint.choose`): from values that give the run's conditions, or,
        when none were found without a solver (the automata may pair conditions no value
        meets together, on `text` and `lower(text)`), from those values where a call has them and
        the simplest values of its tools where it has none."""
        tools = self.ctx.policy.tools
        run = self._concretize(decision, [], solve=False)
        if run is not None:
            return choose_values(run.trace.calls, run.trace.metrics, claims, tools, run.externs)
        return choose_values(guessed_or_simplest(decision.calls, tools, self.ctx.policy.observes), {}, claims, tools)

    def _along(self, decision: Decision, claims: list[Claim]) -> WitnessTrace | None:
        """A witness with the tools of the automata's run, one per position, and whatever
        values the solver finds for every claim (those the automata left out too): a far
        smaller question than one over every trace of the bound."""
        opts = self.ctx.options
        calls = decision.calls
        tools = {tool for tool, _ in calls}
        # the claims the run's calls bear on (the others are replayed on the witness all the same)
        relevant = [c for c in claims if (reads(c.formula) or {REQUEST}) & (tools | {REQUEST, METRICS})]
        try:
            solver = PolicySolver(self.ctx.policy.tools, len(calls), opts.list_bound, opts.rlimit, name="run",
                                  coded_strings=self._coded, observes=self.ctx.policy.observes,
                                  skeleton=tuple(tool for tool, _ in calls))
            names: list[str] = []
            required = self._require(solver, relevant)
            if required is None:
                return None
            names += required
            pins = [solver.require_request(r) for r in _requests_for(relevant)] if solver.trace.request_value else []
        except NeedsStrings:
            if not self._coded:
                raise
            self._coded, self._solvers = False, {}
            return self._along(decision, claims)
        extras = [[pin] for pin in pins]  # a request fixed first: the solver then only finds the calls' values
        plain = [solver.require_plain_texts()] if solver.trace.plain_texts else []
        if plain:  # texts the text functions leave as they are: such a model replays
            extras.append(plain)
        if solver.trace.sourced:  # values taken from where the provenance conditions look
            extras.insert(0, [solver.require_sourced(), *plain])
        for extra in extras:
            found = self._check(solver, [*names, *extra])
            if found is None:
                return None
            if found.is_sat and found.witness is not None:
                done = sourced_replay(found.witness, claims, self.ctx.policy.tools)
                if done is not None:
                    return done
        result = self._check(solver, names)
        if result is None or not result.is_sat:
            return None
        if result.witness is not None:
            done = sourced_replay(result.witness, claims, self.ctx.policy.tools)
            if done is not None:
                return done
        found = self._plain(solver, names, claims)
        return replay(found, claims) if found is not None else None

    def _plain(self, solver: PolicySolver, names: list[str], claims: list[Claim]) -> WitnessTrace | None:
        """A witness of a satisfiable check whose model did not replay, among simpler models:
        texts the text functions leave as they are, then the simplest strings (a model that
        does not replay as it is may once the values its calls take from earlier results are
        put there, `policyc.lint.sourcing`)."""
        retries = [solver.require_plain_texts()] if solver.trace.plain_texts else []
        retries += [solver.require_plain_strings(text) for text in PLAIN_TEXTS]
        for extra in retries:
            plain = self._check(solver, [*names, extra])
            if plain is None:
                break
            found = None
            if plain.is_sat and plain.witness is not None:
                found = plain.witness if plain.witness.confirmed else \
                    sourced_replay(plain.witness, claims, self.ctx.policy.tools)
            if found is not None:
                self.used.add("Z3 with texts the text functions leave unchanged" if extra.startswith("plain-texts")
                              else "Z3 with the simplest strings (over-approximated text functions)")
                return found
        return None

    def _undecided(self, reason: str) -> Answer:
        effort = self._effort
        tried = [t for t in (effort.tried if effort is not None else []) if t]
        if self.budget.exhausted:
            reason += f"; the unit's share of the lint's budget ({steps_text(self.ctx.options.budget)} " \
                      f"solver steps, `--budget`) is spent"
        return Answer(UNDECIDED, reason=reason + (f"; tried first: {'; '.join(tried)}" if tried else ""))

    def _solver(self, k: int) -> PolicySolver:
        solver = self._solvers.get(k)
        if solver is None:
            opts = self.ctx.options
            solver = self._solvers[k] = PolicySolver(self.ctx.policy.tools, k, opts.list_bound, opts.rlimit,
                                                     name=f"t{k}", coded_strings=self._coded,
                                                     encoder=self.ctx.encoder(k, self._coded),
                                                     observes=self.ctx.policy.observes)
        return solver

    def _holds(self, w: WitnessTrace, claims: Sequence[Claim]) -> bool:
        """Whether every claim takes its value on a known witness (evaluations of the shared
        witnesses are remembered by the context, across units: they are facts)."""
        shared = w in self.pool or w in self.ctx.probes
        for c in claims:
            key = (id(w), c.formula)
            truth = self._truths.get(key)
            if truth is None:
                truth = self.ctx.truth(w, c.formula) if shared else _evaluate(w, c.formula)
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


def _requests_for(claims: Sequence[Claim]) -> list[str | None]:
    """Requests to try first when the claims read it: none, and one holding every text they
    test."""
    texts = dict.fromkeys(s.value for c in claims for s in subformulas(c.formula)
                          if isinstance(s, n.Lit) and isinstance(s.value, str) and 0 < len(s.value) <= 80)
    return [None, " ".join(texts)]


def _every(_leaf: n.Term) -> bool:
    return True


def _few_inputs(claims: list[Claim], focus: Sequence[Claim]) -> list[Claim]:
    """The claims, those of the focus first, as long as their conditions on the request and
    the metrics stay within `MAX_INPUT_CONDITIONS` (in the claims' order)."""
    first = {c.name for c in focus}
    chosen: set[str] = set()
    seen: set[n.Term] = set()
    for c in sorted(claims, key=lambda c: c.name not in first):
        atoms = set(metric_atoms([c.formula]))
        if len(seen | atoms) <= MAX_INPUT_CONDITIONS:
            seen |= atoms
            chosen.add(c.name)
    return [c for c in claims if c.name in chosen]


def _named(claims: Sequence[Claim]) -> tuple[str, ...]:
    return tuple(c.name for c in claims)


__all__ = ["Answer", "Asker", "Core", "AUTOMATA_EXACT", "SAT", "EMPTY_ANSWER", "UNDECIDED", "replay", "UNKNOWN"]


def _evaluate(w: WitnessTrace, phi: n.Formula) -> bool | None:
    """The formula's truth on a witness; None when an extern cannot be called."""
    try:
        return evaluate(phi, w.trace, w.externs)
    except (ExternError, RecursionError):
        return None
