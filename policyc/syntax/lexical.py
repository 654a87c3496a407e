"""Names and string literals: how they are written and read back.

A name is a plain identifier (`read_file`) or any text in backticks (`` `get-weather` ``),
so tools whose names are not identifiers, or are reserved words, can still be declared and
used. String literals use JSON's escapes. The formatter writes names and strings with
`show_name` and `show_string`; the parser reads them with `read_name` and `read_string`.

>>> show_name("read_file"), show_name("get-weather"), show_name("exists"), show_label("procedure")
('read_file', '`get-weather`', '`exists`', 'procedure')
>>> read_name("`get-weather`")
'get-weather'
>>> read_name("`cafe\u0301`") == read_name("`caf\u00e9`") == "caf\u00e9"   # one name, however composed
True
>>> read_string('"tab\\\\there \\\\u00e9"')
('tab\\there é', None)
"""

from __future__ import annotations

import re
import unicodedata

PLAIN_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")

#: Words with a meaning of their own somewhere in the grammar. The parser still reads most
#: of them as names where no keyword could stand, but a name that is one of these is always
#: written in backticks by the formatter, so its meaning never depends on where it stands.
RESERVED = frozenset("""
    policy import rename type enum layer terminal tool predicate extern from def procedure use as
    rule weight severity message budget conformance undecided for observe grounding trusted untrusted only claims by
    forall exists in if then else when shall not and or implies iff true false null
    X WX F G U W R S Y Z O H
    next wnext weak eventually always until unless release releases
    yesterday wyesterday once historically since
""".split())

_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
_ESCAPE = re.compile(r"\\(u[0-9a-fA-F]{4}|.)", re.S)


def is_plain_name(name: str) -> bool:
    return PLAIN_NAME.match(name) is not None and name not in RESERVED


def show_name(name: str) -> str:
    """A name that may appear in a formula (a tool, argument, variable or predicate) as source
    text: bare when it is a plain, unreserved identifier, else in backticks."""
    return name if is_plain_name(name) else f"`{name}`"


def show_label(name: str) -> str:
    """A name that only follows a keyword (a rule, layer, type, field or severity): bare when
    it is identifier-shaped, else in backticks (`trusted` and `untrusted` too: a type of that
    name would read as the trust of a field)."""
    return name if PLAIN_NAME.match(name) and name not in ("trusted", "untrusted") else f"`{name}`"


def read_name(token: str) -> str:
    """The name a NAME token stands for (backticks removed), in Unicode normal form C: a
    name typed with a precomposed `é` and one with `e` and a combining accent are one name."""
    name = token[1:-1] if token.startswith("`") else token
    return name if name.isascii() else unicodedata.normalize("NFC", name)


#: characters that show nothing although `str.isprintable` says they print (default-ignorable
#: code points: the combining grapheme joiner, Hangul fillers, variation selectors)
#: and symbols drawn blank (the braille blank, the musical null notehead)
_IGNORABLE = frozenset(map(chr, (0x034F, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x3164, 0xFFA0, 0x2800, 0x1D159,
                                 *range(0x180B, 0x1810), *range(0xFE00, 0xFE10), *range(0xE0100, 0xE01F0))))


def hidden_character(name: str) -> int | None:
    """Where a name holds a character one cannot see (a zero-width space or joiner, a
    bidirectional control, a control character (a bell, an escape, a tab), a space other than
    the plain one, a variation selector, a filler), or None. Two names that look the same are
    two names when they differ there, so a policy may not hold one.

    >>> hidden_character("delete"), hidden_character("dele\u200bte"), hidden_character("get weather")
    (None, 4, None)
    >>> hidden_character("dele\ate"), hidden_character("dele\u0085te"), hidden_character("\u2800delete")
    (4, 4, 0)
    """
    if name.isascii() and name.isprintable():
        return None
    return next((i for i, ch in enumerate(name) if _is_hidden(ch)), None)


def _is_hidden(ch: str) -> bool:
    kind = unicodedata.category(ch)
    return kind in ("Cf", "Cc") or kind in ("Zs", "Zl", "Zp") and ch != " " or ch in _IGNORABLE


def show_string(text: str) -> str:
    r"""A string literal that reads back as `text` (JSON escapes; printable text kept as is).
    What prints as nothing or moves the text around it (controls, bidi overrides, zero-width
    and other format characters, separators but the space) is escaped: a formatted policy
    shows every character it holds.

    >>> print(show_string("pay\u202eyap"), show_string("caf\u00e9 \u00a0\U000e0001"))
    "pay\u202eyap" "café \u00a0\udb40\udc01"
    """
    out = ['"']
    for ch in text:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif ch == "\r":
            out.append("\\r")
        elif not ch.isprintable():  # controls, format characters, separators, surrogates
            code = ord(ch)
            if code > 0xFFFF:  # as JSON writes it: a surrogate pair
                code -= 0x10000
                out.append(f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}")
            else:
                out.append(f"\\u{code:04x}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def read_string(token: str) -> tuple[str, tuple[int, int, str] | None]:
    """The text of a string literal token, and the first problem in it, if any:
    (offset within the token, length, description)."""
    body = token[1:-1]
    problem: tuple[int, int, str] | None = None
    pieces: list[str] = []
    pos = 0
    for m in _ESCAPE.finditer(body):
        pieces.append(body[pos : m.start()])
        pos = m.end()
        code = m.group(1)
        if code.startswith("u") and len(code) == 5:
            pieces.append(chr(int(code[1:], 16)))
        elif code in _ESCAPES:
            pieces.append(_ESCAPES[code])
        else:
            pieces.append(code)
            if problem is None:
                what = "`\\u` needs four hex digits" if code == "u" else f"`\\{code}` is not an escape"
                problem = (m.start() + 1, len(m.group(0)), what)
    pieces.append(body[pos:])
    text = _join_surrogates("".join(pieces))
    if problem is None:
        lone = next((i for i, ch in enumerate(text) if 0xD800 <= ord(ch) <= 0xDFFF), None)
        if lone is not None:
            problem = (1, len(body), "it contains half of a UTF-16 surrogate pair (`\\ud800`-`\\udfff`)")
    return text, problem


def _join_surrogates(text: str) -> str:
    if not any(0xD800 <= ord(ch) <= 0xDFFF for ch in text):
        return text
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "surrogatepass")
