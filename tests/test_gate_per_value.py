"""The gate with per-value (quantified) rules: a decision that says nothing is undecided is
exact for the whole policy.

Per-value rules take part in the joint conflict search (`policyc.tables.counting`); a decision
leaves a question open only when it says so (`Decision.undecided`). The richer oracle test of
every per-value shape is `test_gate_joint_oracle.py`.

The oracle knows nothing of that reasoning: every rule's compiled run (per-value instances
included) stepped on concrete calls drawn from a finite pool (ids 1 to 3, both results, failed
calls; continuations also name ids the run never did), searched breadth first for a
continuation after which every rule holds. After a random
prefix that can still comply, a proposed call is refused by some rule finding exactly when no
result of it can be completed; and a call the gate allows without saying anything undecided
can be completed.
"""

from __future__ import annotations

import pytest
from pathlib import Path

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from runtime_helpers import CompletionOracle, check_decision

from generators import AGENT, NIGHTLY, pair_rules, per_value, templates
from policyc.artifact.build import build_artifact
from policyc.automata import NotCompilable
from policyc.ir.data import CallArgs
from policyc.ir.policy import Policy, Rule
from policyc.runtime import Monitor

#: each example searches up to BUDGET oracle states (about 1.5 s): 30 in CI, 400 at nightly size
SETTINGS = settings(max_examples=400 if NIGHTLY else 30, deadline=None, derandomize=not NIGHTLY,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])

POOL = tuple((t, {"n": k}, {"ok": ok}) for t in "abc" for k in (1, 2, 3) for ok in (True, False)) + tuple(
    (t, CallArgs({"n": 1}, {"error": True}), {"ok": False}) for t in "abc")
# continuations may also name ids the prefix and the proposal never do (an `exists` may need one)
FRESH = tuple((t, {"n": k}, {"ok": True}) for t in "abc" for k in (4, 5))
FINALS = (("done", {}, {"ok": True}), ("done", {}, {"ok": False}))
BUDGET = 20_000  # oracle states; beyond it the example is not judged


def Oracle(formulas) -> CompletionOracle:
    """The brute-force completion oracle over this file's calls."""
    return CompletionOracle(formulas, POOL + FRESH, FINALS, BUDGET)


def checked_monitor(text: str, name: str) -> Monitor:
    """The monitor of a policy text, which must check clean."""
    from policyc.check import check_text

    policy, diagnostics = check_text(text, name)
    assert policy is not None, diagnostics
    return Monitor(build_artifact(policy))


@st.composite
def mixed_policies(draw):
    """One to two per-value rules, maybe one over a pair of values, beside one to three rules a
    policy author writes."""
    bodies = draw(st.lists(per_value(AGENT), min_size=1, max_size=2)) + \
        draw(st.lists(pair_rules(AGENT), max_size=1)) + draw(st.lists(templates(AGENT), min_size=1, max_size=3))
    bodies = draw(st.permutations(bodies))
    return Policy("mixed", None, dict(AGENT.tools), tuple(Rule(f"r{i}", f) for i, f in enumerate(bodies)))


@pytest.mark.slow
@SETTINGS
@given(mixed_policies(), st.data())
def test_a_decided_call_is_exact_for_the_whole_policy(policy, data):
    formulas = [r.formula for r in policy.rules]
    try:
        oracle = Oracle(formulas)
    except NotCompilable:
        assume(False)
    monitor = Monitor(build_artifact(policy, "sha256:generated"))
    for _ in range(2):  # two runs on one monitor: the second reads memo tables the first filled
        run = monitor.start(mode="tolerate")
        prefix = [data.draw(st.sampled_from(POOL)) for _ in range(data.draw(st.integers(0, 4)))]
        for tool, args, result in prefix:
            run.record(tool, args, result, error=isinstance(args, CallArgs))
        before = oracle.completable(prefix)
        assume(before is not None)
        if not before:
            continue  # nothing can be saved any more: not a question about the next call
        tool, args, _ = data.draw(st.sampled_from(POOL + FINALS))
        check_decision(oracle, policy, prefix, tool, args, run.propose(tool, args))


