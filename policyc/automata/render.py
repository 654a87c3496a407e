"""Readable views of a compiled rule: DOT graphs, bad prefixes, shortest continuations.

>>> from policyc.ir import build as b
>>> from policyc.automata.compile import compile_rule
>>> auto = compile_rule(b.always(b.implies(b.event("refund"), b.once(b.event("approve")))))
>>> [" ".join(p) for p in bad_prefixes(auto.dfa)]
['refund']
>>> print(to_dot(auto, "refund_checked").splitlines()[0])
digraph "refund_checked" {
"""

from __future__ import annotations

import json

from policyc.ir.printer import show
from policyc.automata.compile import RuleAutomaton
from policyc.tables.slicing import SliceTable
from policyc.tables.dfa import SATISFIED, VIOLATED, DfaTable

_COLORS = {VIOLATED: "#c0392b", SATISFIED: "#1e8449"}


def edge_labels(dfa: DfaTable, state: int) -> dict[int, list[str]]:
    """Target state -> readable guards of the letters leading there; a tool whose every
    letter goes to one target is written by its name alone, any other tool as `*`."""
    ab = dfa.alphabet
    row = dfa.delta[state]
    out: dict[int, list[str]] = {}
    for tool, tl in ab.tools.items():
        targets = {row[l] for l in tl.letters.values()}
        if len(targets) == 1:
            out.setdefault(targets.pop(), []).append(tool)
            continue
        for letter in sorted(tl.letters.values()):
            out.setdefault(row[letter], []).append(ab.describe(letter))
    out.setdefault(row[ab.other], []).append("*")
    return out


def _quote(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def state_label(dfa: DfaTable, q: int) -> str:
    """`2: open, accepting` plus the residual formula when it is short, else what a
    shortest compliant continuation still needs."""
    verdict = dfa.verdict[q]
    label = f"{q}: {verdict}" + (", accepting" if verdict == "open" and dfa.accepting[q] else "")
    residual = dfa.residual[q] if dfa.residual else ""
    if residual and residual not in ("true", "false") and len(residual) <= 48:
        label += "\n" + residual
    elif verdict == "open" and not dfa.accepting[q]:
        needs = dfa.shortest_continuation(q) or []
        label += "\nstill needs: " + ", ".join(dfa.alphabet.describe(l) for l in needs)
    return label


def _dfa_dot(dfa: DfaTable, prefix: str, lines: list[str]) -> None:
    for q in range(dfa.size):
        attrs = [f"label={_quote(state_label(dfa, q))}", "shape=box", 'style="rounded"']
        if dfa.accepting[q]:
            attrs.append("peripheries=2")
        if dfa.verdict[q] in _COLORS:
            attrs.append(f"color={_quote(_COLORS[dfa.verdict[q]])}")
        lines.append(f"  {prefix}{q} [{', '.join(attrs)}];")
    lines.append(f"  {prefix}start [shape=point];")
    if not dfa.initials:
        lines.append(f"  {prefix}start -> {prefix}{dfa.initial};")
        return _dfa_edges(dfa, prefix, lines)
    # a start per truth of the run's constants, and the free variant's for a run without them
    lines.append(f"  {prefix}start -> {prefix}{dfa.initial} [label={_quote('constants not known')}, style=dashed];")
    for mask, q in dfa.initials:
        lines.append(f"  {prefix}start -> {prefix}{q} [label={_quote(constants_case(dfa, mask))}];")
    _dfa_edges(dfa, prefix, lines)


def constants_case(dfa: DfaTable, mask: int) -> str:
    """A truth of a table's static atoms, readable: `contains(request.text, "pay")`, `not ...`."""
    if not dfa.static_atoms:
        return "the run's request and metrics are known"
    return ", ".join(show(a) if mask >> i & 1 else f"not {show(a)}" for i, a in enumerate(dfa.static_atoms))


def _dfa_edges(dfa: DfaTable, prefix: str, lines: list[str]) -> None:
    for q in range(dfa.size):
        for target, labels in edge_labels(dfa, q).items():
            lines.append(f"  {prefix}{q} -> {prefix}{target} [label={_quote(chr(10).join(labels))}];")


def to_dot(auto: RuleAutomaton, name: str) -> str:
    """The rule's automata as a DOT graph: one per plain part, one per static case of a
    sliced part (the automaton every value of the variable runs)."""
    lines = [f"digraph {_quote(name)} {{", "  rankdir=LR;", '  node [fontname="Helvetica", fontsize=10];',
             '  edge [fontname="Helvetica", fontsize=9];', f"  label={_quote(name)};"]
    for i, part in enumerate(auto.table.parts):
        if isinstance(part, DfaTable):
            if len(auto.table.parts) == 1:
                _dfa_dot(part, "q", lines)
                continue
            lines.append(f"  subgraph cluster_{i} {{ label={_quote(f'part {i + 1}')};")
            _dfa_dot(part, f"p{i}_", lines)
            lines.append("  }")
            continue
        for mask, body in part.bodies.items():
            title = f"{part.kind} {part.var}: each value runs this automaton"
            if part.static_atoms:
                title += f" (case {mask})"
            lines.append(f"  subgraph cluster_{i}_{mask} {{ label={_quote(title)};")
            _dfa_dot(body, f"p{i}_{mask}_", lines)
            lines.append("  }")
    lines.append("}")
    return "\n".join(lines) + "\n"


def bad_prefixes(dfa: DfaTable, limit: int = 10, start: int | None = None) -> list[list[str]]:
    """Readable bad prefixes of minimal length (at most `limit`) from `start` (the initial state
    when None), [] when there are none."""
    verdict = dfa.verdict
    start = dfa.initial if start is None else start
    if verdict[start] == VIOLATED:
        return [[]]
    layer: dict[int, list[list[int]]] = {start: [[]]}
    seen = {start}
    while layer:
        nxt: dict[int, list[list[int]]] = {}
        found: list[list[int]] = []
        for q, paths in layer.items():
            for letter, t in enumerate(dfa.delta[q]):
                if verdict[t] == VIOLATED:
                    found.extend(p + [letter] for p in paths[:limit])
                elif t not in seen:
                    nxt.setdefault(t, []).extend(p + [letter] for p in paths[:limit])
        if found:
            return [[dfa.alphabet.describe(l) for l in p] for p in found[:limit]]
        seen.update(nxt)
        layer = nxt
    return []


def part_dfas(auto: RuleAutomaton) -> list[tuple[str, DfaTable, int]]:
    """(title, automaton, start state) for each plain part (each truth of the run's constants
    it reads, and without them) and each static case of each sliced part."""
    out = []
    for part in auto.table.parts:
        if isinstance(part, SliceTable):
            for mask, body in part.bodies.items():
                out.append((f"for each value of `{part.var}` ({part.kind})"
                            + (f", case {mask}" if part.static_atoms else ""), body, body.initial))
        elif part.initials:
            out.extend((f"when {constants_case(part, mask)}", part, q) for mask, q in part.initials)
            out.append(("when the run's request and metrics are not known (free inputs)", part, part.initial))
        else:
            out.append(("", part, part.initial))
    return out
