"""A small brute-force oracle for AgentLTL policies, written from the documentation alone.

Nothing here imports policyc. A policy's oracle (``oracle_<name>.py``) gives

- a finite *pool* of concrete events (calls with arguments, results, actor and error flag, and
  messages), chosen so that every literal the rules compare with is met on both sides;
- the *contexts*: the trace-wide inputs (the user's request, the metrics record);
- each rule twice: a plain check over a whole trace (the specification, written by hand from the
  rule's text), and a monitor (a small state machine) that the search runs.

The search enumerates the traces over the pool breadth first, one event per step, and merges two
prefixes when every rule's monitor is in the same state after them: the monitors are the
pruning. Every monitor is tested against its rule's trace check (all traces up to length 2, and
random traces), and every trace the search reports is checked again with the trace checks before
it is printed.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

DEAD = "X"  # the state of a monitor whose rule no continuation can satisfy any more


class Event:
    """One event of a trace: a call (of the agent or the user) or a message."""

    __slots__ = ("name", "args", "result", "actor", "error", "kind", "terminal", "note", "label")

    def __init__(self, name: str, args: dict[str, Any] | None = None, result: Any = None, *,
                 actor: str = "assistant", error: bool = False, kind: str = "call",
                 terminal: bool = False, note: str | None = None) -> None:
        self.name = name
        self.args = dict(args or {})
        self.result = result
        self.actor = actor
        self.error = error
        self.kind = kind
        self.terminal = terminal
        self.note = note  # what the result says, as far as the rules care
        self.label = self.describe()

    def describe(self) -> str:
        if self.kind == "message":
            text = self.args.get("text", "")
            short = text if len(text) <= 28 else text[:25] + "..."
            return f"message[{self.actor}]({short!r}, calls={len(self.args.get('calls', []))})"
        args = ", ".join(f"{k}={v!r}" for k, v in self.args.items())
        extra = []
        if self.actor != "assistant":
            extra.append(self.actor)
        if self.error:
            extra.append("error")
        tail = f" [{', '.join(extra)}]" if extra else ""
        note = f" -> {self.note}" if self.note else ""
        return f"{self.name}({args}){note}{tail}"

    def __repr__(self) -> str:
        return self.label


def msg(actor: str, text: str, ncalls: int = 0) -> Event:
    """A message event; its `calls` are placeholders, only their number matters to the rules."""
    return Event("message", {"text": text, "calls": ["call"] * ncalls}, kind="message", actor=actor)


Trace = Sequence[Event]


class Monitor:
    """A rule's state machine. States are hashable; DEAD is final and rejecting."""

    def relevant(self, e: Event) -> bool:  # an irrelevant event never changes the state
        return True

    def init(self) -> Any:
        return None

    def step(self, s: Any, e: Event, ctx: dict[str, Any]) -> Any:
        return s

    def accept(self, s: Any, ctx: dict[str, Any]) -> bool:
        return True


class Precede(Monitor):
    """always (trigger(k) -> once cond(k)), per key k: `trigger`/`cond` map an event to its keys."""

    def __init__(self, trigger: Callable[[Event], Iterable[Any]], cond: Callable[[Event], Iterable[Any]]) -> None:
        self.trigger, self.cond = trigger, cond

    def relevant(self, e: Event) -> bool:
        return bool(set(self.trigger(e)) or set(self.cond(e)))

    def init(self) -> Any:
        return frozenset()

    def step(self, s: Any, e: Event, ctx: dict[str, Any]) -> Any:
        s = s | frozenset(self.cond(e))
        return DEAD if any(k not in s for k in self.trigger(e)) else s


