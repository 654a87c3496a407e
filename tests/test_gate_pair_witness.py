"""Rules over pairs of values and tests of places a per-value rule binds, settled by a
continuation checked value by value (`policyc.runtime.witness`).

Each case is checked first with the brute-force completion oracle (can the run still be
completed so that every rule holds, over the calls listed here), then with the gate: where a
continuation exists and the search's own continuation holds with values, the decision is
made and lists no open question; where none exists, the question stays open (or is a
conflict), never silently allowed."""

from __future__ import annotations

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from runtime_helpers import CompletionOracle, check_decision

from generators import NIGHTLY
from policyc.artifact.build import build_artifact
from policyc.check import check_text
from policyc.runtime import Monitor

HEAD = """
enum Env { staging, prod }
tool approve(service: str, version: str) -> { approved: bool }
tool deploy(service: str, version: str, env: Env)
tool check(service: str, env: Env) -> { healthy: bool }
terminal tool done(summary: str?)
"""

APPROVAL = """
rule approved_first: always (deploy(env: "prod", service: s, version: v)
                             -> once approve(service: s, version: v, result.approved == true))
rule checked: forall s in deploy.service: eventually check(service: s)
rule one_prod_deploy: called_n(deploy(env: "prod")) <= 1
"""

HEALTH = """
rule health: always (deploy(service: s, env: e) -> eventually check(service: s, env: e))
rule checked: forall s in deploy.service: eventually check(service: s)
rule one_check: called_n(check) <= 1
"""

SEMVER = """
rule semver: always (deploy -> deploy(matches(version, "v[0-9]+[.][0-9]+")))
rule built: forall v: always (deploy(version: v) -> once approve(version: v))
rule approved_first: always (deploy(env: "prod", service: s, version: v)
                             -> once approve(service: s, version: v, result.approved == true))
"""

SERVICES, VERSIONS, ENVS = ("api", "web"), ("v1.0", "v2.0", "nightly"), ("staging", "prod")
CALLS = tuple(("approve", {"service": s, "version": v}, {"approved": ok})
              for s in SERVICES for v in VERSIONS for ok in (True, False)) + \
    tuple(("deploy", {"service": s, "version": v, "env": e}, None) for s in SERVICES for v in VERSIONS for e in ENVS) + \
    tuple(("check", {"service": s, "env": e}, {"healthy": True}) for s in SERVICES for e in ENVS)
FINALS = (("done", {}, None),)


def setup(rules: str) -> tuple[Monitor, CompletionOracle]:
    policy, diagnostics = check_text(HEAD + rules, "pairs.altl")
    assert policy is not None, diagnostics
    return Monitor(build_artifact(policy)), CompletionOracle([r.formula for r in policy.rules], CALLS, FINALS, 20_000)


def propose(monitor: Monitor, prefix: list, tool: str, args: dict):
    run = monitor.start()
    for t, a, r in prefix:
        assert run.propose(t, a).executes
        run.record(t, a, r)
    return run.propose(tool, args)


def test_a_deploy_whose_pair_was_approved_is_decided() -> None:
    monitor, oracle = setup(APPROVAL)
    prefix = [("approve", {"service": "api", "version": "v1.0"}, {"approved": True})]
    deploy = ("deploy", {"service": "api", "version": "v1.0", "env": "prod"}, None)
    assert oracle.completable(prefix + [deploy]) is True
    decision = propose(monitor, prefix, deploy[0], deploy[1])
    assert decision.action == "allow" and decision.undecided == (), decision
    # the pair not approved is refused by the rule alone, whatever the other rules say
    other = propose(monitor, prefix, "deploy", {"service": "api", "version": "v2.0", "env": "prod"})
    assert other.action != "allow" and "approved_first" in other.rules, other


