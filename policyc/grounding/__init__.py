"""Grounding (AgentLTL paper §4.4, appendix H.3): the entities a text names, and what tool
results showed, for rules such as `forall e in entities(reply.text): e in outputs`.

An *extractor* decides both sides: `entities(text)` lists the entities of a text, and
`seen()` makes an empty set that tool results are added to (`add_call(args, result)`) and that
says whether an entity is grounded (`contains(entity)`). Two are built in:

- `CODE` (the default): file paths, identifiers, numbers, and what source files define
  (`policyc.grounding.code`), for answers about a code base;
- `PROSE`: emails, amounts with a currency, dates, quoted spans, ids, names, numbers and
  paths (`policyc.grounding.prose`), for replies to customers.

A policy names a built-in one with `grounding prose` (or `grounding code`). Another extractor
(any object with `entities` and `seen`) is passed explicitly where a policy is evaluated:
`score_trace(..., extractor=...)`, `score_corpus(..., extractor=...)`,
`Monitor(..., extractor=...)`. There is no registry: what a rule means never depends on what
some module registered.

Both built-ins read a text in time linear in its length and are bounded: at most
`MAX_ENTITIES` entities per text, and the first `MAX_TEXT` characters of it.

>>> CODE.entities("ChargePoint is in ocpp/charge_point.py"), PROSE.entities("Refund $12.50 for ORD-77")
(['ChargePoint', 'ocpp/charge_point.py'], ['$12.50', 'ORD-77'])
>>> seen = PROSE.seen(); seen.add_call({}, {"order": "ORD-77", "total": 12.5})
>>> seen.contains("$12.50"), seen.contains("ORD-78")
(True, False)
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Callable, Mapping, Protocol

from policyc.grounding.actions import Claim, claimed_actions, read_claims
from policyc.grounding.code import MAX_ENTITIES, MAX_TEXT, EntitySet, entities, entity_kind
from policyc.grounding.definitions import c_definitions, python_definitions
from policyc.grounding.prose import ProseSet, prose_entities, prose_kind


class SeenSet(Protocol):
    """What tool results showed, for one extractor."""

    def add_call(self, args: dict[str, object], result: Any) -> None: ...

    def contains(self, entity: object) -> bool: ...


class Extractor(Protocol):
    """What `entities(...)` finds and how `outputs` matches it."""

    @property
    def name(self) -> str: ...

    def entities(self, text: object) -> list[str]: ...

    def seen(self) -> SeenSet: ...


@dataclass(frozen=True)
class BuiltinExtractor:
    name: str
    find: Callable[[object], list[str]]
    make_seen: Callable[[], SeenSet]

    def entities(self, text: object) -> list[str]:
        return self.find(text)

    def seen(self) -> SeenSet:
        return self.make_seen()


CODE = BuiltinExtractor("code", entities, EntitySet)
PROSE = BuiltinExtractor("prose", prose_entities, ProseSet)
#: The built-in extractors a policy may name (`grounding NAME`); read-only.
BUILTIN_EXTRACTORS: Mapping[str, Extractor] = MappingProxyType({"code": CODE, "prose": PROSE})

#: The key under which an evaluation's extractor travels with its extern bindings (the
#: functions a policy is evaluated with); `entities` is a builtin, never an extern's name.
EXTRACTOR_KEY = "entities"


def extractor_of(bindings: Mapping[str, Any] | None) -> Extractor:
    """The extractor an evaluation was given (the default, `CODE`, when none)."""
    found = bindings.get(EXTRACTOR_KEY) if bindings else None
    return found if found is not None else CODE


def actions_reader_of(bindings: Mapping[str, Any] | None) -> Callable[[object, Mapping[str, Any]], list[str]]:
    """How `actions(text)` reads claims of actions in an evaluation: the extractor's own
    `actions(text, claims)` when it has one (a model, say), else the rule-based reader."""
    own = getattr(extractor_of(bindings), "actions", None)
    return own if callable(own) else claimed_actions


def with_extractor(bindings: Mapping[str, Any] | None, extractor: Extractor | None) -> dict[str, Any]:
    """Extern bindings with an extractor added (unchanged when it is None or the default)."""
    out = dict(bindings or {})
    if extractor is not None and extractor is not CODE:
        out[EXTRACTOR_KEY] = extractor
    return out


__all__ = ["BUILTIN_EXTRACTORS", "CODE", "PROSE", "EXTRACTOR_KEY", "Claim", "EntitySet", "actions_reader_of",
           "claimed_actions", "read_claims", "Extractor", "MAX_ENTITIES",
           "MAX_TEXT", "ProseSet", "SeenSet", "c_definitions", "entities", "entity_kind", "extractor_of",
           "prose_entities", "prose_kind", "python_definitions", "with_extractor"]
