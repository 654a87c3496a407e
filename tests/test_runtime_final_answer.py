"""A final answer decides the rules no automaton compiles (grounding, trace-wide values),
exactly: the gate reports such a rule iff the run ending with that answer fails it."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from policyc.runtime.judge_final import decided_by_final_call
from policyc.semantics import evaluate
from policyc.trace import Trace
from runtime_helpers import monitor_of

CODE_QA = """
tool read_file(path: str) -> dict[str, str]
tool search(query: str) -> list[str]
terminal tool final_answer(answer: str)
"""
GROUNDED = """
rule grounded severity block:
    eventually final_answer(answer != "")
    and forall e in entities(final_answer.answer): e in outputs(read_file)
"""
MONITOR = monitor_of(GROUNDED, CODE_QA)

FILES = [{"a.py": "def parse_args():\n    pass\n"}, {"b.py": "MAX_SIZE = 3\n"}, {"c.txt": "tokenize_text"}]
ANSWERS = ["call parse_args()", "MAX_SIZE is 3", "see a.py", "use tokenize_text", "I do not know", "",
           "parse_args() and MAX_SIZE"]
CALLS = st.one_of(
    st.sampled_from(FILES).map(lambda f: ("read_file", {"path": next(iter(f))}, f)),
    st.sampled_from(["parse", "size"]).map(lambda q: ("search", {"query": q}, ["a.py"])),
)


def test_an_answer_naming_what_no_file_showed_is_refused_and_a_grounded_one_runs():
    run = MONITOR.start()
    run.record("read_file", {"path": "a.py"}, FILES[0])
    refused = run.propose("final_answer", {"answer": "use tokenize_text"})
    assert refused.action == "block" and refused.rules == ("grounded",)
    assert "ending the run with `final_answer` now leaves it unsatisfied" in refused.message
    assert run.propose("final_answer", {"answer": "call parse_args()"}).action == "allow"


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(CALLS, max_size=4), st.sampled_from(ANSWERS))
def test_the_gate_refuses_a_final_answer_exactly_when_the_run_ending_with_it_fails(calls, answer):
    run = MONITOR.start(mode="tolerate")
    for tool, args, result in calls:
        run.record(tool, args, result)
    decision = run.propose("final_answer", {"answer": answer})
    trace = Trace.of(*calls, ("final_answer", {"answer": answer}))
    (rule,) = MONITOR.policy.rules
    assert ("grounded" in decision.rules) == (not evaluate(rule.formula, trace))


def test_rules_that_read_the_final_result_or_the_metrics_wait_for_the_end():
    tools = """
tool a(n: int) -> int
terminal tool submit(answer: str) -> { accepted: bool }
"""
    monitor = monitor_of("""
rule accepted severity block: exists v in submit.result.accepted: v == true
rule echoed severity block: forall e in entities(submit.answer): e in outputs
rule cheap severity block: forall n in a.n: n <= metrics.budget
""", tools)
    # `echoed` is not compiled (judged offline); `cheap` is, and reads metrics the run does not know yet
    assert {n for n, r in monitor.compiled.rules.items() if r.table is None} == {"echoed"}
    formulas = {r.name: r.formula for r in monitor.policy.rules}
    terminal = monitor.policy.terminal_tools
    assert not decided_by_final_call(formulas["echoed"], terminal)  # outputs of every tool: the answer's too
    assert not decided_by_final_call(formulas["cheap"], terminal)   # the metrics come after the run
    assert not decided_by_final_call(formulas["accepted"], terminal)
    run = monitor.start()
    run.record("a", {"n": 1}, 1)
    assert run.propose("submit", {"answer": "x"}).action == "allow"  # the result and the metrics are unknown
