"""Typed entities of text: URLs, e-mail addresses, IBANs, phone numbers, dates, amounts, card
numbers and secrets, each found in text and brought to one normal form.

A rule names a kind by its function (`urls(body)`, `ibans(request.text)`, ...): each returns the
entities of that kind in order of appearance, without repeats, in their normal form, so that
the same entity written two ways is one value:

| kind | found | normal form |
|---|---|---|
| `urls` | `https://...`, `http://...`, `www....`, and bare domains with a common ending (`evil.com/x`) | scheme and host in lower case, `https://` when none is written, no default port, no fragment, `/` for an empty path, trailing punctuation dropped |
| `emails` | `name@host.tld` | lower case |
| `ibans` | two letters, two check digits, up to 30 letters and digits, in groups or not | upper case, no spaces; only those whose ISO 13616 checksum holds (and whose length is their country's) |
| `phones` | 7 to 15 digits in the usual groupings (`+1 (555) 123-4567`, `030 1234 5678`) | the digits, with a leading `+` when one is written |
| `dates` | `2025-01-31`, `01/31/2025` (month first), `31.01.2025`, `Jan 31, 2025`, `31 January 2025` | the calendar day, `2025-01-31` |
| `amounts` | a number with a currency sign, code or word (`$1,200.50`, `12,50 EUR`, `30 dollars`) | the number (`1200.5`) |
| `card_numbers` | 13 to 19 digits, in groups or not, that pass the Luhn check | the digits |
| `secrets` | API keys and tokens of well-known shapes (AWS, GitHub, GitLab, Slack, Stripe, Google, OpenAI-style `sk-...`, JSON web tokens) and private key blocks | as written |

`entity_keys(value)` reads a whole value as an entity: the (kind, normal form) pairs a value
such as an argument stands for (`"DE89 3704 0044 0532 0130 00"` is an IBAN and `"$12.50"` an
amount); `text_entities(text)` gives every (kind, normal form) of a text, numbers included, for
matching values against what a source showed (`policyc.grounding.provenance`).

Every function reads at most `MAX_TEXT` characters, keeps at most `MAX_ENTITIES` entities, and
takes time linear in the text: each pattern is scanned once, and a pattern that repeats a class
without bound cannot start inside a run of that class (a look-behind), so no position is
scanned again and again.

>>> urls("See HTTPS://Example.COM:443/a#top, or www.example.org.")
['https://example.com/a', 'https://www.example.org/']
>>> ibans("IBAN: DE89 3704 0044 0532 0130 00 (not DE00 1234 5678 9012 3456 78)")
['DE89370400440532013000']
>>> dates("due Jan 31, 2025 or 2025-02-01"), amounts("pay $1,200.50 or 30 EUR")
(['2025-01-31', '2025-02-01'], [1200.5, 30.0])
>>> phones("call +1 (555) 123-4567"), card_numbers("card 4111 1111 1111 1111, not 4111 1111 1111 1112")
(['+15551234567'], ['4111111111111111'])
"""

from __future__ import annotations

import math
import re
from datetime import date
from typing import Callable, Iterator

from policyc.grounding.code import MAX_ENTITIES, MAX_TEXT

#: An entity a kind finds: a normal form (text), or an amount (a number).
Entity = str | float
#: An entity of a text as its kind and normal form, such as ("iban", "DE89...").
EntityKey = tuple[str, object]
#: A kind's function: a text (or a list of texts) to its entities; None (⊥) for anything else.
Finder = Callable[[object], "list[Entity] | None"]

#: The kinds a rule can name, each by the function of the same name.
KINDS = ("urls", "emails", "ibans", "phones", "dates", "amounts", "card_numbers", "secrets")

# ------------------------------------------------------------------ patterns

_TLDS = ("com|org|net|edu|gov|io|co|ai|app|dev|info|biz|me|xyz|online|site|shop|us|uk|de|fr|es|it|nl|be|ch|at|"
         "se|no|dk|fi|pl|cz|ru|cn|jp|kr|in|br|au|ca|eu|ly|to|tv|cc")
