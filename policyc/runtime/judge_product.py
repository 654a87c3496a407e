"""The rules that are one automaton each, judged together in one lazily built product.

For every such rule the gate knows its DFA state after the calls that ran. A proposed call
has no result yet, so it may turn out to be any letter that agrees with its name and
arguments; the gate looks at all of them:

- a rule is *violated* by the call when every such letter leads to a permanently violated
  state (a bad prefix): no result and no continuation can save it. A rule that was lost
  before the call is not the call's doing and is not reported again. Liveness rules have
  no bad prefix, so they never block a call in the middle of a run;
- a *terminal* call ends the run: a rule it would leave unaccepted is *owed*, reported with
  the calls that would still satisfy it ("call `read_file` before answering");
- the open rules are also checked *together*: a call after which no continuation satisfies
  them all is a *conflict*, even when each alone still could be satisfied. Conflicts
  between two rules are found exactly (in the product of their two automata); with few
  open rules, conflicts of any size are searched for in the whole product.

Judgements, transitions and guidance are memoised per joint state, so a warm gate answers
with a few guard evaluations and dictionary lookups whatever the number of rules.
"""

from __future__ import annotations

from typing import Any, Mapping

from policyc.tables.dfa import VIOLATED, DfaTable
from policyc.runtime.findings import CONFLICT, OWED, VIOLATION, Finding, GatedRule, mildest
from policyc.tables.pairs import PairChecker
from policyc.tables.product import OTHER, UNTRACKED, JointSpace
from policyc.tables.guidance import owed_before, shortest_satisfying
from policyc.tables.joint import JointSearch

#: Up to this many open rules, conflicts of any size are searched for in the whole product;
#: beyond it, conflicts between two rules (the ones policies have) are found exactly.
WHOLE_PRODUCT_RULES = 4
#: Conflicts reported with one call, at most.
MAX_CONFLICTS = 3


