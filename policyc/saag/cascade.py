"""The SAAG cascade: one call checked stage by stage, halting at the first stage that fails.

The stages, in order (`STAGES`):

1. **registry**: the tool name is registered (FNEM = 1); otherwise NCS measures how far
   it is from the nearest registered name;
2. **structure**: every required parameter is given (RPR = 1) and none is spurious (SPR = 0),
   the paper's criterion; a drifted parameter (a misspelling, PDS ≥ 0.8) does not halt the
   cascade but always gets its correction (§2.2), as does a near-name the call gives twice;
3. **type**: each value has its parameter's declared type (policyc's signatures are
   typed; the paper's schemas are too, but it does not score types separately);
4. **grounding**: every contextual value is grounded in the query (VHR_ctx = 0), with AVEM
   and QSLO as diagnostics. It needs the query: without one it is not assessed.

Each stage is a pure function `(tool, args, registry, query) -> StageResult`, and later
stages run only when the earlier ones passed, so their metrics are stage-conditional
diagnostics, as the paper says. Nothing here needs the gold call.

>>> from policyc.saag.schema import registry_from_json
>>> registry = registry_from_json([{"name": "get_weather", "parameters": {"type": "dict",
...     "properties": {"city": {"type": "string"}, "days": {"type": "integer"}}, "required": ["city"]}}])
>>> a = assess("get_weather", {"city": "Paris", "days": 3}, registry, "Weather in Paris for 3 days?")
>>> a.passed, [s.stage for s in a.stages]
(True, ['registry', 'structure', 'type', 'grounding'])
>>> a = assess("get_weather", {"city": "Paris", "dayss": 3}, registry, "Weather in Paris for 3 days?")
>>> a.passed, [str(p) for p in a.problems]  # RPR = 1, SPR = 0: a drifted name passes, and is corrected
(True, ['`get_weather` has no argument `dayss` (did you mean `days`?)'])
>>> a = assess("get_weather", {"cty": "Paris"}, registry, "Weather in Paris?")
>>> a.halted_at, [str(p) for p in a.problems]
('structure', ['`get_weather` is missing its required argument `city`', '`get_weather` has no argument `cty` (did you mean `city`?)'])
>>> assess("get_weather", {"city": "Lyon"}, registry, "Weather in Paris?").halted_at
'grounding'
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Container, Mapping, cast

from rapidfuzz import fuzz

from policyc.ir.types import ToolSignature, value_problems
from policyc.saag import metrics as m

REGISTRY, STRUCTURE, TYPE, GROUNDING = "registry", "structure", "type", "grounding"


@dataclass(frozen=True, slots=True)
class Problem:
    """One way a call fails a stage: a finding for people and for the gate."""

    stage: str
    code: str                       # no-tool, unknown-tool, missing-argument, drifted-argument, ...
    tool: str
    message: str                    # one lowercase sentence, input in backticks
    argument: str | None = None
    suggestion: str | None = None   # the registered name it most likely misspells

    @property
    def help(self) -> str | None:
        return f"did you mean `{self.suggestion}`?" if self.suggestion else None

    def __str__(self) -> str:
        return self.message + (f" ({self.help})" if self.help else "")


@dataclass(frozen=True, slots=True)
class RegistryResult:
    """Stage 1: FNEM, and NCS with the nearest candidate when the name is not registered."""

    fnem: int
    ncs: float | None = None
    nearest: str | None = None
    problems: tuple[Problem, ...] = ()
    stage: str = REGISTRY

    @property
    def passed(self) -> bool:
        return self.fnem == 1

    def metrics(self) -> dict[str, float | None]:
        return {"FNEM": float(self.fnem), "NCS": self.ncs}


@dataclass(frozen=True, slots=True)
class StructureResult:
    """Stage 2: RPR, SPR, the PDS of each out-of-schema parameter and its classification."""

    rpr: float
    spr: float
    pds: Mapping[str, float] = field(default_factory=dict)
    missing: tuple[str, ...] = ()
    drifted: Mapping[str, str] = field(default_factory=dict)   # predicted name -> schema name
    spurious: tuple[str, ...] = ()
    problems: tuple[Problem, ...] = ()
    stage: str = STRUCTURE

    @property
    def formal_pass(self) -> bool:
        """The paper's pass criterion: RPR = 1 and SPR = 0."""
        return self.rpr == 1.0 and self.spr == 0.0

    @property
    def passed(self) -> bool:
        """The paper's criterion: RPR = 1 and SPR = 0 (drifted parameters are corrected, not halted)."""
        return self.formal_pass

    def metrics(self) -> dict[str, float | None]:
        return {"RPR": self.rpr, "SPR": self.spr, "PDS": max(self.pds.values()) if self.pds else None}