_URL_RE = re.compile(
    r"(?<![\w.@/-])(?:(?:https?://|www\.)[^\s<>\"'`()\[\]{}|\\^]+"
    rf"|[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*\.(?:{_TLDS})"
    r"(?![\w-])(?:[/?][^\s<>\"'`()\[\]{}|\\^]*)?)", re.IGNORECASE)
_EMAIL_RE = re.compile(r"(?<![\w.+-])[\w.+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+")
_IBAN_RE = re.compile(r"(?<![A-Za-z0-9])[A-Z]{2}\d{2}(?: ?[A-Z0-9]){11,30}(?![A-Za-z0-9])")
_CARD_RE = re.compile(r"(?<![\d-])\d(?:[ -]?\d){12,18}(?![\d-])")
_PHONE_RE = re.compile(r"(?<![\w+])(?:\+\d{1,3}[ .-]?)?(?:\(\d{1,4}\)[ .-]?)?\d{2,5}(?:[ .-]\d{2,5}){0,4}(?![\w])")
_MONTH = (r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|Sep(?:t(?:ember)?)?"
          r"|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)\.?")
_DATE_RE = re.compile(
    r"(?<!\d)(?P<iso>\d{4}-\d{2}-\d{2})(?!\d)"
    r"|(?<![\d/])(?P<us>\d{1,2}/\d{1,2}/\d{4})(?![\d/])"
    r"|(?<![\d.])(?P<eu>\d{1,2}\.\d{1,2}\.\d{4})(?![\d.])"
    rf"|\b(?P<mdy>{_MONTH} \d{{1,2}}(?:st|nd|rd|th)?,? \d{{4}})\b"
    rf"|\b(?P<dmy>\d{{1,2}}(?:st|nd|rd|th)? (?:of )?{_MONTH},? \d{{4}})\b", re.IGNORECASE)
_NUM = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:[.,]\d+)?"
_CURRENCY = r"USD|EUR|GBP|CHF|JPY|CAD|AUD|dollars?|euros?|pounds?|francs?|cents?"
_AMOUNT_RE = re.compile(rf"(?:[$€£¥]|\b(?:{_CURRENCY})\b) ?(?P<a>{_NUM})(?!\w)"
                        rf"|(?<![\w.,])(?P<b>{_NUM}) ?(?:[$€£¥]|(?:{_CURRENCY})\b)", re.IGNORECASE)
_NUMBER_RE = re.compile(r"(?<![\w.,])(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?![\w]|[.,]\d)")
_SECRET_RE = re.compile("|".join((
    r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b",                             # AWS access key ids
    r"\bgh[pousr]_[A-Za-z0-9]{36,255}\b", r"\bgithub_pat_[A-Za-z0-9_]{22,255}\b",  # GitHub
    r"\bglpat-[0-9A-Za-z_-]{20,}",                                # GitLab
    r"\bxox[abprs]-[A-Za-z0-9-]{10,}",                            # Slack
    r"\b[sr]k_live_[0-9A-Za-z]{16,}\b",                           # Stripe
    r"\bAIza[0-9A-Za-z_-]{35}",                                   # Google API keys
    r"(?<![\w-])sk-(?:proj-|ant-)?[A-Za-z0-9_-]{20,}",            # OpenAI-style keys
    r"\beyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{10,}",  # JSON web tokens
    r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----",      # private keys
)))

