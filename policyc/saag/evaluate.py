"""Evaluating a dataset: each call through the cascade, against its gold call, and under faults.

A row is one call: a predicted call of a record (or, for a record without predictions,
its gold call). Its intrinsic outcome is its `Assessment`; with a gold call it also gets
the paper's extrinsic measures: whether the name is right, argument precision and recall
(a predicted argument is correct when its value is one of BFCL's acceptable ones) and
whether it is *solved* (passes every stage and names the gold function).

Fault rows: every gold call that passes every stage is made wrong by each fault of
`faults.FAULTS`, and the stage that halts it is recorded next to the stage that should.

>>> from policyc.saag.dataset import read_record
>>> rec = read_record({"id": "r", "question": "Weather in Paris?", "function": [{"name": "w", "parameters":
...     {"properties": {"city": {"type": "string"}}, "required": ["city"]}}],
...     "predicted": {"w": {"city": "Lyon"}}, "ground_truth": [{"w": {"city": ["Paris"]}}]}, "x:1")
>>> (row,) = evaluate_record(rec)
>>> row.assessment.halted_at, row.name_correct, row.precision, row.recall, row.solved
('grounding', True, 0.0, 0.0, False)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Iterator, Mapping

from policyc.saag.cascade import GROUNDING, Assessment, assess
from policyc.saag.corrections import correction, reveals
from policyc.saag.dataset import Record, ToolCall
from policyc.saag.faults import FAULTS, inject


@dataclass(frozen=True, slots=True)
class Row:
    record: str
    group: str                     # the BFCL category, or the dataset file
    call: ToolCall
    assessment: Assessment
    correction: str | None
    gold: bool                     # the call assessed is the gold call itself
    name_correct: bool | None = None
    precision: float | None = None
    recall: float | None = None

    @property
    def solved(self) -> bool | None:
        """Passes every stage and names the gold function (None without a gold call)."""
        if self.name_correct is None:
            return None
        return self.assessment.passed and self.name_correct

    @property
    def f1(self) -> float | None:
        if self.precision is None or self.recall is None:
            return None
        total = self.precision + self.recall
        return 2 * self.precision * self.recall / total if total else 0.0


@dataclass(frozen=True, slots=True)
class FaultRow:
    record: str
    group: str
    fault: str
    expected: str                  # the stage that must catch it
    halted_at: str | None          # the stage that did (None: the faulty call passed)
    correction: str | None
    gold: Mapping[str, Any]        # the gold call's arguments (to check that no correction leaks them)
    applicable: bool = True        # False: the call offers the fault nothing to change
    leak: bool = False             # the correction shows a gold value (it never may)

    corrected: tuple[str, ...] = ()  # stages that passed it with a correction (a drifted name)

    @property
    def caught(self) -> bool:
        """Halted at its stage, or corrected there (a drifted optional parameter passes
        structure at RPR = 1 and SPR = 0, and is corrected)."""
        return self.applicable and (self.halted_at == self.expected or self.expected in self.corrected)


# ------------------------------------------------------------------ acceptable values (BFCL's possible answers)


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return float(a) == float(b)
    if isinstance(a, str) and isinstance(b, str):
        return a.strip().lower() == b.strip().lower()
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return a == b


def acceptable(value: Any, alternatives: list) -> bool:
    """Whether a value is one of BFCL's acceptable values (nested objects field by field).

    >>> acceptable("paris", ["Paris", "Paris, France"]), acceptable(3.0, [3])
    (True, True)
    >>> acceptable({"a": 1}, [{"a": [1], "b": [""]}])   # "b" may be left out
    True
    """
    for alt in alternatives:
        if isinstance(alt, dict) and isinstance(value, dict) and all(isinstance(a, list) for a in alt.values()):
            if set(value) <= set(alt) and all(acceptable(value[k], alt[k]) for k in value) \
                    and all(k in value for k, alts in alt.items() if "" not in alts):
                return True
        elif alt != "" and _same(value, alt):
            return True
    return False


def extrinsic(call: ToolCall, gold: tuple[tuple[str, Mapping[str, list]], ...], used: set[int]
              ) -> tuple[bool, float, float]:
    """(name correct, argument precision, argument recall) against the first unused gold call of the same name."""
    for i, (name, params) in enumerate(gold):
        if i in used or name != call.name:
            continue
        used.add(i)
        correct = sum(1 for k, v in call.args.items() if k in params and acceptable(v, params[k]))
        needed = [k for k, alts in params.items() if "" not in alts]
        recall_hits = sum(1 for k in needed if k in call.args and acceptable(call.args[k], params[k]))
        precision = correct / len(call.args) if call.args else 1.0
        recall = recall_hits / len(needed) if needed else 1.0
        return True, precision, recall
    return False, 0.0, 0.0


# ------------------------------------------------------------------ rows


def evaluate_record(record: Record, group: str = "", grounding: bool = True) -> list[Row]:
    """The rows of one record: its predicted calls, or its gold calls when it has none.
    Without `grounding` the cascade stops after the type stage (as the gate without a context)."""
    query = record.query if grounding else None
    rows = []
    name_ok: bool | None
    if record.predicted is None:
        for call in record.gold or ():
            a = assess(call.name, call.args, record.registry, query)
            name_ok = call.name is not None
            rows.append(Row(record.id, group, call, a, correction(a), True, name_ok, 1.0, 1.0))
        return rows
    used: set[int] = set()
    for call in record.predicted:
        a = assess(call.name, call.args, record.registry, query)
        name_ok = None
        precision: float | None = None
        recall: float | None = None
        if record.alternatives is not None:
            name_ok, precision, recall = extrinsic(call, record.alternatives, used)
        rows.append(Row(record.id, group, call, a, correction(a), False, name_ok, precision, recall))
    return rows


def fault_rows(record: Record, group: str = "", faults: Iterable[str] | None = None, seed: int = 0,
               grounding: bool = True) -> Iterator[FaultRow]:
    """Each fault injected into each gold call of the record that passes every stage (without
    `grounding`, the faults that grounding must catch are left out)."""
    query = record.query if grounding else None
    names = [f for f in (faults if faults is not None else FAULTS) if grounding or FAULTS[f][0] != GROUNDING]
    for index, call in enumerate(record.gold or ()):
        if not assess(call.name, call.args, record.registry, query).passed:
            continue
        for fault in names:
            expected, _ = FAULTS[fault]
            bad = inject(fault, call, record.registry, record.query, record.id, index, seed)
            if bad is None:
                yield FaultRow(record.id, group, fault, expected, None, None, call.args, applicable=False)
                continue
            a = assess(bad.name, bad.args, record.registry, query)
            text = correction(a)
            leak = text is not None and any(reveals(text, v, bad.name, bad.args, record.registry)
                                            for v in gold_values(call.args))
            yield FaultRow(record.id, group, fault, expected, a.halted_at, text, call.args, leak=leak,
                           corrected=tuple(dict.fromkeys(p.stage for p in a.corrected)))


def gold_values(args: Mapping[str, Any]) -> list[Any]:
    """Every value in a call's arguments, nested lists and objects opened up."""
    out: list[Any] = []
    stack = list(args.values())
    while stack:
        v = stack.pop()
        if isinstance(v, dict):
            stack.extend(v.values())
        elif isinstance(v, list):
            stack.extend(v)
        else:
            out.append(v)
    return out