def test_a_pair_owed_a_check_the_budget_cannot_pay_stays_open() -> None:
    monitor, oracle = setup(HEALTH)
    prefix = [("deploy", {"service": "api", "version": "v1.0", "env": "staging"}, None),
              ("check", {"service": "api", "env": "staging"}, {"healthy": True})]
    doomed = ("deploy", {"service": "api", "version": "v1.0", "env": "prod"}, None)
    assert oracle.completable(prefix) is True
    assert oracle.completable(prefix + [doomed]) is False
    decision = propose(monitor, prefix, doomed[0], doomed[1])
    # the pair (api, prod) owes a check the session's one check has paid elsewhere: no
    # continuation holds, the search's continuation does not hold with values, so the
    # question stays listed
    assert decision.action == "allow" and any("health" in line for line in decision.undecided), decision
    # before any check, the same deploy is decided: a continuation checks the pair
    first = ("deploy", {"service": "api", "version": "v1.0", "env": "prod"}, None)
    assert oracle.completable([first]) is True
    decision = propose(monitor, [], first[0], first[1])
    assert decision.action == "allow" and decision.undecided == (), decision


def test_a_debt_of_a_pair_the_search_does_not_see_is_paid_by_a_call_added() -> None:
    # `checked` asks one check per service deployed, `health` one per pair (service,
    # environment): after `api` was checked in staging, the search's continuation of a deploy
    # to production checks nothing; a check of (api, prod) made before the run ends pays the
    # pair's debt, within the budget of two checks, so the deploy is decided
    monitor, oracle = setup(HEALTH.replace("<= 1", "<= 2"))
    prefix = [("deploy", {"service": "api", "version": "v1.0", "env": "staging"}, None),
              ("check", {"service": "api", "env": "staging"}, {"healthy": True})]
    deploy = ("deploy", {"service": "api", "version": "v1.0", "env": "prod"}, None)
    assert oracle.completable(prefix + [deploy]) is True
    decision = propose(monitor, prefix, deploy[0], deploy[1])
    assert decision.action == "allow" and decision.undecided == (), decision
    # with the budget spent, no call can pay it: the question stays listed
    spent = prefix + [("check", {"service": "web", "env": "staging"}, {"healthy": True})]
    assert oracle.completable(spent + [deploy]) is False
    decision = propose(monitor, spent, deploy[0], deploy[1])
    assert decision.action == "allow" and any("health" in line for line in decision.undecided), decision


def test_a_tested_place_is_given_a_value_that_passes_the_test() -> None:
    # `semver`'s pattern tests `deploy.version`, which `built` binds, and the run owes a deploy:
    # the search's continuation deploys the version just approved, picked by its profile,
    # which is no proof until the version itself is read: `v1.0` matches the pattern
    monitor, oracle = setup(SEMVER + "rule shipped: called(deploy)\n")
    call = ("approve", {"service": "api", "version": "v1.0"}, {"approved": True})
    assert oracle.completable([call]) is True
    decision = propose(monitor, [], call[0], call[1])
    assert decision.action == "allow" and decision.undecided == (), decision
    # `nightly` does not: the search's continuation does not hold with it. Another does: a new
    # version, approved before its deploy (the check puts the paying call before the call that
    # would break its pair's instance) and given a text the pattern accepts
    call = ("approve", {"service": "api", "version": "nightly"}, {"approved": True})
    assert oracle.completable([call]) is True
    decision = propose(monitor, [], call[0], call[1])
    assert decision.action == "allow" and decision.undecided == (), decision


STAGED = """
enum Env { staging, prod }
tool look(service: str)
tool test(service: str, version: str) -> { passed: bool }
tool build(service: str, version: str)
tool deploy(version: str, env: Env)
terminal tool done(summary: str?)
rule tested: always (build(service: s, version: v) -> once test(service: s, version: v, result.passed == true))
rule built: forall v: always (deploy(version: v) -> once build(version: v))
rule looked: forall s: always (build(service: s) -> once look(service: s))
rule semver: always (deploy -> deploy(matches(version, "v[0-9]+[.][0-9]+")))
rule order: in_order([look, test, build, deploy])
"""
STAGED_CALLS = (("look", {"service": "api"}, None),) + \
    tuple(("test", {"service": "api", "version": v}, {"passed": True}) for v in ("api", "nightly", "v1.0")) + \
    tuple(("build", {"service": "api", "version": v}) + (None,) for v in ("api", "nightly", "v1.0")) + \
    tuple(("deploy", {"version": v, "env": "staging"}, None) for v in ("api", "nightly", "v1.0"))


