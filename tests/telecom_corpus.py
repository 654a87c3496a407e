"""The telecom test corpus: τ²-bench simulation runs that take each rule of
`examples/telecom.altl` both ways.

Five runs follow the policy and the troubleshooting workflow (a service outage fixed on the
device, a line suspended for an overdue bill, a hand-off after an ended contract, data lost
abroad, a broken MMS app). Each of the twenty rules then gets a run that breaks it and
nothing else, made from one of those five by a small edit. The runs are written in
τ²-bench's own results format (messages with `role`, `content`, `tool_calls` with `id`,
`name`, `arguments`, `requestor`; `tool` messages with `id`, `content`, `requestor`, `error`),
with the domain's real tool names and result shapes.

`python tests/telecom_corpus.py` rewrites `examples/traces/telecom.json`;
tests/test_telecom.py checks that the file is what this module builds.
"""

from __future__ import annotations

import json
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "examples" / "traces" / "telecom.json"

CUSTOMER = {"customer_id": "C1001", "full_name": "John Smith", "date_of_birth": "1985-06-15",
            "email": "john.smith@example.com", "phone_number": "555-123-2002",
            "address": {"street": "12 Elm St", "city": "Springfield", "state": "IL", "zip_code": "62701"},
            "account_status": "Active", "payment_methods": [
                {"method_type": "Credit Card", "account_number_last_4": "4242", "expiration_date": "12/2027"}],
            "line_ids": ["L1002"], "bill_ids": ["B1003"], "created_at": "2024-01-01T00:00:00",
            "last_extension_date": None, "goodwill_credit_used_this_year": 0.0}
PLAN = {"plan_id": "P1002", "name": "Premium Plan", "data_limit_gb": 15.0, "price_per_month": 65.0,
        "data_refueling_price_per_gb": 2.0}


def line(status: str, contract_end: str, roaming: bool) -> dict:
    return {"line_id": "L1002", "phone_number": "555-123-2002", "status": status, "plan_id": "P1002",
            "device_id": "D1001", "data_used_gb": 15.2, "data_refueling_gb": 0.0, "roaming_enabled": roaming,
            "contract_end_date": contract_end, "last_plan_change_date": None, "last_sim_replacement_date": None,
            "suspension_start_date": "2025-02-01" if status == "Suspended" else None}


def bills(status: str) -> list:
    return [{"bill_id": "B1003", "customer_id": "C1001", "period_start": "2025-01-01", "period_end": "2025-01-31",
             "issue_date": "2025-01-01", "total_due": 65.0, "due_date": "2025-01-15",
             "line_items": [{"description": "Charge for line L1002", "amount": 65.0, "date": "2025-01-01",
                             "item_type": "Charge"}], "status": status}]


BAR_NO_SIGNAL = "Status Bar: 📵 No Signal | 📵 Data Disabled | 🔋 80%"
BAR_GOOD = "Status Bar: 📶⁴ Excellent | 5G | 📱 Data Enabled | 🔋 80%"
TRANSFER_SENTENCE = "YOU ARE BEING TRANSFERRED TO A HUMAN AGENT. PLEASE HOLD ON."

# A step: ("user"|"agent", text), ("call"|"ucall", tool, args, result), ("calls", [(tool, args, result), ...]),
# ("say+call", text, tool, args, result)

SERVICE = [
    ("user", "Hi, my phone shows no service at all."),
    ("agent", "I'm sorry to hear that. What is the phone number of the line?"),
    ("user", "It's 555-123-2002."),
    ("call", "get_customer_by_phone", {"phone_number": "555-123-2002"}, CUSTOMER),
    ("agent", "Thank you, John. Please check your status bar and tell me what you see."),
    ("ucall", "check_status_bar", {}, "Status Bar: ✈️ Airplane Mode | 🔋 80%"),
    ("user", "It shows airplane mode."),
    ("agent", "Please turn airplane mode off."),
    ("ucall", "toggle_airplane_mode", {}, "Airplane Mode is now OFF.\n" + BAR_NO_SIGNAL),
    ("agent", "Please check your network status."),
    ("ucall", "check_network_status", {}, "Airplane Mode: OFF\nSIM Card Status: missing\nCellular Connection: no_service"),
    ("agent", "Please check your SIM card status."),
    ("ucall", "check_sim_status", {}, "No SIM card detected in the phone."),
    ("agent", "Please remove your SIM card and put it back in."),
    ("ucall", "reseat_sim_card", {}, "SIM card re-seated successfully.\n" + BAR_GOOD),
    ("agent", "Please check your SIM status once more."),
    ("ucall", "check_sim_status", {}, "Your SIM card is active and working."),
    ("ucall", "check_status_bar", {}, BAR_GOOD),
    ("user", "Service is back, thank you!"),
    ("agent", "You're welcome, John. Have a great day!"),
]

