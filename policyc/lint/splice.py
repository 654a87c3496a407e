"""A run near a question, spliced into a known compliant trace.

Many lint questions are "the policy, and one more claim" (a rule's negation, a trigger, a
tool called). The automata often find a run of the claims near that one cheaply (those that
share a tool with it); inserting it into a compliant trace of the whole policy, at each
place in turn, often gives a witness of the whole question without searching the product
of every rule. Each candidate is screened by the claims' automata (a quick filter) and the
one that passes is replayed on the evaluator.

>>> from policyc.trace.model import Call
>>> [c.name for c in merged_calls([Call("a", {}), Call("b", {})], [Call("b", {}), Call("c", {})])]
['a', 'b', 'c']
"""

from __future__ import annotations

from dataclasses import replace
from typing import Sequence

from policyc.ir.data import ExternError
from policyc.lint.automata import LintAutomata
from policyc.lint.claims import Claim
from policyc.lint.concretize import replay
from policyc.semantics.evaluator import evaluate
from policyc.smt import WitnessTrace
from policyc.tables.dfa import AlphabetError
from policyc.trace.model import Call, Trace

#: Known compliant traces a run near the question is spliced with.
SPLICE_WITH = 4


class Splicer:
    """Splices for the questions of one unit (it remembers which claim rejects candidates)."""

    def __init__(self, automata: LintAutomata, terminal: frozenset[str]):
        self.automata = automata
        self.terminal = terminal
        self._rejects: dict[str, int] = {}  # claim -> when it last rejected a candidate
        self._tick = 0

    def splice(self, near: WitnessTrace, pool: Sequence[WitnessTrace], claims: list[Claim],
               tools: set[str]) -> WitnessTrace | None:
        """`near` inserted into a known compliant trace (at each place in turn; a terminal call
        only last), if every claim holds on the result."""
        own = tuple(c for c in near.trace.calls if c.name in tools)
        # the whole run, its calls to the question's tools together, then each of those alone
        blocks = [near.trace.calls, own] + [(c,) for c in own]
        for w in pool[:SPLICE_WITH]:
            other = w.trace.calls
            # both in order, a call to a tool they share taken once (from either)
            candidates = [merged_calls(other, near.trace.calls), merged_calls(near.trace.calls, other)]
            for calls in blocks:
                aligned = aligned_calls(calls, other)
                for block in (calls, aligned) if aligned != calls else (calls,):
                    candidates += [list(other[:i]) + list(block) + list(other[i:]) for i in range(len(other) + 1)]
            request = near.trace.request if near.trace.request is not None else w.trace.request
            for merged in candidates:
                kept = [c for j, c in enumerate(merged) if c.name not in self.terminal or j == len(merged) - 1]
                trace = Trace(tuple(replace(c, position=j) for j, c in enumerate(kept)),
                              {**w.trace.metrics, **near.trace.metrics}, request=request)
                externs = {**w.externs, **near.externs}
                if not self.screen(trace, claims, externs):
                    continue
                found = replay(WitnessTrace(trace, True, externs), claims)
                if found is not None:
                    return found
        return None

    def screen(self, trace: Trace, claims: list[Claim], externs) -> bool:
        """Whether every claim takes its value on the trace: first each claim that compiles
        to one automaton (the automata's verdict: a quick filter), then the others on the
        evaluator (the replay evaluates every claim again). The claim that rejected the last
        candidate is tried first: candidates of one splice tend to fail on the same claim."""
        rank = self._rejects
        ordered = sorted(claims, key=lambda c: -rank.get(c.name, 0)) if rank else claims
        rest = []
        for c in ordered:
            dfa = self.automata.dfa(c.formula)
            if dfa is None:
                rest.append(c)
                continue
            try:
                state = dfa.initial
                for call in trace.calls:
                    state = dfa.delta[state][dfa.alphabet.letter(call.name, call.args, call.result)]
            except (AlphabetError, ExternError, RecursionError):  # an impossible letter or an extern: the replay decides
                continue
            if dfa.accepting[state] != c.expected:
                self._reject(c)
                return False
        for c in rest:
            try:
                truth = evaluate(c.formula, trace, externs)
            except (ExternError, RecursionError):
                continue  # the replay decides
            if truth != c.expected:
                self._reject(c)
                return False
        return True

    def _reject(self, claim: Claim) -> None:
        self._tick += 1
        self._rejects[claim.name] = self._tick


def merged_calls(first: Sequence[Call], second: Sequence[Call]) -> list[Call]:
    """A shortest sequence that has both as subsequences, a call to the same tool shared (the
    first sequence's)."""
    a, b_ = [c.name for c in first], [c.name for c in second]
    rows, cols = len(a), len(b_)
    best = [[0] * (cols + 1) for _ in range(rows + 1)]  # longest common subsequence of the suffixes
    for i in range(rows - 1, -1, -1):
        for j in range(cols - 1, -1, -1):
            best[i][j] = best[i + 1][j + 1] + 1 if a[i] == b_[j] else max(best[i + 1][j], best[i][j + 1])
    out: list[Call] = []
    i = j = 0
    while i < rows and j < cols:
        if a[i] == b_[j]:
            out.append(first[i])
            i, j = i + 1, j + 1
        elif best[i + 1][j] >= best[i][j + 1]:
            out.append(first[i])
            i += 1
        else:
            out.append(second[j])
            j += 1
    return out + list(first[i:]) + list(second[j:])


def aligned_calls(calls: Sequence[Call], other: Sequence[Call]) -> tuple[Call, ...]:
    """The calls with each string argument replaced by the value the other trace gives an
    argument of that name most often (the values of a run made on its own rarely match
    another's, and rules over bound values compare them)."""
    counts: dict[str, dict[str, int]] = {}
    for c in other:
        for name, value in c.args.items():
            if isinstance(value, str) and value:
                tally = counts.setdefault(name, {})
                tally[value] = tally.get(value, 0) + 1
    seen = {name: max(tally, key=lambda v: tally[v]) for name, tally in counts.items()}
    out = []
    for c in calls:
        args = {k: seen.get(k, v) if isinstance(v, str) else v for k, v in c.args.items()}
        out.append(c if args == dict(c.args) else replace(c, args=args))  # its attributes stay
    return tuple(out)
