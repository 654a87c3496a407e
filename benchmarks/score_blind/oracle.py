"""An independent evaluator of policy.altl, written by hand from the documentation.

Every rule of policy.altl is re-implemented below as a plain Python function over one
metrics record (`tool_calls` of `{tool_name, arguments, tool_result}`, the other fields
being the metrics). Nothing here imports policyc: the meaning of each construct is taken
from docs/language.md, docs/semantics.md (the clause table, the stdlib and DECLARE tables,
data and bottom) and docs/scoring.md.

Conventions taken from the docs:
- positions count from 0; a rule is read at position 0 of the trace;
- `once p` at i: p at some j <= i (i included); `eventually p` at i: some j >= i;
  `historically p` at i: every j <= i; `yesterday p` at i: i > 0 and p at i-1;
  `next p` is the strong next (false at the last call);
- a comparison with a missing operand (bottom) is false, and `not` of it is true;
- a variable bound in event patterns is universally quantified over its active domain
  (every value a binding pattern sees). For rules of the shape
  `always (A(x) -> ... B(x) ...)` this is the same as "for every A call, with x its value";
  the functions below use that direct reading.
- `when r shall c` means `always (r -> c)`.
"""

from __future__ import annotations

import json
import re
from typing import Any, Callable

MISSING = object()


# ---- data helpers --------------------------------------------------------------------

def args(c: dict) -> dict:
    return c.get("arguments") or {}


def result(c: dict) -> Any:
    r = c.get("tool_result")
    if isinstance(r, str):
        # "a tool_result holding JSON text is parsed" (scoring.md); objects and arrays only
        s = r.strip()
        if s[:1] in "[{" or s in ("true", "false", "null"):
            try:
                return json.loads(s)
            except ValueError:
                return r
    return r


def field(obj: Any, key: str) -> Any:
    if isinstance(obj, dict) and key in obj:
        return obj[key]
    return MISSING


