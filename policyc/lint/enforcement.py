"""Unenforceable severities (L0006): `block`, `deny`, `soft_block` or `stop` on a rule the gate
can never act on.

The gate (`policyc.runtime`) acts before a call runs, in three ways: the call would be a
bad prefix (every result it may have leaves the rule violated for good); or it is a
terminal call, which ends the run, and would leave the rule unsatisfied; or, for a rule the
automata do not compile, a terminal call is proposed and the rule, which must not read that
call's result nor the metrics, is then decided by the evaluator. This analysis asks the
same of the rule's tables, so its answer is about the gate itself, exactly:

- a rule with one automaton: every state a run can reach (a terminal call only last) is
  examined, with every proposal (a tool and the truth of the conditions on its arguments;
  its result is unknown): the gate acts if one of them is certainly violated or, for a
  terminal tool, certainly unsatisfied. If no proposal is, but some call's result can make
  the rule violated, the rule is only detected after the fact;
- a rule the automata do not compile (metrics, `outputs`, nested quantifiers): the gate acts
  on it only when a terminal call is proposed (the rule must not read that call's result nor
  the metrics), or, for a rule whose failure on a prefix is final, when a call to a tool it
  mentions (whose result it does not read) makes it fail; the metrics do not exist before
  the run is over, so a rule that reads them is unenforceable;
- a rule with quantified parts: each part's per-value automata are examined the same way; if
  none lets the gate act, the answer is not decided (the parts combine per value).

>>> from policyc.check import check_text
>>> from policyc.lint import LintOptions, lint_policy
>>> src = 'policy p\\ntool a()\\nrule r severity block: called(a)\\n'
>>> [f.code for f in lint_policy(check_text(src, "p.altl")[0], LintOptions(bound=4)).findings]
['L0006']
"""

from __future__ import annotations

from collections import deque
from typing import Mapping

from policyc.ir import nodes as n
from policyc.ir.types import ToolSignature
from policyc.ir.walk import subformulas, tools_mentioned
from policyc.lint.context import LintContext
from policyc.lint.findings import Finding, undecided
from policyc.lint.questions import AUTOMATA_EXACT, Asker
from policyc.lint.units import Phase, UnitResult
from policyc.smt import EXACT
from policyc.tables.dfa import VIOLATED, DfaTable
from policyc.scoring.certain import is_final_on_prefixes
from policyc.tables.facts import decided_by_final_call, reads_result_of
from policyc.tables.slicing import SliceTable


def severity_items(ctx: LintContext) -> list[str]:
    return [r.name for r in ctx.active_rules if r.severity.can_block and r.name not in ctx.valid]


