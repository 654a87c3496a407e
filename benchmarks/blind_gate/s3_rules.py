"""S3, the release agent: its 25 rules as hand-written monitors, and the oracle's joint states and pool.

Each rule below restates one rule of `s3_release.altl`, in the same order, by its name, from
docs/semantics.md and docs/language.md. Six rules bind two values in one event (a service and a
version, or a service and an environment): their instances are keyed by the pair, as
docs/automata.md describes (one instance per pair some call named, both values defined; a pair
no call named together is never triggered, so it holds).

**Why S1/S2's joint states are not used.** There, a value's profile is its states in the rules
of its sort, and values of one sort are interchangeable one by one. Here one service takes part
in rules keyed by the service, by (service, version) and by (service, environment), and one
version in rules keyed by the version and by (service, version): a profile per sort would lose
which pair belongs to which service. `PairJoint` keeps every instance by its key instead
(concrete values), and its canonical form renames services and versions by a signature of
their instances (see `canon`): a renaming that maps the state to an isomorphic one, so two
states with one canonical form are isomorphic and reach acceptance alike. Ties are broken by
name, so some isomorphic states keep two forms: that costs search time, never exactness.

**Why the finite pool is enough.** No rule names a service, a version or a pair literally, and
the only test of a version's text is `semver_only`'s pattern, so any bijection of services and
of versions that keeps each version's match of the pattern maps runs to runs and verdicts to
verdicts. A value whose every instance is in its rule's initial state is, to every rule, a value
no call named. So a continuation needs only: the values the state's instances name, and `fresh`
values never named (per sort; versions fresh ones that match the pattern, since an unmatched one
can only be deployed against `semver_only`, and elsewhere behaves as a matched one). This
bounds the continuations to `fresh` new values per sort (2 by default); `validate.py` checks that
1, 2 and 3 give the same answer on every logged decision. Environments are the enum's three
members. The other arguments take one value per side of each literal a rule tests (replicas 2
and 40 against 1..20; canary absent, 0.1 and 0.5 against 0.25; approvers a person of the company
and `release-bot`; commands plain, `--force` and `rm -rf`; hosts a build host and `prod-...`);
results every value a rule distinguishes (passed, approved, healthy: both; deploy status `ok`
and `failed`; incidents none or one open severity-1). A continuation never needs a call that
breaks a `never`-shaped rule for good (a continuation through a violated state satisfies
nothing), so the pool leaves those out (replicas 40, canary 0.5 in production, an unmatched
version deployed, `rm -rf`, a `prod-` host, `release-bot`); a proposed call is judged as it is.
"""

from __future__ import annotations

import re
from typing import Any, Callable

from .joint import Tool
from .model import Call, Cap, Custom, Eventually, Never, Pat, Requires, Response, Rules, ThenNever, arg, res

S, V, SV, SE = "service", "version", "service+version", "service+env"
FRESH_S, FRESH_V = "svc~", "v900.0."     # the names of values a continuation brings in
# where each sort's key keeps its services and versions (an environment is not renamed)
PARTS = {S: ("s",), V: ("v",), SV: ("s", "v"), SE: ("s", "e")}

SEMVER = re.compile(r"v[0-9]+[.][0-9]+[.][0-9]+")


def semver(v: Any) -> bool:
    """`matches(version, "v[0-9]+[.][0-9]+[.][0-9]+")`: the whole text matches; not a text: false."""
    return isinstance(v, str) and SEMVER.fullmatch(v) is not None


def pair(a: Callable[[Call], Any], b: Callable[[Call], Any]) -> Callable[[Call], Any]:
    """A key of two values, named only when both are defined and not null."""
    def key(c: Call):
        x, y = a(c), b(c)
        if x is None or y is None or not _hashable(x) or not _hashable(y):
            return None
        return (x, y)
    return key


def one(a: Callable[[Call], Any]) -> Callable[[Call], Any]:
    def key(c: Call):
        x = a(c)
        return x if _hashable(x) else None
    return key


