"""The rules that are one automaton each, judged together in one lazily built product.

For every such rule the gate knows its DFA state after the calls that ran. A proposed call
has no result yet, so it may turn out to be any letter that agrees with its name and
arguments; the gate looks at all of them:

- a rule is *violated* by the call when every such letter of the rule's own alphabet leads
  to a permanently violated state (a bad prefix): no result and no continuation can save it.
  A rule that was lost before the call is not the call's doing and is not reported again.
  Liveness rules have no bad prefix, so they never block a call in the middle of a run;
- a *terminal* call ends the run: a rule it would leave unaccepted is *owed*, reported with
  the calls that would still satisfy it ("call `read_file` before answering");
- the open rules are also checked *together*: a call after which no continuation satisfies
  them all is a *conflict*, even when each alone still could be satisfied. Rules that can
  never constrain one another (no shared tool, both moved only by their own tools, no
  terminal tool between them) are independent, so the search runs per group of rules that
  the call touches (`policyc.tables.joint`), over every call the compiler found possible.
  A search that exceeds its budget, or meets guards whose combinations were not decided, is
  reported as *undecided* on the decision: never silently allowed.

Per-rule verdicts read each rule's own alphabet, so no number of guard or result atoms on a
tool makes the gate give up on them. Judgements, transitions and guidance are memoised per
joint state, so a warm gate answers with a few guard evaluations and dictionary lookups.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping, Sequence

from policyc.runtime.findings import CONFLICT, OWED, VIOLATION, Finding, GatedRule, Open, mildest
from policyc.runtime.proposals import Proposals
from policyc.tables.context import same_call
from policyc.tables.dfa import VIOLATED, Alphabet, DfaTable
from policyc.tables.guidance import owed_before, shortest_satisfying
from policyc.tables.joint import SEARCH_BUDGET, JointSearch
from policyc.tables.product import OTHER, UNTRACKED, JointLetters, JointSpace

#: Conflicts reported with one call, at most.
MAX_CONFLICTS = 3

Judged = tuple[tuple[Finding, ...], tuple[Open, ...]]  # (findings, what could not be decided)


class ProductJudge:
    """The single-automaton rules of a policy, stepped as one product."""

    def __init__(self, rules: list[GatedRule], tables: list[DfaTable], tools: Mapping[str, object],
                 terminal: frozenset[str], externs: Mapping[str, Callable[..., object]] | None = None,
                 joint: Mapping[str, JointLetters] | None = None,
                 budget: int = SEARCH_BUDGET, extra: Sequence[Alphabet] = ()):
        self.rules = rules
        self.terminal = terminal
        self.tools = tuple(tools)
        self.space = JointSpace(tables, tools, terminal, joint, extra)
        self.proposals = Proposals(self.space, externs)
        #: plain rules whose conflicts another search decides (with the per-value rules)
        self.searched_elsewhere = 0
        self.search = JointSearch(self.space, budget)
        self._judged: dict[tuple[int, str, int], Judged] = {}
        self._by_scope: dict[tuple[str, int, object], Judged] = {}  # per (tool, known, states of the tool's scope)
        self._guidance: dict[int, tuple[tuple[str, ...], tuple[str, ...]]] = {}
        self._owed_memo: dict[tuple[int, int, tuple[int, ...], bool], list[str] | None] = {}

    # ------------------------------------------------------------ run state

    def start(self, context: Any = None) -> int:
        """The joint state of a new run (`context`: its constants and history, a `RunContext`)."""
        return self.proposals.start(context)

    def advance(self, jid: int, tool: str, args: Mapping[str, Any], result: Any, context: Any = None) -> int:
        key, mask = self.call_mask(tool, args, result, context)
        return self.proposals.advance(jid, key, mask)

    def call_mask(self, tool: str, args: Mapping[str, Any], result: Any, context: Any = None) -> tuple[str, int]:
        """An executed call's tool key and the truth of its atoms (`context`: the run's
        constants and history, read before the call is recorded in it)."""
        proposals = self.proposals
        key = self.space.tool_key(tool)
        if key == OTHER:
            return key, 0
        if context is None:
            return key, proposals.mask(tool, args, result)
        proposed = context.proposed
        if proposed is not None and proposed[0] == tool and same_call(proposed[1], args):
            # the call that was proposed: its known atoms were read then; only the result's now
            results = proposals.result_bits[tool]
            mask = proposed[2] | proposals.mask(tool, args, result, env=context.env, skip=~results)
        else:
            mask = proposals.mask(tool, args, result, env=context.env)
        context.proposed = None
        return key, mask

    def dump_state(self, jid: int) -> list[int]:
        return list(self.space.states[jid])

    # ------------------------------------------------------------ judging a proposal

    def judge(self, jid: int, tool: str, args: Mapping[str, Any], context: Any = None,
              known: int | None = None) -> Judged:
        """The rule findings of proposing this call in joint state `jid`, and what the gate
        could not decide about it (`context`: the run's constants and history; `known`: the
        truth of the call's atoms that do not read its result, when the caller has read it
        with this context)."""
        space, proposals = self.space, self.proposals
        key = space.tool_key(tool)
        env = None if context is None else context.env
        if known is None:
            known = proposals.mask(tool, args, known_only=True, env=env) if key != OTHER else 0
        if context is not None and key != OTHER:
            context.proposed = (tool, args, known)
        final = tool in self.terminal
        read = None if final else proposals.scope_reader(key)
        if read is not None:  # the same states of the rules the call can concern: the same judgement
            seen = (tool, known, read(space.states[jid]))
            cached = self._by_scope.get(seen)
            if cached is None:
                cached = self._by_scope[seen] = self._judge(jid, key, known, final, tool)
            return cached
        memo = (jid, tool, known)
        cached = self._judged.get(memo)
        if cached is None:
            cached = self._judged[memo] = self._judge(jid, key, known, final, tool)
        return cached

    def _judge(self, jid: int, key: str, known: int, final: bool, tool: str) -> Judged:
        space, proposals = self.space, self.proposals
        before = space.states[jid]
        lost = space.violated
        moving, blind = proposals.proposal_moves(key, known)
        # the rules the call moves, with every state it may lead each to (rules it leaves
        # where they are cannot newly break)
        after: list[tuple[int, tuple[int, ...]]] = []
        for i, nexts in moving:
            s = before[i]
            if s != UNTRACKED and nexts[s] != (s,):
                after.append((i, nexts[s]))
        if not final and not after:
            return (), ()  # a call that moves no rule: nothing new can go wrong
        out: list[tuple[int, Finding]] = []
        newly: set[int] = set()
        for i, states in after:
            rule = self.rules[i]
            if lost[i][before[i]]:
                continue
            if all(lost[i][q] for q in states):
                newly.add(i)
                owed = self._owed(i, jid, key, known, accept=final)
                out.append((i, Finding(rule.name, VIOLATION, rule.layer, rule.severity, rule.limit,
                                       f"after `{tool}` no continuation of the run can satisfy it", (), rule.message,
                                       tuple(owed or ()))))
            elif final and not any(space.tables[i].accepting[q] for q in states):
                out.append((i, self._owed_finding(i, jid, key, known, tool)))
        changed = [i for i, _ in after]
        if final:
            # the rules the final call leaves where they are: owed when not accepting there
            waiting = proposals.unmet(jid) & proposals.open_bits(jid) & ~blind
            for i in changed:
                waiting &= ~(1 << i)
            while waiting:
                low = waiting & -waiting
                waiting ^= low
                i = low.bit_length() - 1
                out.append((i, self._owed_finding(i, jid, key, known, tool)))
            out.sort(key=lambda pair: pair[0])
            return tuple(f for _, f in out), ()
        conflicts, undecided = self._conflicts(jid, key, known, changed, newly)
        return tuple(f for _, f in out) + tuple(conflicts), undecided

    def _owed_finding(self, i: int, jid: int, key: str, known: int, tool: str) -> Finding:
        rule = self.rules[i]
        owed = self._owed(i, jid, key, known)
        return Finding(rule.name, OWED, rule.layer, rule.severity, rule.limit,
                       f"ending the run with `{tool}` now leaves it unsatisfied", (), rule.message, tuple(owed or ()))

    def _owed(self, i: int, jid: int, key: str, known: int, accept: bool = True) -> list[str] | None:
        """What to call first so that this call would satisfy rule i (or keep it satisfiable).
        It depends on rule i's own state only, so it is memoised across joint states and runs."""
        letters = self.proposals.proposal_letters(i, key, known)
        state = self.space.rule_state(jid, i)
        memo = (i, state, letters, accept)
        if memo not in self._owed_memo:
            self._owed_memo[memo] = owed_before(self.space.tables[i], state, self.terminal, letters, accept)
        return self._owed_memo[memo]

    # ------------------------------------------------------------ conflicts

    def _conflicts(self, jid: int, key: str, known: int, changed: Sequence[int],
                   newly: set[int]) -> tuple[list[Finding], tuple[Open, ...]]:
        """Groups of rules that could all hold before the call, each can still hold after it,
        but no continuation satisfies them together; and what could not be decided."""
        space, proposals, search = self.space, self.proposals, self.search
        opened = proposals.open_bits(jid)
        universe = opened
        for i in newly:
            universe &= ~(1 << i)
        candidates = tuple(i for i in changed if universe >> i & 1)
        if not candidates:
            return [], ()
        masks = proposals.completions(key, known)
        if masks is None:
            return [], (Open(f"conflicts among the rules `{key}` moves: its guard combinations were not decided",
                             tuple(self.rules[i].name for i in candidates)),)
        succ = [j for j in {proposals.step(jid, key, m) for m in masks} if j is not None]
        if not succ:
            return [], ()
        unmet = [proposals.unmet(j) for j in succ]
        if any(not u & universe for u in unmet):
            return [], ()  # the run may end right after the call with every open rule satisfied
        found: list[Finding] = []
        undecided: list[Open] = []
        for bits, group in space.group_bits(universe, candidates):
            if bits & self.searched_elsewhere:
                continue  # a group with per-value rules: `Gate` searches it with them
            if any(not u & bits for u in unmet):
                continue  # ending right after the call satisfies the whole group
            afters = []
            for j in succ:
                afters.append(search.check(j, group))
                if afters[-1] is True:
                    break
            if True in afters:
                continue
            if search.check(jid, group) is False:  # mostly known: the previous call's own question
                continue  # already impossible before this call: not its doing (reported then)
            if None in afters:
                undecided.append(self._undecided_text(group))
                continue
            # no continuation after the call: a conflict, even when whether one existed before the
            # call was not decided (that does not make this "no" less certain)
            found.append(self._conflict_finding(self._core(group, succ)))
            if len(found) >= MAX_CONFLICTS:
                break
        return found, tuple(undecided)

    def _core(self, group: tuple[int, ...], succ: list[int]) -> tuple[int, ...]:
        """A minimal subset of the group that no continuation satisfies (deletion-based)."""
        core = list(group)
        for i in list(core):
            trial = tuple(r for r in core if r != i)
            if trial and all(self.search.check(j, trial) is False for j in succ):
                core.remove(i)
        return tuple(core)

    def _undecided_text(self, group: tuple[int, ...]) -> Open:
        names = ", ".join(self.rules[i].name for i in group[:6]) + (", ..." if len(group) > 6 else "")
        return Open(f"whether {names} can still hold together was not decided (a search beyond "
                    f"{self.search.budget} joint states, or guard combinations the compiler did not decide)",
                    tuple(self.rules[i].name for i in group))

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
        that leaves every rule still alive satisfied). A tool whose calls the gate cannot
        tell apart is not ruled out."""
        space = self.space
        alive = [i for i in range(len(self.rules)) if space.verdict(jid, i) not in (VIOLATED, "untracked")]
        out = []
        for tool in self.tools:
            key = space.tool_key(tool)
            if not space.letters_complete(key):
                out.append(tool)
                continue
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
                        all(self.search.check(j, group) is not False
                            for group in space.groups(self.proposals.open_rules(jid), changed))
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
            for tool in shortest_satisfying(space.tables[i], s, self.proposals.letter_tools[i]) or ():
                calls[tool] = None
        ordered = [t for t in calls if t not in self.terminal] + [t for t in calls if t in self.terminal]
        return tuple(ordered)