class Respond(Monitor):
    """always (trigger(k) -> eventually cond(k)), per key k."""

    def __init__(self, trigger: Callable[[Event], Iterable[Any]], cond: Callable[[Event], Iterable[Any]]) -> None:
        self.trigger, self.cond = trigger, cond

    def relevant(self, e: Event) -> bool:
        return bool(set(self.trigger(e)) or set(self.cond(e)))

    def init(self) -> Any:
        return frozenset()

    def step(self, s: Any, e: Event, ctx: dict[str, Any]) -> Any:
        done = frozenset(self.cond(e))
        return (s - done) | (frozenset(self.trigger(e)) - done)

    def accept(self, s: Any, ctx: dict[str, Any]) -> bool:
        return not s


class Never(Monitor):
    def __init__(self, bad: Callable[[Event], bool]) -> None:
        self.bad = bad

    def relevant(self, e: Event) -> bool:
        return self.bad(e)

    def step(self, s: Any, e: Event, ctx: dict[str, Any]) -> Any:
        return DEAD


class Cap(Monitor):
    """count of events with key k <= n, for every key k (one key: a plain cap)."""

    def __init__(self, keys: Callable[[Event], Iterable[Any]], n: int) -> None:
        self.keys, self.n = keys, n

    def relevant(self, e: Event) -> bool:
        return bool(set(self.keys(e)))

    def init(self) -> Any:
        return ()

    def step(self, s: Any, e: Event, ctx: dict[str, Any]) -> Any:
        counts = dict(s)
        for k in self.keys(e):
            counts[k] = counts.get(k, 0) + 1
            if counts[k] > self.n:
                return DEAD
        return tuple(sorted(counts.items(), key=repr))


class NextMust(Monitor):
    """always (trigger -> next cond): strong next, so a trigger as the last event fails."""

    def __init__(self, trigger: Callable[[Event], bool], cond: Callable[[Event], bool]) -> None:
        self.trigger, self.cond = trigger, cond

    def init(self) -> Any:
        return False

    def step(self, s: Any, e: Event, ctx: dict[str, Any]) -> Any:
        if s and not self.cond(e):
            return DEAD
        return self.trigger(e)

    def accept(self, s: Any, ctx: dict[str, Any]) -> bool:
        return not s


class Seen(Monitor):
    """Remembers whether some event matched; acceptance is a function of that and the context."""

    def __init__(self, pred: Callable[[Event], bool], ok: Callable[[bool, dict[str, Any]], bool]) -> None:
        self.pred, self.ok = pred, ok

    def relevant(self, e: Event) -> bool:
        return self.pred(e)

    def init(self) -> Any:
        return False

    def step(self, s: Any, e: Event, ctx: dict[str, Any]) -> Any:
        return True

    def accept(self, s: Any, ctx: dict[str, Any]) -> bool:
        return self.ok(s, ctx)


class ContextOnly(Monitor):
    def __init__(self, ok: Callable[[dict[str, Any]], bool]) -> None:
        self.ok = ok

    def relevant(self, e: Event) -> bool:
        return False

    def accept(self, s: Any, ctx: dict[str, Any]) -> bool:
        return self.ok(ctx)


@dataclass
class Rule:
    name: str
    check: Callable[[Trace, dict[str, Any]], bool]  # the specification, over a whole trace
    monitor: Monitor
    trigger: Callable[[Event], bool] | None = None  # when-shall and implication rules: the situation
    trigger_ctx: Callable[[dict[str, Any]], bool] | None = None  # ... when the situation is the request


@dataclass
class Policy:
    name: str
    pool: list[Event]
    rules: list[Rule]
    contexts: list[dict[str, Any]]
    tools: list[str]  # every declared tool
    represented_by: dict[str, str] = field(default_factory=dict)  # tool -> pool tool it is symmetric to
    step_keys: tuple[str, ...] = ()  # the context fields monitors read while stepping (else only at the end)
    hints: dict[str, tuple[int, list[Event]]] = field(default_factory=dict)  # rule -> (context, trace) built
    # by hand where the search is too short to reach a counterexample; checked like any other

    def groups(self) -> list[list[int]]:
        """Context indices that step the monitors alike (the same values of step_keys)."""
        out: dict[Any, list[int]] = {}
        for i, c in enumerate(self.contexts):
            out.setdefault(tuple(repr(c.get(k)) for k in self.step_keys), []).append(i)
        return list(out.values())


