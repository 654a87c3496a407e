"""Events beyond the agent's tool calls: messages, the user's calls, failures and the request.

- the language: `observe`, the `message` event, event attributes in patterns, `request`,
  result fields that bind variables, and the diagnostics when they are misused;
- a policy's view: what it does not observe does not exist for it, so call-only policies
  read exactly what they always read;
- grounding with the prose extractor, named by a policy or passed explicitly;
- the gate: the user's actions are recorded not judged, failures are known only once a call
  ran, rules the automata do not compile are decided where the evaluator can and listed as
  undecided where it cannot (checked against the evaluator by brute force), and snapshots
  keep every event.
"""

from __future__ import annotations

import itertools

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from policyc.artifact.build import build_artifact
from policyc.automata import compile_policy
from policyc.check import check_text
from policyc.diagnostics import Source
from policyc.fmt import format_source
from policyc.grounding import PROSE
from policyc.ir.policy import Policy
from policyc.runtime import Monitor
from policyc.scoring import score_trace
from policyc.semantics import evaluate
from policyc.trace.model import Call, Trace


def score(policy, trace, **options):
    """The report of a trace against a checked policy, compiled for the scorer."""
    return score_trace(compile_policy(policy), trace, **options)


TRANSFER = "YOU ARE BEING TRANSFERRED TO A HUMAN AGENT. PLEASE HOLD ON."


def checked(text: str) -> Policy:
    policy, diagnostics = check_text(text, "events.altl")
    assert policy is not None, [(d.code, d.message) for d in diagnostics]
    return policy


def errors(text: str) -> list[tuple[str, str]]:
    _, diagnostics = check_text(text, "events.altl")
    return [(d.code, d.message) for d in diagnostics if d.code.startswith("E")]


def message(text: str, actor: str = "assistant", calls=(), message_id: str | None = None) -> Call:
    return Call("message", {"text": text, "calls": list(calls)}, kind="message", actor=actor, message_id=message_id)


# ------------------------------------------------------------------ the language


def test_messages_attributes_and_the_request_check_and_format():
    text = ('observe messages, user_calls\n\ntool transfer_to_human_agents(summary: str) -> str\n'
            'tool check_status_bar() -> str\n\n'
            'rule announce:\n    always (transfer_to_human_agents -> next message(actor: "assistant", '
            'contains(text, "TRANSFERRED")))\n\n'
            'rule one_call:\n    always (message(actor == "assistant") -> message(len(calls) <= 1))\n\n'
            'rule failures_told:\n    always (check_status_bar(error) -> eventually message(actor: "assistant"))\n\n'
            'rule user_side:\n    always (transfer_to_human_agents -> once check_status_bar(actor: "user"))\n\n'
            'rule asked:\n    forall e in entities(request.text): true\n')
    policy = checked(text)
    assert policy.observes == {"messages", "user_calls"} and "message" in policy.tools
    formatted, _ = format_source(Source("events.altl", text))
    assert formatted is not None and "next message(" in formatted and "`message`" not in formatted
    assert [r.formula for r in checked(formatted).rules] == [r.formula for r in policy.rules]


@pytest.mark.parametrize("text,expected", [
    ("tool a()\nrule r: eventually message(text: \"x\")\n", ("E0227", "the policy does not observe messages")),
    ("observe mesages\ntool a()\nrule r: called(a)\n",
     ("E0227", "`mesages` is not a class of events a policy can observe")),
    ("tool a()\nrule r: called(a) and error\n",
     ("E0226", "`error` is an attribute of the event a pattern matches, inside that pattern")),
    ("tool message(text: str)\nrule r: called(message)\n", ("E0213", "the tool name `message` is reserved")),
    ("grounding poetry\ntool a()\nrule r: called(a)\n", ("E0227", "`poetry` is not a built-in entity extractor")),
])
def test_misuse_is_reported(text, expected):
    assert expected in errors(text)


def test_a_result_field_compared_in_a_pattern_binds_its_variable():
    policy = checked("tool lookup_order(order_id: str) -> { total: float }\n"
                     "tool issue_refund(order_id: str, amount: float)\n"
                     "rule paid: always (lookup_order(order_id: o, result.total == m)"
                     " -> eventually issue_refund(order_id: o, amount: m))\n")
    phi = policy.rules[0].formula
    # the lookup's total is in m's domain: a total never refunded is a violation, not a vacuous pass
    assert not evaluate(phi, Trace.of(("lookup_order", {"order_id": "A"}, {"total": 12.5})))
    assert evaluate(phi, Trace.of(("lookup_order", {"order_id": "A"}, {"total": 12.5}),
                                  ("issue_refund", {"order_id": "A", "amount": 12.5})))


