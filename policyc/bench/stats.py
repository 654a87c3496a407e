"""Benchmark statistics: trace lengths, constraint counts and how the weight splits by layer.

The paper states that the structural layers L3, L4 and L5 carry about 73 % of the total
constraint weight (§4.1, §C.4, figure 2). `weight_statistics` measures it over a grid of
instances: pooled (all weight of all instances) and per template.

>>> stats = weight_statistics([("fan_out_fan_in", 1, 2)])
>>> stats.total_weight, round(stats.structural_share, 3)
(46.5, 0.731)
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Iterable, Iterator

from policyc.bench.generate import generate_instance
from policyc.bench.production import PRODUCTION
from policyc.bench.synthesize import LAYER_WEIGHTS, STRUCTURAL_LAYERS, synthesize_rules, weight_by_layer

#: The seeds of the paper's benchmark runs (§4.2).
PAPER_SEEDS = (42, 123)


def benchmark_grid(seeds: Iterable[int] = PAPER_SEEDS) -> Iterator[tuple[str, int, int]]:
    """(template, difficulty, seed) for the 12 templates x D1-D5 x the seeds.

    >>> len(list(benchmark_grid()))
    120
    """
    for template in PRODUCTION:
        for difficulty in range(1, 6):
            for seed in seeds:
                yield template.name, difficulty, seed


@dataclass
class TemplateWeights:
    instances: int = 0
    calls: int = 0
    rules: int = 0
    weight: dict[str, float] = field(default_factory=lambda: {layer: 0.0 for layer in LAYER_WEIGHTS})

    @property
    def total(self) -> float:
        return sum(self.weight.values())

    @property
    def structural_share(self) -> float:
        return sum(self.weight[layer] for layer in STRUCTURAL_LAYERS) / self.total if self.total else 0.0


@dataclass
class WeightStatistics:
    templates: dict[str, TemplateWeights]

    @property
    def overall(self) -> TemplateWeights:
        out = TemplateWeights()
        for t in self.templates.values():
            out.instances += t.instances
            out.calls += t.calls
            out.rules += t.rules
            for layer, w in t.weight.items():
                out.weight[layer] += w
        return out

    @property
    def total_weight(self) -> float:
        return self.overall.total

    @property
    def structural_share(self) -> float:
        """Weight of L3 + L4 + L5 over all weight, all instances pooled."""
        return self.overall.structural_share

    def layer_shares(self) -> dict[str, float]:
        overall = self.overall
        return {layer: w / overall.total for layer, w in overall.weight.items()}


def weight_statistics(grid: Iterable[tuple[str, int, int]] | None = None) -> WeightStatistics:
    """Synthesize every instance of the grid (by default the paper's 120) and add up the weights.

    >>> stats = weight_statistics([("loop_termination", 1, 42)])
    >>> stats.templates["loop_termination"].rules, round(stats.layer_shares()["L1"], 3)
    (8, 0.118)
    """
    templates: dict[str, TemplateWeights] = defaultdict(TemplateWeights)
    for name, difficulty, seed in grid if grid is not None else benchmark_grid():
        instance = generate_instance(name, difficulty, seed)
        rules = synthesize_rules(instance)
        entry = templates[name]
        entry.instances += 1
        entry.calls += len(instance.calls)
        entry.rules += len(rules)
        for layer, weight in weight_by_layer(rules).items():
            entry.weight[layer] += weight
    return WeightStatistics(dict(templates))
