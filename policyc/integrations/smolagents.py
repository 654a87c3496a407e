"""smolagents: a ToolCallingAgent whose every tool call goes through a policy gate.

```python
from policyc.integrations.smolagents import GatedAgent
from policyc.runtime import Monitor

agent = GatedAgent(tools=[search, read_file], model=model, policy=Monitor.load("code_qa.policy.json"))
answer = agent.run("Where is `request` defined?")
agent.report            # the compliance report of the run (what `policyc score` gives)
agent.policy_run.events # the enforcement log (table 17: agent.policy_run.enforcement_table())
```

Each call the model asks for is proposed to the run first:

- allow: the tool runs and the call is recorded with its result;
- warn: the tool runs; its observation ends with the policy's warning;
- block (block-and-warn or soft-block): the tool does not run; the model gets the gate's
  message as the step's error observation and may correct itself (or, under
  block-and-warn, insist by repeating the identical call);
- stop: the tool does not run and the agent run ends; `agent.stopped` holds the decision.

smolagents' own `final_answer` tool is a call like any other, so a policy that declares a
terminal tool `final_answer` decides whether the agent may answer yet. Calls the model asks
for in parallel are gated one after another, in the order it gave them.

`ScriptedModel` replays a fixed list of tool calls: a model for tests and dry runs.
"""

from __future__ import annotations

import json
import threading
from typing import Any, Mapping, Sequence

from smolagents import ToolCallingAgent
from smolagents.models import ChatMessage, ChatMessageToolCall, ChatMessageToolCallFunction, MessageRole, Model
from smolagents.utils import AgentToolExecutionError

from policyc.runtime.explain import Decision
from policyc.runtime.monitor import Monitor
from policyc.runtime.run import Run


class PolicyStop(Exception):
    """The gate stopped the run (a `stop` decision); carries the decision."""

    def __init__(self, decision: Decision):
        super().__init__(decision.message or f"the policy stopped the run at `{decision.tool}`")
        self.decision = decision


def _arguments(arguments: Any) -> dict:
    if isinstance(arguments, Mapping):
        return dict(arguments)
    if isinstance(arguments, str):
        try:
            parsed = json.loads(arguments)
        except json.JSONDecodeError:
            return {"input": arguments}
        return parsed if isinstance(parsed, dict) else {"input": parsed}
    return {} if arguments is None else {"input": arguments}


def _recorded(result: Any) -> Any:
    """A tool's return value as the trace keeps it (JSON values; anything else as text)."""
    if result is None or isinstance(result, (str, int, float, bool, list, dict)):
        return result
    return str(result)


class GatedAgent(ToolCallingAgent):
    """A ToolCallingAgent gated by a policy monitor.

    Args:
        policy: the loaded policy artifact (a `Monitor`), or the path of an artifact file.
        mode: a run-wide enforcement mode (tolerate, warn, block, soft, stop), or None for
            each rule's own severity.
        tool_names: smolagents tool name -> policy tool name, where they differ
            (e.g. {"final_answer": "reply"}).
        Everything else is passed to `ToolCallingAgent`.
    """

    def __init__(self, *args, policy: Monitor | str, mode: str | None = None,
                 tool_names: Mapping[str, str] | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.policy_monitor = policy if isinstance(policy, Monitor) else Monitor.load(policy)
        self.mode = mode
        self.tool_names = dict(tool_names or {})
        self.policy_run: Run | None = None
        self.report = None
        self.stopped: Decision | None = None
        self._gate_lock = threading.Lock()

    # ------------------------------------------------------------ the run

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
            self.report = self.policy_run.finish()

    # ------------------------------------------------------------ each call

    def execute_tool_call(self, tool_name: str, arguments: dict[str, str] | str) -> Any:
        run = self.policy_run
        if run is None:  # called outside `run` (a managed agent, a direct call): start one
            run = self.policy_run = self.policy_monitor.start(mode=self.mode)
        name = self.tool_names.get(tool_name, tool_name)
        args = _arguments(arguments)
        with self._gate_lock:
            decision = run.propose(name, args)
            if decision.action == "stop":
                raise PolicyStop(decision)
            if not decision.executes:
                raise AgentToolExecutionError(decision.message, self.logger)
            result = super().execute_tool_call(tool_name, arguments)
            run.record(name, args, _recorded(result))
        if decision.action == "warn" and decision.message and name not in self.policy_monitor.terminal_tools:
            return f"{result}\n\n{decision.message}"
        return result


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


__all__ = ["GatedAgent", "PolicyStop", "ScriptedModel"]
