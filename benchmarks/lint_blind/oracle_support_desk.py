"""Brute-force oracle for support_desk.altl, written from the policy's text and the documentation.

Run: python benchmarks/lint_blind/oracle_support_desk.py [MAX_LEN]
Imports nothing from policyc.

The policy observes only the agent's calls, reads no request and no metrics: a trace is a sequence
of calls, `reply` (terminal) only last. The pool has two e-mail addresses, two orders (and two more
with one lookup, check and refund each, so that four refunds can happen) and two tickets, so that
every per-value rule can be told from its "some value" reading, and the amounts
and totals meet every literal on both sides (0, 100 and 700 against 0 and 500; totals 50, 900 and
1500 against the amounts and 1000). The reply texts are one that claims a refund, one that claims
an escalation, and one that claims nothing (what `actions(...)` is expected to read in them is the
documentation's reading of `claims`; the scored witnesses check it).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from oracle_lib import (DEAD, Cap, Event, Monitor, Never, Policy, Precede, Respond, Rule, Seen, Trace, dump,
                        find_trace, report, verify)

E1, E2 = "maria.garcia@example.com", "j.doe@example.com"
O1, O2, O3, O4 = "ORD-1001", "ORD-1002", "ORD-1003", "ORD-1004"
T1, T2 = "TCK-501", "TCK-502"
REFUND_REPLY = "Your refund of $100.00 has been issued."
ESCALATE_REPLY = "Your case has been escalated to our finance team."
NEUTRAL_REPLY = "Thank you for your patience; the order details are above."
CLAIMS = {REFUND_REPLY: {"issue_refund"}, ESCALATE_REPLY: {"escalate"}, NEUTRAL_REPLY: set()}


def lookup(o: str, total: float) -> Event:
    return Event("lookup_order", {"order_id": o},
                 {"order_id": o, "customer_id": "CU-77", "total": total, "status": "delivered"}, note=f"total {total:g}")


POOL: list[Event] = [
    Event("find_customer", {"email": E1}, {"customer_id": "CU-77", "verified": True}, note="verified"),
    Event("find_customer", {"email": E1}, {"customer_id": "CU-77", "verified": False}, note="not verified"),
    Event("find_customer", {"email": E2}, {"customer_id": "CU-78", "verified": True}, note="verified"),
    lookup(O1, 50.0), lookup(O1, 900.0), lookup(O1, 1500.0), lookup(O2, 900.0), lookup(O2, 1500.0),
    lookup(O3, 900.0), lookup(O4, 900.0),  # two more orders, so that four refunds can be told from "one per order"
    Event("check_eligibility", {"order_id": O1}, {"eligible": True}, note="eligible"),
    Event("check_eligibility", {"order_id": O1}, {"eligible": False, "reason": "outside window"}, note="not eligible"),
    Event("check_eligibility", {"order_id": O2}, {"eligible": True}, note="eligible"),
    Event("check_eligibility", {"order_id": O3}, {"eligible": True}, note="eligible"),
    Event("check_eligibility", {"order_id": O4}, {"eligible": True}, note="eligible"),
    Event("issue_refund", {"order_id": O1, "amount": 100.0}, {"refund_id": "RF-1"}),
    Event("issue_refund", {"order_id": O1, "amount": 700.0}, {"refund_id": "RF-2"}),
    Event("issue_refund", {"order_id": O1, "amount": 0.0}, {"refund_id": "RF-3"}),
    Event("issue_refund", {"order_id": O2, "amount": 100.0}, {"refund_id": "RF-4"}),
    Event("issue_refund", {"order_id": O3, "amount": 100.0}, {"refund_id": "RF-5"}),
    Event("issue_refund", {"order_id": O4, "amount": 100.0}, {"refund_id": "RF-6"}),
    Event("issue_refund", {"order_id": O1, "amount": 100.0}, "payment gateway timeout", error=True),
    Event("update_order", {"order_id": O1, "field": "address", "value": "12 Elm St"}, {"ok": True}),
    Event("update_order", {"order_id": O2, "field": "address", "value": "12 Elm St"}, {"ok": True}),
    Event("open_ticket", {"customer_id": "CU-77", "subject": "refund"}, {"ticket_id": T1}, note=T1),
    Event("open_ticket", {"customer_id": "CU-77", "subject": "refund"}, {"ticket_id": T2}, note=T2),
    Event("add_note", {"ticket_id": T1, "note": "refund issued"}),
    Event("add_note", {"ticket_id": T2, "note": "refund issued"}),
    Event("close_ticket", {"ticket_id": T1, "resolution": "refunded"}),
    Event("close_ticket", {"ticket_id": T2, "resolution": "refunded"}),
    Event("escalate", {"ticket_id": T1, "team": "finance"}),
    Event("escalate", {"ticket_id": T2, "team": "finance"}),
    Event("escalate", {"ticket_id": T1, "team": "support"}),
    Event("escalate", {"ticket_id": T1, "team": "finance"}, "escalation queue unavailable", error=True),
    Event("send_email", {"to": E1, "body": "Your refund is on its way."}),
    Event("send_email", {"to": E2, "body": "Your refund is on its way."}),
    Event("reply", {"text": REFUND_REPLY}, terminal=True),
    Event("reply", {"text": ESCALATE_REPLY}, terminal=True),
    Event("reply", {"text": NEUTRAL_REPLY}, terminal=True),
]
CONTEXTS: list[dict[str, Any]] = [{}]


def call(e: Event, name: str) -> bool:
    return e.name == name


def arg(e: Event, name: str, key: str) -> set[Any]:
    return {e.args[key]} if e.name == name else set()


def verified_email(e: Event) -> set[str]:
    return {e.args["email"]} if e.name == "find_customer" and e.result.get("verified") is True else set()


def eligible(e: Event) -> set[str]:
    return {e.args["order_id"]} if e.name == "check_eligibility" and e.result.get("eligible") is True else set()


def ticket_opened(e: Event) -> set[str]:
    return {e.result["ticket_id"]} if e.name == "open_ticket" and isinstance(e.result, dict) else set()


def ticket_touched(e: Event) -> set[str]:
    return {e.args["ticket_id"]} if e.name in ("add_note", "close_ticket", "escalate") else set()


def ticket_finished(e: Event) -> set[str]:
    return {e.args["ticket_id"]} if e.name in ("close_ticket", "escalate") else set()


def big_order(e: Event) -> set[str]:
    return {e.args["order_id"]} if e.name == "lookup_order" and e.result["total"] > 1000 else set()


def to_finance(e: Event) -> bool:
    return e.name == "escalate" and e.args["team"] == "finance"


def amount_ok(e: Event) -> bool:
    return 0 < e.args["amount"] <= 500


def done_tools(t: Trace) -> set[str]:
    return {e.name for e in t if not e.error and not e.terminal}


def claimed(t: Trace) -> set[str]:
    return set().union(*[CLAIMS[e.args["text"]] for e in t if e.name == "reply"])


# ------------------------------------------------------------------------------------------------
# The rules over a whole trace


def before_each(t: Trace, trigger: Any, cond: Any) -> bool:
    """always (trigger(k) -> once cond(k)) for every key k"""
    return all(all(any(k in cond(x) for x in t[:i + 1]) for k in trigger(e)) for i, e in enumerate(t))


def c_verified_first(t: Trace, ctx: Any) -> bool:
    return all(any(verified_email(x) for x in t[:i + 1]) for i, e in enumerate(t) if e.name in ("lookup_order", "open_ticket"))


def c_mail_verified(t: Trace, ctx: Any) -> bool:
    return before_each(t, lambda e: arg(e, "send_email", "to"), verified_email)


def c_lookup_before_update(t: Trace, ctx: Any) -> bool:
    return before_each(t, lambda e: arg(e, "update_order", "order_id"), lambda e: arg(e, "lookup_order", "order_id"))


def c_lookup_before_eligibility(t: Trace, ctx: Any) -> bool:
    return before_each(t, lambda e: arg(e, "check_eligibility", "order_id"), lambda e: arg(e, "lookup_order", "order_id"))


def c_lookup_before_refund(t: Trace, ctx: Any) -> bool:
    return before_each(t, lambda e: arg(e, "issue_refund", "order_id"), lambda e: arg(e, "lookup_order", "order_id"))


def c_eligible_before_refund(t: Trace, ctx: Any) -> bool:
    return before_each(t, lambda e: arg(e, "issue_refund", "order_id"), eligible)


def c_refund_at_most_total(t: Trace, ctx: Any) -> bool:
    return all(any(x.name == "lookup_order" and x.args["order_id"] == e.args["order_id"] and x.result["total"] >= e.args["amount"]
                   for x in t[:i + 1])
               for i, e in enumerate(t) if e.name == "issue_refund")


def c_refund_in_range(t: Trace, ctx: Any) -> bool:
    return all(amount_ok(e) for e in t if e.name == "issue_refund")


def c_refunded_once(t: Trace, ctx: Any) -> bool:
    orders = [e.args["order_id"] for e in t if e.name == "issue_refund"]
    return all(orders.count(o) <= 1 for o in orders)


def c_few_refunds(t: Trace, ctx: Any) -> bool:
    return sum(e.name == "issue_refund" for e in t) <= 3


def c_big_not_refunded(t: Trace, ctx: Any) -> bool:
    return all(not any(y.name == "issue_refund" and y.args["order_id"] == o for y in t[j:])
               for j, x in enumerate(t) for o in big_order(x))


def c_big_to_finance(t: Trace, ctx: Any) -> bool:
    return all(any(to_finance(y) for y in t[i:]) for i, e in enumerate(t) if big_order(e))


def c_no_refund_after_escalation(t: Trace, ctx: Any) -> bool:
    return not any(a.name == "escalate" and any(b.name == "issue_refund" for b in t[i + 1:]) for i, a in enumerate(t))


def c_notes_on_open_tickets(t: Trace, ctx: Any) -> bool:
    return before_each(t, ticket_touched, ticket_opened)


def c_tickets_finished(t: Trace, ctx: Any) -> bool:
    return all(all(any(k in ticket_finished(y) for y in t[i:]) for k in ticket_opened(e)) for i, e in enumerate(t))


def c_note_before_closing(t: Trace, ctx: Any) -> bool:
    return before_each(t, lambda e: arg(e, "close_ticket", "ticket_id"), lambda e: arg(e, "add_note", "ticket_id"))


def c_nothing_after_closing(t: Trace, ctx: Any) -> bool:
    return all(not any(y.name == "add_note" and y.args["ticket_id"] == e.args["ticket_id"] for y in t[i + 1:])
               for i, e in enumerate(t) if e.name == "close_ticket")


def c_answers(t: Trace, ctx: Any) -> bool:
    return any(e.name == "reply" for e in t)


def c_says_only_done(t: Trace, ctx: Any) -> bool:
    return claimed(t) <= done_tools(t)


# ------------------------------------------------------------------------------------------------
# Monitors the generic ones do not cover


class RefundWithinTotal(Monitor):
    def relevant(self, e: Event) -> bool:
        return e.name in ("lookup_order", "issue_refund")

    def init(self) -> Any:
        return frozenset()  # (order, total) pairs looked up

    def step(self, s: Any, e: Event, ctx: Any) -> Any:
        if e.name == "lookup_order":
            return s | {(e.args["order_id"], e.result["total"])}
        if not any(o == e.args["order_id"] and total >= e.args["amount"] for o, total in s):
            return DEAD
        return s


class NoneAfter(Monitor):
    """after an event with key k, no later event with the forbidden key k (strictly later)."""

    def __init__(self, first: Any, then: Any) -> None:
        self.first, self.then = first, then

    def relevant(self, e: Event) -> bool:
        return bool(self.first(e) or self.then(e))

    def init(self) -> Any:
        return frozenset()

    def step(self, s: Any, e: Event, ctx: Any) -> Any:
        if any(k in s for k in self.then(e)):
            return DEAD
        return s | frozenset(self.first(e))


class ClaimsDone(Monitor):
    def relevant(self, e: Event) -> bool:
        return e.name == "reply" or e.name in ("issue_refund", "escalate")

    def init(self) -> Any:
        return (frozenset(), frozenset())  # (tools done, tools claimed)

    def step(self, s: Any, e: Event, ctx: Any) -> Any:
        done, said = s
        if e.name == "reply":
            return (done, said | CLAIMS[e.args["text"]])
        return (done | ({e.name} if not e.error else set()), said)

    def accept(self, s: Any, ctx: dict[str, Any]) -> bool:
        return s[1] <= s[0]


def one(pred: Any) -> Any:
    return lambda e: {True} if pred(e) else set()


RULES = [
    Rule("verified_customer_first", c_verified_first,
         Precede(one(lambda e: e.name in ("lookup_order", "open_ticket")), one(lambda e: bool(verified_email(e))))),
    Rule("mail_only_verified_addresses", c_mail_verified, Precede(lambda e: arg(e, "send_email", "to"), verified_email)),
    Rule("lookup_before_update", c_lookup_before_update,
         Precede(lambda e: arg(e, "update_order", "order_id"), lambda e: arg(e, "lookup_order", "order_id"))),
    Rule("lookup_before_eligibility", c_lookup_before_eligibility,
         Precede(lambda e: arg(e, "check_eligibility", "order_id"), lambda e: arg(e, "lookup_order", "order_id"))),
    Rule("lookup_before_refund", c_lookup_before_refund,
         Precede(lambda e: arg(e, "issue_refund", "order_id"), lambda e: arg(e, "lookup_order", "order_id"))),
    Rule("eligible_before_refund", c_eligible_before_refund,
         Precede(lambda e: arg(e, "issue_refund", "order_id"), eligible)),
    Rule("refund_at_most_the_total", c_refund_at_most_total, RefundWithinTotal()),
    Rule("refund_amount_in_range", c_refund_in_range, Never(lambda e: e.name == "issue_refund" and not amount_ok(e)),
         trigger=lambda e: e.name == "issue_refund"),
    Rule("each_order_refunded_once", c_refunded_once, Cap(lambda e: arg(e, "issue_refund", "order_id"), 1)),
    Rule("few_refunds_per_conversation", c_few_refunds, Cap(one(lambda e: e.name == "issue_refund"), 3)),
    Rule("big_orders_are_not_refunded_here", c_big_not_refunded,
         NoneAfter(big_order, lambda e: arg(e, "issue_refund", "order_id")),
         trigger=lambda e: bool(big_order(e))),
    Rule("big_orders_go_to_finance", c_big_to_finance, Respond(one(lambda e: bool(big_order(e))), one(to_finance)),
         trigger=lambda e: bool(big_order(e))),
    Rule("no_refund_after_escalation", c_no_refund_after_escalation,
         NoneAfter(one(lambda e: e.name == "escalate"), one(lambda e: e.name == "issue_refund"))),
    Rule("notes_on_open_tickets", c_notes_on_open_tickets, Precede(ticket_touched, ticket_opened)),
    Rule("every_ticket_is_closed_or_escalated", c_tickets_finished, Respond(ticket_opened, ticket_finished)),
    Rule("a_note_before_closing", c_note_before_closing,
         Precede(lambda e: arg(e, "close_ticket", "ticket_id"), lambda e: arg(e, "add_note", "ticket_id"))),
    Rule("nothing_after_closing", c_nothing_after_closing,
         NoneAfter(lambda e: arg(e, "close_ticket", "ticket_id"), lambda e: arg(e, "add_note", "ticket_id"))),
    Rule("answers_the_customer", c_answers, Seen(lambda e: e.name == "reply", lambda s, ctx: s)),
    Rule("says_only_what_was_done", c_says_only_done, ClaimsDone()),
]
# The situations of the implication rules: can they happen in a compliant trace?
TRIGGERS = {
    "verified_customer_first": lambda e: e.name in ("lookup_order", "open_ticket"),
    "mail_only_verified_addresses": lambda e: e.name == "send_email",
    "lookup_before_update": lambda e: e.name == "update_order",
    "lookup_before_eligibility": lambda e: e.name == "check_eligibility",
    "lookup_before_refund": lambda e: e.name == "issue_refund",
    "eligible_before_refund": lambda e: e.name == "issue_refund",
    "refund_at_most_the_total": lambda e: e.name == "issue_refund",
    "no_refund_after_escalation": lambda e: e.name == "escalate",
    "notes_on_open_tickets": lambda e: bool(ticket_touched(e)),
    "every_ticket_is_closed_or_escalated": lambda e: bool(ticket_opened(e)),
    "a_note_before_closing": lambda e: e.name == "close_ticket",
    "nothing_after_closing": lambda e: e.name == "close_ticket",
    "says_only_what_was_done": lambda e: e.name == "reply" and bool(CLAIMS[e.args["text"]]),
}
for _r in RULES:
    _r.trigger = _r.trigger or TRIGGERS.get(_r.name)
TOOLS = ["find_customer", "lookup_order", "check_eligibility", "issue_refund", "update_order", "open_ticket",
         "add_note", "close_ticket", "escalate", "send_email", "reply"]

def _by_label(*labels: str) -> list[Event]:
    index = {e.label: e for e in POOL}
    return [index[x] for x in labels]


# Four refunds need 13 calls, beyond the search: this trace breaks few_refunds_per_conversation and no other rule.
FOUR_REFUNDS = _by_label(
    f"find_customer(email='{E1}') -> verified",
    *[x for o in (O1, O2, O3, O4) for x in (f"lookup_order(order_id='{o}') -> total 900",
                                            f"check_eligibility(order_id='{o}') -> eligible",
                                            f"issue_refund(order_id='{o}', amount=100.0)")],
    f"reply(text='{NEUTRAL_REPLY}')",
)
POLICY = Policy("support_desk", POOL, RULES, CONTEXTS, TOOLS,
                hints={"few_refunds_per_conversation": (0, FOUR_REFUNDS)})


def anthropic_record(trace: Trace, trace_id: str, opening: str) -> dict[str, Any]:
    """The trace as Anthropic Messages: tool_use blocks, tool_result blocks with is_error."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": opening}]
    for n, e in enumerate(trace, 1):
        tid = f"toolu_{n:02d}"
        messages.append({"role": "assistant", "content": [{"type": "tool_use", "id": tid, "name": e.name, "input": e.args}]})
        if e.terminal:
            continue
        content = e.result if isinstance(e.result, str) else json.dumps(e.result if e.result is not None else {})
        messages.append({"role": "user", "content": [{"type": "tool_result", "tool_use_id": tid, "content": content,
                                                      "is_error": e.error}]})
    return {"id": trace_id, "messages": messages}