#: Length of an IBAN per country (ISO 13616 registry).
IBAN_LENGTHS = {
    "AD": 24, "AE": 23, "AL": 28, "AT": 20, "AZ": 28, "BA": 20, "BE": 16, "BG": 22, "BH": 22, "BR": 29, "BY": 28,
    "CH": 21, "CR": 22, "CY": 28, "CZ": 24, "DE": 22, "DK": 18, "DO": 28, "EE": 20, "EG": 29, "ES": 24, "FI": 18,
    "FO": 18, "FR": 27, "GB": 22, "GE": 22, "GI": 23, "GL": 18, "GR": 27, "GT": 28, "HR": 21, "HU": 28, "IE": 22,
    "IL": 23, "IQ": 23, "IS": 26, "IT": 27, "JO": 30, "KW": 30, "KZ": 20, "LB": 28, "LC": 32, "LI": 21, "LT": 20,
    "LU": 20, "LV": 21, "MC": 27, "MD": 24, "ME": 22, "MK": 19, "MR": 27, "MT": 31, "MU": 30, "NL": 18, "NO": 15,
    "PK": 24, "PL": 28, "PS": 29, "PT": 25, "QA": 29, "RO": 24, "RS": 22, "SA": 24, "SC": 31, "SE": 24, "SI": 19,
    "SK": 24, "SM": 27, "ST": 25, "SV": 28, "TL": 23, "TN": 24, "TR": 26, "UA": 29, "VA": 22, "VG": 24, "XK": 20,
}
_MONTHS = {m: i + 1 for i, m in enumerate(("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct",
                                           "nov", "dec"))}


# ------------------------------------------------------------------ normal forms


def iban_valid(compact: str) -> bool:
    """The ISO 13616 check: the country's length, and the number mod 97 is 1.

    >>> iban_valid("DE89370400440532013000"), iban_valid("DE89370400440532013001")
    (True, False)
    """
    if len(compact) != IBAN_LENGTHS.get(compact[:2], -1) or not compact.isalnum() or not compact.isascii():
        return False
    rearranged = compact[4:] + compact[:4]
    digits = "".join(str(int(c, 36)) for c in rearranged)
    return int(digits) % 97 == 1


def luhn_valid(digits: str) -> bool:
    """The Luhn check of a card number.

    >>> luhn_valid("4111111111111111"), luhn_valid("4111111111111112")
    (True, False)
    """
    total = 0
    for i, c in enumerate(reversed(digits)):
        d = int(c) * (2 if i % 2 else 1)
        total += d - 9 if d > 9 else d
    return total % 10 == 0


def normal_url(text: str) -> str | None:
    """The normal form of a URL (None when it is not one).

    >>> normal_url("HTTP://Example.com:80"), normal_url("example.com/a/?q=1#x")
    ('http://example.com/', 'https://example.com/a/?q=1')
    """
    text = text.rstrip(".,;:!?")
    m = re.match(r"(?:(?P<scheme>https?)://)?(?P<host>[^/?#:\s]+)(?::(?P<port>\d{1,5}))?(?P<rest>[/?][^#\s]*)?",
                 text, re.IGNORECASE)
    if m is None or "." not in m.group("host"):
        return None
    scheme = (m.group("scheme") or "https").lower()
    port = m.group("port")
    if port is not None and (scheme, port) in (("http", "80"), ("https", "443")):
        port = None
    rest = m.group("rest") or "/"
    if rest.startswith("?"):
        rest = "/" + rest
    return f"{scheme}://{m.group('host').lower()}{':' + port if port else ''}{rest}"


def normal_phone(text: str) -> str | None:
    digits = "".join(c for c in text if c.isdigit())
    if not 7 <= len(digits) <= 15:
        return None
    return ("+" if text.lstrip().startswith("+") else "") + digits


def normal_number(text: str) -> float | None:
    """A written number: `1,200.50` is 1200.5; `12,50` (a comma and two digits) is 12.5."""
    text = text.strip()
    if re.fullmatch(r"\d+,\d{1,2}", text):
        text = text.replace(",", ".")
    else:
        text = text.replace(",", "")
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def _day(y: int, mo: int, d: int) -> str | None:
    try:
        return date(y, mo, d).isoformat()
    except ValueError:
        return None


def normal_date(match: re.Match[str]) -> str | None:
    """The calendar day a match of `_DATE_RE` names, as ISO text."""
    if match.group("iso"):
        y, mo, d = (int(g) for g in match.group("iso").split("-"))
    elif match.group("us"):
        mo, d, y = (int(g) for g in match.group("us").split("/"))
    elif match.group("eu"):
        d, mo, y = (int(g) for g in match.group("eu").split("."))
    else:
        words = re.findall(r"[A-Za-z]+|\d+", match.group("mdy") or match.group("dmy"))
        month = next(w for w in words if w.isalpha() and w[:3].lower() in _MONTHS)
        numbers = [int(w) for w in words if w.isdigit()]
        mo, (d, y) = _MONTHS[month[:3].lower()], numbers  # `Jan 31, 2025` and `31 January 2025` alike
    return _day(y, mo, d)


