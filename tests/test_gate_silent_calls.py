"""Calls that cannot make a rule without an automaton harder to satisfy (`policyc.tables.facts`).

The gate judges a rule the automata do not compile with the reference evaluator, and lists it
as undecided at the proposals it cannot decide. A proposal it skips must be one that cannot
make the rule harder to satisfy: inserted into any trace that satisfies the rule, the call
leaves it satisfied (`CallReads.harmless`: the rule reads the call through its patterns alone,
and with only the patterns not surely false at its arguments possibly true, the insertion
keeps the rule's truth). The property is checked against the reference evaluator on generated
formulas and traces; the gate's cases are the shapes that were judged wrongly or listed
needlessly before.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from policyc.artifact.build import build_artifact
from policyc.check import check_text
from policyc.runtime import Monitor
from policyc.semantics.evaluator import evaluate
from policyc.tables.facts import CallReads, kept_after_call
from policyc.trace import Trace
from policyc.trace.model import Call

from tests.generators import AGENT, LETTERS, LISTS, NIGHTLY, RUN, Vocabulary, formulas

EXAMPLES = 400 if NIGHTLY else 60


def _trace(calls: list, request: str | None, metrics: dict) -> Trace:
    return Trace(tuple(Call(t, a, r, i) for i, (t, a, r) in enumerate(calls)), dict(metrics), request=request)


def _inserted_keeps_truth(vocab: Vocabulary):
    @settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
    @given(data=st.data())
    def check(data: st.DataObject) -> None:
        formula = data.draw(formulas(vocab, 3, quantifiers=True), "formula")
        before = data.draw(st.lists(vocab.call, max_size=4), "before")
        after = data.draw(st.lists(vocab.call, max_size=4), "after")
        if vocab.final is not None and data.draw(st.booleans(), "ends"):
            after.append(data.draw(vocab.final, "final"))
        call = data.draw(vocab.call, "call")
        request = data.draw(st.sampled_from(vocab.requests or (None,)), "request")
        metrics = data.draw(st.sampled_from(vocab.metrics or ({},)), "metrics")
        if not CallReads(formula).harmless(call[0], call[1], not before):
            return
        if evaluate(formula, _trace(before + after, request, metrics)):
            assert evaluate(formula, _trace(before + [call] + after, request, metrics)), \
                f"{formula}: true on {before + after}, false with {call} inserted"
    return check


test_letters = _inserted_keeps_truth(LETTERS)
test_agent = _inserted_keeps_truth(AGENT)
test_lists = _inserted_keeps_truth(LISTS)
test_run = _inserted_keeps_truth(RUN)


def test_the_analysis_keeps_what_authors_write_and_not_what_counts_positions() -> None:
    from policyc.ir import build as b
    deploy = b.event("deploy", b.op("eq", b.arg("env"), b.lit("prod")))
    notify = b.event("notify")
    assert kept_after_call(b.always(b.implies(deploy, b.eventually(notify)))) == (True, True)
    assert kept_after_call(b.always(b.implies(notify, b.once(deploy)))) == (True, True)
    assert kept_after_call(b.always(b.implies(deploy, b.wnext(notify)))) == (False, False)
    assert kept_after_call(b.always(b.implies(deploy, b.yesterday(notify)))) == (False, False)
    assert kept_after_call(b.always(notify)) == (False, False)          # every call must be one
    assert kept_after_call(notify) == (True, False)                    # the first call must be one
    assert kept_after_call(b.eventually(b.cond(b.op("eq", b.outputs(()), b.lit(1))))) == (False, False)
    told = CallReads(b.always(b.implies(deploy, b.eventually(notify))))
    assert told.harmless("deploy", {"env": "staging"}, False) and not told.harmless("deploy", {"env": "prod"}, False)
    assert told.harmless("scale", {}, False) and told.harmless("notify", {"text": "x"}, False)
    # a notify can break a rule that forbids one after a deploy
    quiet = CallReads(b.always(b.implies(deploy, b.always(b.neg(notify)))))
    assert not quiet.harmless("notify", {"text": "x"}, False) and quiet.harmless("scale", {}, False)
    # a value a silent deploy adds to the domain of `s` matches no pattern: its instance holds
    prod = b.event("deploy", b.op("and", b.op("eq", b.arg("service"), b.var("s")),
                                  b.op("eq", b.arg("env"), b.lit("prod"))))
    told = b.forall("s", None, b.values("deploy", ("service",)), b.always(b.implies(prod, b.eventually(notify))))
    assert CallReads(told).harmless("deploy", {"service": "api", "env": "staging"}, False)
    # ... unless its instance owes something of its own, or the domain is not where it binds
    owes = b.forall("s", None, b.values("deploy", ("service",)), b.eventually(prod))
    assert not CallReads(owes).harmless("deploy", {"service": "api", "env": "staging"}, False)
    elsewhere = b.forall("s", None, b.values("scale", ("service",)), b.always(b.implies(prod, b.eventually(notify))))
    assert not CallReads(elsewhere).harmless("scale", {"service": "api"}, False)
    ticket = b.forall("t", None, b.values("open_ticket", ("result", "ticket")),
                      b.eventually(b.event("notify", b.op("contains", b.arg("text"), b.var("t")))))
    assert not CallReads(ticket).harmless("open_ticket", {"summary": "x"}, False)


def _monitor(body: str) -> Monitor:
    policy, diags = check_text(f"""
