"""S2, the ticket/refund desk: its 17 rules as hand-written monitors, and the oracle's domains.

Each rule below restates one rule of `s2_desk.altl`, in the same order, by its name.
"""

from __future__ import annotations

from .model import Cap, Eventually, Never, Pat, Requires, Response, Rules, ThenNever, arg
from .joint import Key, Tool

T, O = "ticket", "order"
tid, oid = arg("ticket_id"), arg("order_id")


def _is(field: str, value):
    return lambda c: isinstance(c.result, dict) and c.result.get(field) == value


def rules() -> Rules:
    return Rules([
        Requires("read_before_open", [Pat("open_ticket", key=tid)], [Pat("get_ticket", key=tid)], sort=T),
        ThenNever("closed_stays_closed", [Pat("get_ticket", _is("status", "closed"), key=tid)],
                  [Pat("open_ticket", key=tid)], sort=T),
        Response("opened_tickets_closed", [Pat("open_ticket", key=tid)], [Pat("close_ticket", key=tid)], sort=T),
        ThenNever("escalated_not_closed", [Pat("escalate", key=tid)], [Pat("close_ticket", key=tid)], sort=T),
        Requires("note_before_close", [Pat("close_ticket", key=tid)], [Pat("add_note", key=tid)], sort=T),
        Requires("refund_on_an_open_ticket", [Pat("issue_refund", key=tid)], [Pat("open_ticket", key=tid)], sort=T),
        Requires("lookup_before_update", [Pat("update_order", key=oid)], [Pat("lookup_order", key=oid)], sort=O),
        Cap("refund_once", 1, Pat("issue_refund", key=oid), sort=O),
        ThenNever("no_refund_after_cancel", [Pat("cancel_order", key=oid)], [Pat("issue_refund", key=oid)], sort=O),
        Requires("eligible_before_refund", [Pat("issue_refund", key=oid)],
                 [Pat("check_refund_eligibility", _is("eligible", True), key=oid)], sort=O),
        Response("eligible_orders_refunded", [Pat("check_refund_eligibility", _is("eligible", True), key=oid)],
                 [Pat("issue_refund", key=oid)], sort=O),
        Cap("escalation_cap", 2, Pat("escalate")),
        ThenNever("tier2_takes_over", [Pat("escalate", lambda c: c.args.get("team") == "tier2")],
                  [Pat("close_ticket")]),
        ThenNever("fraud_stops_refunds", [Pat("escalate", lambda c: c.args.get("team") == "fraud")],
                  [Pat("issue_refund")]),
        Never("refund_cap", Pat("issue_refund", lambda c: not _le(c.args.get("amount"), 200))),
        Cap("refunds_per_session", 2, Pat("issue_refund")),
        Eventually("report_at_the_end", Pat("final_report")),
    ])


def _le(x, bound) -> bool:
    """`x <= bound` as the language reads it: a missing or non-numeric x makes it false."""
    return isinstance(x, (int, float)) and not isinstance(x, bool) and x <= bound


# The oracle's finite domains: every distinction a rule makes, and nothing it does not.
# Amounts: each side of the one threshold (200). Statuses and teams: every enum member.
# Texts no rule reads: one value. Results no rule reads: one value.
TOOLS = [
    Tool("get_ticket", {"ticket_id": Key(T)}, {"status": ["new", "pending", "closed"]}),
    Tool("open_ticket", {"ticket_id": Key(T)}, {"ok": [True]}),
    Tool("add_note", {"ticket_id": Key(T), "text": ["customer informed"]}, {"ok": [True]}),
    Tool("escalate", {"ticket_id": Key(T), "team": ["billing", "fraud", "tier2"]}, {"queue": ["q"]}),
    Tool("close_ticket", {"ticket_id": Key(T), "resolution": ["resolved"]}, {"ok": [True]}),
    Tool("lookup_order", {"order_id": Key(O)},
         {"status": ["placed", "shipped", "delivered", "cancelled"], "total": [120.0]}),
    Tool("update_order", {"order_id": Key(O), "address": ["1 Main St"]}, {"ok": [True]}),
    Tool("check_refund_eligibility", {"order_id": Key(O)}, {"eligible": [True, False]}),
    Tool("issue_refund", {"order_id": Key(O), "amount": [100.0, 250.0], "ticket_id": Key(T)},
         {"refund_id": ["R-1"]}),
    Tool("cancel_order", {"order_id": Key(O)}, {"ok": [True]}),
    Tool("final_report", {"summary": ["done"]}, None, terminal=True),
]
