"""The paper's tables from scored runs.

- per template (table 15, with numbers): runs, mean compliance C̄ and accuracy, per setting;
- per layer (table 4): for each model and setting, the share of constraint checks passed in
  each layer L1-L6 (all checks of all runs pooled), then C̄ and accuracy;
- per setting (table 1): mean compliance of each model under each enforcement setting,
  printed when the runs come from more than one setting.

Accuracy is exact integer match with the expected answer (§4.2). The examples score the
scripted runs of `tests/fixtures/bench/runs.jsonl` (two settings).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any, Iterable

from policyc.bench.production import PRODUCTION
from policyc.bench.runs import ScoredRun
from policyc.bench.simplified import SIMPLIFIED
from policyc.bench.synthesize import LAYER_WEIGHTS

#: The paper's enforcement settings (§4.2), in its order; other names follow alphabetically.
SETTINGS = ("baseline", "block_and_warn", "soft_block")
LAYERS = tuple(LAYER_WEIGHTS)


@dataclass
class Table:
    title: str
    header: list[str]
    rows: list[list[Any]] = field(default_factory=list)

    def render(self) -> str:
        """Aligned plain text.

        >>> print(Table("T", ["a", "b"], [["x", 0.5]]).render())
        T
        a  b
        -  -----
        x  0.500
        """
        cells = [self.header] + [[_cell(v) for v in row] for row in self.rows]
        widths = [max(len(r[k]) for r in cells) for k in range(len(self.header))]
        lines = [self.title, "  ".join(h.ljust(w) for h, w in zip(self.header, widths)),
                 "  ".join("-" * w for w in widths)]
        lines += ["  ".join(c.ljust(w) for c, w in zip(row, widths)) for row in cells[1:]]
        return "\n".join(line.rstrip() for line in lines)

    def to_json(self) -> dict[str, Any]:
        return {"title": self.title, "header": self.header, "rows": self.rows}


def _cell(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.3f}"
    return "-" if value is None else str(value)


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def ordered_settings(scored: Iterable[ScoredRun]) -> list[str]:
    """The settings of the runs, the paper's first.

    >>> from policyc.bench.runs import read_runs, score_run
    >>> scored = [score_run(r) for r in read_runs("tests/fixtures/bench/runs.jsonl")[0]]
    >>> ordered_settings(scored)
    ['baseline', 'block_and_warn']
    """
    found = {s.run.setting for s in scored}
    return [s for s in SETTINGS if s in found] + sorted(found - set(SETTINGS))


def template_table(scored: list[ScoredRun]) -> Table:
    """Compliance and accuracy per template, one row per template and setting.

    >>> from policyc.bench.runs import read_runs, score_run
    >>> scored = [score_run(r) for r in read_runs("tests/fixtures/bench/runs.jsonl")[0]]
    >>> row = template_table(scored).rows[0]
    >>> row[:3], round(row[3], 3), row[4]
    (['loop_termination', 'baseline', 4], 0.94, 0.75)
    """
    settings = ordered_settings(scored)
    order = [t.name for t in PRODUCTION] + [t.name for t in SIMPLIFIED]
    groups: dict[tuple[str, str], list[ScoredRun]] = defaultdict(list)
    for s in scored:
        groups[(s.run.instance.template, s.run.setting)].append(s)
    templates = sorted({t for t, _ in groups}, key=lambda t: (order.index(t) if t in order else len(order), t))
    table = Table("Compliance and accuracy per template", ["template", "setting", "runs", "compliance", "accuracy"])
    for template in templates:
        for setting in settings:
            runs = groups.get((template, setting), [])
            if runs:
                table.rows.append([template, setting, len(runs), _mean([r.report.compliance_score for r in runs]),
                                   _mean([1.0 if r.correct else 0.0 for r in runs])])
    return table


def layer_table(scored: list[ScoredRun]) -> Table:
    """Per-layer pass rates, C̄ and accuracy per model and setting (table 4).

    >>> from policyc.bench.runs import read_runs, score_run
    >>> scored = [score_run(r) for r in read_runs("tests/fixtures/bench/runs.jsonl")[0]]
    >>> [round(x, 3) if isinstance(x, float) else x for x in layer_table(scored).rows[0]]
    ['scripted', 'baseline', 0.925, 1.0, 0.667, 0.9, 0.861, 0.976, 0.903, 0.75]
    """
    groups: dict[tuple[str, str], list[ScoredRun]] = defaultdict(list)
    for s in scored:
        groups[(s.run.model, s.run.setting)].append(s)
    settings = ordered_settings(scored)
    table = Table("Per-layer pass rates", ["model", "setting", *LAYERS, "compliance", "accuracy"])
    for model, setting in sorted(groups, key=lambda k: (k[0], settings.index(k[1]))):
        runs = groups[(model, setting)]
        checks: dict[str, list[int]] = defaultdict(lambda: [0, 0])
        for r in runs:
            for c in r.report.constraints:
                if c.layer in LAYER_WEIGHTS:
                    checks[c.layer][0] += 1
                    checks[c.layer][1] += c.passed
        rates = [checks[layer][1] / checks[layer][0] if checks[layer][0] else None for layer in LAYERS]
        table.rows.append([model, setting, *rates, _mean([r.report.compliance_score for r in runs]),
                           _mean([1.0 if r.correct else 0.0 for r in runs])])
    return table


def setting_table(scored: list[ScoredRun]) -> Table | None:
    """Mean compliance per model under each setting (table 1); None with a single setting.

    >>> from policyc.bench.runs import read_runs, score_run
    >>> scored = [score_run(r) for r in read_runs("tests/fixtures/bench/runs.jsonl")[0]]
    >>> [round(x, 3) if isinstance(x, float) else x for x in setting_table(scored).rows[0]]
    ['scripted', 0.903, 0.984]
    """
    settings = ordered_settings(scored)
    if len(settings) < 2:
        return None
    scores: dict[tuple[str, str], list[float]] = defaultdict(list)
    for s in scored:
        scores[(s.run.model, s.run.setting)].append(s.report.compliance_score)
    table = Table("Compliance per enforcement setting", ["model", *settings])
    for model in sorted({m for m, _ in scores}):
        table.rows.append([model, *(_mean(scores.get((model, s), [])) for s in settings)])
    return table


def bench_tables(scored: list[ScoredRun]) -> list[Table]:
    """Every table the runs support, in the order `policyc bench score` prints them.

    >>> from policyc.bench.runs import read_runs, score_run
    >>> scored = [score_run(r) for r in read_runs("tests/fixtures/bench/runs.jsonl")[0]]
    >>> [t.title for t in bench_tables(scored)]
    ['Compliance and accuracy per template', 'Per-layer pass rates', 'Compliance per enforcement setting']
    """
    tables = [template_table(scored), layer_table(scored)]
    by_setting = setting_table(scored)
    return tables + ([by_setting] if by_setting is not None else [])
