"""What the analyses of one lint run share: options, the incremental solver, what is known.

The analyses run in order (`policyc.lint.ANALYSES`) over one `LintContext`: the first ones
leave facts the later ones use (which rules are unsatisfiable, whether the policy has a
compliant trace at all, compliant witnesses that already show a tool alive or a trigger
possible, so that no solver call is spent on them).

>>> from policyc.check import check_text
>>> policy, _ = check_text('policy p\\ntool a()\\nrule r: called(a)\\n', "p.altl")
>>> ctx = LintContext(policy, LintOptions(bound=4))
>>> ctx.rule_name("r"), ctx.solver.k
('rule:r', 4)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from time import perf_counter

from policyc.ir.data import ExternError
from policyc.ir.nodes import Formula
from policyc.ir.policy import Policy, Rule
from policyc.lint.automata import LintAutomata
from policyc.semantics.evaluator import evaluate
from policyc.smt import EXACT, PolicySolver, Strength, WitnessTrace
from policyc.smt.verifier import SatResult, needs_strings

#: An answer the automata settled for traces of every length.
AUTOMATA_EXACT = Strength(True, None, None, "automata")


@dataclass(frozen=True)
class LintOptions:
    """Bounds and thresholds. `bound`: trace length for the bounded queries; `max_layer_share`:
    the weight share above which one layer is said to dominate."""

    bound: int = 8
    list_bound: int = 3
    timeout_ms: int = 20_000
    max_layer_share: float = 0.5
    prefix_bound: int = 3
    confirm_factor: float = 1.5  # an unsat answer is re-checked over traces this many times longer
    use_automata: bool = True
    code_strings: bool = True  # strings as integers when the policy only compares them for equality


@dataclass
class LintContext:
    policy: Policy
    options: LintOptions = field(default_factory=LintOptions)
    solver: PolicySolver = field(init=False)
    unsatisfiable: set[str] = field(default_factory=set)
    valid: set[str] = field(default_factory=set)
    vacuous: set[str] = field(default_factory=set)
    policy_satisfiable: bool | None = None
    compliant: list[WitnessTrace] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)
    used: dict[str, set] = field(default_factory=dict)  # analysis -> techniques used
    _confirmer: PolicySolver | None = field(default=None, repr=False)
    automata: LintAutomata = field(init=False, repr=False)

    coded_strings: bool = field(init=False, default=False)

    def __post_init__(self) -> None:
        self.coded_strings = self.options.code_strings and not needs_strings(
            [r.formula for r in self.policy.rules], self.policy.tools)
        self.solver = self.new_solver(self.options.bound, "t")
        self.automata = LintAutomata(self.policy.tools, self.policy.terminal_tools)

    def new_solver(self, k: int, name: str) -> PolicySolver:
        """A solver over traces of at most k calls, with this lint's string coding."""
        return PolicySolver(self.policy.tools, k, self.options.list_bound, self.options.timeout_ms,
                            name=name, coded_strings=self.coded_strings)

    # ------------------------------------------------------------ rules as assumptions

    @staticmethod
    def rule_name(rule: str) -> str:
        return f"rule:{rule}"

    def rule_literal(self, rule: Rule) -> str:
        name = self.rule_name(rule.name)
        self.solver.require(name, rule.formula)
        return name

    def formula_literal(self, name: str, phi: Formula, expected: bool = True) -> str:
        self.solver.require(name, phi, expected)
        return name

    @property
    def active_rules(self) -> list[Rule]:
        """The rules the policy-level analyses reason about (unsatisfiable ones left out)."""
        return [r for r in self.policy.rules if r.name not in self.unsatisfiable]

    def active_literals(self, exclude: set[str] = frozenset()) -> list[str]:
        return [self.rule_literal(r) for r in self.active_rules if r.name not in exclude]

    def confirm_unsat(self, names: list[str], k: int | None = None, exact_first: bool = False):
        """Re-ask an unsat query over traces `confirm_factor` times longer, with just these names.

        A bounded "no trace" can be an artifact of the bound (a policy that needs ten calls
        has no compliant trace of eight); the findings report only what survives this
        check, with the longer bound as their strength. Returns the longer check's result.
        """
        if exact_first:  # the automata may settle it for every length: no longer bound needed
            decided = self.decide(names)
            if decided is True:  # the bound hid the runs that satisfy it: no finding
                return SatResult("sat", EXACT, assumed=tuple(names))
            if decided is False:
                return SatResult("unsat", AUTOMATA_EXACT, assumed=tuple(names))
            strength = self.strengthen(names, None)
            if strength is not None:
                return SatResult("unsat", strength, assumed=tuple(names))
        if k is None:  # one incremental solver at the longer bound serves every confirmation
            k = int(self.options.bound * self.options.confirm_factor)
            if self._confirmer is None or self._confirmer.k != k:
                self._confirmer = self.new_solver(k, f"confirm{k}")
            longer, want_witness = self._confirmer, False
        else:
            longer = self.new_solver(k, f"grow{k}")
            want_witness = True  # growing the bound needs the witness's length
        for name in names:
            claim = self.solver.claim(name)
            if claim is not None:
                longer.require(name, *claim)
        self.note_use("confirmation", f"re-check at bound {k}")
        return longer.check(names, witness=want_witness)

    def decide(self, names: list[str]) -> bool | None:
        """Whether some run satisfies every claim behind `names`, exactly, from the automata
        (`LintAutomata.decide`); None when they cannot tell."""
        if not self.options.use_automata:
            return None
        claims = [c for c in (self.solver.claim(x) for x in names) if c is not None]
        if len(claims) != len(names):
            return None
        found = self.automata.decide(claims)
        if found is not None:
            self.note_use("exactness", "automata: exact emptiness of the claims' product")
        return found

    def strengthen(self, names: list[str], strength):
        """The strength of an unsat answer over `names`: exact when the automata prove the same
        emptiness for traces of any length (`LintAutomata.proves_empty`), else as given."""
        if not self.options.use_automata or strength is not None and strength.exact:
            return strength
        claims = [c for c in (self.solver.claim(x) for x in names) if c is not None]
        if len(claims) != len(names):
            return strength
        if self.automata.proves_empty(claims):
            self.note_use("exactness", "automata product emptiness")
            return AUTOMATA_EXACT
        return strength

    def grow_bound(self, k: int) -> None:
        """Use a longer bound from now on (the policy needs more calls than the bound allowed)."""
        self.options = LintOptions(**{**self.options.__dict__, "bound": k})
        self.solver = self.new_solver(k, f"t{k}")

    #: compliant witnesses kept for later shortcuts (each costs an evaluation per question)
    MAX_WITNESSES = 12

    @property
    def wants_witness(self) -> bool:
        return len(self.compliant) < self.MAX_WITNESSES

    def remember_compliant(self, witness: WitnessTrace | None) -> None:
        if witness is not None and witness.confirmed and self.wants_witness:
            self.compliant.append(witness)

    def shown_by_witness(self, phi: Formula) -> WitnessTrace | None:
        """A known compliant trace on which `phi` holds, if any (no solver call needed)."""
        for w in self.compliant:
            try:
                if evaluate(phi, w.trace, w.externs):
                    return w
            except (ExternError, RecursionError):
                continue  # an extern the witness cannot call, or too deep: no shortcut
        return None

    def note_use(self, analysis: str, technique: str) -> None:
        self.used.setdefault(analysis, set()).add(technique)

    def timed(self, name: str):
        ctx = self

        class _Timer:
            def __enter__(self):
                self.start = perf_counter()

            def __exit__(self, *exc):
                ctx.timings[name] = ctx.timings.get(name, 0.0) + perf_counter() - self.start

        return _Timer()
