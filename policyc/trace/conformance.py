"""Do calls match the policy's tool signatures? The SAAG cascade's first stages, as findings.

The checks are `policyc.saag.cascade`'s, and stop at the first stage that fails:

1. registry: the tool is declared (otherwise: the nearest declared name, when the call
   misspells it);
2. structure: every required argument is given, and none is unknown: a *drifted* one
   (PDS ≥ 0.8 to a declared argument not given: a misspelling, with the name it
   misspells) or a *spurious* one (an invention);
3. type: each argument's value has the declared type (`ir.types.value_problems`).

SAAG's last stage, argument grounding, needs the user's request; a trace does not carry
it, so it is the gate's (`policyc.runtime`, with a run's context) and `policyc conformance`'s.
`check_result` adds a milder check that a recorded result has the declared result type (a
warning: tools, not agents, produce results). Findings are data; nothing here raises on a
bad call, so the runtime can run `check_call` on a proposed call before it executes.

>>> from policyc.ir.types import Param, ToolSignature, STR, INT
>>> tools = {"search": ToolSignature("search", (Param("query", STR), Param("limit", INT)), STR)}
>>> [str(f) for f in check_call("serch", {"query": "x"}, tools)]
['unknown tool `serch` (did you mean `search`?)']
>>> [str(f) for f in check_call("search", {"qeury": "x", "limit": 3}, tools)]
['`search` is missing its required argument `query`', '`search` has no argument `qeury` (did you mean `query`?)']
>>> [str(f) for f in check_call("search", {"query": 3, "limit": 3}, tools, position=4)]
['call #5: `search`: `query` should be str, got int']
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Mapping

from policyc.ir.ops import UNDEF
from policyc.ir.types import ANY, ToolSignature, sure_types, type_check, value_problems
from policyc.saag.cascade import REGISTRY, STRUCTURE, TYPE, Problem, assess

if TYPE_CHECKING:
    from policyc.trace.model import Trace

RESULT = "result"
STAGES = (REGISTRY, STRUCTURE, TYPE, RESULT)


@dataclass(frozen=True, slots=True)
class ConformanceFinding:
    """One way a call does not match its tool's signature."""

    stage: str                      # registry, structure, type or result
    code: str                       # no-tool, unknown-tool, missing-argument, drifted-argument,
                                    # unknown-argument, wrong-type, wrong-result
    tool: str
    message: str                    # one lowercase sentence, input in backticks
    argument: str | None = None
    suggestion: str | None = None   # the nearest declared name, when one is close
    position: int | None = None     # the call's position in its trace (0-based)
    severity: str = "error"         # "warning" for result findings

    @property
    def help(self) -> str | None:
        return f"did you mean `{self.suggestion}`?" if self.suggestion else None

    def __str__(self) -> str:
        where = f"call #{self.position + 1}: " if self.position is not None else ""
        return where + self.message + (f" ({self.help})" if self.help else "")

    def to_json(self) -> dict[str, Any]:
        return {"stage": self.stage, "code": self.code, "tool": self.tool, "argument": self.argument,
                "message": self.message, "help": self.help, "position": self.position, "severity": self.severity}


