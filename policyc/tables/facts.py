"""Rule classes read off compiled tables (appendix A.5.1 of the AgentLTL paper).

- enforceable: some prefix is bad (no continuation satisfies the rule): the gate can act;
- liveness: no prefix is bad; the rule is decided when the run ends (scored offline);
- safety: every violating trace has a bad prefix (each violation is seen as it happens);
- gateable: some violation is decided by a proposed call's name and arguments alone,
  before its result exists (the gate can refuse the call); fully gateable: every one is.

`kind` is what reports print: "gateable", "detectable" (enforceable, but only once a
call's result is known) or "offline-only" (liveness, or not compiled).

>>> from policyc.tables.dfa import Alphabet, DfaTable, ToolLetters
>>> from policyc.tables.rule import RuleTable
>>> ab = Alphabet((), {"a": ToolLetters((), {0: 0}, 0)}, other=1)
>>> never_a = DfaTable(ab, 0, ((1, 0), (1, 1)), (True, False), ("open", "violated"), (None, None), (0, None), (0, None))
>>> c = classify_table(RuleTable(0, (never_a,)))
>>> c.kind, c.is_safety, c.min_bad_prefix
('gateable', True, 1)
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

from policyc.ir import nodes as n
from policyc.ir.walk import subformulas
from policyc.tables.dfa import SATISFIED, VIOLATED, DfaTable
from policyc.tables.rule import RuleTable, combine
from policyc.tables.slicing import SliceTable

GATEABLE, DETECTABLE, OFFLINE_ONLY = "gateable", "detectable", "offline-only"


@dataclass(frozen=True)
class RuleClass:
    is_enforceable: bool
    is_gateable: bool
    is_fully_gateable: bool
    is_liveness: bool
    is_safety: bool
    compiled: bool
    reason: str
    min_bad_prefix: int | None = None  # length of the shortest bad prefix
    exact: bool = True  # False when sliced parts or undecided guards make it an estimate

    @property
    def kind(self) -> str:
        if not self.compiled or not self.is_enforceable:
            return OFFLINE_ONLY
        return GATEABLE if self.is_gateable else DETECTABLE


def not_compiled(reason: str) -> RuleClass:
    """The class of a rule the automata do not compile."""
    return RuleClass(False, False, False, False, False, False,
                     f"not compiled ({reason}): the rule is scored offline only")


@dataclass(frozen=True)
class DfaFacts:
    enforceable: bool
    satisfiable_forever: bool  # a permanently satisfied state is reachable
    gateable: bool
    fully_gateable: bool
    safety: bool
    min_bad: int | None


def dfa_facts(dfa: DfaTable) -> DfaFacts:
    """What one DFA says about its rule."""
    verdict = dfa.verdict
    ab = dfa.alphabet
    groups: list[list[int]] = [[ab.other]]
    for tl in ab.tools.values():
        by_known: dict[int, list[int]] = {}
        for mask, letter in tl.letters.items():
            by_known.setdefault(mask & ~tl.result_bits, []).append(letter)
        groups.extend(by_known.values())
    some, every = False, True
    for q, row in enumerate(dfa.delta):
        if verdict[q] == VIOLATED:
            continue
        for group in groups:
            bad = [verdict[row[letter]] == VIOLATED for letter in group]
            if all(bad):
                some = True
            elif any(bad):
                every = False
    starts = [dfa.initial, *(q for _, q in dfa.initials)]  # the free variant's, and one per truth of the constants
    dist = {q: 0 for q in starts}
    queue = deque(dist)
    min_bad = None
    while queue:
        q = queue.popleft()
        if verdict[q] == VIOLATED:
            min_bad = dist[q]
            break
        for t in dfa.delta[q]:
            if t not in dist:
                dist[t] = dist[q] + 1
                queue.append(t)
    enforceable = VIOLATED in verdict
    return DfaFacts(enforceable, SATISFIED in verdict, some, enforceable and every,
                    all(a or v == VIOLATED for a, v in zip(dfa.accepting, verdict)), min_bad)


def slice_facts(s: SliceTable) -> DfaFacts:
    """What a sliced part's instance automata say about it."""
    facts = [dfa_facts(d) for d in s.bodies.values()]
    if s.kind == "forall":
        # a value whose instance is lost from the start (its static conditions fail) breaks the
        # rule when a call's arguments bring it into the domain: the gate refuses that call
        lost_at_once = any(d.verdict[d.initial] == VIOLATED for d in s.bodies.values()) and \
            any(path and path[0] != "result" for _, path, _ in s.domain)
        return DfaFacts(any(f.enforceable for f in facts), all(f.satisfiable_forever for f in facts),
                        any(f.gateable for f in facts) or lost_at_once,
                        all(f.fully_gateable or not f.enforceable for f in facts)
                        and any(f.enforceable for f in facts),
                        all(f.safety for f in facts), min((f.min_bad for f in facts if f.min_bad is not None),
                                                          default=None))
    unsat = all(d.verdict[d.initial] == VIOLATED for d in s.bodies.values())
    return DfaFacts(unsat, any(f.satisfiable_forever for f in facts), False, False, unsat, 0 if unsat else None)


