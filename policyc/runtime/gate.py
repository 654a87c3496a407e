"""The exact gate: judge a proposed call against the prefix plus that call, before it runs.

The compiled rules of an artifact come in two kinds. A rule that is one automaton (most
rules) joins the product of `policyc.runtime.judge_product`: exact verdicts per call, conflicts
between rules, guidance. A rule with quantified parts (parametric slicing) is stepped by its
own slice run and judged per value (`policyc.runtime.judge_sliced`). Rules the automata cannot
compile are decided by the reference evaluator at the proposals that settle them, listed on
the decision as undecided at the others (`policyc.runtime.judge_final`), and scored when the
run finishes.

A run's gate state is a `GateState`: the product's joint state and the slice runs.
"""

from __future__ import annotations

from typing import Any, Callable, Collection, Mapping, Sequence

from policyc.runtime.findings import OWED, VIOLATION, Finding, GatedRule
from policyc.runtime.judge_final import FinalAnswerJudge
from policyc.runtime.judge_product import ProductJudge
from policyc.runtime.judge_sliced import SlicedJudge
from policyc.tables.dfa import OPEN, VIOLATED
from policyc.tables.policy import CompiledPolicy
from policyc.tables.product import OTHER
from policyc.tables.rule import RuleRun
from policyc.trace.model import Call


_NEVER, _ALWAYS = frozenset((False,)), frozenset((True,))  # a rule's acceptance, settled


class GateState:
    """Where one run is: the product's joint state, and each sliced rule's run."""

    __slots__ = ("jid", "runs")

    def __init__(self, jid: int, runs: list[RuleRun]):
        self.jid = jid
        self.runs = runs


