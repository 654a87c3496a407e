"""The code extractor: entities of answers about a code base (AgentLTL paper §4.4, appendix H.3).

`entities(text)` returns the referential entities a text names, in order, without repeats:

- file paths: repository-relative paths ending in a known source extension (`src/api.py`);
- identifiers: CamelCase and snake_case tokens of at least three characters, dotted names
  built from them (`ChargePoint.start`), and any name written as code: in backticks or
  followed by `(` (`request(`); plain lowercase words are prose, not references;
- numeric literals (`42`, `3.5`).

Python keywords, builtins (with the exception classes), standard-library module names and a
stop list of common words are filtered out.

`EntitySet` is what tool results showed (`outputs`). Parsed results contribute their values;
a file's contents (a result keyed by a path, or a text result of a call whose argument is
a path) contribute what the file defines: for `.py` files the names Python's `ast` finds
defined (qualified by class and module), for C and C++ files the names a regex finds
defined, for other files every token. An entity is grounded when it matches a member of
its kind: exactly for paths, by value for numbers, by case-insensitive prefix for
identifiers (`charge` grounds in `ChargePoint`).

Extraction takes time linear in the text (each regex scans it once; positions already taken
by a path are marked in a bit array, not searched), and is bounded: at most `MAX_ENTITIES`
entities are kept per text, and `MAX_TEXT` characters are read.

>>> entities("The class ChargePoint is in ocpp/charge_point.py, line 42.")
['ChargePoint', 'ocpp/charge_point.py', '42']
>>> seen = EntitySet.from_results([{"ocpp/charge_point.py": "class ChargePoint:\\n    pass\\n"}])
>>> seen.contains("ocpp/charge_point.py"), seen.contains("chargepoint"), seen.contains("Other")
(True, True, False)
"""

from __future__ import annotations

import bisect
import builtins
import keyword
import math
import re
import sys
from dataclasses import dataclass, field
from typing import Iterable, Iterator

from policyc.grounding.definitions import NUMBER_RE as _NUMBER_RE
from policyc.grounding.definitions import c_definitions, python_definitions

#: Bounds of extraction: the entities kept per text, and the characters of a text read.
MAX_ENTITIES = 10_000
MAX_TEXT = 4_000_000

SOURCE_EXTENSIONS = (
    "py pyi c h cc cpp cxx hpp hh js jsx mjs ts tsx java kt scala go rs rb php cs swift m sh "
    "md rst txt json yaml yml toml cfg ini html css sql"
).split()
PYTHON_EXTENSIONS = ("py", "pyi")
C_EXTENSIONS = ("c", "h", "cc", "cpp", "cxx", "hpp", "hh")

_EXT = "|".join(sorted(SOURCE_EXTENSIONS, key=len, reverse=True))
_PATH = rf"(?:\.{{1,2}}/)?(?:[\w.-]+/)*[\w-][\w.-]*\.(?:{_EXT})"
_PATH_RE = re.compile(rf"(?<![\w/.-]){_PATH}(?![\w/])")
_NAME = r"[A-Za-z_][A-Za-z0-9_]*"
_IDENT_RE = re.compile(rf"(?<![\w.]){_NAME}(?:\.{_NAME})*")
_CODE_SPAN_RE = re.compile(r"`([^`\n]+)`")
_PATH_FULL = re.compile(_PATH)
# (a path has a `.` or a `/` in its first run of name characters: the look-ahead lets every other
# word skip the path pattern)
_ENTITY_RE = re.compile(rf"(?P<path>(?=[\w.-]*[./]){_PATH_RE.pattern})|(?P<ident>{_IDENT_RE.pattern})"
                        rf"|(?P<number>{_NUMBER_RE.pattern})")
_NUMBER_FULL = re.compile(r"\d+(?:\.\d+)?")

STOP_WORDS = frozenset(
    """a an the is are was were be been being am do does did done has have had having of in on at to
    for from by with without into onto over under about above below between through during before after
    and or not no nor but if then else when where which who whom whose what why how this that these those
    it its you he she we they me him her us them my your his our their there here as so than too
    very can could should would may might must will shall also only just both each all any some such
    more most other another same own out up down off again further once file files function functions
    class classes method methods defined define definition module modules package line lines code source
    answer found find located location locate see seen primarily mainly contains containing called call
    named name version versions core base user facing directory folder path repository repo don know
    sorry unable cannot read available information""".split()
)
BLOCKLIST = (frozenset(dir(builtins)) | frozenset(keyword.kwlist) | frozenset(keyword.softkwlist)
             | frozenset(sys.stdlib_module_names))


