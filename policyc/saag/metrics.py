"""SAAG's eight intrinsic metrics, each as its paper defines it (§2.1–2.3), with RapidFuzz.

Stage 1, registry conformance:

- FNEM (eq. 1): −1 when no name was predicted, 0 when the name is not registered, 1 when it is;
- NCS (eq. 2): max over the registered names sharing a character trigram with the prediction
  of 0.6·WRatio/100 + 0.4·Jaccard (whitespace tokens, lowercased).

Stage 2, structural completeness, over the predicted parameter names P:

- RPR (eq. 3): |A_req ∩ P| / |A_req|;
- PDS (eq. 4): for p ∉ A_all, max over a ∈ A_all of WRatio(p, a)/100; p is *drifted* when
  PDS ≥ 0.8 and its nearest match is not itself predicted, *spurious* otherwise;
- SPR (eq. 5): |{p ∈ P ∖ A_all : PDS(p) < 0.8}| / |P|.

Stage 3, argument grounding, of the values v_i against the query Q:

- AVEM (eq. 6): the share of values that ExactMatch Q: a string case-insensitively at word
  boundaries, a number as a numeric token of Q, a list when every element does;
- QSLO (eq. 7): the mean PartialRatio/100 of the string values that do not match exactly
  (PartialRatio, like ExactMatch, ignoring case);
- VHR_ctx (eq. 8–9): Σ h(v_i, Q) over the contextual values, where h is 0 for an exact match,
  1 − PartialRatio/100 for a string, 1 for a number when Q has numbers, and the value is
  excluded (assumed) otherwise.

Conventions where the paper is silent, chosen so that each metric stays in its range: an
empty denominator gives RPR 1, SPR 0 and AVEM 1 (nothing to miss, invent or ground) and
QSLO `None` (undefined); a name shorter than three characters is its own only trigram;
booleans, nulls and objects are neither strings nor numbers (never an exact match, always
excluded from VHR_ctx); a list's h is the largest h of its elements that are not excluded.
PartialRatio of two strings both longer than `MAX_ALIGNED` characters costs about the cube of
their length, so for them it is `pair_coverage`, the share of the value's pairs of
neighbouring words that the query holds.

>>> registry = ["search", "read_file"]
>>> fnem(None, registry), fnem("serch", registry), fnem("search", registry)
(-1, 0, 1)
>>> nearest_candidate("serch", registry)
('search', 0.5454545454545454)
>>> rpr({"query"}, ["limit"]), spr(["query", "qeury", "colour"], {"query", "color"})
(0.0, 0.0)
>>> q = "Find 3 hotels in New York for 2 adults"
>>> exact_match("new york", q), exact_match(3, q), exact_match(4, q), exact_match("York Hotels", q)
(True, True, False, False)
>>> vhr_ctx([3, "New York", "Manhattan"], q) == hallucination("Manhattan", q)
True
"""

from __future__ import annotations

import math
import re
from typing import Any, Collection, Container, Iterable, Mapping

from rapidfuzz import fuzz

#: γ_pds: a parameter this close to a schema name is a misspelling (drifted), not an invention.
DRIFT_THRESHOLD = 0.8
#: Below this PartialRatio/100 an ungrounded string is a hard drift (ψ3 stratification).
HARD_DRIFT_THRESHOLD = 0.6
NCS_WRATIO_WEIGHT, NCS_JACCARD_WEIGHT = 0.6, 0.4
#: PartialRatio aligns the shorter string within the longer one; when both are longer than
#: this many characters the alignment costs about the cube of their length (a third of a
#: second at 2,000 characters each, eight seconds at 6,000), so such a pair is compared by
#: `pair_coverage` instead, in one pass over each.
MAX_ALIGNED = 512

