"""The compliance report, as pydantic models: appendix B's shape, plus what policyc adds.

A `TraceReport` starts with exactly the fields of the paper's `verify_trace` output, in its
order (`compliance_score`, `compliance_label`, `details`, `tool_sequence`, `constraints` of
`name, layer, weight, passed, detail`); `paper_view()` returns only those. policyc adds, per
constraint, `violated_at`, `vacuous`, `rule_class` and `error`, and per trace its id, where it
was read from, and the input problems found in it (calls that do not match the signatures).

A `CorpusReport` aggregates many traces as the paper's table 4 does: mean score, per-rule and
per-layer pass rates, plus vacuity and input-problem counts and the malformed records.
"""

from __future__ import annotations

from typing import Any, Iterable, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field

M = TypeVar("M", bound=BaseModel)

_new = object.__new__
# the four slots of every pydantic model, set through their descriptors (as `object.__setattr__`
# would find them), as `model_construct` sets them; a pydantic whose models keep them otherwise
# gets `model_construct` itself
try:
    _set_dict, _set_fields_set, _set_extra, _set_private = (
        BaseModel.__dict__[name].__set__
        for name in ("__dict__", "__pydantic_fields_set__", "__pydantic_extra__", "__pydantic_private__"))
    _SLOTS = True
except (KeyError, AttributeError):  # pragma: no cover - another pydantic's layout
    _SLOTS = False


def trusted(cls: type[M], values: dict[str, Any], given: Iterable[str]) -> M:
    """A model made of values that already are what its validation would make of them, in the
    order of its fields and with every field present (`given`: those the caller set, the
    others holding their defaults), without validating them again: what `model_construct`
    does, without its search for aliases and defaults (the scorer makes one per rule and run).
    tests/test_scoring.py checks that a report made so equals, and dumps as, the validated one.
    """
    if not _SLOTS:  # another pydantic's layout
        return cls.model_construct(set(given), **values)
    model = _new(cls)
    _set_dict(model, values)
    _set_fields_set(model, set(given))
    _set_extra(model, None)
    _set_private(model, None)
    return model

Label = Literal["FULL", "PARTIAL", "NONE"]


def label_of(score: float) -> Label:
    """FULL at 1, NONE at 0, PARTIAL otherwise.

    >>> label_of(1.0), label_of(0.0), label_of(0.4)
    ('FULL', 'NONE', 'PARTIAL')
    """
    return "FULL" if score >= 1.0 else "NONE" if score <= 0.0 else "PARTIAL"


class ConstraintResult(BaseModel):
    """One rule's verdict on one trace."""

    model_config = ConfigDict(extra="forbid")

    name: str
    layer: str | None
    weight: float
    passed: bool
    detail: str
    violated_at: int | None = Field(None, description="1-based event after which the rule could no longer hold "
                                                      "(an event is a call, unless the policy observes messages or "
                                                      "the user's calls); 0: from the start; the trace length for "
                                                      "liveness")
    violated_at_call: int | None = Field(None, description="the agent's tool calls among those events: "
                                                           "`violated_at` itself when the policy reads calls only")
    vacuous: bool = Field(False, description="held without any of its triggers occurring")
    applicable: bool | None = Field(None, description="for a rule written `when ρ shall χ`: whether ρ held "
                                                      "somewhere in the run (App); None when the rule does not "
                                                      "declare its applicability")
    rule_class: str | None = Field(None, description="gateable, detectable or offline-only; None if unknown")
    error: str | None = Field(None, description="why the rule could not be evaluated (it then counts as failed)")


