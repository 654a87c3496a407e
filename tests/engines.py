"""One interface every engine of policyc satisfies, so one corpus runs through all of them.

An `Engine` says whether a complete trace satisfies a closed formula, or None when the
formula or the trace lies outside what it decides (its fragment): an engine may decline,
never disagree with the reference evaluator. A `PrefixEngine` also follows a run call by
call: after each prefix (the empty one first), whether that prefix, read as a complete
trace, satisfies the formula (`accepting`), and its permanent verdict (`violated`: no
continuation can satisfy it; `satisfied`: none can break it; `open`).

| engine | what runs | declines |
|---|---|---|
| `reference` | `policyc.semantics.evaluate`, the oracle | nothing |
| `position` | `PositionEvaluator`: every position in one pass | nothing |
| `automata` | the rule's table (`compile_rule(...).table`): `verdict_on`, and a run per prefix | rules outside the automata's fragment; a call the alphabet cannot read |
| `scorer` | `score_trace(compile_policy(one-rule policy), trace)` | nothing |
| `runtime` | a `Monitor` of the one-rule policy's artifact (read back from its JSON): a recorded run, `finish()` (and `Monitor.verdicts`, which must agree), and the gate's verdicts per prefix | calls after a terminal call; results a run reads differently (JSON text); per prefix, rules the gate does not track, calls it cannot read, and rules over a request the trace lacks (free inputs) |
| `smt` | the Z3 encoding pinned to the trace | traces that do not fit the tool signatures; approximated encodings; with strings coded as integers, formulas that need real strings |

Each adapter keeps its memo (compiled tables, monitors, evaluations) on the instance, and
counts why it declined (`declined`).
"""

from __future__ import annotations

from collections import Counter
from typing import Callable, Mapping, Protocol, runtime_checkable

import z3

from policyc.artifact.build import build_artifact
from policyc.artifact.io import dump_artifact, parse_artifact
from policyc.automata import NotCompilable, RuleTable, compile_policy, compile_rule
from policyc.ir import nodes as n
from policyc.ir.data import DEFAULT_ATTRIBUTES, attributes
from policyc.ir.ops import UNDEF
from policyc.tables.atoms import constant_groups
from policyc.ir.types import ANY, ToolSignature
from policyc.runtime import Monitor, Run
from policyc.scoring import score_trace
from policyc.semantics import PositionEvaluator, evaluate
from policyc.smt.decoder import pin_trace
from policyc.smt.encoder import FormulaEncoder
from policyc.smt.symtrace import SymbolicTrace
from policyc.smt.values import NeedsStrings
from policyc.tables import AlphabetError, CompiledPolicy
from policyc.tables.context import Constants
from policyc.trace import Trace
from policyc.trace.conformance import check_trace

from generators import one_rule_policy

#: After a prefix: (the prefix read as a complete trace satisfies the formula, permanent verdict).
PrefixVerdict = tuple[bool, str]


class Engine(Protocol):
    name: str
    declined: Counter[str]  # why it declined, how often

    def holds(self, formula: n.Formula, trace: Trace) -> bool | None:
        """τ ⊨ φ, or None outside this engine's fragment."""


@runtime_checkable
class PrefixEngine(Engine, Protocol):
    def prefix_verdicts(self, formula: n.Formula, trace: Trace) -> list[PrefixVerdict] | None:
        """(accepting, verdict) after each of the len(trace) + 1 prefixes, or None."""


class EngineError(AssertionError):
    """An engine gave an answer that cannot be right whatever the reference says."""


def _attributes(args) -> tuple:
    """An event's attributes, in a memo key, when they are not the defaults (`repr` of the
    arguments does not show them)."""
    carried = attributes(args)
    return () if carried == DEFAULT_ATTRIBUTES else (tuple(sorted(carried.items())),)


def trace_key(trace: Trace) -> tuple:
    """A memo key for a trace. `repr` tells value types apart (1, 1.0 and true differ); equal
    values written in another key order get another key, which only costs a memo miss."""
    calls = tuple((c.name, repr(c.args), repr(c.result)) + _attributes(c.args) for c in trace.calls)
    return (calls, repr(trace.metrics), trace.request) if trace.metrics or trace.request is not None else calls


class _Declines:
    """Counts why an engine declined (`declined`: reason -> how often)."""

    def __init__(self) -> None:
        self.declined: Counter[str] = Counter()

    def decline(self, reason: str) -> None:
        self.declined[reason] += 1
        return None


# ------------------------------------------------------------------ the evaluators


