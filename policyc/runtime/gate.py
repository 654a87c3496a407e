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

from policyc.runtime.findings import (
    CONFLICT, OWED, SEVERITY_ORDER, SEVERITY_RANK, UNDECIDED, VIOLATION, Finding, GatedRule, Open, mildest,
)
from policyc.runtime.judge_final import FinalAnswerJudge
from policyc.runtime.judge_product import ProductJudge
from policyc.runtime.judge_sliced import SlicedJudge
from policyc.runtime.witness import Concrete, Instances, Witness
from policyc.tables.atoms import constant_groups
from policyc.tables.context import NO_CONSTANTS, Constants, RunContext
from policyc.tables.counting import (
    ABSENT, NEW, CountingSpace, Filling, Rules, SearchMove, Slot, State, TokenRun, TooManyFillings, few_fillings,
    remember, slot_value,
)
from policyc.tables.dfa import OPEN, VIOLATED
from policyc.tables.earlier import HistoryPlan, earlier_atoms
from policyc.tables.policy import CompiledPolicy
from policyc.tables.product import OTHER
from policyc.tables.rule import RuleRun
from policyc.ir.ops import UNDEF, value_key
from policyc.ir.types import OptionalT
from policyc.trace.model import Call


_NEVER, _ALWAYS = frozenset((False,)), frozenset((True,))  # a rule's acceptance, settled


