"""The prose extractor: the claims of a reply to a customer, grounded in what the tools returned.

`prose_entities(text)` finds, in order and without repeats:

- **emails**: `ann.lee@example.com` (matched in lower case);
- **amounts with a currency**, the sign or code before or after the number: `$2.00`, `€ 15`,
  `EUR 96.27`, `96.27 EUR`, `5€`, `3 dollars` (matched by value: `$2.00` is grounded by a result
  holding the number 2 or the amount `2.00 USD`); a currency code is never a name;
- **dates**: `2025-01-31`, `2025-01-31T10:00`, `01/31/2025` (month first), `Jan 31, 2025`,
  `31 January 2025` (matched as the calendar day: `Jan 31, 2025` is grounded by `2025-01-31`);
- **quoted spans**: text between double quotes (`"Line resumed successfully"`, also “curly”),
  2 to 200 characters (matched, in lower case with white space collapsed, against the string
  values of the results and their sentences);
- **ids**: words mixing letters and digits (`L1002`, `C1001`, `ORD-77`, `SAVE20`, a UUID),
  matched case-insensitively;
- **names**: runs of capitalised words (`Premium Plus`, `John Smith`, `FedEx`, `DHL`), without a
  leading article or pronoun, matched case-insensitively; not in the courtesies around a
  reply: a greeting line that opens it (`Hi Anna,`, `Dear Mr Okafor,`) and the sign-off that
  closes it (`Best regards, Anna`, `Kind regards,` and the lines after it, a last line such
  as `The Customer Support Team`), which name the writer and the reader, not a fact;
- **numbers** and **file paths**, as the code extractor finds them. A comma between digits
  is a thousands separator when every group after it has three digits (`1,250` is 1250,
  `101,202` is 101202), except in a bracketed list, whose commas separate numbers
  (`[200,300,400,500]` is four numbers). What results show is read both ways, so a reply's
  `101` or `101,202` is grounded by a result's `"101,202"`.

Every string and number of the results is also seen as a value of its own, so a quoted span
or a name equal to a result field is grounded. Extraction is linear in the text (one regex
pass per kind, and a bit array of the characters already taken by a longer kind) and bounded
like the code extractor's (`MAX_ENTITIES`, `MAX_TEXT`).

>>> prose_entities('Refund of $12.50 to ann@x.com on Jan 31, 2025 for order ORD-77 via FedEx: "approved".')
['$12.50', 'ann@x.com', 'Jan 31, 2025', 'ORD-77', 'FedEx', '"approved"']
>>> seen = ProseSet(); seen.add_call({}, {"order_id": "ord-77", "amount": 12.5, "date": "2025-01-31", "carrier": "FedEx"})
>>> [seen.contains(e) for e in ('$12.50', 'ORD-77', 'Jan 31, 2025', 'FedEx', 'UPS', '"approved"')]
[True, True, True, True, False, False]
"""

from __future__ import annotations

import math
import re
from typing import Iterator
from dataclasses import dataclass, field
from datetime import date

from policyc.grounding.code import _PATH, MAX_ENTITIES, MAX_TEXT, _normalise_path

_MONTHS = {m: i + 1 for i, m in enumerate(
    "january february march april may june july august september october november december".split())}
_MONTH = r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|Sep(?:t(?:ember)?)?" \
         r"|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)\.?"
_CURRENCY_SIGN = "$€£¥"
#: ISO codes of the currencies a reply names; a code is an amount's unit, never a name
CURRENCY_CODES = frozenset("USD EUR GBP JPY CAD AUD CHF CNY INR NZD SEK NOK DKK PLN MXN BRL ZAR SGD HKD".split())
_CODE = "|".join(sorted(CURRENCY_CODES))
_CURRENCY_WORD = rf"(?:{_CODE}|dollars?|euros?|pounds?|cents?)"
_NUM = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?"

