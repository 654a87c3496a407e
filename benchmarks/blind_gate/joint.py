"""Joint states of a set of rules, their canonical form, and the finite pool of calls.

The joint state of a run is the state of every global rule and, per sort of value (orders,
tickets, ...), the profile of every value: the states of that sort's per-value rules for it.
The rules name no value literally, so values of one sort are interchangeable: permuting them
maps runs to runs and every rule's verdict to itself. Two states with the same global part and
the same multiset of profiles per sort can therefore reach acceptance alike, and the search
works on that canonical form (`canon`).

The finite domain of a sort is the values the run has named plus `fresh` values no call named
yet (2 by default). Values whose profile is still the initial one are alike whether the run
named them or not, so `normalize` keeps exactly `fresh` of them: the search starts from there,
and a continuation can bring in at most `fresh` new values per sort.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from .model import Call, Rules


@dataclass(frozen=True)
class Key:
    """An argument or result field holding a value of a sort (an order id, a ticket id)."""

    sort: str


@dataclass(frozen=True)
class Tool:
    name: str
    args: dict        # argument -> Key or list of values (the continuation pool)
    result: dict | list | None = None   # field -> Key or values; a list: the results; None: nothing
    terminal: bool = False


class Joint:
    """Concrete joint states: (global states, {sort: {value: profile}})."""

    def __init__(self, rules: Rules, fresh: int = 2):
        self.rules, self.fresh = rules, fresh
        self.glob = rules.glob
        self.per = [(s, rules.per[s], rules.profile0[s]) for s in rules.sorts]
        self.names = frozenset(r.name for r in rules.rules)

    def start(self, request: str = ""):
        return tuple(r.begin(request) for r in self.glob), {s: {} for s in self.rules.sorts}

    def step(self, st, call: Call):
        g, per = st
        g = tuple(r.step(x, call) if call.tool in r.tools else x for r, x in zip(self.glob, g))
        new_per = {}
        for sort, rules, p0 in self.per:
            prof = per[sort]
            named = [r.named(call) if call.tool in r.tools else set() for r in rules]
            broad = [call.tool in r.all_tools for r in rules]
            if not any(named) and not any(broad):
                new_per[sort] = prof
                continue
            prof = dict(prof)
            for vals in named:
                for v in vals:
                    prof.setdefault(v, p0)
            for v, p in prof.items():
                js = [j for j in range(len(rules)) if broad[j] or v in named[j]]
                if js:
                    q = list(p)
                    for j in js:
                        q[j] = rules[j].step(q[j], call, v)
                    prof[v] = tuple(q)
            new_per[sort] = prof
        return g, new_per

    def ok(self, st) -> bool:
        return not self.failing(st)

    def dead(self, st) -> bool:
        g, per = st
        if any(r.dead(x) for r, x in zip(self.glob, g)):
            return True
        return any(r.dead(p[j]) for sort, rules, _ in self.per for p in per[sort].values()
                   for j, r in enumerate(rules))

    def dead_rules(self, st) -> list[str]:
        """The rules violated for good in this state."""
        g, per = st
        out = [r.name for r, x in zip(self.glob, g) if r.dead(x)]
        for sort, rules, _ in self.per:
            out += [r.name for j, r in enumerate(rules) if any(r.dead(p[j]) for p in per[sort].values())]
        return out

    def failing(self, st) -> list[str]:
        """The rules a run ending in this state fails."""
        g, per = st
        bad = [r.name for r, x in zip(self.glob, g) if not r.ok(x)]
        for sort, rules, _ in self.per:
            for j, r in enumerate(rules):
                if any(not r.ok(p[j]) for p in per[sort].values()):
                    bad.append(r.name)
        return bad

    def pending(self, st) -> int:
        """How many rule instances a run ending here fails: the search's guide, nothing more."""
        g, per = st
        n = sum(not r.ok(x) for r, x in zip(self.glob, g))
        return n + sum(not r.ok(p[j]) for sort, rules, _ in self.per for p in per[sort].values()
                       for j, r in enumerate(rules))

    def canon(self, st):
        g, per = st
        return g, tuple(tuple(sorted(per[sort].values())) for sort, _, _ in self.per)

    def normalize(self, st):
        """`st` with exactly `fresh` values of the initial profile per sort, named `sort~i`."""
        g, per = st
        out = {}
        for sort, _, p0 in self.per:
            prof = {v: p for v, p in per[sort].items() if p != p0}
            for i in range(self.fresh):
                prof[f"{sort}~{i}"] = p0
            out[sort] = prof
        return g, out

    def project(self, st, sub: Joint):
        """The state of the rules of `sub` (a subset of these rules) in the full state `st`."""
        g, per = st
        gi = {r.name: i for i, r in enumerate(self.glob)}
        sg = tuple(g[gi[r.name]] for r in sub.glob)
        sper = {}
        for sort, rules, _ in sub.per:
            idx = [next(j for j, r in enumerate(self.rules.per[sort]) if r.name == s.name) for s in rules]
            sper[sort] = {v: tuple(p[j] for j in idx) for v, p in per[sort].items()}
        return sg, sper


class Pool:
    """The calls a continuation may make from a state: every tool, every argument class, every result."""

    def __init__(self, tools: list[Tool]):
        self.tools = {t.name: t for t in tools}
        self.inner = [t for t in tools if not t.terminal]
        self.terminal = [t for t in tools if t.terminal]

    @staticmethod
    def classes(st, sort: str) -> list[str]:
        """One value per distinct profile of the sort among the state's values."""
        reps: dict = {}
        for v, p in st[1].get(sort, {}).items():
            reps.setdefault(p, v)
        return list(reps.values()) or [f"{sort}~0"]

    def domain(self, joint: Joint, st, spec: dict | None) -> list:
        if spec is None:
            return [None]
        if isinstance(spec, list):      # a result that is not a record: its values
            return spec
        names = list(spec)
        choices = [self.classes(st, d.sort) if isinstance(d, Key) else d for d in spec.values()]
        return [dict(zip(names, combo)) for combo in itertools.product(*choices)]

    def results(self, joint: Joint, st, tool: str) -> list:
        return self.domain(joint, st, self.tools[tool].result)

    def calls(self, joint: Joint, st, terminal: bool = False):
        for t in self.terminal if terminal else self.inner:
            results = self.domain(joint, st, t.result)
            for args in self.domain(joint, st, t.args):
                for r in results:
                    yield Call(t.name, args, r)
