"""The corrections ψ1–ψ3: what the agent is told when its call halts the cascade (appendix D).

Each correction is a template filled from the evaluation output alone: the predicted name,
the registry and the names of the parameters involved. It never quotes an argument value,
and nothing here can see a gold call, so a self-repair loop built on it cannot leak ground
truth. The same failure gives the same text, byte for byte.

The sentences are the paper's table 4. Where the paper's §2 says more than the table, the
correction says it too: ψ1 names the nearest registered name when the prediction is a
likely misspelling of it (WRatio ≥ 0.8), and each ψ2 and ψ3 sentence lists the parameters
it is about (ψ3's `{params}`; for ψ2 they are registry or predicted names, never values).
The type stage has a ψ2-style sentence of its own.

>>> from policyc.saag.cascade import assess
>>> from policyc.saag.schema import registry_from_json
>>> registry = registry_from_json([{"name": "get_weather", "parameters": {"type": "dict",
...     "properties": {"city": {"type": "string"}}, "required": ["city"]}}])
>>> print(correction(assess("get_wether", {"city": "Paris"}, registry)))
Function name "get_wether" not found in registry. The closest registered name is "get_weather". Please check the system prompt for the correct function names and respond with only the agent invocation in the exact JSON format specified.
>>> print(correction(assess("get_weather", {"city": "Lyon"}, registry, "Weather in Paris?")))
The values for `city` have no grounding in the user's request. Do not invent values. Use only what the user explicitly stated, or omit the argument.
"""

from __future__ import annotations

import re
from typing import Any, Iterable, Mapping

from policyc.ir.types import ToolSignature
from policyc.saag.cascade import (
    GROUNDING,
    REGISTRY,
    STRUCTURE,
    TYPE,
    Assessment,
    GroundingResult,
    RegistryResult,
    StructureResult,
    TypeResult,
)

Registry = Mapping[str, ToolSignature]

NO_NAME = ("No function name found. Please return only the agent invocation in the exact JSON format specified "
           "in the registry.")
WRONG_NAME = ('Function name "{predicted}" not found in registry.{nearest} Please check the system prompt for the '
              "correct function names and respond with only the agent invocation in the exact JSON format specified.")
NEAREST = ' The closest registered name is "{nearest}".'
MISSING = ("Key parameters of the agent from the registry are missing: {params}. Please ensure the invocation includes "
           "all parameters specified for that agent in the system prompt.")
SPURIOUS = ("Spurious parameters not present in the registry are included: {params}. Please include only the "
            "parameters specified for that agent.")
DRIFTED = ("Some parameters appear misspelled and deviate slightly from the registry: {params}. Please ensure all "
           "parameter names exactly match the schema in the system prompt.")
WRONG_TYPE = ("The values for {params} do not have the types the registry declares. Please give each parameter a "
              "value of the type specified for it in the system prompt.")
NUMERIC = ("The numeric values for {params} do not match what the user stated. Use the exact numbers from the "
           "user's request.")
HARD = ("The values for {params} have no grounding in the user's request. Do not invent values. Use only what the "
        "user explicitly stated, or omit the argument.")
SOFT = ("The values for {params} are loosely related but not exact. Use the precise wording or value from the "
        "user's request.")


def listing(items: Iterable[str]) -> str:
    """`a, b and c`."""
    items = list(items)
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def names(params: Iterable[str]) -> str:
    """The parameters in backticks: `` `a`, `b` and `c` ``."""
    return listing(f"`{p}`" for p in params)


def psi1(result: RegistryResult, predicted: str | None) -> str:
    if result.fnem == -1:
        return NO_NAME
    close = next((p.suggestion for p in result.problems if p.suggestion), None)
    return WRONG_NAME.format(predicted=predicted, nearest=NEAREST.format(nearest=close) if close else "")


def psi2(result: StructureResult) -> str:
    parts = []
    if result.missing:
        parts.append(MISSING.format(params=names(result.missing)))
    if result.spurious:
        parts.append(SPURIOUS.format(params=names(result.spurious)))
    if result.drifted:
        parts.append(DRIFTED.format(params=listing(f"`{p}` (did you mean `{a}`?)" for p, a in result.drifted.items())))
    return " ".join(parts)


def psi2_types(result: TypeResult) -> str:
    return WRONG_TYPE.format(params=names(result.wrong))


def psi3(result: GroundingResult) -> str:
    parts = []
    if result.numeric:
        parts.append(NUMERIC.format(params=names(result.numeric)))
    if result.hard:
        parts.append(HARD.format(params=names(result.hard)))
    if result.soft:
        parts.append(SOFT.format(params=names(result.soft)))
    return " ".join(parts)


TEMPLATES = (NO_NAME, WRONG_NAME, NEAREST, MISSING, SPURIOUS, DRIFTED, WRONG_TYPE, NUMERIC, HARD, SOFT)
#: The text a correction is made of besides names: the templates cut at their slots, and the joiners.
FIXED_TEXT = tuple(sorted({part for t in TEMPLATES for part in re.split(r"\{\w+\}", t) if part}
                          | {", ", " and ", "`", " (did you mean ", "?)", " "}, key=len, reverse=True))


def reveals(text: str, value: Any, tool: str | None, args: Iterable[str], registry: Registry) -> bool:
    """Whether a correction shows `value` (a gold argument value) anywhere but inside what a
    correction is allowed to quote: its fixed text, the predicted tool and parameter names,
    and the registry's names. Numbers and strings of fewer than three characters are looked
    for as whole words.

    >>> reveals('Function name "get_wether" not found in registry.', "Paris", "get_wether", [], {})
    False
    >>> reveals("The values for `city` have no grounding: Paris.", "Paris", "w", ["city"], {})
    True
    """
    allowed = {n for n in (tool, *args) if n} | set(registry)
    for sig in registry.values():
        allowed.update(p.name for p in sig.params)
    masked = text
    for piece in list(FIXED_TEXT) + sorted(allowed, key=len, reverse=True):
        masked = masked.replace(piece, "\x00")
    needle = str(value)
    if isinstance(value, bool) or not needle.strip():
        return False
    if isinstance(value, (int, float)) or len(needle.strip()) < 3:
        return re.search(r"(?<![\w.])" + re.escape(needle) + r"(?![\w]|\.\d)", masked) is not None
    return needle in masked


def correction(assessment: Assessment) -> str | None:
    """ψ_k of the stage the cascade halted at, after ψ2 for a drifted parameter of a structure
    stage that passed (drift is always corrected); None when there is nothing to correct."""
    early = [psi2(s) for s in assessment.stages  # type: ignore[arg-type]
             if s.stage == STRUCTURE and s.passed and s.problems]
    if assessment.passed:
        return early[0] if early else None
    halted = _halted(assessment)
    return " ".join([*early, halted]) if early else halted


def _halted(assessment: Assessment) -> str:
    last = assessment.stages[-1]
    if last.stage == REGISTRY:
        return psi1(last, assessment.tool)  # type: ignore[arg-type]
    if last.stage == STRUCTURE:
        return psi2(last)  # type: ignore[arg-type]
    if last.stage == TYPE:
        return psi2_types(last)  # type: ignore[arg-type]
    assert last.stage == GROUNDING
    return psi3(last)  # type: ignore[arg-type]
