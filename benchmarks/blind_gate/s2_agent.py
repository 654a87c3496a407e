"""S2's world (what the tools return) and the desk agent's workflow.

The session starts with a queue of 3-6 tickets, each about one order. The workflow per ticket:
read it, open it (unless the system shows it closed), look the order up, check eligibility,
refund an eligible order, note, close. Along the way the agent sometimes escalates (to
billing, fraud or tier 2: an escalation after opening dooms the ticket's close), cancels or
updates orders, and reports; the noise calls pick any tool with ids it knows or invents.
"""

from __future__ import annotations

import random

TEAMS = ["billing", "fraud", "tier2"]
AMOUNTS = [40.0, 150.0, 200.0, 250.0, 480.0]


class DeskWorld:
    def __init__(self, rng: random.Random):
        self.rng = rng
        n = rng.randint(3, 6)
        self.queue = [(f"T-{i}", f"O-{i}") for i in range(1, n + 1)]
        self.tickets = {t: rng.choice(["new", "new", "pending", "closed"]) for t, _ in self.queue}
        self.orders = {o: (rng.choice(["placed", "shipped", "delivered", "delivered", "cancelled"]),
                           rng.choice([60.0, 120.0, 180.0, 320.0]), rng.random() < 0.6) for _, o in self.queue}
        self.request = ""

    def result(self, tool: str, args: dict):
        rng = self.rng
        if tool == "get_ticket":
            return {"status": self.tickets.setdefault(args["ticket_id"], rng.choice(["new", "closed"]))}
        if tool == "lookup_order":
            st, total, _ = self._order(args["order_id"])
            return {"status": st, "total": total}
        if tool == "check_refund_eligibility":
            return {"eligible": self._order(args["order_id"])[2]}
        if tool == "escalate":
            return {"queue": args["team"]}
        if tool == "issue_refund":
            return {"refund_id": f"R-{args['order_id']}"}
        if tool == "final_report":
            return None
        return {"ok": True}

    def _order(self, o: str):
        if o not in self.orders:
            self.orders[o] = (self.rng.choice(["placed", "delivered"]), 90.0, self.rng.random() < 0.5)
        return self.orders[o]


class DeskScript:
    def __init__(self, world: DeskWorld):
        self.world = world
        self.seen: dict[str, dict] = {t: {} for t, _ in world.queue}
        self.order_of = dict(world.queue)
        self.facts: dict[str, dict] = {}

    def observe(self, tool: str, args: dict, result) -> None:
        if "ticket_id" in args:
            self.seen.setdefault(args["ticket_id"], {})[tool] = result
        if "order_id" in args:
            self.facts.setdefault(args["order_id"], {})[tool] = result

    def candidates(self) -> list:
        out = []
        for t, o in self.world.queue:
            done, facts = self.seen[t], self.facts.get(o, {})
            if "close_ticket" in done or "escalate" in done:
                continue
            if "get_ticket" not in done:
                out.append((6, "get_ticket", {"ticket_id": t}))
            elif done["get_ticket"]["status"] == "closed":
                continue
            elif "open_ticket" not in done:
                out += [(6, "open_ticket", {"ticket_id": t}), (1, "escalate", {"ticket_id": t, "team": "billing"})]
            elif "lookup_order" not in facts:
                out.append((6, "lookup_order", {"order_id": o}))
            elif "check_refund_eligibility" not in facts:
                out += [(5, "check_refund_eligibility", {"order_id": o}), (1, "cancel_order", {"order_id": o}),
                        (1, "update_order", {"order_id": o, "address": "2 High St"})]
            elif facts["check_refund_eligibility"]["eligible"] and "issue_refund" not in facts:
                total = facts["lookup_order"]["total"]
                out += [(6, "issue_refund", {"order_id": o, "amount": min(total, 200.0), "ticket_id": t}),
                        (1, "issue_refund", {"order_id": o, "amount": total, "ticket_id": t}),
                        (1, "escalate", {"ticket_id": t, "team": "fraud"})]
            elif "add_note" not in done:
                out += [(6, "add_note", {"ticket_id": t, "text": "customer informed"}),
                        (1, "escalate", {"ticket_id": t, "team": "tier2"})]
            else:
                out += [(6, "close_ticket", {"ticket_id": t, "resolution": "resolved"}),
                        (1, "escalate", {"ticket_id": t, "team": self._team()})]
            break
        out.append((0.5 if out else 6, "final_report", {"summary": "queue worked"}))
        return out

    def _team(self) -> str:
        return self.world.rng.choice(TEAMS)

    def noise(self, rng: random.Random):
        tickets = [t for t, _ in self.world.queue] + [f"T-{rng.randint(5, 9)}"]
        orders = [o for _, o in self.world.queue] + [f"O-{rng.randint(5, 9)}"]
        t, o = rng.choice(tickets), rng.choice(orders)
        return rng.choice([
            ("get_ticket", {"ticket_id": t}),
            ("open_ticket", {"ticket_id": t}),
            ("add_note", {"ticket_id": t, "text": "checked"}),
            ("escalate", {"ticket_id": t, "team": rng.choice(TEAMS)}),
            ("close_ticket", {"ticket_id": t, "resolution": "done"}),
            ("lookup_order", {"order_id": o}),
            ("update_order", {"order_id": o, "address": "9 Side St"}),
            ("check_refund_eligibility", {"order_id": o}),
            ("issue_refund", {"order_id": o, "amount": rng.choice(AMOUNTS), "ticket_id": t}),
            ("cancel_order", {"order_id": o}),
            ("final_report", {"summary": "done"}),
        ])
