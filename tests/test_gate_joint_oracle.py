"""The gate decides calls on policies mixing per-value rules and ordinary rules, exactly.

Random policies draw one to three per-value rules of every common shape (response, precedence
with or without a result test, a cap per value, an exclusion per value, an existence per value;
`generators.per_value_rules`) beside one to three ordinary rules (`generators.templates`). The
oracle knows nothing of the gate's search: every rule's compiled run (per-value instances
included) is stepped on concrete calls from a finite pool — ids 1 to 3 with either result, calls
without an id, failed calls, and ids 4 and 5 that a continuation may introduce — and searched
breadth first for a continuation after which every rule holds. After a random prefix that can
still comply, a proposed call:

- refused by a rule finding (violation, conflict or owed) must have no result that can still
  be completed (no wrong refusal);
- allowed without anything undecided must have some result that can be completed (no wrong
  allow);
- undecided decisions are counted, and must stay rare.

And the decision is a function of the policy and the run: a monitor that served other runs
before, or eight threads sharing one, decide exactly as a fresh monitor does, `undecided`
lines included.
"""

from __future__ import annotations

import random
import threading

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from runtime_helpers import CompletionOracle, check_decision, outcomes

from generators import AGENT, NIGHTLY, PER_VALUE_SHAPES, _per_value_shape, pair_rules, per_value_rules, templates
from policyc.artifact.build import build_artifact
from policyc.automata import NotCompilable
from policyc.check import check_text
from policyc.ir.data import CallArgs
from policyc.ir.policy import Policy, Rule
from policyc.runtime import Monitor

SETTINGS = settings(max_examples=300 if NIGHTLY else 60, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])

POOL = tuple((t, {"n": k}, {"ok": ok}) for t in "abc" for k in (1, 2, 3) for ok in (True, False)) + \
    tuple((t, {}, {"ok": ok}) for t in "abc" for ok in (True, False)) + \
    tuple((t, CallArgs({"n": 1}, {"error": True}), {"ok": False}) for t in "abc")
FRESH = tuple((t, {"n": k}, {"ok": ok}) for t in "abc" for k in (4, 5) for ok in (True, False))
FINALS = (("done", {}, {"ok": True}), ("done", {}, {"ok": False}))
BUDGET = 8_000  # oracle states; beyond it the example is not judged


def Oracle(formulas) -> CompletionOracle:
    """The brute-force completion oracle over this file's calls."""
    return CompletionOracle(formulas, POOL + FRESH, FINALS, BUDGET)


@st.composite
def mixed_policies(draw):
    bodies = draw(st.lists(per_value_rules(AGENT), min_size=1, max_size=3)) + \
        draw(st.lists(templates(AGENT), min_size=1, max_size=3))
    bodies = draw(st.permutations(bodies))
    return Policy("mixed", None, dict(AGENT.tools), tuple(Rule(f"r{i}", f) for i, f in enumerate(bodies)))


def judged(monitor, prefix, tool, args):
    run = monitor.start(mode="tolerate")
    for t, a, r in prefix:
        run.record(t, a, r, error=isinstance(a, CallArgs))
    return run.propose(tool, args)


UNDECIDED: list[bool] = []


@SETTINGS
@given(mixed_policies(), st.data())
def test_decided_calls_agree_with_the_brute_force_oracle(policy, data):
    formulas = [r.formula for r in policy.rules]
    try:
        oracle = Oracle(formulas)
    except NotCompilable:
        assume(False)
    monitor = Monitor(build_artifact(policy, "sha256:generated"))
    for _ in range(2):  # two runs on one monitor: the second reads memo tables the first filled
        prefix = [data.draw(st.sampled_from(POOL + FRESH)) for _ in range(data.draw(st.integers(0, 4)))]
        before = oracle.completable(prefix)
        assume(before is not None)
        if not before:
            continue  # nothing can be saved any more: not a question about the next call
        tool, args, _ = data.draw(st.sampled_from(POOL + FINALS))
        decision = judged(monitor, prefix, tool, args)
        refused = [f for f in decision.findings if f.kind in ("violation", "conflict", "owed")]
        results = [oracle.completable(prefix + [c]) for c in outcomes(tool, args)]
        assume(None not in results)
        UNDECIDED.append(bool(decision.undecided))
        if refused:
            assert not any(results), ([r.formula for r in policy.rules], prefix, tool, args,
                                      [(f.rule, f.detail) for f in refused])
        elif not decision.undecided:
            assert any(results), ([r.formula for r in policy.rules], prefix, tool, args)


