"""The prompt of an instance (§C.5): formal PROCEDURE / RULES / ANSWER FORMAT blocks in
production mode, short inline sentences in simplified mode. Every number is inlined; the
difficulty index never appears.

The answer line is `ANSWER: <integer>` in both modes; `policyc.reward` reads it back.
"""

from __future__ import annotations

from policyc.bench.procedure import Outcome, ToolNames

#: The answer line the prompts ask for (and policyc.reward parses).
ANSWER_LINE = "ANSWER: <integer>"

GENERAL_RULES = (
    "Make one tool call at a time, in the order the procedure gives.",
    "Call only the tools listed above, and only when the procedure says so.",
    "Use every number exactly as this prompt or a tool result gives it; never compute a tool's result yourself.",
)


def production_prompt(tools: tuple[str, ...], outcome: Outcome, names: ToolNames) -> str:
    """The production prompt.

    >>> from policyc.bench.procedure import Outcome
    >>> print(production_prompt(("tool_a",), Outcome(12, ("1. Call tool_a(i=1).",)), ToolNames()))
    You can call these tools:
    - tool_a(i: int) -> {"result": int}
    <BLANKLINE>
    PROCEDURE
    1. Call tool_a(i=1).
    <BLANKLINE>
    RULES
    - Make one tool call at a time, in the order the procedure gives.
    - Call only the tools listed above, and only when the procedure says so.
    - Use every number exactly as this prompt or a tool result gives it; never compute a tool's result yourself.
    <BLANKLINE>
    ANSWER FORMAT
    When the procedure is complete, give the final total as one integer on the last line, written as
    ANSWER: <integer>
    """
    lines = ["You can call these tools:", *(f"- {names.signature(t)}" for t in tools), "",
             "PROCEDURE", *outcome.steps, "", "RULES", *(f"- {r}" for r in GENERAL_RULES + outcome.rules), "",
             "ANSWER FORMAT",
             f"When the procedure is complete, give {outcome.answer_is} as one integer on the last line, written as",
             ANSWER_LINE]
    return "\n".join(lines)


def simplified_prompt(tools: tuple[str, ...], outcome: Outcome, names: ToolNames,
                      prefix: str = "", suffix: str = "") -> str:
    """The simplified prompt: a few sentences, then the answer line.

    >>> from policyc.bench.procedure import Outcome
    >>> simplified_prompt(("tool_a",), Outcome(2, ("Call tool_a(i=1).",), answer_is="its result"), ToolNames())
    'Tools: tool_a(i). Call tool_a(i=1). Give its result as ANSWER: <integer>.'
    """
    listed = ", ".join(f"{names.tool(t)}({', '.join(names.arg(t, p) for p in _params(t))})" for t in tools)
    parts = [f"Tools: {listed}.", *([prefix] if prefix else []), *outcome.steps, *([suffix] if suffix else []),
             f"Give {outcome.answer_is} as {ANSWER_LINE}."]
    return " ".join(parts)


def _params(tool: str) -> tuple[str, ...]:
    from policyc.bench.tools import TOOLS

    return TOOLS[tool].params
