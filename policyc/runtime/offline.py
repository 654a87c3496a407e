"""Rules the automata do not compile, decided when a final answer is proposed.

Such rules (grounding in `outputs`, quantifiers the slicing cannot handle, ...) have no
automaton, so the gate cannot judge them call by call. But a terminal call ends the run:
once it is proposed, the whole trace is known except that call's result (and the metrics
record, written after the run). A rule that reads neither is decided exactly then, by the
reference evaluator on the run so far plus the proposed call: if it fails, the final answer
would leave it unsatisfied, and it is reported like any rule a final answer leaves unmet.

Rules that do read the final call's result or the metrics stay undecided until `finish()`.

>>> from policyc.artifact.build import compile_file
>>> from policyc.runtime.monitor import Monitor
>>> from policyc.trace.model import Call
>>> policy = Monitor(compile_file("examples/code_qa.altl")).policy    # its rule `grounded`
>>> rules = OfflineRules([GatedRule("grounded", "L6", "warn", None, None)], policy)
>>> read = Call("read_file", {"path": "a.py"}, {"a.py": "def parse_args(): pass"}, 0)
>>> [f.rule for f in rules.judge_final((read,), "final_answer", {"answer": "call parse_args()"})]
[]
>>> print(*[f.detail for f in rules.judge_final((read,), "final_answer", {"answer": "call tokenize_text()"})])
ending the run with `final_answer` now leaves it unsatisfied: not grounded: "tokenize_text" from entities(final_answer.answer) is not in the outputs of read_file
"""

from __future__ import annotations

from typing import Any, Callable, Mapping, Sequence

from policyc.ir import nodes as n
from policyc.ir.data import ExternError
from policyc.ir.ops import UNDEF
from policyc.ir.policy import Policy
from policyc.ir.walk import subformulas
from policyc.runtime.findings import OWED, Finding
from policyc.runtime.plain import GatedRule
from policyc.trace.model import Call, Trace


class OfflineRules:
    """The uncompiled rules of a policy that a proposed final answer decides."""

    def __init__(self, rules: list[GatedRule], policy: Policy,
                 externs: Mapping[str, Callable[..., object]] | None = None):
        by_name = {r.name: r for r in policy.rules}
        terminal = policy.terminal_tools
        self.rules = [(info, by_name[info.name]) for info in rules
                      if info.name in by_name and decided_by_final_call(by_name[info.name].formula, terminal)]
        self.externs = dict(externs or {})

    def judge_final(self, calls: Sequence[Call], tool: str, args: Mapping[str, Any]) -> list[Finding]:
        """Findings for ending the run with this terminal call after `calls`."""
        if not self.rules:
            return []
        from policyc.scoring.details import describe
        from policyc.semantics.positions import PositionEvaluator

        trace = Trace(tuple(calls) + (Call(tool, dict(args), UNDEF, len(calls)),))
        engine = PositionEvaluator(trace, self.externs)
        out = []
        for info, rule in self.rules:
            try:
                holds = engine.holds(rule.formula)
                why = "" if holds else describe(rule, engine, False, len(trace))  # the report's own words
            except (ExternError, RecursionError):
                continue  # cannot be decided now: the report at the end says why
            if not holds:
                out.append(Finding(info.name, OWED, info.layer, info.severity, info.limit,
                                   f"ending the run with `{tool}` now leaves it unsatisfied"
                                   + (f": {why[:1].lower()}{why[1:].rstrip('.')}" if why else ""), (),
                                   info.message))
        return out


def decided_by_final_call(formula: n.Formula, terminal: frozenset[str]) -> bool:
    """Whether the formula's value on a complete trace is known before the last call's
    result is: it reads no result of a terminal call (in a pattern, through `outputs`, or
    through the values of a result path) and no metrics.

    >>> from policyc.ir import build as b
    >>> decided_by_final_call(b.eventually(b.event("read_file")), frozenset({"final_answer"}))
    True
    >>> decided_by_final_call(b.eventually(b.event("final_answer", n.Result())), frozenset({"final_answer"}))
    False
    """
    for node in subformulas(formula):
        if isinstance(node, n.Event) and node.tool in terminal \
                and any(isinstance(t, n.Result) or t == n.Attr("error") for t in subformulas(node.guard)):
            return False
        if isinstance(node, n.Metric):
            return False
        if isinstance(node, n.Outputs) and (not node.tools or set(node.tools) & terminal):
            return False
        if isinstance(node, n.Values) and node.tool in terminal and node.path[:1] == ("result",):
            return False
    return True
