"""Seeded generator of release-agent traces for policy.altl.

Each run is a metrics record (the AgentLTL paper's format): `tool_calls` of
`{tool_name, arguments, tool_result}`, plus the metrics `num_steps` and `wall_seconds`.
Most runs follow the runbook; every step has a small chance of a deliberate deviation
(a skipped check, a wrong argument, a bad result acted on, a missing follow-up), so that
each rule is broken in some runs and kept in others.

    python generate.py --runs 1000 --seed 7 -o traces.jsonl
"""

from __future__ import annotations

import argparse
import json
import random
import sys

SERVICES = ["checkout", "search-api", "payments", "inventory", "auth", "notifier",
            "catalog", "billing", "ledger", "gateway"]
APPROVERS = ["alice@example.com", "bob@example.com", "chen@example.com", "dara@example.com"]
SAFE_COMMANDS = ["kubectl get pods", "kubectl describe deploy", "df -h", "uptime",
                 "kubectl logs --tail=50", "git log -1", "curl -s localhost:8080/healthz"]
SAFE_HOSTS = ["build-01", "build-02", "stage-01", "stage-02", "bastion"]


def version(rng: random.Random) -> str:
    return f"v{rng.randint(1, 4)}.{rng.randint(0, 12)}.{rng.randint(0, 30)}"


class Run:
    """One run under construction: segments (lists of calls kept together) and fillers."""

    def __init__(self, rng: random.Random):
        self.rng = rng
        self.segments: list[list[dict]] = []
        self.shell_heavy = rng.random() < 0.12
        self.legacy = rng.random() < 0.04
        self.stringly = rng.random() < 0.04   # a health service that writes its values as text

    def seg(self, *calls: dict) -> None:
        self.segments.append(list(calls))

    def filler(self, services: list[str]) -> dict:
        rng = self.rng
        s = rng.choice(services)
        p_shell = 0.45 if self.shell_heavy else 0.08
        r = rng.random()
        if r < p_shell:
            return shell(rng, rng.choice(SAFE_HOSTS), rng.choice(SAFE_COMMANDS))
        r = rng.random()
        if r < 0.35:
            return call("health_check", {"service": s, "env": "dev"}, health(rng, True))
        if r < 0.6:
            return call("list_incidents", {"service": s}, incidents(rng, False))
        if r < 0.85:
            return call("get_service", {"service": s}, self.records.get(s) or service_record(rng, s, version(rng)))
        return call("scale", {"service": s, "env": "dev", "replicas": rng.randint(1, 4)}, None, replicas=True)


def call(name: str, args: dict, result, replicas: bool = False) -> dict:
    if replicas:
        result = {"replicas": args["replicas"]}
    return {"tool_name": name, "arguments": args, "tool_result": result}


def shell(rng: random.Random, host: str, command: str) -> dict:
    return call("run_command", {"host": host, "command": command},
                {"exit_code": 0 if rng.random() < 0.9 else 1, "stdout": "ok"})


def health(rng: random.Random, healthy: bool) -> dict:
    if healthy:
        return {"healthy": True, "error_rate": round(rng.uniform(0.0, 0.04), 4),
                "latency_ms": round(rng.uniform(20, 200), 1)}
    return {"healthy": False, "error_rate": round(rng.uniform(0.02, 0.4), 4),
            "latency_ms": round(rng.uniform(200, 3000), 1)}


def incidents(rng: random.Random, sev1: bool, legacy: bool = False) -> list:
    out = []
    for _ in range(rng.randint(0, 3)):
        out.append({"id": f"INC-{rng.randint(100, 999)}", "severity": rng.randint(2, 4),
                    "open": rng.random() < 0.5})
    if sev1:
        out.insert(rng.randint(0, len(out)), {"id": f"INC-{rng.randint(100, 999)}", "severity": 1, "open": True})
    elif rng.random() < 0.15:   # a closed sev-1 is no reason to hold a release
        out.append({"id": f"INC-{rng.randint(100, 999)}", "severity": 1, "open": False})
    if legacy:   # an older incident service: 1/0 for open, floats for severity
        for x in out:
            x["open"] = 1 if x["open"] else 0
            x["severity"] = float(x["severity"])
    return out


def service_record(rng: random.Random, s: str, current: str) -> dict:
    approvers = rng.sample(APPROVERS, rng.randint(1, 3))
    if rng.random() < 0.1:
        approvers.append("jimbob@example.com")   # its words hold "jimbob", not "bob"
    return {"service": s, "owner": f"team-{s}", "tier": rng.randint(1, 3), "current_version": current,
            "approvers": approvers}