def test_a_per_value_rule_the_call_breaks_is_in_no_conflict():
    """A conflict is a set of rules each of which can still hold. `b(n: 1)` before any
    `a(n: 1)` breaks the per-value rule for good: the decision says so, and raises no conflict
    or open question with the rules beside it (and a `b` that keeps the rule, after `a(n: 1)`,
    is decided with them: nothing to report)."""
    text = ("policy broken\ntool a(n: int)\ntool b(n: int)\ntool c()\n"
            "rule first: forall o in b.n: always (b(n: o) -> once a(n: o))\n"
            "rule answered: always (b -> eventually c)\n")
    monitor = checked_monitor(text, "broken.altl")
    run = monitor.start(mode="tolerate")
    decision = run.propose("b", {"n": 1})
    assert [f.rule for f in decision.findings if f.kind == "violation"] == ["first"]
    assert not any("first" in line for line in decision.undecided), decision.undecided
    run = monitor.start(mode="tolerate")
    run.record("a", {"n": 1})
    run.record("b", {"n": 1})
    decision = run.propose("b", {"n": 1})
    assert not decision.findings and decision.undecided == ()


def test_a_rule_the_call_breaks_keeps_no_per_value_question_open():
    """The same for a rule that is one automaton: the second `b` breaks `cap` for good, and the
    per-value rule beside it is satisfied if the run ends right after the call, so nothing
    is left undecided (before, the broken `cap` counted as an open rule in conflict)."""
    text = ("policy broken\ntool a(n: int)\ntool b(n: int)\n"
            "rule first: forall o in b.n: always (b(n: o) -> once a(n: o))\n"
            "rule cap: called_n(b) <= 1\n")
    run = checked_monitor(text, "broken.altl").start(mode="tolerate")
    run.record("a", {"n": 1})
    run.record("b", {"n": 1})
    decision = run.propose("b", {"n": 1})
    assert [f.rule for f in decision.findings if f.kind == "violation"] == ["cap"]
    assert decision.undecided == ()


def _wide_result_policy(differ: bool):
    """A tool whose result has ten slots, each read by a per-value rule: the ways to fill them
    are a Bell number (115,975 partitions), past what the joint search enumerates."""
    fields = ", ".join(f"f{i}: str" for i in range(10))
    rules = "".join(f"rule r{i} severity block: forall v: always (pay(to: v) -> once get(result.f{i} "
                    f"{'!=' if differ and i % 2 else '=='} v))\n" for i in range(10))
    text = (f"tool get() -> {{ {fields} }}\ntool pay(to: str)\nterminal tool done()\n" + rules
            + "rule must_pay severity block: eventually pay\nrule one_get severity block: called_n(get) <= 1\n")
    return checked_monitor(text, "wide.altl")


def test_a_result_with_too_many_ways_to_fill_is_bounded_and_says_so():
    """The search tries a few fillings of such a result (each slot a new value, all one new
    value, optional slots left out): one that leaves a continuation decides the call; when
    none does (here `get` runs once, and its even fields must hold the paid value, its odd ones
    another), the question is undecided, with the reason, never a search that exhausts memory."""
    one_value = _wide_result_policy(differ=False).start().propose("get", {})
    assert (one_value.action, one_value.undecided) == ("allow", ()), one_value
    mixed = _wide_result_policy(differ=True).start().propose("get", {})
    assert mixed.action == "allow" and len(mixed.undecided) == 1, mixed
    assert "can be filled in more than 20,000 ways" in mixed.undecided[0]


def test_a_result_that_may_bring_in_values_is_settled_when_every_instance_it_may_make_accepts():
    """The blind mail suite's per-value rules `share_the_named_file` and `delete_the_named_file`
    (`once search_files(said(query) and a_file(result, f))`) are not read by the counting search
    (they test the request). A `search_files` whose result may name any files leaves every
    instance they may make accepting, whatever it returns, so ending the run right after it
    satisfies every rule: the call is decided (it was refused as undecided, `deny` rules under
    the default setting, when only the files its arguments name were considered). Sharing a
    file no search returned is refused."""
    from policyc.artifact.build import compile_file
    from policyc.runtime import Monitor

    root = Path(__file__).resolve().parent.parent
    run = Monitor(compile_file(str(root / "benchmarks" / "suites" / "mail" / "policy.altl"))).start(
        request="Share q2-roadmap.docx with tom.wu@quillworks.io, read-only.")
    searched = run.propose("search_files", {"query": "q2-roadmap.docx"})
    assert (searched.action, searched.undecided) == ("allow", ()), searched
    run.record("search_files", {"query": "q2-roadmap.docx"}, [{"id": "f1", "name": "q2-roadmap.docx"}])
    unfound = run.propose("share_file", {"file_id": "f9", "email": "tom.wu@quillworks.io", "permission": "r"})
    assert not unfound.executes and "share_the_named_file" in unfound.rules, unfound


