"""The gate stays exact however many guard and result atoms a tool carries.

Policies put 1 to 40 guard atoms on one tool (argument caps, result tests) next to response,
precedence and absence rules. After a random prefix, a proposed call is judged by the gate
and by an oracle that knows nothing of the gate's symbolic letters: every rule's own
automaton stepped on *concrete* calls, drawn from a finite domain of arguments and results
that covers every guard (each constant, one past it, one below all of them, every note and
none), searched breadth first for a continuation that satisfies every rule. The gate blocks
exactly when no completion exists (for any result of the proposed call); when it allows, the
oracle's witness is replayed on the reference evaluator.
"""

from __future__ import annotations

import pytest
from collections import deque

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from policyc.artifact.build import build_artifact
from policyc.automata import compile_rule
from policyc.check import check_text
from policyc.runtime import Monitor
from policyc.semantics import evaluate
from policyc.tables.dfa import VIOLATED
from policyc.trace import Trace
from generators import NIGHTLY

EXAMPLES = 1500 if NIGHTLY else 60
SETTINGS = settings(max_examples=max(20, EXAMPLES // 2), deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

HEADER = ("policy p\ntool pay(amount: int, note: str?) -> { ok: bool }\ntool a()\ntool b()\n"
          "terminal tool done()\n")


@st.composite
def policies(draw):
    """Rule texts with 1 to 40 atoms on `pay`, and the constants and notes they use."""
    constants = draw(st.lists(st.integers(1, 60).map(lambda x: 100 * x), min_size=1, max_size=20, unique=True))
    notes = [f"t{i}" for i in range(draw(st.integers(1, 20)))]
    rules = []
    atoms = 0
    target = draw(st.integers(1, 40))
    while atoms < target:
        kind = draw(st.integers(0, 6))
        c = draw(st.sampled_from(constants))
        if kind == 0:
            rules.append(f'never(pay(amount > {c}, note: "{draw(st.sampled_from(notes))}"))')
            atoms += 2
        elif kind == 1:
            rules.append(f"never(pay(amount > {c}))")
            atoms += 1
        elif kind == 2:
            rules.append(f"always (a -> eventually pay(amount <= {c}))")
            atoms += 1
        elif kind == 3:
            rules.append(f"always (pay(amount > {c}) -> once b)")
            atoms += 1
        elif kind == 4:
            rules.append("always (pay(result.ok == true) -> eventually b)")
            atoms += 1
        elif kind == 5:
            rules.append(f'always (pay(note: "{draw(st.sampled_from(notes))}") -> once a)')
            atoms += 1
        else:  # with a response above, a conflict once `a` ran
            rules.append(f"never(pay(amount <= {c}))")
            atoms += 1
    rules += draw(st.lists(st.sampled_from(["called(a)", "always (b -> once a)", "never(done)",
                                            "always (done -> once pay)", "always (a -> wnext (not a))"]),
                           max_size=3))
    return rules, sorted(constants), notes


def call_pool(constants, notes):
    """Concrete calls covering every guard: (tool, args, every result the call may get)."""
    amounts = sorted({constants[0] - 1} | set(constants) | {c + 1 for c in constants})
    pays = [("pay", {"amount": x, "note": n} if n is not None else {"amount": x}) for x in amounts
            for n in [*notes, None]]
    return [(tool, args, [{"ok": True}, {"ok": False}]) for tool, args in pays] + \
        [("a", {}, [None]), ("b", {}, [None]), ("done", {}, [None])]


class Oracle:
    """Joint satisfiability by brute force over concrete calls, on each rule's own automaton."""

    def __init__(self, formulas, pool):
        self.tables = [compile_rule(f).table for f in formulas]
        self.formulas = formulas
        # every concrete (call, result) with each rule's letter, deduplicated by letters
        self.moves = {}
        for tool, args, results in pool:
            for result in results:
                letters = tuple(t.dfa.alphabet.letter(tool, args, result) for t in self.tables)
                self.moves.setdefault(letters, (tool, args, result, tool == "done"))

    def states_after(self, calls):
        states = [t.dfa.initial for t in self.tables]
        for tool, args, result in calls:
            states = [t.dfa.delta[s][t.dfa.alphabet.letter(tool, args, result)] for t, s in zip(self.tables, states)]
        return tuple(states)

    def accepting(self, states):
        return all(t.dfa.accepting[s] for t, s in zip(self.tables, states))

    def witness(self, states):
        """A shortest continuation from `states` satisfying every rule, or None."""
        dfas = [t.dfa for t in self.tables]
        parent = {states: None}
        queue = deque([states])
        while queue:
            here = queue.popleft()
            if all(d.accepting[s] for d, s in zip(dfas, here)):
                out = []
                while parent[here] is not None:
                    here, call = parent[here]
                    out.append(call)
                return out[::-1]
            for letters, (tool, args, result, final) in self.moves.items():
                after = tuple(d.delta[s][x] for d, s, x in zip(dfas, here, letters))
                if any(d.verdict[s] == VIOLATED for d, s in zip(dfas, after)) or after in parent:
                    continue
                if final and not all(d.accepting[s] for d, s in zip(dfas, after)):
                    continue
                parent[after] = (here, (tool, args, result))
                if final:
                    return self.witness_through(parent, after)
                queue.append(after)
        return None

    def witness_through(self, parent, state):
        out = []
        while parent[state] is not None:
            state, call = parent[state]
            out.append(call)
        return out[::-1]


@pytest.mark.slow
@SETTINGS
@given(policies(), st.data())
def test_a_call_is_refused_exactly_when_no_completion_satisfies_the_policy(drawn, data):
    """Three runs on one monitor: its memo tables (per joint state, and per state of the rules
    a tool can concern) are filled by one run and read by the next, and every decision of each
    is checked against the oracle."""
    rules, constants, notes = drawn
    text = HEADER + "".join(f"rule r{i} severity block: {body}\n" for i, body in enumerate(rules))
    policy, diagnostics = check_text(text, "p.altl")
    assert policy is not None, diagnostics
    formulas = [r.formula for r in policy.rules]
    pool = call_pool(constants, notes)
    oracle = Oracle(formulas, pool)
    monitor = Monitor(build_artifact(policy))
    for _ in range(3):
        check_a_proposal(monitor, oracle, pool, rules, formulas, data)


def check_a_proposal(monitor, oracle, pool, rules, formulas, data):
    run = monitor.start()
    prefix = []
    for _ in range(data.draw(st.integers(0, 4))):
        tool, args, results = data.draw(st.sampled_from(pool[:-1]))  # no terminal call in the prefix
        result = data.draw(st.sampled_from(results))
        run.record(tool, args, result)
        prefix.append((tool, args, result))
    before = oracle.states_after(prefix)
    if oracle.witness(before) is None:
        return  # nothing can be saved any more: not a question about this call
    # `a` often: after it, a response and an absence of `pay` may no longer hold together
    tool, args, results = data.draw(st.one_of(st.just(pool[-3]), st.sampled_from(pool)))
    verdict = run.propose(tool, args)
    rule_findings = [f for f in verdict.findings if f.kind != "conformance"]
    if tool == "done":  # a terminal call ends the run: nothing may follow it
        outcomes = [[] if oracle.accepting(oracle.states_after(prefix + [(tool, args, r)])) else None for r in results]
    else:
        outcomes = [oracle.witness(oracle.states_after(prefix + [(tool, args, r)])) for r in results]
    possible = [w for w in outcomes if w is not None]
    if rule_findings:
        assert not possible, (rules, prefix, tool, args, [f.detail for f in rule_findings], possible[:1])
    elif not verdict.undecided:
        assert possible, (rules, prefix, tool, args)
        # the oracle's witness complies on the reference evaluator
        result = results[outcomes.index(possible[0])]
        trace = Trace.of(*prefix, (tool, args, result), *possible[0])
        assert all(evaluate(f, trace) for f in formulas), (rules, trace)


def _policy(text):
    policy, diagnostics = check_text(text, "p.altl")
    assert policy is not None, diagnostics
    return Monitor(build_artifact(policy))


def test_many_result_atoms_do_not_stop_a_rule_the_call_breaks_by_name():
    """Nine (or more) result tests on `get` used to make the gate judge nothing at all."""
    for k in (1, 8, 9, 14):
        fields = ", ".join(f"f{i}: int" for i in range(k))
        text = (f"tool get(id: str) -> {{ {fields} }}\ntool act(id: str)\n"
                "rule act_first severity block: always (get -> once act)\n"
                + "".join(f"rule watch{i} severity warn: always (get(result.f{i} == 1) -> eventually act)\n"
                          for i in range(k)))
        decision = _policy(text).start().propose("get", {"id": "x"})
        assert (decision.action, decision.rules) == ("block", ("act_first",)), k


@pytest.mark.slow
def test_many_guard_atoms_on_one_tool_are_no_conflict():
    """More than 16 guard atoms on `pay` used to make the gate believe `pay` could never be
    called, and report conflicts that do not exist."""
    for k in (1, 8, 9, 20, 40):
        text = ("tool login(user: str)\ntool open(id: str)\ntool pay(amount: int, note: str?)\n"
                "rule paid severity block: always (open -> eventually pay)\n"
                "rule logged_in severity block: always (open -> once login)\n"
                + "".join(f'rule cap{i} severity block: never(pay(amount > {1000 * i}, note: "tier{i}"))\n'
                          for i in range(1, k + 1)))
        monitor = _policy(text)
        run = monitor.start()
        run.record("login", {"user": "u"})
        decision = run.propose("open", {"id": "1"})
        assert (decision.action, decision.undecided) == ("allow", ()), (k, decision)
        assert "pay" in run.allowed_next()
        if k > 1:  # several rules guard `pay`: the compiler decided their combinations together
            joint = monitor.compiled.joint["pay"]
            assert joint.exact and joint.masks is not None and len(joint.masks) == (k + 1) ** 2
        # and a real conflict is still found, its core minimal: `open` obliges a `pay` nothing allows
        strict = _policy(text + "rule no_pay severity warn: never(pay)\n")
        run = strict.start()
        run.record("login", {"user": "u"})
        decision = run.propose("open", {"id": "1"})
        assert decision.action == "warn" and set(decision.rules) == {"paid", "no_pay"}, decision


def test_a_per_value_rule_takes_part_in_the_joint_search():
    """A per-value rule is read by the joint search like any other: `start` obliges a
    `refund`, a refund of an order needs a check of that order first, and checks are
    forbidden, so `start` is refused with the three rules as its core, exactly as the same
    policy with the rule written without values; a call that moves no rule in conflict is
    decided too."""
    text = ("tool start()\ntool refund(order_id: str)\ntool check(order_id: str)\ntool note()\n"
            "rule owed severity block: always (start -> eventually refund)\n"
            "rule checked severity block: always (refund(order_id: o) -> once check(order_id: o))\n"
            "rule quiet severity block: never(check)\n"
            "rule noted severity warn: called_n(note) <= 3\n")
    monitor = _policy(text)
    assert monitor.compiled.joint_limits()["per_value_rules"] == []
    run = monitor.start()
    decision = run.propose("start", {})
    assert decision.action == "block" and set(decision.rules) == {"owed", "checked", "quiet"}, decision
    assert decision.undecided == ()
    assert run.propose("note", {}).undecided == ()
    # without the rule forbidding checks nothing is in conflict: a check of an order, and
    # after `start` the check of another order (a refund of the first may still follow)
    lenient = _policy(text.replace("rule quiet severity block: never(check)\n", ""))
    run = lenient.start()
    assert run.propose("check", {"order_id": "A"}).undecided == ()
    run.record("check", {"order_id": "A"})
    run.record("start", {})
    decision = run.propose("check", {"order_id": "B"})
    assert (decision.action, decision.undecided) == ("allow", ()), decision
    # a refund of an order never checked is refused by the per-value rule alone
    decision = run.propose("refund", {"order_id": "B"})
    assert decision.action == "block" and "checked" in decision.rules, decision
    # the same conflict written without values is found the same way
    plain = _policy(text.replace("refund(order_id: o) -> once check(order_id: o)", "refund -> once check"))
    decision = plain.start().propose("start", {})
    assert decision.action == "block" and set(decision.rules) == {"owed", "checked", "quiet"}, decision
