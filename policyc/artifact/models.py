"""The monitor artifact: what `policyc compile` writes and a deployed gate loads.

One JSON object, self-contained: the policy's tool signatures, its rules with their metadata
and class, the automata tables the gate steps per call, the rule formulas (for the rules
the automata cannot compile, which are scored after the run through the reference
evaluator), and the names and parameters of the extern predicates. An artifact is data: it
never names code to run (the program that loads it binds the externs). Two hashes guard it:
`source_hash` names the policy text it was compiled from, `content_hash` covers every
other field, so an edited or truncated file is refused when loaded; an optional
`signature` (HMAC-SHA256 with a deployment's key) says who compiled it.

The models are pydantic, strict (unknown fields are errors) and frozen; `docs/artifact.schema.json`
is generated from `Artifact`.

>>> SeverityModel(kind="soft_block", limit=3).model_dump()
{'kind': 'soft_block', 'limit': 3}
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue

from policyc.ir.policy import MAX_WEIGHT

FORMAT: Literal["policyc.monitor"] = "policyc.monitor"
FORMAT_VERSION = 4

SeverityKind = Literal["tolerate", "warn", "block", "deny", "soft_block", "stop"]
RuleClass = Literal["gateable", "detectable", "offline-only"]


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True, allow_inf_nan=False)


class SeverityModel(Strict):
    """A rule's response to a violation (appendix A.5.3 of the AgentLTL paper)."""

    kind: SeverityKind
    limit: int | None = Field(None, ge=1, description="soft_block(n): refusals of the rule before the run stops")


class ParamModel(Strict):
    name: str
    type: JsonValue = Field(description="a value type in policyc's JSON form, e.g. \"str\" or {\"list\": \"int\"}")


class ToolModel(Strict):
    name: str
    params: list[ParamModel]
    result: JsonValue = Field(description="the result type in policyc's JSON form")
    terminal: bool = Field(False, description="the run ends with this tool (the final answer)")
    alias_of: str | None = None


class PolicyInfo(Strict):
    name: str
    description: str | None = None
    budget: int | None = Field(None, description="the call budget the policy declares")
    layers: dict[str, str] = Field(default_factory=dict, description="layer name -> meaning")
    conformance: SeverityModel = Field(description="the severity of signature conformance findings")
    sources: list[str] = Field(default_factory=list, description="file names the policy was compiled from, root first")
    observes: list[Literal["messages", "user_calls"]] = Field(
        default_factory=list, description="event classes the policy reads besides the agent's calls")
    grounding: Literal["code", "prose"] = Field(
        "code", description="the built-in entity extractor of `entities(...)` and `outputs`")
    undecided: list[SeverityKind] = Field(
        default_factory=lambda: list[SeverityKind](["deny"]),
        description="the severities whose rules refuse a call the gate could not decide (`undecided`)")
    ground_arguments: bool = Field(
        True, description="whether conformance grounds argument values in the request and results "
                          "(false: `conformance ... signatures only`, the signatures alone)")


class RuleModel(Strict):
    name: str = Field(min_length=1, description="the rule's name (a rule of a policy always has one)")
    weight: float = Field(gt=0, le=MAX_WEIGHT)
    layer: str | None = None
    severity: SeverityModel
    message: str | None = Field(None, description="shown to the agent when the rule refuses a call")
    description: str | None = None
    source: str = Field("", description="the rule's text as written")
    rule_class: RuleClass | None = Field(
        alias="class",
        description="gateable: refused before the call runs; detectable: decided once a result is in; "
        "offline-only: decided only on the complete run; null: unknown",
    )
    formula: int = Field(ge=0, description="index of the rule's formula in `formulas.roots`")
    applicability: int | None = Field(
        None, ge=0, description="index in `formulas.roots` of the runs the rule applies to (a rule written "
        "`when ρ shall χ`: `eventually ρ`), or null when the rule does not declare it")
    automaton: int | None = Field(
        None, ge=0, description="index of the rule's monitor in `automata`, or null when it is scored offline only"
    )
    offline_reason: str | None = Field(None, description="why the rule has no automaton")


class FormulaTable(Strict):
    """Rule formulas as a table of shared IR nodes (`policyc.ir.serialize`)."""

    nodes: list[list[JsonValue]]
    roots: list[int]


class ExternModel(Strict):
    """An extern predicate the loading program must bind (`Monitor.load(path, externs=...)`)."""

    name: str
    params: list[ParamModel]


class ArtifactBody(Strict):
    """Every field the content hash covers."""

    format: Literal["policyc.monitor"] = FORMAT
    version: int = FORMAT_VERSION
    compiler: str = Field(description="the policyc version that wrote the artifact")
    source_hash: str = Field(description="sha256 of the policy source files, in order")
    policy: PolicyInfo
    tools: list[ToolModel]
    rules: list[RuleModel]
    formulas: FormulaTable
    automata: list[dict[str, JsonValue]] = Field(
        default_factory=list, description="per-rule monitor tables, as `policyc.automata` writes them"
    )
    externs: list[ExternModel] = Field(default_factory=list)
    joint: dict[str, dict[str, JsonValue]] = Field(
        default_factory=dict, description="per tool that several single-automaton rules guard: the combinations "
        "of all their guard atoms some call can produce, decided by the compiler (`atoms`: the atoms' structural "
        "keys in bit order; `masks`: the combinations, null when there were too many; `exact`)")


class Artifact(ArtifactBody):
    content_hash: str = Field(description="sha256 of the canonical JSON of the body (every field but this one "
                              "and `signature`)")
    signature: str | None = Field(None, description="`hmac-sha256:` and the HMAC-SHA256 of the canonical JSON of "
                                  "the body with the deployment's key (`policyc compile --sign-key-file`), or null")