class InputProblem(BaseModel):
    """A call that does not match the policy's tool signatures (a SAAG conformance finding)."""

    model_config = ConfigDict(extra="forbid")

    stage: str
    code: str
    call: int | None = Field(None, description="1-based number of the agent's call (its event's, for a message "
                                               "or a user's call)")
    event: int | None = Field(None, description="1-based event number, when the policy reads events besides "
                                                "the agent's calls")
    tool: str
    argument: str | None = None
    message: str
    help: str | None = None
    severity: Literal["error", "warning"] = "error"

    @classmethod
    def from_finding(cls, finding, trace=None) -> "InputProblem":
        """From a conformance finding on `trace` (the policy's view; its positions are events)."""
        position = finding.position
        call = event = None
        if position is not None:
            call = event = position + 1
            if trace is not None and not trace.events_are_calls:
                call = trace.calls_through(position + 1) if not trace.calls[position].is_message else None
            else:
                event = None
        values = {"stage": finding.stage, "code": finding.code, "call": call, "event": event, "tool": finding.tool,
                  "argument": finding.argument, "message": finding.message, "help": finding.help,
                  "severity": finding.severity}
        if type(position) in _INDEX and all(type(values[k]) is str for k in _TEXT_FIELDS) \
                and all(type(values[k]) in _TEXT for k in ("argument", "help")) \
                and values["severity"] in _SEVERITIES:  # each value of its field's type: not validated again
            return trusted(cls, values, _PROBLEM_FIELDS)
        return cls(**values)

    @property
    def where(self) -> str:
        """`call #4`, or `event #9, call #4` (`event #9` for a message)."""
        if self.event is None:
            return f"call #{self.call}" if self.call else ""
        return f"event #{self.event}" + (f", call #{self.call}" if self.call else "")


#: the fields of InputProblem, all set by `from_finding`; those that are text, and those text or None
_PROBLEM_FIELDS = tuple(InputProblem.model_fields)
_TEXT_FIELDS = ("stage", "code", "tool", "message", "severity")
_TEXT = (str, type(None))
_INDEX = (int, type(None))
_SEVERITIES = ("error", "warning")


class TraceReport(BaseModel):
    """The compliance report of one trace."""

    model_config = ConfigDict(extra="forbid")

    compliance_score: float
    compliance_label: Label
    details: str
    tool_sequence: list[str]
    constraints: list[ConstraintResult]
    trace_id: str | None = None
    origin: str | None = None
    input_problems: list[InputProblem] = Field(default_factory=list)

    def paper_view(self) -> dict:
        """Exactly the fields of the paper's appendix B output, in its order."""
        paper_fields = ("name", "layer", "weight", "passed", "detail")
        return {
            "compliance_score": self.compliance_score,
            "compliance_label": self.compliance_label,
            "details": self.details,
            "tool_sequence": list(self.tool_sequence),
            "constraints": [{k: getattr(c, k) for k in paper_fields} for c in self.constraints],
        }

    @property
    def violated(self) -> list[ConstraintResult]:
        return [c for c in self.constraints if not c.passed]

    @property
    def has_input_errors(self) -> bool:
        return any(p.severity == "error" for p in self.input_problems)


class MalformedRecord(BaseModel):
    """A record that could not be read as a trace (see policyc.trace.TraceError)."""

    model_config = ConfigDict(extra="forbid")

    file: str
    line: int | None
    field: str | None
    message: str


class RuleStats(BaseModel):
    name: str
    layer: str | None
    weight: float
    checks: int
    passed: int
    vacuous: int
    pass_rate: float | None
    applicable: int | None = Field(None, description="runs the rule applies to (App), for a rule written "
                                                     "`when ρ shall χ`; None when it does not declare it")


class LayerStats(BaseModel):
    layer: str | None
    rules: int
    checks: int
    passed: int
    pass_rate: float | None
    loss_share: float | None = Field(None, description="share of the corpus's violated weight that falls "
                                                       "in this layer")


class CorpusReport(BaseModel):
    """The aggregate over a corpus of traces (the paper's table 4), with the per-trace reports."""

    model_config = ConfigDict(extra="forbid")

    policy: str
    records: int
    traces: int
    malformed_records: int
    mean_score: float | None
    labels: dict[str, int]
    rules: list[RuleStats]
    layers: list[LayerStats]
    vacuous_passes: int
    traces_with_input_problems: int
    input_problems: dict[str, int] = Field(description="conformance findings by stage")
    malformed: list[MalformedRecord] = Field(default_factory=list)
    reports: list[TraceReport] = Field(default_factory=list)

    def aggregate(self) -> dict:
        """The report without the per-trace reports."""
        return self.model_dump(mode="json", exclude={"reports"})
