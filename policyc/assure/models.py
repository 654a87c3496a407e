"""The assurance ledger's records, as pydantic models ("Organising trajectory evidence", §3.1).

- an **obligation** is (deployment, target, applicability, contract); the contract is exact
  (the target holds on every run of the deployment), suite(k) (on a named suite, at least k
  runs the target applies to and no violation) or risk(ε, δ) (Pr(¬target) <= ε at confidence
  1 − δ under a named distribution of the deployment's runs);
- an **evidence** record is what a method returned: its claim type (exact, suite count, upper
  or lower risk bound, descriptive), the deployment, target, suite or distribution, value,
  assumptions and lineage, and the runs it flags (for the run-level union);
- a **capability** is a method configured for a target, with the same fields and no value, so
  that "configured but not run" differs from "run and found nothing";
- a **ledger entry** says what became of an obligation: established, addressed but not
  established, or unaddressed, with the reason.

Records read from outside (`--evidence` files) are validated by these models: unknown fields,
wrong types and out-of-range values are errors naming the field.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

ClaimType = Literal["exact", "suite", "upper_bound", "lower_bound", "descriptive"]
ContractKind = Literal["exact", "suite", "risk"]
Status = Literal["established", "addressed", "unaddressed"]
Reason = Literal["counterexample", "insufficient_applicability", "weak_bound", "absent_evidence",
                 "unresolved_assumption", "scope_mismatch", "no_method"]
AssumptionStatus = Literal["holds", "assumed", "unresolved"]

#: what each reason means, for reports
REASONS: dict[str, str] = {
    "counterexample": "an observed violation",
    "insufficient_applicability": "too few runs the target applies to",
    "weak_bound": "the bound is above the contract's",
    "absent_evidence": "a method addresses it, but no evidence is in",
    "unresolved_assumption": "the evidence rests on an unresolved assumption",
    "scope_mismatch": "the evidence is for another deployment, suite, distribution or claim type",
    "no_method": "no configured method addresses it",
}

_NAME = Field(min_length=1, max_length=10_000)  # a rule's name is a target: the language sets no length
_TEXT = Field(None, max_length=2000)


class _Record(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Contract(_Record):
    """What an obligation accepts: exact, suite(k) or risk(ε, δ)."""

    kind: ContractKind
    k: int = Field(1, ge=1, le=10**9, description="suite: the runs the target must apply to")
    suite: str | None = Field(None, max_length=200, description="suite: the suite it names (any when null)")
    epsilon: float | None = Field(None, gt=0, le=1, description="risk: the largest acceptable Pr(¬target) (null: "
                                                                "not named; no bound meets it)")
    delta: float | None = Field(None, gt=0, lt=1, description="risk: 1 − the confidence required")
    distribution: str | None = Field(None, max_length=200, description="risk: the distribution of runs it names")

    @model_validator(mode="after")
    def _fields_of_the_kind(self) -> "Contract":
        if self.kind == "risk" and self.delta is None:
            raise ValueError("a risk contract needs `delta` (and `epsilon`, unless it is not named yet)")
        if self.kind != "risk" and (self.epsilon is not None or self.delta is not None or self.distribution):
            raise ValueError(f"`epsilon`, `delta` and `distribution` belong to a risk contract, not {self.kind}")
        if self.kind != "suite" and self.suite is not None:
            raise ValueError(f"`suite` belongs to a suite contract, not {self.kind}")
        return self

    def __str__(self) -> str:
        if self.kind == "suite":
            return f"suite(k={self.k})" + (f" on {self.suite}" if self.suite else "")
        if self.kind == "risk":
            eps = "ε not named" if self.epsilon is None else f"ε={self.epsilon:g}"
            return f"risk({eps}, δ={self.delta:g})" + (f" under {self.distribution}" if self.distribution else "")
        return "exact"


class Obligation(_Record):
    """(deployment, target, applicability, contract). A target is a rule, `outcome` (the
    oracle's ¬F), `policy` (every rule at once), or any name the evidence uses."""

    deployment: str = _NAME
    target: str = _NAME
    applicability: str = Field("every run", max_length=2000, description="when a run exercises the obligation")
    contract: Contract
    parts: list[str] = Field(default_factory=list, max_length=10_000,
                             description="a conjunction's targets (`policy`: every rule); empty for one target")
    standing: bool = Field(False, description="listed by the inventory, not asked for: reported, and left out of "
                                              "whether the ledger is established (its exit status)")

    @property
    def key(self) -> str:
        return f"{self.target} on {self.deployment}, {self.contract}"


class Assumption(_Record):
    """A premise a claim rests on: `holds` (checked), `assumed` (stated; the claim is
    conditional on it) or `unresolved` (the claim cannot be used)."""

    name: str = _NAME
    status: AssumptionStatus = "assumed"
    note: str | None = _TEXT


class Evidence(_Record):
    """A typed claim one method returned about one target on one deployment."""

    method: str = _NAME
    deployment: str = _NAME
    target: str = _NAME
    claim: ClaimType
    interface: str | None = Field(None, max_length=200, description="what the method observes")
    suite: str | None = Field(None, max_length=200)
    distribution: str | None = Field(None, max_length=200, description="the distribution the suite samples")
    runs: int | None = Field(None, ge=0, le=10**9)
    tasks: int | None = Field(None, ge=0, le=10**9, description="independent tasks among the applicable runs")
    applicable: int | None = Field(None, ge=0, le=10**9, description="runs the target applies to")
    violations: int | None = Field(None, ge=0, le=10**9, description="runs violating the target")
    violating_tasks: int | None = Field(None, ge=0, le=10**9)
    bound: float | None = Field(None, ge=0, le=1, description="upper_bound / lower_bound: on Pr(¬target)")
    confidence: float | None = Field(None, gt=0, lt=1)
    value: str | None = Field(None, max_length=2000, description="descriptive: what was measured")
    assumptions: list[Assumption] = Field(default_factory=list, max_length=100)
    lineage: list[str] = Field(default_factory=list, max_length=100)
    flagged: list[str] | None = Field(None, max_length=10**7, description="the runs this evidence flags")

    @model_validator(mode="after")
    def _value_of_the_claim(self) -> "Evidence":
        if self.claim == "suite" and (self.applicable is None or self.violations is None):
            raise ValueError("a suite claim needs `applicable` and `violations`")
        if self.claim in ("upper_bound", "lower_bound") and (self.bound is None or self.confidence is None):
            raise ValueError(f"a {self.claim} claim needs `bound` and `confidence`")
        if self.runs is not None and self.applicable is not None and self.applicable > self.runs:
            raise ValueError(f"`applicable` ({self.applicable}) is more than `runs` ({self.runs})")
        if self.violations is not None and self.applicable is not None and self.violations > self.applicable:
            raise ValueError(f"`violations` ({self.violations}) is more than `applicable` ({self.applicable})")
        if self.violating_tasks is not None and self.tasks is not None and self.violating_tasks > self.tasks:
            raise ValueError(f"`violating_tasks` ({self.violating_tasks}) is more than `tasks` ({self.tasks})")
        return self

    @property
    def unresolved(self) -> list[str]:
        return [a.name for a in self.assumptions if a.status == "unresolved"]

    @property
    def label(self) -> str:
        return f"{self.method}: {self.claim} for {self.target} on {self.deployment}"

    def summary(self) -> str:
        """The claim's value in a few words."""
        if self.claim == "suite":
            where = f" on {self.suite}" if self.suite else ""
            return f"{self.method}: applies to {self.applicable}, violated in {self.violations}{where}"
        if self.claim in ("upper_bound", "lower_bound"):
            word = "≤" if self.claim == "upper_bound" else "≥"
            return f"{self.method}: Pr(¬{self.target}) {word} {self.bound:.4g} at {self.confidence:g}"
        if self.claim == "exact":
            return f"{self.method}: exact" + (f", {self.violations} violation(s)" if self.violations else "")
        return f"{self.method}: {self.value or 'descriptive'}"


class Capability(_Record):
    """A method configured for targets (`*`: every target), without a value."""

    method: str = _NAME
    deployment: str | None = Field(None, max_length=200, description="null: any deployment's runs")
    targets: list[str] = Field(min_length=1, max_length=10_000)
    claim: ClaimType
    distribution: str | None = Field(None, max_length=200)

    def reaches(self, target: str, deployment: str) -> bool:
        return (self.deployment is None or self.deployment == deployment) and \
            ("*" in self.targets or target in self.targets)


class MethodRules(_Record):
    """A method whose run-level verdict is made of some of the policy's rules: a run is flagged
    when it violates one of them. `rules`: the rules (names, or patterns such as `c1*`; every
    rule when absent), `without`: those left out. The paper's rule checker leaves out the
    formatting rule: `{"method": "rule checker", "without": ["c11_*"]}`."""

    method: str = _NAME
    rules: list[str] | None = Field(None, max_length=10_000)
    without: list[str] = Field(default_factory=list, max_length=10_000)


class EvidenceFile(_Record):
    """An `--evidence` file: evidence records, capabilities and obligations from other methods,
    and methods made of the policy's rules."""

    evidence: list[Evidence] = Field(default_factory=list)
    capabilities: list[Capability] = Field(default_factory=list)
    obligations: list[Obligation] = Field(default_factory=list)
    methods: list[MethodRules] = Field(default_factory=list)


class LedgerEntry(_Record):
    obligation: Obligation
    status: Status
    reason: Reason | None = None
    detail: str
    evidence: list[str] = Field(default_factory=list, description="the evidence used, or that fell short")
    conditional_on: list[str] = Field(default_factory=list, description="assumptions an established entry rests on")


class RuleRow(_Record):
    """Table 2: a rule on the suite, with its upper bound counted over tasks."""

    rule: str
    requirement: str | None
    applicability: str
    applicable: int
    violated: int
    tasks: int = Field(description="distinct tasks among the runs the rule applies to")
    violating_tasks: int
    bound: float = Field(description="one-sided upper bound on the violation rate, over tasks")
    bound_over_runs: float = Field(description="the same bound were runs independent (optimistic when clustered)")
    bound_split: float = Field(description="the bound over tasks at confidence 1 − δ/m, the share of δ Prop. 3.4 "
                                           "gives each of the m rules")


class UnionStep(_Record):
    """A method added to the run-level union (§4.2)."""

    method: str
    flagged: int
    new: int = Field(description="runs no earlier method flags")
    union: int
    only: int = Field(description="runs no other method flags")


class OverlapRow(_Record):
    """Table 3: two methods' run-level verdicts."""

    first: str
    second: str
    both: int
    expected: float = Field(description="both, were the verdicts independent (product of marginals)")
    only_first: int
    only_second: int
    disagreement: float
    independent_disagreement: float


class CombinedBound(_Record):
    """Prop. 3.4 over the rules' upper bounds on one deployment and distribution."""

    deployment: str
    distribution: str | None
    rules: int
    epsilon: float
    delta: float
    share: float = Field(description="δ/m: the part of δ each rule's bound is taken at (confidence 1 − δ/m)")
    missing: list[str] = Field(default_factory=list, description="rules without an upper bound")


class Residual(_Record):
    unflagged: int
    unflagged_runs: list[str]
    unmet: int = Field(description="addressed obligations not established (G_est)")
    unaddressed: int = Field(description="obligations no method addresses (G_expr)")


class Ledger(_Record):
    policy: str
    deployment: str
    suite: str
    runs: int
    tasks: int
    confidence: float
    rules: list[RuleRow]
    entries: list[LedgerEntry]
    expressiveness_gap: list[str] = Field(description="G_expr: obligations no configured method addresses")
    establishability_gap: list[str] = Field(description="G_est: addressed obligations whose contract is unmet")
    union: list[UnionStep]
    overlaps: list[OverlapRow]
    combined: list[CombinedBound]
    residual: Residual
    evidence: list[Evidence]
    methods: dict[str, list[str]] = Field(default_factory=dict, description="methods made of rules, and their rules")
    problems: list[str] = Field(default_factory=list, description="inputs that could not be used, and why")
    warnings: list[str] = Field(default_factory=list, description="what the figures rest on that may not hold")

    @property
    def established(self) -> bool:
        """Every obligation asked for (not a standing one of the inventory) is established."""
        asked = [e for e in self.entries if not e.obligation.standing]
        return bool(asked) and all(e.status == "established" for e in asked)
