"""The rule dependency graph: which rules share tools, and which tool must precede which.

Two graphs over one checked policy, built with networkx (offline only: the gate never
loads this module):

- the **rule graph**: a node per rule, an edge between two rules that name a common tool
  (labelled with those tools). Its connected components are the groups of rules that
  constrain the same calls; a rule alone in its component shares no tool with any other.
- the **precedence graph**: a node per tool, an edge `a -> b` labelled with a rule when that
  rule requires a call to `a` before any call to `b` (every run that satisfies the rule and
  calls `b` called `a` earlier). It is read exactly off the rule's minimal DFA: no state
  reachable without calling `a` has a transition on `b` to a state from which acceptance
  is still reachable. Rules that are sliced per value or not compiled give no edge.

A cycle of the precedence graph (`a -> b -> a`) is a finding: a run satisfying the rules
on it calls none of its tools, since each needs another called first.

>>> from policyc.check import check_text
>>> src = ('policy p\\ntool a()\\ntool b()\\ntool c()\\n'
...        'rule ab: before(a, b)\\nrule bc: always(c -> once(b))\\nrule lone: called(c) or true\\n')
>>> graph = rule_graph(check_text(src, "p.altl")[0])
>>> graph.components
[('ab', 'bc'), ('lone',)]
>>> [(e.before, e.after, e.rule) for e in graph.precedence]
[('a', 'b', 'ab'), ('b', 'c', 'bc')]
>>> graph.cycles
[]
"""

from __future__ import annotations

from dataclasses import dataclass, field

import networkx as nx

from policyc.ir.policy import Policy
from policyc.ir.walk import tools_mentioned


@dataclass(frozen=True, slots=True)
class Precedence:
    """Rule `rule` requires a call to `before` ahead of any call to `after`."""

    before: str
    after: str
    rule: str


@dataclass(frozen=True)
class RuleGraph:
    rules: dict[str, tuple[str, ...]]  # rule -> the tools it names, sorted
    links: list[tuple[str, str, tuple[str, ...]]]  # (rule, rule, shared tools)
    components: list[tuple[str, ...]]  # rules, in policy order; components by their first rule
    precedence: list[Precedence]
    cycles: list[tuple[Precedence, ...]]  # one cycle per strongly connected group of tools
    not_analysed: dict[str, str] = field(default_factory=dict)  # rule -> why it gives no precedence

    def to_json(self) -> dict:
        return {
            "rules": {r: list(t) for r, t in self.rules.items()},
            "links": [{"rules": [a, b], "tools": list(t)} for a, b, t in self.links],
            "components": [list(c) for c in self.components],
            "precedence": [{"before": p.before, "after": p.after, "rule": p.rule} for p in self.precedence],
            "cycles": [[{"before": p.before, "after": p.after, "rule": p.rule} for p in c] for c in self.cycles],
            "not_analysed": dict(self.not_analysed),
        }


def rule_graph(policy: Policy) -> RuleGraph:
    """Both graphs of a checked policy (see the module docstring)."""
    order = {r.name: i for i, r in enumerate(policy.rules)}
    named = {r.name: tuple(sorted(tools_mentioned(r.formula) & set(policy.tools))) for r in policy.rules}
    linked = nx.Graph()
    linked.add_nodes_from(named)
    for tool in policy.tools:
        users = [r for r, tools in named.items() if tool in tools]
        for i, a in enumerate(users):
            for b in users[i + 1:]:
                shared = linked.get_edge_data(a, b, {"tools": ()})["tools"]
                linked.add_edge(a, b, tools=shared + (tool,))
    links = sorted(((a, b, t) if order[a] < order[b] else (b, a, t)) for a, b, t in linked.edges(data="tools"))
    links.sort(key=lambda link: (order[link[0]], order[link[1]]))
    components = sorted((tuple(sorted(c, key=order.__getitem__)) for c in nx.connected_components(linked)),
                        key=lambda c: order[c[0]])

    precedence, not_analysed = [], {}
    for rule in policy.rules:
        edges, reason = rule_precedence(rule, policy)
        precedence.extend(edges)
        if reason:
            not_analysed[rule.name] = reason
    return RuleGraph(named, links, components, precedence, precedence_cycles(precedence), not_analysed)


def rule_precedence(rule, policy: Policy) -> tuple[list[Precedence], str | None]:
    """The precedences one rule requires, read off its minimal DFA; or why none are read."""
    from policyc.automata import NotCompilable, compile_rule
    from policyc.tables import VIOLATED

    try:
        dfa = compile_rule(rule.formula, policy.tools).dfa
    except NotCompilable as exc:
        return [], f"not compiled: {exc.reason}"
    if dfa is None:
        return [], "sliced per value: its automata are read per binding"
    from policyc.lint.automata import reads_the_run

    if reads_the_run(dfa):
        return [], "it reads the run's request, metrics or history at each call, which its automaton leaves free"
    letters = {tool: set(tl.letters.values()) for tool, tl in dfa.alphabet.tools.items()}
    edges = []
    for first, own in sorted(letters.items()):
        without = nx.DiGraph()
        without.add_node(dfa.initial)
        without.add_edges_from((s, t) for s, row in enumerate(dfa.delta) for letter, t in enumerate(row)
                               if letter not in own)
        reachable = nx.descendants(without, dfa.initial) | {dfa.initial}
        for then, then_letters in sorted(letters.items()):
            if then != first and all(dfa.verdict[dfa.delta[s][letter]] == VIOLATED
                                     for s in reachable for letter in then_letters):
                edges.append(Precedence(first, then, rule.name))
    return edges, None


def precedence_cycles(edges: list[Precedence]) -> list[tuple[Precedence, ...]]:
    """One cycle for each group of tools that must each be preceded by another of the group."""
    graph = nx.MultiDiGraph()
    for e in edges:
        graph.add_edge(e.before, e.after, key=e.rule)
    cycles = []
    for group in sorted((sorted(c) for c in nx.strongly_connected_components(graph)), key=lambda c: c[0]):
        if len(group) < 2:
            continue
        cycle = nx.find_cycle(graph.subgraph(group), source=group[0])
        cycles.append(tuple(Precedence(a, b, rule) for a, b, rule in cycle))
    return cycles