class GateState:
    """Where one run is: the product's joint state, each sliced rule's run, and the run's
    constants and history stores (`context`, which the rules' atoms read), and its values by
    profile (`policyc.tables.counting.TokenRun`) when per-value rules are searched jointly."""

    __slots__ = ("jid", "_runs", "context", "tokens", "behind")

    def __init__(self, jid: int, runs: list[RuleRun], context: RunContext, tokens: TokenRun | None = None):
        self.jid = jid
        self._runs = runs
        self.context = context
        self.tokens = tokens
        self.behind: list[Callable[[], None]] = []  # calls the slice runs have not been stepped with yet

    @property
    def runs(self) -> list[RuleRun]:
        """Each sliced rule's run, stepped with every call so far."""
        if self.behind:
            behind, self.behind = self.behind, []
            for step in behind:
                step()
        return self._runs


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
        self.externs = dict(externs or {})
        atoms = earlier_atoms(a for t in plain_tables for a in t.alphabet.atoms)
        atoms += earlier_atoms(a for _, rule in self.sliced for a in rule.table.atoms())
        self.history = HistoryPlan(atoms) if atoms else None  # the history atoms a run keeps stores for
        # whether some rule reads the run's request or metrics (a run given them later restarts)
        self.reads_constants = any(t.constant_groups for t in plain_tables) or any(
            constant_groups(a) for _, rule in self.sliced for a in rule.table.atoms())
        self.final = FinalAnswerJudge(uncompiled, policy, externs) if uncompiled else None
        extra = [part.alphabet for _, judge in self.sliced for part in judge.table.parts]
        self.product = ProductJudge(plain_rules, plain_tables, policy.tools, self.terminal, externs, compiled.joint,
                                    extra=extra)
        self.rules = plain_rules + [info for info, _ in self.sliced]
        self.components = self._components()
        self.counting = CountingSpace(self.product.space, [judge.table for _, judge in self.sliced],
                                      _required_arguments(policy.tools)) if self.sliced else None
        # the groups of rules that can constrain one another and hold a per-value rule, when
        # every per-value rule of the group is one the counting search reads: (plain rules,
        # sliced rules, the tools whose calls may move one of them, None for any)
        self.counted = self._counted_blocks()
        # per counted group: its rules over pairs a continuation of the search can be checked
        # on, value by value (`policyc.runtime.witness`), when a judgement is not memoised
        self.concrete = Concrete(self.counting, [judge.table for _, judge in self.sliced], policy.tools) \
            if self.counting is not None else None
        self._counted_pairs: list[tuple[int, ...]] = []
        for _, sliced, _ in self.counted:
            members = (sliced[0], *self.components[sliced[0]][2])
            self._counted_pairs.append(tuple(sorted(
                j for j in members if self.concrete is not None and j in self.concrete.pairs)))
        self._counted_of = {k: b for b, (_, sliced, _) in enumerate(self.counted) for k in sliced}
        counted_plain = 0
        for plain, _, _ in self.counted:
            for i in plain:
                counted_plain |= 1 << i
        self.product.searched_elsewhere = counted_plain
        # when every rule is an automaton and every per-value rule is counted, a judgement is a
        # function of (the call's tool and argument atoms, the joint state, the run's values by
        # profile, where the call's values sit): memoised so, and the slice runs (which only a
        # judgement not memoised yet reads) are stepped lazily
        # (a sliced rule that reads the run's constants, history or sources is judged afresh)
        # (nor one whose search reads an atom testing a place a per-value rule binds: only the
        # run's values themselves settle its continuations, `policyc.runtime.witness`)
        self.memoised = self.final is None and len(self._counted_of) == len(self.sliced) and not any(
            rule.table.needs_context for _, rule in self.sliced) and not any(
            self.counting is not None and self.counting.rules(plain, sliced).entangled is not None
            for plain, sliced, _ in self.counted)
        self.undecided_refuse = policy.undecided
        self._infos = {info.name: info for info in self.rules + uncompiled}
        self._judgements: dict[tuple[object, ...], tuple[tuple[Finding, ...], tuple[str, ...]]] = {}
        # a component by its members (plain bits, sliced rules, the rule itself included): rules
        # of one component share it, and `_component_accepts` reads nothing else
        self._members = [(plain, tuple(sorted((k, *sliced)))) for k, (_, plain, sliced) in enumerate(self.components)]
        self._unsearched_text: dict[tuple[int, int, tuple[int, ...]], Open] = {}
        self._plain_bit = {rule.name: 1 << i for i, rule in enumerate(plain_rules)}
        self._reach_memo: dict[str, tuple[int, ...]] = {}
        self._moving_memo: dict[str, tuple[int, ...]] = {}
        # every compiled rule as a bit (the plain rules', then the sliced rules'), its severity's
        # rank and the rules that can constrain it (`_near`): what bounds an open question
        space = self.product.space
        moved_by = [None if not space.local[i] else space.mentions[i] for i in range(len(plain_rules))] + \
            [rule.moved_by for _, rule in self.sliced]
        compiled_rules = plain_rules + [info for info, _ in self.sliced]
        self._rule_bit = {info.name: b for b, info in enumerate(compiled_rules)}
        self._rule_rank = [SEVERITY_RANK[info.severity] for info in compiled_rules]
        self._adjacent = [sum(1 << c for c, other in enumerate(moved_by) if c != b and self._near(tools, other))
                          for b, tools in enumerate(moved_by)]
        self._ceilings: dict[tuple[object, ...], str] = {}

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

    def _counted_blocks(self) -> list[tuple[tuple[int, ...], tuple[int, ...], frozenset[str] | None]]:
        """The components of the sliced rules (`_components`), merged, each with the sliced
        rules the counting search reads: it decides the joint question of those and the
        component's plain rules. A sliced rule it cannot read (over a pair, tested against a
        literal, ...) is left out of the question, not the whole component: a set of rules no
        continuation satisfies is a conflict whatever other rules say, and the rule left out is
        judged apart (`_joint_unsearched`)."""
        if self.counting is None:
            return []
        seen: set[int] = set()
        out = []
        for k, (reach, plain_bits, others) in enumerate(self.components):
            if k in seen:
                continue
            members = tuple(sorted((k, *others)))
            seen.update(members)
            sliced = tuple(j for j in members if self.counting.countable[j])
            if not sliced:
                continue
            plain = tuple(i for i in range(len(self.product.rules)) if plain_bits >> i & 1)
            out.append((plain, sliced, reach))
        return out

    def _reaching(self, tool: str) -> tuple[int, ...]:
        """The sliced rules whose component a call to `tool` may move. Memoised per tool."""
        found = self._reach_memo.get(tool)
        if found is None:
            found = self._reach_memo[tool] = tuple(
                k for k, (reach, _, _) in enumerate(self.components)
                if (reach is None or tool in reach) and k not in self._counted_of)
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

    def _joint_unsearched(self, state: GateState, unmet_after: Callable[[], int | None], tool: str,
                          after: Mapping[int, frozenset[bool]], broken: Collection[int] = (),
                          lost_now: int = 0, checked: Collection[int] = ()) -> tuple[Open, ...]:
        """The open sliced rules a call to `tool` may set in conflict with other open rules:
        per-value rules take no part in the joint search, so the decision says so, unless every
        rule of the rule's component is satisfied if the run ends right after the call.
        `after`: per sliced rule the call may move, whether it may be accepting after it
        (`SlicedJudge.outcomes`); `broken`, `lost_now`: the sliced rules and (as bits) the
        plain rules the call certainly breaks; `unmet_after`: `_unmet_after` for the call, read
        once per judgement. A conflict is a set of rules each of which can still hold: a rule
        lost before the call or by it is in none."""
        reaching = self._reaching(tool)
        if not reaching:
            return ()
        opened = self.product.proposals.open_bits(state.jid) & ~lost_now
        verdicts = [run.verdict() for run in state.runs]
        found = []
        for k in reaching:
            _, plain, sliced = self.components[k]
            if verdicts[k] == OPEN and k not in broken and k not in checked and \
                    (opened & plain or any(verdicts[j] == OPEN and j not in broken for j in sliced)):
                found.append(k)
        if not found:
            return ()
        # rules no automaton compiles may constrain anything: with them, nothing is known here
        unmet = None if self.final is not None else unmet_after()
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
                text = self._unsearched_text[memo] = Open(
                    f"whether {self.sliced[k][0].name} (judged per value) can still hold together with {listed} "
                    "was not searched: the joint search does not read this per-value rule",
                    (self.sliced[k][0].name, *names), about=self.sliced[k][0].name)
            out.append(text)
        return tuple(out)

    def _known(self, state: GateState, tool: str, args: Mapping[str, Any]) -> int:
        """The truth of the proposed call's atoms that do not read its result, read once per
        proposal: kept in the run's context (`RunContext.proposed`, cleared when a call is
        recorded), where the call's record reads only its result's atoms after it."""
        context = state.context
        proposed = context.proposed
        if proposed is not None and proposed[0] == tool and proposed[1] is args:
            return proposed[2]
        if self.product.space.tool_key(tool) == OTHER:
            return 0
        known = self.product.proposals.mask(tool, args, known_only=True, env=context.env)
        context.proposed = (tool, args, known)
        return known

    def _unmet_after(self, state: GateState, tool: str, args: Mapping[str, Any]) -> int | None:
        """The plain rules some joint state the call may lead to (whatever its result) leaves
        unsatisfied, as bits (None: the tool's guard combinations were not decided)."""
        proposals = self.product.proposals
        key = self.product.space.tool_key(tool)
        masks = proposals.completions(key, self._known(state, tool, args))
        if masks is None:
            return None
        unmet = 0
        for mask in masks:
            j = proposals.step(state.jid, key, mask)
            if j is not None:
                unmet |= proposals.unmet(j)
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

    # ------------------------------------------------------------ how strong an open question is

    def _owing(self, state: GateState, unmet_after: Callable[[], int | None], after: Mapping[int, frozenset[bool]],
               broken: Collection[int], lost_now: int) -> int:
        """The rules (as bits of `_rule_bit`) that may still owe something right after the call,
        for some result of it: every conflict holds one, since a set of rules all satisfied if
        the run ended there is satisfied by ending it (a rule lost before the call or by it is
        in no conflict). Plain rules the call may leave unmet (`_unmet_after`; every open one
        when the call's guard combinations are not decided), sliced rules not accepting after it."""
        unmet = unmet_after()
        opened = self.product.proposals.open_bits(state.jid) & ~lost_now
        out = opened if unmet is None else unmet & opened  # plain rules are bits 0..n-1
        shift = len(self.product.rules)
        for j, run in enumerate(state.runs):
            if j in broken or run.verdict() == VIOLATED:
                continue
            if (False in after[j]) if j in after else not run.accepting():
                out |= 1 << (shift + j)
        return out

    def _bounded(self, item: Open, owing: int) -> Open:
        """The open question with its ceiling (`_ceiling`)."""
        ceiling = self._ceiling(item.rules, owing, item.about or None)
        return item if ceiling == item.ceiling else Open(item.text, item.rules, item.about, ceiling)

    def _ceiling(self, names: Sequence[str], owing: int, about: str | None = None) -> str:
        """The strongest severity a conflict among `names` (holding `about`, when given) could be
        enforced with, or "" when any. A conflict is enforced with the mildest severity of its
        rules, holds two rules or more (one rule alone is judged exactly), holds a rule that may
        still owe something after the call (`owing`), and is connected: its rules constrain one
        another (`_near`). So the ceiling is the strongest severity s for which the rules of
        severity s or stronger hold such a connected set. Memoised per arguments."""
        memo = (tuple(names), owing, about)
        found = self._ceilings.get(memo)
        if found is not None:
            return found
        bits = [self._rule_bit[name] for name in names if name in self._rule_bit]
        ranks = self._rule_rank
        starts = [self._rule_bit[about]] if about is not None else [b for b in bits if owing >> b & 1]
        found = SEVERITY_ORDER[0]  # nothing stronger is possible: the mildest bounds nothing
        for level in range(len(SEVERITY_ORDER) - 1, 0, -1):
            allowed = sum(1 << b for b in bits if ranks[b] >= level)
            if any(self._feasible(start, allowed, owing) for start in starts if allowed >> start & 1):
                found = SEVERITY_ORDER[level]
                break
        remember(self._ceilings, memo, found)
        return found

    def _feasible(self, start: int, allowed: int, owing: int) -> bool:
        """Whether the rules of `allowed` connected to rule `start` are two or more and hold an
        owing one."""
        group = frontier = 1 << start
        while frontier:
            reach = 0
            while frontier:
                low = frontier & -frontier
                reach |= self._adjacent[low.bit_length() - 1]
                frontier ^= low
            frontier = reach & allowed & ~group
            group |= frontier
        return group & (group - 1) != 0 and group & owing != 0

    # ------------------------------------------------------------ the joint search with per-value rules

    def _counted_conflicts(self, state: GateState, tool: str, args: Mapping[str, Any], broken: Collection[int],
                           lost_now: int, checked: set[int]) -> tuple[list[Finding], tuple[Open, ...]]:
        """Conflicts among the rules of each counted group the call may move (per-value rules
        included, `policyc.tables.counting`): rules that could all hold before the call, each of
        which can still hold after it (a rule lost before the call or by it is in none), that
        no continuation satisfies together, whatever the call returns; and the groups whose
        question was not decided. A continuation the search found is checked, value by value,
        on the group's rules over pairs and the atoms that read places a per-value rule binds
        (`policyc.runtime.witness`, when judgements are not memoised: the check reads the run's
        values themselves); when it holds there, the group's rules can hold together: its
        question is decided, and its rules over pairs are added to `checked`."""
        counting = self.counting
        assert counting is not None and state.tokens is not None
        proposals = self.product.proposals
        masks = proposals.completions(self.product.space.tool_key(tool), self._known(state, tool, args))
        key = counting.search_key(tool)  # a tool only a part's domain names is the search's own
        found: list[Finding] = []
        undecided: list[Open] = []
        for b, (plain, sliced, reach) in enumerate(self.counted):
            if reach is not None and tool not in reach:
                continue
            open_plain = tuple(i for i in plain if proposals.is_open(state.jid, i) and not lost_now >> i & 1)
            open_sliced = tuple(k for k in sliced if state.runs[k].verdict() == OPEN and k not in broken)
            if not open_plain and not open_sliced:
                continue
            if masks is None:
                undecided.append(self._counted_text(open_plain, open_sliced,
                                                    f"the guard combinations of `{tool}` were not decided"))
                continue
            rules = counting.rules(open_plain, open_sliced)
            here = self._state_of(rules, state)
            witnesses: list[Witness] | None = None if self.memoised or self.concrete is None else []
            answer, why = self._after_call(rules, state, key, masks, tool, args, here, witnesses)
            pairs = tuple(q for q in self._counted_pairs[b] if state.runs[q].verdict() == OPEN and q not in broken)
            if answer is not False and witnesses and (pairs or answer is None) and \
                    self._holds_concretely(rules, state, here, witnesses, pairs, tool, args, masks):
                checked.update(pairs)
                answer = True
            if answer is True:
                continue
            if counting.check(rules, here) is False:
                continue  # already impossible before this call: not its doing (reported then)
            if answer is None:
                undecided.append(self._counted_text(open_plain, open_sliced, why))
                continue
            # no continuation after the call, whatever it returns: a conflict, even when whether
            # one existed before the call was not decided (that does not make this "no" less certain)
            core = self._counted_core(rules, state, key, masks, tool, args)
            found.append(self._conflict(core))
        return found, tuple(undecided)

    def _holds_concretely(self, rules: Rules, state: GateState, here: State, witnesses: Sequence[Witness],
                          pairs: Sequence[int], tool: str, args: Mapping[str, Any], masks: Collection[int]) -> bool:
        """Whether one of the continuations the search found (the one that answered yes first)
        holds, with values, on the rules over pairs `pairs` and on every atom that reads a
        place given a value (`Concrete.holds`)."""
        concrete, tokens = self.concrete, state.tokens
        assert concrete is not None and tokens is not None
        instances = []
        for q in pairs:
            found = Instances.of_run(concrete.pairs[q], state.runs[q].states[0])
            if found is None:
                return False
            instances.append(found)
        run_values = {v: tuple(p[i] for i in rules.parts) for v, p in tokens.where.items()}
        listed = list(masks)
        return any(concrete.holds(rules, here, run_values, instances, w, tool, args, listed)
                   for w in reversed(witnesses))

    def _state_of(self, rules: Rules, state: GateState) -> State:
        counting = self.counting
        assert counting is not None and state.tokens is not None
        part_states = {(r, j): state.runs[r].states[j] for r in rules.sliced
                       for j, p in enumerate(counting.part_numbers[r]) if p is None}
        return counting.project(rules, self.product.space.states[state.jid], part_states, state.tokens.fresh,
                                state.tokens.profiles())

    def _after_call(self, rules: Rules, state: GateState, key: str, masks: Collection[int], tool: str,
                    args: Mapping[str, Any], here: State | None = None,
                    witnesses: list[Witness] | None = None) -> tuple[bool | None, str]:
        """Whether some result of the proposed call leaves a continuation satisfying the rules
        (None: not decided, and why); `here`: the run's state as the rules' (`_state_of`), when
        read already. `witnesses` receives the continuations found, the call first, in the
        order tried (the last one the one that answered yes, when one did)."""
        counting = self.counting
        assert counting is not None and state.tokens is not None
        if here is None:
            here = self._state_of(rules, state)
        why = ""
        few = ""
        try:
            successors = self._successors(rules, state, here, key, masks, tool, args)
        except TooManyFillings as exc:  # a few results tried: one that leaves a way out decides
            successors, few = self._successors(rules, state, here, key, masks, tool, args, few=True), str(exc)
        for after, move, filling in successors:
            answer = counting.check(rules, after)
            if witnesses is not None:
                path = counting.witness(rules, after)
                if path is not None:
                    witnesses.append(((move, filling),) + path)
            if answer is True:
                return True, ""
            if answer is None and not why:
                why = counting.why(rules, after)
        if few:
            return None, f"{few}, and the few tried leave no continuation"
        return (None, why) if why else (False, "")

    def _successors(self, rules: Rules, state: GateState, here: State, key: str, masks: Collection[int], tool: str,
                    args: Mapping[str, Any], few: bool = False) -> list[tuple[State, SearchMove, Filling]]:
        """The states of the rules the proposed call may lead to, whatever its result: every
        letter it may turn out to be, and every value its result may hold in a slot (with
        `few`, only `few_fillings` of the result's slots; raises `TooManyFillings` without it
        when they have too many); each with the call as the search reads it."""
        assert state.tokens is not None
        tokens = state.tokens
        slots = rules.slots.get(key, ())
        arg_slots = [s for s in slots if s[0] == "arg"]
        result_slots = [s for s in slots if s[0] == "result"]
        parts = rules.parts
        # the arguments' values: by value, the slots each fills and its profile in the set
        blocks: list[tuple[object, frozenset[Slot]]] = []
        absent = []
        by_value: dict[object, set[Slot]] = {}
        for slot in arg_slots:
            value = slot_value(slot, args, UNDEF)
            if value is UNDEF:
                absent.append(slot)
            else:
                by_value.setdefault(value_key(value), set()).add(slot)
        taken: dict[object, int] = {}
        for value, held in by_value.items():
            profile = tokens.where.get(value)
            small = tuple(profile[p] for p in parts) if profile is not None else None
            if small is None or all(e < 0 for e in small):
                blocks.append((NEW, frozenset(held)))
            else:
                blocks.append((small, frozenset(held)))
                taken[small] = taken.get(small, 0) + 1
        counts = dict(here[2])
        rest = tuple((p, c - taken.get(p, 0)) for p, c in counts.items() if c - taken.get(p, 0) > 0)
        assert self.counting is not None
        optional = self.counting.optional(key, result_slots)
        out = []
        for mask in masks:
            move = rules.move_for(key, mask, tool in self.terminal)
            if move is None:
                continue
            ways = few_fillings(result_slots, optional, True) if few else \
                self.counting.fillings(result_slots, rest, optional, True)
            for extra in ways:
                variants = [tuple(blocks) + extra]
                for filler, extra_held in extra:  # a result may also hold one of the arguments' values
                    if filler is NEW:
                        for j, (f, b) in enumerate(blocks):
                            merged = list(blocks)
                            merged[j] = (f, b | extra_held)
                            variants.append(tuple(merged) + tuple(e for e in extra if e[1] is not extra_held))
                for filling in variants:
                    filling = tuple(filling) + tuple((ABSENT, frozenset((s,))) for s in absent)
                    after = rules.step(here, move, filling, relaxed=False)
                    if after is not None:
                        out.append((after, move, filling))
        return out

    def _counted_core(self, rules: Rules, state: GateState, key: str, masks: Collection[int], tool: str,
                      args: Mapping[str, Any]) -> tuple[str, ...]:
        """A minimal set of the rules no continuation satisfies after the call (deletion)."""
        counting = self.counting
        assert counting is not None
        plain, sliced = list(rules.plain), list(rules.sliced)
        for kind, x in [("plain", i) for i in rules.plain] + [("sliced", k) for k in rules.sliced]:
            trial_plain = [i for i in plain if not (kind == "plain" and i == x)]
            trial_sliced = [k for k in sliced if not (kind == "sliced" and k == x)]
            if not trial_plain and not trial_sliced:
                continue
            trial = counting.rules(tuple(trial_plain), tuple(trial_sliced))
            if self._after_call(trial, state, key, masks, tool, args)[0] is False:
                plain, sliced = trial_plain, trial_sliced
        return tuple(self.product.rules[i].name for i in plain) + tuple(self.sliced[k][0].name for k in sliced)

    def _conflict(self, names: tuple[str, ...]) -> Finding:
        infos = {r.name: r for r in self.rules}
        chosen = [infos[name] for name in names]
        severity, limit = mildest([(r.severity, r.limit) for r in chosen])
        layers = {r.layer for r in chosen}
        return Finding(" & ".join(names), CONFLICT, layers.pop() if len(layers) == 1 else None, severity, limit,
                       "no continuation of the run satisfies them all", names)

    def _counted_text(self, plain: tuple[int, ...], sliced: tuple[int, ...], why: str) -> Open:
        names = [self.product.rules[i].name for i in plain] + [self.sliced[k][0].name for k in sliced]
        listed = ", ".join(names[:6]) + (", ..." if len(names) > 6 else "")
        return Open(f"whether {listed} can still hold together was not decided ({why})", tuple(names))

    # ------------------------------------------------------------ run state

    def context(self, constants: Constants = NO_CONSTANTS, sources: Any = None) -> RunContext:
        """A run's constants, with empty history stores (`sources`: its sources by position,
        for provenance; a gated run's own index is attached by the run)."""
        return RunContext(constants, self.history, self.externs, sources)

    def start(self, constants: Constants = NO_CONSTANTS) -> GateState:
        """A new run's state; `constants`: the request and metrics it was started with
        (unknown ones are free inputs)."""
        context = self.context(constants)
        tokens = TokenRun(self.counting) if self.counted and self.counting is not None else None
        return GateState(self.product.start(context), [rule.start(context) for _, rule in self.sliced], context,
                         tokens)

    def advance(self, state: GateState, tool: str, args: Mapping[str, Any], result: Any) -> GateState:
        """The state after an executed call (slice runs and values are stepped in place)."""
        context = state.context
        key, mask = self.product.call_mask(tool, args, result, context)
        state.jid = self.product.proposals.advance(state.jid, key, mask)
        if state.tokens is not None:
            assert self.counting is not None
            state.tokens.step(self.counting.search_key(tool), mask, args, result)
        if self.memoised and self.sliced:  # no sliced rule reads the context then: stepped lazily
            state.behind.append(lambda: self._step_runs(state._runs, tool, args, result))
        else:
            self._step_runs(state.runs, tool, args, result)
        context.record(tool, args, result)  # history atoms ask about calls before theirs
        return state

    def _step_runs(self, runs: list[RuleRun], tool: str, args: Mapping[str, Any], result: Any) -> None:
        for k in self._moving(tool):  # a call that cannot move a rule leaves it where it is
            if runs[k].verdict() == OPEN:  # a verdict settled for good stays whatever comes next
                self.sliced[k][1].advance(runs[k], tool, args, result)

    def dump_state(self, state: GateState) -> dict[str, object]:
        return {"product": self.product.dump_state(state.jid), "sliced": [run.to_json() for run in state.runs]}

    def verdicts(self, state: GateState) -> dict[str, tuple[str, bool]]:
        """(certain verdict, accepting) of every gated rule in this state."""
        space = self.product.space
        out = {r.name: (space.verdict(state.jid, i), space.accepting(state.jid, (i,)))
               for i, r in enumerate(self.product.rules)}
        for (info, _), run in zip(self.sliced, state.runs):
            out[info.name] = (run.verdict(), run.accepting())
        return out

    def accepting_after(self, calls: Sequence[Call], constants: Constants = NO_CONSTANTS,
                        sources: Any = None) -> dict[str, bool | None]:
        """Whether a run of these executed calls satisfies each gated rule (None: untracked):
        the offline path, the product stepped with one memo lookup per call when warm.
        `constants`: the run's request and metrics (`Constants.of_trace`); `sources`: its
        sources by position (`trace.globals.history`)."""
        proposals = self.product.proposals
        accepting = proposals.accepting_each(proposals.run_calls(calls, self.context(constants, sources)))
        out: dict[str, bool | None] = {r.name: a for r, a in zip(self.product.rules, accepting)}
        if self.sliced:
            context = self.context(constants, sources)
            runs = [rule.start(context) for _, rule in self.sliced]
            for call in calls:
                for (_, rule), run in zip(self.sliced, runs):
                    rule.advance(run, call.name, call.args, call.result)
                context.record(call.name, call.args, call.result)
            out.update({info.name: run.accepting() for (info, _), run in zip(self.sliced, runs)})
        return out

    # ------------------------------------------------------------ judging a proposal

    def judge(self, state: GateState, tool: str, args: Mapping[str, Any], calls: Sequence[Call] = (),
              request: str | None = None, index: Any = None) -> tuple[list[Finding], tuple[str, ...]]:
        """The rule findings of proposing this call after `calls` (the run so far, needed only
        by a final answer, which also decides the rules no automaton could compile), and what
        the gate could not decide about it (`index`: the run's history, for those rules)."""
        if self.memoised:
            known = self._known(state, tool, args)
            tokens = state.tokens
            memo = (tool, known, state.jid) if tokens is None else \
                (tool, known, state.jid, tokens.key, tokens.pattern(tokens.space.search_key(tool), args))
            found = self._judgements.get(memo)
            if found is None:
                findings, opens = self._judge(state, tool, args, calls, request, index)
                found = self._judgements[memo] = self._settle(findings, opens)
            return list(found[0]), found[1]
        settled, undecided = self._settle(*self._judge(state, tool, args, calls, request, index))
        return list(settled), undecided

    def _settle(self, findings: list[Finding], opens: Sequence[Open]) -> tuple[tuple[Finding, ...], tuple[str, ...]]:
        """The findings of a judgement with what the policy's `undecided` setting makes of its
        open questions: a question that concerns rules of a refusing severity refuses the call
        (a finding of kind `undecided`, enforced with the strongest such severity, no stronger
        than the question's ceiling); every open question stays listed on the decision."""
        out = list(findings)
        refusing = self.undecided_refuse
        for item in opens:
            top = SEVERITY_RANK[item.ceiling] if item.ceiling else len(SEVERITY_RANK)
            concerned = [self._infos[name] for name in item.rules
                         if name in self._infos and self._infos[name].severity in refusing
                         and SEVERITY_RANK[self._infos[name].severity] <= top]
            if concerned:
                strongest = max(concerned, key=lambda r: SEVERITY_RANK[r.severity])
                names = tuple(r.name for r in concerned)
                out.append(Finding(" & ".join(names), UNDECIDED, strongest.layer, strongest.severity,
                                   strongest.limit, item.text, names, strongest.message))
        return tuple(out), tuple(dict.fromkeys(item.text for item in opens))

    def _judge(self, state: GateState, tool: str, args: Mapping[str, Any], calls: Sequence[Call],
               request: str | None, index: Any) -> tuple[list[Finding], tuple[Open, ...]]:
        plain, undecided = self.product.judge(state.jid, tool, args, state.context, self._known(state, tool, args))
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
            if run.blind:
                undecided = tuple(undecided) + (Open(
                    f"rule `{info.name}`: it reads the run's request or metrics, which this run was not given; "
                    "it is judged when the run finishes", (info.name,)),)
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
            unmet: list[int | None] = []

            def unmet_after() -> int | None:  # the plain rules the call may leave unmet, read once
                if not unmet:
                    unmet.append(self._unmet_after(state, tool, args))
                return unmet[0]

            checked: set[int] = set()  # rules over pairs a continuation checked value by value holds
            open_questions: tuple[Open, ...] = ()
            if self.counted:
                found, open_questions = self._counted_conflicts(state, tool, args, broken, lost_now, checked)
                findings.extend(found)
            joint = self._joint_unsearched(state, unmet_after, tool, after, broken, lost_now, checked)
            joint += open_questions
            if joint:
                owing = self._owing(state, unmet_after, after, broken, lost_now)
                undecided = tuple(undecided) + tuple(self._bounded(item, owing) for item in joint)
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


def _required_arguments(tools: Mapping[str, Any]) -> dict[str, frozenset[str]]:
    """Per declared tool, the arguments a well-formed call gives."""
    return {name: frozenset(p.name for p in sig.params if not isinstance(p.type, OptionalT))
            for name, sig in tools.items()}
