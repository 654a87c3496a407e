"""Provenance by value: which sources a run had seen showed a value, and where content flows.

A *source* is what a run was shown from outside the agent: the user's request, each message of
the user, and each tool result, read leaf by leaf. A leaf is a string or a number somewhere in
a result (an object's keys count as strings), labelled by the tool and its *field path*: the
names of the fields leading to it, list positions left out (`get_email.result.body` is the
body of every mail the call returned). The request is labelled `request`, a user's message
`user`.

A value *occurs in* a leaf when

- it is the same entity: a number equal by value to the leaf's number, or to an amount or
  number written in its text; a text that is, as a whole, one URL, e-mail address, IBAN,
  phone number, date, amount or card number (`policyc.grounding.kinds`), and that the leaf's
  text also shows, in the same normal form;
- or, for a text, its words occur in the leaf's words, in order and next to one another: words
  are runs of letters and digits (joined by `. @ + / : _ -` inside one word; an apostrophe
  ends one), compared in lower case, so case, white space and the punctuation around words do
  not count.

`labels(value, leaves)` is the set of labels of the leaves a value occurs in; that is all a
rule's `from` reads. A set of sources (`SourceSet`, what `from trusted`, `from request` or
`from get_contacts` names) is a tuple of rules `(selector, tool, path, included)`:
`("request", "", (), True)`, `("user", ...)`, `("tool", name, path, b)` (the longest path that
starts a leaf's path decides) and `("default", "", (), b)` for the tool leaves no rule names.

`flows(sources, text, words, leaves)`: something of the text came only from those sources:
an address it names (a URL, e-mail address, IBAN, phone or card number) that occurs only in
leaves of the set, or a run of `words` consecutive words of it that occurs only in leaves of
the set.

This module is the definition, read directly (each question scans the leaves);
`policyc.grounding.sources.SourceIndex` answers the same questions from an index built as
results arrive, and tests check the two agree.

>>> leaves = [Leaf(("tool", "read_email", ("body",)), 1, "Pay DE89 3704 0044 0532 0130 00 now, Bob"),
...           Leaf(("request", "", ()), 0, "please pay my bill")]
>>> sorted(labels("DE89370400440532013000", leaves)), labels("pay", leaves) == {l.label for l in leaves}
([('tool', 'read_email', ('body',))], True)
>>> untrusted = (("default", "", (), True),)
>>> flows(untrusted, "Sending to DE89370400440532013000 as asked", 8, leaves)
True
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Iterator

from policyc.grounding.code import MAX_TEXT
from policyc.grounding.kinds import ADDRESS_KINDS, EntityKey, entity_keys, text_entities

#: (kind, tool, field path): `("request", "", ())`, `("user", "", ())`, `("tool", name, path)`.
Label = tuple[str, str, tuple[str, ...]]
#: ((selector, tool, path, included), ...): a set of sources (see the module docstring).
SourceSet = tuple[tuple[str, str, tuple[str, ...], bool], ...]

REQUEST: Label = ("request", "", ())
USER: Label = ("user", "", ())

_WORD_RE = re.compile(r"\w+(?:[.@+/:_-]\w+)*")
#: Words a verbatim span must have at least, and at most (a bound on what an index keeps).
MIN_SPAN_WORDS, MAX_SPAN_WORDS = 2, 64


def words(text: str) -> list[str]:
    """The words of a text, in lower case.

    >>> words("Send it to Alice-Marie, at ALICE@example.com!")
    ['send', 'it', 'to', 'alice-marie', 'at', 'alice@example.com']
    """
    return _WORD_RE.findall(text[:MAX_TEXT].casefold())


def spaced(tokens: list[str] | tuple[str, ...]) -> str:
    """Words joined as a text in which a run of words is found by substring search."""
    return " " + " ".join(tokens) + " "


def _text_reading(value: str) -> tuple[frozenset[EntityKey], tuple[str, ...], str]:
    """What a leaf's text shows: its entities, its words, and its words as `spaced` writes them."""
    found = tuple(words(value))
    return frozenset(text_entities(value)), found, spaced(found) if found else ""


#: Texts up to this long have their reading kept (`text_reading`): the names, ids, statuses and
#: versions that results repeat in every run; longer texts are read each time.
KEPT_TEXT = 256
#: `_text_reading`, kept for the most recent texts: a function of the text alone, so a kept
#: reading is the one a fresh read gives, whatever was read before.
text_reading = lru_cache(maxsize=8192)(_text_reading)


@dataclass(frozen=True)
class Leaf:
    """One string or number a source showed, with its label and the first position of the
    run's view at which it was known (a result is known after its call)."""

    label: Label
    visible_from: int
    value: object
    keys: frozenset[EntityKey] = field(default=frozenset(), compare=False, repr=False)  # its entities (kind, normal form)
    words: tuple[str, ...] = field(default=(), compare=False, repr=False)  # its words, for a text
    text: str = field(default="", compare=False, repr=False)  # its words as `spaced` writes them

    def __post_init__(self) -> None:
        value = self.value
        if isinstance(value, str):
            keys, found, text = text_reading(value) if len(value) <= KEPT_TEXT else _text_reading(value)
            object.__setattr__(self, "keys", keys)
            object.__setattr__(self, "words", found)
            object.__setattr__(self, "text", text)
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            object.__setattr__(self, "keys", frozenset(entity_keys(value)))

    def shows(self, key: tuple[str, object]) -> bool:
        return key in self.keys

    def has_words(self, run: str) -> bool:
        """Whether a run of words (as `spaced` writes it) occurs in the leaf's words."""
        return run in self.text


