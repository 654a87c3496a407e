"""The exact gate: judge a proposed call against the prefix plus that call, before it runs.

For every compiled rule the gate knows the rule's DFA state after the calls that ran. A
proposed call has no result yet, so it may turn out to be any letter that agrees with its
name and arguments; the gate looks at all of them:

- a rule is *violated* by the call when every such letter leads to a permanently violated
  state (a bad prefix): no result and no continuation can save it. A rule that was lost
  before the call is not the call's doing and is not reported again. Liveness rules have
  no bad prefix, so they never block a call in the middle of a run;
- a *terminal* call ends the run: a rule it would leave unaccepted is *owed*, reported with
  the calls that would still satisfy it ("call `read_file` before answering");
- the open rules are also checked *together*, in the product: a call after which no
  continuation satisfies them all is a *conflict*, even when each alone still could be.

Judgements, transitions and guidance are memoised per joint state, so a warm gate answers
with a few guard evaluations and dictionary lookups whatever the number of rules.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from policyc.artifact.models import Artifact
from policyc.automata.table import VIOLATED, DfaTable
from policyc.ir.policy import Policy
from policyc.runtime.findings import CONFLICT, OWED, VIOLATION, Finding, mildest
from policyc.runtime.product import OTHER, UNTRACKED, JointSpace
from policyc.runtime.search import owed_before, shortest_satisfying
from policyc.runtime.together import Together


@dataclass(frozen=True, slots=True)
class GatedRule:
    name: str
    layer: str | None
    severity: str
    limit: int | None
    message: str | None


class Gate:
    """Every compiled rule of an artifact, stepped as one product."""

    def __init__(self, artifact: Artifact, policy: Policy, externs: Mapping | None = None):
        tables: list[DfaTable] = []
        self.rules: list[GatedRule] = []
        for rule in artifact.rules:
            if rule.automaton is None:
                continue
            entry = artifact.automata[rule.automaton]
            tables.append(DfaTable.from_json(entry["dfa"] if "dfa" in entry else entry))
            self.rules.append(GatedRule(rule.name, rule.layer, rule.severity.kind, rule.severity.limit, rule.message))
        self.terminal = policy.terminal_tools
        self.tools = tuple(policy.tools)
        self.space = JointSpace(tables, policy.tools, self.terminal, externs)
        self.together = Together(self.space)
        self._judged: dict[tuple, tuple[Finding, ...]] = {}
        self._guidance: dict[int, tuple[tuple[str, ...], tuple[str, ...]]] = {}

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
        memo = (jid, key, known, final)
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
        if not succ:
            return []
        out: list[Finding] = []
        newly: set[int] = set()
        for i, rule in enumerate(self.rules):
            if space.verdict(jid, i) in (VIOLATED, "untracked"):
                continue
            if all(space.verdict(j, i) == VIOLATED for j in succ):
                newly.add(i)
                owed = self._owed(i, jid, key, masks, accept=final)
                out.append(Finding(rule.name, VIOLATION, rule.layer, rule.severity, rule.limit,
                                   f"after `{tool}` no continuation of the run can satisfy it", (), rule.message,
                                   tuple(owed or ())))
            elif final and not any(space.accepting(j, (i,)) for j in succ):
                owed = self._owed(i, jid, key, masks)
                out.append(Finding(rule.name, OWED, rule.layer, rule.severity, rule.limit,
                                   f"ending the run with `{tool}` now leaves it unsatisfied", (), rule.message, tuple(owed or ())))
        if not final:
            conflict = self._conflict(jid, succ, newly)
            if conflict is not None:
                out.append(conflict)
        return out

    def _owed(self, i: int, jid: int, key: str, masks: tuple[int, ...], accept: bool = True) -> list[str] | None:
        """What to call first so that this call would satisfy rule i (or keep it satisfiable)."""
        table = self.space.tables[i]
        letters = {self.space._letter(i, key, m) for m in masks} - {None}
        return owed_before(table, self.space.rule_state(jid, i), self.terminal, sorted(letters), accept)

    def _conflict(self, jid: int, succ: list[int], newly: set[int]) -> Finding | None:
        space = self.space
        rules = frozenset(i for i in range(len(self.rules)) if space.is_open(jid, i)) - newly
        if len(rules) < 2 or self.together.check(jid, rules) is not True:
            return None  # nothing to conflict, or already impossible (or unknown) before this call
        if any(self.together.check(j, rules) is not False for j in succ):
            return None
        core = sorted(rules)
        for i in list(core):
            trial = frozenset(core) - {i}
            if len(trial) >= 1 and all(self.together.check(j, trial) is False for j in succ):
                core.remove(i)
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
        space = self.space
        alive = [i for i in range(len(self.rules)) if space.verdict(jid, i) not in (VIOLATED, "untracked")]
        open_rules = frozenset(i for i in alive if space.is_open(jid, i))
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
                    ok = all(space.verdict(j, i) != VIOLATED for i in alive) and \
                        (len(open_rules) < 2 or self.together.check(j, open_rules) is not False)
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
            for tool in shortest_satisfying(space.tables[i], s) or ():
                calls[tool] = None
        ordered = [t for t in calls if t not in self.terminal] + [t for t in calls if t in self.terminal]
        return tuple(ordered)