class ReferenceEngine(_Declines):
    """The reference evaluator (appendix A clause by clause), memoised per instance."""

    name = "reference"

    def __init__(self) -> None:
        super().__init__()
        self._memo: dict[tuple, bool] = {}

    def holds(self, formula: n.Formula, trace: Trace) -> bool:
        key = (formula, trace_key(trace))
        found = self._memo.get(key)
        if found is None:
            found = self._memo[key] = evaluate(formula, trace)
        return found

    def holds_on(self, formula: n.Formula, calls) -> bool:
        """The same, for a list of (tool, args, result) tuples (results UNDEF when absent)."""
        key = (formula, tuple((tool, repr(args), repr(result)) + _attributes(args) for tool, args, result in calls))
        found = self._memo.get(key)
        if found is None:
            found = self._memo[key] = evaluate(formula, Trace.of(*calls))
        return found


class PositionEngine(_Declines):
    """The linear all-positions engine the scorer falls back to."""

    name = "position"

    def holds(self, formula: n.Formula, trace: Trace) -> bool:
        return PositionEvaluator(trace).holds(formula)


# ------------------------------------------------------------------ the automata


class AutomataEngine(_Declines):
    """The rule's compiled table: one pass with `verdict_on`, and a run stepped per prefix."""

    name = "automata"

    def __init__(self, tools: Mapping[str, ToolSignature] | None = None):
        super().__init__()
        self.tools = dict(tools or {})
        self._tables: dict[n.Formula, RuleTable | None] = {}

    def table(self, formula: n.Formula) -> RuleTable | None:
        if formula not in self._tables:
            try:
                self._tables[formula] = compile_rule(formula, self.tools).table
            except NotCompilable:
                self._tables[formula] = None
        return self._tables[formula]

    def holds(self, formula: n.Formula, trace: Trace) -> bool | None:
        table = self.table(formula)
        if table is None:
            return self.decline("not compiled")
        found = table.verdict_on(trace.calls, constants=Constants.of_trace(trace), sources=trace.globals.history)
        return self.decline("a call the alphabet cannot read") if found is None else found[0]

    def prefix_verdicts(self, formula: n.Formula, trace: Trace) -> list[PrefixVerdict] | None:
        """With the trace's request and metrics: the run's context, fed with each call."""
        table = self.table(formula)
        if table is None:
            return self.decline("not compiled")
        context = table.context(Constants.of_trace(trace), sources=trace.globals.history)
        run = table.start(context)
        out = [(run.accepting(), run.verdict())]
        try:
            for call in trace.calls:
                run.step(call.name, call.args, call.result)
                context.record(call.name, call.args, call.result)
                out.append((run.accepting(), run.verdict()))
        except AlphabetError:
            return self.decline("a call the alphabet cannot read")
        return out

    def bad_prefix(self, formula: n.Formula, trace: Trace) -> int | None:
        """`verdict_on`'s shortest bad prefix (None: none, or not compiled)."""
        table = self.table(formula)
        found = None if table is None else table.verdict_on(trace.calls, constants=Constants.of_trace(trace),
                                                            sources=trace.globals.history)
        return None if found is None else found[1]


# ------------------------------------------------------------------ the scorer and the runtime


class ScorerEngine(_Declines):
    """`score_trace` on the compiled one-rule policy, as `policyc score` runs it."""

    name = "scorer"

    def __init__(self, tools: Mapping[str, ToolSignature]):
        super().__init__()
        self.tools = dict(tools)
        self._compiled: dict[n.Formula, CompiledPolicy] = {}

    def holds(self, formula: n.Formula, trace: Trace) -> bool:
        compiled = self._compiled.get(formula)
        if compiled is None:
            compiled = self._compiled[formula] = compile_policy(one_rule_policy(formula, self.tools))
        (result,) = score_trace(compiled, trace).constraints
        return result.passed


