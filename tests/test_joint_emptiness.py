"""The joint search against emptiness of one automaton for the conjunction (a product check).

As Spot's `ltlcross` checks translators against one another through the emptiness of
products, this file checks the product search of `policyc.tables.joint` against an automaton
it shares nothing with: the conjunction of a random policy's rules, compiled as one formula
by `policyc.automata` and searched with networkx. On random policies (ordinary rule shapes
and random formulas of the automata's fragment, over the runtime's tools with a terminal
`done`), from the start and from every state a random prefix of calls reaches:

- the gate's question, `JointSearch.check` on every rule, is True exactly when an accepting
  state of the conjunction's DFA is reachable by a run (non-terminal calls, then maybe one
  terminal call), False exactly when none is;
- the lint's question, `JointSearch.run` in shortest order, answers alike, and its run is as
  long as the conjunction's shortest accepted continuation.

Undecided answers (a search beyond its budget, letters not decided together) are counted
and must be rare. 60 policies in CI, 400 with `POLICYC_NIGHTLY=1`.
"""

from __future__ import annotations

import networkx as nx
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from generators import AGENT, AGENT_POOL, LETTERS, NIGHTLY, Vocabulary, formulas, templates
from policyc.automata import NotCompilable, compile_policy, compile_rule
from policyc.ir import build as b
from policyc.ir.policy import Policy, Rule
from policyc.tables.dfa import DfaTable
from policyc.tables.joint import SHORTEST, JointSearch
from policyc.tables.product import JointSpace

EXAMPLES = 2000 if NIGHTLY else 200


def rules(vocab: Vocabulary) -> st.SearchStrategy:
    """Two to five rules: shapes authors write and random formulas of the automata's fragment."""
    return st.lists(st.one_of(templates(vocab), formulas(vocab, 3, future_under_past=False)), min_size=2, max_size=5)


def shortest_acceptance(dfa: DfaTable, state: int, tools, terminal: frozenset[str]) -> int | None:
    """The length of a shortest continuation from `state` that the DFA accepts, where a call to a
    terminal tool can only be the last one (None: there is none). The DFA's transitions as a
    networkx graph, breadth first."""
    ab = dfa.alphabet
    named = set(ab.tools)
    others = [t for t in tools if t not in named]
    going, ending = [], []
    for letter in range(ab.size):
        tool = ab.tool_of(letter)
        ends = [tool in terminal] if tool is not None else sorted({t in terminal for t in others})
        if False in ends:
            going.append(letter)
        if True in ends:
            ending.append(letter)
    graph = nx.DiGraph()
    graph.add_nodes_from(range(len(dfa.delta)))
    graph.add_edges_from((q, dfa.delta[q][x]) for q in range(len(dfa.delta)) for x in going)
    lengths = nx.single_source_shortest_path_length(graph, state)
    best = None
    for q, d in lengths.items():
        if dfa.accepting[q]:
            found = d
        elif any(dfa.accepting[dfa.delta[q][x]] for x in ending):
            found = d + 1
        else:
            continue
        best = found if best is None else min(best, found)
    return best


def compare(bodies, prefix, counts: dict[str, int], vocab: Vocabulary = AGENT) -> bool:
    """Both questions against the conjunction from the start and after each call of `prefix`
    (False: the rules or their conjunction are not one automaton each, nothing compared)."""
    policy = Policy("joint", None, dict(vocab.tools), tuple(Rule(f"r{i}", f) for i, f in enumerate(bodies)))
    try:
        compiled = compile_policy(policy)
        conjunction = compile_rule(b.conj(*bodies), vocab.tools).dfa
    except NotCompilable:
        return False
    tables = [compiled.table(r.name) for r in policy.rules]
    if conjunction is None or any(t is None or t.dfa is None for t in tables):
        return False
    dfas = [t.dfa for t in tables if t is not None and t.dfa is not None]
    if not conjunction.alphabet.exact or conjunction.initials or any(d.initials for d in dfas):
        return False
    terminal = policy.terminal_tools
    space = JointSpace(dfas, policy.tools, terminal, compiled.joint)
    rules = tuple(range(len(dfas)))
    states, whole = [d.initial for d in dfas], conjunction.initial
    for at in range(len(prefix) + 1):
        if at:
            tool, args, result = prefix[at - 1]
            states = [d.delta[q][d.alphabet.letter(tool, args, result)] for d, q in zip(dfas, states)]
            whole = conjunction.delta[whole][conjunction.alphabet.letter(tool, args, result)]
        jid = space.intern(tuple(states))
        expected = shortest_acceptance(conjunction, whole, policy.tools, terminal)
        answer = JointSearch(space).check(jid, rules)  # a fresh search: nothing memoised
        counts["questions"] += 1
        counts["no run" if expected is None else "a run"] += 1
        if answer is None:
            counts["undecided"] += 1
        else:
            assert answer == (expected is not None), (bodies, prefix[:at], answer, expected)
        found = JointSearch(space).run(jid, rules, SHORTEST)
        if found.answer is None:
            counts["undecided"] += 1
            continue
        assert found.answer == (expected is not None), (bodies, prefix[:at], found, expected)
        if found.answer:
            assert len(found.calls) == expected, (bodies, prefix[:at], found.calls, expected)
    return True


@pytest.mark.parametrize("vocab", [AGENT, LETTERS], ids=lambda v: v.name)
def test_the_joint_search_agrees_with_emptiness_of_the_conjunction(vocab):
    """Over `EXAMPLES` random policies and prefixes (seeded): every decided answer agrees with
    the conjunction, both answers occur, and at most 2 % of the answers are undecided."""
    counts = {"questions": 0, "undecided": 0, "a run": 0, "no run": 0}

    @settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
    @given(rules(vocab), st.lists(st.sampled_from(vocab.pool), max_size=6))
    def check(bodies, prefix):
        assume(compare(bodies, prefix, counts, vocab))

    check()
    assert counts["a run"] and counts["no run"], counts
    assert counts["undecided"] <= 0.02 * 2 * counts["questions"], counts  # two answers per question


def test_a_conflict_only_the_conjunction_shows_is_found_from_a_later_state():
    """`always (a -> always not b)` and `eventually b`: each holds alone, together only while
    no `a` came; after `a(n: 1)` both the search and the conjunction say no."""
    a, bb = b.event("a"), b.event("b")
    bodies = [b.always(b.implies(a, b.always(b.neg(bb)))), b.eventually(bb)]
    counts = {"questions": 0, "undecided": 0, "a run": 0, "no run": 0}
    assert compare(bodies, [AGENT_POOL[0]], counts)
    assert counts == {"questions": 2, "undecided": 0, "a run": 1, "no run": 1}
    conjunction = compile_rule(b.conj(*bodies), AGENT.tools).dfa
    after_a = conjunction.delta[conjunction.initial][conjunction.alphabet.letter("a", {"n": 1}, {"ok": True})]
    assert shortest_acceptance(conjunction, conjunction.initial, AGENT.tools, frozenset({"done"})) == 1
    assert shortest_acceptance(conjunction, after_a, AGENT.tools, frozenset({"done"})) is None
