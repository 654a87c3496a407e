"""The gate's answer to a proposed call, and the message the agent reads.

A `Decision` says whether the call may run (`allow`, `warn`) or not (`block`, `stop`),
which rules were involved and why, and what would comply: the tools that keep the policy
satisfiable and the calls still required.

>>> d = Decision("allow", "search", {"query": "x"}, 0)
>>> d.executes, d.rules, d.message
(True, (), '')
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any, Mapping

from policyc.runtime.calls import as_data, value_problem
from policyc.runtime.findings import CONFLICT, CONFORMANCE, UNDECIDED, Finding


@dataclass(frozen=True, slots=True, init=False)
class Decision:
    action: str                          # allow, warn, block or stop
    tool: str
    args: Mapping[str, Any]
    step: int                            # the position the call takes in the run if it runs
    findings: tuple[Finding, ...] = ()
    severity: str | None = None          # the severity that decided, when a finding did
    message: str = ""                    # for the agent; empty when there is nothing to say
    allowed_next: tuple[str, ...] = ()   # tools that keep the policy satisfiable (when the agent is told)
    required: tuple[str, ...] = ()       # calls still owed, in an order that satisfies the policy
    override: bool = False               # ran as a deliberate override of a block-and-warn
    escalated: bool = False              # a soft_block rule ran out of refusals
    latched: bool = False                # refused because the run was already stopped
    attempts: tuple[tuple[str, int, int], ...] = field(default=())
    undecided: tuple[str, ...] = ()      # what the gate could not decide about this call (said, not guessed)

    def __init__(self, action: str, tool: str, args: Mapping[str, Any], step: int, findings: tuple[Finding, ...] = (),
                 severity: str | None = None, message: str = "", allowed_next: tuple[str, ...] = (),
                 required: tuple[str, ...] = (), override: bool = False, escalated: bool = False,
                 latched: bool = False, attempts: tuple[tuple[str, int, int], ...] = (),
                 undecided: tuple[str, ...] = ()) -> None:
        """The fields, in order, set through their slots: the __init__ a frozen dataclass is
        given calls `object.__setattr__` per field, and costs twice this on the gate's path
        (one decision per proposed call)."""
        (set_action, set_tool, set_args, set_step, set_findings, set_severity, set_message, set_allowed_next,
         set_required, set_override, set_escalated, set_latched, set_attempts, set_undecided) = _SLOTS
        set_action(self, action)
        set_tool(self, tool)
        set_args(self, args)
        set_step(self, step)
        set_findings(self, findings)
        set_severity(self, severity)
        set_message(self, message)
        set_allowed_next(self, allowed_next)
        set_required(self, required)
        set_override(self, override)
        set_escalated(self, escalated)
        set_latched(self, latched)
        set_attempts(self, attempts)
        set_undecided(self, undecided)

    @property
    def executes(self) -> bool:
        """Whether the harness should run the call."""
        return self.action in ("allow", "warn")

    def told(self, message: str) -> "Decision":
        """This decision with the message the agent reads (`render_message`); built field by
        field, since `dataclasses.replace` costs several times more on the gate's path."""
        return Decision(self.action, self.tool, self.args, self.step, self.findings, self.severity, message,
                        self.allowed_next, self.required, self.override, self.escalated, self.latched, self.attempts,
                        self.undecided)

    @property
    def rules(self) -> tuple[str, ...]:
        """The rules involved, in the order found (conflicts list each of their rules)."""
        out: dict[str, None] = {}
        for f in self.findings:
            if f.kind == CONFORMANCE:
                continue
            for name in f.rules or (f.rule,):
                out[name] = None
        return tuple(out)

    def to_json(self) -> dict[str, object]:
        return {
            "action": self.action, "executes": self.executes, "tool": self.tool, "args": _args_data(self.args),
            "step": self.step,
            "severity": self.severity, "rules": list(self.rules),
            "findings": [f.to_json() for f in self.findings], "message": self.message,
            "allowed_next": list(self.allowed_next), "required": list(self.required),
            "override": self.override, "escalated": self.escalated, "latched": self.latched,
            "undecided": list(self.undecided),
        }


def _args_data(args: Mapping[str, Any]) -> dict[str, Any]:
    """A decision's arguments as JSON data: a refused proposal's arguments may hold values that
    are not (bytes, NaN, cycles); those are shown as their text."""
    if value_problem(args) is None:
        return dict(args)
    return {key if isinstance(key, str) else str(as_data(key)): as_data(value) for key, value in args.items()}


#: the setters of Decision's slots, in the order of its fields
_SLOTS = tuple(vars(Decision)[f.name].__set__ for f in fields(Decision))