# ------------------------------------------------------------------ finding entities


def _text(value: object) -> str | None:
    return value[:MAX_TEXT] if isinstance(value, str) else None


def _unique(found: Iterator[Entity | None]) -> list[Entity]:
    out: dict[Entity, None] = {}
    for item in found:
        if item is not None and item not in out:
            out[item] = None
            if len(out) >= MAX_ENTITIES:
                break
    return list(out)


def _finder(scan: Callable[[str], Iterator[Entity | None]]) -> Finder:
    """A kind's function: a text (or a list of texts) to its entities; ⊥ (None) otherwise."""

    def find(value: object) -> list[Entity] | None:
        if isinstance(value, list):
            if not all(isinstance(v, str) for v in value):
                return None
            return _unique(e for v in value for e in scan(v[:MAX_TEXT]))
        text = _text(value)
        return None if text is None else _unique(scan(text))

    return find


def _iban_scan(text: str) -> Iterator[str]:
    for m in _IBAN_RE.finditer(text):
        compact = m.group().replace(" ", "")
        size = IBAN_LENGTHS.get(compact[:2])
        if size is not None and len(compact) >= size and iban_valid(compact[:size]):
            yield compact[:size]


def _card_scan(text: str) -> Iterator[str]:
    for m in _CARD_RE.finditer(text):
        digits = m.group().replace(" ", "").replace("-", "")
        if luhn_valid(digits):
            yield digits


def is_phone(token: str) -> bool:
    """Whether a match of the phone pattern is written as a phone number: with a `+`, or in
    groups, and not as a date or a decimal number."""
    if token.startswith("+"):
        return True
    return not token.isdigit() and not re.fullmatch(r"\d{4}-\d{2}-\d{2}|\d{1,2}\.\d{1,2}\.\d{4}|\d+\.\d+", token)


def _phone_scan(text: str) -> Iterator[str]:
    for m in _PHONE_RE.finditer(text):
        phone = normal_phone(m.group()) if is_phone(m.group()) else None
        if phone is not None:
            yield phone


def _amount_scan(text: str) -> Iterator[float]:
    for m in _AMOUNT_RE.finditer(text):
        value = normal_number(m.group("a") or m.group("b"))
        if value is not None:
            yield value


urls = _finder(lambda text: (normal_url(m.group()) for m in _URL_RE.finditer(text)))
emails = _finder(lambda text: (m.group().lower() for m in _EMAIL_RE.finditer(text)))
ibans = _finder(_iban_scan)
phones = _finder(_phone_scan)
dates = _finder(lambda text: (normal_date(m) for m in _DATE_RE.finditer(text)))
amounts = _finder(_amount_scan)
card_numbers = _finder(_card_scan)
secrets = _finder(lambda text: (m.group() for m in _SECRET_RE.finditer(text)))

#: Each kind's function, by name.
FINDERS: dict[str, Finder] = {
    "urls": urls, "emails": emails, "ibans": ibans, "phones": phones, "dates": dates, "amounts": amounts,
    "card_numbers": card_numbers, "secrets": secrets,
}

#: The kinds that name someone or somewhere a call may reach (what `flows` follows).
ADDRESS_KINDS = ("url", "email", "iban", "phone", "card")


# ------------------------------------------------------------------ values and texts as keys


def number_key(value: float) -> tuple[str, object]:
    """The key of a number: by value, so 12.5, 12.50 and "$12.50" are one."""
    return ("number", int(value) if float(value).is_integer() else float(value))