def test_a_certain_conflict_after_the_call_is_reported_when_the_question_before_it_is_not_decided():
    """The blind desk (benchmarks/blind_gate): an order found eligible owes its refund, and
    cancelling it forbids every refund of it, so no continuation complies after the cancel
    (the search shows it at once, from the order's own instances). Whether one complied just
    before the cancel needs a long continuation (a refund naming a ticket that is read,
    opened, noted and closed, then a report) that the search does not find within its budget.
    That open "before" once made the call undecided, and the default setting allowed it: a
    doomed call, allowed. A "no" after the call is certain whatever was known before it: the
    call is refused with the two rules as the conflict."""
    from policyc.artifact.build import compile_file

    root = Path(__file__).resolve().parent.parent
    run = Monitor(compile_file(str(root / "benchmarks" / "blind_gate" / "s2_desk.altl"))).start()
    prefix = [("add_note", {"ticket_id": "T-6", "text": "x"}, {"ok": True}),
              ("get_ticket", {"ticket_id": "T-1"}, {"status": "new"}),
              ("get_ticket", {"ticket_id": "T-2"}, {"status": "pending"}),
              ("get_ticket", {"ticket_id": "T-3"}, {"status": "new"}),
              ("check_refund_eligibility", {"order_id": "O-2"}, {"eligible": True}),
              ("add_note", {"ticket_id": "T-3", "text": "x"}, {"ok": True}),
              ("lookup_order", {"order_id": "O-8"}, {"status": "placed", "total": 50.0})]
    for tool, args, result in prefix:
        assert run.propose(tool, args).executes, tool
        run.record(tool, args, result)
    cancel = run.propose("cancel_order", {"order_id": "O-2"})
    assert cancel.action == "block" and cancel.undecided == (), cancel
    assert [(f.kind, set(f.rules)) for f in cancel.findings] == \
        [("conflict", {"no_refund_after_cancel", "eligible_orders_refunded"})]
    other = run.propose("cancel_order", {"order_id": "O-8"})  # nothing owed on that order
    assert other.action == "allow" and not other.findings, other


def test_a_terminal_call_on_a_pair_rule_reads_the_pairs_no_call_named():
    """A call that moves no part of a rule is judged from where its parts stand, memoised per
    monitor across runs. For a part over a pair of values that includes the pairs of the
    domains' product no call named (at the fresh state): two runs whose named pairs stand
    alike, one with such a pair owed and one without, are judged apart."""
    monitor = checked_monitor(
        "tool a(x: int)\ntool b(y: int)\ntool c(x: int, y: int)\nterminal tool done()\n"
        "rule every_pair_done severity block: forall s in a.x: forall v in b.y: eventually c(x: s, y: v)\n",
        "pairs.altl")

    def finished(xs):
        run = monitor.start()
        for tool, args in [*(("a", {"x": x}) for x in xs), ("b", {"y": 2}), ("c", {"x": 1, "y": 2})]:
            assert run.propose(tool, args).executes
            run.record(tool, args, None)
        return run.propose("done", {})

    assert finished([1]).executes  # the one pair, (1, 2), is done
    owed = finished([1, 3])  # (3, 2) is owed, and no call named it: it sits at the fresh state
    assert not owed.executes and "every_pair_done" in owed.rules, owed
    assert finished([1]).executes


