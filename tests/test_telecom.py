"""The telecom policy (examples/telecom.altl): the twenty rules c1-c20 of "Organising trajectory
evidence" over τ²-bench's real tools, taken both ways on a corpus in τ²-bench's own format.

Each rule holds, and is exercised (not vacuous), in one of the five runs that follow the
policy; each is broken, alone, by one run made for it. The gate, replaying the runs, refuses
the calls and messages of the agent that break the rules it can decide before they happen (the
user's own device actions are recorded, not gated).
"""

from __future__ import annotations

from pathlib import Path

import pytest

import telecom_corpus
from policyc.artifact.build import build_artifact
from policyc.automata import compile_policy
from policyc.check import check_file
from policyc.runtime import Monitor
from policyc.runtime.replay import replay
from policyc.scoring import score_trace
from policyc.trace import Trace, load_traces

ROOT = Path(__file__).resolve().parent.parent
POLICY = ROOT / "examples" / "telecom.altl"
CORPUS = ROOT / "examples" / "traces" / "telecom.json"
RULES = [f"c{i}" for i in range(1, 21)]


@pytest.fixture(scope="module")
def policy():
    checked, diagnostics = check_file(POLICY)
    assert checked is not None, diagnostics
    return checked


@pytest.fixture(scope="module")
def traces():
    loaded = load_traces(CORPUS)
    assert loaded.errors == []
    return {t.id: t for t in loaded.traces}


@pytest.fixture(scope="module")
def compiled(policy):
    return compile_policy(policy)


@pytest.fixture(scope="module")
def reports(compiled, traces):
    return {tid: {c.name.split("_")[0]: c for c in score_trace(compiled, trace).constraints}
            for tid, trace in traces.items()}


def test_the_corpus_is_what_the_builder_writes():
    assert CORPUS.read_text(encoding="utf-8") == telecom_corpus.text(), "rebuild: python tests/telecom_corpus.py"


def test_the_policy_has_the_twenty_rules_over_the_real_tools(policy):
    assert [r.name.split("_")[0] for r in policy.rules] == RULES
    real = set(_tool_names(ROOT.parent / "shared" / "data" / "tau2-telecom"))
    if real:  # the reference copy of τ²-bench's toolkits, when it is at hand
        assert set(policy.tools) - {"message"} <= real
    assert policy.observes == {"messages", "user_calls"}


def _tool_names(folder: Path) -> list[str]:
    import re

    out = []
    for name in ("tools.py", "user_tools.py"):
        path = folder / name
        if path.exists():
            out += re.findall(r"@is_tool\(ToolType\.\w+\)\s+def (\w+)", path.read_text(encoding="utf-8"))
    return out


@pytest.mark.parametrize("run", ["service-ok", "suspended-ok", "handoff-ok", "data-ok", "mms-ok"])
def test_runs_that_follow_the_policy_break_no_rule(reports, run):
    failed = {name: c.detail for name, c in reports[run].items() if not c.passed}
    assert failed == {}


def test_every_rule_is_exercised_by_a_run_that_follows_it(reports):
    ok = [r for r in reports if r.endswith("-ok")]
    exercised = {rule for run in ok for rule, c in reports[run].items() if c.passed and not c.vacuous}
    assert exercised == set(RULES)


@pytest.mark.parametrize("rule", RULES)
def test_each_rule_is_broken_alone_by_its_run(reports, rule):
    failed = sorted(name for name, c in reports[f"{rule}-broken"].items() if not c.passed)
    assert failed == [rule]


BROKEN = {  # rule: (violated_at, violated_at_call, detail): the policy reads messages and the user's calls,
    # so a position is an event, named with the agent's call it is
    "c1": (13, 3, 'Does not hold for c = "C1001" at event #13, call #3 (`send_payment_request`).'),
    "c2": (13, 3, 'Does not hold for b = "B1003" at event #13, call #3 (`send_payment_request`).'),
    "c4": (23, 6, 'Does not hold at event #23, call #6 (`refuel_data`).'),
    "c6": (23, 5, 'Does not hold for l = "L1002" at event #23, call #5 (`resume_line`).'),
    "c7": (25, 6, 'Does not hold for l = "L1002" at event #25, call #6 (`resume_line`).'),
    "c10": (4, 0, "Does not hold at event #4 (`message`)."),
    "c12": (9, 1, "Does not hold at event #9 (`toggle_airplane_mode`)."),  # the user's call
    "c19": (34, 5, 'Does not hold for l = "L1002" (first at event #10, call #2, `get_details_by_id`).'),
    "c20": (35, 6, "Does not hold at event #35 (`message`)."),
}


@pytest.mark.parametrize("rule", sorted(BROKEN))
def test_details_name_the_variables_and_the_call_that_failed(reports, traces, rule):
    result = reports[f"{rule}-broken"][rule]
    assert (result.violated_at, result.violated_at_call, result.detail) == BROKEN[rule]


def test_a_rule_over_the_metrics_is_violated_where_it_can_tell(reports):
    """c12 reads the faults the task injected (`metrics`): its automaton starts in the state
    the run's metrics choose, so it is gateable and reports the step of the break."""
    c12 = reports["c12-broken"]["c12"]
    assert c12.rule_class == "gateable" and c12.violated_at == 9  # the device fix before any status bar
    c17 = reports["c17-broken"]["c17"]
    assert c17.violated_at == 13  # an obligation never met: only the end of the run shows it


@pytest.fixture(scope="module")
def monitor(policy):
    return Monitor(build_artifact(policy))


@pytest.mark.parametrize("rule,refused", [
    ("c1", ("send_payment_request", 13)), ("c2", ("send_payment_request", 13)), ("c4", ("refuel_data", 23)),
    ("c5", ("refuel_data", 21)), ("c6", ("resume_line", 23)), ("c7", ("resume_line", 25)),
    ("c9", ("transfer_to_human_agents", 10)), ("c10", ("message", 4)), ("c11", ("message", 4)),
    ("c16", ("refuel_data", 21)),
])
def test_the_gate_refuses_what_breaks_a_gateable_rule(monitor, traces, rule, refused):
    result = replay(monitor, traces[f"{rule}-broken"])
    calls = result.trace.calls
    blocked = [(calls[s.position].name, s.position + 1) for s in result.steps if s.action in ("block", "stop")]
    assert blocked[:1] == [refused]
    (step,) = [s for s in result.steps if s.position + 1 == refused[1]]
    assert [f.rule.split("_")[0] for f in step.decision.findings if f.kind != "conformance"] == [rule]


@pytest.mark.parametrize("run", ["service-ok", "suspended-ok", "handoff-ok", "data-ok", "mms-ok"])
def test_the_gate_lets_compliant_runs_through_and_reports_as_the_scorer(monitor, traces, run):
    trace = traces[run]
    result = replay(monitor, trace)
    assert [s.position for s in result.steps if s.action in ("block", "stop")] == []
    live = monitor.start(context=trace.request)
    for event in trace.events:
        if event.actor == "assistant":
            assert live.propose(event.name, event.args, message_id=event.message_id).executes
        live.record(event.name, event.args, event.result, actor=event.actor, message_id=event.message_id,
                    error=event.error)
    # a live run has no metrics record (the task's faults): the same events, scored without it
    same = Trace.from_events(trace.events, request=trace.request)
    assert live.finish().model_dump() == score_trace(monitor.compiled, same).model_dump()