@dataclass(frozen=True, slots=True)
class TypeResult:
    """Stage 2b: the values that do not have their parameter's declared type."""

    wrong: Mapping[str, str] = field(default_factory=dict)   # parameter -> what is wrong
    problems: tuple[Problem, ...] = ()
    stage: str = TYPE

    @property
    def passed(self) -> bool:
        return not self.wrong

    def metrics(self) -> dict[str, float | None]:
        return {}


@dataclass(frozen=True, slots=True)
class ValueGrounding:
    """One argument value against the query: its kind, exact match, PartialRatio and h."""

    argument: str
    kind: str                 # string, number, list or other
    exact: bool
    partial: float | None     # PartialRatio/100, for strings (and lists of them) that miss
    h: float | None           # None: excluded (assumed)


@dataclass(frozen=True, slots=True)
class GroundingResult:
    """Stage 3: AVEM, QSLO, VHR_ctx (and its mean, VHR) and the ψ3 strata."""

    avem: float
    qslo: float | None
    vhr_ctx: float
    values: tuple[ValueGrounding, ...] = ()
    problems: tuple[Problem, ...] = ()
    stage: str = GROUNDING

    @property
    def passed(self) -> bool:
        return self.vhr_ctx == 0.0

    @property
    def vhr(self) -> float | None:
        """The hallucination rate: the mean h over the contextual values (None when there are none)."""
        hs = [v.h for v in self.values if v.h is not None]
        return sum(hs) / len(hs) if hs else None

    def _failing(self, kinds: tuple[str, ...], hard: bool | None = None) -> tuple[str, ...]:
        out = []
        for v in self.values:
            if not v.h or v.kind not in kinds:
                continue
            if hard is None or (v.partial is not None and (v.partial < m.HARD_DRIFT_THRESHOLD) == hard):
                out.append(v.argument)
        return tuple(out)

    @property
    def numeric(self) -> tuple[str, ...]:
        """Numbers not in the query (the query has numbers)."""
        return tuple(v.argument for v in self.values if v.h and v.partial is None)

    @property
    def hard(self) -> tuple[str, ...]:
        """Strings with no grounding: PartialRatio below 0.6."""
        return self._failing((m.STRING, m.LIST), hard=True)

    @property
    def soft(self) -> tuple[str, ...]:
        """Strings loosely related to the query: PartialRatio at least 0.6, short of exact."""
        return self._failing((m.STRING, m.LIST), hard=False)

    @property
    def assumed(self) -> tuple[str, ...]:
        """Values excluded from VHR_ctx: no grounding context for them in the query."""
        return tuple(v.argument for v in self.values if v.h is None)

    def metrics(self) -> dict[str, float | None]:
        return {"AVEM": self.avem, "QSLO": self.qslo, "VHR": self.vhr, "VHR_ctx": self.vhr_ctx}


StageResult = RegistryResult | StructureResult | TypeResult | GroundingResult
Registry = Mapping[str, ToolSignature]


# ------------------------------------------------------------------ the stages


def check_registry(tool: str | None, args: Mapping[str, Any], registry: Registry, query: str | None) -> RegistryResult:
    """Stage 1. A misspelling is suggested when WRatio to the nearest candidate reaches γ = 0.8."""
    score = m.fnem(tool, registry)
    if score == 1:
        return RegistryResult(1)
    if score == -1:
        return RegistryResult(-1, problems=(Problem(REGISTRY, "no-tool", "", "the call names no tool"),))
    assert tool is not None
    nearest, ncs = m.nearest_candidate(tool, registry)
    close = nearest if nearest is not None and m.wratio(tool, nearest) >= m.DRIFT_THRESHOLD else None
    return RegistryResult(0, ncs, nearest, (Problem(REGISTRY, "unknown-tool", tool, f"unknown tool `{tool}`",
                                                    suggestion=close),))


