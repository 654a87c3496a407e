"""Questions whose witness needs values the solver does not model on its own, each asked of
the lint directly: a record in a result's list, a text with an entity in it, values along a
run longer than the bound. Each must be answered with a trace (never left undecided), and the
trace must give every claim its truth on the reference evaluator."""

from __future__ import annotations

from pathlib import Path

from policyc.check import check_file
from policyc.lint.context import LintContext, LintOptions
from policyc.lint.questions import Asker
from policyc.semantics.evaluator import evaluate

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "lint"


def _ask(name: str, build):
    policy, _ = check_file(str(FIXTURES / f"{name}.altl"))
    assert policy is not None
    ctx = LintContext(policy, LintOptions(bound=6))
    claims = build(ctx, policy)
    answer = Asker(ctx).ask(claims, focus=claims[-1:])
    assert answer.is_sat, answer.reason
    witness = answer.witness
    for c in claims:
        assert evaluate(c.formula, witness.trace, witness.externs) == c.expected, (c.name, str(witness))
    return witness


def test_a_record_is_put_in_a_result_list():
    """`pay(bill_id: b)` needs a listing that showed bill `b` overdue: the witness lists it."""
    witness = _ask("list_quantifier_witness",
                   lambda ctx, policy: [*ctx.active_claims(), ctx.calls_claim("pay")])
    listed = [c.result for c in witness.trace.calls if c.name == "bills"]
    assert any(row["status"] == "Overdue" for rows in listed for row in rows)


def test_a_text_holds_the_entity_a_rule_reads():
    """A rule about card numbers, or links, in the answer can fail: an answer with one."""
    for rule in ("no_cards", "own_links"):
        witness = _ask("entity_texts", lambda ctx, policy, rule=rule: [ctx.negated_claim(policy.rule(rule))])
        assert witness.trace.calls[-1].name == "answer"


def test_values_along_a_run_longer_than_the_bound():
    """Four refunds, each looked up and checked, at amounts in range: 12 calls (the bound is 6)
    on which every other rule holds and `at_most_three` fails."""
    def claims(ctx, policy):
        rule = policy.rule("at_most_three")
        return [*ctx.active_claims(exclude={rule.name}), ctx.negated_claim(rule)]

    witness = _ask("implied_per_value_by_values", claims)
    assert [c.name for c in witness.trace.calls].count("refund") == 4


def test_provenance_and_data_together():
    """A hotel booked from a search that offered it above 400, in a city the request names."""
    def claims(ctx, policy):
        rule = policy.rule("affordable")
        return [*ctx.active_claims(exclude={rule.name}), ctx.negated_claim(rule)]

    witness = _ask("provenance_with_data", claims)
    assert [c.name for c in witness.trace.calls][-1] == "book"