SUSPENDED = [
    ("user", "My line has no service. I think it was suspended."),
    ("agent", "Let me help. First, please check your status bar."),
    ("ucall", "check_status_bar", {}, BAR_NO_SIGNAL),
    ("agent", "Thanks. What is your customer ID?"),
    ("user", "C1001"),
    ("call", "get_customer_by_id", {"customer_id": "C1001"}, CUSTOMER),
    ("call", "get_details_by_id", {"id": "L1002"}, line("Suspended", "2026-12-31", False)),
    ("call", "get_bills_for_customer", {"customer_id": "C1001"}, bills("Overdue")),
    ("agent", "Line L1002 is suspended for the overdue bill B1003 of $65.00. I will send you a payment request."),
    ("call", "send_payment_request", {"customer_id": "C1001", "bill_id": "B1003"},
     "Payment request sent to the customer for bill B1003"),
    ("agent", "Please check your payment requests and accept it."),
    ("ucall", "check_payment_request", {}, "You have a payment request for bill B1003 of 65.0 USD."),
    ("ucall", "make_payment", {}, "Payment of 65.0 USD for bill B1003 was successful."),
    ("user", "I paid it."),
    ("call", "get_bills_for_customer", {"customer_id": "C1001"}, bills("Paid")),
    ("call", "resume_line", {"customer_id": "C1001", "line_id": "L1002"},
     {"message": "Line resumed successfully", "line": line("Active", "2026-12-31", False)}),
    ("agent", "Your bill is paid and line L1002 is active again. Please restart your phone."),
    ("ucall", "reboot_device", {}, "Device rebooted successfully.\n" + BAR_GOOD),
    ("ucall", "check_status_bar", {}, BAR_GOOD),
    ("user", "It works now."),
    ("agent", "Great, have a nice day!"),
]

HANDOFF = [
    ("user", "My line was suspended and I want it back."),
    ("agent", "Of course. What is your phone number?"),
    ("user", "555-123-2002"),
    ("call", "get_customer_by_phone", {"phone_number": "555-123-2002"}, CUSTOMER),
    ("call", "get_details_by_id", {"id": "L1002"}, line("Suspended", "2025-01-31", False)),
    ("call", "get_bills_for_customer", {"customer_id": "C1001"}, bills("Overdue")),
    ("agent", "You have an overdue bill B1003 of $65.00. I will send a payment request."),
    ("call", "send_payment_request", {"customer_id": "C1001", "bill_id": "B1003"},
     "Payment request sent to the customer for bill B1003"),
    ("ucall", "make_payment", {}, "Payment of 65.0 USD for bill B1003 was successful."),
    ("call", "get_bills_for_customer", {"customer_id": "C1001"}, bills("Paid")),
    ("agent", "Your bill is paid, but the contract of line L1002 ended on 2025-01-31, so I cannot restore it."),
    ("user", "Then I want to talk to someone."),
    ("call", "transfer_to_human_agents", {"summary": "Line L1002 suspended, contract ended; bill B1003 paid."},
     "Transfer successful"),
    ("agent", TRANSFER_SENTENCE),
]

DATA = [
    ("user", "I'm travelling abroad and my mobile data doesn't work."),
    ("agent", "Sorry to hear that. What is your phone number?"),
    ("user", "555-123-2002"),
    ("call", "get_customer_by_phone", {"phone_number": "555-123-2002"}, CUSTOMER),
    ("agent", "Please run a speed test."),
    ("ucall", "run_speed_test", {}, "Speed test failed: No Connection."),
    ("call", "get_details_by_id", {"id": "L1002"}, line("Active", "2026-12-31", False)),
    ("call", "enable_roaming", {"customer_id": "C1001", "line_id": "L1002"}, "Roaming enabled successfully"),
    ("agent", "I enabled roaming on your line. Please turn on data roaming on your phone."),
    ("ucall", "toggle_roaming", {}, "Data Roaming is now ON."),
    ("call", "get_data_usage", {"customer_id": "C1001", "line_id": "L1002"},
     {"line_id": "L1002", "data_used_gb": 15.2, "data_limit_gb": 15.0, "data_refueling_gb": 0.0,
      "cycle_end_date": "2025-02-28"}),
    ("call", "get_details_by_id", {"id": "P1002"}, PLAN),
    ("agent", "You used 15.2 GB of your 15 GB. Extra data costs $2.00 per GB. How much would you like?"),
    ("user", "2 GB please."),
    ("call", "refuel_data", {"customer_id": "C1001", "line_id": "L1002", "gb_amount": 2.0},
     {"message": "Successfully added 2.0 GB of data for line L1002 for $4.00", "new_data_refueling_gb": 2.0,
      "charge": 4.0}),
    ("agent", "Done. Please check whether anything restricts your data."),
    ("ucall", "check_data_restriction_status", {}, "Data Saver mode is ON. Background data is not restricted."),
    ("ucall", "toggle_data_saver_mode", {}, "Data Saver mode is now OFF."),
    ("agent", "Please check your network mode preference."),
    ("ucall", "check_network_mode_preference", {}, "Network Mode Preference: 2g_only"),
    ("ucall", "set_network_mode_preference", {"mode": "4g_5g_preferred"},
     "Preferred Network Mode set to: 4g_5g_preferred\n" + BAR_GOOD),
    ("ucall", "run_speed_test", {}, "Download speed: 350 Mbps (Excellent)."),
    ("user", "Everything works now!"),
    ("agent", "Great, enjoy your trip!"),
]