def leaves_of(content: object, label: Label, visible_from: int) -> Iterator[Leaf]:
    """The leaves of a source's content: strings and finite numbers, with their field paths.

    >>> [(l.label[2], l.value) for l in leaves_of({"rows": [{"to": "Ann", "n": 2}], "ok": True}, ("tool", "t", ()), 1)]
    [((), 'rows'), (('rows',), 'to'), (('rows', 'to'), 'Ann'), (('rows',), 'n'), (('rows', 'n'), 2), ((), 'ok')]
    """
    kind, tool, base = label
    stack: list[tuple[tuple[str, ...], object]] = [(base, content)]
    while stack:
        path, value = stack.pop()
        if isinstance(value, dict):
            for key in reversed(list(value)):
                stack.append((path + (key,) if isinstance(key, str) else path, value[key]))
                if isinstance(key, str):
                    stack.append((path, key))  # a key is text the object showed
        elif isinstance(value, list):
            stack.extend((path, item) for item in reversed(value))
        elif isinstance(value, str) or isinstance(value, (int, float)) and not isinstance(value, bool) \
                and math.isfinite(value):
            yield Leaf((kind, tool, path), visible_from, value)


def value_query(value: object) -> tuple[list[tuple[str, object]], str | None] | None:
    """What a value is matched by: its entity keys, and its words as a run (None for a value
    that has no provenance: not a string or a number)."""
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        return None
    keys = entity_keys(value)
    if isinstance(value, str):
        found = words(value)
        return keys, spaced(found) if found else None
    return keys, None


def occurs(value: object, leaf: Leaf) -> bool:
    """Whether a value occurs in a leaf (see the module docstring)."""
    query = value_query(value)
    return query is not None and _shown(query, leaf)


def _shown(query: tuple[list[tuple[str, object]], str | None], leaf: Leaf) -> bool:
    keys, run = query
    return any(k in leaf.keys for k in keys) or run is not None and run in leaf.text


def labels(value: object, leaves: list[Leaf]) -> set[Label]:
    """The labels of the leaves a value occurs in (the value read once, not once per leaf)."""
    query = value_query(value)
    if query is None:
        return set()
    keys, run = query
    if run is None:  # `_shown`, written out: each leaf is asked by two look-ups in C
        return {leaf.label for leaf in leaves if not leaf.keys.isdisjoint(keys)}
    return {leaf.label for leaf in leaves if run in leaf.text or not leaf.keys.isdisjoint(keys)}


def in_sources(sources: SourceSet, label: Label) -> bool:
    """Whether a leaf of this label belongs to the set of sources.

    >>> trusted = (("request", "", (), True), ("tool", "bank", (), True), ("tool", "bank", ("memo",), False))
    >>> [in_sources(trusted, l) for l in (REQUEST, ("tool", "bank", ("iban",)), ("tool", "bank", ("memo",)), USER)]
    [True, True, False, False]
    """
    kind, tool, path = label
    if kind != "tool":
        return any(s == kind and included for s, _, _, included in sources)
    longest, decided = -1, False
    for selector, name, prefix, included in sources:
        if selector == "tool" and name == tool and path[:len(prefix)] == prefix and len(prefix) > longest:
            longest, decided = len(prefix), included
    if longest < 0:
        return any(s == "default" and included for s, _, _, included in sources)
    return decided


def comes_from(found: set[Label], sources: SourceSet, only: bool) -> bool:
    """`from`: some leaf showing the value is in the set; `only from`: some leaf shows it and
    every one is."""
    if not found:
        return False
    inside = [in_sources(sources, label) for label in found]
    return all(inside) if only else any(inside)


def texts_of(value: object) -> list[str] | None:
    """A text, or a list of texts, as a list of texts; None for any other value."""
    given = value if isinstance(value, list) else [value]
    texts = [t for t in given if isinstance(t, str)]
    return texts if len(texts) == len(given) else None


def flows(sources: SourceSet, text: object, span: int, leaves: list[Leaf]) -> bool:
    """Whether an address the text names, or a run of `span` consecutive words of it, occurs
    in leaves of the set and in no leaf outside it (a text or a list of texts)."""
    texts = texts_of(text)
    if texts is None:
        return False
    for item in texts:
        for key in text_entities(item):
            if key[0] in ADDRESS_KINDS and comes_from({l.label for l in leaves if l.shows(key)}, sources, True):
                return True
        found = words(item)
        for start in range(len(found) - span + 1):
            run = spaced(found[start:start + span])
            if comes_from({l.label for l in leaves if l.has_words(run)}, sources, True):
                return True
    return False


__all__ = ["Label", "Leaf", "MAX_SPAN_WORDS", "MIN_SPAN_WORDS", "REQUEST", "SourceSet", "USER", "comes_from",
           "flows", "in_sources", "labels", "leaves_of", "occurs", "spaced", "value_query", "words"]