# ------------------------------------------------------------------------------------------------
# The search


class Space:
    """The product of the rules' monitors (plus optional extra monitors) over a pool."""

    def __init__(self, pool: list[Event], monitors: list[Monitor], ctx: dict[str, Any]) -> None:
        self.pool = pool
        self.monitors = monitors
        self.ctx = ctx  # the context the monitors step in (its step_keys; the rest is read at the end)
        self.touch = [tuple(i for i, m in enumerate(monitors) if m.relevant(e)) for e in pool]

    def init(self) -> tuple[Any, ...]:
        return tuple(m.init() for m in self.monitors) + (False,)

    def step(self, state: tuple[Any, ...], ei: int) -> tuple[Any, ...] | None:
        if state[-1]:
            return None  # a terminal event ended the run
        e = self.pool[ei]
        new = list(state)
        for i in self.touch[ei]:
            if new[i] != DEAD:
                new[i] = self.monitors[i].step(new[i], e, self.ctx)
        new[-1] = e.terminal
        return tuple(new)

    def accepts(self, state: tuple[Any, ...], ctx: dict[str, Any]) -> list[bool]:
        return [s != DEAD and m.accept(s, ctx) for m, s in zip(self.monitors, state)]


def _path(parents: dict[Any, Any], state: Any, pool: list[Event]) -> list[Event]:
    out = []
    while parents[state] is not None:
        prev, ei = parents[state]
        out.append(pool[ei])
        state = prev
    return out[::-1]


@dataclass
class Survey:
    max_len: int
    compliant: dict[int, list[Event] | None]  # per context index: a shortest compliant trace
    counterexample: dict[str, tuple[int, list[Event]] | None]  # per rule: (context, trace) the others allow
    states: int
    exhausted_at: int | None  # the length at which no new state appeared (the answers hold for all lengths)
    depth: int = 0  # the longest prefixes the search extended


def survey(policy: Policy, max_len: int) -> Survey:
    """Compliant traces, and for each rule a trace that satisfies all the others and not it."""
    compliant: dict[int, list[Event] | None] = {c: None for c in range(len(policy.contexts))}
    counter: dict[str, tuple[int, list[Event]] | None] = {r.name: None for r in policy.rules}
    states = 0
    deepest = 0
    exhausted: int | None = -1
    for group in policy.groups():
        n, depth, open_ = _survey_group(policy, group, max_len, compliant, counter)
        states += n
        deepest = max(deepest, depth)
        if open_:
            exhausted = None  # this group still had new states at max_len
        elif exhausted is not None:
            exhausted = max(exhausted, depth - 1)
    return Survey(max_len, compliant, counter, states, exhausted, deepest)


def _survey_group(policy: Policy, group: list[int], max_len: int, compliant: dict[int, list[Event] | None],
                  counter: dict[str, tuple[int, list[Event]] | None]) -> tuple[int, int, bool]:
    names = [r.name for r in policy.rules]
    space = Space(policy.pool, [r.monitor for r in policy.rules], policy.contexts[group[0]])
    start = space.init()
    parents: dict[Any, Any] = {start: None}
    frontier = [start]

    def look(state: tuple[Any, ...]) -> None:
        for ci in group:
            acc = space.accepts(state, policy.contexts[ci])
            bad = [i for i, a in enumerate(acc) if not a]
            if not bad and compliant[ci] is None:
                compliant[ci] = _path(parents, state, policy.pool)
            if len(bad) == 1 and counter[names[bad[0]]] is None:
                counter[names[bad[0]]] = (ci, _path(parents, state, policy.pool))

    look(start)
    depth = 0
    while frontier and depth < max_len:
        depth += 1
        nxt = []
        for state in frontier:
            for ei in range(len(policy.pool)):
                new = space.step(state, ei)
                if new is None or new in parents:
                    continue
                dead = [i for i, s in enumerate(new[:-1]) if s == DEAD]
                # two rules lost for good: no question needs this prefix; one rule lost for good whose
                # counterexample is known: neither
                if len(dead) > 1 or (dead and counter[names[dead[0]]] is not None):
                    continue
                parents[new] = (state, ei)
                nxt.append(new)
                look(new)
        frontier = nxt
        if all(v is not None for v in counter.values()) and any(compliant[ci] is not None for ci in group):
            return len(parents), depth, True  # every question is answered (not exhausted)
    return len(parents), depth, bool(frontier)


