"""A support-desk gate scenario: 15 tools, 25 or 50 rules, many guards on one tool.

The rules mix what real support policies write: precedence over the past (`once`),
precedence per order id (a quantified rule), responses owed before a terminal call, absences,
caps on counts, and argument caps on `issue_refund` (20 or more guard atoms on that one
tool). The same rules are also implemented by hand, as the table-driven gate an engineer
would write for exactly these templates (flags, counters and sets of ids), the baseline a
per-call latency is compared with. A random agent proposes calls that sometimes break the
rules; every call is executed whatever the decision (the gate's per-call cost is what is
measured), and both gates are checked to refuse the same calls for the rules each decides.

Imported by benchmarks/runtime.py (`--scenario support`); run alone for a quick look:

    python benchmarks/support_scenario.py
"""

from __future__ import annotations

import gc
import random
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from policyc.artifact.build import build_artifact  # noqa: E402
from policyc.check import check_text  # noqa: E402
from policyc.runtime import Monitor  # noqa: E402

TOOLS = """
tool lookup_customer(customer_id: str) -> { tier: str }
tool verify_identity(customer_id: str) -> { ok: bool }
tool get_order(order_id: str) -> { status: str, amount: int }
tool check_eligibility(order_id: str) -> { eligible: bool }
tool issue_refund(order_id: str, amount: int, reason: str?)
tool cancel_order(order_id: str)
tool apply_voucher(order_id: str, code: str)
tool update_address(customer_id: str, address: str)
tool send_email(to: str, body: str)
tool search_kb(query: str) -> list[str]
tool create_ticket(subject: str) -> { id: str }
tool escalate(reason: str)
tool close_ticket(ticket_id: str)
terminal tool transfer_to_human(reason: str)
terminal tool final_answer(answer: str)
"""

ORDERS = ("A1", "A2", "A3")
CUSTOMERS = ("C1", "C2")
REASONS = [f"r{i}" for i in range(12)]


@dataclass(frozen=True)
class Rule:
    template: str
    a: str = ""
    b: str = ""
    k: int = 0
    reason: str = ""

    def text(self) -> str:
        t = self.template
        if t == "precedence":
            return f"always ({self.a} -> once {self.b})"
        if t == "per_order":
            return (f"always ({self.a}(order_id: o) -> once {self.b}(order_id: o))")
        if t == "cap":
            return f'never(issue_refund(amount > {self.k}, reason: "{self.reason}"))'
        if t == "cap_any":
            return f"never(issue_refund(amount > {self.k}))"
        if t == "at_most":
            return f"called_n({self.a}) <= {self.k}"
        if t == "never_before":
            return f"always ({self.a} -> historically (not {self.b}))"
        if t == "owed":
            return f"always ({self.a} -> eventually {self.b})"
        if t == "before_answer":
            return f"always ({self.a} -> once {self.b})"
        raise ValueError(t)


