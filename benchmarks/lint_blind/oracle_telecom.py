"""Brute-force oracle for telecom.altl, written from the policy's text and the documentation.

Run: python benchmarks/lint_blind/oracle_telecom.py [MAX_LEN]
Imports nothing from policyc.

The universe is the one docs/semantics.md describes for a policy that observes messages and the
user's calls: a trace is any sequence of events (the agent's calls, the user's calls, messages of
either side); the request and the metrics record are trace-wide inputs (the request may be absent).
No structure between a message and the calls after it is assumed (a message's `calls` is an
argument like any other). The pool below has one event per class of events the rules tell apart;
tools no rule names, or that only one rule names in the same way, are represented by one of them.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from oracle_lib import (DEAD, Cap, ContextOnly, Event, Monitor, Never, NextMust, Policy, Precede, Respond, Rule,
                        Seen, Trace, dump, find_trace, msg, report, verify)

C1, C2 = "C1001", "C1002"
L1, L2 = "L1001", "L1002"
B1, B2 = "B1001", "B1002"
TODAY = "2025-02-25"
TRANSFER_TEXT = "YOU ARE BEING TRANSFERRED TO A HUMAN AGENT. PLEASE HOLD ON."


def user(name: str, result: Any, note: str | None = None, **args: Any) -> Event:
    return Event(name, args, result, actor="user", note=note)


def line_note(status: str, end: str | None, roaming: bool | None) -> str:
    return f"{status}, ends {end}" + ("" if roaming is None else f", roaming {str(roaming).lower()}")


def details(lid: str, status: str, end: str | None, roaming: bool | None) -> Event:
    return Event("get_details_by_id", {"id": lid}, line(lid, status, end, roaming), note=line_note(status, end, roaming))


def line(lid: str, status: str, end: str | None, roaming: bool | None) -> dict[str, Any]:
    d: dict[str, Any] = {"line_id": lid, "phone_number": "555-123-2002", "status": status, "plan_id": "P1001"}
    if end is not None:
        d["contract_end_date"] = end
    if roaming is not None:
        d["roaming_enabled"] = roaming
    return d


def customer(cid: str) -> dict[str, Any]:
    return {"customer_id": cid, "full_name": "John Smith", "date_of_birth": "1985-06-15",
            "phone_number": "555-123-2002", "account_status": "Active", "line_ids": [L1, L2], "bill_ids": [B1, B2]}


POOL: list[Event] = [
    # the agent's lookups: success and failure, and which customer they identify
    Event("get_customer_by_phone", {"phone_number": "555-123-2002"}, customer(C1), note=C1),
    Event("get_customer_by_phone", {"phone_number": "555-123-2003"}, customer(C2), note=C2),
    Event("get_customer_by_phone", {"phone_number": "555-000-0000"},
          "Error: Customer with phone number 555-000-0000 not found", error=True, note="not found"),
    Event("get_customer_by_phone", {"phone_number": "555-123-2002"}, customer(C1), error=True, note=C1),
    Event("get_customer_by_id", {"customer_id": C1}, customer(C1)),
    Event("get_customer_by_id", {"customer_id": C2}, customer(C2)),
    Event("get_customer_by_id", {"customer_id": C1}, f"Error: Customer with ID {C1} not found", error=True, note="not found"),
    Event("get_customer_by_name", {"full_name": "John Smith", "dob": "1985-06-15"}, [customer(C1)], note=f"[{C1}]"),
    Event("get_customer_by_name", {"full_name": "Jane Roe", "dob": "1990-01-01"}, [], note="[]"),
    Event("get_customer_by_name", {"full_name": "John Smith", "dob": "1985-06-15"}, [customer(C1)], error=True,
          note=f"[{C1}]"),
    # records: lines suspended or not, contract ended or not, roaming field present or not; bills
    details(L1, "Suspended", "2026-06-30", False),
    details(L1, "Suspended", "2024-12-31", False),
    details(L1, "Active", "2026-06-30", None),
    details(L1, "Active", "2024-12-31", True),
    details(L2, "Suspended", "2026-06-30", False),
    details(L2, "Suspended", "2024-12-31", False),
    Event("get_details_by_id", {"id": B1}, {"bill_id": B1, "customer_id": C1, "total_due": 65.0, "status": "Overdue"},
          note="Overdue"),
    Event("get_details_by_id", {"id": B1}, {"bill_id": B1, "customer_id": C1, "total_due": 65.0, "status": "Paid"},
          note="Paid"),
    Event("get_details_by_id", {"id": B2}, {"bill_id": B2, "customer_id": C1, "total_due": 40.0, "status": "Overdue"},
          note="Overdue"),
    Event("get_bills_for_customer", {"customer_id": C1}, [{"bill_id": B1, "status": "Overdue", "total_due": 65.0}],
          note=f"[{B1} Overdue]"),
    Event("get_bills_for_customer", {"customer_id": C1}, [{"bill_id": B1, "status": "Paid", "total_due": 65.0}],
          note=f"[{B1} Paid]"),
    Event("get_data_usage", {"customer_id": C1, "line_id": L1},
          {"line_id": L1, "data_used_gb": 15.2, "data_limit_gb": 15.0, "data_refueling_gb": 0.0}),
    Event("get_data_usage", {"customer_id": C1, "line_id": L2},
          {"line_id": L2, "data_used_gb": 3.0, "data_limit_gb": 15.0, "data_refueling_gb": 0.0}),
    # the agent's changes, for either customer and line
    Event("suspend_line", {"customer_id": C1, "line_id": L1, "reason": "customer request"}, {"message": "ok"}),
    Event("suspend_line", {"customer_id": C2, "line_id": L1, "reason": "customer request"}, {"message": "ok"}),
    Event("resume_line", {"customer_id": C1, "line_id": L1}, {"message": "Line resumed successfully"}),
    Event("resume_line", {"customer_id": C1, "line_id": L2}, {"message": "Line resumed successfully"}),
    Event("resume_line", {"customer_id": C2, "line_id": L1}, {"message": "Line resumed successfully"}),
    Event("send_payment_request", {"customer_id": C1, "bill_id": B1}, f"Payment request sent to the customer for bill {B1}"),
    Event("send_payment_request", {"customer_id": C1, "bill_id": B2}, f"Payment request sent to the customer for bill {B2}"),
    Event("send_payment_request", {"customer_id": C2, "bill_id": B1}, f"Payment request sent to the customer for bill {B1}"),
    Event("enable_roaming", {"customer_id": C1, "line_id": L1}, "Roaming enabled successfully"),
    Event("enable_roaming", {"customer_id": C2, "line_id": L1}, "Roaming enabled successfully"),
    Event("disable_roaming", {"customer_id": C1, "line_id": L1}, "Roaming disabled successfully"),
    Event("refuel_data", {"customer_id": C1, "line_id": L1, "gb_amount": 1.5}, {"charge": 3.0}),
    Event("refuel_data", {"customer_id": C1, "line_id": L1, "gb_amount": 3.0}, {"charge": 6.0}),
    Event("refuel_data", {"customer_id": C1, "line_id": L1, "gb_amount": 0.0}, {"charge": 0.0}),
    Event("refuel_data", {"customer_id": C2, "line_id": L1, "gb_amount": 1.5}, {"charge": 3.0}),
    Event("refuel_data", {"customer_id": C1, "line_id": L2, "gb_amount": 1.5}, {"charge": 3.0}),
    Event("transfer_to_human_agents", {"summary": "SIM locked with PUK"}, "Transfer successful"),
    # the customer's phone
    user("check_status_bar", "Status Bar: ✈️ Airplane Mode | 🔋 80%", "Airplane Mode"),
    user("check_status_bar", "Status Bar: 📵 No Signal | 📵 Data Disabled | 🔋 80%", "No Signal"),
    user("check_network_status", "Airplane Mode: ON\nSIM Card Status: active\nCellular Connection: no_service",
         "Airplane Mode: ON"),
    user("check_sim_status", "No SIM card detected in the phone.", "No SIM"),
    user("check_sim_status", "The SIM card is locked with a PIN code.", "locked"),
    user("check_sim_status", "Your SIM card is active and working.", "active"),
    user("run_speed_test", "Speed test failed: No connection."),
    user("toggle_airplane_mode", "Airplane Mode is now OFF."),
    Event("toggle_airplane_mode", {}, "Airplane Mode is now OFF."),
    user("reseat_sim_card", "SIM card re-seated successfully."),
    Event("reseat_sim_card", {}, "SIM card re-seated successfully."),
    user("reset_apn_settings", "APN settings reset."),
    Event("reset_apn_settings", {}, "APN settings reset."),
    user("reboot_device", "Device rebooted."),
    Event("reboot_device", {}, "Device rebooted."),
    Event("toggle_data", {}, "Mobile Data is now ON."),  # the agent working the phone
    user("toggle_data", "Mobile Data is now ON."),
    user("check_apn_settings", "APN: internet, MMSC URL: not set"),  # matched by no rule
    # messages
    msg("user", "Yes, please go ahead."),
    msg("user", "I want to talk to a human agent."),
    msg("user", "My phone has no service."),
    msg("user", "Yes, get me a human."),
    msg("user", "I'm abroad in France and my mobile data stopped working."),
    msg("user", "", 1),
]
for _text in ("", "It is $2.00 per GB: 1.5 GB costs $3.00. Shall I add it?", TRANSFER_TEXT,
              "Please check your status bar.", TRANSFER_TEXT + " Your refuel was $3.00."):
    for _n in (0, 1, 2):
        POOL.append(msg("assistant", _text, _n))

CONTEXTS = [
    {"request": req, "termination_reason": end}
    for req in (None, "I'm abroad in France and my mobile data stopped working.", "My phone has no service.")
    for end in ("user_stop", "max_steps")
]

ACCOUNT_TOOLS = {"get_details_by_id", "get_bills_for_customer", "get_data_usage", "suspend_line", "resume_line",
                 "send_payment_request", "enable_roaming", "disable_roaming", "refuel_data"}
WRITES_FOR_CUSTOMER = {"suspend_line", "resume_line", "refuel_data", "send_payment_request", "enable_roaming"}
DEVICE_FIXES = {"toggle_airplane_mode", "reseat_sim_card", "toggle_data", "toggle_roaming", "toggle_data_saver_mode",
                "set_network_mode_preference", "set_apn_settings", "reset_apn_settings", "toggle_wifi",
                "toggle_wifi_calling", "connect_vpn", "disconnect_vpn", "grant_app_permission", "reboot_device",
                "make_payment"}


# ------------------------------------------------------------------------------------------------
# Atomic conditions, as the rules write them


def field(value: Any, key: str) -> Any:
    return value.get(key) if isinstance(value, dict) else None


def is_call(e: Event, name: str, actor: str | None = None) -> bool:
    return e.kind == "call" and e.name == name and (actor is None or e.actor == actor)


def identified_any(e: Event) -> bool:
    """get_customer_by_phone(not error) or get_customer_by_id(not error) or get_customer_by_name(not error and len(result) > 0)"""
    if is_call(e, "get_customer_by_phone") or is_call(e, "get_customer_by_id"):
        return not e.error
    if is_call(e, "get_customer_by_name"):
        return not e.error and isinstance(e.result, list) and len(e.result) > 0
    return False


def identified_ids(e: Event) -> set[str]:
    """The c for which get_customer_by_id(customer_id: c, not error) or get_customer_by_phone(result.customer_id == c)
    or get_customer_by_name(c in result[*].customer_id) holds."""
    if is_call(e, "get_customer_by_id") and not e.error:
        return {e.args["customer_id"]}
    if is_call(e, "get_customer_by_phone") and field(e.result, "customer_id") is not None:
        return {e.result["customer_id"]}
    if is_call(e, "get_customer_by_name") and isinstance(e.result, list):
        return {r["customer_id"] for r in e.result if isinstance(r, dict) and "customer_id" in r}
    return set()


def write_customer(e: Event) -> set[str]:
    return {e.args["customer_id"]} if e.kind == "call" and e.name in WRITES_FOR_CUSTOMER else set()


def user_says(e: Event, word: str) -> bool:
    return e.kind == "message" and e.actor == "user" and word in e.args["text"].lower()


def agent_says(e: Event, part: str) -> bool:
    return e.kind == "message" and e.actor == "assistant" and part in e.args["text"]


def refuel_ok_amount(e: Event) -> bool:
    return 0 < e.args["gb_amount"] <= 2


def overdue_bills(e: Event) -> set[str]:
    if is_call(e, "get_details_by_id") and field(e.result, "status") == "Overdue":
        return {e.args["id"]}
    if is_call(e, "get_bills_for_customer") and isinstance(e.result, list):
        return {x["bill_id"] for x in e.result if x.get("status") == "Overdue"}
    return set()


def seen_suspended(e: Event) -> set[str]:
    return {e.args["id"]} if is_call(e, "get_details_by_id") and field(e.result, "status") == "Suspended" else set()


def contract_ended(e: Event) -> set[str]:
    end = field(e.result, "contract_end_date") if is_call(e, "get_details_by_id") else None
    return {e.args["id"]} if isinstance(end, str) and end < TODAY else set()


def arg_set(e: Event, name: str, arg: str) -> set[str]:
    return {e.args[arg]} if is_call(e, name) else set()


def device_fix_by_agent(e: Event) -> bool:
    return e.kind == "call" and e.name in DEVICE_FIXES and e.actor == "assistant"


def airplane_seen(e: Event) -> bool:
    return ((is_call(e, "check_status_bar", "user") and "Airplane" in e.result)
            or (is_call(e, "check_network_status", "user") and "Airplane Mode: ON" in e.result))


def sim_missing_seen(e: Event) -> bool:
    return is_call(e, "check_sim_status", "user") and "No SIM" in e.result


def sim_locked_seen(e: Event) -> bool:
    return is_call(e, "check_sim_status", "user") and "locked" in e.result


def tried_something(e: Event) -> bool:
    return e.kind == "call" and e.actor == "user" and e.name in (
        "check_status_bar", "check_sim_status", "run_speed_test", "can_send_mms")


def too_many_calls(e: Event) -> bool:
    return e.kind == "message" and e.actor == "assistant" and not len(e.args["calls"]) <= 1


def prose_with_calls(e: Event) -> bool:
    return (e.kind == "message" and e.actor == "assistant"
            and not (e.args["text"].strip() == "" or len(e.args["calls"]) == 0))


def roaming_looked_at(e: Event) -> bool:
    return is_call(e, "get_details_by_id") and isinstance(e.result, dict) and e.result.get("roaming_enabled") is not None


def abroad(ctx: dict[str, Any]) -> bool:
    return ctx["request"] is not None and "abroad" in ctx["request"].lower()


# ------------------------------------------------------------------------------------------------
# The rules as checks over a whole trace (once = at or before, eventually = at or after)


def c_identify_first(t: Trace, ctx: Any) -> bool:
    return all(not (e.kind == "call" and e.name in ACCOUNT_TOOLS) or any(identified_any(x) for x in t[:i + 1])
               for i, e in enumerate(t))


def c_changes_for_identified(t: Trace, ctx: Any) -> bool:
    return all(all(c in set().union(*[identified_ids(x) for x in t[:i + 1]]) for c in write_customer(e))
               for i, e in enumerate(t))


def c_refuel_at_most_2gb(t: Trace, ctx: Any) -> bool:
    return all(refuel_ok_amount(e) for e in t if is_call(e, "refuel_data"))


def c_usage_before_refuel(t: Trace, ctx: Any) -> bool:
    return all(any(is_call(x, "get_data_usage") and x.args["line_id"] == e.args["line_id"] for x in t[:i + 1])
               for i, e in enumerate(t) if is_call(e, "refuel_data"))


def c_refuel_price_accepted(t: Trace, ctx: Any) -> bool:
    def accepted_by(j: int) -> bool:  # once (user says yes and once agent quoted a price), at j
        return any(user_says(t[k], "yes") and any(agent_says(t[m], "$") for m in range(k + 1)) for k in range(j + 1))
    return all(accepted_by(i) for i, e in enumerate(t) if is_call(e, "refuel_data"))


def c_suspend_confirmed(t: Trace, ctx: Any) -> bool:
    return all(any(user_says(x, "yes") for x in t[:i + 1]) for i, e in enumerate(t) if is_call(e, "suspend_line"))


def c_payment_for_overdue(t: Trace, ctx: Any) -> bool:
    return all(any(e.args["bill_id"] in overdue_bills(x) for x in t[:i + 1])
               for i, e in enumerate(t) if is_call(e, "send_payment_request"))


def c_resume_seen_suspended(t: Trace, ctx: Any) -> bool:
    return all(any(e.args["line_id"] in seen_suspended(x) for x in t[:i + 1])
               for i, e in enumerate(t) if is_call(e, "resume_line"))


def c_no_resume_after_end(t: Trace, ctx: Any) -> bool:
    return all(not any(is_call(y, "resume_line") and y.args["line_id"] == l for y in t[j:])
               for j, x in enumerate(t) for l in contract_ended(x))


def c_reboot_after_resume(t: Trace, ctx: Any) -> bool:
    return all(any(is_call(y, "reboot_device", "user") for y in t[i:]) for i, e in enumerate(t) if is_call(e, "resume_line"))


def c_device_actions(t: Trace, ctx: Any) -> bool:
    return not any(device_fix_by_agent(e) for e in t)


def c_airplane_seen(t: Trace, ctx: Any) -> bool:
    return all(any(airplane_seen(x) for x in t[:i + 1]) for i, e in enumerate(t) if is_call(e, "toggle_airplane_mode", "user"))


def c_reseat_missing(t: Trace, ctx: Any) -> bool:
    return all(any(sim_missing_seen(x) for x in t[:i + 1]) for i, e in enumerate(t) if is_call(e, "reseat_sim_card", "user"))


def c_reboot_after_apn(t: Trace, ctx: Any) -> bool:
    return all(any(is_call(y, "reboot_device", "user") for y in t[i:])
               for i, e in enumerate(t) if is_call(e, "reset_apn_settings", "user"))


def c_locked_sim(t: Trace, ctx: Any) -> bool:
    return all(any(is_call(y, "transfer_to_human_agents") for y in t[i:]) for i, e in enumerate(t) if sim_locked_seen(e))


def c_transfer_announced(t: Trace, ctx: Any) -> bool:
    return all(i + 1 < len(t) and agent_says(t[i + 1], "YOU ARE BEING TRANSFERRED TO A HUMAN AGENT")
               for i, e in enumerate(t) if is_call(e, "transfer_to_human_agents"))


def c_troubleshoot_first(t: Trace, ctx: Any) -> bool:
    return all(any(user_says(x, "human") for x in t[:i + 1]) or any(tried_something(x) for x in t[:i + 1])
               for i, e in enumerate(t) if is_call(e, "transfer_to_human_agents"))


def c_one_call(t: Trace, ctx: Any) -> bool:
    return not any(too_many_calls(e) for e in t)


def c_talk_or_act(t: Trace, ctx: Any) -> bool:
    return not any(prose_with_calls(e) for e in t)


def c_travellers(t: Trace, ctx: Any) -> bool:
    return not abroad(ctx) or any(roaming_looked_at(e) for e in t)


def c_ended_normally(t: Trace, ctx: Any) -> bool:
    return ctx["termination_reason"] in ("user_stop", "agent_stop")


# ------------------------------------------------------------------------------------------------
# The refuel-price rule needs its own monitor: a price quoted, then a yes


class PriceThenYes(Monitor):
    def relevant(self, e: Event) -> bool:
        return agent_says(e, "$") or user_says(e, "yes") or is_call(e, "refuel_data")

    def init(self) -> Any:
        return (False, False)  # (a price was quoted, a yes came at or after a quote)

    def step(self, s: Any, e: Event, ctx: Any) -> Any:
        quoted, accepted = s
        quoted = quoted or agent_says(e, "$")
        accepted = accepted or (quoted and user_says(e, "yes"))
        if is_call(e, "refuel_data") and not accepted:
            return DEAD
        return (quoted, accepted)


class NoResumeAfterEnd(Monitor):
    def relevant(self, e: Event) -> bool:
        return bool(contract_ended(e)) or is_call(e, "resume_line")

    def init(self) -> Any:
        return frozenset()

    def step(self, s: Any, e: Event, ctx: Any) -> Any:
        if is_call(e, "resume_line") and e.args["line_id"] in s:
            return DEAD
        return s | frozenset(contract_ended(e))


def one(pred: Any) -> Any:
    return lambda e: {True} if pred(e) else set()


RULES = [
    Rule("identify_first", c_identify_first,
         Precede(one(lambda e: e.kind == "call" and e.name in ACCOUNT_TOOLS), one(identified_any))),
    Rule("changes_for_the_identified_customer", c_changes_for_identified, Precede(write_customer, identified_ids)),
    Rule("refuel_at_most_2gb", c_refuel_at_most_2gb,
         Never(lambda e: is_call(e, "refuel_data") and not refuel_ok_amount(e)),
         trigger=lambda e: is_call(e, "refuel_data")),
    Rule("usage_checked_before_refuel", c_usage_before_refuel,
         Precede(lambda e: arg_set(e, "refuel_data", "line_id"), lambda e: arg_set(e, "get_data_usage", "line_id"))),
    Rule("refuel_price_accepted", c_refuel_price_accepted, PriceThenYes()),
    Rule("suspend_only_when_confirmed", c_suspend_confirmed,
         Precede(one(lambda e: is_call(e, "suspend_line")), one(lambda e: user_says(e, "yes")))),
    Rule("payment_request_for_an_overdue_bill", c_payment_for_overdue,
         Precede(lambda e: arg_set(e, "send_payment_request", "bill_id"), overdue_bills)),
    Rule("resume_a_line_seen_suspended", c_resume_seen_suspended,
         Precede(lambda e: arg_set(e, "resume_line", "line_id"), seen_suspended)),
    Rule("no_resume_after_the_contract_ended", c_no_resume_after_end, NoResumeAfterEnd(),
         trigger=lambda e: bool(contract_ended(e))),
    Rule("reboot_after_resume", c_reboot_after_resume,
         Respond(one(lambda e: is_call(e, "resume_line")), one(lambda e: is_call(e, "reboot_device", "user")))),
    Rule("device_actions_are_the_customers", c_device_actions, Never(device_fix_by_agent)),
    Rule("airplane_mode_seen_before_toggling", c_airplane_seen,
         Precede(one(lambda e: is_call(e, "toggle_airplane_mode", "user")), one(airplane_seen))),
    Rule("reseat_a_missing_sim", c_reseat_missing,
         Precede(one(lambda e: is_call(e, "reseat_sim_card", "user")), one(sim_missing_seen))),
    Rule("reboot_after_apn_reset", c_reboot_after_apn,
         Respond(one(lambda e: is_call(e, "reset_apn_settings", "user")), one(lambda e: is_call(e, "reboot_device", "user")))),
    Rule("locked_sim_goes_to_a_human", c_locked_sim,
         Respond(one(sim_locked_seen), one(lambda e: is_call(e, "transfer_to_human_agents"))),
         trigger=sim_locked_seen),
    Rule("transfer_is_announced", c_transfer_announced,
         NextMust(lambda e: is_call(e, "transfer_to_human_agents"),
                  lambda e: agent_says(e, "YOU ARE BEING TRANSFERRED TO A HUMAN AGENT"))),
    Rule("troubleshoot_before_transfer", c_troubleshoot_first,
         Precede(one(lambda e: is_call(e, "transfer_to_human_agents")),
                 one(lambda e: user_says(e, "human") or tried_something(e)))),
    Rule("one_call_per_message", c_one_call, Never(too_many_calls)),
    Rule("talk_or_act", c_talk_or_act, Never(prose_with_calls)),
    Rule("travellers_get_a_roaming_check", c_travellers,
         Seen(roaming_looked_at, lambda s, ctx: s or not abroad(ctx)), trigger_ctx=abroad),
    Rule("ended_normally", c_ended_normally, ContextOnly(lambda ctx: ctx["termination_reason"] in ("user_stop", "agent_stop"))),
]
assert not [r for r in RULES if r.name == "x"]
# The situations of the implication rules (`always (t -> ...)`, `when t shall ...`): can t happen in a compliant trace?
TRIGGERS = {
    "identify_first": lambda e: e.kind == "call" and e.name in ACCOUNT_TOOLS,
    "changes_for_the_identified_customer": lambda e: bool(write_customer(e)),
    "usage_checked_before_refuel": lambda e: is_call(e, "refuel_data"),
    "refuel_price_accepted": lambda e: is_call(e, "refuel_data"),
    "suspend_only_when_confirmed": lambda e: is_call(e, "suspend_line"),
    "payment_request_for_an_overdue_bill": lambda e: is_call(e, "send_payment_request"),
    "resume_a_line_seen_suspended": lambda e: is_call(e, "resume_line"),
    "reboot_after_resume": lambda e: is_call(e, "resume_line"),
    "airplane_mode_seen_before_toggling": lambda e: is_call(e, "toggle_airplane_mode", "user"),
    "reseat_a_missing_sim": lambda e: is_call(e, "reseat_sim_card", "user"),
    "reboot_after_apn_reset": lambda e: is_call(e, "reset_apn_settings", "user"),
    "transfer_is_announced": lambda e: is_call(e, "transfer_to_human_agents"),
    "troubleshoot_before_transfer": lambda e: is_call(e, "transfer_to_human_agents"),
    "one_call_per_message": lambda e: e.kind == "message" and e.actor == "assistant",
    "talk_or_act": lambda e: e.kind == "message" and e.actor == "assistant",
}
for _r in RULES:
    _r.trigger = _r.trigger or TRIGGERS.get(_r.name)
_ = Cap  # the telecom policy has no caps

AGENT_TOOLS = ["get_customer_by_phone", "get_customer_by_id", "get_customer_by_name", "get_details_by_id",
               "get_bills_for_customer", "get_data_usage", "suspend_line", "resume_line", "send_payment_request",
               "enable_roaming", "disable_roaming", "refuel_data", "transfer_to_human_agents"]
USER_TOOLS = ["check_status_bar", "check_network_status", "check_network_mode_preference",
              "set_network_mode_preference", "run_speed_test", "toggle_airplane_mode", "check_sim_status",
              "reseat_sim_card", "toggle_data", "toggle_roaming", "check_data_restriction_status",
              "toggle_data_saver_mode", "check_apn_settings", "set_apn_settings", "reset_apn_settings",
              "check_wifi_status", "toggle_wifi", "check_wifi_calling_status", "toggle_wifi_calling",
              "check_vpn_status", "connect_vpn", "disconnect_vpn", "check_installed_apps", "check_app_status",
              "check_app_permissions", "grant_app_permission", "can_send_mms", "reboot_device",
              "check_payment_request", "make_payment"]
# Symmetry: a tool that no rule names is interchangeable with check_apn_settings (called by the user, it
# matches nothing); a device fix that only the never-rule names behaves as toggle_data; can_send_mms
# behaves as run_speed_test (both only appear side by side in troubleshoot_before_transfer).
REPRESENTED_BY = {t: "toggle_data" for t in DEVICE_FIXES - {"toggle_airplane_mode", "reseat_sim_card",
                                                              "reset_apn_settings", "reboot_device"}}
REPRESENTED_BY |= {t: "check_apn_settings" for t in USER_TOOLS
                   if t not in DEVICE_FIXES and t not in ("check_status_bar", "check_network_status",
                                                          "check_sim_status", "run_speed_test", "can_send_mms")}
REPRESENTED_BY["can_send_mms"] = "run_speed_test"

POLICY = Policy("telecom_support", POOL, RULES, CONTEXTS, AGENT_TOOLS + USER_TOOLS, REPRESENTED_BY)


# ------------------------------------------------------------------------------------------------
# A witness for `policyc score`: a trace τ²-bench could have recorded, so each call follows a message
# of its actor that announces it, and the request is the user's first message.


class WellFormed(Monitor):
    """Not a rule: the shape of a τ²-bench log (a message, then the calls it makes; the request is the
    user's first message). Only used to pick a witness that can be written as a τ²-bench simulation."""

    def init(self) -> Any:
        return (None, 0, None)  # (actor of the open message, calls it still owes, the user's first text)

    def step(self, s: Any, e: Event, ctx: Any) -> Any:
        actor, owed, first = s
        if e.kind == "message":
            if owed:
                return DEAD
            if e.actor == "user" and first is None:
                first = e.args["text"]
            return (e.actor, len(e.args["calls"]), first)
        if owed == 0 or e.actor != actor:
            return DEAD
        return (actor, owed - 1, first)

    def accept(self, s: Any, ctx: dict[str, Any]) -> bool:
        return s[1] == 0 and s[2] == ctx["request"]


def tau2_simulation(trace: Trace, ctx: dict[str, Any], sim_id: str) -> dict[str, Any]:
    messages: list[dict[str, Any]] = []
    pending: list[dict[str, Any]] = []
    n = 0
    i = 0
    while i < len(trace):
        e = trace[i]
        assert e.kind == "message"
        k = len(e.args["calls"])
        calls = trace[i + 1:i + 1 + k]
        tool_calls = []
        pending = []
        for c in calls:
            n += 1
            cid = f"call_{n}"
            tool_calls.append({"id": cid, "name": c.name, "arguments": c.args, "requestor": e.actor})
            content = c.result if isinstance(c.result, str) else json.dumps(c.result)
            pending.append({"role": "tool", "id": cid, "content": content, "requestor": e.actor, "error": c.error})
        m: dict[str, Any] = {"role": e.actor, "content": e.args["text"] or None, "turn_idx": len(messages)}
        if tool_calls:
            m["tool_calls"] = tool_calls
        messages.append(m)
        for p in pending:
            p["turn_idx"] = len(messages)
            messages.append(p)
        i += 1 + k
    return {"id": sim_id, "task_id": "lint_blind_telecom", "messages": messages,
            "termination_reason": ctx["termination_reason"]}


def main() -> None:
    max_len = int(sys.argv[1]) if len(sys.argv) > 1 else 6
    facts = report(POLICY, max_len=max_len, witness_len=8)
    here = Path(__file__).parent
    wf = [WellFormed()]
    # the compliant witness: a refuel done by the book, as τ²-bench would log it
    ctx_goal = lambda ctx: ctx["request"] == "My phone has no service." and ctx["termination_reason"] == "user_stop"
    found = find_trace(POLICY, 12, goal_event=lambda e: is_call(e, "refuel_data"), goal_ctx=ctx_goal, extra=wf)
    assert found is not None
    ci, trace = found
    verify(POLICY, trace, CONTEXTS[ci], set())
    print(f"well-formed compliant witness ({len(trace)} events): {[e.label for e in trace]}")
    dump(str(here / "witnesses" / "telecom_compliant.json"),
         {"simulations": [tau2_simulation(trace, CONTEXTS[ci], "compliant-refuel")]})
    # for each rule, a well-formed trace that breaks it and no other rule (to score: exactly that rule fails)
    sims = []
    for r in RULES:
        found = find_trace(POLICY, 10, extra=wf, violate=r.name)
        if found is None:
            print(f"  no well-formed trace of <= 10 events breaks only {r.name}")
            continue
        ci, trace = found
        verify(POLICY, trace, CONTEXTS[ci], {r.name})
        sims.append(tau2_simulation(trace, CONTEXTS[ci], r.name))
    print(f"well-formed counterexamples written for {len(sims)} of {len(RULES)} rules")
    dump(str(here / "witnesses" / "telecom_counterexamples.json"), {"simulations": sims})
    dump(str(here / "results" / "oracle_telecom.json"), facts)


if __name__ == "__main__":
    main()