def test_the_request_is_a_trace_wide_value():
    policy = checked("tool reply(text: str)\n"
                     "rule echoes: forall e in entities(request.text): eventually reply(contains(text, e))\n")
    trace = Trace.from_events((message("Is `ChargePoint` in api.py?", "user"),
                               Call("reply", {"text": "ChargePoint is in api.py"})), request="Is `ChargePoint` in api.py?")
    assert score(policy, trace).compliance_score == 1.0
    silent = Trace.from_events((Call("reply", {"text": "no idea"}),), request="Is `ChargePoint` in api.py?")
    assert score(policy, silent).compliance_score == 0.0


def test_the_messages_module_groups_calls_by_message():
    policy = checked("import messages\ntool a()\ntool b()\n"
                     "rule grouped: always (a -> not same_message(a, b))\n"
                     "rule one_each: calls_per_message(1)\n"
                     "rule quiet: no_prose_with_calls()\n")
    assert policy.observes == {"messages"}
    together = Trace.from_events((message("", calls=["a", "b"]), Call("a", {}), Call("b", {})))
    apart = Trace.from_events((message("", calls=["a"]), Call("a", {}), message("Done. Next:", calls=["b"]),
                               Call("b", {})))
    verdicts = lambda trace: {c.name: c.passed for c in score(policy, trace).constraints}  # noqa: E731
    assert verdicts(together) == {"grouped": False, "one_each": False, "quiet": True}
    assert verdicts(apart) == {"grouped": True, "one_each": True, "quiet": False}


# ------------------------------------------------------------------ views


def test_a_policy_that_observes_nothing_new_reads_only_the_agents_calls():
    policy = checked("import declare\ntool a()\ntool b()\nrule chained: chain_response(a, b)\n")
    events = (Call("a", {}), message("hold on"), Call("b", {}, actor="user"), Call("b", {}))
    trace = Trace.from_events(events)
    report = score(policy, trace)
    assert report.tool_sequence == ["a", "b"] and report.compliance_score == 1.0
    seeing = checked("import declare\nobserve messages, user_calls\ntool a()\ntool b()\n"
                     "rule chained: chain_response(a, b)\n")
    assert score(seeing, trace).compliance_score == 0.0  # a message now stands between a and b
    assert score(seeing, trace).tool_sequence == ["a", "message", "b", "b"]


def test_the_users_calls_are_not_the_agents_conformance():
    policy = checked("observe user_calls\ntool a()\nrule r: called(a)\n")
    trace = Trace.from_events((Call("toggle_airplane_mode", {}, actor="user"), Call("a", {})))
    report = score(policy, trace)
    assert report.tool_sequence == ["toggle_airplane_mode", "a"] and report.input_problems == []


# ------------------------------------------------------------------ grounding


REPLY_POLICY = ("tool lookup_order(order_id: str) -> { order_id: str, total: float, carrier: str }\n"
                "terminal tool reply(text: str)\n"
                "rule grounded: forall e in entities(reply.text): e in outputs(lookup_order)\n")


def test_the_prose_extractor_catches_invented_claims():
    policy = checked("grounding prose\n" + REPLY_POLICY)
    lookup = ("lookup_order", {"order_id": "ORD-77"}, {"order_id": "ORD-77", "total": 12.5, "carrier": "FedEx"})
    ok = score(policy, Trace.of(lookup, ("reply", {"text": "Order ORD-77 ($12.50) ships with FedEx."})))
    assert ok.compliance_score == 1.0
    invented = score(policy, Trace.of(lookup, ("reply", {"text": "Use voucher SAVE20 for $5.00 off, "
                                                                         "shipping with DHL on Jan 3, 2025."})))
    (grounded,) = invented.constraints
    assert not grounded.passed
    assert grounded.detail == ('Not grounded: "SAVE20", "$5.00", "DHL", "Jan 3, 2025" from entities(reply.text) '
                               'are not in the outputs of lookup_order.')
    # the code extractor of the same policy without `grounding prose` finds only the numbers
    code = score(checked(REPLY_POLICY), Trace.of(lookup, ("reply", {"text": "Use voucher SAVE20 with DHL."})))
    assert code.compliance_score == 1.0 and code.constraints[0].vacuous


