"""The sources a run was shown, indexed as they arrive: provenance questions in time that
follows the question, not the run.

`policyc.grounding.provenance` defines which sources show a value by scanning every leaf. A
gate asks at every call, so `SourceIndex` keeps, as each source is added:

- per entity key (a number by value, an IBAN, a URL, ... in normal form) the leaves that show it;
- per word the leaves that have it, and each leaf's words as one text, so that a run of words
  is looked up in the leaves having its rarest word and confirmed by substring search;
- for the span lengths a policy's `flows` rules use, per run of that many words the leaves
  that have it.

Leaves are numbered in the order they arrive, with the first position of the run's view at
which each is known, so a question "as of position i" reads a prefix of every list. Leaves
known from the start that arrive late (the request, which a run may be given after some calls)
are kept apart in `fixed` and read directly. The index holds at most `MAX_INDEXED` characters
and `MAX_INDEXED_WORDS` words of text; past that it says so (`complete` is false) and its
owner answers from the definition instead.

>>> index = SourceIndex(spans=(3,))
>>> index.add("pay my rent", ("request", "", ()), 0)
>>> index.add("Pay DE89 3704 0044 0532 0130 00 to the landlord today", ("tool", "read_email", ("body",)), 1)
>>> sorted(index.labels("DE89370400440532013000", 5)), index.labels("DE89370400440532013000", 0)
([('tool', 'read_email', ('body',))], set())
>>> index.flows((("default", "", (), True),), "as agreed: to the landlord", 3, 5)
True
"""

from __future__ import annotations

from bisect import bisect_right
from typing import Iterable

from policyc.grounding.code import MAX_TEXT
from policyc.grounding.kinds import ADDRESS_KINDS, EntityKey, text_entities
from policyc.grounding.provenance import (
    MAX_SPAN_WORDS, Label, Leaf, SourceSet, comes_from, leaves_of, spaced, texts_of, value_query, words,
)

#: Characters of text, and words, an index keeps over a whole run (a word costs about one
#: entry per span length the policy's `flows` rules use).
MAX_INDEXED = 16_000_000
MAX_INDEXED_WORDS = 1_000_000


class SourceIndex:
    """The leaves of a run's sources, indexed for `labels` and `flows` (module docstring)."""

    def __init__(self, spans: Iterable[int] = ()):
        self.spans = tuple(sorted({s for s in spans if 1 <= s <= MAX_SPAN_WORDS}))
        self.complete = True
        self.characters = 0
        self.word_count = 0
        self.fixed: list[Leaf] = []             # leaves known from the start, read directly
        self._labels: list[Label] = []          # per leaf
        self._visible: list[int] = []           # per leaf, nondecreasing
        self._texts: list[str] = []             # per leaf: its words as one text ("" for a number)
        self._keys: dict[EntityKey, list[int]] = {}
        self._words: dict[str, list[int]] = {}
        self._runs: dict[int, dict[str, list[int]]] = {span: {} for span in self.spans}

    def add(self, content: object, label: Label, visible_from: int) -> None:
        """Add a source's content: its leaves, known from `visible_from` on (sources arrive in
        the order they became known: `visible_from` never decreases)."""
        if self._visible and visible_from < self._visible[-1]:
            raise ValueError(f"a source known from position {visible_from} added after one known from "
                             f"{self._visible[-1]}")
        for leaf in leaves_of(content, label, visible_from):
            if not self.complete:
                return
            value = leaf.value
            if isinstance(value, str):
                self.characters += min(len(value), MAX_TEXT)
                if self.characters > MAX_INDEXED:
                    self.complete = False
                    return
            k = len(self._labels)
            self._labels.append(leaf.label)
            self._visible.append(visible_from)
            for key in leaf.keys:
                self._keys.setdefault(key, []).append(k)
            if not isinstance(value, str):
                self._texts.append("")
                continue
            found = leaf.words
            self.word_count += len(found)
            if self.word_count > MAX_INDEXED_WORDS:
                self.complete = False
                return
            self._texts.append(leaf.text)
            for word in dict.fromkeys(found):
                self._words.setdefault(word, []).append(k)
            for span, table in self._runs.items():
                runs = dict.fromkeys(" ".join(found[i:i + span]) for i in range(len(found) - span + 1))
                for run in runs:
                    table.setdefault(run, []).append(k)

    def _limit(self, as_of: int) -> int:
        """The number of leaves known at position `as_of`."""
        return bisect_right(self._visible, as_of)

    def _run_labels(self, run: str, limit: int, found: set[Label]) -> set[Label]:
        """Labels of the leaves (among the first `limit`) having the words of `run` in order."""
        postings = []
        for word in run.split():
            hits = self._words.get(word)
            if hits is None:
                return found
            postings.append(hits)
        out = set(found)
        for k in min(postings, key=len):
            if k >= limit:
                break
            if self._labels[k] not in out and run in self._texts[k]:
                out.add(self._labels[k])
        return out

    def labels(self, value: object, as_of: int) -> set[Label] | None:
        """The labels of the leaves known at `as_of` that show the value (None: a value that
        has no provenance, neither a string nor a number)."""
        query = value_query(value)
        if query is None:
            return None
        keys, run = query
        limit = self._limit(as_of)
        found: set[Label] = {leaf.label for leaf in self.fixed
                             if any(leaf.shows(k) for k in keys) or run is not None and leaf.has_words(run)}
        for key in keys:
            for k in self._keys.get(key, ()):
                if k >= limit:
                    break
                found.add(self._labels[k])
        return found if run is None else self._run_labels(run, limit, found)

    def flows(self, sources: SourceSet, text: object, span: int, as_of: int) -> bool:
        """`provenance.flows`, over the leaves known at `as_of`."""
        texts = texts_of(text)
        if texts is None:
            return False
        limit = self._limit(as_of)
        table = self._runs.get(span)
        for item in texts:
            for key in text_entities(item):
                if key[0] in ADDRESS_KINDS:
                    found = {self._labels[k] for k in self._keys.get(key, ()) if k < limit}
                    found.update(leaf.label for leaf in self.fixed if leaf.shows(key))
                    if comes_from(found, sources, True):
                        return True
            found_words = words(item)
            for start in range(len(found_words) - span + 1):
                window = found_words[start:start + span]
                run = spaced(window)
                if table is not None:
                    labels = {self._labels[k] for k in table.get(" ".join(window), ()) if k < limit}
                else:
                    labels = self._run_labels(run, limit, set())
                labels.update(leaf.label for leaf in self.fixed if leaf.has_words(run))
                if comes_from(labels, sources, True):
                    return True
        return False
