"""From (template, difficulty, seed) to an `Instance` (§C.4).

The generator looks up the template's parameter at that difficulty, runs the procedure on
fresh tools (recording the gold trace and the expected answer) and writes the prompt with
every number inlined. The same triple always gives the same instance.

Call limit (§C.3). A production instance may make at most min(50, 10d + 10) calls: 50 is
the paper's filter, 10d + 10 the harness's per-run tool budget, which the gold trace must
fit. Only dynamic_expansion can exceed it (its BFS grows with the depth); there "filtered"
means capped: the generator keeps the largest expansion budget whose trace fits, and the
prompt states that budget ("expand at most k nodes"), so the procedure the agent reads is
the one the gold trace follows. Any other template over the limit raises `InstanceFiltered`
(none does, for any seed: a test checks a range of seeds).
"""

from __future__ import annotations

from policyc.bench import augment
from policyc.bench.aliases import choose_aliases
from policyc.bench.model import Instance
from policyc.bench.procedure import Context, Procedure, Template, ToolNames
from policyc.bench.production import PRODUCTION_BY_NAME
from policyc.bench.prompt import production_prompt, simplified_prompt
from policyc.bench.simplified import SIMPLIFIED_BY_NAME
from policyc.bench.tools import ToolBox

MODES = ("production", "simplified")
MAX_CALLS = 50


class InstanceFiltered(ValueError):
    """The instance's gold trace exceeds the call limit of §C.3 and cannot be capped."""


def call_limit(difficulty: int) -> int:
    """The most calls a production instance at this difficulty may make.

    >>> [call_limit(d) for d in range(1, 6)]
    [20, 30, 40, 50, 50]
    """
    return min(MAX_CALLS, 10 * difficulty + 10)


def find_template(name: str, mode: str = "production") -> Template:
    """The template of that name in that mode; ValueError (with the known names) otherwise.

    >>> find_template("fan_out+loop").levels[4]
    (7, 4)
    >>> find_template("loop_termination", "simplified").held_out
    True
    """
    registry = PRODUCTION_BY_NAME if mode == "production" else SIMPLIFIED_BY_NAME
    if mode not in MODES:
        raise ValueError(f"unknown mode `{mode}`; use production or simplified")
    if name not in registry:
        known = ", ".join(registry)
        raise ValueError(f"no {mode} template named `{name}`; known: {known}")
    return registry[name]


def derived_difficulty(calls: int) -> int:
    """Difficulty of a simplified instance, from its call count (§C.5).

    >>> [derived_difficulty(n) for n in (3, 5, 8, 20, 61)]
    [1, 1, 2, 3, 5]
    """
    for level, bound in enumerate((5, 15, 30, 60), 1):
        if calls <= bound:
            return level
    return 5


def generate_instance(template: str, difficulty: int = 1, seed: int = 42, *, mode: str = "production",
                      aliases: bool = False, variant: str = "", augmentation: str = "none") -> Instance:
    """Generate one benchmark instance.

    >>> inst = generate_instance("loop_termination", 1, 42)
    >>> [(c.name, c.args, c.result) for c in inst.calls], inst.expected_answer
    ([('tool_a', {'i': 1}, {'result': 2}), ('tool_a', {'i': 2}, {'result': 5})], 12)
    >>> generate_instance("fan_out_fan_in", seed=42, mode="simplified", augmentation="prefix").calls[0].args
    {'i': 9615}
    """
    spec = find_template(template, mode)
    if not 1 <= difficulty <= 5:
        raise ValueError(f"difficulty must be 1 to 5, got {difficulty}")
    if seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed}")
    if variant and variant not in spec.variants:
        raise ValueError(f"`{template}` has no `{variant}` variant; it has: "
                         + (", ".join(v for v in spec.variants if v) or "none"))
    renames = choose_aliases(spec.tools, seed) if aliases else {}
    names = ToolNames(renames)
    if mode == "production":
        return _production(spec, difficulty, seed, names, renames)
    return _simplified(spec, seed, names, renames, variant or spec.variants[0], augmentation)


def _production(spec: Template, difficulty: int, seed: int, names: ToolNames, renames) -> Instance:
    limit = call_limit(difficulty)
    proc, outcome = _run(spec, difficulty, seed, names, None)
    capped: dict[str, int] = {}
    if len(proc.calls) > limit:
        if spec.cap is None:
            raise InstanceFiltered(f"`{spec.name}` at difficulty {difficulty}, seed {seed} makes "
                                   f"{len(proc.calls)} calls, over the limit of {limit}")
        cap = 1
        while len(_run(spec, difficulty, seed, names, cap + 1)[0].calls) <= limit:
            cap += 1
        proc, outcome = _run(spec, difficulty, seed, names, cap)
        if len(proc.calls) > limit:
            raise InstanceFiltered(f"`{spec.name}` at difficulty {difficulty}, seed {seed} does not fit "
                                   f"{limit} calls even when capped")
        capped = {spec.cap: cap}
    prompt = production_prompt(spec.tools, outcome, names)
    return Instance(spec.name, "production", difficulty, seed, prompt, tuple(proc.calls), tuple(proc.decisions),
                    outcome.answer, spec.tools, spec.family, capped=capped, renames=renames)


def _run(spec: Template, difficulty: int, seed: int, names: ToolNames, cap: int | None, variant: str = "",
         proc: Procedure | None = None):
    proc = proc or Procedure(ToolBox(seed, difficulty))
    outcome = spec.build(Context(proc, names, seed, difficulty, spec.level(difficulty), cap, variant))
    return proc, outcome


def _simplified(spec: Template, seed: int, names: ToolNames, renames, variant: str, augmentation: str) -> Instance:
    core, _ = _run(spec, 1, seed, names, None, variant)
    allowed = augment.allowed_augmentations(len(core.calls))
    if augmentation not in allowed:
        raise ValueError(f"augmentation `{augmentation}` is not allowed for a {len(core.calls)}-call core; "
                         f"use one of: {', '.join(allowed)}")
    proc = Procedure(ToolBox(seed, 1))
    pre = augment.add_prefix(proc, seed) if augmentation in ("prefix", "both") else None
    first = len(proc.calls)
    _, outcome = _run(spec, 1, seed, names, None, variant, proc)
    post = augment.add_suffix(proc, seed) if augmentation in ("suffix", "both") else None
    augment.link_extra_calls(proc, first, pre is not None, post is not None)
    answer = outcome.answer + sum(v for v in (pre, post) if v is not None)
    tools = spec.tools if "tool_a" in spec.tools or augmentation == "none" else ("tool_a",) + spec.tools
    prompt = simplified_prompt(tools, outcome, names, augment.prefix_sentence(seed, names) if pre is not None else "",
                               augment.suffix_sentence(seed, names) if post is not None else "")
    return Instance(spec.name, "simplified", derived_difficulty(len(proc.calls)), seed, prompt, tuple(proc.calls),
                    tuple(proc.decisions), answer, tools, spec.family, variant=variant if len(spec.variants) > 1 else "",
                    augmentation=augmentation, renames=renames)
