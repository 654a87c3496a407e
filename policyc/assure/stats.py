"""The numbers of the ledger: suite upper bounds, the union bounds of Propositions 3.3 and 3.4,
and the overlap of run-level verdicts ("Organising trajectory evidence", §3.1, §4.3, §6).

A suite of runs is clustered: the runs of one task are not independent draws. An upper bound
on a violation rate therefore counts *tasks*: with no violating task among n independent
tasks, the one-sided upper bound at confidence 1 − α is 1 − α^(1/n) (the exact binomial,
Clopper–Pearson, bound at zero); with k violating tasks, the Clopper–Pearson upper bound. On
the paper's c10 (456 runs, 114 tasks, no violation):

>>> round(upper_bound(0, 114), 4), round(upper_bound(0, 456), 4)
(0.0259, 0.0065)

Bounds on several obligations of one deployment combine without independence (Prop. 3.4):

>>> union_bound([(0.01, 0.025), (0.02, 0.025)])
(0.03, 0.05)
"""

from __future__ import annotations

import math
from typing import Iterable

#: the one-sided confidence of the suite bounds, as the paper reports them
CONFIDENCE = 0.95


def _binomial_cdf(k: int, n: int, p: float) -> float:
    """P(X <= k) for X ~ Binomial(n, p), summed in log space (n may be large)."""
    if p <= 0.0:
        return 1.0
    if p >= 1.0:
        return 1.0 if k >= n else 0.0
    log_p, log_q = math.log(p), math.log1p(-p)
    total = 0.0
    for i in range(0, k + 1):
        log_term = math.lgamma(n + 1) - math.lgamma(i + 1) - math.lgamma(n - i + 1) + i * log_p + (n - i) * log_q
        total += math.exp(log_term)
    return min(1.0, total)


def upper_bound(failures: int, trials: int, confidence: float = CONFIDENCE) -> float:
    """The exact one-sided upper confidence bound on a failure probability after `failures` in
    `trials` independent trials (Clopper–Pearson); 1 when there are no trials.

    >>> upper_bound(0, 0), round(upper_bound(0, 1), 2), round(upper_bound(1, 10), 4)
    (1.0, 0.95, 0.3942)
    """
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"a confidence is between 0 and 1, not {confidence!r}")
    if trials < 0 or not 0 <= failures <= max(trials, 0):
        raise ValueError(f"{failures} failures in {trials} trials")
    if trials == 0 or failures == trials:
        return 1.0
    alpha = 1.0 - confidence
    if failures == 0:
        return 1.0 - alpha ** (1.0 / trials)
    lo, hi = failures / trials, 1.0  # the p with P(X <= failures) = alpha: the CDF falls as p grows
    for _ in range(200):
        mid = (lo + hi) / 2
        if _binomial_cdf(failures, trials, mid) > alpha:
            lo = mid
        else:
            hi = mid
    return hi


def union_bound(bounds: Iterable[tuple[float, float]]) -> tuple[float, float]:
    """Prop. 3.4: from Pr(¬φ_j) <= ε_j at confidence 1 − δ_j, Pr(¬∧φ_j) <= min(1, Σε_j) at
    confidence at least 1 − Σδ_j, under the joint assumptions and without independence.
    Returns (min(1, Σε), min(1, Σδ))."""
    eps, delta = 0.0, 0.0
    for e, d in bounds:
        eps += e
        delta += d
    return min(1.0, eps), min(1.0, delta)


def missing_term_bound(outcome: tuple[float, float], omitted: tuple[float, float]) -> tuple[float, float]:
    """Prop. 3.3: Pr(F) <= u at 1 − δ_F and Pr(B) <= b at 1 − δ_B, with B the violations the
    oracle passes, give Pr(V) <= min(1, u + b) at confidence 1 − δ_F − δ_B.

    >>> missing_term_bound((0.1, 0.05), (0.05, 0.05))
    (0.15000000000000002, 0.1)
    """
    return union_bound([outcome, omitted])


def overlap(first: set[str], second: set[str], runs: int) -> dict[str, float | int]:
    """Two run-level verdicts over `runs` runs (table 3): both, the product-of-marginals
    reference under independence, only the first, only the second, the fraction of runs on
    which they differ and its independence reference p1(1 − p2) + p2(1 − p1).

    >>> row = overlap(set(range(183)), set(range(22, 253)), 456)  # the paper's M/O
    >>> row["both"], round(row["expected"]), row["only_first"], row["only_second"]
    (161, 93, 22, 70)
    >>> round(row["disagreement"], 2), round(row["independent_disagreement"], 2)
    (0.2, 0.5)
    """
    if runs <= 0:
        raise ValueError("an overlap needs runs")
    both = len(first & second)
    p1, p2 = len(first) / runs, len(second) / runs
    only_first, only_second = len(first - second), len(second - first)
    return {"both": both, "expected": p1 * p2 * runs, "only_first": only_first, "only_second": only_second,
            "disagreement": (only_first + only_second) / runs,
            "independent_disagreement": p1 * (1 - p2) + p2 * (1 - p1)}