def check_structure(tool: str, args: Mapping[str, Any], registry: Registry, query: str | None) -> StructureResult:
    """Stage 2: RPR, PDS, SPR, and a problem per missing, drifted or spurious parameter."""
    sig = registry[tool]
    admissible = [p.name for p in sig.params]
    required = [p.name for p in sig.params if p.required]
    given = list(args)
    drifted, spurious, scores = m.classify_parameters(given, admissible)
    missing = tuple(a for a in required if a not in args)
    problems = [Problem(STRUCTURE, "missing-argument", tool, f"`{tool}` is missing its required argument `{a}`", a)
                for a in missing]
    unknown = frozenset(spurious)  # asked once per argument: a call may have thousands
    unused = [a for a in admissible if a not in args]
    for p in given:
        if p in drifted:
            problems.append(Problem(STRUCTURE, "drifted-argument", tool, f"`{tool}` has no argument `{p}`", p,
                                    drifted[p]))
        elif p in unknown:
            problems.append(Problem(STRUCTURE, "unknown-argument", tool, f"`{tool}` has no argument `{p}`", p,
                                    resembling(p, unused)))
    return StructureResult(m.rpr(required, given), m.spr(given, admissible), scores, missing, drifted, spurious,
                           tuple(problems))


#: A spurious parameter's finding still names a declared one it resembles this much (Indel
#: ratio, ignoring case): a hint for people. The classification, and ψ2, follow PDS alone.
RESEMBLANCE = 0.6


def resembling(name: str, declared: list[str]) -> str | None:
    """The declared name most like `name` (Indel ratio ≥ 0.6, ignoring case), for a hint.

    >>> resembling("sead", ["seed", "limit"]), resembling("zzz", ["seed"])
    ('seed', None)
    """
    best, score = None, RESEMBLANCE
    for d in declared:
        s = fuzz.ratio(name.lower(), d.lower()) / 100.0
        if s >= score and (best is None or s > score):
            best, score = d, s
    return best


def check_types(tool: str, args: Mapping[str, Any], registry: Registry, query: str | None) -> TypeResult:
    """Stage 2b: `ir.types.value_problems` for each value."""
    sig = registry[tool]
    wrong: dict[str, str] = {}
    problems: list[Problem] = []
    for name, value in args.items():
        param = sig.param(name)
        found = value_problems(value, param.type, name) if param is not None else []
        if found:
            wrong[name] = "; ".join(found)
            problems.extend(Problem(TYPE, "wrong-type", tool, f"`{tool}`: {p}", name) for p in found)
    return TypeResult(wrong, tuple(problems))


def ground_value(argument: str, value: Any, query: str, numbers: Container[float] | None = None,
                 lowered: str | None = None) -> ValueGrounding:
    """h of one argument value, with the PartialRatio behind it when a string is what misses
    (`numbers` and `lowered`: the query's numbers and the query lowercased, when the caller
    keeps them). Each exact match and each PartialRatio is computed once: h is
    `metrics.hallucination`'s, and a list's PartialRatio is that of its first element
    reaching h, when that element is a string."""
    numbers = m.numbers_in(query) if numbers is None else numbers
    lowered = query.lower() if lowered is None else lowered
    kind = m.value_kind(value)
    if kind != m.LIST:
        exact = m.exact_match(value, query, numbers, lowered)
        h = m.leaf_hallucination(value, exact, query, lowered)
        return ValueGrounding(argument, kind, exact, 1.0 - h if h and kind == m.STRING else None, h)
    items = m.leaves(value)
    matched = [m.exact_match(item, query, numbers, lowered) for item in items]  # a list matches when each does
    if all(matched):
        return ValueGrounding(argument, kind, True, None, 0.0)
    worst: tuple[float, int] | None = None  # (h, -position): the largest h, the first element reaching it
    for i, (item, exact) in enumerate(zip(items, matched)):
        h = m.leaf_hallucination(item, exact, query, lowered)
        if h is not None and (worst is None or (h, -i) > worst):
            worst = (h, -i)
    if worst is None:
        return ValueGrounding(argument, kind, False, None, None)
    h = worst[0]
    partial = 1.0 - h if h and m.value_kind(items[-worst[1]]) == m.STRING else None
    return ValueGrounding(argument, kind, False, partial, h)


