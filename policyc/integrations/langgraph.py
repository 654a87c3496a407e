"""LangGraph and LangChain: a tool node whose every call goes through a policy gate.

```python
from langgraph.prebuilt import ToolNode
from policyc.integrations.langgraph import PolicyGate

gate = PolicyGate("code_qa.policy.json", tools=[search, read_file, final_answer])
tools = gate.tool_node([search, read_file, final_answer])   # a ToolNode with the gate around each call
# ... build the graph with `tools` as its tool node (or pass `wrap_tool_call=gate.wrap`,
# `awrap_tool_call=gate.awrap` to a ToolNode of your own)
graph.invoke({"messages": [...]}, {"configurable": {"thread_id": "ticket-17"}})
gate.finish("ticket-17")    # the compliance report of that thread's run
```

The gate keeps one `Monitor` run per LangGraph thread (the config's `thread_id`; calls made
without one share a default run). Each tool call the model asks for is proposed first:

- allow: the tool runs and the call is recorded with its result (the `ToolMessage`'s
  artifact when the tool has one, else its content, the JSON it holds read as such), in the
  shape the policy declares (`policyc.trace.results`); a `ToolMessage` with status `error`
  is a failed call;
- warn: the tool runs; its `ToolMessage` ends with the policy's warning;
- block: the tool does not run; the model gets a `ToolMessage` (status `error`) holding the
  gate's message, and may correct itself;
- stop: the tool does not run and `PolicyStop` ends the graph run; `gate.stopped(thread)`
  holds the decision.

Calls the model asks for in one message are gated and run one after another, in its order.
At construction (and in `tool_node`) the tools are compared with the policy's signatures,
results included (from the tool functions' return annotations): a missing or extra tool or
argument raises `ToolSetMismatch` (`on_mismatch="warn"` warns instead), and other
differences warn (`PolicyToolWarning`).

`ScriptedChatModel` replays fixed tool calls: a chat model for tests and dry runs.
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any, Iterable, Mapping, Sequence

from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.utils.function_calling import convert_to_openai_tool
from langgraph.errors import GraphBubbleUp
from langgraph.prebuilt import ToolNode

from policyc.integrations.gating import PolicyStop, as_arguments, check_tool_set, failure_text, load_policy, \
    recorded, return_schema
from policyc.runtime import Decision, Monitor, Run, RunError

ORDER_WAIT = 60.0  # seconds a parallel call waits for the calls before it (then it goes ahead)


def tool_schemas(tools: Iterable) -> dict[str, tuple[object, object | None]]:
    """name -> (the arguments' JSON Schema, the result's) of LangChain tools. The result is what
    the gate records: the tool function's return value (its annotation), or its artifact for a
    `content_and_artifact` tool; None when the function does not say."""
    out: dict[str, tuple[object, object | None]] = {}
    for tool in tools:
        function = convert_to_openai_tool(tool)["function"]
        out[function["name"]] = (function.get("parameters", {}), _result_schema(tool))
    return out


def _result_schema(tool) -> object | None:
    function = getattr(tool, "func", None) or getattr(tool, "coroutine", None)
    schema = return_schema(function) if callable(function) else None
    if schema is not None and getattr(tool, "response_format", "content") == "content_and_artifact":
        parts = schema.get("prefixItems")  # (content, artifact): the artifact is recorded
        return parts[1] if isinstance(parts, list) and len(parts) == 2 else None
    return schema


class _ThreadRun:
    def __init__(self, run: Run):
        self.run = run
        self.lock = threading.Lock()
        self.turn = threading.Condition()
        self.done: set[str] = set()
        self.alock: asyncio.Lock | None = None
        self.stopped: Decision | None = None


class PolicyGate:
    """Gates the tool calls of a LangGraph graph (see the module docstring).

    Args:
        policy: the loaded policy artifact (a `Monitor`), or the path of an artifact file or of a
            policy source (`.altl`, compiled in memory; see `Monitor.load`).
        tools: the agent's tools, compared with the policy's signatures now (optional).
        mode: a run-wide enforcement mode (tolerate, warn, block, soft, stop), or None.
        tool_names: LangChain tool name -> policy tool name, where they differ.
        on_mismatch: `error`, `warn` or `ignore` a mismatch between the tools and the policy.
    """

    def __init__(self, policy: Monitor | str, tools: Sequence | None = None, *, mode: str | None = None,
                 tool_names: Mapping[str, str] | None = None, on_mismatch: str = "error"):
        self.monitor = load_policy(policy)
        self.mode = mode
        self.tool_names = dict(tool_names or {})
        self.on_mismatch = on_mismatch
        self._runs: dict[Any, _ThreadRun] = {}
        self._lock = threading.Lock()
        if tools is not None:
            self.check_tools(tools)

    def check_tools(self, tools: Sequence):
        """Compare LangChain tools with the policy's signatures (raises or warns on mismatch)."""
        return check_tool_set(self.monitor, tool_schemas(tools), self.tool_names, self.on_mismatch,
                              "the LangGraph agent")

    def tool_node(self, tools: Sequence, **kwargs) -> ToolNode:
        """A `ToolNode` for `tools` with this gate around every call."""
        self.check_tools(tools)
        return ToolNode(tools, wrap_tool_call=self.wrap, awrap_tool_call=self.awrap, **kwargs)

    # ------------------------------------------------------------ runs per thread

    def run(self, thread_id: Any = None) -> Run:
        """The policy run of a thread (started on its first call)."""
        return self._thread(thread_id).run

    def stopped(self, thread_id: Any = None) -> Decision | None:
        """The decision that stopped a thread's run, if one did."""
        found = self._runs.get(thread_id)
        return found.stopped if found else None

    def finish(self, thread_id: Any = None):
        """End a thread's run and return its compliance report; its next call starts a new run."""
        with self._lock:
            found = self._runs.pop(thread_id, None)
        run = found.run if found else self.monitor.start(mode=self.mode, run_id=None if thread_id is None
                                                          else str(thread_id))
        return run.finish()

    def _thread(self, thread_id: Any) -> _ThreadRun:
        with self._lock:
            found = self._runs.get(thread_id)
            if found is None:
                run = self.monitor.start(mode=self.mode, run_id=None if thread_id is None else str(thread_id))
                found = self._runs[thread_id] = _ThreadRun(run)
            return found

    # ------------------------------------------------------------ the wrappers

    def wrap(self, request, execute):
        """`ToolNode(wrap_tool_call=...)`: gate one call, run it through `execute` if allowed."""
        state = self._thread(_thread_id(request))
        call_id = request.tool_call.get("id")
        before = _calls_before(request)
        with state.turn:  # the calls the model listed before this one go first
            state.turn.wait_for(lambda: state.done >= before, timeout=ORDER_WAIT)
        try:
            with state.lock:
                decision = self._propose(state, request)
                if not decision.executes:
                    return self._refusal(state, request, decision)
                try:
                    message = execute(request)
                except Exception as exc:  # the tool ran and raised: recorded as failed, then raised on
                    self._failed(state, request, exc)
                    raise
                return self._ran(state, request, decision, message)
        finally:
            with state.turn:
                state.done.add(call_id)
                state.turn.notify_all()

    async def awrap(self, request, execute):
        """`ToolNode(awrap_tool_call=...)`: the same, for `ainvoke`."""
        state = self._thread(_thread_id(request))
        if state.alock is None:
            state.alock = asyncio.Lock()  # FIFO: calls started in the model's order are gated in it
        async with state.alock:
            decision = self._propose(state, request)
            if not decision.executes:
                return self._refusal(state, request, decision)
            try:
                message = await execute(request)
            except Exception as exc:
                self._failed(state, request, exc)
                raise
            return self._ran(state, request, decision, message)

    def _failed(self, state: _ThreadRun, request, exc: Exception) -> None:
        """Record a call whose tool raised (it ran: no call that ran is lost), as failed. An
        interrupt (`interrupt()` inside a tool, a `Command` to the parent graph) is LangGraph's
        control flow, not a failure: the tool runs again when the graph resumes."""
        if isinstance(exc, GraphBubbleUp):
            return
        call = request.tool_call
        name = self.tool_names.get(call["name"], call["name"])
        state.run.record(name, as_arguments(call.get("args")), failure_text(exc), error=True)

    def _propose(self, state: _ThreadRun, request) -> Decision:
        call = request.tool_call
        name, args = self.tool_names.get(call["name"], call["name"]), as_arguments(call.get("args"))
        try:
            return state.run.propose(name, args)
        except RunError as exc:  # the run is over (a terminal call ran, or it was finished)
            return Decision("block", name, args, len(state.run.trace.calls), message=f"`{name}` was not executed: {exc}")

    def _refusal(self, state: _ThreadRun, request, decision: Decision):
        if decision.action == "stop":
            state.stopped = decision
            raise PolicyStop(decision)
        call = request.tool_call
        return ToolMessage(content=decision.message, name=call["name"], tool_call_id=call["id"], status="error")

    def _ran(self, state: _ThreadRun, request, decision: Decision, message):
        call = request.tool_call
        name = self.tool_names.get(call["name"], call["name"])
        failed = isinstance(message, ToolMessage) and message.status == "error"
        state.run.record(name, as_arguments(call.get("args")), recorded(tool_result(message)), error=failed)
        if decision.action == "warn" and decision.message and isinstance(message, ToolMessage) \
                and isinstance(message.content, str) and call["name"] not in self.monitor.terminal_tools:
            return message.model_copy(update={"content": f"{message.content}\n\n{decision.message}"})
        return message


