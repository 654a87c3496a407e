"""The training corpus of appendix D.3: pool, augmentation, balanced subsampling.

Pool: every pattern variant (a training template and, for the four a/c templates, its
transform) gets `cores` core instances, seeds base_seed .. base_seed + cores - 1: with 30
cores, 19 slots x 30 = 570 cores. Each core is expanded into every augmentation it allows
(none, prefix, suffix, both; none and prefix for cores of 7 or more calls), so each
pattern's pool holds the augmentation classes in equal numbers whenever its cores allow
all four (the paper's "exact 1/4 class balance").

Sampling: each template's quota is min_per_pattern plus its share of the rest by weight,
largest remainders first, never above max_per_pattern nor above what its pool holds; with
15 equal weights, 300 = 15 x 8 + 180 gives 20 per template. Within a template the quota is
spread round-robin over its buckets (transform variant x augmentation), so no bucket is
over-represented, and drawn from each bucket in an order shuffled by `seed`.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Mapping

from policyc.bench.augment import allowed_augmentations
from policyc.bench.generate import generate_instance
from policyc.bench.model import Instance
from policyc.bench.simplified import TRAINING, run_simplified


@dataclass(frozen=True, slots=True, order=True)
class PoolEntry:
    """One augmented core instance of the pool, by what generates it."""

    template: str
    variant: str
    seed: int
    augmentation: str

    def instance(self) -> Instance:
        return generate_instance(self.template, seed=self.seed, mode="simplified", variant=self.variant,
                                 augmentation=self.augmentation)


def training_pool(cores: int = 30, base_seed: int = 0) -> list[PoolEntry]:
    """Every pattern variant x `cores` seeds x the augmentations each core allows.

    >>> pool = training_pool(cores=2)
    >>> len({(e.template, e.variant) for e in pool})
    19
    """
    out: list[PoolEntry] = []
    for template in TRAINING:
        for variant in template.variants:
            for seed in range(base_seed, base_seed + cores):
                length = len(run_simplified(template.name, seed, variant)[0])
                out.extend(PoolEntry(template.name, variant, seed, a) for a in allowed_augmentations(length))
    return out


def quotas(weights: Mapping[str, float], total: int, minimum: int, maximum: int,
           available: Mapping[str, int] | None = None) -> dict[str, int]:
    """Per-pattern quotas: the floor, then weighted largest remainders under the ceilings.

    >>> q = quotas({f"t{k}": 1.0 for k in range(15)}, 300, 8, 24)
    >>> sorted(set(q.values())), sum(q.values())
    ([20], 300)
    >>> quotas({"a": 3.0, "b": 1.0}, 20, 2, 12)
    {'a': 12, 'b': 8}
    """
    caps = {k: min(maximum, (available or {}).get(k, maximum)) for k in weights}
    if any(minimum > caps[k] for k in weights) or total < minimum * len(weights) or total > sum(caps.values()):
        raise ValueError(f"cannot draw {total} examples from {len(weights)} patterns with "
                         f"{minimum} to {maximum} each")
    got = {k: minimum for k in weights}
    remaining = total - minimum * len(weights)
    while remaining > 0:
        room = [k for k in weights if got[k] < caps[k]]
        mass = sum(weights[k] for k in room) or float(len(room))
        shares = {k: remaining * (weights[k] if mass else 1.0) / mass for k in room}
        given = 0
        for k in room:
            step = min(int(shares[k]), caps[k] - got[k])
            got[k] += step
            given += step
        left = remaining - given
        for k in sorted(room, key=lambda k: (-(shares[k] - int(shares[k])), k)):
            if left == 0:
                break
            if got[k] < caps[k]:
                got[k] += 1
                left -= 1
        remaining = left if given or left < remaining else 0
    return got


def sample_training_set(size: int = 300, *, cores: int = 30, minimum: int = 8, maximum: int = 24,
                        weights: Mapping[str, float] | None = None, seed: int = 0) -> list[PoolEntry]:
    """The balanced training set: `size` pool entries, in template order.

    >>> picked = sample_training_set(60, cores=4, minimum=2, maximum=8)
    >>> len(picked), {e.template for e in picked} == {t.name for t in __import__(
    ...     "policyc.bench.simplified", fromlist=["x"]).TRAINING}
    (60, True)
    """
    pool = training_pool(cores)
    by_template: dict[str, dict[tuple[str, str], list[PoolEntry]]] = {}
    for entry in pool:
        by_template.setdefault(entry.template, {}).setdefault((entry.variant, entry.augmentation), []).append(entry)
    chosen_weights = {t.name: (weights or {}).get(t.name, 1.0) for t in TRAINING}
    available = {t: sum(len(b) for b in buckets.values()) for t, buckets in by_template.items()}
    quota = quotas(chosen_weights, size, minimum, maximum, available)
    rng = random.Random(seed)
    picked: list[PoolEntry] = []
    for template in TRAINING:
        buckets = [list(entries) for _, entries in sorted(by_template[template.name].items())]
        for bucket in buckets:
            rng.shuffle(bucket)
        picked.extend(_round_robin(buckets, quota[template.name]))
    return picked


def _round_robin(buckets: list[list[PoolEntry]], count: int) -> list[PoolEntry]:
    out: list[PoolEntry] = []
    while len(out) < count and any(buckets):
        for bucket in buckets:
            if bucket and len(out) < count:
                out.append(bucket.pop(0))
    return out
