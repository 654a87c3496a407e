"""The exact gate: judge a proposed call against the prefix plus that call, before it runs.

The compiled rules of an artifact come in two kinds. A rule that is one automaton (most
rules) joins the product of `policyc.runtime.plain`: exact verdicts per call, conflicts
between rules, guidance. A rule with quantified parts (parametric slicing) is stepped by its
own slice run and judged per value (`policyc.runtime.sliced`). Rules the automata cannot
compile are decided when a final answer is proposed, if they can be then
(`policyc.runtime.offline`), and scored when the run finishes.

A run's gate state is a `GateState`: the product's joint state and the slice runs.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from policyc.artifact.models import Artifact
from policyc.automata.rule_table import RuleRun, RuleTable
from policyc.automata.table import VIOLATED
from policyc.ir.policy import Policy
from policyc.runtime.findings import OWED, VIOLATION, Finding
from policyc.runtime.offline import OfflineRules
from policyc.runtime.plain import GatedRule, PlainRules
from policyc.runtime.sliced import SlicedRule
from policyc.trace.model import Call


class GateState:
    """Where one run is: the product's joint state, and each sliced rule's run."""

    __slots__ = ("jid", "runs")

    def __init__(self, jid: int, runs: list[RuleRun]):
        self.jid = jid
        self.runs = runs


class Gate:
    """Every compiled rule of an artifact."""

    def __init__(self, artifact: Artifact, policy: Policy, externs: Mapping | None = None):
        plain_rules, plain_tables = [], []
        self.sliced: list[tuple[GatedRule, SlicedRule]] = []
        self.tables: dict[str, RuleTable] = {}
        uncompiled: list[GatedRule] = []
        reasons: dict[str, str] = {}
        for rule in artifact.rules:
            if rule.automaton is None:
                uncompiled.append(GatedRule(rule.name, rule.layer, rule.severity.kind, rule.severity.limit,
                                            rule.message))
                reasons[rule.name] = rule.offline_reason or ""
                continue
            table = RuleTable.from_json(artifact.automata[rule.automaton]["rule"])
            self.tables[rule.name] = table
            info = GatedRule(rule.name, rule.layer, rule.severity.kind, rule.severity.limit, rule.message)
            if table.dfa is not None:
                plain_rules.append(info)
                plain_tables.append(table.dfa)
            else:
                self.sliced.append((info, SlicedRule(table, externs)))
        self.terminal = policy.terminal_tools
        self.offline = OfflineRules(uncompiled, policy, externs, reasons) if uncompiled else None
        rivals = None
        if artifact.rivals is not None:  # pairs of rules that can conflict, found when compiling
            index = {info.name: i for i, info in enumerate(plain_rules)}
            found: dict[int, set[int]] = {}
            for a, b in artifact.rivals:
                if a in index and b in index:
                    found.setdefault(index[a], set()).add(index[b])
                    found.setdefault(index[b], set()).add(index[a])
            rivals = {i: tuple(sorted(js)) for i, js in found.items()}
        self.plain = PlainRules(plain_rules, plain_tables, policy.tools, self.terminal, externs, rivals)
        self.rules = plain_rules + [info for info, _ in self.sliced]

    # ------------------------------------------------------------ run state

    def start(self) -> GateState:
        return GateState(self.plain.start(), [rule.start() for _, rule in self.sliced])

    def advance(self, state: GateState, tool: str, args: Mapping[str, Any], result: Any) -> GateState:
        """The state after an executed call (slice runs are stepped in place)."""
        state.jid = self.plain.advance(state.jid, tool, args, result)
        for (_, rule), run in zip(self.sliced, state.runs):
            rule.advance(run, tool, args, result)
        return state

    def dump_state(self, state: GateState) -> dict:
        return {"product": self.plain.dump_state(state.jid), "sliced": [run.to_json() for run in state.runs]}

    def load_state(self, data: dict) -> GateState:
        runs = data["sliced"]
        if len(runs) != len(self.sliced):
            raise ValueError("the gate state does not fit this artifact's automata")
        return GateState(self.plain.load_state(data["product"]),
                         [RuleRun.from_json(rule.table, run) for (_, rule), run in zip(self.sliced, runs)])

    def verdicts(self, state: GateState) -> dict[str, tuple[str, bool]]:
        """(certain verdict, accepting) of every gated rule in this state."""
        space = self.plain.space
        out = {r.name: (space.verdict(state.jid, i), space.accepting(state.jid, (i,)))
               for i, r in enumerate(self.plain.rules)}
        for (info, _), run in zip(self.sliced, state.runs):
            out[info.name] = (run.verdict(), run.accepting())
        return out

    def accepting_after(self, calls) -> dict[str, bool | None]:
        """Whether a run of these executed calls satisfies each gated rule (None: untracked):
        the offline path, the product stepped with one memo lookup per call when warm."""
        space = self.plain.space
        accepting = space.accepting_each(space.run_calls(calls))
        out: dict[str, bool | None] = {r.name: a for r, a in zip(self.plain.rules, accepting)}
        if self.sliced:
            runs = [rule.start() for _, rule in self.sliced]
            for call in calls:
                for (_, rule), run in zip(self.sliced, runs):
                    rule.advance(run, call.name, call.args, call.result)
            out.update({info.name: run.accepting() for (info, _), run in zip(self.sliced, runs)})
        return out

    # ------------------------------------------------------------ judging a proposal

    def judge(self, state: GateState, tool: str, args: Mapping[str, Any], calls: Sequence[Call] = ()) -> list[Finding]:
        """The rule findings of proposing this call after `calls` (the run so far, needed only
        by a final answer, which also decides the rules no automaton could compile)."""
        findings = self.plain.judge(state.jid, tool, args)
        final = tool in self.terminal
        for (info, rule), run in zip(self.sliced, state.runs):
            if run.verdict() == VIOLATED:
                continue  # lost before this call: not its doing
            verdicts, accepting = rule.outcomes(run, tool, args)
            if verdicts == {VIOLATED}:
                findings.append(Finding(info.name, VIOLATION, info.layer, info.severity, info.limit,
                                        f"after `{tool}` no continuation of the run can satisfy it", (),
                                        info.message))
            elif final and True not in accepting:
                findings.append(Finding(info.name, OWED, info.layer, info.severity, info.limit,
                                        f"ending the run with `{tool}` now leaves it unsatisfied", (),
                                        info.message))
        if self.offline is not None:
            findings.extend(self.offline.judge_final(calls, tool, args) if final
                            else self.offline.judge(calls, tool, args))
        return findings

    def undecided(self, tool: str, args: Mapping[str, Any], calls: Sequence[Call] = ()) -> tuple[tuple[str, str], ...]:
        """The rules this proposal may bear on that the gate cannot decide now, with why."""
        return self.offline.undecided(calls, tool, args) if self.offline is not None else ()

    # ------------------------------------------------------------ guidance

    def allowed_next(self, state: GateState) -> tuple[str, ...]:
        """Tools some call of which breaks no single-automaton rule and starts no conflict
        (rules with quantified parts allow a tool as long as some arguments would do)."""
        return self.plain.allowed_next(state.jid)

    def required(self, state: GateState) -> tuple[str, ...]:
        return self.plain.required(state.jid)
