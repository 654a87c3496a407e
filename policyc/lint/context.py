"""What the analyses of one lint run share: the policy, the options, the automata, and the
facts earlier analyses established.

The analyses run in phases (`policyc.lint.run`): each phase is a list of independent units
of work, and a unit sees only the facts of the phases before it (which rules cannot be
satisfied, which hold on every trace, whether the policy has a compliant trace, the
compliant traces found so far). So a unit's result does not depend on which process ran it
nor on the order of the units of its phase.

>>> from policyc.check import check_text
>>> policy, _ = check_text('policy p\\ntool a()\\nrule r: called(a)\\n', "p.altl")
>>> ctx = LintContext(policy, LintOptions(bound=4))
>>> ctx.rule_claim(policy.rules[0]).name, ctx.options.bound
('rule:r', 4)
"""

from __future__ import annotations

from dataclasses import dataclass, field

from policyc.ir import build as b
from policyc.ir.policy import Policy, Rule
from policyc.lint.automata import LintAutomata
from policyc.lint.claims import Claim
from policyc.smt import Strength, WitnessTrace
from policyc.lint.budget import ENCODE_STEPS, QUESTION_STATES, QUESTION_STEPS, RUN_BUDGET
from policyc.lint.concretize import simple_traces
from policyc.smt.verifier import needs_strings


@dataclass(frozen=True)
class LintOptions:
    """`bound`: the trace length the solver looks at when the automata cannot answer (grown
    when the automata show that longer traces are needed); `rlimit` and `states`: the solver
    steps and the automata's joint states one question may take; `budget`: the solver steps
    the whole run may take, a joint state counting as `STATE_STEPS` (`policyc.lint.budget`:
    counts, not seconds, so the report is the same on every machine); `jobs`: processes to
    use; `max_layer_share`: the weight share above which one layer is said to dominate."""

    bound: int = 8
    list_bound: int = 3
    rlimit: int = QUESTION_STEPS
    states: int = QUESTION_STATES
    budget: int = RUN_BUDGET
    max_layer_share: float = 0.5
    use_automata: bool = True
    code_strings: bool = True  # strings as integers when the policy only compares them for equality
    jobs: int = 1


@dataclass
class LintContext:
    policy: Policy
    options: LintOptions = field(default_factory=LintOptions)
    automata: LintAutomata = field(init=False, repr=False)
    coded_strings: bool = field(init=False, default=False)
    # facts of earlier phases
    unsatisfiable: set[str] = field(default_factory=set)
    valid: dict[str, Strength] = field(default_factory=dict)  # rules that hold on every trace, and how surely
    vacuous: set[str] = field(default_factory=set)
    #: rules of conflicts shown only up to a length: the later analyses reason about the others
    set_aside: set[str] = field(default_factory=set)
    policy_satisfiable: bool | None = None
    compliant: list[WitnessTrace] = field(default_factory=list)
    #: the run's budget not yet given to a unit of work (`policyc.lint.run`)
    budget_left: int = field(init=False, default=0)
    #: simple traces every question tries first (`policyc.lint.concretize.simple_traces`)
    probes: list[WitnessTrace] = field(init=False, default_factory=list)

    _truths: dict = field(default_factory=dict, repr=False)  # (compliant witness, formula) -> truth

    def truth(self, witness: WitnessTrace, phi) -> bool | None:
        """A formula's truth on one of the shared compliant witnesses (remembered: a fact)."""
        key = (id(witness), phi)
        if key not in self._truths:
            from policyc.lint.questions import _evaluate

            self._truths[key] = _evaluate(witness, phi)
        return self._truths[key]

    _encoders: dict = field(default_factory=dict, repr=False)  # (bound, coded) -> the policy's encoding

    def encoder(self, k: int, coded: bool):
        """A Z3 encoding over traces of `k` calls for one question's solver to start from
        (`FormulaEncoder.derive`). Made when a question first needs the solver at that bound:
        the policy's rules are encoded then, once, in the policy's order (nearly every
        question the solver answers holds all the others, so each would encode them again),
        as far as one question's budget of terms allows; the rest is encoded by the questions
        that ask for it. The base is the same in every process, whichever question made it,
        and no question is charged for it."""
        from policyc.smt.encoder import FormulaEncoder
        from policyc.smt.symtrace import EncodingTooLarge, SymbolicTrace, counted
        from policyc.smt.values import NeedsStrings

        key = (k, coded)
        base = self._encoders.get(key)
        if base is None:
            base = FormulaEncoder(SymbolicTrace(self.policy.tools, k, self.options.list_bound, f"t{k}", coded,
                                                self.policy.observes))
            self._encoders[key] = base
            trace = base.trace
            trace.work_limit = self.options.rlimit // ENCODE_STEPS
            try:
                with counted(trace):
                    for rule in self.policy.rules:
                        base.holds(rule.formula, 0)
            except (EncodingTooLarge, NeedsStrings):
                pass  # the rules left are encoded by the questions that need them
            finally:
                trace.work_limit = None
        return base.derive()

    def __post_init__(self) -> None:
        self.coded_strings = self.options.code_strings and not needs_strings(
            [r.formula for r in self.policy.rules], self.policy.tools)
        self.automata = LintAutomata(self.policy.tools, self.policy.terminal_tools, self.policy.observes)
        self.budget_left = self.options.budget
        self.probes = simple_traces(self.policy.tools)

    # ------------------------------------------------------------ claims

    @staticmethod
    def rule_claim(rule: Rule) -> Claim:
        return Claim(f"rule:{rule.name}", rule.formula)

    @staticmethod
    def negated_claim(rule: Rule) -> Claim:
        return Claim(f"not:{rule.name}", rule.formula, False)

    @staticmethod
    def calls_claim(tool: str) -> Claim:
        return Claim(f"calls:{tool}", b.eventually(b.event(tool)))

    @property
    def active_rules(self) -> list[Rule]:
        """The rules the policy-level analyses reason about (unsatisfiable ones left out, and
        those set aside by a conflict shown up to a length)."""
        return [r for r in self.policy.rules if r.name not in self.unsatisfiable and r.name not in self.set_aside]

    def active_claims(self, exclude: set[str] = frozenset()) -> list[Claim]:  # type: ignore[assignment]
        return [self.rule_claim(r) for r in self.active_rules if r.name not in exclude]

    def apply(self, facts) -> None:
        """Take in the facts a unit established (see `policyc.lint.units.UnitResult`)."""
        for kind, value in facts:
            if kind == "unsatisfiable":
                self.unsatisfiable.add(value)
            elif kind == "valid":
                self.valid[value[0]] = value[1]
            elif kind == "vacuous":
                self.vacuous.add(value)
            elif kind == "set_aside":
                self.set_aside.add(value)
            elif kind == "policy":
                self.policy_satisfiable = value
            else:
                raise ValueError(kind)

    @staticmethod
    def rule_of(claim: Claim) -> str:
        """The rule a claim names (`rule:x` and `not:x` name `x`)."""
        return claim.name.split(":", 1)[1]