@st.composite
def pair_policies(draw):
    """One or two rules over a pair of values (`generators.pair_rules`), maybe a per-value
    rule, beside one to two ordinary rules."""
    bodies = draw(st.lists(pair_rules(AGENT), min_size=1, max_size=2)) + \
        draw(st.lists(per_value_rules(AGENT), max_size=1)) + draw(st.lists(templates(AGENT), min_size=1, max_size=2))
    bodies = draw(st.permutations(bodies))
    return Policy("pairs", None, dict(AGENT.tools), tuple(Rule(f"r{i}", f) for i, f in enumerate(bodies)))


@SETTINGS
@given(pair_policies(), st.data())
def test_decided_calls_on_rules_over_pairs_agree_with_the_brute_force_oracle(policy, data):
    """The same question with rules over pairs of values, which the gate judges apart (per
    pair): a refusal is right, an allow without an undecided line is right."""
    formulas = [r.formula for r in policy.rules]
    oracle = Oracle(formulas)  # they compile
    monitor = Monitor(build_artifact(policy, "sha256:generated"))
    for _ in range(2):
        prefix = [data.draw(st.sampled_from(POOL + FRESH)) for _ in range(data.draw(st.integers(0, 4)))]
        before = oracle.completable(prefix)
        assume(before is not None)
        if not before:
            continue
        tool, args, _ = data.draw(st.sampled_from(POOL + FINALS))
        check_decision(oracle, policy, prefix, tool, args, judged(monitor, prefix, tool, args))


def test_undecided_decisions_are_rare():
    """Over a fixed sweep of generated policies and runs (seeded), at most 2 % of the
    decisions carry an undecided line."""
    rng = random.Random(7)
    decisions = undecided = 0
    for seed in range(40):
        policy = _policy_of_seed(seed)
        monitor = Monitor(build_artifact(policy, "sha256:generated"))
        for _ in range(5):
            prefix = [rng.choice(POOL + FRESH) for _ in range(rng.randint(0, 5))]
            tool, args, _ = rng.choice(POOL + FINALS)
            decision = judged(monitor, prefix, tool, args)
            decisions += 1
            undecided += bool(decision.undecided)
    assert undecided <= 0.02 * decisions, (undecided, decisions)


def _policy_of_seed(seed: int) -> Policy:
    """A mixed policy drawn deterministically: per-value rules of the generators' shapes beside
    ordinary rules (never-after, precedence, existence, a cap, a condition on the answer)."""
    rng = random.Random(seed)
    bodies = []
    for _ in range(rng.randint(1, 3)):
        first, then = rng.sample(AGENT.keyed, 2)
        bodies.append(_per_value_shape(AGENT, rng.choice(PER_VALUE_SHAPES), first, then, rng.random() < 0.5,
                                       rng.random() < 0.5))
    bodies.extend(_templates_of(rng))
    rng.shuffle(bodies)
    return Policy("mixed", None, dict(AGENT.tools), tuple(Rule(f"r{i}", f) for i, f in enumerate(bodies)))