class RuntimeEngine(_Declines):
    """A `Monitor` loaded from the one-rule policy's artifact text, as a deployed gate is."""

    name = "runtime"
    RULE = "rule"

    def __init__(self, tools: Mapping[str, ToolSignature]):
        super().__init__()
        self.tools = dict(tools)
        self._monitors: dict[n.Formula, Monitor] = {}

    def monitor(self, formula: n.Formula) -> Monitor:
        monitor = self._monitors.get(formula)
        if monitor is None:
            artifact = build_artifact(one_rule_policy(formula, self.tools, self.RULE))
            monitor = self._monitors[formula] = Monitor(parse_artifact(dump_artifact(artifact)))
        return monitor

    def _run(self, formula: n.Formula, trace: Trace, after_each: Callable[[Run], None] | None = None) -> Run | None:
        """A tolerate-mode run with the trace's calls recorded (None: it cannot hold them),
        started with the trace's request and metrics."""
        run = self.monitor(formula).start(mode="tolerate", request=trace.request, metrics=dict(trace.metrics))
        if after_each is not None:
            after_each(run)
        for call in trace.calls:
            if run.ended:
                return self.decline("a call after a terminal call")
            run.record(call.name, call.args, call.result, actor=call.actor, message_id=call.message_id,
                       error=call.error)
            if after_each is not None:
                after_each(run)
        if trace_key(run.trace) != trace_key(trace):
            return self.decline("a result the run reads differently")
        return run

    def holds(self, formula: n.Formula, trace: Trace) -> bool | None:
        """`finish()`'s verdict, which the monitor's offline stepping (`Monitor.verdicts`) must share."""
        run = self._run(formula, trace)
        if run is None:
            return None
        (result,) = run.finish().constraints
        if self.monitor(formula).verdicts(run.trace)[self.RULE] != result.passed:
            raise EngineError(f"Monitor.verdicts and finish() differ on {formula}")
        return result.passed

    def prefix_verdicts(self, formula: n.Formula, trace: Trace) -> list[PrefixVerdict] | None:
        monitor = self.monitor(formula)
        if monitor.compiled.table(self.RULE) is None:
            return self.decline("not tracked by the gate")
        if trace.request is None and "request" in constant_groups(formula):  # provenance reads it too
            # a run without a request judges by every request it could have (free input), where
            # the evaluator reads none: `test_free_constants` checks that case
            return self.decline("a request the run was not given")
        out: list[PrefixVerdict] = []

        def read_verdict(run: Run) -> None:
            verdict, accepting = monitor.gate.verdicts(run.state.gate)[self.RULE]
            out.append((accepting, verdict))

        if self._run(formula, trace, read_verdict) is None:
            return None
        if any(verdict == "untracked" for _, verdict in out):  # a call its automaton cannot read
            return self.decline("a call the gate cannot read")
        return out


# ------------------------------------------------------------------ Z3


class SmtEngine(_Declines):
    """The Z3 encoding over `len(trace) + spare` symbolic positions, pinned to the trace:
    the formula holds when its encoding must be true, fails when it must be false."""

    name = "smt"

    def __init__(self, tools: Mapping[str, ToolSignature], spare: int = 1, coded_strings: bool = False):
        super().__init__()
        self.tools = dict(tools)
        self.spare = spare
        self.coded_strings = coded_strings

    def misfit(self, trace: Trace) -> str | None:
        """Why the symbolic traces over the signatures cannot hold this one (None: they can)."""
        if any(f.severity == "error" or f.stage == "result" for f in check_trace(trace, self.tools)):
            return "a call that does not fit its signature"
        for call in trace.calls[:-1]:
            if self.tools[call.name].terminal:
                return "a call after a terminal call"
        if any(c.result is UNDEF and self.tools[c.name].result is not ANY for c in trace.calls):
            return "a typed result missing"
        return None

    def holds(self, formula: n.Formula, trace: Trace) -> bool | None:
        misfit = self.misfit(trace)
        if misfit is not None:
            return self.decline(misfit)
        enc = FormulaEncoder(SymbolicTrace(self.tools, len(trace) + self.spare, coded_strings=self.coded_strings))
        try:
            truth = enc.holds(formula, 0)
            pinned = pin_trace(enc.trace, trace)
        except NeedsStrings:
            return self.decline("needs real strings")
        if enc.approx:
            return self.decline("approximated")
        solver = z3.Solver()
        solver.add(*enc.trace.constraints, *pinned)
        can_hold, can_fail = solver.check(truth), solver.check(z3.Not(truth))
        if z3.unknown in (can_hold, can_fail):
            return self.decline("solver unknown")
        if (can_hold == z3.sat) == (can_fail == z3.sat):
            raise EngineError(f"the pinned trace leaves {formula} {'undetermined' if can_hold == z3.sat else 'unsatisfiable'}")
        return can_hold == z3.sat


def every_engine(tools: Mapping[str, ToolSignature], spare: int = 1) -> list[Engine]:
    """The six engines over one tool catalogue, the reference first."""
    return [ReferenceEngine(), PositionEngine(), AutomataEngine(tools), ScorerEngine(tools),
            RuntimeEngine(tools), SmtEngine(tools, spare)]


def some_continuation_satisfies(reference: ReferenceEngine, formulas, prefix: list, continuations) -> bool:
    """Brute force: does some continuation (lists of call tuples) satisfy every formula?"""
    return any(all(reference.holds_on(f, prefix + w) for f in formulas) for w in continuations)
