"""The merged ledger of a suite: obligations, evidence from every method, and what they establish.

`assure(compiled, runs, ...)` takes the scored runs of one deployment's suite (see
`policyc.assure.methods.run_record`), adds the evidence of the rule checker (when there are
runs to read), the outcome oracle (when the runs record a reward), the gate (for each gated
deployment named) and any imported evidence, and classifies every obligation.

The inventory (table 4), by default: each rule on the deployment with a suite(k) contract; the
outcome, with a suite(k) contract when the oracle ran; on a gated deployment, each rule the
gate refuses with an exact contract and the others with suite(k); the whole policy's risk on
every deployment (and the outcome's, when the oracle ran) with `risk=(ε, δ)`. Listed too, as
*standing* obligations (reported, but not asked for: they leave the exit status alone): the
outcome when no oracle ran, the policy's risk when no ε is named, and the requirements outside
the policy. Each is unaddressed until some method's capability or evidence reaches it.

The run-level union and overlaps are over methods: each method's flagged runs, as its
evidence names them; a method made of rules (`MethodRules`, from an evidence file) flags the
runs violating one of its rules, and the rule checker is one: all the policy's rules, or
those its definition names (the paper's leaves out the formatting rule c11).
"""

from __future__ import annotations

import fnmatch
import itertools
from dataclasses import dataclass, field
from typing import Sequence

from policyc.assure.ledger import in_scope, risk_bound, classify, gaps
from policyc.assure.methods import (
    EVERY_DEPLOYMENT,
    GATE,
    ORACLE,
    OUTCOME,
    OUTSIDE,
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
    MethodRules,
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
    """The inventory: the obligations the policy declares, before any evidence (module doc)."""
    rules = [r.name for r in compiled.policy.rules]
    suite = Contract(kind="suite", k=options.k)
    out = [Obligation(deployment=options.deployment, target=r, applicability=applicability_text(compiled, r),
                      contract=suite) for r in rules]
    out.append(Obligation(deployment=options.deployment, target=OUTCOME, contract=suite, standing=not has_oracle))
    gated = {e.target for e in gate_evidence(compiled, "_")}
    for deployment in options.gated:
        for r in rules:
            contract = Contract(kind="exact") if r in gated else suite
            out.append(Obligation(deployment=deployment, target=r, applicability=applicability_text(compiled, r),
                                  contract=contract))
    eps, delta = options.risk if options.risk is not None else (None, 1.0 - options.confidence)
    risk = Contract(kind="risk", epsilon=eps, delta=delta, distribution=options.distribution)
    if rules:
        for deployment in (options.deployment, *options.gated):
            out.append(Obligation(deployment=deployment, target=POLICY, contract=risk, parts=rules,
                                  standing=options.risk is None))
    if has_oracle and options.risk is not None:
        out.append(Obligation(deployment=options.deployment, target=OUTCOME, contract=risk))
    out.append(Obligation(deployment=EVERY_DEPLOYMENT, target=OUTSIDE, applicability="any",
                          contract=Contract(kind="exact"), standing=True))
    return out


def assure(compiled: CompiledPolicy, runs: Sequence[RunRecord], options: Options = Options(),
           problems: Sequence[str] = ()) -> Ledger:
    """The ledger of `runs` (one deployment's suite) against the policy, with `options`."""
    problems = list(problems)
    evidence = rule_checker_evidence(compiled, runs, options.deployment, options.suite, options.distribution,
                                     options.lineage, options.confidence, options.resolved) if runs else []
    capabilities: list[Capability] = [rule_checker_capability(compiled, options.distribution)] \
        if runs and compiled.policy.rules else []
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
    defined = _rule_methods(compiled, [m for f in options.imported for m in f.methods], problems)
    flags = _method_flags(evidence, runs, options, problems, defined)
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
        evidence=evidence, methods={m: sorted(r) for m, r in defined.items()}, problems=problems,
        warnings=_warnings(runs))


def _warnings(runs: Sequence[RunRecord]) -> list[str]:
    untasked = sum(not r.has_task for r in runs)
    if not untasked:
        return []
    return [f"{untasked} of {len(runs)} run(s) carry no `metrics.task_id`: each is counted as a task of its own, "
            f"so the bounds over tasks are too optimistic if runs repeat a task"]


def _rule_methods(compiled: CompiledPolicy, definitions: Sequence[MethodRules],
                  problems: list[str]) -> dict[str, frozenset[str]]:
    """The rules of each method made of rules (names or fnmatch patterns; a name that matches
    no rule of the policy is a problem, and is left out)."""
    names = [r.name for r in compiled.policy.rules]

    def matching(method: str, patterns: Sequence[str]) -> set[str]:
        found: set[str] = set()
        for pattern in patterns:
            hit = fnmatch.filter(names, pattern)
            if not hit:
                problems.append(f"method `{method}`: `{pattern[:80]}` names no rule of the policy")
            found.update(hit)
        return found

    out: dict[str, frozenset[str]] = {}
    for d in definitions:
        chosen = set(names) if d.rules is None else matching(d.method, d.rules)
        out[d.method] = frozenset(chosen - matching(d.method, d.without))
    return out


def _method_flags(evidence: Sequence[Evidence], runs: Sequence[RunRecord], options: Options,
                  problems: list[str], defined: dict[str, frozenset[str]]) -> dict[str, set[str]]:
    """Per method, in the order the methods appear, the runs of the suite it flags (only
    evidence on the suite's deployment); a method made of rules flags the runs violating one
    of them, in place of what its evidence flags."""
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
    for method, rules in defined.items():
        out[method] = {r.id for r in runs if r.violated & rules}
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
    (δ = 1 − confidence, split evenly: each rule's bound at confidence 1 − δ/m)."""
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
                                 epsilon=eps if not missing else 1.0, delta=total_delta, share=share, missing=missing))
    return out


__all__ = ["Options", "assure", "default_obligations", "RULE_CHECKER"]
