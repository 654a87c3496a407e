"""Single perturbations of a gold trace: the faults a scripted agent injects.

| fault | what it does | default target |
|---|---|---|
| `drop` | removes a call | the last call |
| `swap` | exchanges a call with the next one | the last pair of adjacent calls where the second depends on the first (else the last two calls) |
| `wrong_branch` | takes the other branch of a routing decision | the first decision |
| `change_argument` | adds 1 to one argument (to the first element of a list) | the last call with an argument computed from a tool result (else the last call), its first such argument |
| `repeat` | makes a call twice in a row | the last call |
| `wrong_answer` | answers the expected answer plus 1 | - |

`wrong_branch` replaces the branch's call by the other branch's call; for a filter it drops
the call that processes a kept item or makes the call a dropped item must not get; for a
loop it runs one more iteration. Faults apply in order, each to the trace the previous one
left; `name@k` targets call k (decision k for `wrong_branch`), counting from 0.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from policyc.bench.model import Instance

FAULTS = ("drop", "swap", "wrong_branch", "change_argument", "repeat", "wrong_answer")

Call = tuple[str, dict[str, Any]]


class FaultNotApplicable(ValueError):
    """The fault has nothing to act on in this instance (e.g. wrong_branch without decisions)."""


@dataclass(frozen=True, slots=True)
class Fault:
    kind: str
    at: int | None = None

    def __str__(self) -> str:
        return self.kind if self.at is None else f"{self.kind}@{self.at}"


def parse_fault(text: str) -> Fault:
    """`drop`, `swap@2`, ...

    >>> parse_fault("swap@2")
    Fault(kind='swap', at=2)
    """
    kind, _, at = text.strip().partition("@")
    if kind not in FAULTS:
        raise ValueError(f"unknown fault `{kind}`; use one of: {', '.join(FAULTS)}")
    if at and not at.isdigit():
        raise ValueError(f"`{text}`: the target after `@` must be a call number")
    return Fault(kind, int(at) if at else None)


def faulty_calls(instance: Instance, faults: tuple[Fault, ...] = ()) -> tuple[list[Call], int]:
    """The calls (base tool names) and the answer of a run with these faults.

    >>> from policyc.bench.generate import generate_instance
    >>> inst = generate_instance("loop_termination", 1, 42)
    >>> faulty_calls(inst, (Fault("wrong_branch"),))
    ([('tool_a', {'i': 1}), ('tool_a', {'i': 2}), ('tool_a', {'i': 3})], 12)
    """
    calls: list[Call] = [(c.name, dict(c.args)) for c in instance.calls]
    answer = instance.expected_answer
    for fault in faults:
        if fault.kind == "wrong_answer":
            answer += 1
        elif fault.kind == "wrong_branch":
            calls = _wrong_branch(instance, calls, fault.at or 0)
        else:
            calls = _edit(instance, calls, fault)
    return calls, answer


def _target(calls: list[Call], at: int | None, default: int) -> int:
    index = default if at is None else at
    if not 0 <= index < len(calls):
        raise FaultNotApplicable(f"no call {index} in a {len(calls)}-call trace")
    return index


def _edit(instance: Instance, calls: list[Call], fault: Fault) -> list[Call]:
    if not calls:
        raise FaultNotApplicable(f"`{fault.kind}` needs a call, and the trace is empty")
    out = list(calls)
    if fault.kind == "drop":
        del out[_target(out, fault.at, len(out) - 1)]
    elif fault.kind == "repeat":
        k = _target(out, fault.at, len(out) - 1)
        out.insert(k + 1, (out[k][0], dict(out[k][1])))
    elif fault.kind == "swap":
        dependent = [k for k in range(len(instance.calls) - 1) if k in instance.calls[k + 1].after]
        k = _target(out, fault.at, dependent[-1] if dependent else len(out) - 2)
        if k + 1 >= len(out):
            raise FaultNotApplicable(f"no call after call {k} to swap it with")
        out[k], out[k + 1] = out[k + 1], out[k]
    elif fault.kind == "change_argument":
        k, arg = _argument_target(instance, out, fault.at)
        name, args = out[k]
        out[k] = (name, {**args, arg: _bumped(args[arg])})
    return out


def _argument_target(instance: Instance, calls: list[Call], at: int | None) -> tuple[int, str]:
    if at is None:
        computed = [k for k, c in enumerate(instance.calls) if set(c.args) - set(c.given)]
        at = computed[-1] if computed else len(calls) - 1
    k = _target(calls, at, at)
    name, args = calls[k]
    if not args:
        raise FaultNotApplicable(f"call {k} (`{name}`) has no argument to change")
    given = set(instance.calls[k].given) if k < len(instance.calls) and instance.calls[k].name == name else set()
    free = [a for a in args if a not in given]
    return k, (free or list(args))[0]


def _bumped(value: Any) -> Any:
    if isinstance(value, list):
        return [_bumped(value[0])] + value[1:] if value else [1]
    return value + 1 if isinstance(value, int) and not isinstance(value, bool) else value


def _wrong_branch(instance: Instance, calls: list[Call], which: int) -> list[Call]:
    if not 0 <= which < len(instance.decisions):
        raise FaultNotApplicable(f"`{instance.template}` has {len(instance.decisions)} routing decision(s), "
                                 f"no decision {which}")
    decision = instance.decisions[which]
    out = list(calls)
    other = (decision.alternative[0], dict(decision.alternative[1])) if decision.alternative else None
    if decision.kind == "stop" or decision.taken_call is None:
        assert other is not None
        out.insert(decision.anchor + 1, other)
    elif other is None:
        del out[decision.taken_call]
    else:
        out[decision.taken_call] = other
    return out
