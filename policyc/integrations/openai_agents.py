"""OpenAI Agents SDK: a policy gate as the SDK's own tool guardrails.

```python
from agents import Agent, Runner
from policyc.integrations.openai_agents import PolicyGuard

guard = PolicyGuard("code_qa.policy.json")
agent = Agent(name="qa", tools=guard.gate([search, read_file]))   # checked against the policy
result = await Runner.run(agent, "Where is `request` defined?")
guard.finish()          # the compliance report of the run; the next call starts a new run
```

`gate(tools)` returns copies of the `FunctionTool`s with two guardrails added: a tool
input guardrail that proposes each call to the run before it executes, and a tool output
guardrail that records the executed call with its output. A guard gates one agent run at
a time (create one guard per concurrent run; the loaded `Monitor` can be shared):

- allow: the tool runs and is recorded with what it returned, in the shape the policy
  declares (`policyc.trace.results`);
- warn: the tool runs; the model reads its output followed by the policy's warning;
- block: the tool does not run; the model reads the gate's message instead (the SDK's
  `reject_content`);
- stop: the tool does not run and the SDK raises `ToolInputGuardrailTripwireTriggered`,
  which ends `Runner.run`; `guard.stopped` holds the decision.

The SDK runs the function calls of one model turn concurrently; the guard lets one call at
a time through from its proposal to its output, in the order they reach it, so the trace is
a sequence.
"""

from __future__ import annotations

import asyncio
import copy
import dataclasses
import json
from typing import Any, Mapping, Sequence

from agents import FunctionTool, ToolGuardrailFunctionOutput, ToolInputGuardrail, ToolOutputGuardrail

from policyc.integrations.gating import as_arguments, check_tool_set, load_policy, recorded
from policyc.runtime import Decision, Monitor, Run, RunError


def tool_schemas(tools: Sequence) -> dict[str, tuple[object, object | None]]:
    """name -> (parameters JSON Schema, result JSON Schema) of the SDK's function tools; the
    result's is the tool's `output_json_schema` (`function_tool(..., output_type=...)`), None
    when it has none."""
    return {t.name: (t.params_json_schema, t.output_json_schema) for t in tools if isinstance(t, FunctionTool)}