class Shouting:
    """A user's extractor: words in capitals, grounded when some output says them."""

    name = "shouting"

    def entities(self, text):  # text: a string, or a list of them (the values of `reply.text`)
        texts = text if isinstance(text, list) else [text]
        return [w.strip(".,") for t in texts if isinstance(t, str) for w in t.split() if w.strip(".,").isupper()
                and len(w.strip(".,")) > 2]

    def seen(self):
        words: set[str] = set()

        class Seen:
            def add_call(self, args, result):
                words.update(str(result).replace('"', " ").replace("'", " ").split())

            def contains(self, entity):
                return entity in words

        return Seen()


def test_an_extractor_is_passed_explicitly_to_the_scorer_and_the_monitor():
    policy = checked(REPLY_POLICY)
    lookup = ("lookup_order", {"order_id": "A1"}, {"order_id": "A1", "total": 3.0, "carrier": "UPS"})
    trace = Trace.of(lookup, ("reply", {"text": "Shipping with UPS, not DHL."}))
    assert score(policy, trace).compliance_score == 1.0  # the default sees no entity
    mine = score(policy, trace, extractor=Shouting())
    assert mine.compliance_score == 0.0 and '"DHL"' in mine.constraints[0].detail
    monitor = Monitor(build_artifact(policy), extractor=Shouting())
    run = monitor.start()
    run.record(*lookup)
    assert run.propose("reply", {"text": "Shipping with UPS, not DHL."}).action == "warn"
    assert Monitor(build_artifact(policy)).start().propose("reply", {"text": "DHL"}).action == "allow"


def test_prose_entities_of_a_long_reply_are_bounded():
    assert len(PROSE.entities(" ".join(f"ORD-{i}" for i in range(30_000)))) == 10_000


# ------------------------------------------------------------------ the gate


def telecom_monitor() -> Monitor:
    return Monitor(build_artifact(checked(
        "observe messages, user_calls\n"
        "tool transfer_to_human_agents(summary: str) -> str\ntool refuel_data(gb_amount: float) -> any\n"
        "tool check_status_bar() -> str\n"
        "rule announce severity block: always (transfer_to_human_agents -> next message(actor: \"assistant\", "
        "contains(text, \"TRANSFERRED\")))\n"
        "rule one_call severity block: always (message(actor == \"assistant\") -> message(len(calls) <= 1))\n"
        "rule look_first severity block: always (refuel_data -> once check_status_bar(actor: \"user\"))\n"
        "rule no_retry_after_failure severity block: always (refuel_data(error) -> weak next always not refuel_data)\n")))


def test_messages_the_users_actions_and_failures_through_the_gate():
    monitor = telecom_monitor()
    run = monitor.start(context="My data is gone")
    assert run.propose("message", {"text": "Let me check.", "calls": ["a", "b"]}).action == "block"
    assert run.propose("refuel_data", {"gb_amount": 1}).action == "block"  # the user has not looked yet
    run.record("message", {"text": "Please check your status bar.", "calls": []})
    run.record("check_status_bar", {}, "Status Bar: No Signal", actor="user")  # recorded, never judged
    assert run.propose("refuel_data", {"gb_amount": 1}).action == "allow"
    run.record("refuel_data", {"gb_amount": 1}, "Line is suspended", error=True)
    again = run.propose("refuel_data", {"gb_amount": 1})
    assert again.action == "block" and again.rules == ("no_retry_after_failure",)
    run.record("transfer_to_human_agents", {"summary": "suspended"}, "Transfer successful")
    assert run.propose("message", {"text": "Bye.", "calls": []}).action == "block"
    run.record("message", {"text": TRANSFER, "calls": []})
    restored = monitor.restore(run.snapshot())
    assert restored.trace.events == run.trace.events and restored.context == "My data is gone"
    assert [(e.name, e.actor, e.error) for e in restored.trace.events] == [
        ("message", "assistant", False), ("check_status_bar", "user", False), ("refuel_data", "assistant", True),
        ("transfer_to_human_agents", "assistant", False), ("message", "assistant", False)]
    assert restored.finish().compliance_score == 1.0


def test_an_event_the_policy_does_not_observe_is_allowed_unjudged():
    monitor = Monitor(build_artifact(checked("tool a()\nrule r severity block: always not a\n")))
    run = monitor.start()
    assert run.propose("message", {"text": "anything", "calls": []}).action == "allow"
    run.record("message", {"text": "anything", "calls": []})
    run.record("a", {}, actor="user")  # the user's call: not the policy's business
    assert run.finish().compliance_score == 1.0 and run.trace.events[1].actor == "user"


