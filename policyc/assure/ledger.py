"""Classifying obligations against evidence (§3.1): established, addressed but not
established, or unaddressed, each with its reason.

The claim graph is fixed and small. An obligation's contract is reached by these claim types:

| contract | reached by |
|---|---|
| exact | an exact claim |
| suite(k) | a suite count on the suite it names |
| risk(ε, δ) | an upper bound; an exact claim (zero risk); a suite count from a suite that samples the named distribution, read as a clustered upper bound over its tasks (a suite that samples none addresses the risk of its own target, out of scope) |
| a conjunction (`policy`) | its parts: exact if every part is; risk by Prop. 3.4 over the parts' bounds, each from a risk method or a suite that samples a distribution (else no risk-contract method addresses it) |

An obligation is *addressed* when a capability (or evidence, which implies one) targets it on
its deployment (for a part of a conjunction's risk: one whose claim can bound a risk); it is
*established* when evidence on the same deployment, of a reaching type, in scope and without
an unresolved assumption meets the contract. Nothing transfers across deployments; a descriptive statistic and a lower bound
reach no contract. An observed violation on the deployment refutes an exact or suite contract
(the obligation is then addressed, whichever method saw it). Otherwise the reason is the first
that applies of: an unresolved assumption, insufficient applicability, a bound too weak, a scope
mismatch (evidence here, of the wrong kind or scope), absent evidence (addressed; evidence for
another deployment is said not to transfer), no method (unaddressed).
"""

from __future__ import annotations

from typing import Iterable, Sequence

from policyc.assure.methods import OUTSIDE
from policyc.assure.models import Capability, Contract, Evidence, LedgerEntry, Obligation
from policyc.assure.stats import union_bound, upper_bound

_REACHES: dict[str, frozenset[str]] = {
    "exact": frozenset({"exact"}),
    "suite": frozenset({"suite"}),
    "risk": frozenset({"upper_bound", "exact", "suite"}),
}


def in_scope(e: Evidence, contract: Contract) -> bool:
    """Whether evidence of a reaching type speaks to this contract's suite or distribution."""
    if contract.kind == "suite":
        return contract.suite is None or e.suite == contract.suite
    if contract.kind == "risk":
        if e.claim == "exact":
            return True
        if e.claim == "suite":  # a suite bounds a risk only as a sample of the named distribution
            return e.distribution is not None and contract.distribution in (None, e.distribution)
        return contract.distribution is None or e.distribution == contract.distribution
    return True


def risk_bound(e: Evidence, confidence: float) -> float | None:
    """The upper bound on Pr(¬target) a claim gives at `confidence`: exact 0, an upper bound
    at no lower confidence as stated, a suite's clustered bound over its tasks."""
    if e.claim == "exact":
        return 0.0 if not e.violations else None
    if e.claim == "upper_bound" and e.bound is not None and e.confidence is not None:
        return e.bound if e.confidence >= confidence - 1e-12 else None
    if e.claim == "suite" and e.violations is not None:
        trials = e.tasks if e.tasks is not None else e.runs
        if trials is None:
            return None
        failures = e.violating_tasks if e.violating_tasks is not None else min(e.violations, trials)
        return upper_bound(min(failures, trials), trials, confidence)
    return None


def _meets(e: Evidence, contract: Contract) -> bool:
    if contract.kind == "exact":
        return e.claim == "exact" and not e.violations
    if contract.kind == "suite":
        return e.claim == "suite" and e.violations == 0 and (e.applicable or 0) >= contract.k
    bound = risk_bound(e, 1.0 - (contract.delta or 0.0))
    return bound is not None and bound <= (contract.epsilon or 0.0)


def is_addressed(obligation: Obligation, evidence: Sequence[Evidence], capabilities: Sequence[Capability],
                 part: bool = False) -> bool:
    """Some capability, or some evidence (a method that ran), targets the obligation on its
    deployment: the method looks at it, whatever it can claim (a descriptive statistic
    addresses, and never establishes, as the paper's warning ideal). A part of a conjunction's
    risk is addressed only by a claim that can bound it: Prop. 3.4 adds risk bounds, and a
    count on a suite is one only when it samples a named distribution (table 4: with the rule
    checker's counts alone, the policy's risk is unaddressed)."""
    if obligation.parts:
        return all(is_addressed(_part(obligation, p), evidence, capabilities, True) for p in obligation.parts)
    strict = part and obligation.contract.kind == "risk"

    def counts(claim: str, distribution: str | None) -> bool:
        return not strict or claim in _REACHES["risk"] and (claim != "suite" or distribution is not None)

    if any(c.reaches(obligation.target, obligation.deployment) and counts(c.claim, c.distribution)
           for c in capabilities):
        return True
    return any(e.target == obligation.target and e.deployment == obligation.deployment
               and counts(e.claim, e.distribution) for e in evidence)


