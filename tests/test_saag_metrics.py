"""SAAG's eight metrics against values computed by hand from the paper's definitions (§2.1–2.3).

The fuzzy scores are worked out from RapidFuzz's definitions: for two one-word strings
whose lengths differ by less than half, WRatio is the Indel ratio 100·(1 − d/(|a|+|b|))
(d = insertions plus deletions), since the token ratios are scaled by 0.95; PartialRatio
is the best Indel ratio of the value against a window of the query of its own length.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from policyc.saag import metrics as m

REGISTRY = ["search", "read_file", "get_weather"]


# ------------------------------------------------------------------ stage 1


def test_fnem_three_cases():
    assert m.fnem(None, REGISTRY) == -1          # complete parse failure
    assert m.fnem("   ", REGISTRY) == -1         # an empty name is no name
    assert m.fnem("serch", REGISTRY) == 0        # registry mismatch
    assert m.fnem("Search", REGISTRY) == 0       # names are exact: case matters
    assert m.fnem("search", REGISTRY) == 1


def test_ncs_by_hand():
    # serch -> search: one insertion, d = 1, |a|+|b| = 11: WRatio = 100·10/11; Jaccard of
    # {"serch"} and {"search"} = 0, so NCS = 0.6·10/11 = 0.54545...
    nearest, score = m.nearest_candidate("serch", REGISTRY)
    assert nearest == "search" and score == pytest.approx(0.6 * 10 / 11)
    # with two tokens Jaccard counts: "get weather" vs "get weather" is identical: 0.6 + 0.4
    assert m.ncs("get weather", ["get weather"]) == pytest.approx(1.0)
    # "get current weather" vs "get weather": Jaccard 2/3
    assert m.jaccard("get current weather", "Get Weather") == pytest.approx(2 / 3)


def test_ncs_only_over_candidates_sharing_a_trigram():
    # "xyz" shares no trigram with any registered name: no candidate, NCS 0, whatever WRatio says
    assert m.candidates("xyz", REGISTRY) == ()
    assert m.nearest_candidate("xyz", REGISTRY) == (None, 0.0)
    # "weather_get" shares "wea", "eat", ... with get_weather only
    assert m.candidates("weather_get", REGISTRY) == ("get_weather",)


# ------------------------------------------------------------------ stage 2


def test_rpr_by_hand():
    assert m.rpr(["city", "days"], ["city"]) == 0.5
    assert m.rpr(["city", "days"], ["city", "days", "unit"]) == 1.0
    assert m.rpr([], ["anything"]) == 1.0        # nothing required: nothing missed


def test_pds_threshold_is_inclusive():
    # qeury -> query: LCS "qury" (4), d = 5 + 5 − 2·4 = 2, ratio = 1 − 2/10 = 0.8: drifted (PDS ≥ 0.8)
    assert m.pds("qeury", ["query", "limit"]) == (pytest.approx(0.8), "query")
    drifted, spurious, scores = m.classify_parameters(["qeury"], ["query", "limit"])
    assert drifted == {"qeury": "query"} and spurious == ()


def test_a_drift_whose_target_is_given_is_spurious():
    # colour -> color: d = 1 over 11 characters: PDS 0.909, but `color` is already predicted
    drifted, spurious, scores = m.classify_parameters(["color", "colour"], ["color"])
    assert drifted == {} and spurious == ("colour",)
    assert scores["colour"] == pytest.approx(10 / 11)


def test_spr_by_hand():
    # P = {query, zzz}; zzz has PDS 0 against {query}: SPR = 1/2
    assert m.spr(["query", "zzz"], ["query"]) == 0.5
    # a drifted parameter (PDS ≥ 0.8) is not spurious by eq. 5
    assert m.spr(["qeury"], ["query"]) == 0.0
    assert m.spr([], ["query"]) == 0.0


# ------------------------------------------------------------------ stage 3

Q = "Book 2 rooms in Paris for 3.5 nights, about 10% off, near the concatenated towers"


def test_exact_match_is_type_aware():
    assert m.exact_match("paris", Q)                 # strings: case-insensitive
    assert m.exact_match("rooms in Paris", Q)        # at word boundaries
    assert not m.exact_match("Par", Q)               # not inside a word
    assert not m.exact_match("cat", Q)               # not inside "concatenated"
    assert m.exact_match(2, Q) and m.exact_match(3.5, Q) and m.exact_match(2.0, Q)
    assert m.exact_match(10, Q)                      # "10%" holds the token 10
    assert not m.exact_match(0.1, Q)                 # 10 % is not 0.1: no partial credit for numbers
    assert not m.exact_match(35, Q)                  # 3.5 is one token
    assert m.exact_match(["paris", 2], Q) and not m.exact_match(["paris", 7], Q)  # every element
    assert not m.exact_match(True, Q) and not m.exact_match(None, Q)


def test_avem_by_hand():
    # 3 of the 5 values match exactly
    assert m.avem(["Paris", 2, "Lyon", 0.1, "nights"], Q) == pytest.approx(3 / 5)
    assert m.avem([], Q) == 1.0


def test_qslo_by_hand():
    # only strings that miss count: "Pariss" aligns with "Paris " (LCS 5, d = 2 over 12): 10/12;
    # "Paris" matches exactly and 7 is a number, so neither counts
    assert m.qslo(["Paris", "Pariss", 7], Q) == pytest.approx(10 / 12)
    assert m.qslo(["Paris", 7], Q) is None


def test_h_and_vhr_ctx_by_hand():
    assert m.hallucination("Paris", Q) == 0.0                          # exact
    assert m.hallucination("Pariss", Q) == pytest.approx(1 - 10 / 12)  # string: 1 − PR/100
    assert m.hallucination("cat", Q) == 0.0      # not an exact match, but PartialRatio is 100
    assert m.hallucination(7, Q) == 1.0                                # number, and Q has numbers
    assert m.hallucination(7, "Book rooms in Paris") is None           # no numbers in Q: excluded
    assert m.hallucination(True, Q) is None                            # neither string nor number
    # VHR_ctx sums h over the contextual values; the excluded ones do not count
    assert m.vhr_ctx(["Paris", "Pariss", 7, True], Q) == pytest.approx((1 - 10 / 12) + 1.0)
    assert m.vhr_ctx([7], "Book rooms in Paris") == 0.0


def test_numbers_in_the_query():
    assert m.has_numbers("room 4") and not m.has_numbers("four rooms")
    assert m.numbers_in("a=1, b=-3, 1,250.5 and 2e3") == {1.0, -3.0, 3.0, 250.5, 1250.5, 2000.0}
    # a comma between digits reads both ways: a thousands separator and a list separator
    assert m.numbers_in("cash_flows=[200,300,400,500]") == {200.0, 300.0, 400.0, 500.0, 200300400500.0}
    assert m.numbers_in("ids 101,202") == {101.0, 202.0, 101202.0}
    assert m.exact_match([200, 300, 400, 500], "cash_flows=[200,300,400,500]") and m.exact_match(101202, "101,202")


def test_partial_ratio_ignores_case_as_exact_match_does():
    q = "Book the Grand Hotel in New York"
    assert m.partial_ratio("grand hotell", q) == m.partial_ratio("Grand Hotell", q) == m.partial_ratio("GRAND HOTELL", q)
    assert m.hallucination("new yorkk", q) == m.hallucination("New Yorkk", q) < 1 - m.HARD_DRIFT_THRESHOLD
    assert m.numbers_in("COVID-19 on 2023-10-05") >= {19.0, 2023.0, 10.0, 5.0}



# ------------------------------------------------------------------ numbers_in, against its definition

_NUMBER_TEXT = st.text(alphabet="0123456789.,-+eE a\n\"\\\u0663", max_size=30)


@settings(max_examples=500, deadline=None)
@given(_NUMBER_TEXT)
def test_numbers_in_reads_each_numeric_token_as_its_definition_says(text):
    """`numbers_in` (each distinct token read once, the engine skipping to a token's first
    character) gives what reading every match of the token pattern, one by one, gives."""
    import math
    import re

    token = re.compile(r"(?<![\d.])([-+]?)(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)(?:[eE][-+]?\d+)?")
    expected = set()
    for match in token.finditer(text):
        try:
            x = float(match.group().replace(",", ""))
        except ValueError:
            continue
        if math.isfinite(x):
            expected.add(x)
            if match.group(1):
                expected.add(abs(x))
            if "," in match.group(2):
                expected.update(float(part) for part in match.group(2).split(","))
    assert m.numbers_in(text) == expected


def test_two_long_strings_are_compared_by_word_pairs_not_aligned(monkeypatch):
    """Found by a sweep written from the docs alone: PartialRatio of a 6,000-character
    argument against a 6,000-character request took 8 s of one proposal (about the cube of
    the length). Past MAX_ALIGNED characters on both sides no alignment is computed."""
    import random

    rng = random.Random(4)
    words = [f"w{rng.randrange(10_000)}" for _ in range(1_500)]
    query = " ".join(words)
    copied = " ".join(words[200:900])  # written out in the query
    afresh = " ".join(rng.sample(words, 700))  # the query's words, in an order of its own
    short = " ".join(words[10:20])

    def no_alignment(*_args, **_kwargs):
        raise AssertionError("PartialRatio aligned two long strings")

    assert m.partial_ratio(short, query) == 1.0  # a short value: PartialRatio itself
    monkeypatch.setattr(m.fuzz, "partial_ratio", no_alignment)
    assert len(copied) > m.MAX_ALIGNED and len(query) > m.MAX_ALIGNED
    assert m.partial_ratio(copied.upper(), query) == 1.0  # case ignored, as PartialRatio's
    assert m.partial_ratio(afresh, query) < m.HARD_DRIFT_THRESHOLD
    assert m.hallucination(afresh, query) > 1 - m.HARD_DRIFT_THRESHOLD
    token = "x" * 600
    assert m.partial_ratio(token, query + " " + token) == 1.0 and m.partial_ratio(token, query) == 0.0