def find_trace(policy: Policy, max_len: int, goal_event: Callable[[Event], bool] | None = None,
               goal_ctx: Callable[[dict[str, Any]], bool] | None = None,
               extra: Sequence[Monitor] = (), violate: str | None = None) -> tuple[int, list[Event]] | None:
    """A shortest trace of at most max_len events that satisfies every rule (but `violate`, which it
    breaks), the `extra` monitors, has an event matching `goal_event` and a context matching
    `goal_ctx`; None if there is none. (Shortest within a group of contexts; groups are tried in order.)"""
    monitors = [r.monitor for r in policy.rules] + list(extra)
    if goal_event is not None:
        monitors.append(Seen(goal_event, lambda s, ctx: s))
    target = None if violate is None else [r.name for r in policy.rules].index(violate)
    best: tuple[int, list[Event]] | None = None
    for group in policy.groups():
        contexts = [ci for ci in group if goal_ctx is None or goal_ctx(policy.contexts[ci])]
        if not contexts:
            continue
        limit = max_len if best is None else len(best[1]) - 1
        found = _find_in(policy, Space(policy.pool, monitors, policy.contexts[contexts[0]]), contexts, limit, target)
        if found is not None:
            best = found
    return best


def _find_in(policy: Policy, space: Space, contexts: list[int], max_len: int,
             target: int | None) -> tuple[int, list[Event]] | None:
    start = space.init()
    parents: dict[Any, Any] = {start: None}
    frontier = [start]

    def done(state: tuple[Any, ...]) -> tuple[int, list[Event]] | None:
        for ci in contexts:
            acc = space.accepts(state, policy.contexts[ci])
            if target is None and all(acc):
                return ci, _path(parents, state, policy.pool)
            if target is not None and not acc[target] and all(a for i, a in enumerate(acc) if i != target):
                return ci, _path(parents, state, policy.pool)
        return None

    if max_len < 0:
        return None
    found = done(start)
    if found:
        return found
    for _ in range(max_len):
        nxt = []
        for state in frontier:
            for ei in range(len(policy.pool)):
                new = space.step(state, ei)
                if new is None or new in parents:
                    continue
                if any(s == DEAD for i, s in enumerate(new[:-1]) if i != target):
                    continue
                parents[new] = (state, ei)
                nxt.append(new)
                found = done(new)
                if found:
                    return found
        frontier = nxt
        if not frontier:
            break
    return None


# ------------------------------------------------------------------------------------------------
# Self-tests of the monitors against the trace checks


def run_monitors(policy: Policy, trace: Trace, ctx: dict[str, Any]) -> list[bool]:
    space = Space(policy.pool, [r.monitor for r in policy.rules], ctx)
    state = space.init()
    index = {id(e): i for i, e in enumerate(policy.pool)}
    for e in trace:
        nxt = space.step(state, index[id(e)])
        assert nxt is not None, "an event after a terminal event"
        state = nxt
    return space.accepts(state, ctx)


def checks(policy: Policy, trace: Trace, ctx: dict[str, Any]) -> list[bool]:
    return [bool(r.check(trace, ctx)) for r in policy.rules]