def staged(rules: str) -> tuple[Monitor, CompletionOracle]:
    policy, diagnostics = check_text(rules, "staged.altl")
    assert policy is not None, diagnostics
    return Monitor(build_artifact(policy)), CompletionOracle([r.formula for r in policy.rules], STAGED_CALLS, FINALS,
                                                             20_000)


def test_a_value_chosen_for_a_later_call_and_a_later_test() -> None:
    # after `look(api)` the search's continuation tests, builds and deploys, each value picked
    # by profile; the pair rule `tested` asks the build's (service, version) to be the test's,
    # and `semver` tests the version deployed: the test's version is chosen for the build that
    # follows (a value the search has not named), and given a text that passes the pattern
    # where the deploy first tests it
    monitor, oracle = staged(STAGED)
    call = ("look", {"service": "api"}, None)
    assert oracle.completable([call]) is True
    decision = propose(monitor, [], call[0], call[1])
    assert decision.action == "allow" and decision.undecided == (), decision


def test_a_new_version_is_built_rather_than_one_that_fails_the_test() -> None:
    # with no pair rule the gate memoises its judgements, yet `semver` reads a place `built`
    # binds: the continuation still needs the run's values. The run built `nightly`, which
    # `semver` refuses; a build right before each deploy is owed, so the continuation builds
    # again: a new version, which passes the pattern, rather than `nightly` again
    rules = STAGED.replace("rule tested:", "rule fresh: always (deploy -> yesterday build)\n# rule tested:") \
        .replace("rule looked:", "# rule looked:").replace("rule order: in_order([look, test, build, deploy])",
                                                            "rule shipped: called(deploy)")
    monitor, oracle = staged(rules)
    prefix = [("build", {"service": "api", "version": "nightly"}, None)]
    call = ("look", {"service": "api"}, None)
    assert oracle.completable(prefix + [call]) is True
    decision = propose(monitor, prefix, call[0], call[1])
    assert decision.action == "allow" and decision.undecided == (), decision
    # with no build left in the budget, nothing the run can still do ships a version that
    # passes: never allowed silently
    monitor, oracle = staged(rules + "rule one_build: called_n(build) <= 1\n")
    assert oracle.completable(prefix + [call]) is False
    decision = propose(monitor, prefix, call[0], call[1])
    assert decision.action != "allow" or decision.undecided, decision


# ---- generated: guards testing text a per-value rule binds, against the brute-force oracle

TEXT_TOOLS = """
tool a(v: str) -> { ok: bool }
tool b(v: str) -> { ok: bool }
tool c(v: str) -> { ok: bool }
terminal tool done(summary: str?)
"""
TEXT_PER_VALUE = ("forall x: always (b(v: x) -> once a(v: x))",
                  "forall x: always (c(v: x) -> once b(v: x))",
                  "forall x: always (b(v: x) -> once a(v: x, result.ok == true))",
                  "forall x in a.v: eventually c(v: x)")
TEXT_GUARDS = ('always (c -> c(matches(v, "r[0-9]")))', 'always (b -> b(v != "r1"))', 'always (c -> c(v != "r2"))',
               'never(b(v == "x"))', 'always (c -> c(contains(v, "r")))')
TEXT_PLAIN = ("called(c)", "called_n(b) <= 1", "always (c -> yesterday b)", "in_order([a, b, c])", "called_n(a) <= 2")
# the calls a run may make; the oracle's continuations may also name values no prefix named,
# one of each kind the guards tell apart (a pattern's match, and a text that matches nothing)
TEXT_POOL = tuple((t, {"v": v}, {"ok": ok}) for t in "abc" for v in ("r1", "r2", "x") for ok in (True, False))
TEXT_FRESH = tuple((t, {"v": v}, {"ok": ok}) for t in "abc" for v in ("r7", "q") for ok in (True, False))
TEXT_FINALS = (("done", {}, None),)


