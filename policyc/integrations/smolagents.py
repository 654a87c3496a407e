"""smolagents: agents whose every tool call goes through a policy gate.

```python
from policyc.integrations.smolagents import GatedAgent, GatedCodeAgent
from policyc.runtime import Monitor

agent = GatedAgent(tools=[search, read_file], model=model, policy=Monitor.load("code_qa.policy.json"))
answer = agent.run("Where is `request` defined?")
agent.report            # the compliance report of the run (what `policyc score` gives)
agent.policy_run.events # the enforcement log (table 17: agent.policy_run.enforcement_table())
```

`GatedAgent` is a `ToolCallingAgent`, `GatedCodeAgent` a `CodeAgent` (local executor): the
tool calls its code makes are gated as they happen. Each call is proposed to the run first:

- allow: the tool runs and the call is recorded with its result, in the shape the policy
  declares (`policyc.trace.results`);
- warn: the tool runs; its observation ends with the policy's warning (for a code agent,
  the warning is added to the step's observations);
- block (block-and-warn or soft-block): the tool does not run; the model gets the gate's
  message as the step's error and may correct itself (or, under block-and-warn, insist by
  repeating the identical call). In code, the refused call raises `PolicyRefusal`, which
  ends the snippet;
- stop: the tool does not run and the agent run ends; `agent.stopped` holds the decision.

smolagents' own `final_answer` tool is a call like any other, so a policy that declares a
terminal tool `final_answer` decides whether the agent may answer yet. Calls the model asks
for in parallel are gated one after another, in the order it gave them.

At construction the agent's tools (its `final_answer` included) are compared with the
policy's signatures: a tool or argument missing on either side raises `ToolSetMismatch`,
naming each (`on_mismatch="warn"` warns instead, `"ignore"` skips the check).

`ScriptedModel` replays a fixed list of tool calls, `ScriptedCodeModel` a list of code
snippets: models for tests and dry runs.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence

from smolagents import CodeAgent, ToolCallingAgent
from smolagents.local_python_executor import (
    BreakException, ContinueException, FinalAnswerException, LocalPythonExecutor, ReturnException,
)
from smolagents.memory import ActionStep
from smolagents.models import ChatMessage, ChatMessageToolCall, ChatMessageToolCallFunction, MessageRole, Model
from smolagents.utils import AgentToolExecutionError

from policyc.integrations.gating import PolicyStop, as_arguments, check_tool_set, failure_text, load_policy, \
    recorded, return_schema
from policyc.runtime import Decision, Monitor, Run
from policyc.scoring import TraceReport

_UNTYPED = {"any", "image", "audio", "video"}  # smolagents types with no JSON Schema type

#: What smolagents' executor raises to steer the code it runs: no tool failed.
_CONTROL_FLOW = (FinalAnswerException, BreakException, ContinueException, ReturnException)


class PolicyRefusal(Exception):
    """Raised in an agent's code when the gate refuses a tool call; its text is the gate's message."""


def _schema(spec: Mapping) -> dict:
    out = {k: v for k, v in spec.items() if k not in ("description", "nullable")}
    if out.get("type") in _UNTYPED:
        out.pop("type")
    return out


def tool_schemas(tools: Mapping[str, Any]) -> dict[str, tuple[object, object | None]]:
    """name -> (arguments JSON Schema, result JSON Schema) of smolagents tools. The result's is
    the tool's `output_schema`, else the return annotation of its `forward`, else its
    `output_type` (None when it is `any`)."""
    out: dict[str, tuple[object, object | None]] = {}
    for name, tool in tools.items():
        inputs = getattr(tool, "inputs", {}) or {}
        params = {"type": "object", "properties": {k: _schema(v) for k, v in inputs.items()},
                  "required": [k for k, v in inputs.items() if not v.get("nullable")]}
        output = getattr(tool, "output_type", "any")
        result = getattr(tool, "output_schema", None) or _annotated(tool) \
            or (None if output in _UNTYPED else {"type": output})
        out[name] = (params, result)
    return out


def _annotated(tool) -> dict | None:
    """The schema of what a tool's `forward` is annotated to return, unless that says no more
    than its `output_type` (a bare `list` or `dict`)."""
    forward = getattr(tool, "forward", None)
    schema = return_schema(forward) if callable(forward) else None
    if schema is None or schema.get("type") in ("array", "object") and len(schema) == 1 or schema == {
            "type": "object", "additionalProperties": True} or schema == {"items": {}, "type": "array"}:
        return None
    return schema


if TYPE_CHECKING:  # what both gated agents extend, as mypy sees this class
    from smolagents import MultiStepAgent as _Agent
else:
    _Agent = object


class _PolicyGated(_Agent):
    """What both gated agents share: the run, the tool check, gating one call."""

    def _setup_policy(self, policy: Monitor | str, mode: str | None, tool_names: Mapping[str, str] | None,
                      on_mismatch: str) -> None:
        self.policy_monitor = load_policy(policy)
        self.mode = mode
        self.tool_names = dict(tool_names or {})
        self.policy_run: Run | None = None
        self.report: TraceReport | None = None
        self.stopped: Decision | None = None
        self._gate_lock = threading.Lock()
        self.tool_check = check_tool_set(self.policy_monitor, tool_schemas(self.tools), self.tool_names,
                                         on_mismatch, "the smolagents agent")

    def run(self, task: str, *args, reset: bool = True, stream: bool = False, **kwargs):
        """Run the agent on a task; `self.report` holds the compliance report afterwards."""
        if reset or self.policy_run is None or self.policy_run.finished:
            self.policy_run = self.policy_monitor.start(mode=self.mode)
            self.report, self.stopped = None, None
        if stream:
            return self._stream(super().run(task, *args, reset=reset, stream=True, **kwargs))
        try:
            return super().run(task, *args, reset=reset, **kwargs)
        except PolicyStop as stop:
            self.stopped = stop.decision
            return None
        finally:
            self.report = self.policy_run.finish()

    def _stream(self, steps):
        try:
            yield from steps
        except PolicyStop as stop:
            self.stopped = stop.decision
        finally:
            assert self.policy_run is not None  # started by `run` before it streams
            self.report = self.policy_run.finish()

    def _gate(self, tool_name: str, args: dict, execute: Callable[[], Any],
              refuse: Callable[[Decision], BaseException]) -> tuple[Any, Decision]:
        """Propose, run and record one call; `refuse(decision)` is raised when it may not run."""
        run = self.policy_run
        if run is None:  # called outside `run` (a managed agent, a direct call): start one
            run = self.policy_run = self.policy_monitor.start(mode=self.mode)
        name = self.tool_names.get(tool_name, tool_name)
        with self._gate_lock:
            decision = run.propose(name, args)
            if decision.action == "stop":
                self.stopped = decision
            if not decision.executes:
                raise refuse(decision)
            try:
                result = execute()
            except Exception as exc:  # the tool ran and raised: recorded as failed, then raised on
                if not isinstance(exc, _CONTROL_FLOW):  # the executor's own signals are no failure
                    run.record(name, args, failure_text(exc), error=True)
                raise
            run.record(name, args, recorded(result))
        return result, decision

    def _warning(self, decision: Decision) -> str | None:
        name = decision.tool
        if decision.action == "warn" and decision.message and name not in self.policy_monitor.terminal_tools:
            return decision.message
        return None


class GatedAgent(_PolicyGated, ToolCallingAgent):
    """A ToolCallingAgent gated by a policy monitor.

    Args:
        policy: the loaded policy artifact (a `Monitor`), or the path of an artifact file or of a
            policy source (`.altl`, compiled in memory; see `Monitor.load`).
        mode: a run-wide enforcement mode (tolerate, warn, block, soft, stop), or None for
            each rule's own severity.
        tool_names: smolagents tool name -> policy tool name, where they differ
            (e.g. {"final_answer": "reply"}).
        on_mismatch: `error` (default), `warn` or `ignore` tools that do not match the policy.
        Everything else is passed to `ToolCallingAgent`.
    """

    def __init__(self, *args, policy: Monitor | str, mode: str | None = None,
                 tool_names: Mapping[str, str] | None = None, on_mismatch: str = "error", **kwargs):
        super().__init__(*args, **kwargs)
        self._setup_policy(policy, mode, tool_names, on_mismatch)

    def execute_tool_call(self, tool_name: str, arguments: dict[str, str] | str) -> Any:
        result, decision = self._gate(tool_name, as_arguments(arguments),
                                      lambda: ToolCallingAgent.execute_tool_call(self, tool_name, arguments),
                                      lambda d: PolicyStop(d) if d.action == "stop"
                                      else AgentToolExecutionError(d.message, self.logger))
        warning = self._warning(decision)
        return f"{result}\n\n{warning}" if warning else result


class GatedCodeAgent(_PolicyGated, CodeAgent):
    """A CodeAgent (local executor) whose code's tool calls are gated by a policy monitor.

    Takes the arguments of `GatedAgent`; everything else is passed to `CodeAgent`.
    """

    def __init__(self, *args, policy: Monitor | str, mode: str | None = None,
                 tool_names: Mapping[str, str] | None = None, on_mismatch: str = "error", **kwargs):
        if kwargs.get("executor_type", "local") != "local":
            raise ValueError("GatedCodeAgent gates the tool calls of the local executor only; a remote "
                             f"executor (`{kwargs['executor_type']}`) runs the tools where the gate cannot see them")
        super().__init__(*args, **kwargs)
        self._setup_policy(policy, mode, tool_names, on_mismatch)
        self._warnings: list[str] = []
        self.step_callbacks.register(ActionStep, self._after_step)

    def create_python_executor(self) -> LocalPythonExecutor:
        agent = self

        class GatedExecutor(LocalPythonExecutor):
            def send_tools(self, tools):
                super().send_tools({name: agent._gated_tool(name, tool) if name in agent.tools else tool
                                    for name, tool in tools.items()})

        return GatedExecutor(self.additional_authorized_imports,
                             **{"max_print_outputs_length": self.max_print_outputs_length} | self.executor_kwargs)

    def _gated_tool(self, name: str, tool) -> Callable:
        inputs = list(getattr(tool, "inputs", {}) or {})

        def call(*args, **kwargs):
            if len(args) == 1 and not kwargs and isinstance(args[0], dict) and set(args[0]) <= set(inputs):
                kwargs = dict(args[0])
                args = ()
            named = {**{(inputs[i] if i < len(inputs) else f"arg{i}"): v for i, v in enumerate(args)}, **kwargs}
            result, decision = self._gate(name, named, lambda: tool(*args, **kwargs),
                                          lambda d: PolicyRefusal(d.message))
            warning = self._warning(decision)
            if warning:
                self._warnings.append(warning)
            return result

        call.__name__ = name
        return call

    def _after_step(self, step: ActionStep, agent=None) -> None:
        if self._warnings:
            step.observations = "\n\n".join(filter(None, [step.observations, *self._warnings]))
            self._warnings = []
        if self.stopped is not None:
            raise PolicyStop(self.stopped)


class ScriptedModel(Model):
    """A model that answers each generation with the next scripted tool call(s).

    Each script entry is `(tool, arguments)` or a list of them (parallel calls in one message).
    """

    def __init__(self, script: Sequence, **kwargs):
        super().__init__(model_id="scripted", **kwargs)
        self.script = list(script)
        self.calls = 0

    def generate(self, messages, stop_sequences=None, response_format=None, tools_to_call_from=None, **kwargs):
        if self.calls >= len(self.script):
            raise RuntimeError("the scripted model has no more calls")
        entry = self.script[self.calls]
        self.calls += 1
        batch = entry if isinstance(entry, list) else [entry]
        tool_calls = [ChatMessageToolCall(ChatMessageToolCallFunction(arguments=dict(args), name=tool),
                                          id=f"call_{self.calls}_{i}", type="function")
                      for i, (tool, args) in enumerate(batch)]
        return ChatMessage(role=MessageRole.ASSISTANT, content="", tool_calls=tool_calls)


class ScriptedCodeModel(Model):
    """A model that answers each generation with the next scripted code snippet."""

    def __init__(self, script: Sequence[str], **kwargs):
        super().__init__(model_id="scripted-code", **kwargs)
        self.script = list(script)
        self.calls = 0

    def generate(self, messages, stop_sequences=None, response_format=None, tools_to_call_from=None, **kwargs):
        if self.calls >= len(self.script):
            raise RuntimeError("the scripted model has no more snippets")
        code = self.script[self.calls]
        self.calls += 1
        return ChatMessage(role=MessageRole.ASSISTANT, content=f"Thought: next step.\n<code>\n{code}\n</code>")


__all__ = ["GatedAgent", "GatedCodeAgent", "PolicyRefusal", "PolicyStop", "ScriptedCodeModel", "ScriptedModel",
           "tool_schemas"]