def self_test(policy: Policy, exhaustive_len: int = 2, random_traces: int = 3000, max_len: int = 9,
              seed: int = 7) -> int:
    """Monitors and trace checks agree on every trace up to exhaustive_len and on random traces."""
    rng = random.Random(seed)
    compared = 0

    def compare(trace: list[Event]) -> None:
        nonlocal compared
        for ctx in policy.contexts:
            a, b = run_monitors(policy, trace, ctx), checks(policy, trace, ctx)
            if a != b:
                diff = [r.name for r, x, y in zip(policy.rules, a, b) if x != y]
                raise AssertionError(f"monitor and check disagree on {diff} for {trace} in {ctx}")
            compared += 1

    def extend(trace: list[Event]) -> None:
        compare(trace)
        if len(trace) == exhaustive_len or (trace and trace[-1].terminal):
            return
        for e in policy.pool:
            extend(trace + [e])

    extend([])
    nonterminal = [e for e in policy.pool if not e.terminal]
    terminal = [e for e in policy.pool if e.terminal]
    for _ in range(random_traces):
        n = rng.randint(1, max_len)
        trace = [rng.choice(nonterminal) for _ in range(n)]
        if terminal and rng.random() < 0.3:
            trace.append(rng.choice(terminal))
        compare(trace)
    return compared


# ------------------------------------------------------------------------------------------------
# The report


def show(trace: Trace) -> str:
    return "⟨" + ", ".join(e.label for e in trace) + "⟩" if trace else "⟨⟩ (the empty trace)"


def ctx_text(ctx: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v!r}" for k, v in ctx.items())


def verify(policy: Policy, trace: Trace, ctx: dict[str, Any], expect_false: set[str]) -> None:
    got = {r.name for r, ok in zip(policy.rules, checks(policy, trace, ctx)) if not ok}
    assert got == expect_false, f"trace checks say {sorted(got)} fail, expected {sorted(expect_false)}: {show(trace)}"


def minimal_implying_set(policy: Policy, target: str, max_len: int, verify_len: int) -> tuple[list[str], bool]:
    """Drop the other rules one at a time while the target stays implied (no trace of at most max_len
    events satisfies the kept rules and breaks the target): a minimal set, not the only one. Then check
    that the set found still implies the target on traces of up to verify_len events."""
    keep = [r for r in policy.rules if r.name != target]
    tgt = next(r for r in policy.rules if r.name == target)

    def sub(rules: list[Rule]) -> Policy:
        return Policy(policy.name, policy.pool, rules + [tgt], policy.contexts, policy.tools, step_keys=policy.step_keys)

    for r in list(keep):
        trial = [x for x in keep if x is not r]
        if find_trace(sub(trial), max_len, violate=target) is None:
            keep = trial
    holds = find_trace(sub(keep), verify_len, violate=target) is None
    return [r.name for r in keep], holds