def tool_result(message) -> Any:
    """What a tool call returned, from its `ToolMessage`: the artifact when the tool has one,
    else the content (text, which the run reads as the JSON it holds; the text of content
    blocks). The run shapes it as the policy declares (`policyc.trace.results`)."""
    if not isinstance(message, ToolMessage):
        return message  # a Command or another object a tool may hand the graph
    if message.artifact is not None:
        return message.artifact
    content = message.content
    if isinstance(content, list):
        blocks = [b for b in content if isinstance(b, dict) and b.get("type") == "text"]
        if len(blocks) == len(content):
            return "".join(str(b.get("text", "")) for b in blocks)
    return content


def _thread_id(request) -> Any:
    config = getattr(getattr(request, "runtime", None), "config", None) or {}
    return (config.get("configurable") or {}).get("thread_id")


def _calls_before(request) -> set:
    """The ids of the calls listed before this one in the model's message (run first)."""
    state = request.state
    messages = state.get("messages", []) if isinstance(state, dict) else getattr(state, "messages", state)
    call_id = request.tool_call.get("id")
    for message in reversed(messages if isinstance(messages, list) else []):
        ids = [c.get("id") for c in getattr(message, "tool_calls", None) or []]
        if call_id in ids:
            return set(ids[: ids.index(call_id)])
    return set()


class ScriptedChatModel(BaseChatModel):
    """A chat model that answers each call with the next scripted message.

    Each script entry is `(tool, arguments)`, a list of them (parallel calls in one
    message), or a string (a final text answer that ends a ReAct loop).
    """

    script: list
    calls: int = 0

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def bind_tools(self, tools, **kwargs):
        return self

    def _generate(self, messages, stop=None, run_manager=None, **kwargs) -> ChatResult:
        if self.calls >= len(self.script):
            raise RuntimeError("the scripted model has no more messages")
        entry = self.script[self.calls]
        self.calls += 1
        if isinstance(entry, str):
            return ChatResult(generations=[ChatGeneration(message=AIMessage(content=entry))])
        batch = entry if isinstance(entry, list) else [entry]
        tool_calls = [{"name": tool, "args": dict(args), "id": f"call_{self.calls}_{i}", "type": "tool_call"}
                      for i, (tool, args) in enumerate(batch)]
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content="", tool_calls=tool_calls))])


__all__ = ["PolicyGate", "PolicyStop", "ScriptedChatModel", "tool_result", "tool_schemas"]
