"""S1's hand-written table gate: what an engineer would code for exactly these 25 (or 50) rules.

Flags, counters and sets of ids; each rule checked on its own when its tool is proposed, and
the obligations when a terminal call is proposed. No reasoning about rules together.
"""

from __future__ import annotations


class SupportGate:
    def __init__(self, request: str = "", big: bool = False):
        self.big = big
        self.asked_cancel = "cancel" in request.lower()
        self.found, self.gold, self.emails = set(), set(), set()
        self.verified_any = self.failed_check = self.sq_verified = False
        self.verified = set()
        self.verifies = self.refunds = self.vouchers = self.emails_sent = 0
        self.cancels = self.escalations = self.tickets = self.kb = 0
        self.looked_up, self.placed, self.totals, self.lookups = set(), set(), {}, {}
        self.eligible, self.owed_refund, self.refunded, self.cancelled = set(), set(), set(), set()
        self.addressed = set()
        self.created, self.escalated, self.ticket_owed, self.ticketed = set(), set(), set(), set()
        self.fraud = self.email_owed = self.kb_done = self.any_escalation = False

    def propose(self, tool: str, args: dict) -> bool:
        big = self.big
        if tool == "verify_identity":
            return (args["customer_id"] in self.found and self.verifies < 3
                    and not (big and args["method"] == "email"))
        if tool == "check_eligibility":
            return args["order_id"] in self.looked_up
        if tool == "get_order":
            return not big or (bool(self.found) and self.lookups.get(args["order_id"], 0) < 2)
        if tool == "issue_refund":
            o, amount = args["order_id"], args["amount"]
            ok = (self.verified_any and o in self.eligible and o not in self.refunded and amount <= 500
                  and self.refunds < 2 and o not in self.cancelled and not self.fraud)
            if ok and big:
                ok = (self.vouchers == 0 and (amount <= 200 or self.tickets > 0)
                      and amount <= self.totals.get(o, -1))
            return ok
        if tool == "cancel_order":
            o = args["order_id"]
            ok = self.verified_any and o in self.placed
            if ok and big:
                ok = o not in self.refunded and self.cancels < 2 and self.asked_cancel
            return ok
        if tool == "change_address":
            o = args["order_id"]
            ok = self.verified_any and o in self.placed
            return ok and (not big or (o not in self.addressed and self.sq_verified))
        if tool == "issue_voucher":
            c, value = args["customer_id"], args["value"]
            ok = self.verified_any and value <= 50 and self.vouchers < 1 and not self.fraud
            if ok and big:
                ok = (c in self.verified and (value <= 20 or c in self.gold) and not self.failed_check
                      and self.refunds == 0)
            return ok
        if tool == "send_email":
            ok = self.emails_sent < 3 and "password" not in args["body"].lower()
            return ok and (not big or args["to"] in self.emails)
        if tool in ("close_ticket", "escalate"):
            t = args["ticket_id"]
            if tool == "close_ticket":
                return t in self.created and t not in self.escalated
            return t in self.created and (not big or self.escalations < 2)
        if tool == "create_ticket":
            return not big or (self.tickets < 2 and args["customer_id"] not in self.ticketed)
        if tool == "search_kb":
            return not big or self.kb < 4
        if tool == "transfer_to_human":
            ok = self.refunds == 0 and self.any_escalation and not self.email_owed
            if ok and big:
                ok = self.tickets > 0 and len(args["summary"]) >= 10 and not self.owed_refund
            return ok
        if tool == "final_answer":
            ok = self.kb_done and not self.ticket_owed and not self.email_owed
            if ok and big:
                ok = not self.fraud and not self.owed_refund and (
                    self.refunds > 0 or "refund" not in args["text"].lower())
            return ok
        return True

    def record(self, tool: str, args: dict, result) -> None:
        if tool == "find_customer":
            self.found.add(result["customer_id"])
            self.emails.add(args["email"])
            if result["tier"] == "gold":
                self.gold.add(result["customer_id"])
        elif tool == "verify_identity":
            self.verifies += 1
            if result["verified"]:
                self.verified_any = True
                self.verified.add(args["customer_id"])
                self.sq_verified = self.sq_verified or args["method"] == "security_question"
            else:
                self.failed_check = True
        elif tool == "get_order":
            o = args["order_id"]
            self.looked_up.add(o)
            self.lookups[o] = self.lookups.get(o, 0) + 1
            self.totals[o] = max(self.totals.get(o, -1), result["total"])
            if result["status"] == "placed":
                self.placed.add(o)
        elif tool == "check_eligibility":
            if result["eligible"]:
                self.eligible.add(args["order_id"])
                self.owed_refund.add(args["order_id"])
        elif tool == "issue_refund":
            self.refunded.add(args["order_id"])
            self.owed_refund.discard(args["order_id"])
            self.refunds += 1
            self.email_owed = True
        elif tool == "cancel_order":
            self.cancelled.add(args["order_id"])
            self.cancels += 1
            if self.big and result["cancelled"]:
                self.email_owed = True
        elif tool == "change_address":
            self.addressed.add(args["order_id"])
        elif tool == "issue_voucher":
            self.vouchers += 1
        elif tool == "send_email":
            self.emails_sent += 1
            self.email_owed = False
        elif tool == "search_kb":
            self.kb += 1
            self.kb_done = True
        elif tool == "create_ticket":
            self.tickets += 1
            self.created.add(result["ticket_id"])
            self.ticket_owed.add(result["ticket_id"])
            self.ticketed.add(args["customer_id"])
        elif tool == "close_ticket":
            self.ticket_owed.discard(args["ticket_id"])
        elif tool == "escalate":
            self.escalated.add(args["ticket_id"])
            self.escalations += 1
            self.any_escalation = True
            self.fraud = self.fraud or args["team"] == "fraud"
