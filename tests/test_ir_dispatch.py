"""The passes over the IR dispatch through tables checked against the node definitions."""

from __future__ import annotations

from typing import Callable

import pytest

from policyc.ir import build as b
from policyc.ir import nodes as n
from policyc.ir.dispatch import Cases
from policyc.ir.serialize import _SCHEMA


def test_every_kind_of_node_is_a_term_or_a_formula():
    kinds = {c for c in vars(n).values() if isinstance(c, type) and issubclass(c, n.Node)} - {n.Node, n.Term, n.Formula}
    assert set(n.TERMS) | set(n.FORMULAS) == kinds
    assert not set(n.TERMS) & set(n.FORMULAS)
    assert set(_SCHEMA) == kinds  # serialisation names the fields of every kind


def test_nodes_match_positionally():
    match b.until(b.event("a"), b.event("b")):
        case n.Until(n.Event("a"), n.Event(tool)):
            assert tool == "b"
        case _:
            pytest.fail("no match")


def test_a_pass_without_a_case_for_some_kind_is_refused():
    cases: Cases[Callable[[n.Node], str]] = Cases("partial", n.FORMULAS)
    cases.on(*n.FORMULAS[:-1])(lambda f: "covered")
    with pytest.raises(TypeError, match="partial: no case for Exists"):
        cases.complete()
    with pytest.raises(TypeError, match="two cases for Const"):
        cases.on(n.Const)(lambda f: "again")


def test_a_node_the_pass_does_not_take_is_a_clear_error():
    from policyc.ir.data import DataEnv, eval_term

    with pytest.raises(TypeError, match="eval_term: a Const is not among the nodes it takes"):
        eval_term(n.TRUE, DataEnv())  # type: ignore[arg-type]