def _part(obligation: Obligation, target: str) -> Obligation:
    return Obligation(deployment=obligation.deployment, target=target, contract=obligation.contract)


def classify(obligation: Obligation, evidence: Sequence[Evidence], capabilities: Sequence[Capability]) -> LedgerEntry:
    """The ledger entry of one obligation."""
    if obligation.parts:
        return _classify_conjunction(obligation, evidence, capabilities)
    contract = obligation.contract
    mine = [e for e in evidence if e.target == obligation.target]
    here = [e for e in mine if e.deployment == obligation.deployment]
    elsewhere = sorted({e.deployment for e in mine} - {obligation.deployment})
    addressed = is_addressed(obligation, evidence, capabilities)
    transfer = f"; evidence for {', '.join(elsewhere)} does not transfer" if elsewhere else ""

    def entry(status, reason, detail, used=(), conditional=()) -> LedgerEntry:
        return LedgerEntry(obligation=obligation, status=status, reason=reason, detail=detail,
                           evidence=[e.summary() for e in used], conditional_on=sorted(set(conditional)))

    if obligation.target == OUTSIDE:
        return entry("unaddressed", "no_method", "outside the policy's inventory: no method decides a requirement "
                     "nobody wrote down, and nothing certifies that none is missing")
    if contract.kind in ("exact", "suite"):  # an observed violation refutes the contract, whoever saw it
        against = [e for e in here if e.violations and (contract.kind == "exact" or in_scope(e, contract)
                                                         or e.claim != "suite")]
        if against:
            total = max(e.violations or 0 for e in against)
            return entry("addressed", "counterexample", f"{total} violating run(s) observed", against)
    if not addressed:
        return entry("unaddressed", "no_method", f"no configured method gives a claim that can meet {contract}"
                     + transfer, here)
    reaching = [e for e in here if e.claim in _REACHES[contract.kind] and in_scope(e, contract)]
    meeting = [e for e in reaching if _meets(e, contract)]
    sound = [e for e in meeting if not e.unresolved]
    if sound:
        conditions = [a.name for e in sound for a in e.assumptions]
        return entry("established", None, _established(sound[0], contract), sound, conditions)
    if meeting:
        names = sorted({a for e in meeting for a in e.unresolved})
        return entry("addressed", "unresolved_assumption", f"unresolved: {', '.join(names)}", meeting)
    if contract.kind == "suite":
        short = [e for e in reaching if e.claim == "suite" and e.violations == 0]
        if short:
            most = max(e.applicable or 0 for e in short)
            return entry("addressed", "insufficient_applicability",
                         f"applies to {most} run(s), the contract needs {contract.k}", short)
    if contract.kind == "risk" and reaching:
        confidence = 1.0 - (contract.delta or 0.0)
        bounds = [b for b in (risk_bound(e, confidence) for e in reaching) if b is not None]
        if bounds and contract.epsilon is None:
            return entry("addressed", "weak_bound", f"best upper bound {min(bounds):.4g}; no ε is named", reaching)
        if bounds:
            return entry("addressed", "weak_bound", f"best upper bound {min(bounds):.4g} > ε = {contract.epsilon:g}",
                         reaching)
    if contract.kind == "risk" and any(e.claim == "suite" and e.distribution is None for e in here):
        return entry("addressed", "scope_mismatch", "a count on a suite bounds a risk only as a sample of a named "
                     "deployment distribution, and none is named (its runs are clustered by task)" + transfer, here)
    if here:
        kinds = sorted({e.claim for e in here})
        return entry("addressed", "scope_mismatch", f"the evidence here ({', '.join(kinds)}) is out of the "
                     f"contract's scope (its suite, distribution or claim type)" + transfer, here)
    return entry("addressed", "absent_evidence", "a method addresses it; no evidence for this deployment is in"
                 + transfer, [])


