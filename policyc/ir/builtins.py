"""The language's builtin names: its functions, the names with a meaning of their own, and
what its prelude defines, which no tool of a policy may be named.

They live beside the IR, and read the prelude without the parser, because tool schemas are
read where the parser is not loaded (the gateway compares a server's tools with a policy's).

>>> tool_name_reserved("search"), tool_name_reserved("result"), tool_name_reserved("called")
(False, True, True)
"""

from __future__ import annotations

import re
from functools import cache

from policyc.resources import stdlib_dir

#: The builtin functions, by name -> a line of help (the checker's, the language server's).
BUILTINS = {
    "len": "len(x): the length of a list, object or string",
    "abs": "abs(x): the absolute value of a number",
    "min": "min(a, b): the smaller of two numbers or strings",
    "max": "max(a, b): the larger of two numbers or strings",
    "contains": "contains(s, part): `part` occurs in the string `s`",
    "startswith": "startswith(s, prefix)",
    "endswith": "endswith(s, suffix)",
    "lower": "lower(s): `s` in lower case",
    "upper": "upper(s): `s` in upper case",
    "strip": "strip(s): `s` without leading and trailing white space",
    "entities": "entities(text): the identifiers, file paths and numbers in a text (appendix H.3)",
    "outputs": "outputs(tool, ...): what the results of these tools showed, for grounding",
    "actions": "actions(text): the tools whose action a text claims as done (by the `claims` declarations)",
}
#: Builtins a declared tool of the same name hides (they came after tools could take their names).
TEXT_FUNCTIONS = {
    "urls": "urls(text): the URLs in a text, in normal form",
    "emails": "emails(text): the e-mail addresses in a text, in lower case",
    "ibans": "ibans(text): the IBANs in a text whose checksum holds, without spaces",
    "phones": "phones(text): the phone numbers in a text, as their digits (and a leading +)",
    "dates": "dates(text): the dates in a text, as ISO days (2025-01-31)",
    "amounts": "amounts(text): the amounts of money in a text, as numbers",
    "card_numbers": "card_numbers(text): the card numbers in a text that pass the Luhn check",
    "secrets": "secrets(text): API keys, tokens and private keys in a text",
    "matches": 'matches(text, "pattern"): the whole text matches the regular expression (RE2)',
    "present": "present(x): x is given, and not null",
    "absent": "absent(x): x is left out, or null",
    "flows": "flows(S, text, n): something the sources S showed (an address, or a run of n words) reaches the text",
}
#: Builtins no declared tool may take the name of.
RESERVED_FUNCTIONS = tuple(BUILTINS)
#: Names with a meaning of their own in a policy.
SPECIAL_NAMES = ("outputs", "metrics", "result", "message")


#: a definition at the start of a line of the prelude: `def name(`, `predicate name(`, `extern ...`
_DEFINED = re.compile(r"^(?:def|predicate|extern\s+predicate|extern)\s+(\w+)", re.M)


@cache
def prelude_definitions() -> frozenset[str]:
    """The predicates and macros every policy imports (`called`, `before`, ...), read off the
    prelude's text (a test holds them to what the parser reads)."""
    return frozenset(_DEFINED.findall((stdlib_dir() / "prelude.altl").read_text(encoding="utf-8")))


def tool_name_reserved(name: str) -> bool:
    """Whether no policy can declare a tool of this name: a builtin, a name with a meaning of its
    own (`result`, `message`, ...), or a predicate every policy imports (`called`, `before`)."""
    return name in RESERVED_FUNCTIONS or name in SPECIAL_NAMES or name in prelude_definitions()