def _is_reference(token: str, code: bool) -> bool:
    """Whether an identifier token names something (rather than being prose or a builtin)."""
    if not code and "_" not in token and token.islower():
        return False  # a plain lowercase word (or dotted words): prose unless written as code
    parts = token.split(".")
    if len(token) < 3 or token.lower() in STOP_WORDS or token in BLOCKLIST or parts[0] in BLOCKLIST:
        return False
    if code:
        return True
    for p in parts:
        if "_" in p.strip("_") or _is_camel(p):
            return True
    return False


def _is_camel(word: str) -> bool:
    letters = [c for c in word if c.isalpha()]
    uppers = sum(c.isupper() for c in letters)
    lowers = len(letters) - uppers
    return lowers > 0 and (uppers >= 2 or word[0].islower() and uppers >= 1)


def _normalise_path(path: str) -> str:
    return path[2:] if path.startswith("./") else path


def entities(text: object) -> list[str]:
    """Referential entities of `text` (a string, or a list of strings), in order, without repeats.

    A word written twice names what it named the first time, so the text is read once per
    distinct whitespace-separated word (`distinct_words`); only a code span with a space in
    it, whose words are code because of their neighbours, makes it read the text whole.

    >>> entities("`request` is in src/requests/api.py; see Session.send( and MAX_RETRIES = 3")
    ['request', 'src/requests/api.py', 'Session.send', 'MAX_RETRIES', '3']
    >>> entities("I don't know - not found in the source I read."), entities("")
    ([], [])
    """
    if isinstance(text, list):
        out: dict[str, None] = {}
        for item in text:
            out.update(dict.fromkeys(entities(item)))
        return list(out)
    if not isinstance(text, str):
        return []
    text = text[:MAX_TEXT]
    return entities_in_order(distinct_words(text))


_SPACE_RE = re.compile(r"\s")


def distinct_words(text: str) -> str:
    """The text's distinct words (`str.split`), in order of first occurrence, one per line;
    the text itself when a code span has a space in it. `entities_in_order` finds the same
    entities in it, in the same order: no entity and no code span spans a space, a
    neighbouring space reads as the end of the text to every pattern, and the first
    occurrence of an entity is inside the first occurrence of its word.

    >>> distinct_words("see `a` in b.py and `a` in c.py")
    'see\\n`a`\\nin\\nb.py\\nand\\nc.py'
    >>> distinct_words("see `a b` here")
    'see `a b` here'
    """
    if _SPACE_RE.search("`".join(_CODE_SPAN_RE.findall(text))):  # (a backtick is no space)
        return text
    return "\n".join(dict.fromkeys(text.split()))


def entities_in_order(text: str) -> list[str]:
    """The entities of a text, in order, without repeats, reading every position of it.

    One pass: at each position a path, else an identifier, else a number (none of them can
    start inside another, so this finds what three separate scans would, in order). Where a
    token is a reference only when written as code (in a code span, or followed by `(`),
    its position is read too (`_entities_at`)."""
    assert _ENTITY_RE.groups == 3
    found: list[str] = []
    shape: dict[str, bool] = {}  # token -> whether it is a reference by its shape (asked once per token)
    for path, ident, number in _ENTITY_RE.findall(text):
        if path:
            found.append(_normalise_path(path))
        elif number:
            found.append(number)
        else:
            token = ident.rstrip(".")
            by_shape = shape.get(token)
            if by_shape is None:
                by_shape = shape[token] = _is_reference(token, False)
            if by_shape:
                found.append(token)
            elif _is_reference(token, True):  # a reference if written as code: where is it?
                return _entities_at(text, shape)
    return list(dict.fromkeys(found))[:MAX_ENTITIES]


def _entities_at(text: str, shape: dict[str, bool]) -> list[str]:
    """`entities_in_order`, reading where each token is (in a code span, before a `(`)."""
    in_code = bytearray(len(text) + 1)  # 1 where a character is inside a `code span`
    for m in _CODE_SPAN_RE.finditer(text):
        in_code[m.start(1):m.end(1)] = b"\x01" * (m.end(1) - m.start(1))
    found: list[str] = []
    for m in _ENTITY_RE.finditer(text):
        kind = m.lastgroup
        if kind == "path":
            found.append(_normalise_path(m.group()))
            continue
        if kind == "number":
            found.append(m.group())
            continue
        token = m.group().rstrip(".")
        by_shape = shape.get(token)
        if by_shape is None:
            by_shape = shape[token] = _is_reference(token, False)
        if by_shape:  # a reference by its shape, written as code or not
            found.append(token)
            continue
        start, end = m.span()
        if (text[end:end + 1] == "(" or in_code[start] and in_code[end - 1]) and _is_reference(token, True):
            found.append(token)
    return list(dict.fromkeys(found))[:MAX_ENTITIES]