def _templates_of(rng: random.Random) -> list:
    from policyc.ir import build as b

    tools = ["a", "b", "c"]
    out = []
    for _ in range(rng.randint(1, 3)):
        x, y = rng.sample(tools, 2)
        shape = rng.choice(["never_after", "once_before", "called", "cap", "final_needs"])
        if shape == "never_after":
            out.append(b.always(b.implies(b.event(x), b.always(b.neg(b.event(y))))))
        elif shape == "once_before":
            out.append(b.always(b.implies(b.event(y), b.once(b.event(x)))))
        elif shape == "called":
            out.append(b.eventually(b.event(x)))
        elif shape == "cap":
            out.append(b.neg(b.eventually(b.conj(b.event(x), b.next_(b.eventually(b.event(x)))))))
        else:
            out.append(b.always(b.implies(b.event("done"), b.once(b.event(x)))))
    return out


def test_a_conflict_through_a_chain_of_rules_is_found():
    """`d` shares no tool with the per-value rule, yet after `a(n: 1)` it forbids `c`, which
    `b` needs before it, which the per-value rule owes: a conflict of three rules through a
    chain, found and refused with its minimal core."""
    text = ("policy chain\ntool a(n: int)\ntool b(n: int)\ntool c()\ntool d()\ntool e()\n"
            "rule owed severity block: forall o in a.n: always (a(n: o) -> eventually b(n: o))\n"
            "rule b_after_c severity block: always (b -> once c)\n"
            "rule no_c_after_d severity block: always (d -> always not c)\n"
            "rule e_once severity block: called_n(e) <= 1\n")
    policy, diagnostics = check_text(text, "chain.altl")
    assert policy is not None, diagnostics
    monitor = Monitor(build_artifact(policy))
    run = monitor.start()
    run.record("a", {"n": 1})
    decision = run.propose("d", {})
    assert decision.action == "block" and decision.undecided == ()
    conflict, = [f for f in decision.findings if f.kind == "conflict"]
    assert set(conflict.rules) == {"owed", "b_after_c", "no_c_after_d"}
    assert Oracle([r.formula for r in policy.rules]).completable([("a", {"n": 1}, None), ("d", {}, None)]) is False
    assert run.propose("e", {}).undecided == ()


def test_tickets_that_owe_a_close_block_the_escalation_that_forbids_it():
    """The desk's typical doomed call: an opened ticket owes its close, and escalating to tier
    2 forbids every close; escalating the ticket itself forbids its own close."""
    text = ("policy desk\ntool open_ticket(t: str)\ntool close_ticket(t: str)\ntool escalate(t: str, team: str)\n"
            "rule closed severity block: forall t: always (open_ticket(t: t) -> eventually close_ticket(t: t))\n"
            "rule escalated_not_closed severity block: forall t: always (escalate(t: t) -> always not close_ticket(t: t))\n"
            "rule tier2 severity block: always (escalate(team: \"tier2\") -> always not close_ticket)\n")
    policy, diagnostics = check_text(text, "desk.altl")
    assert policy is not None, diagnostics
    monitor = Monitor(build_artifact(policy))
    run = monitor.start()
    run.record("open_ticket", {"t": "T1"})
    tier2 = run.propose("escalate", {"t": "T9", "team": "tier2"})
    assert tier2.action == "block" and {"closed", "tier2"} <= set(tier2.findings[0].rules)
    own = run.propose("escalate", {"t": "T1", "team": "billing"})
    assert own.action == "block" and set(own.findings[0].rules) == {"closed", "escalated_not_closed"}
    other = run.propose("escalate", {"t": "T2", "team": "billing"})
    assert other.action == "allow" and other.undecided == ()


def test_a_call_doomed_by_each_result_is_allowed_while_it_may_fail():
    """After a failed-result `a`, another `a` breaks `at_most_one_failure` if its result says
    `ok: false` and `ok_needs_b` if it says `ok: true`; but a call may fail, and a failed call's
    result is its error (no result test holds of it), which breaks neither. The gate allows it,
    undecided about nothing, and the oracle (which knows that outcome) agrees."""
    text = ("policy results\ntype Outcome = {ok: bool}\ntool a(n: int?) -> Outcome\ntool b(n: int?) -> Outcome\n"
            "terminal tool done(answer: str?) -> Outcome\n"
            "rule ok_needs_b severity block: always (a(result.ok == true) -> once b)\n"
            "rule at_most_one_failure severity block: "
            "not eventually (a(result.ok == false) and next eventually a(result.ok == false))\n")
    policy, diagnostics = check_text(text, "results.altl")
    assert policy is not None, diagnostics
    prefix = [("a", {"n": 1}, {"ok": False})]
    decision = judged(Monitor(build_artifact(policy)), prefix, "a", {"n": 1})
    assert decision.action == "allow" and decision.undecided == ()
    oracle = Oracle([r.formula for r in policy.rules])
    assert [oracle.completable(prefix + [c]) for c in outcomes("a", {"n": 1})] == [False] * 4 + [True]


