"""Quantifier domains and the identity of variable bindings, shared by the engines.

A quantifier ranges over the value its domain term evaluates to (appendix A.2.4):

- a list: its elements;
- an object: its keys;
- the grounding set `outputs`: its members, in sorted order;
- ⊥ or null: nothing (so `forall` is true and `exists` false);
- any other single value (a string, a number): that one value.

Two bindings are the same when their values are equal under the language's JSON equality
(`1 == 1.0`, but `true != 1`); `value_key` gives such values one hashable key, so engines
can memoise per binding without conflating `true` with `1` as Python's `==` would.

>>> domain_values([1, 2]), domain_values({"a": 1}), domain_values(None), domain_values("x")
([1, 2], ['a'], [], ['x'])
>>> value_key(1) == value_key(1.0), value_key(True) == value_key(1)
(True, False)
"""

from __future__ import annotations

from typing import Mapping

# value_key: the engines' binding identity; domain_values: shared with the quantifiers of event
# patterns, which the data layer evaluates
from policyc.ir.ops import domain_values, value_key  # noqa: F401


def binding_key(variables: Mapping[str, object]) -> frozenset:
    """The identity of a variable binding, for memo tables."""
    return frozenset((name, value_key(v)) for name, v in variables.items())
