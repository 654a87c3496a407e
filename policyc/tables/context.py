"""What a compiled rule reads besides the current call: the run's constants and its history.

`request.text` and `metrics.*` are the same at every position of a run: they are the run's
*constants*. A run knows them when it is started with them (`Monitor.start(request=...,
metrics=...)`), and a complete trace carries them (a trace without a request has none: ⊥);
a gate started without them does not know them, and then they are *free inputs*: a compiled
rule is judged by every value they could take (its free variant, `DfaTable.initial`), never
refused for one it might not have.

History atoms (`n.Earlier`) ask about earlier calls; a run keeps one store per atom
(`policyc.tables.earlier`), fed by every call it records (`RunContext.record`).

A `RunContext` is what the compiled tables are read with: term closures find the constants
and the stores through `env.globals` (it answers `request()`, `metric(path)` and
`earlier(atom, value)`, as a trace's globals answer the first two).

This module imports only the standard library and `policyc.ir`.

>>> from policyc.ir import build as b
>>> context = RunContext(Constants.given(request="pay my rent"))
>>> from policyc.ir.closures import compile_term
>>> asks = compile_term(b.op("contains", b.field(b.request(), "text"), b.lit("rent")))
>>> asks(context.env, None, None), context.knows(frozenset({"request"})), context.knows(frozenset({"metrics"}))
(True, True, False)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping

from policyc.ir import nodes as n
from policyc.ir.data import DataEnv, path_value
from policyc.ir.ops import UNDEF

from policyc.tables.earlier import EarlierStore, HistoryPlan, earlier_atoms


class _Unknown:
    """A run constant the run was not given: a free input."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "<unknown>"


UNKNOWN: Any = _Unknown()


@dataclass(frozen=True)
class Constants:
    """The run's constants: the request as a record (`{"text": ...}`, ⊥ when there is none)
    and the metrics record, each UNKNOWN when the run was not given it."""

    request: object = UNKNOWN
    metrics: object = UNKNOWN

    @classmethod
    def given(cls, request: object = UNKNOWN, metrics: object = UNKNOWN) -> "Constants":
        """From what a gate was started with: the request's text (None: none was given, so it
        is unknown; UNDEF: the run has none) and the metrics record (None: unknown)."""
        return cls(UNKNOWN if request is None or request is UNKNOWN else UNDEF if request is UNDEF
                   else {"text": request},
                   UNKNOWN if metrics is None or metrics is UNKNOWN else dict(metrics))  # type: ignore[call-overload]

    @classmethod
    def of_trace(cls, trace: Any) -> "Constants":
        """A complete trace's: its request (⊥ when it records none) and its metrics."""
        return cls(UNDEF if trace.request is None else {"text": trace.request}, dict(trace.metrics))

    def knows(self, groups: Iterable[str]) -> bool:
        """Whether these constants ("request", "metrics") are all known."""
        for group in groups:
            if (self.request if group == "request" else self.metrics) is UNKNOWN:
                return False
        return True


NO_CONSTANTS = Constants()


def same_call(one: Mapping[str, Any], other: Mapping[str, Any]) -> bool:
    """Whether two calls' arguments (and event attributes) are the same."""
    return one is other or one == other and getattr(one, "attrs", None) == getattr(other, "attrs", None)


class RunContext:
    """One run's constants and history stores, as the compiled tables read them."""

    __slots__ = ("constants", "env", "stores", "by_tool", "memo", "proposed", "sources", "position")

    def __init__(self, constants: Constants = NO_CONSTANTS, history: HistoryPlan | None = None,
                 externs: Mapping[str, Callable[..., object]] | None = None,
                 sources: Callable[[int], Any] | None = None):
        self.constants = constants
        # what provenance (`from`, `flows`) reads: the sources known at a position of the run
        # (`policyc.trace.sources`, or a gated run's index), and the position of the call read
        self.sources = sources
        self.position = 0
        self.memo: dict[n.Node, Any] = {}  # terms on the constants alone, computed once per run (`lower(request.text)`)
        # (tool, arguments, the truth of the atoms known before the call ran) of the last
        # proposal, which the call's record reuses (nothing can change them in between)
        self.proposed: tuple[str, Mapping[str, Any], int] | None = None
        self.env = DataEnv({}, None, UNDEF, self, dict(externs or {}), 0)  # type: ignore[arg-type]
        self.stores: dict[n.Earlier, EarlierStore] = history.stores() if history else {}
        self.by_tool: dict[str, tuple[EarlierStore, ...]] = {
            tool: tuple(self.stores[a] for a in atoms) for tool, atoms in history.by_tool.items()} if history else {}

    @classmethod
    def for_terms(cls, terms: Iterable[n.Node], constants: Constants = NO_CONSTANTS,
                  externs: Mapping[str, Callable[..., object]] | None = None) -> "RunContext":
        """A context with stores for every history atom inside these terms."""
        atoms = earlier_atoms(terms)
        return cls(constants, HistoryPlan(atoms) if atoms else None, externs)

    def knows(self, groups: Iterable[str]) -> bool:
        return self.constants.knows(groups)

    # ------------------------------------------------------------ what terms read

    def request(self) -> object:
        request = self.constants.request
        return UNDEF if request is UNKNOWN else request

    def metric(self, path: tuple[str | int, ...]) -> object:
        metrics = self.constants.metrics
        return UNDEF if metrics is UNKNOWN else path_value(metrics, path)

    def history(self, _position: int) -> Any:
        """The sources known before the call being read (provenance's question), at the run's
        current position (`position`; a gated run's index is always at its own)."""
        if self.sources is None:
            raise TypeError("provenance is read from a run's sources, and none were given")
        return self.sources(self.position)

    def earlier(self, atom: n.Earlier, value: object) -> bool:
        store = self.stores.get(atom)
        if store is None:
            raise KeyError(f"no history store for `{atom}`: the run's context was made for other tables")
        return store.holds(value, self.env)

    # ------------------------------------------------------------ the run goes on

    def record(self, tool: str, args: Mapping[str, Any], result: object) -> None:
        """A call ran (after the tables stepped on it: history atoms ask about earlier calls)."""
        self.proposed = None
        for store in self.by_tool.get(tool, ()):
            store.add(args, result, self.env)
        self.position += 1
