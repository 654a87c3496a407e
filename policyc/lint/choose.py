"""Values for a run of the automata, chosen by a few steps of local search.

The automata find runs of the claims they compile, and of the others weakened
(`policyc.lint.weaken`); what a run then still needs is values: a text argument equal to a
value a result listed, or different from everything the request says; a request that asks
for some things and not others. Those conditions are about equality and containment of a
few texts, which the evaluator checks in microseconds while the solver's string theory may
take seconds. So values are chosen first by local search, on the evaluator:

- every text argument (and list of texts) the run leaves empty is the simplest value
  (equal to the simplest value of every other text, and to what a result lists), a text of
  its own, or (a single text) one of the texts the claims compare with;
- the request is absent, or says some of the words the claims look for in it and some of
  the run's texts;

starting from a few corners (everything simplest or own, everything said or nothing), each
step takes the change that leaves the fewest claims failing (a few in a row may leave as
many failing: two values may have to change together), until none fails. The result
is replayed like every witness; nothing is concluded when the search finds none.

>>> from policyc.check import check_text
>>> from policyc.lint.claims import Claim
>>> src = ('policy p\\ntool share(email: str)\\n'
...        'rule asked: always (share -> contains(request.text, "share"))\\n'
...        'rule named: always (share(email: e) -> contains(request.text, e))\\n')
>>> policy = check_text(src, "p.altl")[0]
>>> from policyc.trace.model import Call
>>> claims = [Claim("asked", policy.rules[0].formula), Claim("not named", policy.rules[1].formula, False)]
>>> w = choose_values((Call("share", {"email": ""}),), {}, claims, policy.tools)
>>> w.trace.request, w.trace.calls[0].args["email"]
('share', 'value-1')
"""

from __future__ import annotations

from dataclasses import replace
from typing import Mapping, Sequence

from policyc.ir import nodes as n
from policyc.ir.data import ExternError
from policyc.ir.ops import UNDEF
from policyc.ir.types import STR, ListT, OptionalT, ToolSignature
from policyc.ir.walk import subformulas
from policyc.lint.claims import Claim
from policyc.lint.concretize import replay
from policyc.lint.sourcing import Wanted, sourced, wanted
from policyc.semantics.evaluator import evaluate
from policyc.smt import WitnessTrace
from policyc.smt.decoder import default_value
from policyc.trace.model import Call, Trace

#: Claim evaluations one search may make, at most.
EVALUATIONS = 20_000
#: Moves in a row one search may make that leave as many claims failing (never back to a state
#: it tried).
LEVEL_MOVES = 1
#: Texts tested against the request that are tried as its words, at most (the longest left out).
MAX_WORDS = 40
#: A text with one entity of each kind of `policyc.grounding.kinds`, and of no other kind: a
#: value for a text a rule reads the entities of (an answer with a link, a mail with a card
#: number), which no literal of the policy gives.
ENTITY_TEXTS = {"urls": "https://example.com/a", "emails": "ann@example.com", "ibans": "DE89370400440532013000",
                "phones": "+1 555 123 4567", "dates": "2025-01-31", "amounts": "12.50 EUR",
                "card_numbers": "4111111111111111", "secrets": "AKIAIOSFODNN7EXAMPLE"}


def choose_values(calls: Sequence[Call], metrics: Mapping, claims: Sequence[Claim],
                  tools: Mapping[str, ToolSignature], externs: Mapping | None = None) -> WitnessTrace | None:
    """A witness with these calls (their empty texts and lists given values) and a request,
    on which every claim takes its value; None when the search finds none."""
    externs = dict(externs or {})
    base = filled(calls, tools)
    slots = _slots(base, tools)
    asking = any(isinstance(s, n.Request) for c in claims for s in subformulas(c.formula))
    words = _words(claims, slots) if asking else []
    budget = [EVALUATIONS]
    want = wanted(claims)  # values taken from earlier results are put there (`policyc.lint.sourcing`)

    entities = _entity_texts(claims)
    for literals in [_literals(claims)] + ([_literals(claims) + entities] if entities else []):
        # the texts with entities in them only when the others found nothing: a slot's every
        # value is tried at each step
        found = _search(base, slots, metrics, claims, tools, externs, literals, words, asking, want, budget)
        if found is not None or budget[0] <= 0:
            return found
    return None