_KINDS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("email", re.compile(r"(?<![\w.+-])[\w.+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+")),
    ("amount", re.compile(rf"[{_CURRENCY_SIGN}]\s?(?:{_NUM})|\b(?:{_CODE})\s?(?:{_NUM})(?![\d,.]*\d)"
                          rf"|(?<![\w.])(?:{_NUM})\s?(?:{_CURRENCY_WORD}\b|[{_CURRENCY_SIGN}])")),
    ("list", re.compile(r"\[\s*-?\d+(?:\.\d+)?(?:\s*,\s*-?\d+(?:\.\d+)?)+\s*\]")),
    ("date", re.compile(rf"\b\d{{4}}-\d{{2}}-\d{{2}}(?:[T ]\d{{2}}:\d{{2}}(?::\d{{2}})?)?\b"
                        rf"|\b\d{{1,2}}/\d{{1,2}}/\d{{4}}\b"
                        rf"|\b{_MONTH} \d{{1,2}}(?:st|nd|rd|th)?,? \d{{4}}\b"
                        rf"|\b\d{{1,2}}(?:st|nd|rd|th)? {_MONTH},? \d{{4}}\b")),
    ("quoted", re.compile(r'"([^"\n]{2,200})"|“([^”\n]{2,200})”')),
    ("path", re.compile(rf"(?<![\w/.-]){_PATH}(?![\w/])")),
    ("id", re.compile(r"(?<![\w-])(?=[A-Za-z0-9_-]*\d)(?=[A-Za-z0-9_-]*[A-Za-z])[A-Za-z0-9][A-Za-z0-9_-]*"
                      r"[A-Za-z0-9](?![\w-])")),
    ("name", re.compile(r"(?<![\w'’])(?:[A-Z][a-z]*[A-Z][A-Za-z]*|[A-Z]{2,}|[A-Z][a-z]+)"
                        r"(?:[ -](?:[A-Z][a-z]*[A-Z][A-Za-z]*|[A-Z]{2,}|[A-Z][a-z]+))*(?![\w'’])")),
    ("number", re.compile(r"(?<![\w.])(?:\d{1,3}(?:,\d{3})+(?:\.\d+)?(?![\d,])|\d+(?:\.\d+)?)(?!\w|\.\d)")),
)
#: a greeting that opens a text: `Hi Anna,`, `Dear Mr Okafor,`, `Good morning!`
_GREETING = re.compile(r"\s*(?:hi|hello|hey|dear|greetings|good (?:morning|afternoon|evening))\b[^\n,!.:;]*[,!.:;]?",
                       re.I)
#: a sign-off: from its first words to the end of the text, when at most three short lines follow
_SIGN_OFF = re.compile(r"(?:^|(?<=\n)|(?<=[.!?] ))[ \t]*(?:(?:best|kind|warm|warmest)\s+(?:regards|wishes)|regards"
                       r"|sincerely|yours (?:sincerely|truly|faithfully)|cheers|many thanks|thanks again"
                       r"|all the best|take care|thanks|thank you)\b[ \t]*[,!.]?[ \t]*(?=\n|(?-i:[A-Z])|$)", re.I)
#: a team's signature on the last line: `The Customer Support Team`, `Customer Care`
_SIGNATURE = re.compile(r"(?:^|\n)[ \t]*(?:the\s+)?[A-Z][\w&'’ -]{0,60}\b(?:team|support|care|desk|services?|department)"
                        r"[ \t.]*\s*$", re.I)
#: Words that start a sentence or stand alone capitalised without naming anything.
_NOT_NAMES = frozenset("""
    a an the i i'm i've i'll we you he she it they this that these those there here my your our their his her its
    hello hi hey dear thanks thank please sorry yes no ok okay sure great good unfortunately however also
    if when while after before then so but and or because since as for of in on at to from by with
    is are was were be been can could should would will shall may might must do does did has have had
    let let's what why how which who where mr mrs ms dr
""".split())


def _is_name(token: str) -> bool:
    words = token.replace("-", " ").split()
    while words and words[0].lower() in _NOT_NAMES:
        words = words[1:]
    if not words or len(words) == 1 and words[0].upper() in CURRENCY_CODES:
        return False
    one = " ".join(words)
    return len(words) > 1 or not one.istitle() or one.isupper() and len(one) >= 2


