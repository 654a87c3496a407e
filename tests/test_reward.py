"""The GRPO reward of appendix E, called the way trl's GRPOTrainer calls a reward function.

trl (GRPOTrainer, "Using a custom reward function") calls each reward function with keyword
arguments `prompts`, `completions`, `completion_ids` (and `trainer_state`) plus one list per
dataset column except `prompt`, and expects one float per completion. trl is not installed
here: the fake batches below follow that documented convention.
"""

from __future__ import annotations

import inspect
import json
import math

import pytest

from policyc.bench import generate_instance
from policyc.reward import (
    PAPER_WEIGHTS, agentltl_reward, completion_calls, dataset_row, make_reward_function, reward_of_run,
    trace_distance, with_results)


def test_appendix_e_worked_example():
    gold = [("tool_a", {"x": 1}), ("tool_b", {"y": 2})]
    predicted = [("tool_a", {"x": 9}), ("tool_c", {"z": 0}), ("tool_b", {"y": 2})]
    d = trace_distance(gold, predicted)
    assert d == 1.5
    assert math.exp(-d) == pytest.approx(0.223, abs=5e-4)


def test_distance_edit_costs():
    a, b = ("t", {"x": 1}), ("t", {"x": 2})
    assert trace_distance([], []) == 0 and trace_distance([a], []) == 1 and trace_distance([], [a, a]) == 2
    assert trace_distance([a], [b]) == 0.5 and trace_distance([a], [("u", {"x": 1})]) == 1.0
    assert trace_distance([a, b], [b, a]) == 1.0  # two argument mismatches beat delete + insert
    assert trace_distance([("t", {"n": [1, 2]})], [("t", {"n": [1, 2]})]) == 0


def test_paper_weights():
    assert PAPER_WEIGHTS == (0.5, 0.25, 0.25)


def qwen_completion(instance, answer) -> str:
    blocks = "".join(f'<tool_call>{json.dumps({"name": c.name, "arguments": dict(c.args)})}</tool_call>\n'
                     for c in instance.calls)
    return f"{blocks}The procedure is done.\nANSWER: {answer}"


def chat_completion(instance, answer) -> list[dict]:
    messages = []
    for k, call in enumerate(instance.calls):
        messages.append({"role": "assistant", "content": "", "tool_calls": [
            {"id": f"c{k}", "type": "function",
             "function": {"name": call.name, "arguments": json.dumps(dict(call.args))}}]})
        messages.append({"role": "tool", "tool_call_id": f"c{k}", "content": json.dumps(dict(call.result))})
    messages.append({"role": "assistant", "content": f"ANSWER: {answer}"})
    return messages


def batch(instances, completions):
    """A fake batch as GRPOTrainer passes it: prompts, completions, completion_ids, columns."""
    rows = [dataset_row(i) for i in instances]
    return dict(prompts=[r["prompt"] for r in rows], completions=completions,
                completion_ids=[[1, 2, 3]] * len(completions), instance=[r["instance"] for r in rows],
                trainer_state=object())


def test_signature_accepts_trl_keyword_arguments():
    parameters = inspect.signature(agentltl_reward).parameters
    assert {"prompts", "completions", "completion_ids"} <= set(parameters)
    assert any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values())
    assert agentltl_reward.__name__ == "agentltl_reward"


def test_fake_batch_standard_and_conversational():
    fan = generate_instance("fan_out_fan_in", 1, 42)
    loop = generate_instance("loop_termination", 1, 42)
    completions = [qwen_completion(fan, 33), qwen_completion(fan, 34), "I think it is 33.", qwen_completion(loop, 12)]
    rewards = agentltl_reward(**batch([fan, fan, fan, loop], completions))
    assert isinstance(rewards, list) and len(rewards) == 4 and all(isinstance(r, float) for r in rewards)
    assert rewards[0] == 1.0 and rewards[3] == 1.0
    assert rewards[1] == pytest.approx(0.5 + 0.25 * 0.1 + 0.25)   # well formatted, wrong answer
    assert rewards[2] < rewards[1]                                  # no calls, badly formatted
    chat = agentltl_reward(**batch([fan], [chat_completion(fan, 33)]))
    assert chat == [1.0]