def check_severity(ctx: LintContext, _asker: Asker, name: str) -> UnitResult:
    rule = ctx.policy.rule(name)
    terminal = ctx.policy.terminal_tools
    out = UnitResult()
    severity = str(rule.severity)
    table = ctx.automata.table(rule.formula)
    if table is None:
        reads_metrics = any(isinstance(s, n.Metric) for s in subformulas(rule.formula))
        if terminal and decided_by_final_call(rule.formula, terminal):
            out.used.add("the gate decides it when a terminal call is proposed")
            return out
        if not reads_metrics and is_final_on_prefixes(rule.formula) and any(
                not reads_result_of(rule.formula, t) for t in tools_mentioned(rule.formula)):
            out.used.add("the gate decides it on the evaluator when a call makes its failure final")
            return out
        reason = ctx.automata.reason(rule.formula) or "it does not compile"
        why = ("it reads the metrics record, which exists only once the run is over"
               if reads_metrics else
               "no tool is declared `terminal`" if not terminal else
               "it reads the result of the terminal call")
        out.used.add("the compiler's fragment")
        out.findings.append(Finding(
            "L0006", f"rule `{name}` has severity `{severity}` but the gate cannot decide it", (name,), EXACT,
            help="the gate has no automaton for this rule and never blocks on it; it is scored offline only: use "
                 "`warn` or `tolerate`, or rewrite it so that it compiles",
            evidence=(f"the automata do not compile it: {reason}",
                      f"a rule the automata do not compile is decided when a terminal call is proposed, "
                      f"but {why}")))
        return out
    out.used.add("automata: every reachable state and proposal")
    if table.dfa is not None:
        blocks, detects = gate_acts(table.dfa, ctx.policy.tools, terminal)
    else:
        dfas = [p for p in table.parts if isinstance(p, DfaTable)]
        dfas += [d for p in table.parts if isinstance(p, SliceTable) for d in p.bodies.values()]
        answers = [gate_acts(d, ctx.policy.tools, terminal) for d in dfas]
        if any(a[0] for a in answers):
            return out
        out.findings.append(undecided(
            f"whether the gate can act on rule `{name}` (severity `{severity}`)", (name,),
            "its quantified parts are monitored per value, and no part's automaton alone lets the gate act"))
        return out
    if blocks:
        return out
    if detects:
        out.findings.append(Finding(
            "L0006", f"rule `{name}` has severity `{severity}` but is only decided by a call's result",
            (name,), AUTOMATA_EXACT,
            help="the gate decides before the call runs, when its result does not exist yet; the rule is "
                 "detected after the fact and scored offline: use `warn`, or test the arguments instead",
            evidence=("the violation is certain only once the result of the offending call is known",)))
    else:
        out.findings.append(Finding(
            "L0006", f"rule `{name}` has severity `{severity}` but no call can ever violate it for certain",
            (name,), AUTOMATA_EXACT,
            help="the rule can only fail when the run ends (liveness), so the gate never blocks on it; "
                 "use `warn` or `tolerate`, or declare the final-answer tool `terminal`",
            evidence=("every run so far can still be completed into one that satisfies it"
                      + (", and no terminal call leaves it unsatisfied" if terminal else ""),)))
    return out


def gate_acts(dfa: DfaTable, tools: Mapping[str, ToolSignature], terminal: frozenset[str]) -> tuple[bool, bool]:
    """(the gate can refuse some proposal, some executed call can violate the rule for good),
    over every state a run can reach (a terminal call ends it).

    >>> from policyc.automata import compile_rule
    >>> from policyc.ir import build as b
    >>> from policyc.smt import bare_tools
    >>> called = compile_rule(b.eventually(b.event("a"))).dfa
    >>> gate_acts(called, bare_tools("a", "done"), frozenset()), gate_acts(called, bare_tools("a", "done"), frozenset({"done"}))
    ((False, False), (True, False))
    """
    ab = dfa.alphabet
    groups: list[tuple[bool, tuple[int, ...]]] = []  # (ends the run, letters one proposal may be)
    for tool, letters in ab.tools.items():
        by_known: dict[int, list[int]] = {}
        for mask, letter in letters.letters.items():
            by_known.setdefault(mask & ~letters.result_bits, []).append(letter)
        groups.extend((tool in terminal, tuple(v)) for v in by_known.values())
    others = [t for t in tools if t not in ab.tools]
    endings = {t in terminal for t in others} if others else set() if tools else {False}
    groups.extend((final, (ab.other,)) for final in sorted(endings))
    verdict, accepting = dfa.verdict, dfa.accepting
    seen = {dfa.initial, *(q for _, q in dfa.initials)}  # a run given its constants starts at its truth's
    queue = deque(seen)
    blocks = detects = False
    while queue:
        q = queue.popleft()
        if verdict[q] == VIOLATED:
            continue
        row = dfa.delta[q]
        for final, group in groups:
            after = [row[letter] for letter in group]
            lost = [verdict[t] == VIOLATED for t in after]
            if all(lost) or final and not any(accepting[t] for t in after):
                blocks = True
            detects |= any(lost)
            if not final:
                for t in after:
                    if t not in seen:
                        seen.add(t)
                        queue.append(t)
        if blocks:
            break
    return blocks, detects


SEVERITIES = Phase("unenforceable-severity", "severities", severity_items, check_severity)
