"""Claims of actions in prose: which tools a reply says were used, read by rules of grammar.

A policy declares, per tool, the phrases that claim its action (`claims "refund",
"refunded" by issue_refund`). `claimed_actions(text, claims)` lists the tools the text
claims as *done*: a phrase occurs in a clause that asserts the action happened or was
arranged, not one that denies, promises, offers, asks about, supposes or describes it.

    "I've refunded the $20."                    claimed      (perfect)
    "A replacement has been dispatched."        claimed      (passive)
    "Your subscription is cancelled."           claimed      (state)
    "The courier will collect it tomorrow."     claimed      (arranged: a future whose subject is not us)
    "Refund issued."                            claimed      (telegraphic)
    "I will escalate this."                     not claimed  (our own future: an intent)
    "I haven't cancelled it."                   not claimed  (negated)
    "Would you like a refund?"                  not claimed  (a question)
    "Once it is back, a refund will be issued." not claimed  (conditional)
    "I can reset it for you."                   not claimed  (a modal)
    "Refunds are issued within 5 days."         not claimed  (generic: a bare plural)

The reading, per sentence and clause (split at `, ; : - ( )` and at `and but so because
...`): a question, a clause opened by `if once unless when until before whether ...`, or a
clause with a negation (`not never no nothing without unable failed declined pending ...`)
claims nothing. Otherwise the phrase's verb group decides: the phrase itself when it is a
verb (`refunded`, `will collect`), else the verb group that governs the noun (`I have issued
a refund`, `the refund has been processed`, `you will receive your refund`). A past,
perfect, passive or stative group claims; so does a future whose subject is not the first
person (`the courier will`, `you will receive`) unless the sentence sets a condition; a
modal (`can could would should may might must`), an infinitive (`to refund`), a request or
an attempt (`requested`, `tried to`), reported words (`you mentioned`, `told`) or the
customer's own action (`you cancelled it`) do not. A verb that opens a clause joined by `and`
or `then` shares the verb group of the clause before (`I went ahead and reset it`: done; `I'll
check and reset it`: an intent; `Go to Settings and reset it`: an instruction); a thing that
`is on your bill` or `in your inbox`, or `is showing`, is done. Matching ignores case, a plural or
third-person `s`, hyphens (`top-up` is `top up`) and British or American doubling
(`cancelled`, `canceled`).

Every step looks at a bounded window of tokens around a phrase, and phrases are looked up by
their first word, so a text is read in time linear in its length (the first `MAX_TEXT`
characters of it).

>>> claims = {"issue_refund": ["refund", "refunded"], "schedule_pickup": ["collect", "pickup"]}
>>> claimed_actions("Your refund has been processed, and the courier will collect the box.", claims)
['issue_refund', 'schedule_pickup']
>>> claimed_actions("I will refund you once the courier can collect the box.", claims)
[]
>>> [(c.tool, c.phrase, c.status) for c in read_claims("I haven't refunded it; shall I book a pickup?", claims)]
[('issue_refund', 'refunded', 'negated'), ('schedule_pickup', 'pickup', 'question')]
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Mapping, Sequence

from policyc.grounding.code import MAX_TEXT

CLAIMED, NEGATED, QUESTION, CONDITIONAL, INTENT, UNASSERTED = (
    "claimed", "negated", "question", "conditional", "intent", "unasserted")


@dataclass(frozen=True, slots=True)
class Claim:
    """One occurrence of a declared phrase: the tool, the words as written, and how the text
    puts the action (`claimed` when it says the action was done or arranged)."""

    tool: str
    phrase: str
    status: str

    @property
    def is_claimed(self) -> bool:
        return self.status == CLAIMED


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


NEGATIONS = _words("""not never neither nor without unable cannot fail failed fails failing unsuccessful
    declined rejected refused denied impossible""")
#: negations of a noun: before the phrase only (`no refund is due`; `topped up at no cost` is done)
NONE = _words("no nothing none nobody")
#: after `is`, `am`, `are`: not done yet (`your refund is pending`; `the pending renewal` is not)
PENDING = _words("pending awaiting waiting")
MODALS = _words("can could would should may might must")
FUTURES = _words("will shall gonna")
PERFECT = _words("have has had having")
BE = _words("is are was were am be been being get got gets getting")
#: words that may stand inside a verb group: `has already been`, `is now`, `can only be`
ADVERBS = _words("""just already now also successfully fully finally all both recently today earlier
    since completely manually automatically officially indeed still yesterday only""")
AUXILIARIES = MODALS | FUTURES | PERFECT | BE | ADVERBS
#: words before a phrase that make it something other than an action done
NOT_DONE = _words("""need needs needed want wants wanted like love try tried trying tries attempt attempted
    attempting plan planning hope hoping wish intend intending recommend suggest offer expect please let ask
    asked asks request requested requesting mentioned said told says tell eligible happy glad willing how
    option whether normally usually typically generally often""")
#: a clause opened by one of these states a condition or a time, not a fact
SUBORDINATE = _words("if once unless when whenever until till before whether provided")
#: anywhere in a sentence, these make its futures conditional (`a refund will follow once ...`)
CONDITION = re.compile(r"\b(?:if|once|unless|provided|until|as soon as|as long as|in case)\b", re.I)
#: opening a sentence, these do too (`after you drop it off, the refund will ...`)
FRONTED = re.compile(r"\s*(?:when|whenever|after|before|as soon as|in case)\b", re.I)
SUBJECTS_US = _words("i we let")
SUBJECTS = _words("i we you he she it they this that which who there")
OBJECTS = _words("me us you him her it them")
DETERMINERS = _words("""a an the your my our their his her its this that these those any some each every no
    another one two three four five both several full partial first second new extra free goodwill""")
PREPOSITIONS = _words("of for with about regarding on in")
#: after `is`/`are`, a state that says the action is done
COMPLETE = _words("""done complete completed confirmed approved processed booked scheduled arranged sorted
    underway finished through live active showing appearing visible""")
#: after `is`/`are`, these and `your` put the thing where the customer has it (`is on your bill`)
HELD = _words("on in into")
IRREGULAR = _words("""sent done made put set paid given taken gone got gotten brought bought sold kept left
    found built held begun shown seen known reset shut went came""")
NOT_PARTICIPLES = _words("""need feed speed bed red seed indeed hundred shed bred breed proceed exceed succeed
    embed""")
PUNCTUATION = frozenset(",;:()\"“”—–-.")
CLAUSE_WORDS = _words("and but so because although though however while whereas yet or plus then")
#: a clause these alone join to the one before shares its subject and tense
COORDINATING = _words("and then")
#: how many tokens around a phrase are read for its verb group
WINDOW = 8

_TOKEN = re.compile(r"[A-Za-z]+|\d+(?:[.,]\d+)*|[?!.;:,()\"“”—–]|-(?=\s)|\s-\s")
_SENTENCE = re.compile(r"(?<=[.!?;])\s+|\n+|[\u2600-\u27bf\U0001f300-\U0001faff]+")  # emoji end one
_CONTRACTIONS = (
    (re.compile(r"\b(can)['’]t\b", re.I), r"\1 not"), (re.compile(r"\bwon['’]t\b", re.I), "will not"),
    (re.compile(r"\bshan['’]t\b", re.I), "shall not"), (re.compile(r"n['’]t\b", re.I), " not"),
    (re.compile(r"['’]ve\b", re.I), " have"), (re.compile(r"['’]ll\b", re.I), " will"),
    (re.compile(r"['’]re\b", re.I), " are"), (re.compile(r"['’]m\b", re.I), " am"),
    (re.compile(r"['’]s\s+(been|got)\b", re.I), r" has \1"), (re.compile(r"['’]s\b", re.I), " is"),
    (re.compile(r"['’]d\s+(already|been|\w+ed)\b", re.I), r" had \1"), (re.compile(r"['’]d\b", re.I), " would"),
)


def normalise_word(word: str) -> str:
    """A word as phrases are matched: lower case, one spelling of `-lled`/`-lling`, `-ise`.

    >>> [normalise_word(w) for w in ("Cancelled", "canceled", "refuelling", "finalised")]
    ['canceled', 'canceled', 'refueling', 'finalized']
    """
    w = word.lower()
    w = re.sub(r"ll(ed|ing)$", r"l\1", w)
    return re.sub(r"is(e|ed|es|ing)$", r"iz\1", w) if len(w) > 5 else w


def phrase_words(phrase: str) -> tuple[str, ...]:
    """The words of a declared phrase, as they are matched (`Top-up` is `top`, `up`)."""
    return tuple(normalise_word(w) for w in re.findall(r"[A-Za-z]+", phrase))


def _matches(word: str, wanted: str) -> bool:
    return word == wanted or word == wanted + "s" or word == wanted + "es"


def _is_participle(word: str) -> bool:
    return word in IRREGULAR or (word.endswith("ed") and len(word) > 4 and word not in NOT_PARTICIPLES)


@dataclass(frozen=True, slots=True)
class _Token:
    word: str     # normalised; punctuation as itself
    start: int
    end: int


def _expand(text: str) -> str:
    for pattern, repl in _CONTRACTIONS:
        text = pattern.sub(repl, text)
    return text


def _tokens(sentence: str) -> list[_Token]:
    """The words of a sentence, normalised; a capitalised `May` inside it is the month."""
    return [_Token("month" if m.group() == "May" and m.start() else normalise_word(m.group().strip()) or "-",
                   m.start(), m.end()) for m in _TOKEN.finditer(sentence)]


def _clauses(tokens: list[_Token]) -> list[tuple[list[_Token], bool]]:
    """A sentence's clauses: split at punctuation and at `and but so ...` (both dropped), and
    before `if when until ...` (kept: it opens the clause that follows); each with whether it
    was joined to the one before by `and` or `then` (`I went ahead and reset it`)."""
    out: list[tuple[list[_Token], bool]] = [([], False)]
    for tok in tokens:
        breaks = tok.word in PUNCTUATION or tok.word in CLAUSE_WORDS
        if (breaks or tok.word in SUBORDINATE) and out[-1][0]:
            out.append(([], tok.word in COORDINATING))
        elif breaks and tok.word in COORDINATING:  # `, and`, `and then`
            out[-1] = (out[-1][0], True)
        if not breaks:
            out[-1][0].append(tok)
    return [c for c in out if c[0]]


def _shared_group(clause: list[_Token]) -> tuple[list[str], str | None] | None:
    """The verb group of a clause that a verb coordinated after it shares (`I went ahead and
    reset it`: the past of `went`; `I will check and reset it`: the future of `will`): the
    auxiliaries and subject of its first past participle or modal; None when it has neither
    or denies (then the next clause is read alone)."""
    if _negated(clause):
        return None
    for k, tok in enumerate(clause):
        if tok.word in MODALS or tok.word in FUTURES:
            return _verb_group(clause, _aux_end(clause, k))
        if tok.word in ("to", "going"):  # `going to check and reset`, `go to Settings and reset`
            return ["to"], None
        if _is_participle(tok.word):
            return _verb_group(clause, k)
    return None


@lru_cache(maxsize=64)
def _index(claims: tuple[tuple[str, tuple[str, ...]], ...]) -> "_Index":
    return _Index(dict(claims))


class _Index:
    """The declared phrases, by their first word: (words, tool, phrase) per first word."""

    def __init__(self, claims: Mapping[str, Sequence[str]]):
        self.by_first: dict[str, list[tuple[tuple[str, ...], str]]] = {}
        for tool, phrases in claims.items():
            for phrase in phrases:
                words = phrase_words(phrase)
                if words:
                    self.by_first.setdefault(words[0], []).append((words, tool))
        for entries in self.by_first.values():
            entries.sort(key=lambda e: -len(e[0]))  # the longest phrase first

    def find(self, clause: list[_Token]) -> list[tuple[int, int, str]]:
        """(first token, last token + 1, tool) of each phrase in a clause, longest first."""
        found = []
        i = 0
        while i < len(clause):
            word = clause[i].word
            entries = self.by_first.get(word) or self.by_first.get(word[:-1]) or self.by_first.get(word[:-2]) or ()
            hit = None
            for words, tool in entries:
                end = i + len(words)
                if end <= len(clause) and all(_matches(clause[i + j].word, w) for j, w in enumerate(words)):
                    hit = (i, end, tool)
                    break
            if hit:
                found.append(hit)
                i = hit[1]
            else:
                i += 1
        return found


def _verb_group(clause: list[_Token], before: int) -> tuple[list[str], str | None]:
    """The auxiliaries (and adverbs) just before position `before`, and the word before them
    (the subject, when the clause has one there)."""
    i, stop = before - 1, max(-1, before - 1 - WINDOW)
    while i > stop and (clause[i].word in AUXILIARIES or clause[i].word in ("to", "going")):
        i -= 1
    return [t.word for t in clause[i + 1:before]], clause[i].word if i >= 0 else None


def _judge_group(aux: list[str], subject: str | None, ours: bool, conditional: bool) -> str:
    """How a verb group puts an action: `aux` before the verb, `subject` before them; `ours`:
    the phrase is the verb itself (so that `you cancelled it` is the customer's act)."""
    if "to" in aux:
        return UNASSERTED  # `to refund`, `need to cancel`, `going to reset`: not done yet
    if any(a in FUTURES for a in aux) or "going" in aux:
        if subject in SUBJECTS_US:
            return INTENT
        return CONDITIONAL if conditional else CLAIMED
    if any(a in MODALS for a in aux):
        return UNASSERTED
    if subject == "you" and ours and not any(a in BE for a in aux):
        return UNASSERTED  # the customer's own act: `you have reset the router`
    return CLAIMED


def _aux_end(clause: list[_Token], i: int) -> int:
    stop = min(len(clause), i + WINDOW)
    while i < stop and clause[i].word in AUXILIARIES:
        i += 1
    return i


def _on_the_way(clause: list[_Token], i: int) -> bool:
    """`on its way`, or a place of the customer's (`on your account`, `in your inbox`)."""
    words = [t.word for t in clause[i:i + 3]]
    if len(words) >= 2 and words[0] in HELD and words[1] == "your":
        return True
    return len(words) == 3 and words[0] == "on" and words[1] in ("its", "the", "their") and words[2] == "way"


def _noun_status(clause: list[_Token], start: int, end: int, conditional: bool) -> str:
    """A phrase used as a noun: the verb group before it in the clause decides (`I have issued
    a refund`, `you will receive your refund`), else the one after it (`the refund has been
    processed`, `Refund issued`); a bare plural is generic (`Refunds are issued in 5 days`)."""
    for i in range(start - 1, max(-1, start - WINDOW), -1):
        word = clause[i].word
        if _not_done(clause, i) or word == "to" and _infinitive(clause, i):
            return UNASSERTED
        if word in SUBJECTS:
            break
        if _is_participle(word):
            aux, subject = _verb_group(clause, i)
            return _judge_group(aux, subject, False, conditional)
        if word in AUXILIARIES and word not in ADVERBS:
            aux, subject = _verb_group(clause, i + 1)
            if any(a in MODALS or a in FUTURES for a in aux):  # `you will get a refund`, `could apply a credit`
                return _judge_group(aux, subject, False, conditional)
            break  # `is eligible for a refund`, `have a refund`: a state or a possession
    head = clause[start].word
    if end - start == 1 and head.endswith("s") and not head.endswith("ss") and \
            (start == 0 or clause[start - 1].word not in DETERMINERS):
        return UNASSERTED
    for i in range(end, min(len(clause), end + WINDOW)):
        word = clause[i].word
        if _not_done(clause, i):
            return UNASSERTED
        if word in MODALS or word in FUTURES or word in PERFECT or word in BE:
            j = _aux_end(clause, i)
            aux = [t.word for t in clause[i:j]]
            if any(a in FUTURES or a in MODALS for a in aux):
                return _judge_group(aux, "it", False, conditional)
            following = clause[j].word if j < len(clause) else ""
            done = _is_participle(following) or following in COMPLETE or _on_the_way(clause, j)
            return CLAIMED if done else UNASSERTED
        if _is_participle(word) or word in COMPLETE:
            return CLAIMED
    return UNASSERTED


def _not_done(clause: list[_Token], i: int) -> bool:
    """Whether the word at i makes an action something other than done: one of `NOT_DONE`,
    unless a determiner makes a noun of it (`your new plan`, `the request`)."""
    return clause[i].word in NOT_DONE and not (i and clause[i - 1].word in DETERMINERS)


def _negated(clause: list[_Token]) -> bool:
    words = [t.word for t in clause]
    return any(w in NEGATIONS for w in words) or any(
        w in PENDING and i > 0 and words[i - 1] in BE for i, w in enumerate(words))


def _infinitive(clause: list[_Token], i: int) -> bool:
    """Whether `to` at i marks an infinitive (`to refund`), not a place (`to your card`)."""
    after = clause[i + 1].word if i + 1 < len(clause) else ""
    return not (after in DETERMINERS or after in OBJECTS or after[:1].isdigit())


@dataclass(frozen=True, slots=True)
class _Clause:
    tokens: list[_Token]
    negated: bool           # a negation anywhere in it
    not_done: int           # the position of its first `need`, `tried`, `please`, ... (len: none)
    none: int               # the position of its first `no`, `nothing`, ... (len: none)
    conditional: bool       # its sentence sets a condition
    shared: tuple[list[str], str | None] | None = None  # the verb group of the clause `and` joins it to


def _first(tokens: list[_Token], words: frozenset[str], verbs: bool) -> int:
    """The first token among `words`; with `verbs`, one a determiner does not make a noun of
    (`your request has been handed over` requests nothing)."""
    for i, t in enumerate(tokens):
        if t.word in words and not (verbs and i and tokens[i - 1].word in DETERMINERS):
            return i
    return len(tokens)


def _clause(tokens: list[_Token], conditional: bool,
            shared: tuple[list[str], str | None] | None = None) -> _Clause:
    return _Clause(tokens, _negated(tokens), _first(tokens, NOT_DONE, True), _first(tokens, NONE, False),
                   conditional, shared)


def _status(c: _Clause, start: int, end: int) -> str:
    """How a clause puts the action of the phrase at tokens [start, end)."""
    if c.negated or c.none < start:
        return NEGATED
    if c.not_done < start:
        return UNASSERTED
    clause, conditional = c.tokens, c.conditional
    head = clause[start].word
    prev = clause[start - 1].word if start else None
    after = clause[end].word if end < len(clause) else None
    if start == 0 and not head.endswith("ed") and (after in OBJECTS or after in DETERMINERS):
        if c.shared is not None:  # `I went ahead and reset it`: the verb before it says when
            return _judge_group(*c.shared, True, conditional)
        return UNASSERTED  # `Cancel it in the app`, `Reset the router`: an instruction
    if _is_participle(head):
        aux, subject = _verb_group(clause, start)
        return _judge_group(aux, subject, True, conditional)
    if prev in DETERMINERS or prev in PREPOSITIONS or prev is not None and prev[:1].isdigit():
        return _noun_status(clause, start, end, conditional)
    aux, subject = _verb_group(clause, start)
    if aux:
        return _judge_group(aux, subject, True, conditional) if any(a in FUTURES for a in aux) else UNASSERTED
    if prev in SUBJECTS:
        return UNASSERTED  # `we ship within 2 days`: a present, not a deed
    return _noun_status(clause, start, end, conditional)


def _opens_condition(clause: list[_Token]) -> bool:
    words = [t.word for t in clause[:3]]
    return words == ["as", "soon", "as"] or words[:2] == ["in", "case"]


def read_claims(text: object, claims: Mapping[str, Sequence[str]]) -> list[Claim]:
    """Every occurrence of a declared phrase in a text (a string, or a list of strings), with how
    the text puts the action. `claims` maps each tool to its phrases (what is not a string is
    left out: claims may come from an artifact, which is input)."""
    if isinstance(text, list):
        return [c for item in text if isinstance(item, str) for c in read_claims(item, claims)]
    table = tuple((tool, tuple(p for p in phrases if isinstance(p, str))) for tool, phrases in claims.items()
                  if isinstance(tool, str) and isinstance(phrases, (list, tuple))) if isinstance(claims, Mapping) else ()
    if not isinstance(text, str) or not table:
        return []
    index = _index(table)
    out: list[Claim] = []
    for part in _SENTENCE.split(text[:MAX_TEXT]):
        sentence = _expand(part)
        question = sentence.rstrip(" \"'”)").endswith("?")
        clauses = _clauses(_tokens(sentence))
        conditional = bool(CONDITION.search(sentence) or FRONTED.match(sentence))
        for k, (clause, joined) in enumerate(clauses):
            found = index.find(clause)
            shared = _shared_group(clauses[k - 1][0]) if found and joined and k else None
            facts = _clause(clause, conditional, shared) if found else None
            for start, end, tool in found:
                if question:
                    status = QUESTION
                elif clause[0].word in SUBORDINATE or _opens_condition(clause):
                    status = CONDITIONAL
                else:
                    status = _status(facts, start, end)  # type: ignore[arg-type]
                out.append(Claim(tool, sentence[clause[start].start:clause[end - 1].end], status))
    return out


def claimed_actions(text: object, claims: Mapping[str, Sequence[str]]) -> list[str]:
    """The tools whose action the text claims as done, in order of first claim, once each."""
    return list(dict.fromkeys(c.tool for c in read_claims(text, claims) if c.is_claimed))
