"""The GRPO training reward of the AgentLTL paper (§4.3, appendix E).

    R = 0.5·C + 0.25·Acc + 0.25·exp(−d)

- C is the compliance score of the completion's tool calls against the instance's
  synthesized policy (Definition 1, `policyc.bench.compliance.score_instance`);
- Acc is the shaped answer accuracy: 1.0 right and well formatted, 0.1 well formatted but
  wrong, 0.0 badly formatted (`policyc.bench.answer`);
- d is the weighted Levenshtein distance between the completion's calls and the gold trace:
  insertion and deletion cost 1, substituting a call by one of another tool 1, by a call of
  the same tool with other arguments 0.5, an identical call 0.

`agentltl_reward` has the signature trl's GRPOTrainer expects of a reward function: it is
called with keyword arguments `prompts`, `completions`, `completion_ids` and one list per
dataset column (here `instance`, the instance key as JSON), and returns one float per
completion.

How a completion's calls are read (`completion_calls`). A completion is text (standard
format) or a list of chat messages (conversational format). Calls are, in order: the
`tool_calls` of assistant messages (OpenAI style, `{"function": {"name", "arguments"}}`,
arguments as an object or as JSON text), and `<tool_call>{"name": ..., "arguments": ...}
</tool_call>` blocks in assistant text (the Hermes / Qwen format). A result is taken from
the `tool` message answering the call; a call without one is executed on the instance's
tools, which are deterministic. The answer is the `answer` argument of a `final_answer`
call if there is one, else the last `ANSWER: <integer>` line of the assistant text.
`final_answer` calls are not part of the scored trace.

>>> trace_distance([("tool_a", {"x": 1}), ("tool_b", {"y": 2})],
...                [("tool_a", {"x": 9}), ("tool_c", {"z": 0}), ("tool_b", {"y": 2})])
1.5
>>> round(math.exp(-1.5), 3)
0.223
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping, Sequence

from policyc.bench.aliases import inverse, rename_call
from policyc.bench.answer import parse_answer, shaped_accuracy
from policyc.bench.compliance import score_instance
from policyc.bench.model import Instance, freeze
from policyc.bench.runs import FINAL_ANSWER_TOOL, instance_of
from policyc.bench.tools import ToolCallError
from policyc.trace import Trace
from policyc.jsontext import decode

#: (w_C, w_A, w_D) of equation (4): α = 0.5, (1 − α)/2 each for accuracy and distance.
PAPER_WEIGHTS = (0.5, 0.25, 0.25)

Call = tuple[str, Mapping[str, Any]]
TOOL_CALL_OPEN, TOOL_CALL_CLOSE = "<tool_call>", "</tool_call>"


def substitution_cost(gold: Call, predicted: Call) -> float:
    """s(g, p): 0 for the same call, 0.5 for the same tool with other arguments, 1 otherwise.

    >>> substitution_cost(("a", {"x": 1}), ("a", {"x": 2})), substitution_cost(("a", {}), ("b", {}))
    (0.5, 1.0)
    """
    if gold[0] != predicted[0]:
        return 1.0
    return 0.0 if freeze(gold[1]) == freeze(predicted[1]) else 0.5


def trace_distance(gold: Sequence[Call], predicted: Sequence[Call]) -> float:
    """d(G, P), the weighted Levenshtein distance of equations (5)-(6).

    >>> trace_distance([("a", {})], [("a", {}), ("b", {})])
    1.0
    """
    previous = [float(j) for j in range(len(predicted) + 1)]
    for i, g in enumerate(gold, 1):
        row = [float(i)]
        for j, p in enumerate(predicted, 1):
            row.append(min(previous[j] + 1.0, row[j - 1] + 1.0, previous[j - 1] + substitution_cost(g, p)))
        previous = row
    return previous[-1]


@dataclass(frozen=True, slots=True)
class RewardBreakdown:
    """R and its three terms."""

    total: float
    compliance: float
    accuracy: float
    distance: float

    @property
    def distance_reward(self) -> float:
        return math.exp(-self.distance)


def reward_of_run(instance: Instance, calls: Sequence[tuple[str, Mapping[str, Any], Any]], answer: Any,
                  weights: tuple[float, float, float] = PAPER_WEIGHTS) -> RewardBreakdown:
    """The reward of one run: its calls (name, args, result) as the agent made them, and its answer.

    >>> from policyc.bench import generate_instance
    >>> inst = generate_instance("loop_termination", 1, 42)
    >>> reward_of_run(inst, [("tool_a", {"i": 1}, {"result": 2}), ("tool_a", {"i": 2}, {"result": 5})], 12).total
    1.0
    """
    trace = Trace.of(*((name, dict(args), result) for name, args, result in calls))
    compliance = score_instance(instance, trace).compliance_score
    accuracy = shaped_accuracy(parse_answer(answer), instance.expected_answer)
    gold = [instance.seen(c) for c in instance.calls]
    distance = trace_distance(gold, [(name, args) for name, args, _ in calls])
    w_c, w_a, w_d = weights
    return RewardBreakdown(w_c * compliance + w_a * accuracy + w_d * math.exp(-distance), compliance, accuracy,
                           distance)


def completion_calls(completion: str | Sequence[Mapping[str, Any]]) -> tuple[list[tuple[str, dict, Any]], Any]:
    """The tool calls (name, args, result or None) and the raw answer of one completion.

    >>> calls, answer = completion_calls('<tool_call>{"name": "tool_a", "arguments": {"i": 1}}</tool_call> ANSWER: 2')
    >>> calls, parse_answer(answer)
    ([('tool_a', {'i': 1}, None)], 2)
    """
    messages: list[Mapping[str, Any]] = [{"role": "assistant", "content": completion}] \
        if isinstance(completion, str) else list(completion)
    calls: list[list[Any]] = []
    pending: list[list[Any]] = []
    by_id: dict[str, list[Any]] = {}
    texts: list[str] = []

    def add(parsed: tuple[str, dict] | None, call_id: Any = None) -> None:
        if parsed is not None:
            entry = [parsed[0], parsed[1], None]
            calls.append(entry)
            pending.append(entry)
            if isinstance(call_id, str) and call_id:
                by_id[call_id] = entry

    for message in messages:
        if not isinstance(message, Mapping):
            continue  # not a message: a model's output may hold anything
        role = message.get("role", "assistant")
        if role == "tool":
            target = by_id.get(message.get("tool_call_id") or "") or (pending[0] if pending else None)
            if target is not None:
                target[2] = _json_or_text(message.get("content"))
                pending[:] = [entry for entry in pending if entry is not target]
            continue
        if role != "assistant":
            continue
        content = message.get("content")
        text = content if isinstance(content, str) else ""
        texts.append(text)
        listed = message.get("tool_calls")
        for call in listed if isinstance(listed, list) else []:
            add(_from_openai(call), call.get("id") if isinstance(call, Mapping) else None)
        for block in tool_call_blocks(text):
            add(_from_block(block))
    finals = [c for c in calls if c[0] == FINAL_ANSWER_TOOL]
    answer: Any = finals[-1][1].get("answer") if finals else ("\n".join(texts) or None)
    return [(c[0], c[1], c[2]) for c in calls if c[0] != FINAL_ANSWER_TOOL], answer


def tool_call_blocks(text: str) -> list[str]:
    """The contents of the `<tool_call>...</tool_call>` blocks of a text, in one pass (a
    regular expression looked for the end of every unclosed opening tag again: a completion
    of thousands of them took minutes).

    >>> tool_call_blocks("a <tool_call> x </tool_call> <tool_call> <tool_call>y</tool_call>")
    ['x', '<tool_call>y']
    """
    out: list[str] = []
    at = 0
    while True:
        start = text.find(TOOL_CALL_OPEN, at)
        if start < 0:
            return out
        end = text.find(TOOL_CALL_CLOSE, start + len(TOOL_CALL_OPEN))
        if end < 0:
            return out  # no block closes after this one: none after it does either
        out.append(text[start + len(TOOL_CALL_OPEN):end].strip())
        at = end + len(TOOL_CALL_CLOSE)


def _json_or_text(value: Any) -> Any:
    """JSON text as its value; anything else, and JSON that cannot be read safely (nesting,
    thousands of digits, NaN), as the text it is."""
    if isinstance(value, str):
        parsed, problem, _ = decode(value)
        return value if problem is not None else parsed
    return value


def _from_openai(call: Mapping[str, Any]) -> tuple[str, dict] | None:
    function = call.get("function") if isinstance(call, Mapping) else None
    if not isinstance(function, Mapping) or not isinstance(function.get("name"), str):
        return None
    args = _json_or_text(function.get("arguments") or {})
    return (function["name"], dict(args)) if isinstance(args, Mapping) else None


def _from_block(text: str) -> tuple[str, dict] | None:
    value = _json_or_text(text)
    if not isinstance(value, Mapping) or not isinstance(value.get("name"), str):
        return None
    args = _json_or_text(value.get("arguments", value.get("parameters", {})))
    return (value["name"], dict(args)) if isinstance(args, Mapping) else None


def with_results(instance: Instance, calls: Iterable[tuple[str, dict, Any]]) -> list[tuple[str, dict, Any]]:
    """Fill in the result of every call that has none by running the instance's tools.

    >>> from policyc.bench import generate_instance
    >>> with_results(generate_instance("loop_termination", 1, 42), [("tool_a", {"i": 3}, None)])
    [('tool_a', {'i': 3}, {'result': 1})]
    """
    box, back = instance.toolbox(), inverse(instance.renames)
    out = []
    for name, args, result in calls:
        if result is None:
            base, base_args = rename_call(name, args, back) if name in back else (name, args)
            try:
                result = box.call(base, base_args)
            except ToolCallError as exc:
                result = {"error": str(exc)}
        out.append((name, args, result))
    return out


def checked_weights(weights: Any) -> tuple[float, float, float]:
    """The reward's weights (compliance, accuracy, distance): three finite numbers, else a
    ValueError saying so (a reward of NaN, or one raised from deep inside, stops training).

    >>> checked_weights([1, 0, 0.5]), checked_weights(PAPER_WEIGHTS) == PAPER_WEIGHTS
    ((1.0, 0.0, 0.5), True)
    """
    try:
        values = tuple(weights) if not isinstance(weights, (str, bytes, Mapping)) else ()
    except TypeError:
        values = ()
    if len(values) != 3 or not all(isinstance(w, (int, float)) and not isinstance(w, bool) and math.isfinite(w)
                                   for w in values):
        raise ValueError(f"the reward's weights are three finite numbers (compliance, accuracy, distance), "
                         f"not {repr(weights)[:60]}")
    return float(values[0]), float(values[1]), float(values[2])


def make_reward_function(weights: tuple[float, float, float] = PAPER_WEIGHTS,
                         column: str = "instance") -> Callable[..., list[float]]:
    """A GRPOTrainer reward function with these weights, reading the instance from `column`.

    >>> compliance_only = make_reward_function((1.0, 0.0, 0.0))
    >>> first_call_only = '<tool_call>{"name": "tool_a", "arguments": {"i": 1}}</tool_call>'
    >>> [round(r, 3) for r in compliance_only(prompts=["p"], completions=[first_call_only], completion_ids=[[0]],
    ...                                       instance=['{"template": "loop_termination", "seed": 42}'])]
    [0.147]
    """

    weights = checked_weights(weights)

    def agentltl_reward(prompts: Sequence[Any] | None = None, completions: Sequence[Any] = (),
                        completion_ids: Sequence[Any] | None = None, **columns: Any) -> list[float]:
        if not isinstance(completions, Sequence) or isinstance(completions, (str, bytes)):
            raise ValueError(f"`completions` is a list of completions, not {type(completions).__name__}")
        keys = columns.get(column)
        if not isinstance(keys, Sequence) or isinstance(keys, (str, bytes)) or len(keys) != len(completions):
            raise ValueError(f"the dataset needs a `{column}` column, one entry per completion")
        rewards = []
        for i, (completion, key) in enumerate(zip(completions, keys)):
            if not isinstance(completion, (str, Sequence)) or isinstance(completion, bytes):
                raise ValueError(f"completion {i} is text or a list of messages, not {type(completion).__name__}")
            try:
                instance = instance_of(json.loads(key) if isinstance(key, str) else key)
            except ValueError as exc:
                raise ValueError(f"the `{column}` entry of completion {i} is not an instance: {exc}") from None
            calls, answer = completion_calls(completion)
            rewards.append(reward_of_run(instance, with_results(instance, calls), answer, weights).total)
        return rewards

    agentltl_reward.__name__ = "agentltl_reward"
    return agentltl_reward


#: The paper's reward, R = 0.5·C + 0.25·Acc + 0.25·exp(−d), as a GRPOTrainer reward function.
agentltl_reward = make_reward_function()


def reward_dataset(ds: Any, weights: tuple[float, float, float] = PAPER_WEIGHTS, column: str = "instance",
                   completions: str = "completion", concurrency: int | None = None) -> Any:
    """The reward of every completion of a Ray dataset, in a column `reward`, computed on the
    cluster (`policyc.corpus.ray.map_reward`; needs `pip install 'policyc[ray]'`): the rows
    hold a completion (column `completions`) and the instance it answers (column `column`)."""
    from policyc.corpus.ray import map_reward

    return map_reward(ds, make_reward_function(weights, column), column, completions, concurrency)


def dataset_row(instance: Instance, conversational: bool = True) -> dict[str, Any]:
    """A training row: the prompt, and the instance key the reward function regenerates it from.

    >>> from policyc.bench import generate_instance
    >>> dataset_row(generate_instance("loop_termination", 1, 42))["instance"]
    '{"template": "loop_termination", "difficulty": 1, "seed": 42, "mode": "production"}'
    """
    prompt: Any = [{"role": "user", "content": instance.prompt}] if conversational else instance.prompt
    return {"prompt": prompt, "instance": json.dumps(instance.key)}


__all__ = ["PAPER_WEIGHTS", "RewardBreakdown", "agentltl_reward", "completion_calls", "dataset_row",
           "make_reward_function", "reward_dataset", "reward_of_run", "substitution_cost", "trace_distance", "with_results"]