def classify_table(table: RuleTable) -> RuleClass:
    """The class of a compiled rule, with a one-line reason."""
    parts = [dfa_facts(p) if isinstance(p, DfaTable) else slice_facts(p) for p in table.parts]
    dfa = table.dfa
    exact = dfa is not None and dfa.alphabet.exact

    def pick(attr, op_and, op_or):
        return combine(table.skeleton, [getattr(f, attr) for f in parts], op_and, op_or, lambda v: False)

    enforceable = pick("enforceable", any, all)
    gateable = enforceable and pick("gateable", any, all)
    fully = enforceable and pick("fully_gateable", all, all)
    safety = pick("safety", all, all)
    mins = [f.min_bad for f in parts if f.min_bad is not None]
    min_bad = min(mins) if enforceable and mins else None
    if not enforceable:
        reason = ("no prefix is a bad prefix: any run so far can still be completed to satisfy the rule "
                  "(liveness), so it is decided when the run ends")
    elif gateable:
        reason = ("a violation can be decided from a proposed call's name and arguments, before it runs"
                  + ("" if fully else "; others only once a call's result is known"))
    else:
        reason = "a violation becomes certain on a finite prefix, but only once a call's result is known"
    if not exact:
        reason += " (estimated: " + ("quantified parts are judged per value" if dfa is None
                                     else "some guard combinations were not decided") + ")"
    return RuleClass(enforceable, gateable, fully, not enforceable, safety, True, reason, min_bad, exact)

def reads_result_of(formula: n.Formula, tool: str) -> bool:
    """Whether the formula reads the result (or the failure) of calls to `tool`.

    >>> from policyc.ir import build as b
    >>> reads_result_of(b.eventually(b.event("a", b.op("eq", b.result(), b.lit(1)))), "a")
    True
    """
    for node in subformulas(formula):
        if isinstance(node, n.Event) and node.tool == tool \
                and any(isinstance(t, n.Result) or t == n.Attr("error") for t in subformulas(node.guard)):
            return True
        if isinstance(node, n.Values) and node.tool == tool and node.path[:1] == ("result",):
            return True
        if isinstance(node, n.Outputs) and (not node.tools or tool in node.tools):
            return True
        if isinstance(node, n.Done) and tool not in node.terminal:  # whether the call failed
            return True
    return False


def decided_by_final_call(formula: n.Formula, terminal: frozenset[str]) -> bool:
    """Whether the formula's value on a complete trace is known before the last call's
    result is: it reads no result of a terminal call (in a pattern, through `outputs`, or
    through the values of a result path) and no metrics. The gate decides a rule the
    automata do not compile only then, when a terminal call is proposed.

    >>> from policyc.ir import build as b
    >>> decided_by_final_call(b.eventually(b.event("read_file")), frozenset({"final_answer"}))
    True
    >>> decided_by_final_call(b.eventually(b.event("final_answer", n.Result())), frozenset({"final_answer"}))
    False
    """
    for node in subformulas(formula):
        if isinstance(node, n.Event) and node.tool in terminal \
                and any(isinstance(t, n.Result) or t == n.Attr("error") for t in subformulas(node.guard)):
            return False
        if isinstance(node, n.Metric):
            return False
        if isinstance(node, n.Outputs) and (not node.tools or set(node.tools) & terminal):
            return False
        if isinstance(node, n.Values) and node.tool in terminal and node.path[:1] == ("result",):
            return False
    return True
