"""How large an automaton the compiler builds before it gives up, with a clear error.

An automaton can be exponential in its formula: `always (a -> (once b0 and ... once bN))`
has to remember which of the N + 1 tools were called, 2^(N+1) states, and each state built
by progression costs tens of kilobytes while it is built. Without a bound, N = 16 ran for
minutes and gigabytes. Two budgets bound the construction:

| budget | default | what it counts |
|---|---|---|
| `states` | 5,000 | states one automaton reaches while it is built by progression (a rule, a conjunct, a sliced part's instance automaton) |
| `product` | 300,000 | states of the product of a conjunction's automata (built as arrays: a few hundred bytes per state) |

Reaching one raises `BudgetExceeded`, whose message names what was being built (the rule,
once `compile_policy` knows it) and the option that raises the budget. Every policy in the
examples and tests needs at most a few hundred states; the DECLARE benchmark's largest
conjunction (16 templates) is a 248,833-state product.

`construction_budget(states=..., product=...)` sets the budget for the code it wraps (the
command line's `--max-states` and `--max-product`); `current_budget()` is what the compiler
reads. The environment variables POLICYC_MAX_STATES and POLICYC_MAX_PRODUCT set the
defaults of a process.

>>> with construction_budget(states=10):
...     current_budget().states
10
>>> current_budget() == Budget()
True
"""

from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, replace
from typing import Iterator

from policyc.inputs import env_number

DEFAULT_STATES = 5_000
DEFAULT_PRODUCT = 300_000


def _env(name: str, default: int) -> int:
    return int(env_number(name, default))


@dataclass(frozen=True)
class Budget:
    """The most an automaton construction may build."""

    states: int = DEFAULT_STATES
    product: int = DEFAULT_PRODUCT

    @classmethod
    def from_environment(cls) -> "Budget":
        """The defaults, or what POLICYC_MAX_STATES and POLICYC_MAX_PRODUCT say (read each
        time: worker processes inherit them)."""
        return cls(_env("POLICYC_MAX_STATES", DEFAULT_STATES), _env("POLICYC_MAX_PRODUCT", DEFAULT_PRODUCT))


class BudgetExceeded(Exception):
    """An automaton construction reached its budget; `rule` names the rule when known."""

    def __init__(self, what: str, count: int, option: str, rule: str | None = None, formula: str | None = None):
        self.what, self.count, self.option, self.rule, self.formula = what, count, option, rule, formula
        where = f"rule `{rule}`: " if rule else f"`{formula}`: " if formula else ""
        super().__init__(f"{where}{what} reaches {count:,} states, the compiler's budget")

    def __reduce__(self):  # crosses process boundaries (lint --jobs) whole
        return BudgetExceeded, (self.what, self.count, self.option, self.rule, self.formula)

    @property
    def help(self) -> str:
        return (f"raise the budget with `{self.option} N` (or the environment variable "
                f"POLICYC_{self.option[2:].replace('-', '_').upper()}), or split the rule into smaller ones")

    def naming(self, rule: str) -> "BudgetExceeded":
        return BudgetExceeded(self.what, self.count, self.option, rule, self.formula)

    def showing(self, formula: str) -> "BudgetExceeded":
        return self if self.rule or self.formula else BudgetExceeded(self.what, self.count, self.option, None, formula)


_CURRENT: ContextVar[Budget | None] = ContextVar("policyc_construction_budget", default=None)


def current_budget() -> Budget:
    """The budget set by the innermost `construction_budget`, else the environment's."""
    return _CURRENT.get() or Budget.from_environment()


@contextmanager
def construction_budget(states: int | None = None, product: int | None = None) -> Iterator[Budget]:
    """Build automata within these budgets (None: keep the current one) in the wrapped code."""
    budget = current_budget()
    budget = replace(budget, **{k: v for k, v in (("states", states), ("product", product)) if v is not None})
    token = _CURRENT.set(budget)
    try:
        yield budget
    finally:
        _CURRENT.reset(token)



@contextmanager
def naming_rule(rule: str) -> Iterator[None]:
    """Whatever the wrapped construction builds is rule `rule`'s: a budget it reaches is named
    by the rule, not by an inner formula the author never wrote."""
    try:
        yield
    except BudgetExceeded as exc:
        raise exc.naming(rule) from None


__all__ = ["Budget", "BudgetExceeded", "construction_budget", "current_budget", "naming_rule"]
