"""Claims of actions: the rule-based reader, the `claims` declaration, `actions(text)` and `done`.

- the reader, on sentences written for these tests (the corpus of `benchmarks/action_claims.py`
  is the measure, not a test): tense, voice, negation, intents, conditions, questions,
  instructions, generic statements, the customer's own acts, spelling and inflection;
- its properties (hypothesis): a question, a negated or a conditional clause claims nothing;
  only a declared phrase claims, and only its own tool; sentences are read apart (the claims of
  `a b` are those of `a` then `b`);
- the language: `claims` parses, formats back and checks; `actions(...)` carries the claims;
  `done` is the tools a call succeeded with (failed calls, messages, terminal tools left out)
  on every engine that decides it, the solver's exact encoding included; the rule's detail;
  the gate refuses to let a reply claim an action nobody did; an extractor's own `actions` is
  used in place of the rules.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engines import every_engine
from policyc.artifact.build import build_artifact
from policyc.automata import compile_policy
from policyc.check import check_text
from policyc.diagnostics import Source
from policyc.fmt import format_source
from policyc.grounding import BuiltinExtractor, claimed_actions, read_claims
from policyc.grounding.prose import ProseSet, prose_entities
from policyc.ir import build as b
from policyc.ir.types import ANY, STR, Param, ToolSignature
from policyc.runtime import Monitor
from policyc.scoring import score_trace
from policyc.trace import Trace
from policyc.trace.model import Call

CLAIMS = {
    "issue_refund": ["refund", "refunded", "reimbursed", "money back"],
    "cancel_order": ["cancel", "cancelled", "cancellation"],
    "ship_replacement": ["replacement", "dispatched", "shipped"],
    "schedule_pickup": ["collect", "collected", "pick up"],
    "escalate": ["escalate", "escalated"],
    "refuel_data": ["top-up", "topped up"],
    "reset_password": ["reset"],
}


def claimed(text: str) -> list[str]:
    return claimed_actions(text, CLAIMS)


@pytest.mark.parametrize("text,tools", [
    # done: past, perfect, passive, state, progressive, telegraphic
    ("We refunded the late fee on Monday.", ["issue_refund"]),
    ("I've now cancelled the second order.", ["cancel_order"]),
    ("Both parcels have been dispatched by DHL.", ["ship_replacement"]),
    ("The duplicate booking is cancelled.", ["cancel_order"]),
    ("A new charger is being shipped to you.", ["ship_replacement"]),
    ("Refund issued, reference R-22.", ["issue_refund"]),
    ("Status: escalated.", ["escalate"]),
    ("you've been reimbursed for the taxi", ["issue_refund"]),
    ("I issued a refund of $12 to your card.", ["issue_refund"]),
    ("The replacement we dispatched yesterday arrives today.", ["ship_replacement"]),
    # arranged: a future whose subject is not us
    ("The courier will collect the box on Friday.", ["schedule_pickup"]),
    ("You will get your money back within five days.", ["issue_refund"]),
    ("Your phone will be shipped tomorrow, when the depot opens.", ["ship_replacement"]),
    # not done: our own future, negations, modals, conditions, questions, instructions
    ("I will escalate this if the fault comes back.", []),
    ("We'll cancel it at the end of the month.", []),
    ("I'm going to refund the fee now.", []),
    ("I haven't refunded anything yet.", []),
    ("No replacement was dispatched.", []),
    ("The refund failed at the bank.", []),
    ("Your cancellation is pending review.", []),
    ("I can cancel it for you.", []),
    ("We could offer a top-up instead.", []),
    ("If the item is damaged, a replacement will be shipped.", []),
    ("Once it is back, you will get a refund.", []),
    ("When the courier has collected it, the refund will follow.", []),
    ("Would you like me to escalate it?", []),
    ("Cancel it from the app, under Orders.", []),
    ("Please keep the box for the courier to collect.", []),
    ("Refunds are issued within 5 days.", []),
    ("Replacements are usually shipped the same day.", []),
    ("You cancelled the order yourself on Monday, so nothing is owed.", []),
    ("You mentioned the courier collected it.", []),
    ("I tried to refund it but the card was closed.", []),
    ("I need your order number to issue a refund.", []),
    # several clauses, several tools
    ("I couldn't cancel the order, but I have refunded the shipping.", ["issue_refund"]),
    ("Your refund is done and the courier will collect the box.", ["issue_refund", "schedule_pickup"]),
    ("I've topped up your data at no cost.", ["refuel_data"]),
    # spelling and inflection
    ("Both orders were canceled this morning.", ["cancel_order"]),
    ("Two replacements have been sent out.", ["ship_replacement"]),
    ("We topped-up the line.", ["refuel_data"]),  # hyphens are spaces
    # a verb after `and` shares the tense and subject of the one before it
    ("I looked into it and reset your password.", ["reset_password"]),
    ("I will check the line and reset your password.", []),
    ("You went ahead and reset the router yourself.", []),
    ("Go to Settings and reset the router.", []),
    ("I can look into it and then reset your password.", []),
    # where the customer now has it: on the bill, in the inbox; showing on the account
    ("The refund is on your statement.", ["issue_refund"]),
    ("The replacement with your new plan is in your mailbox.", ["ship_replacement"]),
    ("Your top-up is now showing in the app.", ["refuel_data"]),
    ("Refunds appear on your statement within a week.", []),
    ("Is the refund on your statement yet?", []),
])
def test_what_a_sentence_claims(text, tools):
    assert claimed(text) == tools


def test_each_occurrence_says_how_the_text_puts_it():
    found = [(c.tool, c.phrase, c.status) for c in read_claims(
        "I haven't refunded it; I will escalate it. Shall I cancel the order? If so, the courier can collect it.",
        CLAIMS)]
    assert found == [("issue_refund", "refunded", "negated"), ("escalate", "escalate", "intent"),
                     ("cancel_order", "cancel", "question"), ("schedule_pickup", "collect", "unasserted")]


def test_a_list_of_texts_is_read_text_by_text_and_anything_else_claims_nothing():
    assert claimed_actions(["Refund issued.", "Order cancelled."], CLAIMS) == ["issue_refund", "cancel_order"]
    assert claimed_actions(None, CLAIMS) == [] and claimed_actions(42, CLAIMS) == []
    assert claimed_actions("Refund issued.", {}) == []


CLAUSES = st.sampled_from([
    "I refunded the fee", "the order has been cancelled", "a replacement was dispatched", "your top-up is done",
    "the courier will collect it", "I will escalate it", "we could refund it", "the refund is pending",
    "you asked about a replacement", "thanks for waiting", "your line is active", "I escalated it",
])


@settings(max_examples=200, deadline=None)
@given(st.lists(CLAUSES, min_size=1, max_size=3))
def test_a_question_a_negation_and_a_condition_claim_nothing(clauses):
    text = ", and ".join(clauses)
    assert claimed(text[0].upper() + text[1:] + "?") == []
    assert claimed(", and ".join(f"if {c}" for c in clauses) + ".") == []
    assert claimed(", and ".join(f"it is not true that {c}" for c in clauses) + ".") == []


@settings(max_examples=200, deadline=None)
@given(st.lists(CLAUSES, min_size=1, max_size=4), st.lists(CLAUSES, min_size=1, max_size=4))
def test_sentences_are_read_apart_and_only_declared_phrases_claim(first, second):
    a, c = ", and ".join(first) + ".", " But ".join(second) + "."
    assert claimed(a + " " + c) == list(dict.fromkeys(claimed(a) + claimed(c)))
    one_tool = {"issue_refund": CLAIMS["issue_refund"]}
    assert set(claimed_actions(a, one_tool)) <= {"issue_refund"}
    assert claimed_actions(a, one_tool) == [t for t in claimed(a) if t == "issue_refund"]


# ------------------------------------------------------------------ the language

POLICY = """\
tool lookup_order(order_id: str) -> { total: float }
tool issue_refund(order_id: str, amount: float) -> { refund_id: str }
tool ship_replacement(order_id: str) -> { tracking: str }
terminal tool reply(text: str)

