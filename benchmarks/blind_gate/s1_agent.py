"""S1's world (a customer, their orders, what the tools return) and the support agent's workflow.

The request names the customer's email, two to four orders and what the customer wants for
each (a refund, a cancellation, an address change, or a complaint answered with a voucher).
The workflow: find the customer, verify them, search the knowledge base, look each order up and
act on it, confirm by email, then answer, or open a ticket, escalate it and hand over. The
agent strays from it: it verifies by email, refunds too much, cancels what was refunded,
escalates to fraud, closes an escalated ticket, answers too early, and so on.
"""

from __future__ import annotations

import random

INTENTS = ["refund", "refund", "cancel", "address", "voucher"]
TEAMS = ["billing", "logistics", "fraud"]


class SupportWorld:
    def __init__(self, rng: random.Random):
        self.rng = rng
        self.email = rng.choice(["ann@example.com", "bo@example.org", "cy@example.net"])
        self.customer = ("C-" + self.email[:2].upper(), rng.choice(["standard", "standard", "gold"]))
        n = rng.randint(2, 4)
        self.orders = {f"O-{i}": (rng.choice(["placed", "shipped", "delivered", "delivered"]),
                                  rng.choice([60.0, 180.0, 320.0, 700.0]), rng.random() < 0.6)
                       for i in range(1, n + 1)}
        self.wants = {o: rng.choice(INTENTS) for o in self.orders}
        parts = [f"{'cancel' if w == 'cancel' else 'help with'} order {o} ({w})" for o, w in self.wants.items()]
        self.request = f"Hi, this is {self.email}. Please " + " and ".join(parts) + "."
        self.tickets = 0

    def result(self, tool: str, args: dict):
        rng = self.rng
        if tool == "find_customer":
            if args["email"] == self.email:
                return {"customer_id": self.customer[0], "tier": self.customer[1]}
            return {"customer_id": "C-" + args["email"][:2].upper(), "tier": "standard"}
        if tool == "verify_identity":
            return {"verified": args["customer_id"] == self.customer[0] and rng.random() < 0.75}
        if tool in ("get_order", "check_eligibility"):
            status, total, eligible = self.orders.setdefault(args["order_id"], ("delivered", 60.0, False))
            return {"status": status, "total": total} if tool == "get_order" else {"eligible": eligible}
        if tool == "cancel_order":
            return {"cancelled": self.orders.get(args["order_id"], ("",))[0] == "placed"}
        if tool == "create_ticket":
            self.tickets += 1
            return {"ticket_id": f"TK-{self.tickets}"}
        return {"issue_refund": {"refund_id": "R-9"}, "issue_voucher": {"code": "V-9"},
                "change_address": {"ok": True}, "send_email": {"sent": True}, "search_kb": ["kb-1"],
                "close_ticket": {"closed": True}, "escalate": {"queue": args.get("team")}}.get(tool)