MMS = [
    ("user", "I can't send picture messages."),
    ("agent", "Let's check. Please try sending a picture message."),
    ("ucall", "can_send_mms", {}, "Your messaging app cannot send MMS messages."),
    ("agent", "Please check the permissions of your messaging app."),
    ("ucall", "check_app_permissions", {"app_name": "messaging"}, "App 'messaging' has no permissions."),
    ("ucall", "grant_app_permission", {"app_name": "messaging", "permission": "storage"},
     "Success. Permission 'storage' granted to app 'messaging'."),
    ("ucall", "grant_app_permission", {"app_name": "messaging", "permission": "sms"},
     "Success. Permission 'sms' granted to app 'messaging'."),
    ("ucall", "can_send_mms", {}, "Your messaging app can send MMS messages."),
    ("user", "It works!"),
    ("agent", "Great, have a nice day!"),
]

TASKS = {
    "service": "[service_issue]airplane_mode_on|unseat_sim_card[PERSONA:None]",
    "suspended": "[service_issue]overdue_bill_suspension[PERSONA:None]",
    "handoff": "[service_issue]contract_end_suspension[PERSONA:None]",
    "data": "[mobile_data_issue]bad_network_preference|data_saver_mode_on|data_usage_exceeded"
            "|user_abroad_roaming_disabled_off[PERSONA:None]",
    "mms": "[mms_issue]break_app_both_permissions[PERSONA:None]",
}
BASES = {"service": SERVICE, "suspended": SUSPENDED, "handoff": HANDOFF, "data": DATA, "mms": MMS}


def without(steps: list, *tools_or_texts: str, nth: int | None = None) -> list:
    """`steps` without the steps calling these tools (or saying these texts); `nth`: only the
    n-th such step (0-based)."""
    out, seen = [], 0
    for step in steps:
        hit = step[0] in ("call", "ucall") and step[1] in tools_or_texts or \
            step[0] in ("agent", "user") and step[1] in tools_or_texts
        if hit and (nth is None or seen == nth):
            seen += 1
            continue
        seen += hit
        out.append(step)
    return out


def replaced(steps: list, tool: str, new) -> list:
    return [new if s[0] in ("call", "ucall") and s[1] == tool else s for s in steps]


def broken() -> dict[str, tuple[str, list]]:
    """Per rule: (the base run it edits, the run that breaks the rule and no other)."""
    suspended_ended = replaced(SUSPENDED, "get_details_by_id",
                               ("call", "get_details_by_id", {"id": "L1002"}, line("Suspended", "2025-01-31", False)))
    refuel = [s for s in DATA if s[0] == "call" and s[1] == "refuel_data"][0]
    return {
        "c1": ("suspended", without(SUSPENDED, "get_customer_by_id")),
        "c2": ("suspended", without(SUSPENDED, "get_bills_for_customer", nth=0)),
        "c3": ("suspended", without(SUSPENDED, "get_bills_for_customer", nth=1)),
        "c4": ("data", replaced(DATA, "refuel_data", ("call", "refuel_data", {**refuel[2], "gb_amount": 3.0},
                                                      {**refuel[3], "charge": 6.0}))),
        "c5": ("data", without(DATA, "get_details_by_id", nth=1)),
        "c6": ("suspended", without(SUSPENDED, "get_details_by_id")),
        "c7": ("suspended", suspended_ended),
        "c8": ("handoff", HANDOFF[:-1] + [("agent", "Please hold while I connect you to a colleague.")]),
        "c9": ("handoff", HANDOFF[:5] + HANDOFF[-3:]),
        "c10": ("service", replaced(SERVICE, "get_customer_by_phone", ("calls", [
            ("get_customer_by_phone", {"phone_number": "555-123-2002"}, CUSTOMER),
            ("get_details_by_id", {"id": "L1002"}, line("Active", "2026-12-31", False))]))),
        "c11": ("service", replaced(SERVICE, "get_customer_by_phone", (
            "say+call", "Let me look up your account.", "get_customer_by_phone", {"phone_number": "555-123-2002"},
            CUSTOMER))),
        "c12": ("service", without(without(SERVICE, "check_status_bar", nth=0), "It shows airplane mode.")),
        "c13": ("service", without(SERVICE, "check_network_status", "Please check your network status.")),
        "c14": ("service", without(SERVICE, "check_sim_status", nth=1)),
        "c15": ("service", SERVICE[:-2] + [("agent", "Please also restart your phone."),
                                           ("ucall", "reboot_device", {}, "Device rebooted successfully."),
                                           ("user", "Done, thanks!")]),
        "c16": ("data", without(DATA, "get_data_usage")),
        "c17": ("mms", without(MMS, "check_app_permissions")),
        "c18": ("data", without(DATA, "check_data_restriction_status")),
        "c19": ("data", without(DATA, "enable_roaming", "I enabled roaming on your line. Please turn on data "
                                                        "roaming on your phone.")),
        "c20": ("data", without(DATA, "check_network_mode_preference")),
    }