def num(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def cmp(a: Any, op: str, b: Any) -> bool:
    """A comparison: false when an operand is bottom (missing) or of the wrong type."""
    if a is MISSING or b is MISSING:
        return False
    if op in ("==", "!="):
        eq = (a == b) and (isinstance(a, bool) == isinstance(b, bool))
        return eq if op == "==" else not eq
    if num(a) and num(b) or isinstance(a, str) and isinstance(b, str):
        return {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[op]
    return False


def arg(c: dict, name: str) -> Any:
    a = args(c)
    return a[name] if name in a else MISSING


def res(c: dict, key: str) -> Any:
    return field(result(c), key)


def is_(c: dict, tool: str, **eq) -> bool:
    """An event pattern `tool(k: v, ...)`: the name, and each argument equal to its value."""
    if c["tool_name"] != tool:
        return False
    return all(cmp(arg(c, k), "==", v) for k, v in eq.items())


def first(calls: list, pred: Callable[[dict], bool]) -> int | None:
    for i, c in enumerate(calls):
        if pred(c):
            return i
    return None


def count(calls: list, pred) -> int:
    return sum(1 for c in calls if pred(c))


def once(calls: list, i: int, pred) -> bool:
    return any(pred(calls[j]) for j in range(0, i + 1))


def eventually(calls: list, i: int, pred) -> bool:
    return any(pred(calls[j]) for j in range(i, len(calls)))


def before(calls, p1, p2) -> bool:
    """before(t1, t2): first(t1) < first(t2); false when either never occurs."""
    a, b = first(calls, p1), first(calls, p2)
    return a is not None and b is not None and a < b


def T(tool: str, **eq):
    return lambda c: is_(c, tool, **eq)


# ---- the rules, in the order of policy.altl -------------------------------------------

def inspect_before_finishing(calls, m):
    return before(calls, T("get_service"), T("finish"))


def starts_by_inspecting(calls, m):
    # init(a) := a at position 0; false on the empty trace
    return bool(calls) and is_(calls[0], "get_service")


def tested_before_build(calls, m):
    for i, c in enumerate(calls):
        if is_(c, "build_image"):
            s, v = arg(c, "service"), arg(c, "version")
            if s is MISSING or v is MISSING:
                continue   # the trigger pattern binds both: it does not match a call without them
            if not once(calls, i, lambda d, s=s, v=v: is_(d, "run_tests", service=s, version=v)
                        and cmp(res(d, "passed"), "==", True)):
                return False
    return True


def built_before_deploy(calls, m):
    # forall v: always (deploy(version: v) -> once build_image(version: v)): any service
    for i, c in enumerate(calls):
        if is_(c, "deploy") and arg(c, "version") is not MISSING:
            v = arg(c, "version")
            if not once(calls, i, T("build_image", version=v)):
                return False
    return True


def staging_before_prod(calls, m):
    for i, c in enumerate(calls):
        if is_(c, "deploy", env="prod") and arg(c, "service") is not MISSING:
            s = arg(c, "service")
            if not once(calls, i, lambda d, s=s: is_(d, "deploy", service=s, env="staging")
                        and cmp(res(d, "status"), "==", "ok")):
                return False
    return True


def no_staging_rollback_since_staging_deploy(calls, m):
    # at a prod deploy i of s: (not rollback(s, staging)) S deploy(s, staging):
    # some j <= i has the staging deploy, and no k in (j, i] has the staging rollback
    for i, c in enumerate(calls):
        if is_(c, "deploy", env="prod") and arg(c, "service") is not MISSING:
            s = arg(c, "service")
            ok = False
            for j in range(i, -1, -1):
                if is_(calls[j], "deploy", service=s, env="staging"):
                    ok = True
                    break
                if is_(calls[j], "rollback", service=s, env="staging"):
                    break
            if not ok:
                return False
    return True


def incidents_checked_before_prod(calls, m):
    return all(once(calls, i, T("list_incidents", service=arg(c, "service")))
               for i, c in enumerate(calls) if is_(c, "deploy", env="prod") and arg(c, "service") is not MISSING)


def _open_sev1(c) -> bool:
    r = result(c)
    if not isinstance(r, list):
        return False   # exists over no element (or an unrecorded result) is false
    return any(cmp(field(x, "severity"), "==", 1) and cmp(field(x, "open"), "==", True) for x in r)


def no_prod_deploy_during_sev1(calls, m):
    for i, c in enumerate(calls):
        if is_(c, "list_incidents") and arg(c, "service") is not MISSING and _open_sev1(c):
            s = arg(c, "service")
            if eventually(calls, i, T("deploy", service=s, env="prod")):
                return False
    return True


def approved_before_prod(calls, m):
    for i, c in enumerate(calls):
        if is_(c, "deploy", env="prod") and arg(c, "service") is not MISSING and arg(c, "version") is not MISSING:
            s, v = arg(c, "service"), arg(c, "version")
            if not once(calls, i, lambda d, s=s, v=v: is_(d, "request_approval", service=s, version=v)
                        and cmp(res(d, "approved"), "==", True)):
                return False
    return True


def no_deploy_of_failed_version(calls, m):
    # at a failed run_tests(s, v) at i: (not deploy(s, v)) W run_tests(s, v, passed)
    for i, c in enumerate(calls):
        if is_(c, "run_tests") and cmp(res(c, "passed"), "==", False):
            s, v = arg(c, "service"), arg(c, "version")
            if s is MISSING or v is MISSING:
                continue
            for k in range(i, len(calls)):
                d = calls[k]
                if is_(d, "run_tests", service=s, version=v) and cmp(res(d, "passed"), "==", True):
                    break          # released (checked before the deploy: U/W take q first)
                if is_(d, "deploy", service=s, version=v):
                    return False
    return True


def approval_after_inspection(calls, m):
    if first(calls, T("request_approval")) is None:
        return True
    return before(calls, T("get_service"), T("request_approval")) and \
        before(calls, T("list_incidents"), T("request_approval"))


def golden_path(calls, m):
    seq = ["get_service", "run_tests", "build_image", "deploy", "health_check", "finish"]
    k = 0
    for c in calls:
        if k < len(seq) and c["tool_name"] == seq[k]:
            k += 1
    return k == len(seq)


def notify_after_inspection(calls, m):
    if first(calls, T("notify")) is None:
        return True
    a, b = first(calls, T("notify")), first(calls, T("get_service"))
    return a is not None and b is not None and a > b


def health_after_deploy(calls, m):
    for i, c in enumerate(calls):
        if is_(c, "deploy") and arg(c, "service") is not MISSING and arg(c, "env") is not MISSING:
            s, e = arg(c, "service"), arg(c, "env")
            if not eventually(calls, i, T("health_check", service=s, env=e)):
                return False
    return True


def every_deployed_service_checked(calls, m):
    # forall s in deploy.service: eventually health_check(service: s), read at position 0:
    # a health check of s anywhere in the run counts, even one before the deploy
    domain = []
    for c in calls:
        if is_(c, "deploy"):
            s = arg(c, "service")
            if s is not MISSING and s is not None and s not in domain:
                domain.append(s)
    return all(eventually(calls, 0, T("health_check", service=s)) for s in domain)


def prod_checked_promptly(calls, m):
    f = first(calls, T("deploy", env="prod"))
    if f is None:
        return True
    # within_steps(t1, t2, 3): first t2 at or after first(t1), at most 3 steps later
    for j in range(f, min(len(calls), f + 4)):
        if is_(calls[j], "health_check", env="prod"):
            return True
    return False


def act_on_unhealthy_prod(calls, m):
    # when health_check(service: s, env: prod, healthy == false) shall eventually
    # (rollback(service: s, env: prod) or open_ticket(service: s)): per service
    for i, c in enumerate(calls):
        if is_(c, "health_check", env="prod") and cmp(res(c, "healthy"), "==", False) \
                and arg(c, "service") is not MISSING:
            s = arg(c, "service")
            if not eventually(calls, i, lambda d, s=s: is_(d, "rollback", service=s, env="prod")
                              or is_(d, "open_ticket", service=s)):
                return False
    return True


def react_to_error_rate(calls, m):
    for i, c in enumerate(calls):
        if is_(c, "health_check", env="prod") and cmp(res(c, "error_rate"), ">", 0.05):
            if i + 1 >= len(calls) or calls[i + 1]["tool_name"] not in ("rollback", "notify"):
                return False
    return True


def check_after_rollback(calls, m):
    # chain_response(a, b): every a is immediately followed by b (strong next)
    for i, c in enumerate(calls):
        if is_(c, "rollback") and (i + 1 >= len(calls) or not is_(calls[i + 1], "health_check")):
            return False
    return True


def rollback_to_a_known_version(calls, m):
    for i, c in enumerate(calls):
        if is_(c, "rollback") and arg(c, "service") is not MISSING and arg(c, "to_version") is not MISSING:
            s, v = arg(c, "service"), arg(c, "to_version")
            if not once(calls, i, lambda d, s=s, v=v: is_(d, "get_service", service=s)
                        and cmp(res(d, "current_version"), "==", v)):
                return False
    return True


def tell_about_prod_deploys(calls, m):
    for i, c in enumerate(calls):
        if is_(c, "deploy", env="prod") and isinstance(arg(c, "service"), str):
            s = arg(c, "service")
            if not eventually(calls, i, lambda d, s=s: is_(d, "notify") and isinstance(arg(d, "text"), str)
                              and s in arg(d, "text")):
                return False
    return True


def incident_channel_after_action(calls, m):
    for i, c in enumerate(calls):
        if is_(c, "notify", channel="#incidents"):
            if not once(calls, i, lambda d: is_(d, "rollback") or is_(d, "open_ticket")):
                return False
    return True


def tickets_are_announced(calls, m):
    # response(a, b) := always (a -> eventually b)
    return all(eventually(calls, i, T("notify")) for i, c in enumerate(calls) if is_(c, "open_ticket"))


def few_prod_deploys(calls, m):
    return count(calls, T("deploy", env="prod")) <= 3


def few_rollbacks(calls, m):
    return count(calls, T("rollback")) <= 2


def bounded_shell(calls, m):
    n = count(calls, T("run_command"))
    if cmp(field(m, "num_steps"), ">", 100):
        return n <= 10
    return n <= 20


def within_time(calls, m):
    return cmp(field(m, "wall_seconds"), "<=", 1800)


def _cmd(c):
    v = arg(c, "command")
    return v if isinstance(v, str) else None


def no_recursive_deletes(calls, m):
    return not any(is_(c, "run_command") and _cmd(c) is not None and "rm -rf" in _cmd(c) for c in calls)


def no_shell_on_prod_hosts(calls, m):
    return not any(is_(c, "run_command") and isinstance(arg(c, "host"), str) and arg(c, "host").startswith("prod-")
                   for c in calls)


def no_forced_prod_deploy(calls, m):
    forced = lambda c: is_(c, "run_command") and _cmd(c) is not None and "--force" in _cmd(c).lower()
    for i, c in enumerate(calls):
        if is_(c, "deploy", env="prod") and once(calls, i, forced):
            return False
    return True


def sane_replicas(calls, m):
    return all(cmp(arg(c, "replicas"), ">=", 1) and cmp(arg(c, "replicas"), "<=", 20)
               for c in calls if is_(c, "deploy"))


def prod_is_a_canary(calls, m):
    # present(canary): given and not null; a comparison with bottom is false
    for c in calls:
        if is_(c, "deploy", env="prod"):
            v = arg(c, "canary")
            if v is MISSING or v is None or not cmp(v, "<=", 0.25):
                return False
    return True


def scale_cap(calls, m):
    return all(cmp(arg(c, "replicas"), "<=", 50) for c in calls if is_(c, "scale"))


def prod_keeps_two(calls, m):
    return all(cmp(arg(c, "replicas"), ">=", 2) for c in calls if is_(c, "scale", env="prod"))


def human_approver(calls, m):
    for c in calls:
        if is_(c, "request_approval"):
            a = arg(c, "approver")
            if not (cmp(a, "!=", "release-bot") and isinstance(a, str) and a.endswith("@example.com")):
                return False
    return True


def ticket_priority(calls, m):
    return all(cmp(arg(c, "priority"), ">=", 1) and cmp(arg(c, "priority"), "<=", 4)
               for c in calls if is_(c, "open_ticket"))


def short_notes(calls, m):
    return all(isinstance(arg(c, "text"), str) and len(arg(c, "text")) <= 280 for c in calls if is_(c, "notify"))


def small_images(calls, m):
    return all(cmp(res(c, "size_mb"), "<", 2000) for c in calls if is_(c, "build_image"))


def shipped_or_ticketed(calls, m):
    return first(calls, T("deploy")) is not None or first(calls, T("open_ticket")) is not None


def finish_last(calls, m):
    # end(a) := eventually (a and weak next false): the last call is a
    return bool(calls) and is_(calls[-1], "finish")


def notify_right_before_finish(calls, m):
    return all(i > 0 and is_(calls[i - 1], "notify") for i, c in enumerate(calls) if is_(c, "finish"))


def semver_only(calls, m):
    # matches(text, pattern): the whole text matches (RE2; this pattern means the same in re)
    return all(isinstance(arg(c, "version"), str) and re.fullmatch(r"v[0-9]+[.][0-9]+[.][0-9]+", arg(c, "version"))
               for c in calls if is_(c, "deploy"))


def known_channels(calls, m):
    return all(arg(c, "channel") in ("#releases", "#incidents") for c in calls if is_(c, "notify"))


def watch_each_prod_deploy(calls, m):
    # alternate_response(a, b) := always (a -> next (not a until b)): after each a, a b comes
    # (strictly later) before any other a
    for i, c in enumerate(calls):
        if _prod(c):
            ok = False
            for j in range(i + 1, len(calls)):
                if is_(calls[j], "health_check", env="prod"):
                    ok = True
                    break
                if _prod(calls[j]):
                    break
            if not ok:
                return False
    return True


def nothing_ships_after_finish(calls, m):
    # not_succession(a, b) := always (a -> not eventually b)
    f = first(calls, T("finish"))
    return f is None or not eventually(calls, f, T("deploy"))


def prod_rollbacks_reported(calls, m):
    # responded_existence(a, b) := eventually a -> eventually b
    return first(calls, T("rollback", env="prod")) is None or first(calls, T("notify", channel="#incidents")) is not None


_prod = lambda c: is_(c, "deploy", env="prod")

EMAIL = re.compile(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}")


def _words(text: str) -> list[str]:
    # "case and punctuation aside", lower case; a word as docs/language.md defines it since
    # this scenario found the definition missing: "a run of letters, digits and underscores,
    # joined with the next one by a single `.`, `@`, `+`, `/`, `:` or `-` between them" (the
    # first reading split at every punctuation mark: `alice@example.com` was three words)
    return re.findall(r"\w+(?:[.@+/:-]\w+)*", text.lower())


def _leaves(v):
    if isinstance(v, dict):
        for k, x in v.items():
            yield k
            yield from _leaves(x)
    elif isinstance(v, list):
        for x in v:
            yield from _leaves(x)
    elif isinstance(v, str) or num(v):
        yield v


def shows(leaf, value: str) -> bool:
    """A source leaf shows a string value (language.md, Provenance): the same entity (here
    e-mail addresses, compared in lower case), or the value's words occurring in the leaf's
    words, in order and next to one another."""
    if not isinstance(leaf, str):
        return False       # a number leaf shows numbers only; no value here is a number
    if EMAIL.fullmatch(value) and value.lower() in {e.lower() for e in EMAIL.findall(leaf)}:
        return True
    w, lw = _words(value), _words(leaf)
    return bool(w) and any(lw[k:k + len(w)] == w for k in range(len(lw) - len(w) + 1))


def approver_on_record(calls, m):
    # `approver from get_service`: some get_service result known before the call (a result is
    # a source from the position after its call) shows the approver
    for i, c in enumerate(calls):
        if is_(c, "request_approval"):
            a = arg(c, "approver")
            if not isinstance(a, str):
                return False
            if not any(is_(d, "get_service") and any(shows(leaf, a) for leaf in _leaves(result(d)))
                       for d in calls[:i]):
                return False
    return True


def tickets_mentioned(calls, m):
    # forall t in open_ticket.result.ticket: eventually notify(contains(text, t)), at position 0
    domain = []
    for c in calls:
        if is_(c, "open_ticket"):
            t = res(c, "ticket")
            if t is not MISSING and t is not None and t not in domain:
                domain.append(t)
    return all(any(is_(d, "notify") and isinstance(arg(d, "text"), str) and isinstance(t, str)
                   and t in arg(d, "text") for d in calls) for t in domain)


def no_prod_scaling_before_shipping(calls, m):
    # p R q at 0: q at every position up to and including the first p (or everywhere)
    f = first(calls, _prod)
    end = len(calls) if f is None else f + 1
    return not any(is_(calls[j], "scale", env="prod") for j in range(end))


def no_back_to_back_prod_deploys(calls, m):
    # wyesterday p at i: i = 0, or p at i-1
    return all(i == 0 or not _prod(calls[i - 1]) for i, c in enumerate(calls) if _prod(c))


RULES: dict[str, Callable[[list, dict], bool]] = {
    f.__name__: f for f in [
        inspect_before_finishing, starts_by_inspecting, tested_before_build,
        built_before_deploy, staging_before_prod, no_staging_rollback_since_staging_deploy,
        incidents_checked_before_prod, no_prod_deploy_during_sev1, approved_before_prod,
        no_deploy_of_failed_version, approval_after_inspection, golden_path,
        notify_after_inspection, health_after_deploy, every_deployed_service_checked, prod_checked_promptly,
        act_on_unhealthy_prod, react_to_error_rate, check_after_rollback, rollback_to_a_known_version,
        tell_about_prod_deploys, incident_channel_after_action, tickets_are_announced, few_prod_deploys,
        few_rollbacks, bounded_shell, within_time, no_recursive_deletes, no_shell_on_prod_hosts,
        no_forced_prod_deploy, sane_replicas, prod_is_a_canary, scale_cap, prod_keeps_two, human_approver,
        ticket_priority, short_notes, small_images, shipped_or_ticketed, finish_last, notify_right_before_finish,
        semver_only, known_channels, watch_each_prod_deploy, nothing_ships_after_finish, prod_rollbacks_reported,
        approver_on_record, tickets_mentioned, no_prod_scaling_before_shipping, no_back_to_back_prod_deploys,
    ]
}


def evaluate(record: dict) -> dict[str, bool]:
    """Every rule's verdict on one metrics record."""
    calls = record.get("tool_calls") or []
    metrics = {k: v for k, v in record.items() if k != "tool_calls"}
    return {name: bool(rule(calls, metrics)) for name, rule in RULES.items()}


# ---- where a violation became certain (scoring.md, `violated_at`) ---------------------
#
# "The length k of the shortest prefix of the trace after which no continuation could
# satisfy the rule (a bad prefix), as a 1-based event number"; 0 for a rule unsatisfiable
# from the start; n for a violated rule without a bad prefix in the trace.
#
# SAFETY rules fail on every extension of a prefix they fail on (their conditions read the
# past, counts only grow, the metrics are fixed), so the bad prefix is the shortest failing
# one, found here by bisection. LIVENESS rules have no bad prefix: n. The rest are worked
# out by hand below.

SAFETY = {
    "tested_before_build", "built_before_deploy", "approver_on_record",
    "staging_before_prod", "no_staging_rollback_since_staging_deploy", "incidents_checked_before_prod",
    "no_prod_deploy_during_sev1", "approved_before_prod", "no_deploy_of_failed_version",
    "approval_after_inspection", "notify_after_inspection", "no_prod_scaling_before_shipping",
    "rollback_to_a_known_version", "incident_channel_after_action", "few_prod_deploys", "few_rollbacks",
    "bounded_shell", "within_time", "no_back_to_back_prod_deploys", "no_recursive_deletes", "no_shell_on_prod_hosts",
    "no_forced_prod_deploy", "sane_replicas", "prod_is_a_canary", "scale_cap", "prod_keeps_two",
    "human_approver", "ticket_priority", "short_notes", "small_images", "notify_right_before_finish",
    "semver_only", "known_channels", "nothing_ships_after_finish",
}
LIVENESS = {
    "golden_path", "health_after_deploy", "every_deployed_service_checked", "act_on_unhealthy_prod",
    "tell_about_prod_deploys", "tickets_are_announced", "shipped_or_ticketed", "finish_last",
    "prod_rollbacks_reported",   # a notify may still come later
    "tickets_mentioned",
}


def violated_at(record: dict, name: str) -> int | None:
    """The oracle's `violated_at` for a rule it finds violated (None when it holds)."""
    calls = record.get("tool_calls") or []
    metrics = {k: v for k, v in record.items() if k != "tool_calls"}
    rule = RULES[name]
    n = len(calls)
    if rule(calls, metrics):
        return None
    if name in LIVENESS:
        return n
    if name in SAFETY:
        lo, hi = 0, n          # rule fails on calls[:hi]; find the least such length
        while lo < hi:
            mid = (lo + hi) // 2
            if rule(calls[:mid], metrics):
                lo = mid + 1
            else:
                hi = mid
        return lo
    if name == "starts_by_inspecting":
        return 1               # the first call is not get_service (the trace is never empty here)
    if name == "inspect_before_finishing":
        f, g = first(calls, T("finish")), first(calls, T("get_service"))
        if f is not None and (g is None or g > f):
            return f + 1       # a finish came first: get_service can no longer be first
        return n
    if name == "prod_checked_promptly":
        f = first(calls, T("deploy", env="prod"))
        return f + 4 if f + 3 < n else n   # positions f..f+3 seen, none a prod health check
    if name in ("react_to_error_rate", "check_after_rollback"):
        trig = (lambda c: is_(c, "health_check", env="prod") and cmp(res(c, "error_rate"), ">", 0.05)) \
            if name == "react_to_error_rate" else T("rollback")
        want = ("rollback", "notify") if name == "react_to_error_rate" else ("health_check",)
        for i, c in enumerate(calls):
            if trig(c) and i + 1 < n and calls[i + 1]["tool_name"] not in want:
                return i + 2
        return n               # only a trigger at the very end: strong next fails, no bad prefix
    if name == "watch_each_prod_deploy":
        for i, c in enumerate(calls):
            if _prod(c):
                for j in range(i + 1, n):
                    if is_(calls[j], "health_check", env="prod"):
                        break
                    if _prod(calls[j]):
                        return j + 1   # a second prod deploy before any check of the first
        return n
    raise KeyError(name)


# ---- vacuity and applicability (scoring.md, `vacuous` and `applicable`) ---------------
#
# A rule holds vacuously when it holds, has at least one trigger, and none occurred.
# `always (t -> c)` and `when t shall c`: t; `t -> c` at the top: t at position 0 (here
# `called(x) -> ...`, whose trigger occurs when x is called); `forall x in D`: an empty
# domain; chain_response/response are `always (a -> ...)`. Counts, orders, never, init and
# end have no trigger (neutral: never vacuous).
#
# Not stated by the docs, so not compared: `bounded_shell` (if-then-else), `shipped_or_ticketed`
# (a disjunction of neutral parts), `within_time` (a comparison of metrics).

def _has(calls, pred) -> bool:
    return any(pred(c) for c in calls)


TRIGGERS: dict[str, Callable[[dict], bool] | None] = {
    "inspect_before_finishing": None, "starts_by_inspecting": None, "golden_path": None,
    "few_prod_deploys": None, "few_rollbacks": None, "no_recursive_deletes": None,
    "no_shell_on_prod_hosts": None, "finish_last": None,
    "tested_before_build": lambda c: is_(c, "build_image") and arg(c, "service") is not MISSING
    and arg(c, "version") is not MISSING,
    "built_before_deploy": lambda c: is_(c, "deploy") and arg(c, "version") is not MISSING,
    "staging_before_prod": _prod, "no_staging_rollback_since_staging_deploy": _prod,
    "incidents_checked_before_prod": _prod, "approved_before_prod": _prod,
    "no_prod_deploy_during_sev1": lambda c: is_(c, "list_incidents") and _open_sev1(c),
    "no_deploy_of_failed_version": lambda c: is_(c, "run_tests") and cmp(res(c, "passed"), "==", False),
    "approval_after_inspection": T("request_approval"),
    "notify_after_inspection": T("notify"),
    "health_after_deploy": T("deploy"),
    "every_deployed_service_checked": lambda c: is_(c, "deploy") and arg(c, "service") not in (MISSING, None),
    "prod_checked_promptly": _prod,
    "act_on_unhealthy_prod": lambda c: is_(c, "health_check", env="prod") and cmp(res(c, "healthy"), "==", False)
    and arg(c, "service") is not MISSING,   # App: "for variables bound in patterns, ... some value"
    "react_to_error_rate": lambda c: is_(c, "health_check", env="prod") and cmp(res(c, "error_rate"), ">", 0.05),
    "check_after_rollback": T("rollback"),
    "rollback_to_a_known_version": T("rollback"),
    "tell_about_prod_deploys": _prod,
    "incident_channel_after_action": T("notify", channel="#incidents"),
    "tickets_are_announced": T("open_ticket"),
    "no_forced_prod_deploy": _prod,
    "sane_replicas": T("deploy"), "prod_is_a_canary": _prod, "scale_cap": T("scale"),
    "prod_keeps_two": T("scale", env="prod"), "human_approver": T("request_approval"),
    "ticket_priority": T("open_ticket"), "short_notes": T("notify"), "small_images": T("build_image"),
    "notify_right_before_finish": T("finish"),
    "semver_only": T("deploy"), "known_channels": T("notify"), "watch_each_prod_deploy": _prod,
    "nothing_ships_after_finish": T("finish"),
    "prod_rollbacks_reported": T("rollback", env="prod"),   # `eventually a -> ...` at the top: a at 0
    "approver_on_record": T("request_approval"),
    "tickets_mentioned": lambda c: is_(c, "open_ticket") and res(c, "ticket") not in (MISSING, None),
    "no_prod_scaling_before_shipping": T("scale", env="prod"),   # `a R not t`: t
    "no_back_to_back_prod_deploys": _prod,
}
WHEN_RULES = {"act_on_unhealthy_prod", "react_to_error_rate", "scale_cap"}


def vacuous(record: dict, name: str) -> bool | None:
    """The oracle's `vacuous`, or None for a rule the docs do not settle."""
    if name not in TRIGGERS:
        return None
    calls = record.get("tool_calls") or []
    metrics = {k: v for k, v in record.items() if k != "tool_calls"}
    trig = TRIGGERS[name]
    if trig is None:
        return False
    return RULES[name](calls, metrics) and not _has(calls, trig)


def applicable(record: dict, name: str) -> bool | None:
    """`applicable` of a when-shall rule: its situation held somewhere; None for other rules."""
    if name not in WHEN_RULES:
        return None
    return _has(record.get("tool_calls") or [], TRIGGERS[name])


# ---- rule_class (scoring.md) ----------------------------------------------------------
#
# `gateable`: decided before a call runs; `detectable`: a violation shows on a prefix;
# `offline-only`: only the complete trace decides. Without the automata, "a syntactic
# estimate: detectable for syntactic safety formulas, offline-only for eventualities".
# Which of gateable and detectable the automata choose depends on whether the deciding call's
# result is needed, which the oracle does not try to predict: a rule whose violation can be
# certain on a prefix (every rule but the liveness ones) may be either.

# Corrected on re-reading docs/automata.md ("offline-only: no bad prefix (liveness), or no
# automaton (the rule is not compiled)") with language.md ("The automata compile rules with
# one such variable. Rules with two are decided by the evaluator"): a rule with two
# pattern-bound variables is offline-only even when its violation shows on a prefix. The first
# version of this oracle followed scoring.md alone ("offline-only: only the complete trace
# decides"; "a syntactic estimate: detectable for syntactic safety formulas") and expected
# detectable or gateable for them: see the README.
#
# Revised with language.md ("Values from results, and several variables") once two variables
# that every call reads only as a pair, each by `==` in one pattern naming both, compile (one
# instance per pair): every two-variable rule of this policy is that shape, so the safety ones
# are gateable or detectable like any other, and `health_after_deploy` stays a liveness rule.
TWO_VARIABLES = {"tested_before_build", "approved_before_prod", "no_deploy_of_failed_version",
                 "rollback_to_a_known_version", "health_after_deploy"}
PAIRS_COMPILE = True  # language.md: `==` in one pattern naming both variables compiles


def rule_class(name: str) -> set[str]:
    if name in LIVENESS or (name in TWO_VARIABLES and not PAIRS_COMPILE):
        return {"offline-only"}
    return {"gateable", "detectable"}