def main() -> None:
    max_len = int(sys.argv[1]) if len(sys.argv) > 1 else 9
    facts = report(POLICY, max_len=max_len, core_len=6, witness_len=9, random_traces=20000)
    here = Path(__file__).parent
    opening = f"Hi, this is {E1}. I'd like a refund for order {O1}."
    # the compliant witness: a refund by the book, with its ticket
    found = find_trace(POLICY, 10, goal_event=lambda e: e.name == "close_ticket")
    refund = find_trace(POLICY, 10, goal_event=lambda e: e.name == "issue_refund")
    assert found is not None and refund is not None
    records = []
    for tid, (ci, trace) in (("compliant-ticket", found), ("compliant-refund", refund)):
        verify(POLICY, trace, CONTEXTS[ci], set())
        print(f"compliant witness {tid} ({len(trace)} events): {[e.label for e in trace]}")
        records.append(anthropic_record(trace, tid, opening))
    dump(str(here / "witnesses" / "support_desk_compliant.json"), records)
    records = []
    for r in RULES:
        res = find_trace(POLICY, 8, violate=r.name) or POLICY.hints.get(r.name)
        if res is None:
            print(f"  no trace of <= 8 events breaks only {r.name}")
            continue
        ci, trace = res
        verify(POLICY, trace, CONTEXTS[ci], {r.name})
        records.append(anthropic_record(trace, r.name, opening))
    print(f"counterexamples written for {len(records)} of {len(RULES)} rules")
    dump(str(here / "witnesses" / "support_desk_counterexamples.json"), records)
    dump(str(here / "results" / "oracle_support_desk.json"), facts)


if __name__ == "__main__":
    main()
