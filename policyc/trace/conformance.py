"""Do calls match the policy's tool signatures? The SAAG stages, as findings.

SAAG ("Structured Agent Assessment and Grounding") checks a call in stages and stops at the
first stage that fails:

1. registry: the tool is declared (otherwise: the nearest declared name);
2. structure: every required argument is given, and no argument is unknown (with the
   nearest declared argument name, when one is close: a misspelling, not an invention);
3. type: each argument's value has the declared type (`ir.types.value_problems`).

`check_result` adds a fourth, milder check that a recorded result has the declared result
type (a warning: tools, not agents, produce results). Findings are data; nothing here raises
on a bad call, so the runtime can run `check_call` on a proposed call before it executes.

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

import difflib
from dataclasses import dataclass
from typing import Any, Mapping

from policyc.ir.ops import UNDEF
from policyc.ir.types import ANY, ToolSignature, value_problems

REGISTRY, STRUCTURE, TYPE, RESULT = "registry", "structure", "type", "result"
STAGES = (REGISTRY, STRUCTURE, TYPE, RESULT)


@dataclass(frozen=True, slots=True)
class ConformanceFinding:
    """One way a call does not match its tool's signature."""

    stage: str                      # registry, structure, type or result
    code: str                       # unknown-tool, missing-argument, unknown-argument, wrong-type, wrong-result
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

    def to_json(self) -> dict:
        return {"stage": self.stage, "code": self.code, "tool": self.tool, "argument": self.argument,
                "message": self.message, "help": self.help, "position": self.position, "severity": self.severity}


def nearest_name(word: str, candidates) -> str | None:
    """The candidate most like `word`, if one is close enough to be a misspelling.

    >>> nearest_name("final_anwser", ["final_answer", "search"]), nearest_name("zzz", ["search"])
    ('final_answer', None)
    """
    pool = sorted(set(candidates))
    folded = {c.lower(): c for c in pool}
    if word.lower() in folded:
        return folded[word.lower()]
    match = difflib.get_close_matches(word.lower(), list(folded), n=1, cutoff=0.6)
    return folded[match[0]] if match else None


def check_call(name: str, args: Mapping[str, Any], tools: Mapping[str, ToolSignature],
               position: int | None = None) -> list[ConformanceFinding]:
    """Findings for one call (proposed or recorded), stage by stage; empty when it conforms."""
    sig = tools.get(name)
    if sig is None:
        return [ConformanceFinding(REGISTRY, "unknown-tool", name, f"unknown tool `{name}`",
                                   suggestion=nearest_name(name, tools), position=position)]
    declared = [p.name for p in sig.params]
    structure = [
        ConformanceFinding(STRUCTURE, "missing-argument", name,
                           f"`{name}` is missing its required argument `{p.name}`", p.name, position=position)
        for p in sig.params if p.required and p.name not in args
    ]
    for arg in args:
        if sig.param(arg) is None:
            unused = [d for d in declared if d not in args]
            structure.append(ConformanceFinding(STRUCTURE, "unknown-argument", name,
                                                f"`{name}` has no argument `{arg}`", arg,
                                                nearest_name(arg, unused), position))
    if structure:
        return structure
    out = []
    for arg, value in args.items():
        param = sig.param(arg)
        for problem in value_problems(value, param.type, arg):  # type: ignore[union-attr]
            out.append(ConformanceFinding(TYPE, "wrong-type", name, f"`{name}`: {problem}", arg, position=position))
    return out


def check_result(name: str, result: Any, tools: Mapping[str, ToolSignature],
                 position: int | None = None) -> list[ConformanceFinding]:
    """Warnings when a recorded result does not have the declared result type."""
    sig = tools.get(name)
    if sig is None or result is UNDEF or sig.result is ANY:
        return []
    return [ConformanceFinding(RESULT, "wrong-result", name, f"the result of `{name}`: {problem}",
                               position=position, severity="warning")
            for problem in value_problems(result, sig.result, "result")]


def check_trace(trace, tools: Mapping[str, ToolSignature], results: bool = True) -> list[ConformanceFinding]:
    """Findings for every event of the agent in a trace, in order (what the user does on their
    side is not the agent's conformance)."""
    out: list[ConformanceFinding] = []
    for call in trace.calls:
        if getattr(call, "actor", "assistant") != "assistant":
            continue
        out.extend(check_call(call.name, call.args, tools, call.position))
        if results and call.name in tools:
            out.extend(check_result(call.name, call.result, tools, call.position))
    return out
