"""Agent runs on benchmark instances: reading run records and scoring them.

A run record is the paper's metrics record (appendix B: `tool_calls` of `tool_name`,
`arguments`, `tool_result`) with four more fields:

    {"instance": {"template": "fan_out_fan_in", "difficulty": 1, "seed": 42},
     "model": "my-model", "setting": "baseline", "answer": 33,
     "tool_calls": [{"tool_name": "tool_a_list", "arguments": {"seed": 42}, "tool_result": "..."}, ...]}

`instance` names the instance (and may add `mode`, `variant`, `augmentation`, `aliases`),
which is regenerated from it - a record never carries its own policy. `answer` is the final
answer (see `answer.parse_answer`); without it, the `answer` argument of a `final_answer`
call is used. `final_answer` calls are not part of the scored trace (the benchmark policies
constrain the tool calls only). `model` and `setting` group runs in the tables.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterable

from policyc.bench.answer import parse_answer
from policyc.bench.compliance import score_instance
from policyc.bench.generate import generate_instance
from policyc.bench.model import Instance
from policyc.scoring import TraceReport
from policyc.trace import Trace, TraceError, iter_traces

FINAL_ANSWER_TOOL = "final_answer"


@dataclass(frozen=True)
class Run:
    """One agent run: the instance it was given, its trace and its answer."""

    instance: Instance
    trace: Trace
    answer: int | None        # None: missing or badly formatted
    model: str = "unknown"
    setting: str = "baseline"


@dataclass(frozen=True)
class ScoredRun:
    run: Run
    report: TraceReport

    @property
    def correct(self) -> bool:
        return self.run.answer == self.run.instance.expected_answer


class RunProblem(ValueError):
    def __init__(self, field: str, message: str):
        super().__init__(message)
        self.field = field
        self.message = message


def read_runs(paths: str | Path | Iterable[str | Path]) -> tuple[list[Run], list[TraceError]]:
    """Every run of some JSON/JSONL files; malformed records come back as errors, not raised.

    >>> runs, errors = read_runs("tests/fixtures/bench/runs.jsonl")
    >>> len(runs), errors
    (24, [])
    """
    runs: list[Run] = []
    errors: list[TraceError] = []
    for item in iter_traces(paths, "record"):
        if isinstance(item, TraceError):
            errors.append(item)
            continue
        try:
            runs.append(run_of(item))
        except RunProblem as problem:
            file, _, line = (item.origin or "<input>").rpartition(":")
            errors.append(TraceError(file or line, int(line) if line.isdigit() else None, problem.field,
                                     problem.message))
    return runs, errors


def run_of(trace: Trace) -> Run:
    """A run from a trace whose metrics hold the run record's other fields.

    >>> from policyc.trace.formats import parse_trace
    >>> record = {"instance": {"template": "loop_termination"}, "answer": "ANSWER: 12", "tool_calls": [
    ...     {"tool_name": "tool_a", "arguments": {"i": 1}}, {"tool_name": "final_answer", "arguments": {"answer": 12}}]}
    >>> run = run_of(parse_trace(record))
    >>> run.trace.tool_sequence, run.answer, run.setting
    (['tool_a'], 12, 'baseline')
    """
    metrics = dict(trace.metrics)
    instance = instance_of(metrics.get("instance"))
    answer_value = metrics.get("answer")
    finals = [c for c in trace.calls if c.name == FINAL_ANSWER_TOOL]
    if answer_value is None and finals:
        answer_value = dict(finals[-1].args).get("answer")
    kept = Trace.of(*((c.name, dict(c.args), c.result) for c in trace.calls if c.name != FINAL_ANSWER_TOOL),
                    metrics=metrics, id=trace.id)
    kept = Trace(kept.calls, kept.metrics, kept.id, trace.origin)
    for key in ("model", "setting"):
        if key in metrics and not isinstance(metrics[key], str):
            raise RunProblem(key, f"`{key}` must be a string")
    return Run(instance, kept, parse_answer(answer_value), metrics.get("model", "unknown"),
               metrics.get("setting", "baseline"))


def instance_of(key: Any) -> Instance:
    """The instance a run record's `instance` field names.

    >>> instance_of({"template": "fan_out_fan_in", "seed": 2}).expected_answer
    33
    >>> instance_of({"template": "fan_out_fan_in", "seed": "2"})
    Traceback (most recent call last):
    ...
    policyc.bench.runs.RunProblem: `instance.seed` must be an integer
    """
    if not isinstance(key, dict):
        raise RunProblem("instance", "missing field `instance` (an object naming template, difficulty and seed)")
    template = key.get("template")
    if not isinstance(template, str):
        raise RunProblem("instance.template", "`instance.template` must be a template name")
    fields = {"difficulty": 1, "seed": 42}
    for name, default in fields.items():
        value = key.get(name, default)
        if isinstance(value, bool) or not isinstance(value, int):
            raise RunProblem(f"instance.{name}", f"`instance.{name}` must be an integer")
        fields[name] = value
    texts: dict[str, str] = {}
    for name, default_text in (("mode", "production"), ("variant", ""), ("augmentation", "none")):
        text = key.get(name, default_text)
        if not isinstance(text, str):
            raise RunProblem(f"instance.{name}", f"`instance.{name}` must be a string")
        texts[name] = text
    aliases = key.get("aliases", False)
    if not isinstance(aliases, bool):
        raise RunProblem("instance.aliases", "`instance.aliases` must be true or false")
    try:
        return _instance(template, fields["difficulty"], fields["seed"], texts["mode"], aliases,
                         texts["variant"], texts["augmentation"])
    except ValueError as exc:
        raise RunProblem("instance", str(exc)) from None


@lru_cache(maxsize=1024)
def _instance(template: str, difficulty: int, seed: int, mode: str, aliases: bool, variant: str,
              augmentation: str) -> Instance:
    return generate_instance(template, difficulty, seed, mode=mode, aliases=aliases, variant=variant,
                             augmentation=augmentation)


def score_run(run: Run) -> ScoredRun:
    """Score a run's trace against its instance's policy.

    >>> from policyc.bench.agent import scripted_run
    >>> from policyc.trace.formats import parse_trace
    >>> scored = score_run(run_of(parse_trace(scripted_run(generate_instance("fan_out_fan_in", 1, 42)))))
    >>> scored.report.compliance_score, scored.correct
    (1.0, True)
    """
    return ScoredRun(run, score_instance(run.instance, run.trace))