def report(policy: Policy, max_len: int, witness_len: int, tool_len: int | None = None,
           random_traces: int = 3000, core_len: int = 8) -> dict[str, Any]:
    """Every fact the README quotes, printed and returned as JSON-ready data."""
    t0 = time.process_time()
    n = self_test(policy, random_traces=random_traces)
    print(f"policy {policy.name}: {len(policy.rules)} rules, pool of {len(policy.pool)} events, "
          f"{len(policy.contexts)} contexts; monitors agree with the trace checks on {n} (trace, context) pairs")
    out: dict[str, Any] = {"policy": policy.name, "pool": len(policy.pool), "max_len": max_len}

    sv = survey(policy, max_len)
    if sv.exhausted_at is not None:
        bound = f"all lengths (no new state after length {sv.exhausted_at})"
    elif all(v is not None for v in sv.counterexample.values()):
        bound = f"length <= {sv.depth} (every rule has a counterexample by then; the search stopped)"
    else:
        bound = f"length <= {max_len}"
    print(f"search: {sv.states} distinct states, answers hold for traces of {bound}")
    out["states"] = sv.states
    out["bound"] = bound

    shortest = None
    for ci, tr in sv.compliant.items():
        if tr is not None:
            verify(policy, tr, policy.contexts[ci], set())
            if shortest is None or len(tr) < len(shortest[1]):
                shortest = (ci, tr)
    if shortest:
        print(f"compliant trace exists: yes; shortest ({len(shortest[1])} events) in context "
              f"{ctx_text(policy.contexts[shortest[0]])}: {show(shortest[1])}")
    else:
        print(f"compliant trace exists: NO up to length {max_len}")
    out["compliant"] = None if shortest is None else {"context": policy.contexts[shortest[0]],
                                                      "trace": [e.label for e in shortest[1]]}

    print("rules implied by the others:")
    out["implied"] = {}
    for r in policy.rules:
        ce = sv.counterexample[r.name]
        hinted = ""
        if ce is None and r.name in policy.hints:
            ce = policy.hints[r.name]
            hinted = " (built by hand, checked by the trace checks)"
        if ce is None:
            core, holds = minimal_implying_set(policy, r.name, min(max_len, core_len), max_len)
            print(f"  {r.name}: IMPLIED by the others on traces of {bound}; a minimal implying set "
                  f"(found on traces of length <= {min(max_len, core_len)}): {', '.join(core)}; "
                  f"implies it alone on traces of length <= {max_len}: {'yes' if holds else 'NO'}")
            out["implied"][r.name] = {"implied_by": core, "core_checked_up_to": max_len, "core_holds": holds}
        else:
            ci, tr = ce
            verify(policy, tr, policy.contexts[ci], {r.name})
            print(f"  {r.name}: not implied{hinted}; the others allow {show(tr)} in {ctx_text(policy.contexts[ci])}")
            out["implied"][r.name] = {"context": policy.contexts[ci], "trace": [e.label for e in tr]}

    print("tools some compliant trace calls:")
    out["tools"] = {}
    tool_len = tool_len or witness_len
    found_for: dict[str, Any] = {}
    for tool in policy.tools:
        rep = policy.represented_by.get(tool, tool)
        if rep not in found_for:
            found_for[rep] = find_trace(policy, tool_len, goal_event=lambda e, t=rep: e.name == t and e.kind == "call")
        res = found_for[rep]
        via = f" (symmetric to {rep})" if rep != tool else ""
        if res is None:
            print(f"  {tool}: NO compliant trace of length <= {tool_len} calls it{via}")
            out["tools"][tool] = None
        else:
            ci, tr = res
            verify(policy, tr, policy.contexts[ci], set())
            print(f"  {tool}: yes{via}, {len(tr)} events: {show(tr)}")
            out["tools"][tool] = [e.label for e in tr]

    print("triggers that happen in a compliant trace:")
    out["triggers"] = {}
    for r in policy.rules:
        if r.trigger is None and r.trigger_ctx is None:
            continue
        res = find_trace(policy, witness_len, goal_event=r.trigger, goal_ctx=r.trigger_ctx)
        if res is None:
            print(f"  {r.name}: NO compliant trace of length <= {witness_len} has the trigger")
            out["triggers"][r.name] = None
        else:
            ci, tr = res
            verify(policy, tr, policy.contexts[ci], set())
            print(f"  {r.name}: yes, {len(tr)} events, in {ctx_text(policy.contexts[ci])}: {show(tr)}")
            out["triggers"][r.name] = {"context": policy.contexts[ci], "trace": [e.label for e in tr]}
    cpu = time.process_time() - t0
    print(f"oracle CPU time: {cpu:.1f} s")
    out["cpu_seconds"] = round(cpu, 1)
    return out


def dump(path: str, data: Any) -> None:
    with open(path, "w", encoding="utf-8") as f:
        json.dump(data, f, indent=2, ensure_ascii=False)
        f.write("\n")
