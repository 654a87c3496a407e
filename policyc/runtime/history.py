"""What a gated run has been shown, indexed as it is recorded: provenance and grounding at the
gate in time that follows the question, not the run.

Rules that read where a value came from (`from`, `flows`) or what results showed (`outputs`)
are decided by the reference evaluator at the gate (`judge_final`). Evaluated on the run as a
plain trace, each such question would read every result again at every call. A run of a
policy that asks them keeps a `RunIndex` instead, fed by `Run.record`:

- the sources (`policyc.grounding.sources.SourceIndex`): the request, the user's messages and
  every result, leaf by leaf, with the position of the run's view from which each is known;
- per `outputs(...)` selection the policy uses, the grounding set of those tools' results,
  built by the policy's extractor as results arrive (a set that sorts what it holds is
  settled then too), so a final answer is judged in time linear in the answer alone.

The trace the gate evaluates carries the index (`Trace.index`); `TraceGlobals` asks it first
and reads the trace itself only when the index does not cover it (another trace, or an
index past its size cap). The index is derived data: a snapshot does not hold it, and a
restored run rebuilds it from its calls the first time it is needed.

>>> from policyc.ir import build as b
>>> plan = IndexPlan.of([b.event("pay", b.from_(b.arg("iban"), "request", (("request", "", (), True),)))])
>>> index = RunIndex(plan, None)
>>> index.set_request("pay DE89 3704 0044 0532 0130 00")
>>> sorted(index.history(0, 0).labels("DE89370400440532013000"))
[('request', '', ())]
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable

from policyc.grounding.provenance import REQUEST, USER, Label, SourceSet, leaves_of
from policyc.grounding.sources import SourceIndex
from policyc.ir import nodes as n
from policyc.ir.ops import UNDEF
from policyc.ir.walk import subformulas
from policyc.trace.model import Call


@dataclass(frozen=True)
class IndexPlan:
    """What a policy's rules ask of a run's history: provenance (and the span lengths of its
    `flows`), and the tools of each `outputs(...)` they read (() for every tool)."""

    provenance: bool
    spans: tuple[int, ...]
    outputs: tuple[tuple[str, ...], ...]

    @classmethod
    def of(cls, formulas: Iterable[n.Formula]) -> "IndexPlan | None":
        """The plan of these rules (None: they ask nothing an index would answer)."""
        provenance, spans, outputs = False, set(), dict[tuple[str, ...], None]()
        for formula in formulas:
            for node in subformulas(formula):
                if isinstance(node, (n.From, n.Flows)):
                    provenance = True
                    if isinstance(node, n.Flows):
                        spans.add(node.span)
                elif isinstance(node, n.Outputs):
                    outputs[node.tools] = None
        if not provenance and not outputs:
            return None
        return cls(provenance, tuple(sorted(spans)), tuple(outputs))


class IndexHistory:
    """The sources known at one position of the run's view, read from the index."""

    __slots__ = ("index", "position")

    def __init__(self, index: SourceIndex, position: int):
        self.index = index
        self.position = position

    def labels(self, value: object) -> set[Label] | None:
        return self.index.labels(value, self.position)

    def flows(self, sources: SourceSet, text: object, span: int) -> bool:
        return self.index.flows(sources, text, span, self.position)


class RunIndex:
    """A run's sources and grounding sets, kept as its events are recorded."""

    def __init__(self, plan: IndexPlan, extractor: Any):
        self.plan = plan
        self.extractor = extractor
        self.sources = SourceIndex(plan.spans) if plan.provenance else None
        self.seen = {tools: extractor.seen() for tools in plan.outputs} if extractor is not None else {}
        self.events = 0  # events recorded
        self.view = 0  # events of the policy's view among them
        self.request: str | None = None

    def set_request(self, request: str | None) -> None:
        """The user's request (known from the start of the run)."""
        self.request = request
        if self.sources is not None:
            self.sources.fixed = [] if request is None else list(leaves_of(request, REQUEST, 0))

    def add(self, call: Call, observed: bool) -> None:
        """An event that happened: a source if it is a result or a user's message, a result
        of the view for the grounding sets."""
        self.events += 1
        if observed:
            self.view += 1
        if self.sources is not None:
            if call.is_message:
                if call.actor == "user":
                    self.sources.add(call.args.get("text", ""), USER, self.view)
            elif call.result is not UNDEF:
                self.sources.add(call.result, ("tool", call.name, ()), self.view)
        if observed and not call.is_message and call.result is not UNDEF:
            for tools, seen in self.seen.items():
                if not tools or call.name in tools:
                    seen.add_call(dict(call.args), call.result)
                    settle = getattr(seen, "settle", None)
                    if settle is not None:
                        settle()

    def covers(self, calls: int) -> bool:
        """Whether a trace of `calls` view events is this run so far, maybe with one proposed
        call after it (which has no result yet)."""
        return calls in (self.view, self.view + 1)

    def history(self, position: int, calls: int) -> IndexHistory | None:
        if self.sources is None or not self.sources.complete or not self.covers(calls):
            return None
        return IndexHistory(self.sources, position)

    def outputs(self, tools: tuple[str, ...], extractor: Any, calls: int) -> Any:
        if extractor is not self.extractor or tools not in self.seen or not self.covers(calls):
            return None
        return self.seen[tools]
