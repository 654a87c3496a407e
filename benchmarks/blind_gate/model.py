"""Hand-written monitors for the rules of a scenario, independent of policyc.

A rule is a small monitor with a hashable state: `step(state, call[, value])` gives the state
after one more call, `ok(state)` says whether a run ending here satisfies the rule, `dead(state)`
whether no continuation can (a sink: only states that are violated for good say so).

Global rules see every call. A per-value rule ("for every order o ...") runs one instance per
value of its sort; `named(call)` gives the values a call names for it, and an instance is stepped
when its value is named, or by any call to one of `all_tools` (patterns without the value, e.g.
`transfer_to_human` discharging every ticket's obligation). An instance for a value no call named
is in the initial state, which accepts: every per-value rule here is universally quantified, as
the policies' implicit variables are.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable


@dataclass(frozen=True)
class Call:
    tool: str
    args: dict
    result: Any = None


def _true(call: Call) -> bool:
    return True


@dataclass(frozen=True)
class Pat:
    """An event pattern: `tool`, a condition on the call, and, in per-value rules, where the value sits."""

    tool: str
    cond: Callable[[Call], bool] = _true
    key: Callable[[Call], Any] | None = None

    def holds(self, call: Call, value: Any = None) -> bool:
        if call.tool != self.tool:
            return False
        if self.key is not None and self.key(call) != value:
            return False
        return bool(self.cond(call))


def arg(name: str) -> Callable[[Call], Any]:
    return lambda c: c.args.get(name)


def res(name: str) -> Callable[[Call], Any]:
    return lambda c: c.result.get(name) if isinstance(c.result, dict) else None


def any_of(pats: list[Pat], call: Call, value: Any = None) -> bool:
    return any(p.holds(call, value) for p in pats)


class Rule:
    name = ""
    sort: str | None = None       # None: a global rule
    init: Any = 0
    pats: list[Pat] = []

    def __init__(self, name: str):
        self.name = name
        self.tools = frozenset(p.tool for p in self.pats)
        self.all_tools = frozenset(p.tool for p in self.pats if p.key is None) if self.sort else self.tools
        self.key_tools = {}
        for p in self.pats:
            if p.key is not None:
                self.key_tools.setdefault(p.tool, []).append(p.key)

    def begin(self, request: str):
        """The state before the first call; a rule that reads the request text starts from it."""
        return self.init

    def named(self, call: Call) -> set:
        return {v for k in self.key_tools.get(call.tool, ()) if (v := k(call)) is not None}

    def step(self, s, call: Call, value: Any = None):  # pragma: no cover - every rule defines it
        raise NotImplementedError

    def ok(self, s) -> bool:
        return s == 0

    def dead(self, s) -> bool:
        return False


class Never(Rule):
    """never(p): 0 fine, 1 violated."""

    def __init__(self, name: str, *pats: Pat, sort: str | None = None):
        self.pats, self.sort = list(pats), sort
        super().__init__(name)

    def step(self, s, call, value=None):
        return 1 if s or any_of(self.pats, call, value) else 0

    def dead(self, s):
        return s == 1


class Cap(Rule):
    """called_n(p) <= n: the count, saturated at n + 1."""

    def __init__(self, name: str, n: int, *pats: Pat, sort: str | None = None):
        self.pats, self.sort, self.n = list(pats), sort, n
        super().__init__(name)

    def step(self, s, call, value=None):
        return min(s + 1, self.n + 1) if any_of(self.pats, call, value) else s

    def ok(self, s):
        return s <= self.n

    def dead(self, s):
        return s > self.n


class Requires(Rule):
    """always (trigger -> once past): bit 1 past seen, bit 2 violated."""

    def __init__(self, name: str, trigger: list[Pat], past: list[Pat], sort: str | None = None):
        self.trigger, self.past, self.sort = trigger, past, sort
        self.pats = trigger + past
        super().__init__(name)

    def step(self, s, call, value=None):
        if s & 2:
            return s
        if s & 1 == 0 and any_of(self.past, call, value):
            s |= 1
        if s & 1 == 0 and any_of(self.trigger, call, value):
            return s | 2
        return s

    def ok(self, s):
        return s & 2 == 0

    def dead(self, s):
        return s & 2 != 0


class Response(Rule):
    """always (trigger -> eventually target): 1 while an obligation is pending."""

    def __init__(self, name: str, trigger: list[Pat], target: list[Pat], sort: str | None = None):
        self.trigger, self.target, self.sort = trigger, target, sort
        self.pats = trigger + target
        super().__init__(name)

    def step(self, s, call, value=None):
        if any_of(self.target, call, value):
            return 0
        return 1 if s or any_of(self.trigger, call, value) else 0


class ThenNever(Rule):
    """always (trigger -> always not forbidden): 1 armed, 2 violated."""

    def __init__(self, name: str, trigger: list[Pat], forbidden: list[Pat], sort: str | None = None):
        self.trigger, self.forbidden, self.sort = trigger, forbidden, sort
        self.pats = trigger + forbidden
        super().__init__(name)

    def step(self, s, call, value=None):
        if s == 2:
            return 2
        armed = s == 1 or any_of(self.trigger, call, value)
        if armed and any_of(self.forbidden, call, value):
            return 2
        return 1 if armed else 0

    def ok(self, s):
        return s != 2

    def dead(self, s):
        return s == 2


class Eventually(Rule):
    """eventually p: 1 once p happened (the initial state does not accept)."""

    init = 0

    def __init__(self, name: str, *pats: Pat):
        self.pats = list(pats)
        super().__init__(name)

    def step(self, s, call, value=None):
        return 1 if s or any_of(self.pats, call) else 0

    def ok(self, s):
        return s == 1


class Custom(Rule):
    """A rule written out by hand: step, ok and dead given as functions."""

    def __init__(self, name: str, pats: list[Pat], step, ok, dead=lambda s: False, init=0,
                 sort: str | None = None):
        self.pats, self.sort, self.init = pats, sort, init
        self._step, self._ok, self._dead = step, ok, dead
        super().__init__(name)

    def step(self, s, call, value=None):
        return self._step(s, call, value)

    def ok(self, s):
        return self._ok(s)

    def dead(self, s):
        return self._dead(s)


@dataclass
class Rules:
    """The rules of one policy, split into global rules and per-value rules by sort."""

    rules: list[Rule]
    sorts: tuple[str, ...] = field(init=False)
    glob: list[Rule] = field(init=False)
    per: dict[str, list[Rule]] = field(init=False)

    def __post_init__(self):
        self.glob = [r for r in self.rules if r.sort is None]
        self.sorts = tuple(sorted({r.sort for r in self.rules if r.sort}))
        self.per = {s: [r for r in self.rules if r.sort == s] for s in self.sorts}
        self.profile0 = {s: tuple(r.init for r in self.per[s]) for s in self.sorts}