def test_a_tool_only_a_domain_names_brings_its_value_into_the_search() -> None:
    # `a` is named by no guard, only by the domain of `r0`: its call brings `r2` into it, which
    # then owes a `c(v: r2)` that `r2` forbids. The search used to read the call as one to a
    # tool no rule names, saw no new obligation, and allowed it with nothing listed
    text = TEXT_TOOLS + "".join(f"rule r{i}: {body}\n" for i, body in enumerate(
        ["forall x in a.v: eventually c(v: x)", 'always (c -> c(matches(v, "r[0-9]")))',
         'always (c -> c(v != "r2"))', "called_n(b) <= 1"]))
    policy, diagnostics = check_text(text, "domain.altl")
    assert policy is not None, diagnostics
    oracle = CompletionOracle([r.formula for r in policy.rules], TEXT_POOL + TEXT_FRESH, TEXT_FINALS, 8_000)
    monitor = Monitor(build_artifact(policy))
    call = ("a", {"v": "r2"})
    assert oracle.completable([(*call, {"ok": True})]) is False
    decision = monitor.start().propose(*call)
    assert not decision.executes or decision.undecided, decision
    # `r1` owes a `c(v: r1)` it may have: allowed
    assert oracle.completable([("a", {"v": "r1"}, {"ok": True})]) is True
    assert monitor.start().propose("a", {"v": "r1"}).executes
    # a value recorded is the search's too: with one `c` in all, a second value in the domain
    # owes a second one (a gate that memoises its judgements, no guard testing the value)
    text = TEXT_TOOLS + "rule r0: forall x in a.v: eventually c(v: x)\nrule r1: called_n(c) <= 1\n"
    policy, diagnostics = check_text(text, "domain.altl")
    assert policy is not None, diagnostics
    oracle = CompletionOracle([r.formula for r in policy.rules], TEXT_POOL + TEXT_FRESH, TEXT_FINALS, 8_000)
    monitor = Monitor(build_artifact(policy))
    first = ("a", {"v": "r1"}, {"ok": True})
    assert oracle.completable([first]) is True and oracle.completable([first, ("a", {"v": "r2"}, {"ok": True})]) is False
    run = monitor.start()
    assert run.propose(*first[:2]).undecided == ()
    run.record(*first)
    second = run.propose("a", {"v": "r2"})
    assert [f.kind for f in second.findings] == ["conflict"] and second.action == "warn", second


