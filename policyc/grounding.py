"""Entity extraction and matching for grounding rules (AgentLTL paper §4.4, appendix H.3).

`entities(text)` returns the referential tokens of a text: file paths, identifiers and numeric
literals, with Python builtins, keywords and a stop list of common words removed.
`EntitySet` is the set of things seen in tool results (`outputs`); an entity is grounded when
it matches a member: exactly for paths and numbers, by case-insensitive prefix for identifiers.

>>> entities("The class ChargePoint is in ocpp/charge_point.py, line 42.")
['ChargePoint', 'ocpp/charge_point.py', '42']
>>> seen = EntitySet.from_results([{"ocpp/charge_point.py": "class ChargePoint:\\n    pass\\n"}])
>>> seen.contains("ocpp/charge_point.py"), seen.contains("chargepoint"), seen.contains("Other")
(True, True, False)
"""

from __future__ import annotations

import ast as pyast
import builtins
import keyword
import re
from dataclasses import dataclass, field

_PATH = r"(?:[A-Za-z0-9_.\-]+/)+[A-Za-z0-9_.\-]+|[A-Za-z0-9_\-]+\.(?:py|pyi|c|h|cc|cpp|hpp|js|ts|java|go|rs|rb|md|txt|json|yaml|yml|toml|cfg|ini)\b"
_IDENT = r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*"
_NUMBER = r"-?\d+(?:\.\d+)?"
_TOKEN = re.compile(rf"(?P<path>{_PATH})|(?P<ident>{_IDENT})|(?P<number>{_NUMBER})")

STOP_WORDS = frozenset(
    """a an the is are was were be been being am do does did done has have had having of in on at to
    for from by with without into onto over under about above below between through during before after
    and or not no nor but if then else when where which who whom whose what why how this that these those
    it its it's i you he she we they me him her us them my your his our their there here as so than too
    very can could should would may might must will shall also only just both each all any some such
    more most other another same own out up down off again further once file files function functions
    class classes method methods defined define definition module modules package line lines code source
    answer found find located location locate see seen primarily mainly contains containing called call
    named name version versions core base user facing directory folder path repository repo don know
    sorry unable cannot read available information""".split()
)
_BUILTIN_NAMES = frozenset(dir(builtins)) | frozenset(keyword.kwlist) | frozenset(keyword.softkwlist)


def _is_identifier_entity(token: str) -> bool:
    if token.lower() in STOP_WORDS or token in _BUILTIN_NAMES:
        return False
    # plain lowercase English words are prose, not references; identifiers have
    # an underscore, a capital after the first letter, a dot or a digit
    return bool(re.search(r"[_.0-9]|[A-Z]", token)) or len(token) > 24


def entities(text: object) -> list[str]:
    """Referential tokens of `text` (a string, or a list of strings), in order, without repeats."""
    if isinstance(text, list):
        out: dict[str, None] = {}
        for item in text:
            for e in entities(item):
                out[e] = None
        return list(out)
    if not isinstance(text, str):
        return []
    found: dict[str, None] = {}
    for m in _TOKEN.finditer(text):
        if m.group("path"):
            token = m.group("path").rstrip(".")
            found[token] = None
        elif m.group("ident"):
            token = m.group("ident").rstrip(".")
            if _is_identifier_entity(token):
                found[token] = None
        elif m.group("number"):
            found[m.group("number")] = None
    return list(found)


def _python_names(source: str) -> set[str]:
    try:
        tree = pyast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return set()
    names: set[str] = set()
    for node in pyast.walk(tree):
        if isinstance(node, (pyast.FunctionDef, pyast.AsyncFunctionDef, pyast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, pyast.Assign):
            for target in node.targets:
                if isinstance(target, pyast.Name):
                    names.add(target.id)
    return names


@dataclass
class EntitySet:
    """What tool results showed: paths, identifiers, numbers and other scalar strings."""

    paths: set[str] = field(default_factory=set)
    identifiers: set[str] = field(default_factory=set)
    scalars: set[str] = field(default_factory=set)

    def add_value(self, value: object, key_is_path: bool = False) -> None:
        if isinstance(value, dict):
            for key, item in value.items():
                if isinstance(key, str) and re.fullmatch(_PATH, key):
                    self.paths.add(key)
                    if key.endswith(".py") and isinstance(item, str):
                        self.identifiers.update(_python_names(item))
                self.add_value(item)
        elif isinstance(value, list):
            for item in value:
                self.add_value(item)
        elif isinstance(value, bool) or value is None:
            return
        elif isinstance(value, (int, float)):
            self.scalars.add(_number_text(value))
        elif isinstance(value, str):
            self.scalars.add(value)
            for e in entities(value):
                if re.fullmatch(_PATH, e):
                    self.paths.add(e)
                elif re.fullmatch(_NUMBER, e):
                    self.scalars.add(e)
                else:
                    self.identifiers.add(e)

    @classmethod
    def from_results(cls, results: list[object]) -> "EntitySet":
        out = cls()
        for r in results:
            out.add_value(r)
        return out

    def contains(self, entity: object) -> bool:
        if isinstance(entity, (int, float)) and not isinstance(entity, bool):
            entity = _number_text(entity)
        if not isinstance(entity, str) or not entity:
            return False
        if entity in self.paths or entity in self.scalars:
            return True
        if re.fullmatch(_PATH, entity) or re.fullmatch(_NUMBER, entity):
            return False
        folded = entity.lower()
        for ident in self.identifiers:
            seen = ident.lower()
            # `charge` grounds in `ChargePoint`; `ChargePoint.start` grounds in `ChargePoint`
            if seen.startswith(folded) or folded.startswith(seen + "."):
                return True
        return False

    def __iter__(self):
        return iter(sorted(self.paths | self.identifiers | self.scalars))


def _number_text(value: float | int) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)