def ticket(rng: random.Random, summary: list) -> str:
    """A new ticket id; the final summary usually names it."""
    t = f"T-{rng.randint(1000, 9999)}"
    if rng.random() < 0.85:
        summary.append(f"ticket {t}")
    return t


def dev(rng: random.Random, p: float) -> bool:
    """A deliberate deviation, with probability p."""
    return rng.random() < p


def release(run: Run, s: str, summary: list[str], counters: dict) -> None:
    rng = run.rng
    old, new = version(rng), version(rng)
    while new == old:
        new = version(rng)
    if dev(rng, 0.03):   # a tag that is not a release version
        new = rng.choice(["latest", "v2.3", "V2.3.1", "v2.3.1-rc1"])
    rec = service_record(rng, s, old)
    run.records[s] = rec
    if not dev(rng, 0.04):
        run.seg(call("get_service", {"service": s}, rec))
    sev1 = rng.random() < 0.08
    if not dev(rng, 0.06):
        run.seg(call("list_incidents", {"service": s}, incidents(rng, sev1, legacy=run.legacy)))

    # Tests; a failure is usually fixed and re-run, sometimes shipped anyway.
    tested = new if not dev(rng, 0.03) else version(rng)
    passed = rng.random() < 0.82
    coverage = round(rng.uniform(0.81, 0.97) if not dev(rng, 0.08) else rng.uniform(0.5, 0.79), 3)
    if not dev(rng, 0.03):
        run.seg(call("run_tests", {"service": s, "version": tested},
                     {"passed": passed, "failures": 0 if passed else rng.randint(1, 9), "coverage": coverage}))
    else:
        passed = True   # never tested at all
    if not passed:
        r = rng.random()
        if r < 0.65:    # fixed and re-run: green now
            run.seg(call("run_tests", {"service": s, "version": tested},
                         {"passed": True, "failures": 0, "coverage": max(coverage, 0.82)}))
        elif r < 0.85:  # gives up, files a ticket (or not)
            if not dev(rng, 0.3):
                run.seg(call("open_ticket", {"service": s, "summary": f"tests fail for {s} {new}",
                                             "priority": rng.choice([2, 3])}, {"ticket": ticket(rng, summary)}))
                summary.append(f"{s}: ticket")
            return
        # else: ships the red build anyway

    size = round(rng.uniform(150, 1800), 1) if not dev(rng, 0.03) else round(rng.uniform(2000, 3500), 1)
    built = new if not dev(rng, 0.03) else version(rng)
    if not dev(rng, 0.03):
        run.seg(call("build_image", {"service": s, "version": built},
                     {"image": f"registry/{s}:{built}", "size_mb": size} if not dev(rng, 0.03) else None))

    def deploy(env: str, replicas: int, canary=None, status="ok", with_canary=False) -> dict:
        args = {"service": s, "version": new, "env": env, "replicas": replicas}
        if with_canary:
            args["canary"] = canary
        return call("deploy", args, {"deployment_id": f"d-{rng.randint(10000, 99999)}", "status": status})

    def replicas(lo: int, hi: int) -> int:
        if dev(rng, 0.03):
            return rng.choice([0, 21, 25])
        return rng.randint(lo, hi)

    # Staging.
    staging_ok = rng.random() < 0.92
    if not dev(rng, 0.05):
        run.seg(deploy("staging", replicas(1, 4), status="ok" if staging_ok else "failed"))
        if not dev(rng, 0.05):
            run.seg(call("health_check", {"service": s, "env": "staging"}, health(rng, staging_ok)))
        if not staging_ok or dev(rng, 0.03):
            run.seg(call("rollback", {"service": s, "env": "staging", "to_version": old}, {"status": "ok"}),
                    call("health_check", {"service": s, "env": "staging"}, health(rng, True)))
            counters["rollbacks"] += 1
            if not dev(rng, 0.3):
                summary.append(f"{s}: staging rolled back")
                return
            staging_ok = False
    if dev(rng, 0.04):
        run.seg(shell(rng, "build-01", rng.choice(["kubectl apply --force -f deploy.yaml", "helm upgrade --FORCE"])))
    if dev(rng, 0.02):
        run.seg(shell(rng, "build-02", "rm -rf /var/cache/build"))
    if dev(rng, 0.03):
        run.seg(shell(rng, "prod-db-1", "kubectl get pods"))

    # Approval.
    approved = rng.random() < 0.9
    if not dev(rng, 0.04):
        listed = rec["approvers"]
        r = rng.random()
        if r < 0.04:
            approver = rng.choice(["release-bot", "alice@corp.io"])
        elif r < 0.08:     # someone with an example.com address the record does not list
            others = [a for a in APPROVERS + ["bob@example.com"] if a not in listed]
            approver = rng.choice(others)
        elif r < 0.12:     # a listed approver, written in capitals
            approver = rng.choice(listed).title()
        elif r < 0.14:     # a listed approver's first name only
            approver = rng.choice(listed).split("@")[0].title()
        else:
            approver = rng.choice(listed)
        v_asked = new if not dev(rng, 0.03) else version(rng)
        run.seg(call("request_approval", {"service": s, "version": v_asked, "approver": approver},
                     {"approved": approved, "ticket": f"CHG-{rng.randint(100, 999)}"}))
    if not approved and not dev(rng, 0.2):
        summary.append(f"{s}: approval refused")
        return
    if sev1 and not dev(rng, 0.3):
        run.seg(call("open_ticket", {"service": s, "summary": f"release of {s} held: open sev-1",
                                     "priority": 1 if not dev(rng, 0.1) else 0}, {"ticket": ticket(rng, summary)}))
        summary.append(f"{s}: held for sev-1")
        return

    if dev(rng, 0.03):   # scales production up ahead of the release
        run.seg(call("scale", {"service": s, "env": "prod", "replicas": rng.randint(4, 12)}, None, replicas=True))
    # Production, as a canary, checked at once.
    r = rng.random()
    canary = rng.choice([0.05, 0.1, 0.25])
    with_canary = True
    if r < 0.05:
        with_canary = False
    elif r < 0.07:
        canary = None            # given as null
    elif r < 0.10:
        canary = 0.5
    prod_deploys = 1 + (1 if dev(rng, 0.06) else 0)
    for _ in range(prod_deploys):
        seg = [deploy("prod", replicas(2, 10), canary, with_canary=with_canary)]
        counters["prod"] += 1
        if dev(rng, 0.04):   # retries at once, as if the first call had timed out
            seg.append(dict(seg[0]))
        if dev(rng, 0.06):
            seg += [run.filler([s]) for _ in range(rng.randint(3, 5))]
        healthy = rng.random() < 0.85
        if not dev(rng, 0.04):
            h = health(rng, healthy)
            seg.append(call("health_check", {"service": s, "env": "prod"}, h))
            if h["error_rate"] > 0.05 or not healthy:
                r = rng.random()
                if r < 0.6:
                    to = old if not dev(rng, 0.1) else version(rng)
                    seg.append(call("rollback", {"service": s, "env": "prod", "to_version": to}, {"status": "ok"}))
                    counters["rollbacks"] += 1
                    if not dev(rng, 0.1):
                        seg.append(call("health_check", {"service": s, "env": "prod"}, health(rng, True)))
                    if rng.random() < 0.5:
                        seg.append(call("notify", {"channel": "#incidents", "text": f"Rolled back {s} to {to}."}, None))
                    summary.append(f"{s}: rolled back")
                elif r < 0.8:
                    seg.append(call("notify", {"channel": "#incidents" if not dev(rng, 0.3) else "#releases",
                                               "text": f"{s} {new} is unhealthy in prod, investigating."}, None))
                    if not dev(rng, 0.3):
                        seg.append(call("open_ticket", {"service": s, "summary": f"{s} {new} unhealthy",
                                                        "priority": rng.choice([1, 2])}, {"ticket": ticket(rng, summary)}))
                    summary.append(f"{s}: unhealthy, ticket")
                elif r < 0.9:
                    # a ticket, now and then filed against the platform instead of the service
                    seg.append(call("open_ticket", {"service": s if not dev(rng, 0.25) else "platform",
                                                    "summary": f"{s} {new} unhealthy",
                                                    "priority": rng.choice([1, 2, 5])}, {"ticket": ticket(rng, summary)}))
                    summary.append(f"{s}: unhealthy, ticket")
                # else: ignores it
            else:
                summary.append(f"{s} {new} shipped")
        run.seg(*seg)
    if dev(rng, 0.1):
        n = rng.randint(2, 12) if not dev(rng, 0.2) else rng.choice([1, 60])
        env = "prod" if rng.random() < 0.7 else "staging"
        run.seg(call("scale", {"service": s, "env": env, "replicas": n}, None, replicas=True))
    if dev(rng, 0.04):
        run.seg(call("notify", {"channel": "#incidents", "text": f"Heads up on {s}."}, None))