def test_reward_terms_of_a_faulty_run():
    inst = generate_instance("fan_out_fan_in", 1, 42)
    calls = [(c.name, dict(c.args), dict(c.result)) for c in inst.calls][:-1]  # the aggregate is dropped
    breakdown = reward_of_run(inst, calls, 33)
    assert breakdown.distance == 1.0 and breakdown.accuracy == 1.0 and breakdown.compliance < 1.0
    assert breakdown.total == pytest.approx(0.5 * breakdown.compliance + 0.25 + 0.25 * math.exp(-1))


def test_results_are_recomputed_when_the_completion_has_none():
    inst = generate_instance("fan_out_fan_in", 1, 42)
    calls, answer = completion_calls(qwen_completion(inst, 33))
    assert [r for _, _, r in calls] == [None] * 5
    assert [r for _, _, r in with_results(inst, calls)] == [dict(c.result) for c in inst.calls]


def test_final_answer_call_and_aliases():
    inst = generate_instance("fan_out_fan_in", seed=8, mode="simplified", aliases=True)
    text = "".join(f'<tool_call>{json.dumps({"name": n, "arguments": a})}</tool_call>'
                   for n, a in (inst.seen(c) for c in inst.calls))
    text += f'<tool_call>{json.dumps({"name": "final_answer", "arguments": {"answer": inst.expected_answer}})}</tool_call>'
    assert agentltl_reward(**batch([inst], [text])) == [1.0]


def test_custom_weights_and_missing_column():
    inst = generate_instance("loop_termination", 1, 42)
    compliance_only = make_reward_function((1.0, 0.0, 0.0))
    assert compliance_only(**batch([inst], ["ANSWER: 12"])) == [reward_of_run(inst, [], "ANSWER: 12").compliance]
    with pytest.raises(ValueError, match="instance"):
        agentltl_reward(prompts=["p"], completions=["ANSWER: 1"], completion_ids=[[1]])


@pytest.mark.parametrize("completion", [
    "ANSWER: " + "9" * 5000,
    '<tool_call>{"name": "tool_a", "arguments": {"i": %s}}</tool_call>' % ("[" * 5000 + "]" * 5000),
    [{"role": "assistant", "content": "hi"}, 1, None, "text"],
    [{"role": "assistant", "tool_calls": 7}],
    [{"role": "assistant", "tool_calls": [{"id": "1", "function": {"name": "tool_a", "arguments": {"i": 1}}}]},
     {"role": "tool", "tool_call_id": "1", "content": "[" * 5000 + "]" * 5000}],
    "<tool_call>" * 20_000,
], ids=["5000-digits", "deep-arguments", "not-messages", "tool-calls-not-a-list", "deep-result", "unclosed-tags"])
def test_a_completion_a_model_can_write_gets_a_reward_never_an_exception(completion):
    # each raised out of the reward function (ValueError, RecursionError, AttributeError), which
    # aborts a training batch; 20,000 unclosed tags took minutes (found by a sweep written from
    # the docs alone)
    from policyc.reward import agentltl_reward
    (reward,) = agentltl_reward(completions=[completion], instance=['{"template": "loop_termination", "seed": 42}'])
    assert 0.0 <= reward <= 1.0


@pytest.mark.parametrize("call, message", [
    (lambda: make_reward_function("abc"), "the reward's weights are three finite numbers"),
    (lambda: make_reward_function((1.0, 0.0)), "the reward's weights are three finite numbers"),
    (lambda: make_reward_function((float("nan"), 0.0, 0.0)), "the reward's weights are three finite numbers"),
    (lambda: make_reward_function((True, 0.0, 0.0)), "the reward's weights are three finite numbers"),
    (lambda: agentltl_reward(completions=None, instance=[]), "`completions` is a list of completions, not NoneType"),
    (lambda: agentltl_reward(completions=["x"], instance="abc"), "the dataset needs a `instance` column"),
    (lambda: agentltl_reward(completions=[42], instance=['{"template": "loop_termination", "seed": 42}']),
     "completion 0 is text or a list of messages, not int"),
    (lambda: agentltl_reward(completions=["x"], instance=["{not json"]),
     "the `instance` entry of completion 0 is not an instance"),
    (lambda: agentltl_reward(completions=["x"], instance=[42]),
     "the `instance` entry of completion 0 is not an instance"),
], ids=["text", "two", "nan", "bool", "no-completions", "column-text", "int-completion", "not-json", "not-instance"])
def test_misuse_of_the_reward_api_is_a_value_error_saying_what(call, message):
    """Found by a blind sweep: weights given as "abc" and completions=None raised TypeError
    from deep inside; NaN weights gave every completion a reward of NaN."""
    with pytest.raises(ValueError, match=message):
        call()
