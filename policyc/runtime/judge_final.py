"""Rules the automata do not compile, decided by the evaluator where the gate can decide them.

Such rules (grounding in `outputs`, two variables compared across calls, quantifiers the
slicing cannot handle, ...) have no automaton, so the gate cannot step them call by call. It
still decides what it can, with the reference evaluator on the run so far plus the proposed
call, and says what it cannot:

- a rule whose failure on a prefix is final (syntactic safety over data that does not grow:
  `always (issue_refund(order_id: o, amount: m) -> once lookup_order(order_id: o,
  result.total == m))`) and whose value does not depend on the proposed call's result is
  decided at every proposal: if it held before the call and fails with it, the call breaks it.
  A rule may read the results of the tool it gates, of the calls before
  (`always (fetch(url: u) -> yesterday once fetch(u in urls(result)))`);
- a terminal call ends the run: once it is proposed, the whole trace is known except that
  call's result (and the metrics record, written after the run). A rule that reads neither is
  decided exactly then: if it fails, the final answer would leave it unsatisfied;
- any other rule the proposed call may make harder to satisfy is *undecided*: the decision
  lists it with the reason, so that an allowed call is never mistaken for a checked one. Such
  rules are scored when the run finishes. A call cannot, when the rule reads it through its
  patterns alone and every continuation that satisfied the rule without it still does
  (`policyc.tables.facts.CallReads`): a tool the rule does not mention, a pattern false at the
  call's arguments; but a rule that reads positions (`next`, `yesterday`) may be moved by a
  call to any tool.

>>> from policyc.artifact.build import compile_file
>>> from policyc.runtime.monitor import Monitor
>>> from policyc.trace.model import Call
>>> policy = Monitor(compile_file("examples/code_qa.altl")).policy    # its rule `grounded`
>>> rules = FinalAnswerJudge([GatedRule("grounded", "L6", "warn", None, None)], policy)
>>> read = Call("read_file", {"path": "a.py"}, {"a.py": "def parse_args(): pass"}, 0)
>>> [f.rule for f in rules.judge_final((read,), "final_answer", {"answer": "call parse_args()"})]
[]
>>> print(*[f.detail for f in rules.judge_final((read,), "final_answer", {"answer": "call tokenize_text()"})])
ending the run with `final_answer` now leaves it unsatisfied: not grounded: "tokenize_text" from entities(final_answer.answer) is not in the outputs of read_file
>>> [line.text for line in rules.undecided((read,), "read_file", {"path": "b.py"})]
['rule `grounded`: not compiled to an automaton; it is decided when the final answer is proposed']
"""

from __future__ import annotations

from typing import Any, Callable, Mapping, Sequence

from policyc.ir.data import ExternError
from policyc.ir.ops import UNDEF
from policyc.ir.policy import Policy
from policyc.runtime.findings import OWED, VIOLATION, Finding, GatedRule, Open
from policyc.semantics.positions import prepare
from policyc.tables.facts import (
    CallReads, decided_by_final_call, reads_proposed_result, reads_result_of,
)
from policyc.trace.model import Call, Trace

__all__ = ["FinalAnswerJudge", "decided_by_final_call", "reads_result_of"]