#: A numeric token: an optional sign, digits (with thousands separators) and decimals, an exponent.
#: (The look-ahead at a token's first character changes nothing it matches; it lets the regex
#: engine pass over the text between numbers at the speed of a character-set test.)
NUMBER_TOKEN = re.compile(r"(?=[-+.\d])(?<![\d.])([-+]?)(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)(?:[eE][-+]?\d+)?")


# ------------------------------------------------------------------ stage 1: registry conformance


def fnem(name: str | None, registry: Collection[str]) -> int:
    """Function Name Exact Match (eq. 1): −1 no name (a parse failure), 0 unregistered, 1 registered.

    >>> fnem("", ["a"]), fnem("A", ["a"]), fnem("a", ["a"])
    (-1, 0, 1)
    """
    if name is None or not str(name).strip():
        return -1
    return 1 if name in registry else 0


def trigrams(text: str) -> frozenset[str]:
    """The character trigrams of a lowercased name (a shorter name is its own only trigram).

    >>> sorted(trigrams("Serch"))
    ['erc', 'rch', 'ser']
    """
    low = text.lower()
    if len(low) < 3:
        return frozenset((low,)) if low else frozenset()
    return frozenset(low[i:i + 3] for i in range(len(low) - 2))


def candidates(name: str, registry: Iterable[str]) -> tuple[str, ...]:
    """𝒞: the registered names sharing at least one trigram with `name`, in registry order.

    >>> candidates("serch", ["search", "read_file", "list_dir"])
    ('search',)
    """
    own = trigrams(name)
    return tuple(c for c in registry if own & trigrams(c))


def jaccard(a: str, b: str) -> float:
    """Jaccard similarity of the whitespace tokens of two lowercased strings (0 when both are empty).

    >>> jaccard("Get Weather", "get current weather")
    0.6666666666666666
    """
    ta, tb = set(a.lower().split()), set(b.lower().split())
    union = ta | tb
    return len(ta & tb) / len(union) if union else 0.0


def wratio(a: str, b: str) -> float:
    """RapidFuzz's WRatio, normalised to [0, 1]."""
    return fuzz.WRatio(a, b) / 100.0


def partial_ratio(value: str, query: str, lowered: str | None = None) -> float:
    """RapidFuzz's PartialRatio (best contiguous alignment of `value` in `query`), in [0, 1],
    ignoring case as ExactMatch does: a value that differs from the query only in case is as
    grounded for one as for the other (`lowered`: `query.lower()`, when the caller keeps it).

    >>> partial_ratio("PARIS", "weather in paris"), partial_ratio("Pariss", "weather in Paris") > 0.8
    (1.0, True)
    """
    lowered = query.lower() if lowered is None else lowered
    if len(value) > MAX_ALIGNED and len(lowered) > MAX_ALIGNED:
        return pair_coverage(value.lower(), lowered)
    return fuzz.partial_ratio(value.lower(), lowered) / 100.0


_WORD = re.compile(r"\w+")


def pair_coverage(value: str, query: str) -> float:
    """The share of the value's distinct pairs of neighbouring words that the query holds, as
    neighbours too: PartialRatio's question (is the value written out in the query?) for two
    long strings, in time linear in their length. Text copied from the query covers all its
    pairs; text written afresh shares few pairs with it, even where it shares common words. A
    value of fewer than two words (one long token) covers 1 when the query holds it whole, else 0.

    >>> q = "the quarterly report says revenue grew 12 percent while costs fell " * 20
    >>> pair_coverage("revenue grew 12 percent while costs fell", q)
    1.0
    >>> round(pair_coverage("revenue fell 12 percent while costs grew", q), 2)
    0.5
    """
    words = _WORD.findall(value)
    if len(words) < 2:
        return 1.0 if value in query else 0.0
    wanted = set(zip(words, words[1:]))
    found: set[tuple[str, str]] = set()
    previous = None
    for word in _WORD.findall(query):
        if (previous, word) in wanted:
            found.add((previous, word))  # type: ignore[arg-type]
        previous = word
    return len(found) / len(wanted)