def test_a_conflict_among_counted_rules_is_found_beside_a_rule_over_a_pair():
    """A rule the joint search cannot read (here over a pair of values) is left out of the
    question, not its whole component: escalating a ticket that still owes its close is a
    conflict of the two single-value rules, although `approved` (over a ticket and a level)
    shares `escalate` with them. The call is refused for it, with nothing undecided about
    those two; what stays open names only the pair rule."""
    text = ("policy desk\ntool open(t: str)\ntool close(t: str)\ntool approve(t: str, level: int)\n"
            "tool escalate(t: str, level: int)\n"
            "rule closed severity block: forall t: always (open(t: t) -> eventually close(t: t))\n"
            "rule kept severity block: forall t: always (escalate(t: t) -> always not close(t: t))\n"
            "rule approved severity block: always (escalate(t: t, level: l) -> once approve(t: t, level: l))\n")
    run = checked_monitor(text, "desk.altl").start()
    run.record("approve", {"t": "A", "level": 1})
    run.record("open", {"t": "A"})
    decision = run.propose("escalate", {"t": "A", "level": 1})
    assert not decision.executes
    assert [(f.kind, sorted(f.rules)) for f in decision.findings] == [("conflict", ["closed", "kept"])]
    assert all("approved" in line and "closed (judged" not in line and "kept (judged" not in line
               for line in decision.undecided), decision.undecided
    # escalating a ticket never opened sets no rule against another
    decision = run.propose("escalate", {"t": "B", "level": 1})
    assert not any(f.kind == "conflict" for f in decision.findings), decision.findings


def test_an_exists_rule_lost_for_one_value_may_be_kept_by_another():
    """`exists o in b.n + a.n: always (a(n: o) -> once b(n: o))` is lost for 1 by `a(n: 1)`,
    but a later `b(n: 2)` brings in a value that keeps it, and meets `eventually b` too: no
    conflict (the search for one value's obligations once pruned every state where that value
    had lost an `exists` part, as if the rule were lost with it)."""
    text = ("policy some\ntool a(n: int)\ntool b(n: int)\n"
            "rule kept: exists o in b.n + a.n: always (a(n: o) -> once b(n: o))\n"
            "rule some_b: eventually b\n")
    run = checked_monitor(text, "some.altl").start(mode="tolerate")
    decision = run.propose("a", {"n": 1})
    assert decision.findings == () and decision.undecided == ()
    run.record("a", {"n": 1})
    run.record("b", {"n": 2})
    assert all(c.passed for c in run.finish().constraints)


def _undecided_policy(owing_severity: str):
    """A rule over a pair beside an owing rule, both of `owing_severity`, and `deny` and `block` rules that owe nothing."""
    text = ("policy desk\ntool build(s: str, v: str)\ntool test(s: str, v: str)\ntool shell(cmd: str)\n"
            "terminal tool finish()\n"
            f"rule tested severity {owing_severity}: always (build(s: s, v: v) -> once test(s: s, v: v))\n"
            f"rule built severity {owing_severity}: eventually build\n"
            'rule no_rm severity deny: never(shell(contains(cmd, "rm -rf")) or build(contains(s, "rm -rf")))\n'
            "rule one_shell severity block: called_n(shell) <= 3\n")
    return checked_monitor(text, "desk.altl")


def test_an_open_question_refuses_no_more_than_a_conflict_it_may_hide():
    """A conflict is enforced with its mildest rule, holds a rule that still owes something
    after the call (rules all satisfied if the run ended there are satisfied by ending it) and
    is connected. The rule over a pair leaves `test(...)` open, and the question concerns the
    `deny` rule `no_rm` of its group; but the one rule that may owe (`built`) is `block`, and so
    is the rule the question is about, so no conflict it hides is stronger than `block`, and
    `undecided refuse for deny` (the default) lets the call run, the question listed. When both
    are `deny`, a `deny` conflict may hide there, and the call is refused."""
    run = _undecided_policy("block").start()
    decision = run.propose("test", {"s": "api", "v": "1"})
    assert decision.executes and decision.undecided, decision
    assert not any(f.kind == "undecided" for f in decision.findings)
    run = _undecided_policy("deny").start()
    decision = run.propose("test", {"s": "api", "v": "1"})
    assert not decision.executes and decision.undecided
    assert [(f.kind, f.severity) for f in decision.findings] == [("undecided", "deny")]