class FinalAnswerJudge:
    """The uncompiled rules of a policy, judged by the evaluator where a proposal decides them."""

    def __init__(self, rules: list[GatedRule], policy: Policy,
                 externs: Mapping[str, Callable[..., object]] | None = None,
                 reasons: Mapping[str, str] | None = None):
        from policyc.scoring.certain import is_final_on_prefixes

        by_name = {r.name: r for r in policy.rules}
        terminal = policy.terminal_tools
        known = [(info, by_name[info.name]) for info in rules if info.name in by_name]
        self.rules = [(info, rule) for info, rule in known if decided_by_final_call(rule.formula, terminal)]
        self.stepwise = [(info, rule) for info, rule in known if is_final_on_prefixes(rule.formula)]
        self.all = known
        # per rule, what it reads of each tool's calls (which calls cannot make it harder to
        # satisfy), and the evaluator's memos on its nodes: computed when the monitor is made
        # rather than at a proposal
        self.reads = {info.name: CallReads(rule.formula) for info, rule in known}
        self.stepwise_names = frozenset(info.name for info, _ in self.stepwise)
        self.final_names = frozenset(info.name for info, _ in self.rules)
        for _, rule in known:
            prepare(rule.formula)
        self.terminal = terminal
        self.reasons = dict(reasons or {})
        self.externs = dict(externs or {})

    def judge_final(self, calls: Sequence[Call], tool: str, args: Mapping[str, Any],
                    request: str | None = None, index: Any = None) -> list[Finding]:
        """Findings for ending the run with this terminal call after `calls` (`request`: the
        user's request, when the run has it; `index`: the run's history, indexed)."""
        if not self.rules:
            return []
        from policyc.scoring.details import describe
        from policyc.semantics.positions import PositionEvaluator

        trace = Trace(tuple(calls) + (Call(tool, args, UNDEF, len(calls)),), request=request, index=index)
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

    def judge(self, calls: Sequence[Call], tool: str, args: Mapping[str, Any],
              request: str | None = None, index: Any = None) -> list[Finding]:
        """Violations a proposed (non-terminal) call makes certain, among the rules whose
        failure on a prefix is final and that do not read this call's result."""
        rules = [(i, r) for i, r in self.stepwise if self.moves(i.name, calls, tool, args)
                 and not reads_proposed_result(r.formula, tool, len(calls))]
        if not rules:
            return []
        from policyc.scoring.details import describe
        from policyc.semantics.positions import PositionEvaluator

        before = PositionEvaluator(Trace(tuple(calls), request=request, index=index), self.externs)
        trace = Trace(tuple(calls) + (Call(tool, args, UNDEF, len(calls)),), request=request, index=index)
        after = PositionEvaluator(trace, self.externs)
        out = []
        for info, rule in rules:
            try:
                if not before.holds(rule.formula) or after.holds(rule.formula):
                    continue
                why = describe(rule, after, False, len(trace))
            except (ExternError, RecursionError):
                continue
            out.append(Finding(info.name, VIOLATION, info.layer, info.severity, info.limit,
                               f"after `{tool}` no continuation of the run can satisfy it: "
                               f"{why[:1].lower()}{why[1:].rstrip('.')}", (), info.message))
        return out

    def moves(self, name: str, calls: Sequence[Call], tool: str, args: Mapping[str, Any]) -> bool:
        """Whether a call proposed after `calls` may make rule `name` harder to satisfy. It
        cannot when the rule reads the call through its patterns alone and any continuation
        that satisfied the rule without the call still does with it (`facts.CallReads`: a tool
        the rule does not mention, a deploy to staging where it speaks of production, a notify
        where it asks for one; not under `next` or `yesterday`, nor for `always` of a pattern).
        Any other call is judged, or listed as undecided, never taken for one that moves nothing."""
        return not self.reads[name].harmless(tool, args, not calls)

    def undecided(self, calls: Sequence[Call], tool: str, args: Mapping[str, Any]) -> tuple[Open, ...]:
        """The rules this call may move (`moves`) and that the gate cannot decide at this
        proposal, and why: what the decision does not cover."""
        final = tool in self.terminal
        decided = self.final_names if final else \
            {info.name for info, rule in self.stepwise if not reads_proposed_result(rule.formula, tool, len(calls))}
        out = []
        for info, rule in self.all:
            if info.name in decided or not self.moves(info.name, calls, tool, args):
                continue
            if info.name in self.stepwise_names and reads_proposed_result(rule.formula, tool, len(calls)):
                why = f"it reads the result of `{tool}`, known only once the call ran"
            elif self.terminal and info.name in self.final_names:
                why = "not compiled to an automaton; it is decided when the final answer is proposed"
            else:
                why = "not compiled to an automaton; it is decided when the run finishes"
            out.append(Open(f"rule `{info.name}`: {why}", (info.name,)))
        return tuple(out)