class SupportScript:
    def __init__(self, world: SupportWorld):
        self.w = world
        self.cid = None
        self.verified = False
        self.tries = 0
        self.kb = False
        self.order: dict[str, dict] = {}
        self.tickets: list[str] = []
        self.escalated: list[str] = []
        self.emails_owed = 0
        self.refunded = 0
        self.vouchered = False

    def observe(self, tool: str, args: dict, result) -> None:
        if tool == "find_customer" and args["email"] == self.w.email:
            self.cid = result["customer_id"]
        elif tool == "verify_identity":
            self.tries += 1
            self.verified = self.verified or result["verified"]
        elif tool == "search_kb":
            self.kb = True
        elif tool == "create_ticket":
            self.tickets.append(result["ticket_id"])
        elif tool == "escalate":
            self.escalated.append(args["ticket_id"])
        elif tool == "send_email":
            self.emails_owed = 0
        elif tool == "issue_voucher":
            self.vouchered = True
        elif tool in ("issue_refund", "cancel_order"):
            self.emails_owed += 1
            self.refunded += tool == "issue_refund"
        if "order_id" in args:
            self.order.setdefault(args["order_id"], {})[tool] = result

    def candidates(self) -> list:
        w, out = self.w, []
        if self.cid is None:
            return [(6, "find_customer", {"email": w.email})]
        if not self.verified and self.tries < 3:
            return [(5, "verify_identity", {"customer_id": self.cid, "method": "sms"}),
                    (2, "verify_identity", {"customer_id": self.cid, "method": "security_question"}),
                    (1, "verify_identity", {"customer_id": self.cid, "method": "email"})]
        if not self.kb:
            out.append((3, "search_kb", {"query": "refund policy"}))
        for o, want in w.wants.items():
            done = self.order.get(o, {})
            if "get_order" not in done:
                out.append((5, "get_order", {"order_id": o}))
                break
            status, total = done["get_order"]["status"], done["get_order"]["total"]
            acted = {"issue_refund", "cancel_order", "change_address"} & set(done)
            if want == "refund" and "check_eligibility" not in done:
                out.append((5, "check_eligibility", {"order_id": o}))
                break
            if want == "refund" and done["check_eligibility"]["eligible"] and not acted:
                out += [(5, "issue_refund", {"order_id": o, "amount": min(total, 200.0)}),
                        (1, "issue_refund", {"order_id": o, "amount": total}),
                        (1, "cancel_order", {"order_id": o})]
                break
            if want == "cancel" and not acted:
                out += [(5 if status == "placed" else 1, "cancel_order", {"order_id": o}),
                        (1, "issue_refund", {"order_id": o, "amount": total})]
                break
            if want == "address" and not acted:
                out.append((4, "change_address", {"order_id": o, "address": "2 High St"}))
                break
            if want == "voucher" and not self.vouchered:
                out.append((4, "issue_voucher", {"customer_id": self.cid, "value": self.w.rng.choice([15.0, 40.0])}))
                break
        if self.emails_owed:
            out.append((5, "send_email", {"to": w.email, "subject": "Your case", "body": "Done as asked."}))
        out += self._endgame(bool(out))
        return out

    def _endgame(self, busy: bool) -> list:
        end = [(0.5 if busy else 2, "create_ticket", {"customer_id": self.cid, "summary": "needs a specialist"})]
        for t in self.tickets:
            if t not in self.escalated:
                end += [(2, "escalate", {"ticket_id": t, "team": self.w.rng.choice(TEAMS)}),
                        (2, "close_ticket", {"ticket_id": t, "resolution": "resolved"})]
        text = "Your refund is on its way." if self.refunded else "Here is what I found."
        end += [(0.5 if busy else 4, "final_answer", {"text": text}),
                (0.3 if busy else 1.5, "transfer_to_human", {"summary": "Customer needs a specialist."})]
        return end

    def noise(self, rng: random.Random):
        orders = list(self.w.orders) + ["O-8"]
        o = rng.choice(orders)
        t = rng.choice(self.tickets + ["TK-9"])
        c = self.cid or "C-XX"
        return rng.choice([
            ("find_customer", {"email": rng.choice([self.w.email, "eve@example.com"])}),
            ("verify_identity", {"customer_id": rng.choice([c, "C-ZZ"]), "method": rng.choice(["sms", "email"])}),
            ("get_order", {"order_id": o}),
            ("check_eligibility", {"order_id": o}),
            ("issue_refund", {"order_id": o, "amount": rng.choice([40.0, 150.0, 250.0, 480.0, 800.0])}),
            ("cancel_order", {"order_id": o}),
            ("issue_voucher", {"customer_id": c, "value": rng.choice([10.0, 30.0, 80.0])}),
            ("change_address", {"order_id": o, "address": "9 Side St"}),
            ("send_email", {"to": rng.choice([self.w.email, "eve@example.com"]), "subject": "Hi",
                            "body": rng.choice(["Update on your order.", "Your password is hunter2"])}),
            ("search_kb", {"query": "vouchers"}),
            ("create_ticket", {"customer_id": c, "summary": "follow-up"}),
            ("close_ticket", {"ticket_id": t, "resolution": "done"}),
            ("escalate", {"ticket_id": t, "team": rng.choice(TEAMS)}),
            ("transfer_to_human", {"summary": rng.choice(["help", "Customer needs a specialist."])}),
            ("final_answer", {"text": rng.choice(["Here is what I found.", "Your refund is on its way."])}),
        ])
