"""S1, the support agent: its rules as hand-written monitors, and the oracle's domains.

`rules(50)` is s1_support_50.altl (the 25 of s1_support_25.altl, then 25 more), `rules(25)`
the first 25; each monitor restates the rule of the same name.
"""

from __future__ import annotations

from .joint import Key, Tool
from .model import Cap, Custom, Eventually, Never, Pat, Requires, Response, Rules, ThenNever, arg, res

C, E, O, T = "customer", "email", "order", "ticket"
cid, oid, tid = arg("customer_id"), arg("order_id"), arg("ticket_id")
MONEY = ["issue_refund", "cancel_order", "change_address", "issue_voucher"]


def _is(field: str, value):
    return lambda c: isinstance(c.result, dict) and c.result.get(field) == value


def _argis(name: str, value):
    return lambda c: c.args.get(name) == value


def _num(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def _le(name: str, bound):
    return lambda c: _num(c.args.get(name)) and c.args[name] <= bound


def _gt(name: str, bound):
    return lambda c: _num(c.args.get(name)) and c.args[name] > bound


def _not(f):
    return lambda c: not f(c)


def _contains(name: str, part: str):
    return lambda c: isinstance(c.args.get(name), str) and part in c.args[name].lower()


def rules_25() -> list:
    return [
        Requires("lookup_before_verify", [Pat("verify_identity", key=cid)],
                 [Pat("find_customer", key=res("customer_id"))], sort=C),
        Requires("verified_before_changes", [Pat(t) for t in MONEY], [Pat("verify_identity", _is("verified", True))]),
        Cap("verify_attempts", 3, Pat("verify_identity")),
        ThenNever("no_transfer_after_refund", [Pat("issue_refund")], [Pat("transfer_to_human")]),
        Requires("order_before_eligibility", [Pat("check_eligibility", key=oid)], [Pat("get_order", key=oid)], sort=O),
        Requires("eligible_before_refund", [Pat("issue_refund", key=oid)],
                 [Pat("check_eligibility", _is("eligible", True), key=oid)], sort=O),
        Cap("refund_once", 1, Pat("issue_refund", key=oid), sort=O),
        Never("refund_cap", Pat("issue_refund", _not(_le("amount", 500)))),
        Cap("refunds_per_conversation", 2, Pat("issue_refund")),
        ThenNever("no_refund_after_cancel", [Pat("cancel_order", key=oid)], [Pat("issue_refund", key=oid)], sort=O),
        Requires("cancel_only_placed", [Pat("cancel_order", key=oid)],
                 [Pat("get_order", _is("status", "placed"), key=oid)], sort=O),
        Requires("address_only_before_shipping", [Pat("change_address", key=oid)],
                 [Pat("get_order", _is("status", "placed"), key=oid)], sort=O),
        Never("voucher_cap", Pat("issue_voucher", _not(_le("value", 50)))),
        Cap("one_voucher", 1, Pat("issue_voucher")),
        Response("ticket_resolved", [Pat("create_ticket", key=res("ticket_id"))],
                 [Pat("close_ticket", key=tid), Pat("transfer_to_human")], sort=T),
        ThenNever("escalated_never_closed", [Pat("escalate", key=tid)], [Pat("close_ticket", key=tid)], sort=T),
        Requires("close_known_tickets", [Pat("close_ticket", key=tid)],
                 [Pat("create_ticket", key=res("ticket_id"))], sort=T),
        Requires("escalate_known_tickets", [Pat("escalate", key=tid)],
                 [Pat("create_ticket", key=res("ticket_id"))], sort=T),
        ThenNever("fraud_stops_money", [Pat("escalate", _argis("team", "fraud"))],
                  [Pat("issue_refund"), Pat("issue_voucher")]),
        Response("refund_confirmed", [Pat("issue_refund")], [Pat("send_email")]),
        Requires("kb_before_answer", [Pat("final_answer")], [Pat("search_kb")]),
        Eventually("ends_with_an_answer", Pat("final_answer"), Pat("transfer_to_human")),
        Requires("transfer_after_escalation", [Pat("transfer_to_human")], [Pat("escalate")]),
        Cap("email_cap", 3, Pat("send_email")),
        Never("no_passwords_by_email", Pat("send_email", _contains("body", "password"))),
    ]


def _within_total(s, call, value):
    """Per order: (the largest total a lookup showed, or -1; 1 once a refund exceeded it)."""
    top, bad = s
    if bad:
        return s
    if call.tool == "issue_refund" and call.args.get("order_id") == value:
        m = call.args.get("amount")
        return top, int(not (_num(m) and top >= 0 and m <= top))
    if call.tool == "get_order" and call.args.get("order_id") == value and isinstance(call.result, dict):
        total = call.result.get("total")
        if _num(total):
            return max(top, total), 0
    return s


def _refund_or_voucher(s, call, value=None):
    return s | (1 if call.tool == "issue_voucher" else 2 if call.tool == "issue_refund" else 0)


def _cancel_on_request(request: str):
    return 0 if "cancel" in request.lower() else 1


def rules_50_more() -> list:
    on_request = Custom("cancel_only_on_request", [Pat("cancel_order")],
                        lambda s, c, v: 2 if s == 1 and c.tool == "cancel_order" else s,
                        lambda s: s != 2, lambda s: s == 2)
    on_request.begin = _cancel_on_request
    return [
        Never("no_email_verification", Pat("verify_identity", _argis("method", "email"))),
        Requires("transfer_needs_ticket", [Pat("transfer_to_human")], [Pat("create_ticket")]),
        Requires("gold_for_big_vouchers", [Pat("issue_voucher", _gt("value", 20), key=cid)],
                 [Pat("find_customer", _is("tier", "gold"), key=res("customer_id"))], sort=C),
        Requires("voucher_to_verified_customer", [Pat("issue_voucher", key=cid)],
                 [Pat("verify_identity", _is("verified", True), key=cid)], sort=C),
        ThenNever("no_voucher_after_failed_check", [Pat("verify_identity", _is("verified", False))],
                  [Pat("issue_voucher")]),
        Cap("one_ticket_per_customer", 1, Pat("create_ticket", key=cid), sort=C),
        Requires("email_to_known_address", [Pat("send_email", key=arg("to"))],
                 [Pat("find_customer", key=arg("email"))], sort=E),
        Custom("refund_or_voucher", [Pat("issue_voucher"), Pat("issue_refund")], _refund_or_voucher,
               lambda s: s != 3, lambda s: s == 3),
        Requires("big_refund_needs_ticket", [Pat("issue_refund", _gt("amount", 200))], [Pat("create_ticket")]),
        Custom("refund_within_total", [Pat("issue_refund", key=oid), Pat("get_order", key=oid)], _within_total,
               lambda s: s[1] == 0, lambda s: s[1] == 1, init=(-1, 0), sort=O),
        Response("eligible_orders_refunded", [Pat("check_eligibility", _is("eligible", True), key=oid)],
                 [Pat("issue_refund", key=oid)], sort=O),
        ThenNever("no_cancel_after_refund", [Pat("issue_refund", key=oid)], [Pat("cancel_order", key=oid)], sort=O),
        Response("cancel_confirmed", [Pat("cancel_order", _is("cancelled", True))], [Pat("send_email")]),
        Cap("cancels_per_conversation", 2, Pat("cancel_order")),
        Cap("address_once", 1, Pat("change_address", key=oid), sort=O),
        Requires("address_needs_security_question", [Pat("change_address")],
                 [Pat("verify_identity", lambda c: c.args.get("method") == "security_question"
                      and _is("verified", True)(c))]),
        Cap("lookups_per_order", 2, Pat("get_order", key=oid), sort=O),
        Requires("customer_before_orders", [Pat("get_order")], [Pat("find_customer")]),
        on_request,
        Cap("escalation_cap", 2, Pat("escalate")),
        Cap("tickets_per_conversation", 2, Pat("create_ticket")),
        ThenNever("fraud_means_hand_over", [Pat("escalate", _argis("team", "fraud"))], [Pat("final_answer")]),
        Requires("refund_claims_need_a_refund", [Pat("final_answer", _contains("text", "refund"))],
                 [Pat("issue_refund")]),
        Never("hand_over_with_a_summary", Pat("transfer_to_human",
                                              lambda c: not (isinstance(c.args.get("summary"), str)
                                                             and len(c.args["summary"]) >= 10))),
        Cap("kb_cap", 4, Pat("search_kb")),
    ]


def rules(size: int) -> Rules:
    return Rules(rules_25() + (rules_50_more() if size == 50 else []))


def tools(size: int) -> list[Tool]:
    """The continuation pool: every distinction the rules of that size make, and no other."""
    big = size == 50
    return [
        Tool("find_customer", {"email": Key(E)}, {"customer_id": Key(C), "tier": ["standard", "gold"]}),
        Tool("verify_identity", {"customer_id": Key(C), "method": ["sms", "email", "security_question"]},
             {"verified": [True, False]}),
        Tool("get_order", {"order_id": Key(O)}, {"status": ["placed", "shipped", "delivered", "cancelled"],
                                                 "total": [60.0, 320.0, 700.0] if big else [320.0]}),
        Tool("check_eligibility", {"order_id": Key(O)}, {"eligible": [True, False]}),
        Tool("issue_refund", {"order_id": Key(O), "amount": [1.0, 250.0, 600.0] if big else [1.0, 600.0]},
             {"refund_id": ["R-1"]}),
        Tool("cancel_order", {"order_id": Key(O)}, {"cancelled": [True, False] if big else [True]}),
        Tool("issue_voucher", {"customer_id": Key(C), "value": [10.0, 30.0, 60.0] if big else [30.0, 60.0]},
             {"code": ["V-1"]}),
        Tool("change_address", {"order_id": Key(O), "address": ["1 Main St"]}, {"ok": [True]}),
        Tool("send_email", {"to": Key(E), "subject": ["Your case"],
                            "body": ["Here is an update.", "Your new password is 1234"]}, {"sent": [True]}),
        Tool("search_kb", {"query": ["refund policy"]}, [["kb-1"]]),
        Tool("create_ticket", {"customer_id": Key(C), "summary": ["case"]}, {"ticket_id": Key(T)}),
        Tool("close_ticket", {"ticket_id": Key(T), "resolution": ["resolved"]}, {"closed": [True]}),
        Tool("escalate", {"ticket_id": Key(T), "team": ["billing", "logistics", "fraud"]}, {"queue": ["q"]}),
        Tool("transfer_to_human", {"summary": ["short", "Customer needs a specialist."] if big
                                   else ["Customer needs a specialist."]}, None, terminal=True),
        Tool("final_answer", {"text": ["Here is what I found.", "Your refund is on its way."] if big
                              else ["Here is what I found."]}, None, terminal=True),
    ]
