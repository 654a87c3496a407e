"""Unenforceable severities (L0006): `block`, `deny`, `soft_block` or `stop` on a rule the gate
can never act on.

The gate acts before a call runs, when the trace so far is a bad prefix of the rule
(appendix A.5.1). A rule with no bad prefix (pure liveness, such as `called(read_file)`
without a terminal tool to end the run) can only fail when the run is over, and a rule
whose violation depends on the result of the call being proposed is only detected after
that call ran. Either way its blocking severity never blocks; it is scored offline only.

The automata answer exactly (`LintAutomata.rule_class`). Otherwise the bounded
quantified query of `policyc.smt.prefixes` looks for a bad prefix (and only the liveness
case is reported: whether a violation waits for a call's result needs the automata).

>>> from policyc.check import check_text
>>> from policyc.lint.context import LintContext, LintOptions
>>> src = 'policy p\\ntool a()\\nrule r severity block: called(a)\\n'
>>> ctx = LintContext(check_text(src, "p.altl")[0], LintOptions(bound=4))
>>> [f.code for f in check_severities(ctx)]
['L0006']
"""

from __future__ import annotations

from policyc.ir import build as b
from policyc.ir import nodes as n
from policyc.ir.walk import has_future
from policyc.lint.context import LintContext
from policyc.lint.findings import Finding
from policyc.smt import Strength
from policyc.smt.prefixes import find_bad_prefix


def check_severities(ctx: LintContext) -> list[Finding]:
    findings = []
    for rule in ctx.active_rules:
        if not rule.severity.can_block or rule.name in ctx.valid:
            continue
        answer = ctx.automata.rule_class(rule.formula) if ctx.options.use_automata else None
        if answer is not None and not answer.is_enforceable and ctx.policy.terminal_tools:
            answer = None  # a terminal call ends the run: the solver models that, the automata do not
        if answer is None and is_past_safety(rule.formula):
            ctx.note_use("unenforceable-severity", "syntax (G of a past formula: decided by the prefix)")
            continue
        if answer is not None:
            ctx.note_use("unenforceable-severity", "automata (exact)")
            enforceable, gateable, note = answer.is_enforceable, answer.is_gateable, None
            strength = Strength(True, None, None, "automata")
        else:
            result = find_bad_prefix(rule.formula, ctx.policy.tools, ctx.options.prefix_bound,
                                     min(ctx.options.bound, 6), min(ctx.options.timeout_ms, 5_000))
            ctx.note_use("unenforceable-severity", "quantified Z3 query (bad prefixes)")
            if result.status == "unknown":
                continue
            # without the automata, result dependence is not decided: only liveness is reported
            enforceable, gateable = result.status == "found", True
            strength = Strength(False, result.max_prefix, None, "z3")
            note = (f"every prefix of at most {result.max_prefix} calls can still be completed into a "
                    f"compliant trace (with at most {result.continuation} more calls)")
        severity = str(rule.severity)
        if not enforceable:
            findings.append(Finding(
                "L0006", f"rule `{rule.name}` has severity `{severity}` but no call can ever violate it for certain",
                (rule.name,), strength,
                help="the rule can only fail when the run ends (liveness), so the gate never blocks on it; "
                     "use `warn` or `tolerate`, or declare the final-answer tool `terminal`",
                evidence=tuple(x for x in (note,) if x)))
        elif not gateable:
            findings.append(Finding(
                "L0006", f"rule `{rule.name}` has severity `{severity}` but is only decided by a call's result",
                (rule.name,), strength,
                help="the gate decides before the call runs, when its result does not exist yet; the rule is "
                     "detected after the fact and scored offline: use `warn`, or test the arguments instead",
                evidence=("the violation is certain only once the result of the offending call is known",)))
    return findings



def is_past_safety(phi: n.Formula) -> bool:
    """`G ψ` with ψ about the past only (under `forall` and `and`): a violation at position i
    is decided by the first i+1 calls, so a rule of this shape that can fail is enforceable.

    >>> from policyc.ir import build as b
    >>> is_past_safety(b.always(b.implies(b.event("pay"), b.once(b.event("check"))))), is_past_safety(b.eventually(b.event("a")))
    (True, False)
    """
    if isinstance(phi, n.Forall):
        return is_past_safety(phi.body)
    if isinstance(phi, n.And):
        return all(is_past_safety(a) for a in phi.args)
    return b.is_always(phi) and not has_future(phi.right)
