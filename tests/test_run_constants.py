"""Rules over the run's request and metrics, and values bound at the call that triggers a rule.

- the request and metrics a run was started with (`Monitor.start(request=..., metrics=...)`,
  `context=` kept), and those `policyc replay` reads from a trace, are the ones the rules read:
  lint, replay, the gate and the scorer agree (the regression of a clean chat run refused);
- a request or metrics the run was not given are free inputs: never a reason to refuse, and a
  rule is refused for them only when every value would be (brute force over the generator's
  requests and metrics); a request given later is read from the start of the run;
- on generated policies over `generators.RUN` (request, metrics, history atoms, lists in
  results), a call is refused only when every outcome and every continuation breaks the rule,
  and a final call is owed-blocked exactly when the run ending with it fails (the reference
  evaluator, brute force);
- the blind suites' policies are gateable, and what still is not compiled says why.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings

from engines import ReferenceEngine, some_continuation_satisfies
from generators import NIGHTLY, RUN, continuations, policies, traces
from policyc.artifact.build import build_artifact, compile_file
from policyc.automata import compile_policy
from policyc.automata.constants import reads_run_constants
from policyc.cli import cli
from policyc.ir.ops import UNDEF
from policyc.runtime import Monitor
from policyc.tables import VIOLATED
from policyc.trace import Trace
from runtime_helpers import monitor_of, policy_of

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = 400 if NIGHTLY else 30
SETTINGS = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])

SUPPORT = """policy support "Look customers up only by an address the user gave."

tool get_customer(email: str) -> { name: str }
terminal tool reply(text: str)

rule asked_customer severity block:
    always (get_customer(email: e) -> contains(request.text, e))
"""


def chat(user: str, email: str) -> list:
    return [{"role": "user", "content": user},
            {"role": "assistant", "tool_calls": [{"id": "c1", "type": "function", "function": {
                "name": "get_customer", "arguments": json.dumps({"email": email})}}]},
            {"role": "tool", "tool_call_id": "c1", "content": "{\"name\": \"Ann\"}"},
            {"role": "assistant", "tool_calls": [{"id": "c2", "type": "function", "function": {
                "name": "reply", "arguments": "{\"text\": \"It ships today.\"}"}}]}]


def invoke(*args):
    return CliRunner().invoke(cli, [*map(str, args)], env={"NO_COLOR": "1", "COLUMNS": "120"})


# ------------------------------------------------------------------ the regression


def test_lint_replay_the_gate_and_the_scorer_agree_on_a_rule_over_the_request(tmp_path):
    policy = tmp_path / "support.altl"
    policy.write_text(SUPPORT, encoding="utf-8")
    clean, dirty = tmp_path / "clean.json", tmp_path / "dirty.json"
    clean.write_text(json.dumps(chat("Hi, I am ann@example.com: where is my order?", "ann@example.com")))
    dirty.write_text(json.dumps(chat("Hi, where is my order?", "bob@example.com")))

    replayed = invoke("replay", policy, clean, "--format", "json")
    assert replayed.exit_code == 0, replayed.output
    (run,) = json.loads(replayed.output)["traces"]
    assert [s["action"] for s in run["steps"]] == ["allow", "allow"]  # no refusal of the clean run
    assert invoke("score", policy, clean).exit_code == 0

    replayed = invoke("replay", policy, dirty, "--format", "json")
    assert replayed.exit_code == 1
    (run,) = json.loads(replayed.output)["traces"]
    assert [s["action"] for s in run["steps"]][0] == "block"  # the address the user never gave
    assert run["steps"][0]["rules"] == ["asked_customer"]
    assert invoke("score", policy, dirty).exit_code == 1  # the scorer fails it too

    linted = invoke("lint", policy, "--format", "json")
    assert linted.exit_code == 0, linted.output  # the gate can decide it: no L0006, nor "holds on every trace"
    (report,) = json.loads(linted.output)
    codes = [f["code"] for f in report["findings"]]
    assert "L0006" not in codes and "L0004" not in codes

    monitor = Monitor(compile_file(str(policy)))
    assert monitor.compiled.classes["asked_customer"] == "gateable"
    gated = monitor.start(request="Hi, I am ann@example.com: where is my order?")
    assert gated.propose("get_customer", {"email": "ann@example.com"}).action == "allow"
    assert gated.propose("get_customer", {"email": "bob@example.com"}).action == "block"
    older = monitor.start(context="Hi, I am ann@example.com")  # `context=` is the same request
    assert older.propose("get_customer", {"email": "bob@example.com"}).action == "block"
    with pytest.raises(ValueError, match="given twice"):
        monitor.start(context="a", request="b")


def test_a_request_the_run_was_not_given_is_a_free_input():
    monitor = monitor_of("""