class ProductJudge:
    """The single-automaton rules of a policy, stepped as one product."""

    def __init__(self, rules: list[GatedRule], tables: list[DfaTable], tools: Mapping, terminal: frozenset[str],
                 externs: Mapping | None = None, rivals: dict[int, tuple[int, ...]] | None = None):
        self.rules = rules
        self.terminal = terminal
        self.tools = tuple(tools)
        self.space = JointSpace(tables, tools, terminal, externs)
        self.joint = JointSearch(self.space)
        self.pairs = PairChecker(self.space, rivals)
        self._judged: dict[tuple, tuple[Finding, ...]] = {}
        self._guidance: dict[int, tuple[tuple[str, ...], tuple[str, ...]]] = {}
        self._owed_memo: dict[tuple, list[str] | None] = {}

    # ------------------------------------------------------------ run state

    def start(self) -> int:
        return self.space.initial

    def advance(self, jid: int, tool: str, args: Mapping[str, Any], result: Any) -> int:
        key = self.space.tool_key(tool)
        return self.space.advance(jid, key, self.space.mask(tool, args, result) if key != OTHER else 0)

    def dump_state(self, jid: int) -> list[int]:
        return list(self.space.states[jid])

    def load_state(self, data: list) -> int:
        states = tuple(int(s) for s in data)
        if len(states) != len(self.rules) or any(
                s != UNTRACKED and not 0 <= s < t.size for s, t in zip(states, self.space.tables)):
            raise ValueError("the gate state does not fit this artifact's automata")
        return self.space.intern(states)

    # ------------------------------------------------------------ judging a proposal

    def judge(self, jid: int, tool: str, args: Mapping[str, Any]) -> list[Finding]:
        """The rule findings of proposing this call in joint state `jid`."""
        space = self.space
        key = space.tool_key(tool)
        known = space.mask(tool, args, known_only=True) if key != OTHER else 0
        final = tool in self.terminal
        memo = (jid, tool, known)
        cached = self._judged.get(memo)
        if cached is None:
            cached = self._judged[memo] = tuple(self._judge(jid, key, known, final, tool))
        return list(cached)

    def _judge(self, jid: int, key: str, known: int, final: bool, tool: str) -> list[Finding]:
        space = self.space
        masks = space.completions(key, known)
        if masks is None:
            return []  # too many unknown result atoms to enumerate: judge nothing rather than guess
        succ = [j for j in (space.step(jid, key, m) for m in masks) if j is not None]
        if not succ or not final and succ == [jid]:
            return []  # impossible, or a call that moves no rule: nothing new can go wrong
        out: list[Finding] = []
        newly: set[int] = set()
        before = space.states[jid]
        afters = [space.states[j] for j in succ]
        # a rule whose state no completion of the call changes cannot be newly lost nor start a conflict
        if len(afters) == 1:  # the usual case: no result atoms, one letter
            after = afters[0]
            changed = [i for i in space.affected.get(key, ()) if after[i] != before[i]]
        else:
            changed = [i for i in space.affected.get(key, ()) if any(a[i] != before[i] for a in afters)]
        lost = space.violated
        for i in (range(len(self.rules)) if final else changed):
            rule = self.rules[i]
            s = before[i]
            if s == UNTRACKED or lost[i][s]:
                continue
            if all(lost[i][a[i]] for a in afters):
                newly.add(i)
                owed = self._owed(i, jid, key, masks, accept=final)
                out.append(Finding(rule.name, VIOLATION, rule.layer, rule.severity, rule.limit,
                                   f"after `{tool}` no continuation of the run can satisfy it", (), rule.message,
                                   tuple(owed or ())))
            elif final and not any(space.accepting(j, (i,)) for j in succ):
                owed = self._owed(i, jid, key, masks)
                out.append(Finding(rule.name, OWED, rule.layer, rule.severity, rule.limit,
                                   f"ending the run with `{tool}` now leaves it unsatisfied", (), rule.message,
                                   tuple(owed or ())))
        if not final:
            out.extend(self._conflicts(jid, succ, changed, newly))
        return out

    def _owed(self, i: int, jid: int, key: str, masks: tuple[int, ...], accept: bool = True) -> list[str] | None:
        """What to call first so that this call would satisfy rule i (or keep it satisfiable).
        It depends on rule i's own state only, so it is memoised across joint states and runs."""
        letters = tuple(sorted(x for x in {self.space.letter(i, key, m) for m in masks} if x is not None))
        state = self.space.rule_state(jid, i)
        memo = (i, state, letters, accept)
        if memo not in self._owed_memo:
            self._owed_memo[memo] = owed_before(self.space.tables[i], state, self.terminal, letters, accept)
        return self._owed_memo[memo]

    def _conflicts(self, jid: int, succ: list[int], changed: list[int], newly: set[int],
                   whole: bool = True) -> list[Finding]:
        """Sets of rules that could all hold before the call, each can still hold after it,
        but no continuation satisfies them together. `changed`: the rules the call moves."""
        space = self.space
        before = space.states[jid]
        afters = [space.states[j] for j in succ]
        changed = [i for i in changed if i not in newly]
        if not changed:
            return []
        open_before = space.open_rules(jid)
        found: list[tuple[int, ...]] = []
        for i in changed:
            if i not in open_before or all(a[i] not in self.pairs.risky(i) for a in afters):
                continue  # no rival can be dead together with rule i in its new state
            for j in self.pairs.rivals(i):
                if j in newly or j not in open_before or (min(i, j), max(i, j)) in found:
                    continue
                if all(not self.pairs.alive(i, j, space.states[k][i], space.states[k][j]) for k in succ) \
                        and self.pairs.alive(i, j, before[i], before[j]):
                    found.append((min(i, j), max(i, j)))
                    if len(found) >= MAX_CONFLICTS:
                        return [self._conflict_finding(core) for core in found]
        if not found and whole:
            rules = open_before - newly
            if 3 <= len(rules) <= WHOLE_PRODUCT_RULES:
                core = self._whole_product_core(jid, succ, rules)
                if core is not None:
                    found.append(core)
        return [self._conflict_finding(core) for core in found]

    def _whole_product_core(self, jid: int, succ: list[int], rules: frozenset[int]) -> tuple[int, ...] | None:
        if self.joint.check(jid, rules) is not True:
            return None  # nothing to conflict, or already impossible (or unknown) before this call
        if any(self.joint.check(j, rules) is not False for j in succ):
            return None
        core = sorted(rules)
        for i in list(core):
            trial = frozenset(core) - {i}
            if trial and all(self.joint.check(j, trial) is False for j in succ):
                core.remove(i)
        return tuple(core)

    def _conflict_finding(self, core: tuple[int, ...]) -> Finding:
        names = tuple(self.rules[i].name for i in core)
        severity, limit = mildest([(self.rules[i].severity, self.rules[i].limit) for i in core])
        layers = {self.rules[i].layer for i in core}
        layer = layers.pop() if len(layers) == 1 else None
        return Finding(" & ".join(names), CONFLICT, layer, severity, limit,
                       "no continuation of the run satisfies them all", names)

    # ------------------------------------------------------------ guidance

    def allowed_next(self, jid: int) -> tuple[str, ...]:
        return self._guide(jid)[0]

    def required(self, jid: int) -> tuple[str, ...]:
        return self._guide(jid)[1]

    def _guide(self, jid: int) -> tuple[tuple[str, ...], tuple[str, ...]]:
        cached = self._guidance.get(jid)
        if cached is None:
            cached = self._guidance[jid] = (self._allowed(jid), self._required(jid))
        return cached

    def _allowed(self, jid: int) -> tuple[str, ...]:
        """Tools with some call that breaks no rule and starts no conflict (a final call:
        that leaves every rule still alive satisfied)."""
        space = self.space
        alive = {i for i in range(len(self.rules)) if space.verdict(jid, i) not in (VIOLATED, "untracked")}
        out = []
        for tool in self.tools:
            key = space.tool_key(tool)
            for mask in space.letters_of(key) if key != OTHER else (0,):
                j = space.step(jid, key, mask)
                if j is None:
                    continue
                if tool in self.terminal:
                    ok = space.accepting(j, alive)
                else:
                    before, after = space.states[jid], space.states[j]
                    changed = [i for i in space.affected.get(key, ()) if after[i] != before[i]]
                    ok = all(space.verdict(j, i) != VIOLATED for i in changed if i in alive) and \
                        not self._conflicts(jid, [j], changed, set(), whole=False)
                if ok:
                    out.append(tool)
                    break
        return tuple(out)

    def _required(self, jid: int) -> tuple[str, ...]:
        space = self.space
        calls: dict[str, None] = {}
        for i in range(len(self.rules)):
            s = space.rule_state(jid, i)
            if s == UNTRACKED or space.tables[i].accepting[s]:
                continue
            for tool in shortest_satisfying(space.tables[i], s, space.letter_tools[i]) or ():
                calls[tool] = None
        ordered = [t for t in calls if t not in self.terminal] + [t for t in calls if t in self.terminal]
        return tuple(ordered)