def one_run(seed: int, index: int) -> dict:
    """Run `index` of the corpus: drawn again (deterministically) until it has 20 to 150 calls."""
    for attempt in range(100):
        record = draw_run(seed, index, attempt)
        if 20 <= len(record["tool_calls"]) <= 150:
            return record
    raise RuntimeError(f"run {index}: no draw of 20 to 150 calls")


def draw_run(seed: int, index: int, attempt: int) -> dict:
    rng = random.Random(f"{seed}:{index}" + (f":{attempt}" if attempt else ""))
    run = Run(rng)
    run.records = {}
    services = rng.sample(SERVICES, rng.choice([1, 1, 2, 2, 3]))
    if dev(rng, 0.03):
        run.seg(shell(rng, "bastion", "uptime"))
    if dev(rng, 0.03):   # announces the release before looking at anything
        run.seg(call("notify", {"channel": "#releases", "text": f"Starting the release of {', '.join(services)}."}, None))
    summary: list[str] = []
    counters = {"prod": 0, "rollbacks": 0}
    for s in services:
        release(run, s, summary, counters)
    if dev(rng, 0.05):   # deploys again what is already out, to be sure
        s = services[0]
        rec = run.records[s]
        for _ in range(rng.randint(2, 4)):
            run.seg(call("deploy", {"service": s, "version": rec["current_version"], "env": "prod",
                                    "replicas": 3, "canary": 0.1}, {"deployment_id": "d-1", "status": "ok"}),
                    call("health_check", {"service": s, "env": "prod"}, health(rng, True)))
    if dev(rng, 0.04):
        for _ in range(3):
            run.seg(call("rollback", {"service": services[0], "env": "prod",
                                      "to_version": run.records[services[0]]["current_version"]}, {"status": "ok"}),
                    call("health_check", {"service": services[0], "env": "prod"}, health(rng, True)))
    if dev(rng, 0.03):   # a hotfix to a service outside the plan, never checked
        run.seg(call("deploy", {"service": "legacy-cron", "version": "v0.9.1", "env": "staging", "replicas": 1},
                     {"deployment_id": "d-2", "status": "ok"}))
    # Fillers: investigations between the segments, to a length of 20 to 150 calls.
    target = rng.randint(22, 150)
    length = sum(len(x) for x in run.segments)
    slots = [[] for _ in range(len(run.segments) + 1)]
    for _ in range(max(0, target - length - 2)):
        slots[rng.randint(1, len(run.segments))].append(run.filler(services))
    calls: list[dict] = list(slots[0])
    for segment, extra in zip(run.segments, slots[1:]):
        calls += segment + extra
    # The end: tell the team, then finish.
    text = "Release summary: " + "; ".join(summary or ["nothing shipped"])
    if dev(rng, 0.03):
        text += " " + "details " * 40
    elif dev(rng, 0.05):   # a note at the length limit, with a character outside the BMP
        target = rng.choice([279, 280, 281])
        text = ("\U0001F680 " + text + " " + "." * target)[:target]
    if not dev(rng, 0.06):
        channel = "#releases" if not dev(rng, 0.03) else "#general"
        calls.append(call("notify", {"channel": channel, "text": text}, None))
    if not dev(rng, 0.03):
        calls.append(call("finish", {"summary": text[:200]}, None))
        if dev(rng, 0.02):
            calls.append(call("finish", {"summary": "done"}, None))
        elif dev(rng, 0.03):
            calls.append(shell(rng, "stage-01", "uptime"))
        elif dev(rng, 0.02):   # one more deploy after the summary
            s = services[-1]
            calls.append(call("deploy", {"service": s, "version": run.records[s]["current_version"], "env": "staging",
                                         "replicas": 2}, {"deployment_id": "d-3", "status": "ok"}))
    if run.stringly:
        for c in calls:
            if c["tool_name"] == "health_check" and isinstance(c["tool_result"], dict):
                c["tool_result"] = {k: json.dumps(v) for k, v in c["tool_result"].items()}
    if dev(rng, 0.04) and len(calls) > 20:   # the agent crashed: the log stops mid-run
        calls = calls[:rng.randint(20, len(calls) - 1)]
    steps = len(calls)
    if dev(rng, 0.15):   # a logger that writes results as JSON text
        for c in calls:
            if c["tool_result"] is not None:
                c["tool_result"] = json.dumps(c["tool_result"])
    record = {"id": f"run-{index:05d}", "tool_calls": calls,
              "num_steps": steps, "wall_seconds": round(steps * rng.uniform(4, 16), 1)}
    if dev(rng, 0.02):
        del record["wall_seconds"]
    elif dev(rng, 0.02):   # another logger's metrics: numbers as text
        record["num_steps"] = str(steps)
        record["wall_seconds"] = str(record["wall_seconds"])
    return record


def generate(runs: int = 1000, seed: int = 7):
    for i in range(runs):
        yield one_run(seed, i)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("-o", "--output", default="-")
    a = ap.parse_args(argv)
    out = sys.stdout if a.output == "-" else open(a.output, "w", encoding="utf-8")
    with out:
        for record in generate(a.runs, a.seed):
            out.write(json.dumps(record) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