def _established(e: Evidence, contract: Contract) -> str:
    if contract.kind == "suite":
        return f"applies to {e.applicable} run(s), none violating" + (f" on {e.suite}" if e.suite else "")
    if contract.kind == "exact":
        return f"exact claim by {e.method}"
    bound = risk_bound(e, 1.0 - (contract.delta or 0.0))
    return f"Pr(¬{e.target}) ≤ {bound:.4g}" + ("" if contract.epsilon is None else f" ≤ ε = {contract.epsilon:g}")


def _classify_conjunction(obligation: Obligation, evidence: Sequence[Evidence],
                          capabilities: Sequence[Capability]) -> LedgerEntry:
    contract = obligation.contract
    parts = [classify(_part(obligation, p), evidence, capabilities) for p in obligation.parts]
    if not is_addressed(obligation, evidence, capabilities):
        missing = [p for p in obligation.parts if not is_addressed(_part(obligation, p), evidence, capabilities, True)]
        why = "no risk-contract method is configured (a count on a suite is no risk bound unless it samples a " \
              "named distribution)" if contract.kind == "risk" else f"no method gives {contract}"
        return LedgerEntry(obligation=obligation, status="unaddressed", reason="no_method",
                           detail=f"{why}: {_few(missing)}")
    if contract.kind == "risk":
        bounds = combined_bound(obligation.parts, obligation.deployment, evidence, contract)
        if bounds is None:
            return _from_parts(obligation, parts)
        eps, delta = bounds
        detail = f"Prop. 3.4 over {len(parts)} part(s), δ split evenly: Pr ≤ {eps:.4g} at confidence {1 - delta:.4g}"
        if contract.epsilon is None:
            return LedgerEntry(obligation=obligation, status="addressed", reason="weak_bound",
                               detail=detail + "; no ε is named")
        if eps <= contract.epsilon and delta <= (contract.delta or 0.0) + 1e-12:
            conditions = sorted({c for p in parts for c in p.conditional_on})
            return LedgerEntry(obligation=obligation, status="established", detail=detail, conditional_on=conditions)
        return LedgerEntry(obligation=obligation, status="addressed", reason="weak_bound",
                           detail=detail + f", above ε = {contract.epsilon:g} or δ = {contract.delta:g}")
    return _from_parts(obligation, parts)


def _from_parts(obligation: Obligation, parts: list[LedgerEntry]) -> LedgerEntry:
    failing = [p for p in parts if p.status != "established"]
    if not failing:
        conditions = sorted({c for p in parts for c in p.conditional_on})
        return LedgerEntry(obligation=obligation, status="established", detail=f"all {len(parts)} part(s) established",
                           conditional_on=conditions)
    first = failing[0]
    return LedgerEntry(obligation=obligation, status="addressed", reason=first.reason,
                       detail=f"{len(failing)} of {len(parts)} part(s) not established, "
                              f"e.g. {first.obligation.target}: {first.detail}")


def combined_bound(targets: Iterable[str], deployment: str, evidence: Sequence[Evidence],
                   contract: Contract) -> tuple[float, float] | None:
    """Prop. 3.4 over the targets: each contributes its best upper bound at the contract's
    per-part confidence (δ split evenly), from evidence on this deployment only; None when a
    target has none."""
    targets = list(targets)
    if not targets:
        return None
    share = (contract.delta or 0.0) / len(targets)
    parts = []
    for target in targets:
        here = [e for e in evidence if e.target == target and e.deployment == deployment
                and e.claim in _REACHES["risk"] and in_scope(e, contract) and not e.unresolved]
        bounds = [b for b in (risk_bound(e, 1.0 - share) for e in here) if b is not None]
        if not bounds:
            return None
        parts.append((min(bounds), share))
    return union_bound(parts)


def _few(names: list[str], most: int = 4) -> str:
    return ", ".join(names[:most]) + (f" and {len(names) - most} more" if len(names) > most else "")


def gaps(entries: Sequence[LedgerEntry]) -> tuple[list[str], list[str]]:
    """(G_expr, G_est): the obligations no method addresses, and the addressed ones whose
    contract is unmet."""
    return ([e.obligation.key for e in entries if e.status == "unaddressed"],
            [e.obligation.key for e in entries if e.status == "addressed"])