def check_grounding(tool: str, args: Mapping[str, Any], registry: Registry, query: str | None,
                    numbers: Container[float] | None = None, lowered: str | None = None) -> GroundingResult:
    """Stage 3: each value against the query; the problems are the ψ3 strata. AVEM, QSLO and
    VHR_ctx are read off the per-value results (`metrics` computes each from scratch; the
    tests check that both agree). `numbers` (the query's, `metrics.numbers_in`) and `lowered`
    (the query lowercased): when the caller keeps them."""
    assert query is not None
    numbers = m.numbers_in(query) if numbers is None else numbers
    lowered = query.lower() if lowered is None else lowered
    values = tuple(ground_value(a, v, query, numbers, lowered) for a, v in args.items())
    problems = []
    for v in values:
        if not v.h:
            continue
        if v.partial is None:
            problems.append(Problem(GROUNDING, "ungrounded-number", tool,
                                    f"`{tool}`: the number given for `{v.argument}` is not in the request", v.argument))
        elif v.partial < m.HARD_DRIFT_THRESHOLD:
            problems.append(Problem(GROUNDING, "ungrounded-value", tool,
                                    f"`{tool}`: the value of `{v.argument}` has no grounding in the request "
                                    f"(PartialRatio {v.partial:.2f})", v.argument))
        else:
            problems.append(Problem(GROUNDING, "loose-value", tool,
                                    f"`{tool}`: the value of `{v.argument}` only loosely matches the request "
                                    f"(PartialRatio {v.partial:.2f})", v.argument))
    loose = [1.0 - v.h for v in values if v.kind == m.STRING and not v.exact and v.h is not None]  # PR of each
    avem = sum(v.exact for v in values) / len(values) if values else 1.0
    qslo = sum(loose) / len(loose) if loose else None
    vhr_ctx = sum(v.h for v in values if v.h is not None)
    return GroundingResult(avem, qslo, vhr_ctx, values, tuple(problems))


#: The cascade, in order: (stage, check). Order is data.
STAGES: tuple[tuple[str, Callable[..., StageResult]], ...] = (
    (REGISTRY, check_registry),
    (STRUCTURE, check_structure),
    (TYPE, check_types),
    (GROUNDING, check_grounding),
)
STAGE_NAMES = tuple(name for name, _ in STAGES)


@dataclass(frozen=True, slots=True)
class Assessment:
    """The stages a call went through, in order; the last one failed if the cascade halted."""

    tool: str | None
    args: Mapping[str, Any]
    stages: tuple[StageResult, ...]
    grounded: bool        # whether a query was given, so that stage 3 could run

    @property
    def halted_at(self) -> str | None:
        last = self.stages[-1]
        return None if last.passed else last.stage

    @property
    def passed(self) -> bool:
        return self.halted_at is None

    @property
    def corrected(self) -> tuple[Problem, ...]:
        """The problems of stages that passed and still correct the call: a drifted parameter
        (structure passes at RPR = 1 and SPR = 0, and drift is always corrected)."""
        return tuple(p for s in (self.stages if self.passed else self.stages[:-1]) for p in s.problems)

    @property
    def problems(self) -> tuple[Problem, ...]:
        """What to correct: the passed stages' corrections, then the halting stage's problems."""
        return self.corrected + (self.stages[-1].problems if not self.passed else ())

    def result(self, stage: str) -> StageResult | None:
        for s in self.stages:
            if s.stage == stage:
                return s
        return None


def assess(tool: str | None, args: Mapping[str, Any] | None, registry: Registry,
           query: str | None = None, numbers: Container[float] | None = None,
           lowered: str | None = None) -> Assessment:
    """Run the cascade on one call; stage 3 runs only when a query is given (`numbers` and
    `lowered`: the query's numbers and the query lowercased, when the caller keeps them)."""
    args = dict(args or {})
    done: list[StageResult] = []
    for name, check in STAGES:
        if name == GROUNDING and query is None:
            break
        result = check_grounding(cast(str, tool), args, registry, query, numbers, lowered) if name == GROUNDING \
            else check(tool, args, registry, query)
        done.append(result)
        if not result.passed:
            break
    return Assessment(tool, args, tuple(done), query is not None)