rule asked severity block: always (a(n: v) -> contains(request.text, "go") and v <= 2)
rule named severity deny: always (b -> contains(request.text, "b"))
""")
    run = monitor.start()
    assert run.propose("b", {}).action == "allow"  # some request allows it
    assert run.propose("a", {"n": 1}).action == "allow"
    blocked = run.propose("a", {"n": 3})  # no request allows it
    assert blocked.action == "block" and blocked.rules == ("asked",)
    run.record("b", {}, None)
    run.set_context("please go")  # given later: the rules read it from the start of the run
    assert run.propose("a", {"n": 1}).action == "allow"
    assert run.propose("c", {}).action == "allow"
    assert run.finish().constraints[1].passed is False  # `b` ran without the request asking for it
    assert Monitor(monitor.artifact).start(request="b").propose("b", {}).action == "allow"


def test_metrics_given_at_the_start_are_read_and_unknown_ones_refuse_nothing():
    monitor = monitor_of("rule cheap severity block: forall n in a.n: n <= metrics.budget\n")
    assert monitor.compiled.classes["cheap"] == "gateable"
    assert monitor.start(metrics={"budget": 2}).propose("a", {"n": 3}).action == "block"
    assert monitor.start(metrics={"budget": 5}).propose("a", {"n": 3}).action == "allow"
    free = monitor.start().propose("a", {"n": 3})
    assert free.action == "allow" and any("not given" in line for line in free.undecided)
    with pytest.raises(TypeError, match="mapping"):
        monitor.start(metrics=[1])  # type: ignore[arg-type]


def test_snapshots_keep_the_request_and_the_metrics():
    monitor = monitor_of("""
rule asked severity block: always (a(n: v) -> v <= metrics.cap)
rule once_read severity block: always (b(n: v) -> once a(contains(request.text, "x") and n == v))
""")
    run = monitor.start(request="x", metrics={"cap": 3})
    run.record("a", {"n": 2}, None)
    again = monitor.restore(json.loads(json.dumps(run.snapshot())))
    assert again.propose("a", {"n": 4}).action == "block"
    assert again.propose("b", {"n": 2}).action == "allow"
    assert again.propose("b", {"n": 1}).action == "block"


# ------------------------------------------------------------------ history atoms


def test_values_bound_at_the_trigger_are_read_from_earlier_results():
    monitor = monitor_of("""
rule known severity block:
    always (b(n: v) -> once a(contains(result, "ok") and v in result[*].n) or contains(request.text, "any"))
""", tools="""
tool a(n: int?) -> any
tool b(n: int?) -> any
""")
    table = monitor.compiled.table("known")
    assert table is not None and table.dfa is not None  # one automaton, no instance per value
    run = monitor.start(request="please")
    assert run.propose("b", {"n": 1}).action == "block"
    run.record("a", {}, [{"n": 1}, {"n": "ok"}])  # no text "ok": `contains` does not hold
    assert run.propose("b", {"n": 1}).action == "block"
    run.record("a", {}, "ok [1]")  # a text: `v in result[*].n` does not hold
    assert run.propose("b", {"n": 1}).action == "block"
    run.record("a", {}, [{"n": 1}, {"n": 2}])
    assert run.propose("b", {"n": 1}).action == "block"  # `contains(result, "ok")` of a list: false
    assert monitor.start(request="any will do").propose("b", {"n": 7}).action == "allow"


def test_a_call_binding_a_value_by_membership_in_a_text_is_left_to_the_evaluator():
    """`x in ids` over a text reads its substrings, values the domain may only gain later."""
    policy = policy_of("rule r severity block: forall x in b.ids: always (b(x in ids) -> contains(request.text, x))\n",
                       tools="tool b(ids: list[str])\n")
    monitor = Monitor(build_artifact(policy))
    assert monitor.compiled.table("r") is not None
    run = monitor.start(mode="tolerate", request="a b")
    run.record("b", {"ids": ["a"]}, None)
    run.record("b", {"ids": "a c"}, None)  # the string holds `c`, a value no call bound yet
    run.record("b", {"ids": ["c"]}, None)  # now it is in the domain: the second call broke the rule
    (result,) = run.finish().constraints
    trace = Trace.of(("b", {"ids": ["a"]}, UNDEF), ("b", {"ids": "a c"}, UNDEF), ("b", {"ids": ["c"]}, UNDEF))
    assert result.passed is False and monitor.verdicts(Trace(trace.calls, request="a b")) == {"r": False}


def test_what_is_not_compiled_says_why():
    policy = policy_of("""