class Gate:
    """Every compiled rule of a policy, judged before each call."""

    def __init__(self, compiled: CompiledPolicy, externs: Mapping[str, Callable[..., object]] | None = None):
        policy = compiled.policy
        plain_rules, plain_tables = [], []
        self.sliced: list[tuple[GatedRule, SlicedJudge]] = []
        uncompiled: list[GatedRule] = []
        for rule in policy.rules:
            info = GatedRule(rule.name, rule.layer, rule.severity.kind, rule.severity.limit, rule.message)
            table = compiled.table(rule.name)
            if table is None:
                uncompiled.append(info)
            elif table.dfa is not None:
                plain_rules.append(info)
                plain_tables.append(table.dfa)
            else:
                self.sliced.append((info, SlicedJudge(table, externs)))
        self.terminal = policy.terminal_tools
        self.final = FinalAnswerJudge(uncompiled, policy, externs) if uncompiled else None
        self.product = ProductJudge(plain_rules, plain_tables, policy.tools, self.terminal, externs, compiled.joint)
        self.rules = plain_rules + [info for info, _ in self.sliced]
        self.components = self._components()
        # a component by its members (plain bits, sliced rules, the rule itself included): rules
        # of one component share it, and `_component_accepts` reads nothing else
        self._members = [(plain, tuple(sorted((k, *sliced)))) for k, (_, plain, sliced) in enumerate(self.components)]
        self._unsearched_text: dict[tuple[int, int, tuple[int, ...]], str] = {}
        self._plain_bit = {rule.name: 1 << i for i, rule in enumerate(plain_rules)}
        self._reach_memo: dict[str, tuple[int, ...]] = {}
        self._moving_memo: dict[str, tuple[int, ...]] = {}

    def _near(self, tools: frozenset[str] | None, other: frozenset[str] | None) -> bool:
        """Whether rules moved by these tools (None: any) can constrain one another."""
        return tools is None or other is None or bool(tools & other) or \
            bool(tools & self.terminal and other & self.terminal)

    def _components(self) -> list[tuple[frozenset[str] | None, int, tuple[int, ...]]]:
        """For each sliced rule, the rules connected to it through rules that can constrain
        one another (transitively, as in the product's `JointSpace.neighbours`: they share a
        tool, one moves on calls to any tool, or both name a terminal tool): (the tools a call
        to which may move one of them, None for any tool; bit mask of the plain rules; the
        other sliced rules). A set of rules no continuation satisfies together, minimal, is
        connected: so a call to no tool of the component sets the rule in no new conflict, and
        when every rule of the component is satisfied by ending the run right after a call, no
        such set contains it (the other components' continuations leave them as they are)."""
        space = self.product.space
        plain_tools = [None if not space.local[i] else space.mentions[i] for i in range(len(self.product.rules))]
        mine = [rule.moved_by for _, rule in self.sliced]
        out = []
        for k in range(len(mine)):
            plain: set[int] = set()
            sliced = {k}
            todo: list[tuple[bool, int]] = [(True, k)]  # (a sliced rule?, its index)
            while todo:
                is_sliced, x = todo.pop()
                tools = mine[x] if is_sliced else plain_tools[x]
                near_plain = (i for i in range(len(plain_tools)) if self._near(tools, plain_tools[i])) if is_sliced \
                    else iter(space.neighbours[x])
                for i in near_plain:
                    if i not in plain:
                        plain.add(i)
                        todo.append((False, i))
                for j, other in enumerate(mine):
                    if j not in sliced and self._near(tools, other):
                        sliced.add(j)
                        todo.append((True, j))
            reach: set[str] | None = set()
            for tools in [plain_tools[i] for i in plain] + [mine[j] for j in sliced]:
                reach = None if reach is None or tools is None else reach | tools
            out.append((None if reach is None else frozenset(reach), sum(1 << i for i in plain),
                        tuple(sorted(sliced - {k}))))
        return out

    def _reaching(self, tool: str) -> tuple[int, ...]:
        """The sliced rules whose component a call to `tool` may move. Memoised per tool."""
        found = self._reach_memo.get(tool)
        if found is None:
            found = self._reach_memo[tool] = tuple(
                k for k, (reach, _, _) in enumerate(self.components) if reach is None or tool in reach)
        return found

    def _moving(self, tool: str) -> tuple[int, ...]:
        """The sliced rules a call to `tool` may move (every one for a terminal call, which is
        judged on what it leaves owed). Memoised per tool."""
        found = self._moving_memo.get(tool)
        if found is None:
            found = self._moving_memo[tool] = tuple(
                k for k, (_, rule) in enumerate(self.sliced)
                if tool in self.terminal or rule.moved_by is None or tool in rule.moved_by)
        return found

    def _joint_unsearched(self, state: GateState, tool: str, args: Mapping[str, Any],
                          after: Mapping[int, frozenset[bool]], broken: Collection[int] = (),
                          lost_now: int = 0) -> tuple[str, ...]:
        """The open sliced rules a call to `tool` may set in conflict with other open rules:
        per-value rules take no part in the joint search, so the decision says so, unless every
        rule of the rule's component is satisfied if the run ends right after the call.
        `after`: per sliced rule the call may move, whether it may be accepting after it
        (`SlicedJudge.outcomes`); `broken`, `lost_now`: the sliced rules and (as bits) the
        plain rules the call certainly breaks. A conflict is a set of rules each of which can
        still hold: a rule lost before the call or by it is in none."""
        reaching = self._reaching(tool)
        if not reaching:
            return ()
        space = self.product.space
        opened = space.open_bits(state.jid) & ~lost_now
        verdicts = [run.verdict() for run in state.runs]
        found = []
        for k in reaching:
            _, plain, sliced = self.components[k]
            if verdicts[k] == OPEN and k not in broken and \
                    (opened & plain or any(verdicts[j] == OPEN and j not in broken for j in sliced)):
                found.append(k)
        if not found:
            return ()
        # rules no automaton compiles may constrain anything: with them, nothing is known here
        unmet = None if self.final is not None else self._unmet_after(state, tool, args)
        out = []
        settled: dict[tuple[object, ...], bool] = {}  # per component (its members): whether it accepts after the call
        for k in found:
            if unmet is not None:
                whole = self._members[k]
                accepts = settled.get(whole)
                if accepts is None:
                    accepts = settled[whole] = self._component_accepts(k, state, opened, unmet, verdicts, after, broken)
                if accepts:
                    continue  # ending right after the call satisfies every rule it could conflict with
            _, plain, sliced = self.components[k]
            others = tuple(j for j in sliced if verdicts[j] == OPEN and j not in broken)
            near = opened & plain
            memo = (k, near, others)
            text = self._unsearched_text.get(memo)
            if text is None:
                names = [r.name for i, r in enumerate(self.product.rules) if near >> i & 1] + \
                    [self.sliced[j][0].name for j in others]
                listed = ", ".join(names[:4]) + (", ..." if len(names) > 4 else "")
                text = self._unsearched_text[memo] = (
                    f"whether {self.sliced[k][0].name} (judged per value) can still hold together with {listed} "
                    "was not searched: per-value rules are judged alone call by call")
            out.append(text)
        return tuple(out)

    def _unmet_after(self, state: GateState, tool: str, args: Mapping[str, Any]) -> int | None:
        """The plain rules some joint state the call may lead to (whatever its result) leaves
        unsatisfied, as bits (None: the tool's guard combinations were not decided)."""
        space = self.product.space
        key = space.tool_key(tool)
        known = space.mask(tool, args, known_only=True) if key != OTHER else 0
        masks = space.completions(key, known)
        if masks is None:
            return None
        unmet = 0
        for mask in masks:
            j = space.step(state.jid, key, mask)
            if j is not None:
                unmet |= space.unmet(j)
        return unmet

    def _component_accepts(self, k: int, state: GateState, opened: int, unmet: int, verdicts: list[str],
                           after: Mapping[int, frozenset[bool]], broken: Collection[int]) -> bool:
        """Whether every rule of sliced rule k's component (k included) is satisfied by the run
        ending right after the call, whatever its result (`unmet`: `_unmet_after`)."""
        _, bits, sliced = self.components[k]
        if unmet & bits & opened:  # a rule lost before the call is in no conflict
            return False
        for j in (k, *sliced):
            if verdicts[j] == VIOLATED or j in broken:
                continue  # lost before the call or by it
            if j in after:
                if after[j] != {True}:
                    return False
            elif not state.runs[j].accepting():  # a rule the call leaves where it is
                return False
        return True

    # ------------------------------------------------------------ run state

    def start(self) -> GateState:
        return GateState(self.product.start(), [rule.start() for _, rule in self.sliced])

    def advance(self, state: GateState, tool: str, args: Mapping[str, Any], result: Any) -> GateState:
        """The state after an executed call (slice runs are stepped in place)."""
        state.jid = self.product.advance(state.jid, tool, args, result)
        runs = state.runs
        for k in self._moving(tool):  # a call that cannot move a rule leaves it where it is
            if runs[k].verdict() == OPEN:  # a verdict settled for good stays whatever comes next
                self.sliced[k][1].advance(runs[k], tool, args, result)
        return state

    def dump_state(self, state: GateState) -> dict[str, object]:
        return {"product": self.product.dump_state(state.jid), "sliced": [run.to_json() for run in state.runs]}

    def load_state(self, data: Mapping[str, Any]) -> GateState:
        runs = data["sliced"]
        if len(runs) != len(self.sliced):
            raise ValueError("the gate state does not fit this artifact's automata")
        return GateState(self.product.load_state(data["product"]),
                         [RuleRun.from_json(rule.table, run) for (_, rule), run in zip(self.sliced, runs)])

    def verdicts(self, state: GateState) -> dict[str, tuple[str, bool]]:
        """(certain verdict, accepting) of every gated rule in this state."""
        space = self.product.space
        out = {r.name: (space.verdict(state.jid, i), space.accepting(state.jid, (i,)))
               for i, r in enumerate(self.product.rules)}
        for (info, _), run in zip(self.sliced, state.runs):
            out[info.name] = (run.verdict(), run.accepting())
        return out

    def accepting_after(self, calls: Sequence[Call]) -> dict[str, bool | None]:
        """Whether a run of these executed calls satisfies each gated rule (None: untracked):
        the offline path, the product stepped with one memo lookup per call when warm."""
        space = self.product.space
        accepting = space.accepting_each(space.run_calls(calls))
        out: dict[str, bool | None] = {r.name: a for r, a in zip(self.product.rules, accepting)}
        if self.sliced:
            runs = [rule.start() for _, rule in self.sliced]
            for call in calls:
                for (_, rule), run in zip(self.sliced, runs):
                    rule.advance(run, call.name, call.args, call.result)
            out.update({info.name: run.accepting() for (info, _), run in zip(self.sliced, runs)})
        return out

    # ------------------------------------------------------------ judging a proposal

    def judge(self, state: GateState, tool: str, args: Mapping[str, Any], calls: Sequence[Call] = (),
              request: str | None = None, index: Any = None) -> tuple[list[Finding], tuple[str, ...]]:
        """The rule findings of proposing this call after `calls` (the run so far, needed only
        by a final answer, which also decides the rules no automaton could compile), and what
        the gate could not decide about it (`index`: the run's history, for those rules)."""
        plain, undecided = self.product.judge(state.jid, tool, args)
        findings = list(plain)
        final = tool in self.terminal
        after: dict[int, frozenset[bool]] = {}  # per sliced rule the call may move: can it be accepting then?
        broken: set[int] = set()  # the sliced rules the call certainly breaks
        for k in self._moving(tool):  # a call that leaves a rule where it is cannot newly break it
            info, rule = self.sliced[k]
            run = state.runs[k]
            standing = run.verdict()
            if standing != OPEN:  # settled for good: lost before this call (not its doing), or won
                after[k] = _NEVER if standing == VIOLATED else _ALWAYS
                continue
            verdicts, accepting = rule.outcomes(run, tool, args)
            after[k] = accepting
            if verdicts == {VIOLATED}:
                broken.add(k)
                findings.append(Finding(info.name, VIOLATION, info.layer, info.severity, info.limit,
                                        f"after `{tool}` no continuation of the run can satisfy it", (),
                                        info.message))
            elif final and True not in accepting:
                findings.append(Finding(info.name, OWED, info.layer, info.severity, info.limit,
                                        f"ending the run with `{tool}` now leaves it unsatisfied", (),
                                        info.message))
        if not final and self.sliced:
            lost_now = 0  # the plain rules the call certainly breaks: in no conflict either
            for f in plain:
                if f.kind == VIOLATION:
                    lost_now |= self._plain_bit[f.rule]
            undecided = tuple(undecided) + self._joint_unsearched(state, tool, args, after, broken, lost_now)
        if self.final is not None:
            findings.extend(self.final.judge_final(calls, tool, args, request, index) if final
                            else self.final.judge(calls, tool, args, request, index))
            undecided = tuple(undecided) + self.final.undecided(calls, tool, args)
        return findings, undecided

    # ------------------------------------------------------------ guidance

    def allowed_next(self, state: GateState) -> tuple[str, ...]:
        """Tools some call of which breaks no single-automaton rule and starts no conflict
        (rules with quantified parts allow a tool as long as some arguments would do)."""
        return self.product.allowed_next(state.jid)

    def required(self, state: GateState) -> tuple[str, ...]:
        return self.product.required(state.jid)
