"""Symbolic traces: every trace of at most `k` calls over the declared tools, as Z3 terms.

Position i holds a call when `live[i]`; live positions form a prefix, so the trace length
is the number of live positions. `tool[i]` is a constant of the tool enumeration sort.
Arguments and results are typed constants created on demand, one per (position, tool,
argument path): a formula that never reads `refund.amount` adds no variable for it.
Each created value brings its own well-formedness constraints (enum members, list lengths
within the list bound, distinct dict keys), collected in `constraints`.

A terminal tool ends the run: it may only be the last call of a trace. The trace is one of
the policy's view (`policyc.trace.model.Trace.observed`): an event's actor is one the view
can have (`view_actors`: a tool call is the agent's unless the policy observes the user's
calls), and the user's request, like the metrics, may be absent.

>>> from policyc.ir.types import ToolSignature, Param, INT
>>> t = SymbolicTrace({"a": ToolSignature("a", (Param("x", INT),), INT)}, 2)
>>> t.arg(0, "a", "x").kind, len(t.live)
('int', 2)
"""

from __future__ import annotations

import copy
import threading
from contextlib import contextmanager
from typing import Iterator, Mapping

import z3

from policyc.ir.types import (
    ANY,
    ATTRIBUTE_TYPES,
    BOOL,
    MESSAGE_SIGNATURE,
    REQUEST_TYPE,
    FLOAT,
    INT,
    NULL,
    STR,
    DictT,
    EnumT,
    ListT,
    OptionalT,
    RecordT,
    ToolSignature,
    Type,
)
from policyc.trace.model import view_actors
from policyc.smt.values import FALSE, SORTS, TRUE, Dyn, NeedsStrings, SymValue, undefined

RESULT = "<result>"
ATTRIBUTE = "@"  # the slot of an event attribute: "@actor", "@message_id", "@error"


class EncodingTooLarge(Exception):
    """An encoding outgrew the work it was allowed (`SymbolicTrace.work_limit`)."""


class _Counting(threading.local):
    """Per thread, the traces whose encodings are being counted (`counted`), innermost last."""

    def __init__(self) -> None:
        self.traces: list[SymbolicTrace] = []


_COUNTING = _Counting()
_PLAIN_INIT = z3.AstRef.__init__
_PATCH_LOCK = threading.Lock()
_PATCHED = [0]  # threads counting now: z3's constructor is wrapped while one is


def _counted_init(self, ast, ctx=None) -> None:
    _PLAIN_INIT(self, ast, ctx)
    traces = _COUNTING.traces
    if traces:
        traces[-1].tick()


@contextmanager
def counted(trace: "SymbolicTrace") -> Iterator[None]:
    """Count, in `trace.work`, the Z3 terms made while the block runs (an encoding's cost is
    the number of terms it makes, a few microseconds each, whatever their shape); beyond
    `trace.work_limit` the block is stopped with `EncodingTooLarge`. z3py makes one Python
    object per term it hands back, so the count is taken there, for this thread's encoding
    only (other threads' terms are not counted against it).

    >>> t = SymbolicTrace({}, 2)
    >>> with counted(t):
    ...     _ = z3.And(t.live[0], t.live[1])
    >>> t.work > 0
    True
    """
    traces = _COUNTING.traces
    traces.append(trace)
    if len(traces) == 1:
        with _PATCH_LOCK:
            _PATCHED[0] += 1
            z3.AstRef.__init__ = _counted_init
    try:
        yield
    finally:
        traces.pop()
        if not traces:
            with _PATCH_LOCK:
                _PATCHED[0] -= 1
                if not _PATCHED[0]:
                    z3.AstRef.__init__ = _PLAIN_INIT


def tool_sort(tools: tuple[str, ...]) -> tuple[z3.SortRef, dict[str, z3.ExprRef]]:
    """The enumeration sort of a tool set (one per distinct set, shared by every query)."""
    cached = SORTS.get(tools)
    if cached is None:
        name = f"Tool{len(SORTS)}"
        sort, consts = z3.EnumSort(name, [f"{name}.{t}" for t in tools] or [f"{name}.none"])
        cached = SORTS[tools] = (sort, dict(zip(tools, consts)))
    return cached