rule future severity block: always (a(n: v) -> eventually b(n: v) or contains(request.text, "x"))
rule two severity block: always (a(n: v) -> once b(n > v))
rule lists severity block: forall e in entities(done.answer): e in outputs
rule later severity block: always (a(n: v) -> eventually b(n > v))
""")
    compiled = compile_policy(policy)
    reasons = {name: rule.offline_reason for name, rule in compiled.rules.items()}
    assert reasons["future"] is None and reasons["two"] is None  # per value; a history atom
    assert reasons["lists"] == "the domain `entities(done.answer)` is not drawn from call arguments or results"
    assert reasons["later"] == ("`v` is compared with a call other than by `==` or `!=` in `n > v`, and is not "
                                "bound at the call that triggers the rule")


@pytest.mark.parametrize("suite", ["banking", "mail", "messaging", "travel"])
def test_the_blind_suites_are_gateable(suite):
    artifact = compile_file(str(ROOT / "benchmarks" / "suites" / suite / "policy.altl"))
    classes = [r.rule_class for r in artifact.rules]
    assert classes.count("gateable") >= 0.9 * len(classes), [(r.name, r.offline_reason) for r in artifact.rules]


# ------------------------------------------------------------------ generated policies

BOUND = 1  # continuation length for the brute-force oracle (the RUN pool is large)


def _outcomes(tool: str, args: dict) -> list:
    """What a proposed call may turn out to be: every result the pool gives the tool."""
    results = {json.dumps(r, sort_keys=True): r for t, _, r in RUN.pool + RUN.finals if t == tool and r is not UNDEF}
    return [(tool, args, r) for r in [UNDEF, *results.values()]]


def _with(trace: Trace, calls: list) -> Trace:
    return Trace(Trace.of(*calls).calls, dict(trace.metrics), request=trace.request)


@pytest.fixture(scope="module")
def reference() -> ReferenceEngine:
    return ReferenceEngine()


def _satisfiable(formula, base: Trace, prefix: list, length: int) -> bool:
    for more in continuations(RUN, length, final_last=True):
        if ReferenceEngine().holds(formula, _with(base, prefix + more)):
            return True
    return False


@SETTINGS
@given(policies(RUN, max_rules=2), traces(RUN, max_len=4))
def test_refusals_with_the_run_constants_are_exact(policy, trace):
    monitor = Monitor(build_artifact(policy, "sha256:generated"))
    gated = [r for r in policy.rules if monitor.compiled.table(r.name) is not None]
    run = monitor.start(mode="tolerate", request=trace.request, metrics=dict(trace.metrics))
    prefix: list = []
    for call in trace.calls:
        tool, args, result = call.name, dict(call.args), call.result
        decision = run.propose(tool, args)
        found = {f.rule: f for f in decision.findings}
        final = tool == "answer"
        for rule in gated:
            finding = found.get(rule.name)
            if finding is None or finding.kind not in ("violation", "owed"):
                continue
            for outcome in _outcomes(tool, args):
                if final:
                    assert not ReferenceEngine().holds(rule.formula, _with(trace, prefix + [outcome])), (rule, prefix)
                else:
                    assert not _satisfiable(rule.formula, trace, prefix + [outcome], BOUND), (rule, prefix, call)
        if final:
            for rule in gated:  # owed exactly when the run ending with it fails, whatever its result
                fails = all(not ReferenceEngine().holds(rule.formula, _with(trace, prefix + [o]))
                            for o in _outcomes(tool, args))
                lost = not _satisfiable(rule.formula, trace, prefix, BOUND + 1)
                if trace.request is None and reads_run_constants(rule.formula):
                    # a request the gate was not given is a free input: never a reason to refuse,
                    # so only "owed means it fails" holds
                    assert rule.name not in found or fails or lost, (rule, prefix, call)
                    continue
                assert (rule.name in found) == (fails and not lost) or lost, (rule, prefix, call)
            break
        run.record(tool, args, result)
        prefix.append((tool, args, result))


@SETTINGS
@given(policies(RUN, max_rules=2), traces(RUN, max_len=5))
def test_unknown_constants_never_refuse_what_some_value_allows(policy, trace):
    """Without its request and metrics, a run refuses a call for a rule only when, for every
    request and metrics record of the pool, the call leaves the rule unsatisfiable; its
    verdicts after each prefix are violated only when every value's are."""
    monitor = Monitor(build_artifact(policy, "sha256:generated"))
    gated = [r for r in policy.rules if monitor.compiled.table(r.name) is not None]
    worlds = [Trace((), dict(m), request=r) for r in RUN.requests for m in RUN.metrics or ({},)]
    run = monitor.start(mode="tolerate")
    prefix: list = []
    for call in trace.calls:
        verdicts = monitor.gate.verdicts(run.state.gate)
        for rule in gated:
            if verdicts[rule.name][0] == VIOLATED:
                assert all(not ReferenceEngine().holds(rule.formula, _with(w, prefix)) for w in worlds), (rule, prefix)
        tool, args, result = call.name, dict(call.args), call.result
        decision = run.propose(tool, args)
        for f in decision.findings:
            rule = next((r for r in gated if r.name == f.rule), None)
            if rule is None or f.kind != "violation":
                continue
            for world in worlds:
                assert not any(_satisfiable(rule.formula, world, prefix + [o], 0) for o in _outcomes(tool, args)), \
                    (rule, world.request, world.metrics, prefix, call)
        if tool == "answer":
            break
        run.record(tool, args, result)
        prefix.append((tool, args, result))


def test_continuations_oracle_is_the_reference(reference):
    """The brute force above reads the reference evaluator on the generator's pool."""
    assert some_continuation_satisfies(reference, [], [], continuations(RUN, 0, final_last=False))