tool deploy(service: str, env: str)
tool notify(channel: str, text: str)
tool scale(service: str)
terminal tool finish(summary: str)
{body}
""", "silent.altl")
    assert policy is not None, diags
    return Monitor(build_artifact(policy))


def test_a_call_of_another_tool_breaks_a_rule_that_reads_the_next_call() -> None:
    # `contains(text, s)` keeps the rule from the automata: the evaluator judges it. A `scale`
    # right after a deploy leaves no notify next to it, for good: refused, where it used to be
    # allowed because the rule does not mention `scale`.
    monitor = _monitor("rule told severity block:\n"
                       "    always (deploy(service: s) -> wnext notify(contains(text, s)))")
    assert monitor.artifact.rules[0].rule_class == "offline-only"
    run = monitor.start()
    assert run.propose("deploy", {"service": "api", "env": "prod"}).action == "allow"
    run.record("deploy", {"service": "api", "env": "prod"}, None)
    assert run.propose("scale", {"service": "api"}).action == "block"
    assert run.propose("notify", {"channel": "#ops", "text": "api is out"}).action == "allow"


def test_a_pattern_false_at_the_call_leaves_the_rule_unlisted() -> None:
    monitor = _monitor("rule tell_about_prod_deploys:\n"
                       "    forall s: always (deploy(service: s, env: \"prod\") -> eventually notify(contains(text, s)))")
    run = monitor.start()
    staging = run.propose("deploy", {"service": "api", "env": "staging"})
    assert staging.action == "allow" and staging.undecided == ()
    run.record("deploy", {"service": "api", "env": "staging"}, None)
    assert run.propose("scale", {"service": "api"}).undecided == ()
    prod = run.propose("deploy", {"service": "api", "env": "prod"})
    assert prod.undecided == ("rule `tell_about_prod_deploys`: not compiled to an automaton; "
                              "it is decided when the final answer is proposed",)
    run.record("deploy", {"service": "api", "env": "prod"}, None)
    finish = run.propose("finish", {"summary": "done"})
    assert finish.undecided == () and [f.rule for f in finish.findings] == ["tell_about_prod_deploys"]
    told = run.propose("notify", {"channel": "#ops", "text": "api shipped"})
    assert told.action == "allow" and told.undecided == ()   # a notify only helps it
    run.record("notify", {"channel": "#ops", "text": "api shipped"}, None)
    assert run.propose("finish", {"summary": "done"}).findings == ()
