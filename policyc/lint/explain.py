"""`policyc lint --explain CODE`: what a finding means, a wrong example and its fix.

The examples are complete policies; the tests lint each one and check that the wrong one
has the finding and the fixed one does not.

>>> print(explain("L0002").splitlines()[0])
L0002 conflict: rules that no trace can satisfy together
"""

from __future__ import annotations

from dataclasses import dataclass

from policyc.lint.findings import kind_by_name


@dataclass(frozen=True)
class Explanation:
    text: str
    wrong: str
    fixed: str


_HEAD = "policy refunds\n\ntool lookup(order_id: str) -> { total: float }\ntool issue_refund(order_id: str, amount: float)\n" \
        "tool escalate(order_id: str)\nterminal tool reply(text: str)\n\n"

EXPLANATIONS: dict[str, Explanation] = {
    "L0001": Explanation(
        "No trace satisfies the rule on its own, so every run fails it. The finding names the parts of the "
        "rule that contradict each other: top-level conjuncts, or the conditions of one event pattern (data "
        "conditions are decided by Z3: arithmetic, string equalities, pure predicates).",
        _HEAD + "rule small_refund: called(issue_refund(amount <= 100, amount > 200))\n",
        _HEAD + "rule small_refund: called(issue_refund(amount <= 100))\n"),
    "L0002": Explanation(
        "The rules are satisfiable one by one, but no trace satisfies all of them: every run fails at least "
        "one. The finding reports a minimal conflicting set (drop any rule and the rest have a compliant "
        "trace, shown as a witness), and each further disjoint set separately.",
        _HEAD + "rule must_refund: called(issue_refund)\nrule no_refunds: never(issue_refund)\n",
        _HEAD + "rule must_refund: called(issue_refund)\n"
                "rule refund_after_lookup: always (issue_refund -> once lookup)\n"),
    "L0003": Explanation(
        "Every trace that satisfies the other rules named in the finding satisfies this one too, so it never "
        "changes a verdict; it only adds weight to the score when the others pass. Of two equivalent rules "
        "the later one is reported.",
        _HEAD + "rule lookup_first: before(lookup, issue_refund)\nrule looked_up: called(lookup)\n",
        _HEAD + "rule lookup_first: before(lookup, issue_refund)\n"),
    "L0004": Explanation(
        "The rule cannot fail: either it is true on every trace, or it is an implication whose trigger never "
        "happens in a trace that satisfies the policy (for instance a condition on refunds when refunds are "
        "forbidden). Its condition is never tested.",
        _HEAD + "rule no_refunds: never(issue_refund)\n"
                "rule refund_after_lookup: always (issue_refund -> once lookup)\n",
        _HEAD + "rule refund_after_lookup: always (issue_refund -> once lookup)\n"),
    "L0005": Explanation(
        "The tool is declared but no compliant trace may call it: the rules named in the finding forbid it. "
        "An agent that calls it always fails the policy.",
        "policy research\n\ntool search(query: str)\ntool delete_file(path: str)\nterminal tool final_answer(answer: str)\n\n"
        "rule read_only: never(delete_file)\nrule searched: called(search)\n",
        "policy research\n\ntool search(query: str)\nterminal tool final_answer(answer: str)\n\n"
        "rule searched: called(search)\n"),
    "L0006": Explanation(
        "The rule has severity block, deny, soft_block or stop, but the gate can never act on it: it has no bad "
        "prefix (a liveness rule such as `called(search)` can still be satisfied by a later call), or its "
        "violation is only certain once the result of the offending call exists. It is scored offline only. "
        "Declaring the final-answer tool `terminal` lets the gate decide liveness rules when the answer is "
        "proposed.",
        "policy research\n\ntool search(query: str)\ntool final_answer(answer: str)\n\n"
        "rule searched severity block: called(search)\n",
        "policy research\n\ntool search(query: str)\nterminal tool final_answer(answer: str)\n\n"
        "rule searched severity block: called(search)\n"),
    "L0007": Explanation(
        "The policy declares `budget N` (a cap on tool calls per run, the AgentLTL paper's 10d+10), but every "
        "compliant trace is longer than N. The answer is exact: every trace of at most N calls was examined (its "
        "lists of at most 3 elements, when the solver decided it and lists are involved, as the strength then says). "
        "The finding shows the shortest compliant trace.",
        "policy research\n\nbudget 2\n\ntool search(query: str)\ntool read_file(path: str)\n"
        "terminal tool final_answer(answer: str)\n\nrule steps: in_order([search, read_file, final_answer])\n",
        "policy research\n\nbudget 3\n\ntool search(query: str)\ntool read_file(path: str)\n"
        "terminal tool final_answer(answer: str)\n\nrule steps: in_order([search, read_file, final_answer])\n"),
    "L0008": Explanation(
        "Informational. A layer whose rules can never fail adds the same weight to every score; a layer that "
        "carries more than half of the total weight (`--max-layer-share`) decides the score on its own.",
        "policy research\n\ntool search(query: str)\ntool read_file(path: str)\nterminal tool final_answer(answer: str)\n\n"
        "rule search_first layer L3 weight 8: before(search, final_answer)\n"
        "rule reads layer L5 weight 1: called(read_file)\n",
        "policy research\n\ntool search(query: str)\ntool read_file(path: str)\nterminal tool final_answer(answer: str)\n\n"
        "rule search_first layer L3 weight 3: before(search, final_answer)\n"
        "rule reads layer L5 weight 3: called(read_file)\n"),
    "L0009": Explanation(
        "The lint could not decide a question: the automata do not compile a rule involved (it reads "
        "`outputs`, `entities(...)` or other trace-wide values, or nests quantifiers), and Z3 either reached its "
        "resource limit (a count of solver steps, so the answer does not depend on the machine) or "
        "found a trace that relies on what it over-approximates and does not replay. Nothing is read into the "
        "question: the finding says what was not decided, and which analyses were skipped because of it.",
        "policy research\n\ntool read_file(path: str) -> str\nterminal tool final_answer(answer: str)\n\n"
        "rule cites_main: called(final_answer(answer == \"The parser is in main.py\"))\n"
        "rule grounded: forall e in entities(final_answer.answer): e in outputs(read_file)\n",
        "policy research\n\ntool read_file(path: str) -> str\nterminal tool final_answer(answer: str)\n\n"
        "rule answers: called(final_answer)\n"
        "rule grounded: forall e in entities(final_answer.answer): e in outputs(read_file)\n"),
}


def explain(code: str) -> str:
    """The long description of a finding kind, by code or name, with both examples."""
    kind = kind_by_name(code)
    ex = EXPLANATIONS[kind.code]
    indent = lambda s: "\n".join("    " + line if line else "" for line in s.rstrip().splitlines())
    return (f"{kind.code} {kind.slug}: {kind.title}\n\n{ex.text}\n\n"
            f"Wrong ({kind.severity.value} {kind.code}):\n\n{indent(ex.wrong)}\n\nFixed:\n\n{indent(ex.fixed)}\n")