def name_similarity(name: str, candidate: str) -> float:
    """The term of eq. 2 for one candidate: 0.6·WRatio/100 + 0.4·Jaccard."""
    return NCS_WRATIO_WEIGHT * wratio(name, candidate) + NCS_JACCARD_WEIGHT * jaccard(name, candidate)


def nearest_candidate(name: str, registry: Iterable[str]) -> tuple[str | None, float]:
    """The candidate reaching NCS (eq. 2) and the NCS itself; (None, 0.0) when 𝒞 is empty.

    Ties go to the candidate listed first in the registry.
    """
    best, score = None, 0.0
    for c in candidates(name, registry):
        s = name_similarity(name, c)
        if best is None or s > score:
            best, score = c, s
    return best, score


def ncs(name: str, registry: Iterable[str]) -> float:
    """Nearest Candidate Score (eq. 2), in [0, 1]: high for a misspelling, low for a fabrication.

    >>> round(ncs("get_wether", ["get_weather", "book_flight"]), 4), ncs("zzz", ["get_weather"])
    (0.5714, 0.0)
    """
    return nearest_candidate(name, registry)[1]


# ------------------------------------------------------------------ stage 2: structural completeness


def rpr(required: Collection[str], predicted: Iterable[str]) -> float:
    """Required Parameter Recall (eq. 3): the share of required parameters predicted (1 if none).

    >>> rpr(["a", "b"], ["a", "c"]), rpr([], ["x"])
    (0.5, 1.0)
    """
    if not required:
        return 1.0
    given = set(predicted)
    return sum(1 for a in set(required) if a in given) / len(set(required))


def pds(param: str, admissible: Iterable[str]) -> tuple[float, str | None]:
    """Parameter Drift Score (eq. 4) of an out-of-schema parameter, with the schema name reaching it.

    >>> pds("qeury", ["query", "limit"])
    (0.8, 'query')
    """
    best, score = None, 0.0
    for a in admissible:
        s = wratio(param, a)
        if best is None or s > score:
            best, score = a, s
    return score, best


def classify_parameters(predicted: Iterable[str], admissible: Collection[str]
                        ) -> tuple[dict[str, str], tuple[str, ...], dict[str, float]]:
    """(drifted: parameter → the schema name it misspells, spurious parameters, PDS of each).

    A parameter outside the schema is drifted when its PDS is at least γ_pds = 0.8 and its
    nearest schema name is not itself among the predictions; otherwise it is spurious.

    >>> drifted, spurious, scores = classify_parameters(["qeury", "limt", "limit", "zzz"], ["query", "limit"])
    >>> drifted, spurious, round(scores["limt"], 3)   # `limt` is close to `limit`, which is given
    ({'qeury': 'query'}, ('limt', 'zzz'), 0.889)
    """
    given = list(predicted)
    exact = set(given) & set(admissible)
    drifted: dict[str, str] = {}
    spurious: list[str] = []
    scores: dict[str, float] = {}
    for p in given:
        if p in admissible:
            continue
        score, nearest = pds(p, admissible)
        scores[p] = score
        if score >= DRIFT_THRESHOLD and nearest is not None and nearest not in exact:
            drifted[p] = nearest
        else:
            spurious.append(p)
    return drifted, tuple(spurious), scores


def spr(predicted: Collection[str], admissible: Collection[str]) -> float:
    """Spurious Parameter Rate (eq. 5): out-of-schema parameters with PDS < 0.8, over |P| (0 if P is empty).

    >>> spr(["query", "zzz"], ["query"]), spr([], ["query"])
    (0.5, 0.0)
    """
    if not predicted:
        return 0.0
    far = [p for p in predicted if p not in admissible and pds(p, admissible)[0] < DRIFT_THRESHOLD]
    return len(far) / len(predicted)


# ------------------------------------------------------------------ stage 3: argument grounding


