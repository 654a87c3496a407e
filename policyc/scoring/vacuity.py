"""Vacuity: did a rule hold only because what it constrains never happened?

A rule holds *vacuously* on a trace when it holds, its body has at least one trigger, and
none of its triggers occurred. The triggers of a formula, read at the top of the rule:

- `forall x in D: φ`: the domain D. An empty domain is an absent trigger (a grounding rule
  on a refusal: `entities(answer)` is empty); over a non-empty domain, the instances decide;
- `always (t -> c)`: t, at any position (`always (refund -> once eligible)` with no refund);
  `a R (t -> c)` and `a R not t` (precedence: no t before a) likewise;
- `t -> c` at the top: t, at position 0.

Each formula is *exercised* (some trigger occurred), *vacuous* (it has triggers and none
occurred) or *neutral* (it has no triggers: `called(a)`, `never(b)`, counts, orders). A
conjunction, and a `forall` over its instances, is exercised when any part is, else vacuous
when any part is, else neutral. A rule is vacuous when its formula is vacuous (and it holds).
So `called(final_answer) and forall e in entities(...): ...` is vacuous on a refusal: the
grounding half never had anything to check.

>>> from policyc.ir import build as b
>>> from policyc.trace import Trace
>>> from policyc.semantics import PositionEvaluator
>>> rule = b.always(b.implies(b.event("refund"), b.once(b.event("check"))))
>>> vacuity(rule, PositionEvaluator(Trace.of(("check", {}), ("reply", {}))))
('vacuous', '`refund` never occurred')
>>> vacuity(rule, PositionEvaluator(Trace.of(("check", {}), ("refund", {}))))[0]
'exercised'
"""

from __future__ import annotations

from policyc.ir import build as b
from policyc.ir import nodes as n
from policyc.ir.data import DataEnv
from policyc.ir.printer import show
from policyc.scoring.shapes import as_implication
from policyc.semantics.positions import PositionEvaluator

EXERCISED, VACUOUS, NEUTRAL = "exercised", "vacuous", "neutral"
Status = tuple[str, str | None]  # (status, why it is vacuous)


def vacuity(f: n.Formula, engine: PositionEvaluator, env: DataEnv | None = None) -> Status:
    """The vacuity status of `f` at position 0, with the reason when vacuous."""
    env = env or engine.root_env
    if isinstance(f, n.Forall):
        values = engine.domain(f.domain, env)
        if not values:
            return VACUOUS, f"`{show(f.domain)}` is empty"
        return combine(vacuity(f.body, engine, env.bind(f.var, v)) for v in values)
    if isinstance(f, n.And):
        return combine(vacuity(a, engine, env) for a in f.args)
    if isinstance(f, n.Release):
        return _released(f, engine, env)
    implication = as_implication(f)
    if implication is not None:
        trigger = implication[0]
        if engine.holds(trigger, 0, env) if engine.n else False:
            return EXERCISED, None
        return VACUOUS, f"`{show(trigger)}` does not hold"
    return NEUTRAL, None


def _released(f: n.Release, engine: PositionEvaluator, env: DataEnv) -> Status:
    body = f.right
    if isinstance(body, n.And) and f.left is n.FALSE:  # G distributes over and
        released = [r for r in (b.release(f.left, part) for part in body.args) if isinstance(r, n.Release)]
        return combine(_released(r, engine, env) for r in released)
    implication = as_implication(body)
    if implication is not None:
        trigger = implication[0]
    elif isinstance(body, n.Not) and f.left is not n.FALSE:
        trigger = body.arg  # precedence: `a R not t`
    else:
        return NEUTRAL, None
    if isinstance(trigger, n.Event) and trigger.guard is b.LIT_TRUE:  # a tool's calls: the trace's index has them
        occurred = bool(engine.positions_of(trigger.tool))
    else:
        occurred = bool(engine.bits(trigger, env))
    if occurred:
        return EXERCISED, None
    return VACUOUS, f"`{show(trigger)}` never occurred"


def combine(statuses) -> Status:
    vacuous: Status | None = None
    for status in statuses:
        if status[0] == EXERCISED:
            return status
        if status[0] == VACUOUS and vacuous is None:
            vacuous = status
    return vacuous or (NEUTRAL, None)


def has_triggers(f: n.Formula) -> bool:
    """Whether a rule has a trigger (a domain, an `always (t -> c)`, a top `t -> c`), so that a
    run where none occurred can be told vacuous; a rule without one (`called(a)`, a count)
    constrains every run.

    >>> has_triggers(b.always(b.implies(b.event("refund"), b.once(b.event("check"))))), has_triggers(b.event("a"))
    (True, False)
    """
    if isinstance(f, n.Forall):
        return True
    if isinstance(f, n.And):
        return any(has_triggers(a) for a in f.args)
    if isinstance(f, n.Release):
        body = f.right
        if isinstance(body, n.And) and f.left is n.FALSE:
            return any(has_triggers(b.release(f.left, part)) for part in body.args)
        return as_implication(body) is not None or isinstance(body, n.Not) and f.left is not n.FALSE
    return as_implication(f) is not None