#: two variables read together otherwise than as a pair one pattern names by `==` (an `or`
#: of two fields; a `cancel` naming the order alone): not compiled
REFUND = ("tool lookup_order(order_id: str) -> { total: float, balance: float }\n"
          "tool issue_refund(order_id: str, amount: float)\n"
          "tool cancel(order_id: str)\n"
          "rule exact severity block: always (issue_refund(order_id: o, amount: m)"
          " -> once lookup_order(order_id: o, result.total == m or result.balance == m))\n"
          "rule refunded: always (lookup_order(order_id: o, result.total == m)"
          " -> eventually (issue_refund(order_id: o, amount: m) or cancel(order_id: o)))\n")


def test_two_variables_the_gate_decides_what_it_can_and_says_what_it_cannot():
    monitor = Monitor(build_artifact(checked(REFUND)))
    assert all(r.automaton is None for r in monitor.artifact.rules)  # two variables: not compiled
    run = monitor.start()
    first = run.propose("lookup_order", {"order_id": "A"})
    assert first.action == "allow" and first.undecided == (
        "rule `exact`: it reads the result of `lookup_order`, known only once the call ran",
        "rule `refunded`: not compiled to an automaton; it is decided when the run finishes")
    run.record("lookup_order", {"order_id": "A"}, {"total": 12.5, "balance": 0.0})
    wrong = run.propose("issue_refund", {"order_id": "A", "amount": 20})
    assert wrong.action == "block" and wrong.rules == ("exact",)
    assert 'does not hold for o = "A", m = 20' in wrong.findings[0].detail
    right = run.propose("issue_refund", {"order_id": "A", "amount": 12.5})
    assert right.action == "allow" and right.undecided == (
        "rule `refunded`: not compiled to an automaton; it is decided when the run finishes",)
    assert right.to_json()["undecided"] == list(right.undecided)


def test_two_variables_a_pattern_names_together_are_compiled_per_pair():
    """The same two rules reading `m` only as `result.total == m` beside `order_id: o`: one
    instance per (order, amount) pair, and the gate decides both."""
    monitor = Monitor(build_artifact(checked(
        REFUND.replace(" or result.balance == m", "").replace(" or cancel(order_id: o)", ""))))
    assert all(r.automaton is not None for r in monitor.artifact.rules)
    assert monitor.rule_classes == {"exact": "gateable", "refunded": "offline-only"}  # the second: liveness
    run = monitor.start()
    run.record("lookup_order", {"order_id": "A"}, {"total": 12.5, "balance": 0.0})
    wrong = run.propose("issue_refund", {"order_id": "A", "amount": 20})
    assert wrong.action == "block" and wrong.rules == ("exact",)
    right = run.propose("issue_refund", {"order_id": "A", "amount": 12.5})
    assert right.action == "allow" and right.undecided == ()
    run.record("issue_refund", {"order_id": "A", "amount": 12.5})
    assert run.finish().compliance_score == 1.0


# the gate's decisions for uncompiled rules against the evaluator, by brute force

CALLS = [("a", {"n": n}, {"ok": ok}) for n in (1, 2) for ok in (True, False)] + \
        [("b", {"n": n}, {"ok": True}) for n in (1, 2)]
#: `!=` on one side: read otherwise than as a pair named by `==`, so not compiled
TWO_VARIABLE_RULES = st.sampled_from([
    "always (b(n: o, result.ok == k) -> once a(n: o, result.ok != k))",
    "always (b(n: o, result.ok == k) -> not once a(n: o, result.ok != k))",
    "always (a(n: o, result.ok == k) -> always not b(n: o, result.ok != k))",
    "always (b(n: o) -> once a(n: o)) and always (a(n: m, result.ok == k) -> always not b(n: m, result.ok != k))",
])


@pytest.mark.slow
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(body=TWO_VARIABLE_RULES, calls=st.lists(st.sampled_from(CALLS), max_size=5))
def test_the_gate_refuses_an_uncompiled_rule_only_when_no_continuation_saves_it(body, calls):
    policy = checked("tool a(n: int) -> { ok: bool }\ntool b(n: int) -> { ok: bool }\n"
                     f"rule r severity block: {body}\n")
    formula = policy.rules[0].formula
    monitor = Monitor(build_artifact(policy))
    assert monitor.artifact.rules[0].automaton is None
    run = monitor.start(mode="block")
    prefix: list = []
    for tool, args, result in calls:
        decision = run.propose(tool, args)
        outcomes = [(tool, args, r) for r in ({"ok": True}, {"ok": False})]
        held = _satisfiable(formula, prefix)
        dead = all(not _satisfiable(formula, prefix + [o]) for o in outcomes)
        if "r" in decision.rules:
            assert held and dead, (body, prefix, tool, args)
        elif held and dead and all(not evaluate(formula, Trace.of(*prefix, o)) for o in outcomes):
            # a certain violation the evaluator sees: refused, or listed as undecided with why
            assert any(u.startswith("rule `r`:") for u in decision.undecided), (body, prefix, tool, args)
        run.record(tool, args, result)
        prefix.append((tool, args, result))