STRING, NUMBER, LIST, OTHER = "string", "number", "list", "other"


def value_kind(value: Any) -> str:
    """string, number (int or float, not bool), list, or other (bool, null, object)."""
    if isinstance(value, str):
        return STRING
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return NUMBER
    if isinstance(value, (list, tuple)):
        return LIST
    return OTHER


def leaves(value: Any) -> list[Any]:
    """The elements of a (nested) list that are not lists, in order; iterative, so any depth is safe.

    >>> leaves([1, [2, [3, []]], "a"])
    [1, 2, 3, 'a']
    """
    out: list[Any] = []
    stack = [iter(value)]
    while stack:
        for item in stack[-1]:
            if value_kind(item) == LIST:
                stack.append(iter(item))
                break
            out.append(item)
        else:
            stack.pop()
    return out


#: A decimal digit (every one is also a digit to `str.isdigit`): found by the regex engine, so
#: a query with one is told without a character loop in Python.
DECIMAL = re.compile(r"\d")


def has_numbers(query: str) -> bool:
    """HasNumbers(Q): whether the query contains a digit (`str.isdigit`, superscripts too).

    >>> has_numbers("day 3"), has_numbers("x\u00b2"), has_numbers("none")
    (True, True, False)
    """
    return DECIMAL.search(query) is not None or any(ch.isdigit() for ch in query)


def numbers_in(query: str) -> frozenset[float]:
    """The values of the numeric tokens of a query. `exact_match` and `hallucination` take them
    precomputed, for many values against one query. Two tokens stand for both readings: a
    signed one, since a dash is as often a hyphen (`COVID-19`) as a minus (`b=-3`); one with
    commas between digit groups, since a comma is as often a thousands separator (`1,000`) as a
    list separator (`cash_flows=[200,300,400,500]`, `101,202`).

    >>> sorted(numbers_in("a=1, b=-3, total 1,250.5 and 2e3"))
    [-3.0, 1.0, 3.0, 250.5, 1250.5, 2000.0]
    >>> sorted(numbers_in("cash_flows=[200,300,400,500]"))
    [200.0, 300.0, 400.0, 500.0, 200300400500.0]
    """
    out = set()
    for token, sign, body in set(_NUMBER_TOKENS.findall(query)):  # each distinct token read once
        try:
            x = float(token.replace(",", "") if "," in body else token)
        except ValueError:
            continue
        if math.isfinite(x):
            out.add(x)
            if sign:
                out.add(abs(x))
            if "," in body:
                out.update(float(part) for part in body.split(","))
    return frozenset(out)


#: `NUMBER_TOKEN` with the whole token as a group too, for `findall`.
_NUMBER_TOKENS = re.compile(f"({NUMBER_TOKEN.pattern})")


def _is_word_char(ch: str) -> bool:
    return ch.isalnum() or ch == "_"


def _string_matches(value: str, query: str, lowered: str | None = None) -> bool:
    """`value` occurs in `query`, ignoring case, with no word character just outside it
    (`lowered`: `query.lower()`, when the caller keeps it)."""
    if not value.strip():
        return False
    needle, hay = value.lower(), query.lower() if lowered is None else lowered
    start = hay.find(needle)
    while start >= 0:
        end = start + len(needle)
        before = start == 0 or not (_is_word_char(hay[start - 1]) and _is_word_char(needle[0]))
        after = end == len(hay) or not (_is_word_char(hay[end]) and _is_word_char(needle[-1]))
        if before and after:
            return True
        start = hay.find(needle, start + 1)
    return False