claims "refund", "refunded" by issue_refund
claims "replacement", "dispatched" by ship_replacement

rule said_only_what_was_done "every action the reply claims was done by a call that succeeded":
    forall a in actions(reply.text): a in done
"""


@pytest.fixture(scope="module")
def compiled():
    policy, diags = check_text(POLICY, "claims.altl")
    assert diags == []
    return compile_policy(policy)


def test_claims_format_back_and_travel_inside_the_formula(compiled):
    messy = POLICY.replace('claims "refund", "refunded" by', 'claims   "refund" ,"refunded"\n    by')
    assert format_source(Source("claims.altl", messy))[0] == POLICY
    (rule,) = compiled.policy.rules
    assert str(rule.formula) == "forall a in actions(reply.text): a in done"
    op = rule.formula.domain
    assert op.args[1].value == {"issue_refund": ["refund", "refunded"], "ship_replacement": ["replacement", "dispatched"]}
    assert rule.formula.body.term.args[1] == b.done(("reply",))


def _reply_after(*calls, text):
    events = [Call(name, {"order_id": "A1"}, result, i, error=error) for i, (name, result, error) in enumerate(calls)]
    return Trace.from_events((*events, Call("reply", {"text": text}, position=len(events))))


def test_the_rule_flags_an_action_no_call_did_and_says_which(compiled):
    ok = _reply_after(("issue_refund", {"refund_id": "R1"}, False), text="I refunded the $20.")
    (c,) = score_trace(compiled, ok).constraints
    assert (c.passed, c.detail) == (True, "Every action claimed in reply.text (1) was done by a call that succeeded.")
    bad = _reply_after(("issue_refund", {"refund_id": "R1"}, False),
                       text="I refunded the $20, and a replacement has been dispatched.")
    (c,) = score_trace(compiled, bad).constraints
    assert not c.passed and c.detail == ('Claimed but not done: "ship_replacement" ("replacement"), in reply.text; '
                                         'no call to it succeeded.')
    failed = _reply_after(("issue_refund", None, True), text="Your refund has been processed.")
    assert not score_trace(compiled, failed).constraints[0].passed  # a failed call did nothing
    (c,) = score_trace(compiled, _reply_after(text="I will refund you once it is back.")).constraints
    assert c.passed and c.vacuous and c.detail == "Holds vacuously: `actions(reply.text)` is empty."


def test_the_gate_decides_the_reply_when_it_is_proposed():
    text = POLICY.replace('"every action the reply claims was done by a call that succeeded":',
                          '"every action the reply claims was done" severity deny:')
    policy, diags = check_text(text, "claims.altl")
    assert diags == []
    run = Monitor(build_artifact(policy)).start()
    run.record("lookup_order", {"order_id": "A1"}, {"total": 20.0})
    refused = run.propose("reply", {"text": "Your replacement has been dispatched."})
    assert refused.action == "block" and [f.rule for f in refused.findings] == ["said_only_what_was_done"]
    assert run.propose("reply", {"text": "I can send a replacement if you like."}).action == "allow"
    run.record("ship_replacement", {"order_id": "A1"}, {"tracking": "T1"})
    assert run.propose("reply", {"text": "Your replacement has been dispatched."}).action == "allow"


def test_an_extractor_may_read_claims_its_own_way(compiled):
    class Model(BuiltinExtractor):
        def actions(self, text, claims):  # a text, or the texts of several calls
            return ["ship_replacement"] if "parcel" in " ".join(text if isinstance(text, list) else [text]) else []

    model = Model("model", prose_entities, ProseSet)
    trace = _reply_after(text="The parcel is with you tomorrow.")
    assert not score_trace(compiled, trace, extractor=model).constraints[0].passed
    assert score_trace(compiled, trace).constraints[0].passed  # the rules see no declared phrase


TOOLS = {"a": ToolSignature("a", (), ANY), "b": ToolSignature("b", (), ANY),
         "fin": ToolSignature("fin", (Param("text", STR),), ANY, terminal=True)}
CALLS = st.lists(st.tuples(st.sampled_from(["a", "b"]), st.booleans()), max_size=4)


@settings(max_examples=60, deadline=None)
@given(CALLS, st.booleans())
def test_done_is_the_tools_a_call_succeeded_with_on_every_engine(calls, final):
    events = [Call(name, {}, {"ok": not error}, i, error=error) for i, (name, error) in enumerate(calls)]
    if final:
        events.append(Call("fin", {"text": "x"}, None, len(events)))
    trace = Trace.from_events(tuple(events))
    expected = {name for name, error in calls if not error}
    for tool in ("a", "b", "fin"):
        formula = b.cond(b.op("in", b.lit(tool), b.done(("fin",))))
        for engine in every_engine(TOOLS):
            verdict = engine.holds(formula, trace)
            assert verdict is None or verdict == (tool in expected), (engine.name, tool, calls)