def _name_key(token: str) -> str:
    words = token.replace("-", " ").split()
    while words and words[0].lower() in _NOT_NAMES:
        words = words[1:]
    return " ".join(words).lower()


def _quote_key(text: str) -> str:
    return " ".join(text.lower().split())


def _number(text: str) -> float | None:
    m = re.search(_NUM, text)
    if m is None:
        return None
    try:
        value = float(m.group().replace(",", ""))
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def _date(text: str) -> str | None:
    """The calendar day a date entity names, as ISO text; None when it names none."""
    m = re.match(r"(\d{4})-(\d{2})-(\d{2})", text)
    if m:
        y, mo, d = (int(g) for g in m.groups())
    elif re.fullmatch(r"\d{1,2}/\d{1,2}/\d{4}", text):
        mo, d, y = (int(g) for g in text.split("/"))
    else:
        words = re.findall(r"[A-Za-z]+|\d+", text)
        month = next((w for w in words if w.isalpha() and w.lower()[:3] in {k[:3] for k in _MONTHS}), None)
        digits = [int(w) for w in words if w.isdigit()]
        if month is None or len(digits) != 2:
            return None
        mo = next(v for k, v in _MONTHS.items() if k[:3] == month.lower()[:3])
        d, y = (digits[0], digits[1]) if digits[0] <= 31 and digits[1] > 31 else (digits[1], digits[0])
    try:
        return date(y, mo, d).isoformat()
    except ValueError:
        return None


def courtesies(text: str) -> list[tuple[int, int]]:
    """The spans of a text's greeting and sign-off, where names name people, not facts.

    >>> t = "Hi Anna,\\nYour order shipped.\\n\\nBest regards, Tom\\nThe Customer Support Team"
    >>> [t[a:b].strip() for a, b in courtesies(t)]
    ['Hi Anna,', 'Best regards, Tom\\nThe Customer Support Team']
    """
    out = []
    greeting = _GREETING.match(text)
    if greeting and greeting.group().strip():
        out.append(greeting.span())
    tail = text[-SIGN_OFF_SPAN:]
    base = len(text) - len(tail)
    for m in _SIGN_OFF.finditer(tail):
        rest = tail[m.end():]
        if rest.count("\n") <= 3 and len(rest) <= 200:
            out.append((base + m.start(), len(text)))
            break
    else:
        signature = _SIGNATURE.search(tail)
        if signature:
            out.append((base + signature.start(), len(text)))
    return out


#: how far from the end of a text a sign-off is looked for
SIGN_OFF_SPAN = 300


def _scan(text: str) -> list[tuple[int, str, str]]:
    """(position, kind, entity) of every entity of a text, earlier kinds taking precedence; a
    bracketed list of numbers gives its numbers; no name is taken from a greeting or sign-off."""
    text = text[:MAX_TEXT]
    taken = bytearray(len(text) + 1)
    polite = bytearray(len(text) + 1)
    for a, b in courtesies(text):
        polite[a:b] = b"\x01" * (b - a)
    found: list[tuple[int, str, str]] = []
    for kind, pattern in _KINDS:
        for m in pattern.finditer(text):
            start, end = m.span()
            if taken[start] or taken[end - 1]:
                continue
            token = m.group()
            if kind == "name" and (polite[start] or not _is_name(token)):
                continue
            if kind == "path":
                token = _normalise_path(token)
            if kind == "list":
                found.extend((start + n.start(), "number", n.group()) for n in _LIST_ITEM.finditer(token))
            else:
                found.append((start, kind, token))
            taken[start:end] = b"\x01" * (end - start)
    found.sort()
    return found


_LIST_ITEM = re.compile(r"-?\d+(?:\.\d+)?")


def prose_entities(text: object) -> list[str]:
    """The entities of a reply (a string, or a list of strings), in order, without repeats."""
    if isinstance(text, list):
        out: dict[str, None] = {}
        for item in text:
            out.update(dict.fromkeys(prose_entities(item)))
        return list(out)[:MAX_ENTITIES]
    if not isinstance(text, str):
        return []
    return list(dict.fromkeys(token for _, _, token in _scan(text)))[:MAX_ENTITIES]