def exact_match(value: Any, query: str, numbers: Container[float] | None = None, lowered: str | None = None) -> bool:
    """ExactMatch(v, Q), type-aware: a string at word boundaries ignoring case, a number equal
    to a numeric token of Q, a list when every element matches; anything else never matches.
    `numbers` (`numbers_in(query)`) and `lowered` (`query.lower()`): when the caller keeps them.

    >>> q = "Book 2 rooms at the Grand Hotel for 3.5 nights"
    >>> [exact_match(v, q) for v in ("grand hotel", "Grand", "Gran", 2, 3.5, 2.0, [2, "hotel"], True)]
    [True, True, False, True, True, True, True, False]
    """
    kind = value_kind(value)
    if kind == STRING:
        return _string_matches(value, query, lowered)
    if kind == NUMBER:
        return math.isfinite(value) and float(value) in (numbers_in(query) if numbers is None else numbers)
    if kind == LIST:
        numbers = numbers_in(query) if numbers is None else numbers
        lowered = query.lower() if lowered is None else lowered
        return all(exact_match(v, query, numbers, lowered) for v in leaves(value))
    return False


def hallucination(value: Any, query: str, numbers: Container[float] | None = None,
                  lowered: str | None = None) -> float | None:
    """h(v, Q) of eq. 8: 0 exact, 1 − PartialRatio/100 for a string, 1 for a number when Q has
    numbers; None when the value is excluded (assumed: no grounding context for it in Q).
    `numbers` and `lowered` as for `exact_match`.

    >>> q = "What is the weather in Paris on day 3?"
    >>> hallucination("Paris", q), round(hallucination("Pariss", q), 3)
    (0.0, 0.167)
    >>> hallucination(4, q), hallucination(4, "in Paris")     # a number: 1 if Q has numbers, else excluded
    (1.0, None)
    """
    numbers = numbers_in(query) if numbers is None else numbers
    exact = exact_match(value, query, numbers, lowered)
    if not exact and value_kind(value) == LIST:
        lowered = query.lower() if lowered is None else lowered
        parts = [h for h in (hallucination(v, query, numbers, lowered) for v in leaves(value)) if h is not None]
        return max(parts) if parts else None
    return leaf_hallucination(value, exact, query, lowered)


def leaf_hallucination(value: Any, exact: bool, query: str, lowered: str | None = None) -> float | None:
    """`hallucination` of a value that is not a list, whose exact match is known already."""
    if exact:
        return 0.0
    kind = value_kind(value)
    if kind == STRING:
        return 1.0 - partial_ratio(value, query, lowered)
    if kind == NUMBER:
        return 1.0 if has_numbers(query) else None
    return None


def avem(values: Iterable[Any], query: str) -> float:
    """Argument Value Exact Match (eq. 6): the share of values that match Q exactly (1 if none).

    >>> avem(["Paris", 4, True], "weather in Paris")
    0.3333333333333333
    """
    values = list(values)
    if not values:
        return 1.0
    return sum(1 for v in values if exact_match(v, query)) / len(values)


def qslo(values: Iterable[Any], query: str) -> float | None:
    """Query-Supported Lexical Overlap (eq. 7): mean PartialRatio/100 over the string values that
    do not match exactly; None when there are none.

    >>> qslo(["Paris", "Pari", 3], "weather in Paris"), qslo(["Paris"], "weather in Paris")
    (1.0, None)
    """
    loose = [v for v in values if value_kind(v) == STRING and not exact_match(v, query)]
    if not loose:
        return None
    return sum(partial_ratio(v, query) for v in loose) / len(loose)


def vhr_ctx(values: Iterable[Any], query: str) -> float:
    """VHR_ctx (eq. 9): Σ h(v_i, Q) over the contextual values; stage 3 passes when it is 0.

    >>> vhr_ctx(["Paris", 7], "weather in Paris"), vhr_ctx(["Paris", 7], "weather in Paris on day 3")
    (0.0, 1.0)
    """
    return sum(h for h in (hallucination(v, query) for v in values) if h is not None)


def grounding_values(args: Mapping[str, Any]) -> list[Any]:
    """The argument values stage 3 grounds, in argument order."""
    return list(args.values())