PAIR_RULES = st.sampled_from([
    "always (b(n: o, result.ok == k) -> once a(n: o, result.ok == k))",
    "always (b(n: o, result.ok == k) -> not once a(n: o, result.ok == k))",
    "always (a(n: o, result.ok == k) -> always not b(n: o, result.ok == k))",
    "always (b(n: o) -> once a(n: o)) and always (a(n: m, result.ok == k) -> always not b(n: m, result.ok == k))",
])


@pytest.mark.slow
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(body=PAIR_RULES, calls=st.lists(st.sampled_from(CALLS), max_size=5))
def test_the_gate_refuses_a_rule_over_a_pair_only_when_no_continuation_saves_it(body, calls):
    """The same shapes with `==` on both sides compile per pair: a refusal is right (no
    result and no continuation saves the rule), and the report is the evaluator's."""
    policy = checked("tool a(n: int) -> { ok: bool }\ntool b(n: int) -> { ok: bool }\n"
                     f"rule r severity block: {body}\n")
    formula = policy.rules[0].formula
    monitor = Monitor(build_artifact(policy))
    assert monitor.artifact.rules[0].automaton is not None
    run = monitor.start(mode="tolerate")
    prefix: list = []
    for tool, args, result in calls:
        decision = run.propose(tool, args)
        if "r" in decision.rules:
            outcomes = [(tool, args, r) for r in ({"ok": True}, {"ok": False})]
            assert all(not _satisfiable(formula, prefix + [o]) for o in outcomes), (body, prefix, tool, args)
        run.record(tool, args, result)
        prefix.append((tool, args, result))
    assert run.finish().constraints[0].passed == evaluate(formula, Trace.of(*prefix))


def _satisfiable(formula, prefix, bound: int = 2) -> bool:
    return any(evaluate(formula, Trace.of(*prefix, *cont))
               for k in range(bound + 1) for cont in itertools.product(CALLS, repeat=k))


def test_severity_of_an_uncompiled_rule_applies():
    policy = checked(REFUND.replace("severity block", "severity stop"))
    run = Monitor(build_artifact(policy)).start()
    run.record("lookup_order", {"order_id": "A"}, {"total": 1.0})
    assert run.propose("issue_refund", {"order_id": "A", "amount": 2.0}).action == "stop"


# ------------------------------------------------------------------ prose: amounts, courtesies, lists


@pytest.mark.parametrize("text,expected", [
    ("Refunded EUR 96.27 today.", ["EUR 96.27"]),          # the code before the amount
    ("Refunded 96.27 EUR today.", ["96.27 EUR"]),          # and after it
    ("Refunded €96.27 and $5, then 5€.", ["€96.27", "$5", "5€"]),
    ("Prices in EUR and USD only.", []),                   # a currency code is never a name
    ("Hello Anna,\n\nYour order ships today.\n\nBest regards,\nThe Customer Support Team", []),
    ("Thanks for reaching out!\n\nBest regards, Anna\nThe Customer Support Team", []),
    ("Hi Maria, FedEx has the parcel.", ["FedEx"]),        # the greeting names the reader, not a fact
    ("Dear Mr Okafor,\nDHL collects it.\nKind regards,\nTom Baker\nCustomer Care", ["DHL"]),
    ("Thank you for waiting. John Smith at FedEx has it.", ["John Smith", "FedEx"]),  # thanks, not a sign-off
    ("Your bills were [200,300,400,500].", ["200", "300", "400", "500"]),  # a bracketed list: four numbers
    ("A total of 1,250 units, and 101,202 more.", ["1,250", "101,202"]),   # thousands, by the stated rule
])
def test_prose_entities_read_amounts_courtesies_and_lists(text, expected):
    assert PROSE.entities(text) == expected


