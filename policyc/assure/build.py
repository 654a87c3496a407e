"""The merged ledger of a suite: obligations, evidence from every method, and what they establish.

`assure(compiled, runs, ...)` takes the scored runs of one deployment's suite (see
`policyc.assure.methods.run_record`), adds the evidence of the rule checker, the outcome
oracle (when the runs record a reward), the gate (for each gated deployment named) and any
imported evidence, and classifies every obligation. Default obligations: each rule on the
deployment with a suite(k) contract; the outcome, when the oracle ran; on a gated deployment,
each rule the gate refuses with an exact contract and the others with suite(k); with
`risk=(ε, δ)`, the whole policy (and the outcome) under a risk contract on every deployment.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Sequence

from policyc.assure.ledger import in_scope, risk_bound, classify, gaps
from policyc.assure.methods import (
    GATE,
    ORACLE,
    OUTCOME,
    POLICY,
    RULE_CHECKER,
    RunRecord,
    applicability_text,
    gate_evidence,
    oracle_evidence,
    rule_checker_capability,
    rule_checker_evidence,
    rule_rows,
)
from policyc.assure.models import (
    Capability,
    CombinedBound,
    Contract,
    Evidence,
    EvidenceFile,
    Ledger,
    Obligation,
    OverlapRow,
    Residual,
    UnionStep,
)
from policyc.assure.stats import CONFIDENCE, overlap, union_bound
from policyc.tables.policy import CompiledPolicy


@dataclass(frozen=True)
class Options:
    deployment: str = "deployment"
    suite: str = "suite"
    gated: tuple[str, ...] = ()             # gated deployments: the gate's exact claims hold there
    k: int = 1                              # suite contracts: runs the target must apply to
    risk: tuple[float, float] | None = None  # (ε, δ): add the policy's (and the outcome's) risk obligations
    distribution: str | None = None         # the suite samples this distribution of the deployment's runs
    confidence: float = CONFIDENCE
    resolved: tuple[str, ...] = ()          # assumptions checked to hold
    lineage: tuple[str, ...] = ()           # where the runs came from
    imported: tuple[EvidenceFile, ...] = field(default_factory=tuple)


def default_obligations(compiled: CompiledPolicy, options: Options, has_oracle: bool) -> list[Obligation]:
    rules = [r.name for r in compiled.policy.rules]
    suite = Contract(kind="suite", k=options.k)
    out = [Obligation(deployment=options.deployment, target=r, applicability=applicability_text(compiled, r),
                      contract=suite) for r in rules]
    if has_oracle:
        out.append(Obligation(deployment=options.deployment, target=OUTCOME, contract=suite))
    gated = {e.target for e in gate_evidence(compiled, "_")}
    for deployment in options.gated:
        for r in rules:
            contract = Contract(kind="exact") if r in gated else suite
            out.append(Obligation(deployment=deployment, target=r, applicability=applicability_text(compiled, r),
                                  contract=contract))
    if options.risk is not None:
        eps, delta = options.risk
        risk = Contract(kind="risk", epsilon=eps, delta=delta, distribution=options.distribution)
        for deployment in (options.deployment, *options.gated):
            out.append(Obligation(deployment=deployment, target=POLICY, contract=risk, parts=rules))
        if has_oracle:
            out.append(Obligation(deployment=options.deployment, target=OUTCOME, contract=risk))
    return out


def assure(compiled: CompiledPolicy, runs: Sequence[RunRecord], options: Options = Options(),
           problems: Sequence[str] = ()) -> Ledger:
    """The ledger of `runs` (one deployment's suite) against the policy, with `options`."""
    problems = list(problems)
    evidence = rule_checker_evidence(compiled, runs, options.deployment, options.suite, options.distribution,
                                     options.lineage, options.confidence, options.resolved)
    capabilities: list[Capability] = [rule_checker_capability(options.distribution)]
    oracle = oracle_evidence(runs, options.deployment, options.suite, options.distribution, options.lineage,
                             options.resolved)
    if oracle is not None:
        evidence.insert(0, oracle)
        capabilities.append(Capability(method=ORACLE, targets=[OUTCOME], claim="suite",
                                       distribution=options.distribution))
    for deployment in options.gated:
        claims = gate_evidence(compiled, deployment, options.resolved)
        evidence.extend(claims)
        if claims:
            capabilities.append(Capability(method=GATE, deployment=deployment, targets=[e.target for e in claims],
                                           claim="exact"))
    obligations = default_obligations(compiled, options, oracle is not None)
    for imported in options.imported:
        evidence.extend(imported.evidence)
        capabilities.extend(imported.capabilities)
        obligations.extend(imported.obligations)
    obligations = list({o.key: o for o in obligations}.values())  # an imported obligation replaces a default one
    entries = [classify(o, evidence, capabilities) for o in obligations]
    expr_gap, est_gap = gaps(entries)
    flags = _method_flags(evidence, runs, options, problems)
    union = _union(flags)
    all_runs = {r.id for r in runs}
    flagged = set().union(*flags.values()) if flags else set()
    unflagged = sorted(all_runs - flagged)
    return Ledger(
        policy=compiled.policy.name, deployment=options.deployment, suite=options.suite, runs=len(runs),
        tasks=len({r.task for r in runs}), confidence=options.confidence,
        rules=rule_rows(compiled, runs, options.confidence), entries=entries,
        expressiveness_gap=expr_gap, establishability_gap=est_gap, union=union,
        overlaps=[OverlapRow(first=a, second=b, **overlap(flags[a], flags[b], len(runs)))
                  for a, b in itertools.combinations(flags, 2)] if runs else [],
        combined=_combined(compiled, evidence, options),
        residual=Residual(unflagged=len(unflagged), unflagged_runs=unflagged, unmet=len(est_gap),
                          unaddressed=len(expr_gap)),
        evidence=evidence, problems=problems)


def _method_flags(evidence: Sequence[Evidence], runs: Sequence[RunRecord], options: Options,
                  problems: list[str]) -> dict[str, set[str]]:
    """Per method, in the order the methods appear, the runs of the suite it flags (only
    evidence on the suite's deployment)."""
    known = {r.id for r in runs}
    out: dict[str, set[str]] = {}
    for e in evidence:
        if e.flagged is None or e.deployment != options.deployment:
            continue
        unknown = sorted(set(e.flagged) - known)
        if unknown:
            problems.append(f"{e.label}: {len(unknown)} flagged run(s) are not in the suite "
                            f"(e.g. `{unknown[0][:80]}`); they are left out of the union")
        out.setdefault(e.method, set()).update(set(e.flagged) & known)
    return out


def _union(flags: dict[str, set[str]]) -> list[UnionStep]:
    steps: list[UnionStep] = []
    seen: set[str] = set()
    for method, mine in flags.items():
        others = set().union(*(f for m, f in flags.items() if m != method)) if len(flags) > 1 else set()
        new = mine - seen
        seen |= mine
        steps.append(UnionStep(method=method, flagged=len(mine), new=len(new), union=len(seen),
                               only=len(mine - others)))
    return steps


def _combined(compiled: CompiledPolicy, evidence: Sequence[Evidence], options: Options) -> list[CombinedBound]:
    """Prop. 3.4 over every rule, on each deployment, from the rules' upper bounds there
    (δ = 1 − confidence, split evenly)."""
    rules = [r.name for r in compiled.policy.rules]
    if not rules:
        return []
    delta = 1.0 - options.confidence
    contract = Contract(kind="risk", epsilon=1.0, delta=delta, distribution=options.distribution)
    out = []
    for deployment in (options.deployment, *options.gated):
        share = delta / len(rules)
        bounds, missing = [], []
        for rule in rules:
            here = [e for e in evidence if e.target == rule and e.deployment == deployment
                    and in_scope(e, contract) and not e.unresolved]
            found = [b for b in (risk_bound(e, 1.0 - share) for e in here) if b is not None]
            if found:
                bounds.append((min(found), share))
            else:
                missing.append(rule)
        eps, total_delta = union_bound(bounds)
        out.append(CombinedBound(deployment=deployment, distribution=options.distribution, rules=len(bounds),
                                 epsilon=eps if not missing else 1.0, delta=total_delta, missing=missing))
    return out


__all__ = ["Options", "assure", "default_obligations", "RULE_CHECKER"]
