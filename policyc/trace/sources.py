"""The sources of a trace, as provenance reads them: what the run was shown, and from when.

A trace's sources are the user's request, every message of the user and every call's result,
in the order the log recorded them (events a policy does not observe included: a message of
the user shows its text even to a policy that does not read messages). Each is known from a
position of the policy's view on: a call's result from the position after the call, any
other event from the next position of the view; the request from the start.

`TraceHistory(leaves, i)` answers the questions of `policyc.grounding.provenance` over the
sources known at position i, by the definition: each question scans their leaves.

>>> from policyc.trace.model import Call, Trace
>>> t = Trace.from_events((Call("message", {"text": "pay DE89 3704 0044 0532 0130 00"}, kind="message", actor="user"),
...                        Call("read_bill", {}, {"iban": "GB82 WEST 1234 5698 7654 32"}),
...                        Call("pay", {"iban": "GB82WEST12345698765432"})))
>>> [sorted(TraceHistory(trace_leaves(t), i).labels("GB82WEST12345698765432")) for i in (0, 1)]
[[], [('tool', 'read_bill', ('iban',))]]
>>> sorted(TraceHistory(trace_leaves(t), 0).labels("DE89370400440532013000"))
[('user', '', ())]
"""

from __future__ import annotations

from bisect import bisect_right
from typing import TYPE_CHECKING

from policyc.grounding.provenance import REQUEST, USER, Label, Leaf, SourceSet, flows, labels, leaves_of
from policyc.ir.ops import UNDEF

if TYPE_CHECKING:
    from policyc.trace.model import Trace


def source_events(trace: Trace) -> list[tuple[object, Label, int]]:
    """(content, label, known from) of every source of a trace, in the order they came."""
    positions = trace.event_positions
    out: list[tuple[object, Label, int]] = []
    if trace.request is not None:
        out.append((trace.request, REQUEST, 0))
    for k, event in enumerate(trace.events or ()):
        known = bisect_right(positions, k)
        if event.is_message:
            if event.actor == "user":
                out.append((event.args.get("text", ""), USER, known))
        elif event.result is not UNDEF:
            out.append((event.result, ("tool", event.name, ()), known))
    return out


def trace_leaves(trace: Trace) -> list[Leaf]:
    """Every leaf of a trace's sources (`policyc.grounding.provenance.leaves_of`)."""
    return [leaf for content, label, known in source_events(trace) for leaf in leaves_of(content, label, known)]


class TraceHistory:
    """The sources known at one position of a trace, read by the definition."""

    __slots__ = ("leaves",)

    def __init__(self, leaves: list[Leaf], position: int, visible: list[int] | None = None):
        """`visible`: each leaf's `visible_from`, when the leaves are in the order they became
        known (`trace_leaves`'s): those known at `position` are then a prefix."""
        if visible is None:
            self.leaves = [leaf for leaf in leaves if leaf.visible_from <= position]
        else:
            self.leaves = leaves[:bisect_right(visible, position)]

    def labels(self, value: object) -> set[Label] | None:
        if isinstance(value, bool) or not isinstance(value, (str, int, float)):
            return None
        return labels(value, self.leaves)

    def flows(self, sources: SourceSet, text: object, span: int) -> bool:
        return flows(sources, text, span, self.leaves)