class PolicyGuard:
    """Gates the function tools of an OpenAI Agents SDK agent (see the module docstring).

    Args:
        policy: the loaded policy artifact (a `Monitor`), or the path of an artifact file or of a
            policy source (`.altl`, compiled in memory; see `Monitor.load`).
        mode: a run-wide enforcement mode (tolerate, warn, block, soft, stop), or None.
        tool_names: SDK tool name -> policy tool name, where they differ.
        on_mismatch: `error`, `warn` or `ignore` a mismatch between the tools and the policy.
    """

    def __init__(self, policy: Monitor | str, *, mode: str | None = None,
                 tool_names: Mapping[str, str] | None = None, on_mismatch: str = "error"):
        self.monitor = load_policy(policy)
        self.mode = mode
        self.tool_names = dict(tool_names or {})
        self.on_mismatch = on_mismatch
        self.stopped: Decision | None = None
        self._run: Run | None = None
        self._turn: asyncio.Lock | None = None
        self._pending: dict[str, tuple[str, dict, Decision]] = {}
        self._failed: set[object] = set()  # the calls whose function raised (their ids)
        self.input_guardrail: ToolInputGuardrail[Any] = ToolInputGuardrail(self._before, name="policyc")
        self.output_guardrail: ToolOutputGuardrail[Any] = ToolOutputGuardrail(self._after, name="policyc")

    def gate(self, tools: Sequence) -> list:
        """Copies of the tools with the policy's guardrails (other tools are returned as they are),
        after checking them against the policy's signatures."""
        check_tool_set(self.monitor, tool_schemas(tools), self.tool_names, self.on_mismatch, "the agent")
        out = []
        for tool in tools:
            if isinstance(tool, FunctionTool):
                tool = dataclasses.replace(
                    tool, tool_input_guardrails=[*(tool.tool_input_guardrails or []), self.input_guardrail],
                    tool_output_guardrails=[*(tool.tool_output_guardrails or []), self.output_guardrail])
                self._note_failures(tool)
            out.append(tool)
        return out

    def _note_failures(self, tool: FunctionTool) -> None:
        """Note which calls of the tool raised: the SDK turns the exception into the output
        the model reads (its failure formatter's text), which the output guardrail could not
        tell from a result. The SDK's invoker tells a hook of each error it handled; the
        tool's copy gets an invoker of its own whose hook notes the call first."""
        invoker = tool.on_invoke_tool
        hook = getattr(invoker, "_on_handled_error", None)
        if hook is None:  # an SDK without the hook: failures are recorded as results
            return
        invoker = copy.copy(invoker)

        def noted(function_tool: Any, error: Exception, arguments: str, ctx: Any) -> None:
            self._failed.add(getattr(ctx, "tool_call_id", None))
            hook(function_tool, error, arguments, ctx)

        setattr(invoker, "_on_handled_error", noted)  # noqa: B010 - an attribute the SDK's typing does not show
        tool.on_invoke_tool = invoker

    def _has_failed(self, ctx: Any) -> bool:
        """Whether the call's function raised (`_note_failures`)."""
        call_id = getattr(ctx, "tool_call_id", None)
        if call_id in self._failed:
            self._failed.discard(call_id)
            return True
        return False

    @property
    def run(self) -> Run:
        """The current policy run (started on the first call)."""
        if self._run is None:
            self._run = self.monitor.start(mode=self.mode)
            self._turn, self._pending, self.stopped = None, {}, None
        return self._run

    def finish(self):
        """End the current run and return its compliance report; the next call starts a new run."""
        report = self.run.finish()
        self._run = None
        return report

    # ------------------------------------------------------------ the guardrails

    async def _before(self, data) -> ToolGuardrailFunctionOutput:
        ctx = data.context
        run = self.run
        if self._turn is None:
            self._turn = asyncio.Lock()
        await self._turn.acquire()  # released when the call's output is recorded, or now if it is refused
        name = self.tool_names.get(ctx.tool_name, ctx.tool_name)
        args = as_arguments(ctx.tool_arguments)
        try:
            decision = run.propose(name, args)
        except RunError as exc:
            self._turn.release()
            return ToolGuardrailFunctionOutput.reject_content(f"`{name}` was not executed: {exc}")
        if decision.executes:
            self._pending[ctx.tool_call_id] = (name, args, decision)
            return ToolGuardrailFunctionOutput.allow(decision.to_json())
        self._turn.release()
        if decision.action == "stop":
            self.stopped = decision
            return ToolGuardrailFunctionOutput.raise_exception(decision.to_json())
        return ToolGuardrailFunctionOutput.reject_content(decision.message, decision.to_json())

    async def _after(self, data) -> ToolGuardrailFunctionOutput:
        pending = self._pending.pop(data.context.tool_call_id, None)
        if pending is None:  # not gated by this guard's current run
            return ToolGuardrailFunctionOutput.allow()
        name, args, decision = pending
        try:
            output = data.output  # what the function returned; the run shapes it as the policy declares
            self.run.record(name, args, recorded(output), error=self._has_failed(data.context))
        finally:
            if self._turn is not None and self._turn.locked():
                self._turn.release()
        if decision.action == "warn" and decision.message and name not in self.monitor.terminal_tools:
            text = output if isinstance(output, str) else json.dumps(recorded(output), ensure_ascii=False)
            return ToolGuardrailFunctionOutput.reject_content(f"{text}\n\n{decision.message}")
        return ToolGuardrailFunctionOutput.allow()


__all__ = ["PolicyGuard", "tool_schemas"]
