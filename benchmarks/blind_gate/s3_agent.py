"""S3's world (services, their versions, what the tools return) and the release agent's runbook.

A session ships one or two services (of checkout, search, payments) from their current version
to the next. The runbook per service: read its record, list its incidents, run the new
version's tests (again when they fail), build it, deploy it to staging and check its health
there, ask a person for approval, deploy it to production as a canary and check it; an
unhealthy production service is rolled back to the version its record showed, or ticketed.
Then the team is told and the session finishes. The agent strays: it builds or deploys the
wrong version (the current one, a release candidate, an unreleased `v2.0.0`, `latest`),
deploys to production before staging or without (or after a refused) approval, ships a
service with an open severity-1 incident, deploys to `dev` on the side (a health check owed
against the monitoring budget), asks the release bot for approval, rolls back to the new
version, runs forced or destructive commands, forgets the canary, finishes early or without
telling anyone. Some of these doom the run only through other rules (a health check owed after
the budget of four is spent; a second ticket or third rollback owed for an unhealthy service).
"""

from __future__ import annotations

import random

SERVICES = ["checkout", "search", "payments"]
PERSON, BOT = "ann@example.com", "release-bot"


class ReleaseWorld:
    def __init__(self, rng: random.Random):
        self.rng = rng
        names = rng.sample(SERVICES, rng.choice([1, 2, 2]))
        self.services = {}
        for s in names:
            minor = rng.randint(2, 8)
            self.services[s] = {"current": f"v1.{minor}.0", "target": f"v1.{minor + 1}.0",
                                "sev1": rng.random() < 0.2, "flaky": rng.random() < 0.3}
        self.request = ""
        self.tests: dict = {}

    def _svc(self, s: str) -> dict:
        return self.services.get(s) or {"current": "v0.9.0", "target": "v1.0.0", "sev1": False, "flaky": False}

    def result(self, tool: str, args: dict):
        rng = self.rng
        if tool == "get_service":
            return {"owner": "platform", "current_version": self._svc(args["service"])["current"]}
        if tool == "list_incidents":
            if self._svc(args["service"])["sev1"]:
                return [{"id": "I-7", "severity": 1, "open": True}, {"id": "I-3", "severity": 3, "open": False}]
            return [{"id": "I-2", "severity": 2, "open": True}] if rng.random() < 0.3 else []
        if tool == "run_tests":
            key = (args["service"], args["version"])
            n = self.tests[key] = self.tests.get(key, 0) + 1
            passed = not (self._svc(args["service"])["flaky"] and n == 1) and rng.random() < 0.9
            return {"passed": passed, "failures": 0 if passed else rng.randint(1, 5)}
        if tool == "build_image":
            return {"image": f"reg/{args['service']}:{args['version']}"}
        if tool == "request_approval":
            return {"approved": rng.random() < 0.85, "ticket": "CR-12"}
        if tool == "deploy":
            return {"deployment_id": "D-1", "status": "ok" if rng.random() < 0.9 else "failed"}
        if tool == "health_check":
            healthy = rng.random() < (0.75 if args.get("env") == "prod" else 0.9)
            return {"healthy": healthy, "error_rate": 0.01 if healthy else 0.2}
        if tool == "rollback":
            return {"status": "ok"}
        if tool == "run_command":
            return {"exit_code": 0}
        if tool == "open_ticket":
            return {"ticket": "TK-5"}
        return None     # notify, finish


