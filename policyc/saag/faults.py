"""A deterministic fault injector: one call made wrong in one known way, for each stage to catch.

Each fault turns a call that passes every stage into one that should halt the cascade at a
known stage. It is deterministic: the random choices (which letter, which parameter, which
invented value) are drawn from a generator seeded by the record, the call's index and the
fault's name, so a fault is the same on every run and every machine. A fault that does not
apply to a call (no required parameter to drop, no grounded string to replace) gives None.

| fault | what changes | caught at |
|---|---|---|
| `misspelled-name` | one edit to the tool's name (not another registered name) | registry |
| `fabricated-name` | an invented tool name | registry |
| `missing-name` | no tool name at all | registry |
| `dropped-parameter` | a required parameter left out | structure |
| `spurious-parameter` | an invented parameter, unlike every schema name (PDS < 0.8) | structure |
| `drifted-parameter` | one edit to a parameter's name, still close to it (PDS ≥ 0.8) | structure |
| `retyped-value` | a value of the wrong type (`5` as `"5"`, a string as a list) | type |
| `hallucinated-string` | a grounded string replaced by an invented one | grounding |
| `hallucinated-number` | a grounded number replaced by one the query does not state | grounding |

>>> from policyc.saag.dataset import ToolCall
>>> from policyc.saag.schema import registry_from_json
>>> registry = registry_from_json([{"name": "get_weather", "parameters": {"type": "dict",
...     "properties": {"city": {"type": "string"}, "days": {"type": "integer"}}, "required": ["city"]}}])
>>> call, query = ToolCall("get_weather", {"city": "Paris", "days": 3}), "Weather in Paris for 3 days"
>>> inject("dropped-parameter", call, registry, query, "r1")
ToolCall(name='get_weather', args={'days': 3})
>>> inject("misspelled-name", call, registry, query, "r1") == inject("misspelled-name", call, registry, query, "r1")
True
"""

from __future__ import annotations

import hashlib
import random
import string
from types import MappingProxyType
from typing import Any, Callable, Mapping

from policyc.ir.types import BOOL, FLOAT, INT, STR, EnumT, ToolSignature, strip_optional
from policyc.saag import metrics as m
from policyc.saag.cascade import GROUNDING, REGISTRY, STRUCTURE, TYPE
from policyc.saag.dataset import ToolCall

Registry = Mapping[str, ToolSignature]
Injector = Callable[[ToolCall, Registry, str, random.Random], "ToolCall | None"]
ATTEMPTS = 40

_VERBS = ("fetch", "compute", "launch", "render", "sync", "probe", "archive", "mint")
_NOUNS = ("widget", "orbit", "ledger", "gizmo", "quasar", "lattice", "beacon", "vortex")
_SPURIOUS = ("zq_flag", "verbose_mode", "retry_budget", "trace_level", "xk_mode", "callback_hint", "shard_key")