def rules(n: int, seed: int = 5) -> list[Rule]:
    """n rules, at least 20 of them argument caps on `issue_refund` (2 atoms each, 20+ atoms)."""
    rng = random.Random(seed)
    fixed = [
        Rule("precedence", "issue_refund", "check_eligibility"), Rule("precedence", "update_address", "verify_identity"),
        Rule("precedence", "cancel_order", "get_order"), Rule("precedence", "send_email", "lookup_customer"),
        Rule("precedence", "close_ticket", "create_ticket"), Rule("per_order", "issue_refund", "check_eligibility"),
        Rule("per_order", "cancel_order", "get_order"), Rule("per_order", "apply_voucher", "get_order"),
        Rule("owed", "escalate", "create_ticket"), Rule("owed", "create_ticket", "close_ticket"),
        Rule("before_answer", "final_answer", "lookup_customer"), Rule("before_answer", "transfer_to_human", "escalate"),
        Rule("at_most", "search_kb", k=5), Rule("at_most", "send_email", k=3), Rule("at_most", "issue_refund", k=2),
        Rule("never_before", "verify_identity", "update_address"),
    ]
    caps = max(20 // 2, n - len(fixed) - 4) if n >= 25 else n // 2
    out = fixed[:max(0, n - caps)]
    for i in range(caps):
        if i % 5 == 4:
            out.append(Rule("cap_any", k=5000 + 1000 * i))
        else:
            out.append(Rule("cap", k=100 * (i + 1), reason=REASONS[i % len(REASONS)]))
    while len(out) < n:
        out.append(Rule("at_most", rng.choice(["get_order", "lookup_customer", "search_kb"]), k=rng.randint(4, 8)))
    return out[:n]


def policy_text(rs: list[Rule]) -> str:
    return "policy support\n" + TOOLS + "".join(
        f"rule r{i} severity block:\n    {r.text()}\n" for i, r in enumerate(rs))


def random_call(rng: random.Random) -> tuple[str, dict, object]:
    tool = rng.choice(["lookup_customer", "verify_identity", "get_order", "check_eligibility", "issue_refund",
                       "cancel_order", "apply_voucher", "update_address", "send_email", "search_kb", "create_ticket",
                       "escalate", "close_ticket", "get_order", "check_eligibility", "issue_refund"])
    order, customer = rng.choice(ORDERS), rng.choice(CUSTOMERS)
    if tool in ("get_order", "check_eligibility", "cancel_order"):
        args: dict = {"order_id": order}
    elif tool == "issue_refund":
        args = {"order_id": order, "amount": rng.choice([50, 150, 450, 900, 2500, 20000])}
        if rng.random() < 0.7:
            args["reason"] = rng.choice(REASONS)
    elif tool == "apply_voucher":
        args = {"order_id": order, "code": "V"}
    elif tool in ("lookup_customer", "verify_identity"):
        args = {"customer_id": customer}
    elif tool == "update_address":
        args = {"customer_id": customer, "address": "x"}
    elif tool == "send_email":
        args = {"to": "a@b.c", "body": "hi"}
    elif tool == "search_kb":
        args = {"query": "q"}
    elif tool == "create_ticket":
        args = {"subject": "s"}
    elif tool == "close_ticket":
        args = {"ticket_id": "T1"}
    else:
        args = {"reason": "x"}
    result = {"get_order": {"status": "shipped", "amount": 100}, "check_eligibility": {"eligible": True},
              "lookup_customer": {"tier": "gold"}, "verify_identity": {"ok": True}, "search_kb": ["a"],
              "create_ticket": {"id": "T1"}}.get(tool)
    return tool, args, result


def random_run(length: int, rng: random.Random) -> list[tuple[str, dict, object]]:
    calls = [random_call(rng) for _ in range(length - 1)]
    calls.append(rng.choice([("final_answer", {"answer": "done"}, None), ("transfer_to_human", {"reason": "x"}, None)]))
    return calls


# ---------------------------------------------------------------- the hand-written table gate


@dataclass
class HandState:
    seen: set = field(default_factory=set)
    seen_ids: dict = field(default_factory=dict)   # tool -> set of order ids
    counts: dict = field(default_factory=dict)
    owed: dict = field(default_factory=dict)       # rule index -> owed
    lost: set = field(default_factory=set)         # rules broken by a call that ran anyway


class HandGate:
    """The same templates written as flags, counters and sets: what `propose` would be if an
    engineer coded these rules by hand (no conflicts between rules, no guidance)."""

    def __init__(self, rs: list[Rule]):
        self.rules = list(enumerate(rs))
        self.by_tool: dict[str, list[tuple[int, Rule]]] = {}
        for i, r in self.rules:
            for tool in {r.a, "issue_refund" if r.template.startswith("cap") else ""} - {""}:
                self.by_tool.setdefault(tool, []).append((i, r))
        self.owing = [(i, r) for i, r in self.rules if r.template == "owed"]

    def start(self) -> HandState:
        return HandState()

    def propose(self, st: HandState, tool: str, args: dict) -> list[int]:
        out = []
        for i, r in self.by_tool.get(tool, ()):
            t = r.template
            if t in ("precedence", "before_answer"):
                if r.b not in st.seen:
                    out.append(i)
            elif t == "per_order":
                if args.get("order_id") not in st.seen_ids.get(r.b, ()):
                    out.append(i)
            elif t == "cap":
                amount = args.get("amount")
                if isinstance(amount, int) and amount > r.k and args.get("reason") == r.reason:
                    out.append(i)
            elif t == "cap_any":
                amount = args.get("amount")
                if isinstance(amount, int) and amount > r.k:
                    out.append(i)
            elif t == "at_most":
                if st.counts.get(tool, 0) + 1 > r.k:
                    out.append(i)
            elif t == "never_before":
                if r.b in st.seen:
                    out.append(i)
        if tool in ("final_answer", "transfer_to_human"):
            out.extend(i for i, r in self.owing if st.owed.get(i))
        return [i for i in out if i not in st.lost]

    def record(self, st: HandState, tool: str, args: dict, refused: list[int] = ()) -> None:
        st.lost.update(refused)  # the call ran anyway (tolerate): those rules are lost for good
        st.seen.add(tool)
        st.counts[tool] = st.counts.get(tool, 0) + 1
        if "order_id" in args:
            st.seen_ids.setdefault(tool, set()).add(args["order_id"])
        for i, r in self.owing:
            if tool == r.a:
                st.owed[i] = True
            elif tool == r.b:
                st.owed[i] = False


# ---------------------------------------------------------------- measuring


def monitor_for(rs: list[Rule]) -> Monitor:
    policy, diagnostics = check_text(policy_text(rs), "support.altl")
    if policy is None:
        raise SystemExit(str(diagnostics))
    return Monitor(build_artifact(policy))


def time_runs(n_rules: int, runs: int, length: int, warmup: int, seed: int = 11) -> dict:
    """Per-call latency (propose + record) of policyc's gate and of the hand-written gate, on
    the same random runs; the policyc monitor warm (it served `warmup` other runs first).

    A second monitor, warmed on the same runs, is driven through its `Gate` alone (judge the
    proposal, then step the executed call): the decision without the run's bookkeeping
    (arguments copied and checked against the signatures, locking, enforcement log, the
    recorded trace), which is what the hand-written gate does."""
    rs = rules(n_rules)
    monitor, bare = monitor_for(rs), monitor_for(rs)
    hand = HandGate(rs)
    rng = random.Random(seed)
    for _ in range(warmup):
        run = monitor.start(mode="tolerate")
        state = bare.gate.start()
        for tool, args, result in random_run(length, rng):
            run.propose(tool, args)
            run.record(tool, args, result)
            bare.gate.judge(state, tool, args)
            bare.gate.advance(state, tool, args, result)
    ours: list[float] = []
    ours_final: list[float] = []
    core: list[float] = []
    theirs: list[float] = []
    disagreements = undecided = blocks = 0
    clock = time.thread_time_ns  # CPU time of this thread: the machine's other load does not count
    # the calls are made before timing starts, so the collector's passes over them are not
    # charged to whichever gate happens to trigger one
    planned = [random_run(length, rng) for _ in range(runs)]
    gc.collect()
    for calls in planned:
        run = monitor.start(mode="tolerate")
        state = bare.gate.start()
        st = hand.start()
        for tool, args, result in calls:
            t0 = clock()
            decision = run.propose(tool, args)
            run.record(tool, args, result)
            t1 = clock()
            refused = hand.propose(st, tool, args)
            hand.record(st, tool, args, refused)
            t2 = clock()
            bare.gate.judge(state, tool, args)
            bare.gate.advance(state, tool, args, result)
            t3 = clock()
            (ours_final if tool in ("final_answer", "transfer_to_human") else ours).append((t1 - t0) / 1000)
            theirs.append((t2 - t1) / 1000)
            core.append((t3 - t2) / 1000)
            undecided += bool(decision.undecided)
            mine = {int(f.rule[1:]) for f in decision.findings if f.kind in ("violation", "owed")}
            blocks += bool(mine)
            disagreements += mine != set(refused)
    every = sorted(ours + ours_final)
    return {"rules": n_rules, "atoms_on_issue_refund": len(monitor.gate.product.space.atoms.get("issue_refund", ())),
            "calls": len(every), "policyc_p50_us": pct(every, 50), "policyc_p99_us": pct(every, 99),
            "policyc_nonterminal_p99_us": pct(sorted(ours), 99), "policyc_terminal_p99_us": pct(sorted(ours_final), 99),
            "gate_p50_us": pct(sorted(core), 50), "gate_p99_us": pct(sorted(core), 99),
            "hand_p50_us": pct(sorted(theirs), 50), "hand_p99_us": pct(sorted(theirs), 99),
            "calls_refused": blocks, "decisions_undecided": undecided, "rule_decisions_differing": disagreements}


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    return values[min(len(values) - 1, int(round(q / 100 * (len(values) - 1))))]


def main() -> None:
    for n in (25, 50):
        row = time_runs(n, runs=30, length=60, warmup=30)
        print(row)


if __name__ == "__main__":
    main()