def _content(result) -> str:
    return result if isinstance(result, str) else json.dumps(result)


def messages(steps: list) -> list[dict]:
    """The steps as τ²-bench messages."""
    out: list[dict] = []
    ids = iter(f"call_{i:03d}" for i in range(1000))

    def add(message: dict) -> None:
        out.append({**message, "turn_idx": len(out), "timestamp": f"2025-02-25T12:{8 + len(out) // 60:02d}:"
                                                                   f"{len(out) % 60:02d}"})

    def tool(call_id: str, result, requestor: str) -> dict:
        return {"id": call_id, "role": "tool", "content": _content(result), "requestor": requestor, "error": False}

    for step in steps:
        kind = step[0]
        if kind in ("user", "agent"):
            add({"role": "user" if kind == "user" else "assistant", "content": step[1], "tool_calls": None})
        elif kind in ("call", "ucall", "say+call"):
            text, (name, args, result) = (step[1], step[2:]) if kind == "say+call" else (None, step[1:])
            role = "user" if kind == "ucall" else "assistant"
            call_id = next(ids)
            add({"role": role, "content": text, "tool_calls": [
                {"id": call_id, "name": name, "arguments": args, "requestor": role}]})
            add(tool(call_id, result, role))
        elif kind == "calls":
            calls = [(next(ids), *c) for c in step[1]]
            add({"role": "assistant", "content": None, "tool_calls": [
                {"id": i, "name": n, "arguments": a, "requestor": "assistant"} for i, n, a, _ in calls]})
            add({"role": "tool", "tool_messages": [tool(i, r, "assistant") for i, _, _, r in calls]})
    return out


def simulation(sim_id: str, task_id: str, steps: list, trial: int) -> dict:
    msgs = messages(steps)
    return {"id": sim_id, "task_id": task_id, "timestamp": "2025-02-25T12:08:00", "start_time": "2025-02-25T12:08:00",
            "end_time": msgs[-1]["timestamp"], "duration": float(len(msgs) * 3), "termination_reason": "user_stop",
            "agent_cost": 0.01, "user_cost": 0.002,
            "reward_info": {"reward": 1.0, "db_check": None, "env_assertions": None, "action_checks": None,
                            "nl_assertions": None, "communicate_checks": None, "reward_basis": ["ENV_ASSERTION"],
                            "reward_breakdown": None, "info": None},
            "messages": msgs, "trial": trial, "seed": 300 + trial}


def corpus() -> dict:
    sims = [simulation(f"{name}-ok", TASKS[name], steps, 0) for name, steps in BASES.items()]
    for i, (rule, (base, steps)) in enumerate(broken().items(), start=1):
        sims.append(simulation(f"{rule}-broken", TASKS[base], steps, i))
    return {"timestamp": "2025-02-25T12:00:00",
            "info": {"git_commit": "", "num_trials": 1, "max_steps": 200, "max_errors": 10,
                     "user_info": {"implementation": "user_simulator", "llm": "scripted", "llm_args": {}},
                     "agent_info": {"implementation": "llm_agent", "llm": "scripted", "llm_args": {}},
                     "environment_info": {"domain_name": "telecom", "policy": "see main_policy.md"}},
            "tasks": [{"id": task_id, "description": None, "user_scenario": {"instructions": {"domain": "telecom"}}}
                      for task_id in TASKS.values()],
            "simulations": sims}


def text() -> str:
    return json.dumps(corpus(), indent=1, ensure_ascii=False) + "\n"


if __name__ == "__main__":
    OUT.write_text(text(), encoding="utf-8")
    print(f"wrote {OUT}")