class Signatures:
    """The tools' parameters by name, to tell at a glance that a call conforms."""

    def __init__(self, tools: Mapping[str, ToolSignature]):
        self.tools = tools
        # per tool: each parameter's type check (`type_check`), and the required parameters
        self._params = {name: ({p.name: type_check(p.type) for p in sig.params},
                               frozenset(p.name for p in sig.params if p.required))
                        for name, sig in tools.items()}
        #: per tool, the check of its declared result type
        self.result_checks = {name: type_check(sig.result) for name, sig in tools.items()}
        # per tool and parameter, the Python types of values that certainly have its type (a
        # scalar type, possibly optional): the common case, told without the type check
        self._sure = {name: {p.name: sure_types(p.type) for p in sig.params} for name, sig in tools.items()}
        self._sure_result = {name: None if sig.result is ANY else sure_types(sig.result)
                             for name, sig in tools.items()}
        # per tool, all of the above in one look-up (`check_trace`'s loop)
        self._glance = {name: (*self._params[name], self._sure[name], self._sure_result[name],
                               self.result_checks[name]) for name in tools}

    def result_conforms(self, tool: str, result: Any) -> bool:
        """Whether a recorded result certainly has its tool's declared result type (or there is
        nothing to check: no result, an undeclared tool, a result of type `any`); `check_result`
        tells the rest."""
        if result is UNDEF:
            return True
        sure = self._sure_result.get(tool, None)
        if sure is None:
            return True
        return type(result) in sure

    def conforms(self, tool: str, args: Mapping[str, Any]) -> bool:
        """Whether the call passes registry, structure and type at once: a declared tool, every
        argument declared and of its type, every required one given. The cascade would find
        nothing to say about such a call; anything else goes through it.

        >>> from policyc.ir.types import Param, ToolSignature, STR
        >>> s = Signatures({"search": ToolSignature("search", (Param("query", STR),), STR)})
        >>> s.conforms("search", {"query": "cats"}), s.conforms("search", {"query": 3}), s.conforms("serch", {})
        (True, False, False)
        """
        found = self._params.get(tool)
        if found is None:
            return False
        checks, required = found
        sure = self._sure[tool]
        for name, value in args.items():
            check = checks.get(name)
            if check is None:
                return False
            if type(value) not in sure[name] and not check(value):
                return False
        return required.issubset(args)


def check_call(name: str, args: Mapping[str, Any], tools: Mapping[str, ToolSignature],
               position: int | None = None, signatures: Signatures | None = None) -> list[ConformanceFinding]:
    """Findings for one call (proposed or recorded), stage by stage; empty when it conforms
    (`signatures`, of the same tools, lets a conforming call skip the cascade)."""
    if signatures is not None and signatures.conforms(name, args):
        return []
    assessment = assess(name, args, tools)
    return [finding_of(p, position) for p in assessment.problems]


def finding_of(problem: Problem, position: int | None = None) -> ConformanceFinding:
    """A SAAG problem as a conformance finding of a trace's call."""
    return ConformanceFinding(problem.stage, problem.code, problem.tool, problem.message, problem.argument,
                              problem.suggestion, position)


def check_result(name: str, result: Any, tools: Mapping[str, ToolSignature],
                 position: int | None = None) -> list[ConformanceFinding]:
    """Warnings when a recorded result does not have the declared result type."""
    sig = tools.get(name)
    if sig is None or result is UNDEF or sig.result is ANY:
        return []
    return [ConformanceFinding(RESULT, "wrong-result", name, f"the result of `{name}`: {problem}",
                               position=position, severity="warning")
            for problem in value_problems(result, sig.result, "result")]


def check_trace(trace: Trace, tools: Mapping[str, ToolSignature], results: bool = True,
                signatures: Signatures | None = None) -> list[ConformanceFinding]:
    """Findings for every event of the agent in a trace, in order (what the user does on their
    side is not the agent's conformance); `signatures`: `Signatures(tools)`, made once for many
    traces."""
    out: list[ConformanceFinding] = []
    signatures = signatures or Signatures(tools)
    # `Signatures.conforms` and `result_conforms`, written out in the loop (a long run's calls
    # each paid two method calls for what is mostly a dictionary look-up)
    glance = signatures._glance
    for call in trace.calls:
        if call.actor != "assistant":
            continue
        name, args = call.name, call.args
        found = glance.get(name)
        if found is None:  # an undeclared tool (whose result has no type to check)
            out.extend(check_call(name, args, tools, call.position))
            continue
        checks, required, sure, sure_result, result_check = found
        for key, value in args.items():
            kinds = sure.get(key)  # None: not a parameter (`sure` has every one)
            if kinds is None or type(value) not in kinds and not checks[key](value):
                out.extend(check_call(name, args, tools, call.position))
                break
        else:
            if not required.issubset(args):
                out.extend(check_call(name, args, tools, call.position))
        if sure_result is not None and results and not call.error:  # a failure's result is its error
            result = call.result
            if result is not UNDEF and type(result) not in sure_result and not result_check(result):
                out.extend(check_result(name, result, tools, call.position))  # what is wrong with it
    return out
