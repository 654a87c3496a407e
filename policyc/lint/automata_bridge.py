"""The one place the lint asks the automata (policyc.automata) instead of the solver.

When the automata package is importable and compiles a rule, its answers are exact:
`rule_class` returns whether the rule has a bad prefix (enforceable) and whether its
violations are decided before a call's result (gateable). When it is missing, or the rule
is outside what it compiles (for instance quantified rules it slices parametrically), the
caller falls back to the bounded Z3 queries and says so in the finding's strength.
The automata read a rule without the policy's terminal tools (a run ends with a terminal
call, which makes liveness rules decidable when it is proposed), so "no bad prefix" from
them is re-asked of the solver when the policy declares a terminal tool.

>>> rule_class is not None
True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

from policyc.ir import nodes as n
from policyc.ir.types import ToolSignature


@dataclass(frozen=True)
class RuleClassAnswer:
    is_enforceable: bool
    is_gateable: bool
    is_liveness: bool


def rule_class(phi: n.Formula, tools: Mapping[str, ToolSignature]) -> RuleClassAnswer | None:
    """The automata's exact class of a rule, or None when they cannot answer."""
    try:
        from policyc import automata
    except Exception:
        return None
    classify = getattr(automata, "classify", None)
    if classify is None:
        return None
    try:
        answer = classify(phi, tools)
    except Exception:  # outside the compiled fragment, or not finished: fall back to Z3
        return None
    if not getattr(answer, "compiled", True) or not getattr(answer, "exact", True):
        return None  # not compiled, or only estimated: the solver answers instead
    try:
        return RuleClassAnswer(bool(answer.is_enforceable), bool(answer.is_gateable),
                               bool(getattr(answer, "is_liveness", not answer.is_enforceable)))
    except AttributeError:
        return None


def proves_empty(claims: list[tuple[n.Formula, bool]], tools: Mapping[str, ToolSignature]) -> bool:
    """Whether the automata prove, for traces of any length, that no trace makes every
    formula take its truth value: the emptiness of the product of their minimal DFAs.

    Only plain (unsliced) rules with exact alphabets take part; the product treats the letters
    of different rules for one tool as independent, which can only add traces, so `True` is
    certain. Terminal tools only remove traces, so the answer holds with them too.

    >>> from policyc.ir import build as b
    >>> from policyc.smt import bare_tools
    >>> a = b.event("a")
    >>> proves_empty([(b.eventually(a), True), (b.always(b.neg(a)), True)], bare_tools("a", "b"))
    True
    """
    try:
        from policyc.ir import build as b
        from policyc.automata import compile_rule
        from policyc.automata.product import PolicyProduct
    except Exception:
        return False
    tables = []
    for phi, expected in claims:
        try:
            dfa = compile_rule(phi if expected else b.neg(phi), tools).dfa
        except Exception:
            return False
        if dfa is None or not getattr(dfa.alphabet, "exact", False):
            return False
        tables.append(dfa)
    try:
        product = PolicyProduct(tables)
        return product.searchable and not product.satisfiable_together(product.initial)
    except Exception:
        return False


def shortest_satisfying_length(phi: n.Formula, tools: Mapping[str, ToolSignature]) -> int | None:
    """The length of a shortest trace satisfying `phi` alone, read off its minimal DFA; None
    when the rule does not compile to a plain DFA with an exact alphabet, or none exists.

    The DFA knows nothing of terminal tools, so callers re-check at this length when the
    policy declares one.

    >>> from policyc.ir import build as b
    >>> from policyc.smt import bare_tools
    >>> seq = b.eventually(b.conj(b.event("a"), b.next_(b.eventually(b.event("b")))))
    >>> shortest_satisfying_length(seq, bare_tools("a", "b"))
    2
    """
    try:
        from policyc.automata import compile_rule

        dfa = compile_rule(phi, tools).dfa
    except Exception:
        return None
    if dfa is None or not getattr(dfa.alphabet, "exact", False):
        return None
    path = dfa.shortest_continuation(dfa.initial)
    return None if path is None else len(path)


#: Joint states one exact decision may visit before it gives up (the answer is then unknown).
DECIDE_BUDGET = 200_000


def decide(claims: list[tuple[n.Formula, bool]], tools: Mapping[str, ToolSignature],
           terminal: frozenset[str] = frozenset()) -> bool | None:
    """Exactly, for runs of any length: is there a run on which every formula takes its truth
    value? Runs are calls to the declared tools, a terminal tool only as the last call.
    None when the automata cannot tell: a formula they do not compile to one DFA with an exact
    alphabet, guards of two formulas on one tool (their letters may not combine), or a
    product larger than the budget.

    The answer settles what bounded queries cannot: `called_n(search) <= 20` fails only on
    runs of 21 calls, beyond any small bound, and is not valid.

    >>> from policyc.ir import build as b
    >>> from policyc.smt import bare_tools
    >>> a, t = b.event("a"), bare_tools("a", "b")
    >>> at_least_3 = b.eventually(b.conj(a, b.next_(b.eventually(b.conj(a, b.next_(b.eventually(a)))))))
    >>> decide([(at_least_3, False)], t), decide([(at_least_3, True)], t)     # neither valid nor empty
    (True, True)
    >>> decide([(b.eventually(a), True), (b.always(b.neg(a)), True)], t)
    False
    """
    try:
        from policyc.ir import build as b
        from policyc.automata import compile_rule
    except Exception:
        return None
    dfas = []
    for phi, expected in claims:
        try:
            dfa = compile_rule(phi if expected else b.neg(phi), tools).dfa
        except Exception:
            return None
        if dfa is None or not getattr(dfa.alphabet, "exact", False):
            return None
        dfas.append(dfa)
    moves: list[tuple[bool, list[tuple[int, ...]]]] = []  # per declared tool: terminal?, joint letters
    for tool in tools:
        guarded = [i for i, d in enumerate(dfas) if tool in d.alphabet.tools and d.alphabet.tools[tool].atoms]
        if len(guarded) > 1:
            return None  # two formulas' guards on one tool: their letters need not combine
        fixed = [d.alphabet.tools[tool].letters.get(0) if tool in d.alphabet.tools else d.alphabet.other
                 for d in dfas]
        if guarded:
            g = guarded[0]
            options = sorted(set(dfas[g].alphabet.tools[tool].letters.values()))
            letters = [tuple(opt if i == g else fixed[i] for i in range(len(dfas))) for opt in options]
        elif any(x is None for x in fixed):
            letters = []  # a letter some formula's compiler ruled out
        else:
            letters = [tuple(fixed)]
        moves.append((tool in terminal, letters))

    def accepting(state: tuple[int, ...]) -> bool:
        return all(d.accepting[s] for d, s in zip(dfas, state))

    def step(state: tuple[int, ...], letters: tuple[int, ...]) -> tuple[int, ...]:
        return tuple(d.delta[s][x] for d, s, x in zip(dfas, state, letters))

    start = tuple(d.initial for d in dfas)
    seen, frontier = {start}, [start]
    while frontier:
        nxt = []
        for state in frontier:
            if accepting(state):
                return True
            for final, options in moves:
                for letters in options:
                    after = step(state, letters)
                    if final:
                        if accepting(after):
                            return True
                    elif after not in seen:
                        if len(seen) >= DECIDE_BUDGET:
                            return None
                        seen.add(after)
                        nxt.append(after)
        frontier = nxt
    return False