def test_prose_amounts_with_the_code_before_are_grounded_by_value_and_results_read_commas_both_ways():
    policy = checked("grounding prose\n" + REPLY_POLICY)
    lookup = ("lookup_order", {"order_id": "ORD-77"}, {"order_id": "ORD-77", "total": 96.27, "carrier": "FedEx"})
    for text in ("Your refund of EUR 96.27 is on its way.", "Your refund of 96.27 EUR is on its way.",
                 "Hi Anna, your refund of €96.27 is on its way.\n\nBest regards,\nThe Customer Support Team"):
        report = score(policy, Trace.of(lookup, ("reply", {"text": text})))
        assert report.compliance_score == 1.0, (text, report.constraints[0].detail)
    seen = PROSE.seen()
    seen.add_call({}, {"codes": "101,202"})
    assert [seen.contains(e) for e in ("101,202", "101", "202", "303")] == [True, True, True, False]


# ------------------------------------------------------------------ events and calls named apart

NAMED_APART = ("observe messages\n"
               "tool lookup(order_id: str) -> { total: float }\n"
               "tool refund(order_id: str)\n"
               "rule looked_up severity block: always (refund(order_id: o) -> once lookup(order_id: o))\n")


def _talkative_run() -> Trace:
    """Two messages, then the fourth event is the agent's second call: a refund nobody looked up."""
    return Trace.from_events((
        Call("message", {"text": "Refund A1, please."}, kind="message", actor="user"),
        Call("lookup", {"order_id": "B2"}, {"total": 3.0}, 1),
        Call("message", {"text": "Refunding now."}, kind="message", position=2),
        Call("refund", {"order_id": "A1", "amount": 3}, None, 3),
    ))


def test_reports_name_the_event_and_the_call_apart():
    policy = checked(NAMED_APART)
    (c,) = score(policy, _talkative_run()).constraints
    assert (c.violated_at, c.violated_at_call) == (4, 2)
    assert c.detail == 'Does not hold for o = "A1" at event #4, call #2 (`refund`).'
    message, amount = score(policy, _talkative_run()).input_problems  # a message without `calls`; an `amount`
    assert (message.event, message.call, message.where) == (3, None, "event #3")
    assert (amount.event, amount.call, amount.where) == (4, 2, "event #4, call #2")
    calls_only = checked(NAMED_APART.replace("observe messages\n", ""))
    (c,) = score(calls_only, _talkative_run()).constraints
    assert (c.violated_at, c.violated_at_call, c.detail) == (2, 2, 'Does not hold for o = "A1" at call #2 (`refund`).')


def test_replay_names_the_event_and_the_call_apart(tmp_path):
    import json

    from click.testing import CliRunner

    from policyc.cli import cli

    policy = tmp_path / "p.altl"
    policy.write_text(NAMED_APART, encoding="utf-8")
    record = {"id": "r1", "messages": [
        {"role": "user", "content": "Refund A1, please."},
        {"role": "assistant", "content": "", "tool_calls": [
            {"id": "1", "type": "function", "function": {"name": "lookup", "arguments": '{"order_id": "B2"}'}}]},
        {"role": "tool", "tool_call_id": "1", "content": '{"total": 3.0}'},
        {"role": "assistant", "content": "Refunding now.", "tool_calls": [
            {"id": "2", "type": "function", "function": {"name": "refund", "arguments": '{"order_id": "A1"}'}}]},
        {"role": "tool", "tool_call_id": "2", "content": "ok"}]}
    path = tmp_path / "t.json"
    path.write_text(json.dumps(record), encoding="utf-8")
    result = CliRunner().invoke(cli, ["replay", str(policy), str(path)], env={"NO_COLOR": "1", "COLUMNS": "200"})
    # the user's message, the agent's message calling `lookup`, the call, the agent's next message, the refund
    assert "the gate would have refused event #5, call #2" in result.output, result.output
    data = json.loads(CliRunner().invoke(cli, ["replay", str(policy), str(path), "--format", "json"]).stdout)
    (trace,) = data["traces"]
    assert (trace["first_refusal"], trace["first_refusal_call"]) == (5, 2)
    assert [(s["step"], s["call"]) for s in trace["steps"]][-2:] == [(4, 1), (5, 2)]


@pytest.mark.parametrize("text,expected", [
    ("Bills of 40,42,45 each.", ["40", "42", "45"]),   # groups that are no thousands: a list
    ("Order 1,2500 units.", ["1", "2500"]),
])
def test_prose_numbers_with_commas_that_are_no_thousands_are_separate(text, expected):
    assert PROSE.entities(text) == expected
