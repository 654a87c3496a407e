"""The six-layer constraint set of a gold trace (§3.3, §A.4, table 5), written as AgentLTL.

From the gold trace and its provenance the synthesis emits, in order:

- L1 tool branching, weight 2: one rule per routing decision, `branch_called(taken, other)`
  (`called(taken)` when the other branch calls nothing, `never(other)` when this one does);
- L2 prompt-derived arguments, weight 1.5: `called_with(t(args))` for every call whose
  arguments the prompt fully states (literals, the seed, loop counters);
- L3 global sequence, weight 4: one `in_order([...])` over the whole tool sequence;
- L4 pair/instance order, weight 3: for each dependency of a call on an earlier one,
  `instance_before(t1, n, t2, m)`; between two calls of the same tool, where instance numbers
  say nothing, `before(t(args), t(args))` with arguments that single each call out (its
  first match in the gold trace is that call): the prompt-given ones if they do, else all
  of them; a pair that even all arguments cannot tell apart gets no rule;
- L5 call counts, weight 3: `called_n(t) == n` for every tool of the template's tool set,
  0 for the tools the gold trace does not use;
- L6 exact arguments, weight 1: `called_with(t(args))` with all arguments, for every call.

Identical rules are emitted once. A routing rule whose forbidden call also happens, with the
same arguments, elsewhere in the gold trace keeps only its taken branch: no trace property
can tell the two apart.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from policyc.bench.model import Decision, Instance, Pattern

#: Layer weights of table 5.
LAYER_WEIGHTS: dict[str, float] = {"L1": 2.0, "L2": 1.5, "L3": 4.0, "L4": 3.0, "L5": 3.0, "L6": 1.0}
STRUCTURAL_LAYERS = ("L3", "L4", "L5")


@dataclass(frozen=True, slots=True)
class SynthesizedRule:
    name: str
    layer: str
    formula: str
    description: str

    @property
    def weight(self) -> float:
        return LAYER_WEIGHTS[self.layer]


def synthesize_rules(instance: Instance) -> list[SynthesizedRule]:
    """The constraint set of an instance, in layer order.

    >>> from policyc.bench.generate import generate_instance
    >>> rules = synthesize_rules(generate_instance("fan_out_fan_in", 1, 2))
    >>> sum(r.weight for r in rules)
    46.5
    """
    rules: list[SynthesizedRule] = []
    seen: set[tuple[str, str]] = set()
    numbers: Counter = Counter()

    def add(prefix: str, layer: str, formula: str, description: str) -> None:
        if (layer, formula) in seen:
            return
        seen.add((layer, formula))
        numbers[prefix] += 1
        rules.append(SynthesizedRule(f"{prefix}_{numbers[prefix]}", layer, formula, description))

    calls = instance.calls
    for decision in instance.decisions:
        routed = _decision_rule(decision, instance)
        if routed is not None:
            add(f"l1_{decision.kind}", "L1", *routed)
    for call in calls:
        if call.args and set(call.given) == set(call.args):
            add("l2_args", "L2", f"called_with({Pattern.of(call.name, call.args)})",
                f"`{call.name}` is called with the arguments the prompt states")
    if calls:
        sequence = ", ".join(c.name for c in calls)
        rules.append(SynthesizedRule("l3_sequence", "L3", f"in_order([{sequence}])",
                                     f"the {len(calls)} calls happen in the gold order"))
    index = _instance_numbers(instance)
    for j, call in enumerate(calls):
        for i in call.after:
            order = _order_rule(instance, i, j, index)
            if order is not None:
                add("l4_order", "L4", order,
                    f"call {i + 1} (`{calls[i].name}`) comes before call {j + 1} (`{call.name}`)")
    counts = Counter(c.name for c in calls)
    for tool in dict.fromkeys(instance.tools + tuple(counts)):
        rules.append(SynthesizedRule(f"l5_count_{tool}", "L5", f"called_n({tool}) == {counts[tool]}",
                                     f"`{tool}` is called {counts[tool]} time(s)"))
    for call in calls:
        add("l6_args", "L6", f"called_with({Pattern.of(call.name, call.args)})",
            f"`{call.name}` is called with exactly these arguments")
    return rules


def _decision_rule(decision: Decision, instance: Instance) -> tuple[str, str] | None:
    forbidden = decision.forbidden
    if forbidden is not None and any(forbidden.matches(c.name, c.args) for c in instance.calls):
        forbidden = None
    taken = decision.taken
    if taken is not None and forbidden is not None:
        return f"branch_called({taken}, {forbidden})", f"{decision.kind}: `{taken}` is taken, `{forbidden}` is not"
    if taken is not None:
        return f"called({taken})", f"{decision.kind}: `{taken}` is taken"
    if forbidden is not None:
        return f"never({forbidden})", f"{decision.kind}: `{forbidden}` never happens"
    return None


def _instance_numbers(instance: Instance) -> list[int]:
    """For each call, how many earlier calls have the same tool (InstanceBefore's n)."""
    seen: Counter = Counter()
    out = []
    for call in instance.calls:
        out.append(seen[call.name])
        seen[call.name] += 1
    return out


def _order_rule(instance: Instance, i: int, j: int, index: list[int]) -> str | None:
    first, then = instance.calls[i], instance.calls[j]
    if first.name != then.name:
        return f"instance_before({first.name}, {index[i]}, {then.name}, {index[j]})"
    for keys in (lambda c: c.given, lambda c: tuple(c.args)):
        a = Pattern.of(first.name, {k: first.args[k] for k in keys(first)})
        b = Pattern.of(then.name, {k: then.args[k] for k in keys(then)})
        if a.args and b.args and _first_match(instance, a) == i and _first_match(instance, b) == j:
            return f"before({a}, {b})"
    return None


def _first_match(instance: Instance, pattern: Pattern) -> int | None:
    return next((k for k, c in enumerate(instance.calls) if pattern.matches(c.name, c.args)), None)


def policy_name(instance: Instance) -> str:
    """An AgentLTL name for the instance's policy.

    >>> from policyc.bench.generate import generate_instance
    >>> policy_name(generate_instance("fan_out+loop", 2, 7))
    'fan_out_loop_d2_s7'
    """
    base = instance.template.replace("+", "_")
    if instance.mode == "simplified":
        parts = [f"simplified_{base}", instance.variant, "" if instance.augmentation == "none" else instance.augmentation]
        return "_".join(p for p in parts if p) + f"_s{instance.seed}"
    return f"{base}_d{instance.difficulty}_s{instance.seed}"


def tool_declarations(tools: tuple[str, ...]) -> list[str]:
    """The declarations of these tools (and of the record types they return), as written in
    `bench_tools.altl`, the benchmark's signature file.

    >>> tool_declarations(("tool_b",))
    ['type Value = { result: int }', 'tool tool_b(i: int, j: int) -> Value']
    """
    from policyc.bench.tools import SIGNATURES_PATH

    lines = SIGNATURES_PATH.read_text(encoding="utf-8").splitlines()
    chosen = [line for line in lines if (m := _TOOL_LINE.match(line)) and m.group(1) in tools]
    used = {m.group(2) for line in chosen if (m := _TOOL_LINE.match(line))}
    return [line for line in lines if (m := _TYPE_LINE.match(line)) and m.group(1) in used] + chosen


_TOOL_LINE = re.compile(r"^tool (\w+)\(.*\) -> (\w+)$")
_TYPE_LINE = re.compile(r"^type (\w+) = ")


def policy_text(instance: Instance) -> str:
    """The policy of an instance, over the base tool names, as an `.altl` file.

    The file declares the tools it uses itself, with the lines of `bench_tools.altl`, rather
    than importing that file: an importer may rename only the tools a file declares (E0103),
    and the diverse-tool split renames the policy's tools through its import.

    >>> from policyc.bench.generate import generate_instance
    >>> print(policy_text(generate_instance("loop_termination", 1, 42)).splitlines()[-1])
        called_with(tool_a(i: 2))
    """
    rules = synthesize_rules(instance)
    tools = tuple(dict.fromkeys(instance.tools + tuple(c.name for c in instance.calls)))
    mode = f"{instance.mode} mode" + (f", {instance.variant} transform" if instance.variant else "") + (
        f", {instance.augmentation} augmentation" if instance.augmentation != "none" else "")
    head = [f"# {instance.template}, difficulty {instance.difficulty}, seed {instance.seed} ({mode}).",
            "# Synthesized from the gold trace: six layers with the weights of table 5 (AgentLTL paper):",
            "# L1 branching 2, L2 prompt arguments 1.5, L3 sequence 4, L4 pair order 3, L5 counts 3,",
            "# L6 exact arguments 1. Tool signatures: bench_tools.altl (policyc/bench).",
            *tool_declarations(tools), "",
            f'policy {policy_name(instance)} "{instance.template}: {len(instance.calls)} gold calls, '
            f'answer {instance.expected_answer}"', ""]
    body = []
    for rule in rules:
        body.append(f'rule {rule.name} "{rule.description}" layer {rule.layer} weight {rule.weight:g}:')
        body.append(f"    {rule.formula}")
    return "\n".join(head + body) + "\n"


def aliased_policy_text(instance: Instance, base_file: str) -> str:
    """The policy over the instance's aliases: the base policy through a rename map (D.4).

    >>> from policyc.bench.generate import generate_instance
    >>> inst = generate_instance("loop_termination", seed=1, mode="simplified", aliases=True)
    >>> print(aliased_policy_text(inst, "base.altl").splitlines()[3])
        tool_a -> poll_device_state { i -> device_id },
    """
    from policyc.bench.aliases import rename_map_text

    return "\n".join([
        f"# {instance.template} over aliased tools (diverse-tool split, appendix D.4).",
        "# The same policy as the base one, read through a rename map.",
        f'import "{base_file}" rename {{', rename_map_text(instance.renames), "}", "",
        f'policy {policy_name(instance)}_aliased "{instance.template} over aliased tools"', ""])


def weight_by_layer(rules: list[SynthesizedRule]) -> dict[str, float]:
    """Total weight per layer, L1..L6.

    >>> weight_by_layer([SynthesizedRule("r", "L3", "true", "")])["L3"]
    4.0
    """
    out = {layer: 0.0 for layer in LAYER_WEIGHTS}
    for rule in rules:
        out[rule.layer] += rule.weight
    return out