def prose_kind(entity: str) -> str:
    """The kind of an entity `prose_entities` returned.

    >>> [prose_kind(e) for e in ("a@b.io", "$3", "2025-01-31", '"ok"', "L1002", "Premium Plus", "3.5", "a/b.py")]
    ['email', 'amount', 'date', 'quoted', 'id', 'name', 'number', 'path']
    """
    for kind, pattern in _KINDS:
        if pattern.fullmatch(entity) and (kind != "name" or _is_name(entity)):
            return kind
    return "name"


@dataclass
class ProseSet:
    """What tool results showed, by kind: numbers (with the values of amounts), days,
    emails, ids, names, paths and string values (for quoted spans)."""

    numbers: set[float] = field(default_factory=set)
    keys: dict[str, set[str]] = field(default_factory=dict)

    def _add(self, kind: str, key: str) -> None:
        self.keys.setdefault(kind, set()).add(key)

    def add_call(self, args: dict[str, object], result: object) -> None:
        self.add_value(result)

    def add_value(self, value: object) -> None:
        stack = [value]
        while stack:
            item = stack.pop()
            if isinstance(item, dict):
                stack.extend(item.values())
                stack.extend(k for k in item if isinstance(k, str))
            elif isinstance(item, list):
                stack.extend(item)
            elif isinstance(item, (int, float)) and not isinstance(item, bool):
                if math.isfinite(item):
                    self.numbers.add(float(item))
            elif isinstance(item, str):
                self.add_text(item)

    def add_text(self, text: str) -> None:
        text = text[:MAX_TEXT]
        self._add("quoted", _quote_key(text))
        for sentence in re.split(r"(?<=[.!?])\s+|\n", text):
            self._add("quoted", _quote_key(sentence.strip(" .!?")))
        self._add("name", _name_key(text)) if len(text) <= 80 else None
        self._add("id", text.strip().lower()) if len(text) <= 80 else None
        for _, kind, token in _scan(text):
            self._add_entity(kind, token)

    def _add_entity(self, kind: str, token: str) -> None:
        if kind in ("amount", "number"):
            value = _number(token)
            if value is not None:
                self.numbers.add(value)
            for part in re.findall(r"\d+(?:\.\d+)?", token) if "," in token else ():  # `101,202`: also a list
                self.numbers.add(float(part))
        elif kind == "date":
            day = _date(token)
            if day is not None:
                self._add("date", day)
        elif kind == "quoted":
            self._add("quoted", _quote_key(token.strip('"“”')))
        elif kind == "name":
            self._add("name", _name_key(token))
        elif kind == "path":
            self._add("path", token)
        else:
            self._add(kind, token.lower())

    def contains(self, entity: object) -> bool:
        """Whether a reply's entity is grounded in what the results showed."""
        if isinstance(entity, (int, float)) and not isinstance(entity, bool):
            return float(entity) in self.numbers
        if not isinstance(entity, str) or not entity:
            return False
        kind = prose_kind(entity)
        if kind in ("amount", "number"):
            return _number(entity) in self.numbers
        if kind == "date":
            return _date(entity) in self.keys.get("date", ())
        if kind == "quoted":
            return _quote_key(entity.strip('"“”')) in self.keys.get("quoted", ())
        if kind == "name":
            key = _name_key(entity)
            return key in self.keys.get("name", ()) or key in self.keys.get("id", ())
        if kind == "path":
            return _normalise_path(entity) in self.keys.get("path", ())
        key = entity.lower()
        return key in self.keys.get(kind, ()) or key in self.keys.get("name", ())

    def __iter__(self) -> Iterator[str]:
        numbers = (str(int(x)) if x.is_integer() else str(x) for x in self.numbers)
        return iter(sorted(k for keys in self.keys.values() for k in keys) + sorted(numbers))

    def __len__(self) -> int:
        return sum(len(k) for k in self.keys.values()) + len(self.numbers)