class SymbolicTrace:
    """The calls of a symbolic trace of at most `k` positions."""

    def __init__(self, tools: Mapping[str, ToolSignature], k: int, list_bound: int = 3, name: str = "t",
                 coded_strings: bool = False, observes: frozenset[str] = frozenset(),
                 skeleton: tuple[str, ...] | None = None):
        """`skeleton`: the tool of each position, fixed (then the trace has exactly that many
        calls, and an encoding leaves out every pattern of another tool at a position)."""
        self.signatures = dict(tools)
        self.skeleton = skeleton
        self.observes = frozenset(observes)
        self.coded_strings = coded_strings
        self.codes: dict[str, int] = {}
        self.k = k
        self.list_bound = list_bound
        self.name = name
        self.sort, self.tool_consts = tool_sort(tuple(sorted(self.signatures)))
        if skeleton is not None:
            k = self.k = len(skeleton)
            self.live = [TRUE] * k
            self.tool = [self.tool_consts[t] for t in skeleton]
        else:
            self.live = [z3.Bool(f"{name}.live{i}") for i in range(k)]
            self.tool = [z3.Const(f"{name}.tool{i}", self.sort) for i in range(k)]
        self.constraints: list[z3.BoolRef] = []
        self.used_lists = False
        self._values: dict = {}
        self.metrics: dict[tuple, SymValue] = {}  # the metrics values some formula read, by path
        self.request_value: SymValue | None = None  # the user's request, once some formula read it
        #: per text function applied (`lower`, `upper`, `strip`): "its argument is a text it
        #: leaves unchanged", which a witness may be asked to meet (`PolicySolver.require_plain_texts`)
        self.plain_texts: list[z3.BoolRef] = []
        #: per provenance condition `x from S` read at a call: "it holds only where an earlier
        #: source shows the value", which a witness may be asked to meet (`PolicySolver.require_sourced`)
        self.sourced: list[z3.BoolRef] = []
        #: Z3 terms made by encodings counted so far (`counted`), and how many may be (None:
        #: no limit): the encoding of a formula over k positions grows with k, often faster
        self.work = 0
        self.work_limit: int | None = None
        for i in range(1, k if skeleton is None else 0):
            self.constraints.append(z3.Implies(self.live[i], self.live[i - 1]))
        for name_, sig in self.signatures.items() if skeleton is None else ():
            if sig.terminal:
                for i in range(k - 1):
                    self.constraints.append(z3.Implies(self.tool[i] == self.tool_consts[name_],
                                                       z3.Not(self.live[i + 1])))

    def derive(self) -> "SymbolicTrace":
        """A copy that shares every value created so far and creates its own from now on (so
        that encodings built on a common base do not see one another)."""
        child = copy.copy(self)
        child.codes = dict(self.codes)
        child.constraints = list(self.constraints)
        child.plain_texts = list(self.plain_texts)
        child.sourced = list(self.sourced)
        child._values = dict(self._values)
        child.metrics = dict(self.metrics)
        child.work, child.work_limit = 0, None
        return child

    def tick(self) -> None:
        """Count one term made; `EncodingTooLarge` beyond `work_limit`."""
        self.work += 1
        if self.work_limit is not None and self.work > self.work_limit:
            raise EncodingTooLarge(self.work)

    # ------------------------------------------------------------ positions

    def is_live(self, i: int) -> z3.BoolRef:
        return self.live[i] if 0 <= i < self.k else FALSE

    def is_call(self, i: int, tool: str) -> z3.BoolRef:
        """Position i holds a call to `tool`."""
        if not 0 <= i < self.k or tool not in self.tool_consts:
            return FALSE
        if self.skeleton is not None:
            return TRUE if self.skeleton[i] == tool else FALSE
        return z3.And(self.live[i], self.tool[i] == self.tool_consts[tool])

    def length_at_most(self, m: int) -> z3.BoolRef:
        return z3.Not(self.live[m]) if 0 <= m < self.k else TRUE

    # ------------------------------------------------------------ data

    def code(self, text: str) -> int:
        """The integer that stands for a string when strings are coded."""
        if text not in self.codes:
            self.codes[text] = len(self.codes)
        return self.codes[text]

    def text_of(self, code: int) -> str:
        """The string a code stands for; other integers are fresh strings, distinct from all."""
        for text, c in self.codes.items():
            if c == code:
                return text
        fresh = f"s{code}"
        while fresh in self.codes:
            fresh += "'"
        return fresh

    def string(self, text: str) -> z3.ExprRef:
        return z3.IntVal(self.code(text)) if self.coded_strings else z3.StringVal(text)

    def arg(self, i: int, tool: str, name: str) -> SymValue:
        sig = self.signatures.get(tool)
        param = sig.param(name) if sig else None
        if param is None:
            return undefined()
        return self._slot(i, tool, name, param.type, optional_missing=True)

    def result(self, i: int, tool: str) -> SymValue:
        sig = self.signatures.get(tool)
        if sig is None:
            return undefined()
        return self._slot(i, tool, RESULT, sig.result, optional_missing=sig.result is ANY)

    def attribute(self, i: int, tool: str, name: str) -> SymValue:
        """An attribute of the event at position i (`actor`, `message_id`, `error`): a value of
        its type per call, as free as an argument (`ATTRIBUTE_TYPES`); an optional one may
        also be missing (a message id the event does not have)."""
        kind = ATTRIBUTE_TYPES.get(name)
        if kind is None or tool not in self.signatures:
            return undefined()
        key = (i, tool, ATTRIBUTE + name)
        fresh = key not in self._values
        value = self._slot(i, tool, ATTRIBUTE + name, kind, optional_missing=isinstance(kind, OptionalT))
        if fresh and name == "actor" and value.value is not None:
            actors = view_actors(self.signatures[tool] == MESSAGE_SIGNATURE, self.observes)
            self.constraints.append(z3.Or([value.value == self.string(a) for a in actors]))
        return value

    def metric(self, path: tuple) -> SymValue:
        """A value of the run's metrics record: a free input of the trace (any JSON value, or
        absent), the same wherever a formula reads it."""
        value = self.metrics.get(path)
        if value is None:
            name = f"{self.name}.metrics." + ".".join(map(str, path))
            v = z3.Const(name, Dyn)
            value = self.metrics[path] = SymValue("dyn", z3.Bool(name + "?def"), Dyn.is_d_null(v), v)
        return value

    def request(self) -> SymValue:
        """The user's request, `{"text": ...}` or absent (a log without it): a free input of
        the trace, the same wherever a formula reads it."""
        if self.request_value is None:
            name = f"{self.name}.request"
            self.request_value = self._make(name, REQUEST_TYPE, z3.Bool(f"{name}?present"), False)
        return self.request_value

    def plain_strings(self, text: str = "") -> list[z3.BoolRef]:
        """"Every string value read so far is `text`": the simplest story, which lets a model
        that over-approximates the text functions (`entities`) replay."""
        out: list[z3.BoolRef] = []
        empty = self.string(text)

        def walk(v: SymValue) -> None:
            if v.kind == "str" and v.value is not None and v.value.sort() == empty.sort():
                out.append(v.value == empty)
            for item in v.items:
                walk(item)
            for _, f in v.fields:
                walk(f)

        for value in list(self._values.values()):
            walk(value)
        return out

    def created_slots(self, i: int, tool: str) -> dict[str, SymValue]:
        """The argument and result values of a call that some formula has read."""
        return {root: v for (p, t, root), v in self._values.items() if p == i and t == tool}

    def _slot(self, i: int, tool: str, root: str, type_: Type, optional_missing: bool) -> SymValue:
        key = (i, tool, root)
        value = self._values.get(key)
        if value is None:
            prefix = f"{self.name}.{i}.{tool}.{root}"
            value = self._make(prefix, type_, TRUE, optional_missing)
            self._values[key] = value
        return value

    def _make(self, name: str, t: Type, parent: z3.BoolRef, may_miss: bool) -> SymValue:  # noqa: C901
        """A fresh value of type `t`, defined when `parent` is (and, if optional, present)."""
        defined = parent
        null = FALSE
        if isinstance(t, OptionalT) or (t is ANY and may_miss):
            if may_miss:
                defined = z3.And(parent, z3.Bool(f"{name}?def"))
            if isinstance(t, OptionalT):
                null = z3.Bool(f"{name}?null")
                t = t.inner
        if t is INT:
            return SymValue("int", defined, null, z3.Int(name))
        if t is FLOAT:
            return SymValue("real", defined, null, z3.Real(name))
        if t is STR:
            return SymValue("str", defined, null, z3.Int(name) if self.coded_strings else z3.String(name))
        if isinstance(t, EnumT):
            v = z3.Int(name) if self.coded_strings else z3.String(name)
            self.constraints.append(z3.Or([v == self.string(m) for m in t.members]))
            return SymValue("str", defined, null, v)
        if t is BOOL:
            return SymValue("bool", defined, null, z3.Bool(name))
        if t is NULL:
            return SymValue("null", defined, TRUE)
        if isinstance(t, RecordT):
            live = z3.And(defined, z3.Not(null))
            fields = tuple((f, self._make(f"{name}.{f}", ft, live, True)) for f, ft in t.fields)
            return SymValue("record", defined, null, fields=fields)
        if isinstance(t, ListT):
            self.used_lists = True
            length = z3.Int(f"{name}#len")
            self.constraints.append(z3.And(length >= 0, length <= self.list_bound))
            live = z3.And(defined, z3.Not(null))
            items = tuple(self._make(f"{name}[{j}]", t.elem, z3.And(live, j < length), False)
                          for j in range(self.list_bound))
            return SymValue("list", defined, null, items=items, length=length)
        if isinstance(t, DictT):
            if self.coded_strings:
                raise NeedsStrings()
            self.used_lists = True
            length = z3.Int(f"{name}#len")
            self.constraints.append(z3.And(length >= 0, length <= self.list_bound))
            live = z3.And(defined, z3.Not(null))
            keys = tuple(z3.String(f"{name}#key{j}") for j in range(self.list_bound))
            self.constraints.append(z3.Distinct(*keys) if len(keys) > 1 else TRUE)
            items = tuple(self._make(f"{name}[{j}]", t.value, z3.And(live, j < length), False)
                          for j in range(self.list_bound))
            return SymValue("dict", defined, null, items=items, length=length, keys=keys)
        # any (and anything the model does not type): an untyped JSON value
        v = z3.Const(name, Dyn)
        return SymValue("dyn", defined, z3.Or(null, Dyn.is_d_null(v)), v)