def _reason(f: Finding) -> str:
    if f.kind == CONFORMANCE:  # SAAG's correction for the stage the call halted at
        return f"- {f.message or f.detail}"
    if f.kind == CONFLICT:
        names = ", ".join(f"`{r}`" for r in f.rules)
        return f"- rules {names}: {f.detail}"
    if f.kind == UNDECIDED:
        names = ", ".join(f"`{r}`" for r in f.rules)
        return f"- rules {names}: the gate could not tell whether they can still all hold after it"
    layer = f" ({f.layer})" if f.layer else ""
    text = (f.message or f.detail).rstrip(".")
    return f"- rule `{f.rule}`{layer}: {text}"


def _calls(tools: tuple[str, ...]) -> str:
    return ", then ".join(f"`{t}`" for t in tools)


def render_message(decision: Decision) -> str:
    """The observation the agent receives for a decision (empty for a clean allow).

    >>> from policyc.runtime.findings import Finding
    >>> f = Finding("reads_a_file", "owed", "L5", "block", None, "the run would end with it unsatisfied",
    ...             owed=("read_file",))
    >>> print(render_message(Decision("block", "final_answer", {}, 2, (f,), "block")))
    `final_answer` was not executed. It would break:
    - rule `reads_a_file` (L5): the run would end with it unsatisfied
    First call `read_file`, then `final_answer`.
    If you are sure this call is needed, repeat exactly the same call as your next action to override this warning; otherwise choose a different action.
    """
    tool = f"`{decision.tool}`"
    if decision.latched:
        return f"{tool} was not executed: the run has been stopped. Do not call further tools."
    if decision.override:
        return (f"{tool} ran as a deliberate override of the warning you were given; "
                "the rule it breaks is recorded as violated.")
    shown = [f for f in decision.findings if decision.severity != "tolerate"]
    if decision.action == "allow" or not shown:
        return ""
    # one correction for a stage's findings: the findings of a stage share their message, which
    # may list thousands of arguments, so it is written once (not once per finding, then compared)
    stage_messages: set[int] = set()
    once = []
    for f in shown:
        if f.kind == CONFORMANCE and f.message:
            if id(f.message) in stage_messages:
                continue
            stage_messages.add(id(f.message))
        once.append(f)
    reasons = list(dict.fromkeys(_reason(f) for f in once))
    if all(f.kind == CONFORMANCE for f in shown):  # the correction alone, as SAAG returns it
        reasons = [r[2:] for r in reasons]
        what = {"warn": "ran, with a correction:", "stop": "was not executed and the run is stopped:"}
        head = f"{tool} {what.get(decision.action, 'was not executed:')}"
    elif decision.action == "warn":
        head = f"{tool} ran, but it breaks the policy:"
    elif decision.action == "stop":
        head = f"{tool} was not executed and the run is stopped. It would break:"
    else:
        head = f"{tool} was not executed. It would break:"
    lines = [head, *reasons]
    if decision.action == "stop":
        if decision.escalated:
            lines.append("The rule refused too many calls.")
        return "\n".join(lines)
    lines.extend(_guidance(decision))
    if decision.action == "block" and decision.severity == "block":
        lines.append("If you are sure this call is needed, repeat exactly the same call as your next action "
                     "to override this warning; otherwise choose a different action.")
    elif decision.action == "block" and decision.severity == "deny":
        lines.append("This call is denied: repeating it will not run it; choose a different action.")
    elif decision.action == "block" and decision.severity == "soft_block":
        for rule, n, limit in decision.attempts:
            lines.append(f"Refusal {n} of {limit} for rule `{rule}`: at {limit} the run stops.")
    return "\n".join(lines)


def _guidance(decision: Decision) -> list[str]:
    """What would comply: the calls owed before this one, or the calls still required, and
    the tools that keep the policy satisfiable."""
    owed: dict[str, None] = {}
    for f in decision.findings:
        for tool in f.owed:
            owed[tool] = None
    out = []
    if decision.action == "warn":
        if decision.required:
            out.append(f"Still required: {_calls(decision.required)}.")
        return out
    if owed:
        out.append(f"First call {_calls(tuple(owed))}, then {'`' + decision.tool + '`'}.")
    elif decision.required:
        out.append(f"Still required: {_calls(decision.required)}.")
    if decision.allowed_next:
        out.append("Calls that keep the policy satisfiable now: "
                   + ", ".join(f"`{t}`" for t in decision.allowed_next) + ".")
    elif not owed and any(f.kind != CONFORMANCE for f in decision.findings):
        out.append("No call can satisfy the whole policy any more.")
    return out