@settings(max_examples=200 if NIGHTLY else 25, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(st.data())
def test_decided_calls_with_tested_text_agree_with_the_brute_force_oracle(data) -> None:
    """A call refused has no outcome after which the run can comply; a call decided without an
    open question has one. The gate's check gives new values texts its guards are built from;
    the oracle knows nothing of that, only the calls above."""
    rules = data.draw(st.lists(st.sampled_from(TEXT_PER_VALUE), min_size=1, max_size=2, unique=True)) + \
        data.draw(st.lists(st.sampled_from(TEXT_GUARDS), min_size=1, max_size=2, unique=True)) + \
        data.draw(st.lists(st.sampled_from(TEXT_PLAIN), min_size=1, max_size=2, unique=True))
    text = TEXT_TOOLS + "".join(f"rule r{i}: {body}\n" for i, body in enumerate(rules))
    policy, diagnostics = check_text(text, "text.altl")
    assert policy is not None, diagnostics
    oracle = CompletionOracle([r.formula for r in policy.rules], TEXT_POOL + TEXT_FRESH, TEXT_FINALS, 8_000)
    monitor = Monitor(build_artifact(policy))
    prefix = [data.draw(st.sampled_from(TEXT_POOL)) for _ in range(data.draw(st.integers(0, 3)))]
    before = oracle.completable(prefix)
    assume(before)
    tool, args, _ = data.draw(st.sampled_from(TEXT_POOL))
    run = monitor.start(mode="tolerate")
    for t, a, r in prefix:
        run.record(t, a, r)
    check_decision(oracle, policy, prefix, tool, args, run.propose(tool, args))


# ---- generated: rules over pairs, debts paid before the call they guard, values made anew

PAIR_TOOLS = """
enum Env { staging, prod }
tool look(service: str)
tool test(service: str, version: str) -> { passed: bool }
tool build(service: str, version: str)
tool deploy(service: str, version: str, env: Env)
terminal tool done(summary: str?)
"""
PAIR_RULES = ("always (build(service: s, version: v) -> once test(service: s, version: v, result.passed == true))",
              'always (deploy(service: s, version: v, env: "prod") -> once deploy(service: s, version: v, env: "staging"))',
              "always (deploy(service: s, version: v) -> once build(service: s, version: v))")
PAIR_PER_VALUE = ("forall v: always (deploy(version: v) -> once build(version: v))",
                  "forall s: always (build(service: s) -> once look(service: s))",
                  "forall s in deploy.service: eventually look(service: s)")
PAIR_GUARDS = ('always (deploy -> deploy(matches(version, "v[0-9]+")))', 'never(build(version == "nightly"))', "")
PAIR_PLAIN = ('called(deploy(env: "prod"))', "called(deploy)", "called_n(build) <= 2", "called_n(test) <= 2",
              "in_order([look, test, build, deploy])", "called_n(deploy) <= 3")
PAIR_POOL = (("look", {"service": "api"}, None),) + \
    tuple(("test", {"service": "api", "version": v}, {"passed": ok}) for v in ("v1", "nightly") for ok in (True, False)) + \
    tuple(("build", {"service": "api", "version": v}, None) for v in ("v1", "nightly")) + \
    tuple(("deploy", {"service": "api", "version": v, "env": e}, None) for v in ("v1", "nightly")
          for e in ("staging", "prod"))
# what a continuation may name besides: a version no prefix named, that passes the pattern
PAIR_FRESH = tuple(("test", {"service": "api", "version": "v7"}, {"passed": True}) for _ in (0,)) + \
    (("build", {"service": "api", "version": "v7"}, None),) + \
    tuple(("deploy", {"service": "api", "version": "v7", "env": e}, None) for e in ("staging", "prod"))


@settings(max_examples=120 if NIGHTLY else 20, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(st.data())
def test_decided_calls_over_pairs_agree_with_the_brute_force_oracle(data) -> None:
    """As above, with rules over pairs the search does not read: a continuation checked with
    values may put a call paying a pair's debt before the call that needs it (a test before a
    build), or make a new value where the run's values of a profile fail a guard (a new build
    to deploy, where the run built `nightly`). The oracle searches the calls above."""
    rules = data.draw(st.lists(st.sampled_from(PAIR_RULES), min_size=1, max_size=2, unique=True)) + \
        data.draw(st.lists(st.sampled_from(PAIR_PER_VALUE), min_size=1, max_size=2, unique=True)) + \
        [data.draw(st.sampled_from(PAIR_GUARDS))] + \
        data.draw(st.lists(st.sampled_from(PAIR_PLAIN), min_size=1, max_size=2, unique=True))
    text = PAIR_TOOLS + "".join(f"rule r{i}: {body}\n" for i, body in enumerate(rules) if body)
    policy, diagnostics = check_text(text, "pairs.altl")
    assert policy is not None, diagnostics
    oracle = CompletionOracle([r.formula for r in policy.rules], PAIR_POOL + PAIR_FRESH, FINALS, 8_000)
    monitor = Monitor(build_artifact(policy))
    prefix = [data.draw(st.sampled_from(PAIR_POOL)) for _ in range(data.draw(st.integers(0, 3)))]
    assume(oracle.completable(prefix))
    tool, args, _ = data.draw(st.sampled_from(PAIR_POOL))
    run = monitor.start(mode="tolerate")
    for t, a, r in prefix:
        run.record(t, a, r)
    check_decision(oracle, policy, prefix, tool, args, run.propose(tool, args))