def entity_keys(value: object) -> list[tuple[str, object]]:
    """What a whole value is as an entity: its (kind, normal form) keys, none for text that is
    not one entity (a number is a number; a text may be a URL, an e-mail address, an IBAN, a
    phone number, a date, an amount or a card number).

    >>> entity_keys("DE89 3704 0044 0532 0130 00"), entity_keys(" $12.50 "), entity_keys("Jan 31, 2025")
    ([('iban', 'DE89370400440532013000')], [('number', 12.5)], [('date', '2025-01-31')])
    >>> entity_keys("pay the bill"), entity_keys(7)
    ([], [('number', 7)])
    """
    if isinstance(value, bool) or value is None:
        return []
    if isinstance(value, (int, float)):
        return [number_key(value)] if math.isfinite(value) else []
    if not isinstance(value, str) or len(value) > 2000:
        return []
    text = value.strip()
    out: list[tuple[str, object]] = []
    compact = text.replace(" ", "").upper()
    if iban_valid(compact):
        out.append(("iban", compact))
    if _EMAIL_RE.fullmatch(text):
        out.append(("email", text.lower()))
    if _URL_RE.fullmatch(text):
        url = normal_url(text)
        if url is not None:
            out.append(("url", url))
    m = _DATE_RE.fullmatch(text) or re.fullmatch(r"(?P<iso>\d{4}-\d{2}-\d{2})[T ]\d{2}:\d{2}(?::\d{2})?\S*", text)
    if m is not None:
        day = normal_date(m)
        if day is not None:
            out.append(("date", day))
    digits = text.replace(" ", "").replace("-", "")
    if digits.isdigit() and 13 <= len(digits) <= 19 and luhn_valid(digits):
        out.append(("card", digits))
    amount = _AMOUNT_RE.fullmatch(text)
    number = normal_number(text) if re.fullmatch(_NUM, text) else None
    if amount is not None:
        number = normal_number(amount.group("a") or amount.group("b"))
    if number is not None:
        out.append(number_key(number))
    if not out and _PHONE_RE.fullmatch(text) and is_phone(text):
        phone = normal_phone(text)
        if phone is not None:
            out.append(("phone", phone))
    return out


def text_entities(text: str) -> set[EntityKey]:
    """Every (kind, normal form) a text shows: its URLs, e-mail addresses, IBANs, phone
    numbers, dates, card numbers, and its amounts and other numbers (as `number`), a number
    inside another entity (an IBAN's digits, a date's year) not counted on its own.

    >>> sorted(text_entities("Pay 120.50 EUR to DE89 3704 0044 0532 0130 00 by 2025-01-31"))
    [('date', '2025-01-31'), ('iban', 'DE89370400440532013000'), ('number', 120.5)]
    """
    text = text[:MAX_TEXT]
    taken = bytearray(len(text) + 1)
    out: set[tuple[str, object]] = set()

    def mark(m: re.Match[str]) -> bool:
        start, end = m.span()
        if taken[start] or taken[end - 1]:
            return False
        taken[start:end] = b"\x01" * (end - start)
        return True

    for m in _URL_RE.finditer(text):
        url = normal_url(m.group())
        if url is not None and mark(m):
            out.add(("url", url))
    for m in _EMAIL_RE.finditer(text):
        if mark(m):
            out.add(("email", m.group().lower()))
    for m in _IBAN_RE.finditer(text):
        iban = next(_iban_scan(m.group()), None)
        if iban is not None and mark(m):
            out.add(("iban", iban))
    for m in _DATE_RE.finditer(text):
        day = normal_date(m)
        if day is not None and mark(m):
            out.add(("date", day))
    for m in _CARD_RE.finditer(text):
        digits = m.group().replace(" ", "").replace("-", "")
        if luhn_valid(digits) and mark(m):
            out.add(("card", digits))
    for m in _AMOUNT_RE.finditer(text):
        value = normal_number(m.group("a") or m.group("b"))
        if value is not None and mark(m):
            out.add(number_key(value))
    for m in _PHONE_RE.finditer(text):
        phone = normal_phone(m.group()) if is_phone(m.group()) else None
        if phone is not None and mark(m):
            out.add(("phone", phone))
    for m in _NUMBER_RE.finditer(text):
        value = normal_number(m.group())
        if value is not None and not taken[m.start()]:
            out.add(number_key(value))
        if len(out) >= MAX_ENTITIES:
            break
    return out