def _search(base: tuple[Call, ...], slots: list[tuple[int, str, int]], metrics: Mapping, claims: Sequence[Claim],
            tools: Mapping[str, ToolSignature], externs: dict, literals: list[str], words: list[str], asking: bool,
            want: list[Wanted], budget: list[int]) -> WitnessTrace | None:
    """The local search of `choose_values` with these texts for the text slots."""
    # the values of each slot: 0 the simplest, 1 its own, then for a text 2 + j the claims'
    # j-th text, for a list 2 no item
    choices = [2 + len(literals) if items == 0 else 3 for _, _, items in slots]

    def build(picked: tuple[int, ...], said: tuple[bool, ...], absent: bool) -> Trace:
        out = list(base)
        for k, (i, name, items) in enumerate(slots):
            if picked[k]:
                value = _own(k, items) if picked[k] == 1 else [] if items else literals[picked[k] - 2]
                out[i] = replace(out[i], args={**out[i].args, name: value})
        request = None if absent or not asking else " ".join(w for w, keep in zip(words, said) if keep)
        return sourced(Trace(tuple(out), metrics, request=request), want, tools)

    def failing(state) -> int:
        trace = build(*state)
        budget[0] -= len(claims)
        return sum(_truth(c.formula, trace, externs) != c.expected for c in claims)

    corners = [(f, s, False) for f in (0, 1) for s in (True, False)]
    if asking:
        corners += [(0, False, True), (1, False, True)]
    tried: set = set()
    for fresh_all, said_all, absent in corners:
        state = (tuple([fresh_all] * len(slots)), tuple([said_all] * len(words)), absent)
        if state in tried:
            continue
        tried.add(state)
        best = failing(state)
        level = 0  # moves that left as many claims failing (two changes may be needed at once)
        while best and budget[0] > 0 and level <= LEVEL_MOVES:
            moves: list[Choice] = []
            for k in range(len(slots)):
                moves.extend(_pick(state, k, v) for v in range(choices[k]) if v != state[0][k])
            for k in range(len(words)):
                moves.append(_flip(state, k))
            if asking:
                moves.append((state[0], state[1], not state[2]))
            scored = [(failing(m), m) for m in moves if m not in tried]
            tried.update(m for _, m in scored)
            if not scored:
                break
            score, move = min(scored, key=lambda x: x[0])
            if score > best:
                break
            level = level + 1 if score == best else 0
            best, state = score, move
        if best == 0:
            return replay(WitnessTrace(build(*state), True, externs), claims)
        if budget[0] <= 0:
            break
    return None


def filled(calls: Sequence[Call], tools: Mapping[str, ToolSignature]) -> tuple[Call, ...]:
    """The calls with every empty list (an argument given, or a result) given one item, the
    simplest value of its type (a result listing something a later call can name)."""
    out = []
    for c in calls:
        sig = tools.get(c.name)
        if sig is None:
            out.append(c)
            continue
        args = dict(c.args)
        for p in sig.params:
            kind = p.type.inner if isinstance(p.type, OptionalT) else p.type
            if isinstance(kind, ListT) and args.get(p.name) == []:
                args[p.name] = [default_value(kind.elem)]
        result = c.result
        kind = sig.result.inner if isinstance(sig.result, OptionalT) else sig.result
        if isinstance(kind, ListT) and result in (None, [], UNDEF):
            result = [default_value(kind.elem)]
        out.append(replace(c, args=args, result=result) if args != dict(c.args) or result is not c.result else c)
    return tuple(out)


#: The texts a run made concrete without a solver holds where nothing was asked of them.
_PLACEHOLDERS = ("", "x")


def _slots(calls: Sequence[Call], tools: Mapping[str, ToolSignature]) -> list[tuple[int, str, int]]:
    """(call, argument, items) for each text argument a call leaves empty or out (items 0),
    and each list of texts left out or holding only such texts (its length, at least 1)."""
    out = []
    for i, c in enumerate(calls):
        sig = tools.get(c.name)
        for p in sig.params if sig is not None else ():
            kind = p.type.inner if isinstance(p.type, OptionalT) else p.type
            v = c.args.get(p.name)
            if kind is STR and v in (None, ""):
                out.append((i, p.name, 0))
            elif isinstance(kind, ListT) and kind.elem is STR and (v is None or isinstance(v, list) and all(
                    x in _PLACEHOLDERS for x in v)):
                out.append((i, p.name, max(1, len(v or []))))
    return out


def _own(k: int, items: int) -> str | list[str]:
    """The texts of its own slot `k` takes (a list of `items` of them, or one text)."""
    return [f"value-{k + 1}-{j + 1}" for j in range(items)] if items else f"value-{k + 1}"


def _literals(claims: Sequence[Claim]) -> list[str]:
    """The texts the claims compare with, the shorter first, at most `MAX_WORDS`."""
    texts = sorted(dict.fromkeys(s.value for c in claims for s in subformulas(c.formula)
                                 if isinstance(s, n.Lit) and isinstance(s.value, str) and 0 < len(s.value) <= 80),
                   key=len)
    return texts[:MAX_WORDS]


def _entity_texts(claims: Sequence[Claim]) -> list[str]:
    """A text holding an entity of each kind the claims look for in a text (`urls(text)`,
    `card_numbers(body)`, ...; `ENTITY_TEXTS`)."""
    return [ENTITY_TEXTS[k] for k in dict.fromkeys(s.op for c in claims for s in subformulas(c.formula)
                                                  if isinstance(s, n.Op) and s.op in ENTITY_TEXTS)]


def _words(claims: Sequence[Claim], slots: list[tuple[int, str, int]]) -> list[str]:
    """The texts the claims compare with, then each slot's own texts."""
    own = [_own(k, items) for k, (_, _, items) in enumerate(slots)]
    return _literals(claims) + [" ".join(x) if isinstance(x, list) else x for x in own]


#: A point of the search: each slot's value, the words the request says, whether it has none.
Choice = tuple[tuple[int, ...], tuple[bool, ...], bool]


def _pick(state: Choice, k: int, value: int) -> Choice:
    picked = list(state[0])
    picked[k] = value
    return (tuple(picked), state[1], state[2])


def _flip(state: Choice, k: int) -> Choice:
    """The request with word k said, or no longer said."""
    said = list(state[1])
    said[k] = not said[k]
    return (state[0], tuple(said), state[2])


def _truth(phi: n.Formula, trace: Trace, externs: Mapping) -> bool | None:
    try:
        return evaluate(phi, trace, externs)
    except (ExternError, RecursionError):
        return None