def entity_kind(entity: str) -> str:
    """`path`, `number` or `identifier`.

    >>> entity_kind("a/b.py"), entity_kind("42"), entity_kind("ChargePoint")
    ('path', 'number', 'identifier')
    """
    if "." in entity and _PATH_FULL.fullmatch(entity):  # a path has its extension's dot
        return "path"
    if entity[:1].isdigit() and _NUMBER_FULL.fullmatch(entity):  # a decimal digit is a digit
        return "number"
    return "identifier"


# ------------------------------------------------------------------ the seen set


@dataclass
class EntitySet:
    """What tool results showed: paths, identifiers (prefix-searchable) and numbers."""

    paths: set[str] = field(default_factory=set)
    numbers: set[float] = field(default_factory=set)
    _names: set[str] = field(default_factory=set)
    _sorted: list[str] = field(default_factory=list, repr=False, compare=False)  # the names, sorted
    _pending: list[str] = field(default_factory=list, repr=False, compare=False)  # not yet in `_sorted`

    @classmethod
    def from_results(cls, results: list[object]) -> "EntitySet":
        """The seen set of some tool results (parsed JSON values)."""
        out = cls()
        for r in results:
            out.add_value(r)
        return out

    def add_call(self, args: dict[str, object], result: object) -> None:
        """Add a call's result; a text result of a call with a path argument is that file."""
        if isinstance(result, str):
            path = next((v for v in args.values() if isinstance(v, str) and _PATH_RE.fullmatch(v)), None)
            if path is not None:
                self.add_file(path, result)
                return
        self.add_value(result)

    def add_file(self, path: str, content: object) -> None:
        path = _normalise_path(path)
        self.paths.add(path)
        if not isinstance(content, str):
            self.add_value(content)
            return
        ext = path.rsplit(".", 1)[-1].lower()
        if ext in PYTHON_EXTENSIONS:
            module = path.rsplit(".", 1)[0].replace("/", ".").removesuffix(".__init__")
            names, numbers = python_definitions(content, module)
            self.add_names(names)
            self.numbers.update(numbers)
        elif ext in C_EXTENSIONS:
            self.add_names(c_definitions(content))
        else:
            self.add_text(content)

    def add_value(self, value: object) -> None:
        if isinstance(value, dict):
            path = value.get("path") or value.get("file") or value.get("filename")
            content = next((value[k] for k in ("content", "contents", "text") if k in value), None)
            if isinstance(path, str) and _PATH_RE.fullmatch(path) and isinstance(content, str):
                self.add_file(path, content)
            for key, item in value.items():
                if isinstance(key, str) and _PATH_RE.fullmatch(key):
                    self.add_file(key, item)
                else:
                    self.add_value(item)
        elif isinstance(value, list):
            for item in value:
                self.add_value(item)
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            if math.isfinite(value):
                self.numbers.add(float(value))
        elif isinstance(value, str):
            self.add_text(value)

    def add_text(self, text: str) -> None:
        """Every path, name and number a text shows."""
        self.paths.update(_normalise_path(m.group()) for m in _PATH_RE.finditer(text))
        self.add_names(m.group().rstrip(".") for m in _IDENT_RE.finditer(text))
        self.numbers.update(float(x) for x in _NUMBER_RE.findall(text))

    def add_names(self, names: Iterable[str]) -> None:
        for name in names:
            folded = name.lower() if name else ""
            if folded and folded not in self._names:
                self._names.add(folded)
                self._pending.append(folded)

    def settle(self) -> None:
        """Merge the names added since the last question into the sorted list (a linear merge
        of two sorted runs): a run's grounding set settles as each result is recorded, so
        asking about an answer costs nothing more than the answer's own entities."""
        if self._pending:
            self._pending.sort()
            self._sorted = sorted(self._sorted + self._pending)
            self._pending = []

    def contains(self, entity: object) -> bool:
        """Whether an answer entity is grounded in what was seen."""
        if type(entity) is not str:
            if isinstance(entity, (int, float)) and not isinstance(entity, bool):
                return float(entity) in self.numbers
            if not isinstance(entity, str):
                return False
        if not entity:
            return False
        if "." in entity and _PATH_FULL.fullmatch(entity):  # entity_kind, inline: asked per entity
            return _normalise_path(entity) in self.paths
        if entity[:1].isdigit() and _NUMBER_FULL.fullmatch(entity):
            return float(entity) in self.numbers
        if self._pending:
            self.settle()
        folded = entity.lower()
        i = bisect.bisect_left(self._sorted, folded)
        return i < len(self._sorted) and self._sorted[i].startswith(folded)

    def __iter__(self) -> Iterator[str]:
        numbers = (str(int(x)) if x.is_integer() else str(x) for x in self.numbers)
        return iter(sorted(self.paths) + sorted(self._names) + sorted(numbers))

    def __len__(self) -> int:
        return len(self.paths) + len(self._names) + len(self.numbers)