def rng_for(record: str, index: int, fault: str, seed: int = 0) -> random.Random:
    """The generator of one fault on one call: seeded by their names, the same everywhere."""
    digest = hashlib.sha256(f"{seed}\x00{record}\x00{index}\x00{fault}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def one_edit(word: str, rng: random.Random) -> str:
    """A word one edit away: a letter deleted, doubled, swapped with its neighbour or replaced."""
    if len(word) < 2:
        return word + rng.choice(string.ascii_lowercase)
    i = rng.randrange(len(word) - 1)
    edit = rng.randrange(4)
    if edit == 0:
        return word[:i] + word[i + 1:]
    if edit == 1:
        return word[:i] + word[i] + word[i:]
    if edit == 2:
        return word[:i] + word[i + 1] + word[i] + word[i + 2:]
    letter = rng.choice([c for c in string.ascii_lowercase if c != word[i].lower()])
    return word[:i] + letter + word[i + 1:]


def invented_text(rng: random.Random) -> str:
    """Two pronounceable nonsense words (`Vokadu Rilemo`)."""
    def word() -> str:
        return "".join(rng.choice("bdfgklmnprstvz") + rng.choice("aeiou") for _ in range(3)).capitalize()
    return f"{word()} {word()}"


# ------------------------------------------------------------------ the faults


def misspelled_name(call: ToolCall, registry: Registry, query: str, rng: random.Random) -> ToolCall | None:
    for _ in range(ATTEMPTS):
        name = one_edit(call.name or "", rng)
        if name.strip() and name != call.name and name not in registry:
            return ToolCall(name, call.args)
    return None


def fabricated_name(call: ToolCall, registry: Registry, query: str, rng: random.Random) -> ToolCall | None:
    for _ in range(ATTEMPTS):
        name = f"{rng.choice(_VERBS)}_{rng.choice(_NOUNS)}"
        if name not in registry:
            return ToolCall(name, call.args)
    return None


def missing_name(call: ToolCall, registry: Registry, query: str, rng: random.Random) -> ToolCall | None:
    return ToolCall(None, call.args)


def dropped_parameter(call: ToolCall, registry: Registry, query: str, rng: random.Random) -> ToolCall | None:
    sig = registry.get(call.name or "")
    required = [p.name for p in sig.params if p.required and p.name in call.args] if sig else []
    if not required:
        return None
    gone = rng.choice(required)
    return ToolCall(call.name, {k: v for k, v in call.args.items() if k != gone})


def spurious_parameter(call: ToolCall, registry: Registry, query: str, rng: random.Random) -> ToolCall | None:
    sig = registry.get(call.name or "")
    admissible = [p.name for p in sig.params] if sig else []
    names = list(_SPURIOUS)
    rng.shuffle(names)
    for name in names:
        if name not in call.args and name not in admissible and m.pds(name, admissible)[0] < m.DRIFT_THRESHOLD:
            return ToolCall(call.name, {**call.args, name: True})
    return None


def drifted_parameter(call: ToolCall, registry: Registry, query: str, rng: random.Random) -> ToolCall | None:
    sig = registry.get(call.name or "")
    admissible = [p.name for p in sig.params] if sig else []
    given = [p for p in call.args if len(p) >= 4]
    rng.shuffle(given)
    for p in given:
        for _ in range(ATTEMPTS // 4):
            new = one_edit(p, rng)
            if new in admissible or new in call.args:
                continue
            score, nearest = m.pds(new, admissible)
            if score >= m.DRIFT_THRESHOLD and nearest == p:
                return ToolCall(call.name, {(new if k == p else k): v for k, v in call.args.items()})
    return None


def retyped_value(call: ToolCall, registry: Registry, query: str, rng: random.Random) -> ToolCall | None:
    sig = registry.get(call.name or "")
    options: list[tuple[str, Any]] = []
    for name, value in call.args.items():
        param = sig.param(name) if sig else None
        t = strip_optional(param.type) if param else None
        if value is None or t is None:
            continue
        if t in (INT, FLOAT, BOOL):
            options.append((name, str(value)))
        elif t is STR or isinstance(t, EnumT):
            options.append((name, [value]))
    if not options:
        return None
    name, value = rng.choice(options)
    return ToolCall(call.name, {**call.args, name: value})


def _grounded(call: ToolCall, registry: Registry, query: str, kind: str) -> list[str]:
    sig = registry.get(call.name or "")
    out = []
    for name, value in call.args.items():
        param = sig.param(name) if sig else None
        t = strip_optional(param.type) if param else None
        if m.value_kind(value) == kind and m.exact_match(value, query) and not isinstance(t, EnumT):
            out.append(name)
    return out


def hallucinated_string(call: ToolCall, registry: Registry, query: str, rng: random.Random) -> ToolCall | None:
    names = _grounded(call, registry, query, m.STRING)
    if not names:
        return None
    name = rng.choice(names)
    for _ in range(ATTEMPTS):
        value = invented_text(rng)
        if m.hallucination(value, query):
            return ToolCall(call.name, {**call.args, name: value})
    return None


def hallucinated_number(call: ToolCall, registry: Registry, query: str, rng: random.Random) -> ToolCall | None:
    names = _grounded(call, registry, query, m.NUMBER)
    if not names:
        return None
    name = rng.choice(names)
    stated = m.numbers_in(query)
    for _ in range(ATTEMPTS):
        value = call.args[name] + rng.randint(7, 997)
        if float(value) not in stated:
            return ToolCall(call.name, {**call.args, name: value})
    return None


#: fault -> (the stage that must catch it, the injector). Order is data: the tables follow it.
FAULTS: Mapping[str, tuple[str, Injector]] = MappingProxyType({
    "misspelled-name": (REGISTRY, misspelled_name),
    "fabricated-name": (REGISTRY, fabricated_name),
    "missing-name": (REGISTRY, missing_name),
    "dropped-parameter": (STRUCTURE, dropped_parameter),
    "spurious-parameter": (STRUCTURE, spurious_parameter),
    "drifted-parameter": (STRUCTURE, drifted_parameter),
    "retyped-value": (TYPE, retyped_value),
    "hallucinated-string": (GROUNDING, hallucinated_string),
    "hallucinated-number": (GROUNDING, hallucinated_number),
})


def inject(fault: str, call: ToolCall, registry: Registry, query: str, record: str, index: int = 0,
           seed: int = 0) -> ToolCall | None:
    """`call` with one fault injected (None when the fault does not apply to it)."""
    _, injector = FAULTS[fault]
    return injector(call, registry, query, rng_for(record, index, fault, seed))