def test_a_literal_on_a_slot_a_per_value_rule_binds_is_not_guessed():
    """`eventually b(n: 1)` asks for one particular value in the slot the per-value rule binds;
    the counting search fills slots by profile and cannot tell the value 1 from another, so a
    continuation it finds is no proof: after `a(n: 1)` (which dooms value 1) the question is
    undecided, never silently allowed, and a policy that refuses the undecided refuses it. A
    result field beside the bound one (`result.ok` when `result.id` is bound) is no such
    literal: that question is decided."""
    head = ("type Outcome = {ok: bool, id: int}\ntool a(n: int?) -> Outcome\ntool b(n: int?) -> Outcome\n"
            "terminal tool done(answer: str?) -> Outcome\n")
    text = head + ("rule one: eventually b(n: 1)\n"
                   "rule first: forall o in b.n: always (a(n: o) -> once b(n: o))\n")
    policy, diagnostics = check_text(text, "literal.altl")
    assert policy is not None, diagnostics
    assert Oracle([r.formula for r in policy.rules]).completable([("a", {"n": 1}, {"ok": True})]) is False
    decision = judged(Monitor(build_artifact(policy)), [], "a", {"n": 1})
    assert decision.action == "allow" and any("`n == 1`" in line for line in decision.undecided), decision
    refusing, diagnostics = check_text("undecided refuse\n" + text, "literal.altl")
    assert refusing is not None, diagnostics
    assert [f.kind for f in judged(Monitor(build_artifact(refusing)), [], "a", {"n": 1}).findings] == ["undecided"]
    beside = head + ("rule good: eventually b(result.ok == true)\n"
                     "rule first: forall o in b.result.id: always (a(n: o) -> once b(result.id == o))\n")
    policy, diagnostics = check_text(beside, "beside.altl")
    assert policy is not None, diagnostics
    assert judged(Monitor(build_artifact(policy)), [], "a", {"n": 1}).undecided == ()


def _decisions(monitor, runs):
    out = []
    for prefix, tool, args in runs:
        d = judged(monitor, prefix, tool, args)
        out.append((d.action, d.rules, d.undecided, tuple((f.kind, f.rule) for f in d.findings)))
    return out


def test_decisions_do_not_depend_on_what_the_monitor_served_before():
    """The same runs judged by a fresh monitor, by a monitor that served other runs first, and
    by eight threads sharing one monitor: the same decisions, undecided lines included."""
    rng = random.Random(11)
    for seed in range(6):
        policy = _policy_of_seed(100 + seed)
        artifact = build_artifact(policy, "sha256:generated")
        runs = [([rng.choice(POOL + FRESH) for _ in range(rng.randint(0, 5))],) + rng.choice(POOL + FINALS)[:2]
                for _ in range(12)]
        fresh = [_decisions(Monitor(artifact), [r])[0] for r in runs]
        warm_monitor = Monitor(artifact)
        _decisions(warm_monitor, [([rng.choice(POOL) for _ in range(4)],) + rng.choice(POOL)[:2] for _ in range(20)])
        assert _decisions(warm_monitor, runs) == fresh
        shared = Monitor(artifact)
        results: dict[int, list] = {}

        def work(k: int, shared=shared, runs=runs, results=results) -> None:
            results[k] = _decisions(shared, runs[k::8])

        threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        for k in range(8):
            assert results[k] == fresh[k::8]
