"""One way to walk the IR: a table from the kinds of node to what a pass does with each.

A pass over the IR (the printer, term evaluation, the reference evaluator, the solver
encodings) keeps its cases in a `Cases` table: one handler per kind of node, registered with
`@cases.on(n.Until)`, and checked against the node definitions (`nodes.TERMS`,
`nodes.FORMULAS`) once the table is filled. A kind of node added to the IR and forgotten by
a pass fails as that pass is imported, not on the first formula that uses it. Dispatch is one
dictionary look-up on the node's class (`cases[type(node)](node, ...)`), where a chain of
`isinstance` tests makes one test per kind before the match.

>>> from policyc.ir import build as b
>>> from policyc.ir import nodes as n
>>> temporal: Cases[Callable[[n.Formula], bool]] = Cases("temporal", n.FORMULAS, default=lambda f: False)
>>> @temporal.on(n.Next, n.WNext, n.Until, n.Release, n.Yesterday, n.WYesterday, n.Since, n.Trigger)
... def _temporal(f: n.Formula) -> bool:
...     return True
>>> temporal = temporal.complete()
>>> [temporal[type(f)](f) for f in (b.eventually(b.event("a")), b.event("a"))]
[True, False]
>>> temporal[n.Lit]
Traceback (most recent call last):
...
TypeError: temporal: a Lit is not among the nodes it takes
"""

from __future__ import annotations

from typing import Any, Callable, Generic, Iterable, TypeVar

from policyc.ir.nodes import Node

H = TypeVar("H", bound=Callable[..., Any])
F = TypeVar("F", bound=Callable[..., Any])


class Cases(dict[type[Node], H], Generic[H]):
    """A pass's handlers by kind of node. `kinds` are the nodes the pass takes; `default`, when
    given, handles those without a case of their own (a pass that treats most nodes alike)."""

    __slots__ = ("name", "kinds", "default")

    def __init__(self, name: str, kinds: Iterable[type[Node]], default: H | None = None):
        super().__init__()
        self.name = name
        self.kinds = tuple(kinds)
        self.default = default

    def on(self, *kinds: type[Node]) -> Callable[[F], F]:
        """Register the decorated function as the case of these kinds of node."""

        def register(handler: F) -> F:
            for kind in kinds:
                if kind in self:
                    raise TypeError(f"{self.name}: two cases for {kind.__name__}")
                self[kind] = handler  # type: ignore[assignment]  # F is the handler type H names
            return handler

        return register

    def complete(self) -> Cases[H]:
        """The table, once every kind it takes has a case (or the default)."""
        missing = [k for k in self.kinds if k not in self]
        if missing and self.default is None:
            raise TypeError(f"{self.name}: no case for " + ", ".join(k.__name__ for k in missing))
        for kind in missing:
            self[kind] = self.default  # type: ignore[assignment]  # not None, as just checked
        strays = [k for k in self if k not in self.kinds]
        if strays:
            raise TypeError(f"{self.name}: cases for nodes it does not take: " + ", ".join(k.__name__ for k in strays))
        return self

    def __missing__(self, kind: type[Node]) -> H:
        raise TypeError(f"{self.name}: a {kind.__name__} is not among the nodes it takes")


__all__ = ["Cases"]