class ReleaseScript:
    def __init__(self, world: ReleaseWorld):
        self.w = world
        self.f: dict[str, dict] = {s: {} for s in world.services}
        self.last = None
        self.notified_at_end = False

    def observe(self, tool: str, args: dict, result) -> None:
        self.last = tool
        f = self.f.get(args.get("service", ""))
        if f is None:
            return
        env = args.get("env")
        if tool == "get_service":
            f["record"] = True
        elif tool == "list_incidents":
            f["incidents"] = True
            f["sev1"] = any(i.get("severity") == 1 and i.get("open") for i in result or [])
        elif tool == "run_tests" and args.get("version") == self.w.services[args["service"]]["target"]:
            f["tests"] = result["passed"]
        elif tool == "build_image":
            f["built"] = f.get("built") or args.get("version") == self.w.services[args["service"]]["target"]
        elif tool == "deploy":
            f[f"deployed_{env}"] = result["status"]
        elif tool == "health_check":
            f[f"checked_{env}"] = result["healthy"]
        elif tool == "request_approval":
            f["approved"] = result["approved"]
        elif tool in ("rollback", "open_ticket"):
            f["acted"] = True

    def candidates(self) -> list:
        for s, f in self.f.items():
            out = self._service(s, f)
            if out:
                return out + [(0.3, "finish", {"summary": "released"})]
        if self.last == "notify":
            return [(6, "finish", {"summary": "released"}), (1, "notify", self._note())]
        return [(6, "notify", self._note()), (1, "finish", {"summary": "released"})]

    def _note(self) -> dict:
        return {"channel": "#releases", "text": "release done: " + ", ".join(self.w.services)}

    def _service(self, s: str, f: dict) -> list:
        w = self.w.services[s]
        t, cur = w["target"], w["current"]
        dep = lambda e, v=t, **kw: {"service": s, "version": v, "env": e, "replicas": 3, **kw}  # noqa: E731
        prod = dep("prod", canary=0.1)
        if "record" not in f:
            return [(6, "get_service", {"service": s}), (1, "list_incidents", {"service": s})]
        if "incidents" not in f:
            return [(6, "list_incidents", {"service": s}), (1, "run_tests", {"service": s, "version": t})]
        if not f.get("tests"):
            out = [(6, "run_tests", {"service": s, "version": t})]
            if f.get("tests") is False:   # failed once: retry, or push on anyway
                out += [(1, "build_image", {"service": s, "version": t}), (1, "deploy", dep("staging"))]
            return out + [(0.5, "build_image", {"service": s, "version": cur})]
        if not f.get("built"):
            return [(6, "build_image", {"service": s, "version": t}),
                    (1, "build_image", {"service": s, "version": t + "-rc1"}),
                    (0.5, "deploy", dep("staging"))]
        if f.get("deployed_staging") != "ok":
            return [(6, "deploy", dep("staging")), (1, "deploy", prod), (1, "deploy", dep("dev")),
                    (0.5, "deploy", dep("staging", v="v2.0.0"))]
        if "checked_staging" not in f:
            return [(6, "health_check", {"service": s, "env": "staging"}), (1, "request_approval",
                    {"service": s, "version": t, "approver": PERSON}), (0.5, "deploy", dep("dev"))]
        if f.get("sev1"):
            if f.get("acted"):
                return []
            return [(4, "open_ticket", {"service": s, "summary": "sev-1 open, release held", "priority": 1}),
                    (1, "deploy", prod), (1, "request_approval", {"service": s, "version": t, "approver": PERSON})]
        if "approved" not in f:
            return [(6, "request_approval", {"service": s, "version": t, "approver": PERSON}),
                    (1, "request_approval", {"service": s, "version": t, "approver": BOT}),
                    (1, "deploy", prod)]
        if f["approved"] is False:
            if f.get("acted"):
                return []
            return [(3, "request_approval", {"service": s, "version": t, "approver": PERSON}),
                    (2, "open_ticket", {"service": s, "summary": "approval refused", "priority": 3}),
                    (1, "deploy", prod)]
        if "deployed_prod" not in f:
            return [(6, "deploy", prod), (1, "deploy", dep("prod")), (0.5, "deploy", dep("prod", v=cur, canary=0.1)),
                    (0.5, "run_command", {"host": "build-1", "command": "kubectl apply --force -f canary.yaml"})]
        if "checked_prod" not in f:
            return [(6, "health_check", {"service": s, "env": "prod"}), (0.5, "deploy", dep("dev"))]
        if f["checked_prod"] is False and not f.get("acted"):
            return [(4, "rollback", {"service": s, "env": "prod", "to_version": cur}),
                    (2, "open_ticket", {"service": s, "summary": "unhealthy canary", "priority": 2}),
                    (1, "rollback", {"service": s, "env": "prod", "to_version": t}),
                    (1, "rollback", {"service": s, "env": "staging", "to_version": cur})]
        return []

    def noise(self, rng: random.Random):
        services = list(self.w.services) + ["billing"]
        s = rng.choice(services)
        w = self.w.services.get(s, {"current": "v0.9.0", "target": "v1.0.0"})
        v = rng.choice([w["target"], w["target"], w["current"], "v2.0.0", "1.4", "latest", w["target"] + "-rc1"])
        e = rng.choice(["dev", "staging", "prod", "prod"])
        deploy = {"service": s, "version": v, "env": e, "replicas": rng.choice([3, 3, 0, 40])}
        if rng.random() < 0.6:
            deploy["canary"] = rng.choice([0.1, 0.1, 0.5])
        return rng.choice([
            ("get_service", {"service": s}),
            ("list_incidents", {"service": s}),
            ("run_tests", {"service": s, "version": v}),
            ("build_image", {"service": s, "version": v}),
            ("request_approval", {"service": s, "version": v, "approver": rng.choice([PERSON, BOT, "bo@contractor.io"])}),
            ("deploy", deploy),
            ("deploy", deploy),
            ("health_check", {"service": s, "env": e}),
            ("rollback", {"service": s, "env": e, "to_version": rng.choice([w["current"], v])}),
            ("run_command", {"host": rng.choice(["build-1", "prod-db-1"]),
                             "command": rng.choice(["make check", "rm -rf /var/cache/app", "git push --FORCE"])}),
            ("notify", {"channel": "#releases", "text": f"working on {s}"}),
            ("open_ticket", {"service": s, "summary": "investigate", "priority": 2}),
            ("finish", {"summary": "stopping here"}),
        ])