def _hashable(x) -> bool:
    return isinstance(x, (str, int, float, bool))


def _is(field: str, value) -> Callable[[Call], bool]:
    return lambda c: isinstance(c.result, dict) and c.result.get(field) == value and type(c.result.get(field)) is type(value)


def _env(e: str) -> Callable[[Call], bool]:
    return lambda c: c.args.get("env") == e


def _num(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def _sev1(c: Call) -> bool:
    """`exists i in result: i.severity == 1 and i.open == true` (no list: no element, false)."""
    r = c.result
    return isinstance(r, list) and any(isinstance(i, dict) and _num(i.get("severity")) and i.get("severity") == 1
                                       and i.get("open") is True for i in r)


def _lower_contains(x, part: str) -> bool:
    return isinstance(x, str) and part in x.lower()


def _good_replicas(c: Call) -> bool:
    r = c.args.get("replicas")
    return _num(r) and 1 <= r <= 20


def _canary(c: Call) -> bool:
    k = c.args.get("canary")
    return k is not None and _num(k) and k <= 0.25


def _human(c: Call) -> bool:
    a = c.args.get("approver")
    return isinstance(a, str) and a != "release-bot" and a.endswith("@example.com")


svc, ver, env = arg("service"), arg("version"), arg("env")
s_v = pair(svc, ver)
s_e = pair(svc, env)
s_cur = pair(svc, res("current_version"))
s_to = pair(svc, arg("to_version"))


def _failed_version_step(s, call: Call, value=None):
    """`run_tests(s, v, passed == false) -> (not deploy(s, v) weak until run_tests(s, v, passed == true))`:
    0 free, 1 a failed run awaits a passing one (no deploy meanwhile), 2 violated."""
    if s == 2:
        return 2
    if call.tool == "run_tests":
        if _is("passed", True)(call):
            return 0
        if _is("passed", False)(call):
            return 1
        return s
    if call.tool == "deploy":
        return 2 if s == 1 else s
    return s


def _checked_step(s, call: Call, value=None):
    """`forall s in deploy.service: eventually health_check(service: s)`: bit 1 deployed, bit 2 checked."""
    return s | (1 if call.tool == "deploy" else 2)


GOLDEN = ["get_service", "run_tests", "build_image", "deploy", "health_check", "finish"]


def _golden_step(s, call: Call, value=None):
    """`in_order([...])`: how many of the tools were met in order (the earliest match is the best)."""
    return s + 1 if s < len(GOLDEN) and call.tool == GOLDEN[s] else s


def _yesterday_notify_step(s, call: Call, value=None):
    """`always (finish -> yesterday notify)`: 0 last call not notify, 1 it was, 2 violated."""
    if s == 2:
        return 2
    if call.tool == "finish":
        return 2 if s != 1 else 0
    return 1 if call.tool == "notify" else 0


def rules() -> Rules:
    prod_deploy = lambda key=None: Pat("deploy", _env("prod"), key=key)  # noqa: E731
    return Rules([
        # ---- pairs
        Requires("tested_before_build", [Pat("build_image", key=s_v)],
                 [Pat("run_tests", _is("passed", True), key=s_v)], sort=SV),
        Requires("approved_before_prod", [prod_deploy(s_v)],
                 [Pat("request_approval", _is("approved", True), key=s_v)], sort=SV),
        Requires("staging_before_prod", [prod_deploy(s_v)],
                 [Pat("deploy", lambda c: _env("staging")(c) and _is("status", "ok")(c), key=s_v)], sort=SV),
        Response("health_after_deploy", [Pat("deploy", key=s_e)], [Pat("health_check", key=s_e)], sort=SE),
        Custom("no_deploy_of_failed_version", [Pat("run_tests", key=s_v), Pat("deploy", key=s_v)],
               _failed_version_step, ok=lambda s: s != 2, dead=lambda s: s == 2, sort=SV),
        Requires("rollback_to_a_known_version", [Pat("rollback", key=s_to)], [Pat("get_service", key=s_cur)],
                 sort=SV),
        # ---- one value
        Requires("built_before_deploy", [Pat("deploy", key=one(ver))], [Pat("build_image", key=one(ver))], sort=V),
        Custom("every_deployed_service_checked", [Pat("deploy", key=one(svc)), Pat("health_check", key=one(svc))],
               _checked_step, ok=lambda s: s != 1, sort=S),
        Requires("incidents_checked_before_prod", [prod_deploy(one(svc))],
                 [Pat("list_incidents", key=one(svc))], sort=S),
        ThenNever("no_prod_deploy_during_sev1", [Pat("list_incidents", _sev1, key=one(svc))],
                  [prod_deploy(one(svc))], sort=S),
        Response("act_on_unhealthy_prod",
                 [Pat("health_check", lambda c: _env("prod")(c) and _is("healthy", False)(c), key=one(svc))],
                 [Pat("rollback", _env("prod"), key=one(svc)), Pat("open_ticket", key=one(svc))], sort=S),
        # ---- the session
        Custom("golden_path", [Pat(t) for t in GOLDEN], _golden_step, ok=lambda s: s == len(GOLDEN)),
        Eventually("shipped_or_ticketed", Pat("deploy"), Pat("open_ticket")),
        Custom("notify_right_before_finish", [Pat(t) for t in TOOL_NAMES], _yesterday_notify_step,
               ok=lambda s: s != 2, dead=lambda s: s == 2),
        Cap("few_prod_deploys", 2, prod_deploy()),
        Cap("few_rollbacks", 2, Pat("rollback")),
        Cap("health_check_budget", 4, Pat("health_check")),
        Cap("one_ticket", 1, Pat("open_ticket")),
        ThenNever("no_forced_prod_deploy", [Pat("run_command", lambda c: _lower_contains(c.args.get("command"), "--force"))],
                  [prod_deploy()]),
        Never("no_recursive_deletes",
              Pat("run_command", lambda c: isinstance(c.args.get("command"), str) and "rm -rf" in c.args["command"])),
        Never("no_shell_on_prod_hosts",
              Pat("run_command", lambda c: isinstance(c.args.get("host"), str) and c.args["host"].startswith("prod-"))),
        Never("sane_replicas", Pat("deploy", lambda c: not _good_replicas(c))),
        Never("prod_is_a_canary", Pat("deploy", lambda c: _env("prod")(c) and not _canary(c))),
        Never("semver_only", Pat("deploy", lambda c: not semver(c.args.get("version")))),
        Never("human_approver", Pat("request_approval", lambda c: not _human(c))),
    ])


TOOL_NAMES = ["get_service", "list_incidents", "run_tests", "build_image", "request_approval", "deploy",
              "health_check", "rollback", "run_command", "notify", "open_ticket", "finish"]

# For the harness (which tools end a run); the oracle's pool is `ReleasePool`.
TOOLS = [Tool(t, {}, None, terminal=t == "finish") for t in TOOL_NAMES]
ENVS = ["dev", "staging", "prod"]
INCIDENT = {"id": "I-1", "severity": 1, "open": True}


class PairJoint:
    """Joint states of rules keyed by values and pairs of values: (global states, {rule: {key: state}}).

    Only instances out of their rule's initial state are kept (`normalize`); the values they name
    are the state's services and versions."""

    def __init__(self, rules: Rules, fresh: int = 2):
        self.rules, self.fresh = rules, fresh
        self.glob = rules.glob
        self.keyed = [r for r in rules.rules if r.sort is not None]
        self.names = frozenset(r.name for r in rules.rules)
        self.tools = frozenset(t for r in rules.rules for t in r.tools)

    def start(self, request: str = ""):
        return tuple(r.begin(request) for r in self.glob), {r.name: {} for r in self.keyed}

    def fresh_used(self, st) -> tuple[int, int]:
        """How many new services and versions the continuation leading here brought in (named `~`)."""
        services, versions = self.values(st)
        return (sum(isinstance(x, str) and x.startswith(FRESH_S) for x in services),
                sum(isinstance(x, str) and x.startswith(FRESH_V) for x in versions))

    def step(self, st, call: Call):
        g, per = st
        g = tuple(r.step(x, call) if call.tool in r.tools else x for r, x in zip(self.glob, g))
        new = dict(per)
        for r in self.keyed:
            if call.tool not in r.tools:
                continue
            named = r.named(call)
            if not named:
                continue
            inst = dict(per[r.name])
            for k in named:
                q = r.step(inst.get(k, r.init), call, k)
                if q == r.init:
                    inst.pop(k, None)
                else:
                    inst[k] = q
            new[r.name] = inst
        return g, new

    def ok(self, st) -> bool:
        return not self.failing(st)

    def dead(self, st) -> bool:
        g, per = st
        return (any(r.dead(x) for r, x in zip(self.glob, g))
                or any(r.dead(q) for r in self.keyed for q in per[r.name].values()))

    def dead_rules(self, st) -> list[str]:
        g, per = st
        return ([r.name for r, x in zip(self.glob, g) if r.dead(x)]
                + [r.name for r in self.keyed if any(r.dead(q) for q in per[r.name].values())])

    def failing(self, st) -> list[str]:
        g, per = st
        return ([r.name for r, x in zip(self.glob, g) if not r.ok(x)]
                + [r.name for r in self.keyed if any(not r.ok(q) for q in per[r.name].values())])

    def pending(self, st) -> int:
        g, per = st
        return (sum(not r.ok(x) for r, x in zip(self.glob, g))
                + sum(not r.ok(q) for r in self.keyed for q in per[r.name].values()))

    def normalize(self, st):
        """Instances in their initial state are left out (they are every unnamed value's)."""
        g, per = st
        return g, {r.name: {k: q for k, q in per[r.name].items() if q != r.init} for r in self.keyed}

    def values(self, st) -> tuple[set, set]:
        """The services and versions the state's instances name."""
        services, versions = set(), set()
        for r in self.keyed:
            parts = PARTS[r.sort]
            for k in st[1][r.name]:
                ks = k if len(parts) == 2 else (k,)
                for p, x in zip(parts, ks):
                    (services if p == "s" else versions if p == "v" else set()).add(x)
        return services, versions

    def canon(self, st):
        g, per = st
        sig_s: dict = {}
        sig_v: dict = {}
        for r in self.keyed:
            parts = PARTS[r.sort]
            for k, q in per[r.name].items():
                ks = k if len(parts) == 2 else (k,)
                other = ks[1] if parts == ("s", "e") else None
                for p, x in zip(parts, ks):
                    if p == "s":
                        sig_s.setdefault(x, []).append((r.name, other, q))
                    elif p == "v":
                        sig_v.setdefault(x, []).append((r.name, q))
        s_order = sorted(sig_s, key=lambda x: (sorted(sig_s[x], key=repr), str(x)))
        v_order = sorted(sig_v, key=lambda x: (semver(x), sorted(sig_v[x], key=repr), str(x)))
        ren_s = {x: i for i, x in enumerate(s_order)}
        ren_v = {x: i for i, x in enumerate(v_order)}
        out = []
        for r in self.keyed:
            parts = PARTS[r.sort]
            items = []
            for k, q in per[r.name].items():
                ks = k if len(parts) == 2 else (k,)
                items.append((tuple(ren_s[x] if p == "s" else ren_v[x] if p == "v" else x
                                    for p, x in zip(parts, ks)), q))
            out.append(tuple(sorted(items, key=repr)))
        fresh = (sum(isinstance(x, str) and x.startswith(FRESH_S) for x in s_order),
                 sum(isinstance(x, str) and x.startswith(FRESH_V) for x in v_order))
        return g, tuple(out), tuple(semver(x) for x in v_order), fresh

    def project(self, st, sub: PairJoint):
        g, per = st
        gi = {r.name: i for i, r in enumerate(self.glob)}
        return tuple(g[gi[r.name]] for r in sub.glob), {r.name: per[r.name] for r in sub.keyed}


class ReleasePool:
    """The calls a continuation may make: the state's services and versions and `fresh` new ones of each."""

    def __init__(self):
        self.tools = {t.name: t for t in TOOLS}

    @staticmethod
    def _fresh(named: set, stem: str, n: int) -> list:
        out, i = [], 0
        while len(out) < n:
            x = stem.format(i)
            if x not in named:
                out.append(x)
            i += 1
        return out

    def values(self, joint: PairJoint, st) -> tuple[list, list]:
        """The state's values, and new ones: at most `fresh` per sort over a whole continuation
        (those it brought in are named with `FRESH_S` / `FRESH_V` and count)."""
        services, versions = joint.values(st)
        used_s, used_v = joint.fresh_used(st)
        s = sorted(map(str, services)) + self._fresh(services, FRESH_S + "{}", max(0, joint.fresh - used_s))
        v = sorted(map(str, versions)) + self._fresh(versions, FRESH_V + "{}", max(0, joint.fresh - used_v))
        return s, v

    def results(self, joint: PairJoint, st, tool: str) -> list:
        if tool == "get_service":
            return [{"owner": "team", "current_version": v} for v in self.values(joint, st)[1]]
        return RESULTS[tool]

    def calls(self, joint: PairJoint, st, terminal: bool = False):
        if terminal:
            yield Call("finish", {"summary": "done"}, None)
            return
        for c in self._calls(joint, st):
            if c.tool in joint.tools:       # a tool none of the rules reads changes no state
                yield c

    def _calls(self, joint: PairJoint, st):
        ss, vs = self.values(joint, st)
        for s in ss:
            for r in self.results(joint, st, "get_service"):
                yield Call("get_service", {"service": s}, r)
            for r in RESULTS["list_incidents"]:
                yield Call("list_incidents", {"service": s}, r)
            for v in vs:
                for r in RESULTS["run_tests"]:
                    yield Call("run_tests", {"service": s, "version": v}, r)
                yield Call("build_image", {"service": s, "version": v}, RESULTS["build_image"][0])
                for r in RESULTS["request_approval"]:
                    yield Call("request_approval", {"service": s, "version": v, "approver": "ann@example.com"}, r)
                if semver(v):
                    for e in ENVS:
                        a = {"service": s, "version": v, "env": e, "replicas": 2}
                        if e == "prod":
                            a["canary"] = 0.1
                        for r in RESULTS["deploy"]:
                            yield Call("deploy", a, r)
            for e in ENVS:
                for r in RESULTS["health_check"]:
                    yield Call("health_check", {"service": s, "env": e}, r)
                for v in vs:
                    yield Call("rollback", {"service": s, "env": e, "to_version": v}, RESULTS["rollback"][0])
            yield Call("open_ticket", {"service": s, "summary": "unhealthy", "priority": 2}, RESULTS["open_ticket"][0])
        for cmd in ("make check", "git push --force"):
            yield Call("run_command", {"host": "build-1", "command": cmd}, RESULTS["run_command"][0])
        yield Call("notify", {"channel": "#releases", "text": "shipped"}, None)


RESULTS: dict[str, list] = {
    "list_incidents": [[], [INCIDENT]],
    "run_tests": [{"passed": True, "failures": 0}, {"passed": False, "failures": 3}],
    "build_image": [{"image": "img"}],
    "request_approval": [{"approved": True, "ticket": "CR-1"}, {"approved": False, "ticket": "CR-1"}],
    "deploy": [{"deployment_id": "D-1", "status": "ok"}, {"deployment_id": "D-1", "status": "failed"}],
    "health_check": [{"healthy": True, "error_rate": 0.01}, {"healthy": False, "error_rate": 0.2}],
    "rollback": [{"status": "ok"}],
    "run_command": [{"exit_code": 0}],
    "notify": [None],
    "open_ticket": [{"ticket": "TK-1"}],
    "finish": [None],
}


def make_oracle(fresh: int = 2):
    from .oracle import Oracle
    return Oracle(rules(), ReleasePool(), fresh=fresh, joint_class=PairJoint)
