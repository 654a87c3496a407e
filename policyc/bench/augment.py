"""Trace augmentation of the training corpus (appendix D.3).

`prefix` prepends one independent tool_a(pre_seed) call, pre_seed in 1000..9999; `suffix`
appends one tool_a(suf_seed), suf_seed in 10000..19999; `both` does both. Each extra result
is added to the final answer, and the prompt says so. The extra call is independent of the
core computation but changes the constraint profile: it joins the L3 sequence, gains an L4
ordering relation (the prefix precedes the first core call, the suffix follows the last
one), raises the L5 count of tool_a and adds L2 and L6 argument rules.

To respect the 8-call cap, a core of 7 or more calls takes only none or prefix.
The extra seeds are derived from the instance seed, so augmentation stays deterministic.
"""

from __future__ import annotations

from dataclasses import replace

from policyc.bench.procedure import Procedure, ToolNames

AUGMENTATIONS = ("none", "prefix", "suffix", "both")


def allowed_augmentations(core_calls: int) -> tuple[str, ...]:
    """The augmentations a core of that length may take.

    >>> allowed_augmentations(5), allowed_augmentations(7)
    (('none', 'prefix', 'suffix', 'both'), ('none', 'prefix'))
    """
    return ("none", "prefix") if core_calls >= 7 else AUGMENTATIONS


def prefix_seed(seed: int) -> int:
    """pre_seed in 1000..9999.

    >>> prefix_seed(42)
    9615
    """
    return 1000 + (seed * 7919 + 17) % 9000


def suffix_seed(seed: int) -> int:
    """suf_seed in 10000..19999.

    >>> suffix_seed(42)
    18641
    """
    return 10000 + (seed * 104729 + 23) % 10000


def add_prefix(proc: Procedure, seed: int) -> int:
    """Record the prefix call (it must be the first call); its value.

    >>> from policyc.bench.tools import ToolBox, tool_a
    >>> add_prefix(Procedure(ToolBox(42, 1)), 42) == tool_a(prefix_seed(42))
    True
    """
    return proc.call("tool_a", i=prefix_seed(seed), given=("i",))


def add_suffix(proc: Procedure, seed: int) -> int:
    """Record the suffix call after the core; its value.

    >>> from policyc.bench.tools import ToolBox, tool_a
    >>> proc = Procedure(ToolBox(42, 1))
    >>> add_suffix(proc, 42) == tool_a(suffix_seed(42)), proc.calls[0].args
    (True, {'i': 18641})
    """
    return proc.call("tool_a", i=suffix_seed(seed), given=("i",), after=(proc.last,))


def link_extra_calls(proc: Procedure, first_core: int, has_prefix: bool, has_suffix: bool) -> None:
    """Make the first core call depend on the prefix call (the L4 relation the prefix adds).

    >>> from policyc.bench.tools import ToolBox
    >>> proc = Procedure(ToolBox(1, 1))
    >>> _ = add_prefix(proc, 1), proc.call("tool_c", x=1)
    >>> link_extra_calls(proc, 1, True, False)
    >>> proc.calls[1].after
    (0,)
    """
    if has_prefix and first_core < len(proc.calls):
        call = proc.calls[first_core]
        proc.calls[first_core] = replace(call, after=tuple(sorted(set(call.after) | {0})))


def prefix_sentence(seed: int, names: ToolNames) -> str:
    """The sentence a prefix instance's prompt begins with.

    >>> prefix_sentence(42, ToolNames())
    'Call tool_a(i=9615) first; its result is an addend you will include in your final answer.'
    """
    return (f"Call {names.call('tool_a', i=prefix_seed(seed))} first; its result is an addend you will "
            "include in your final answer.")


def suffix_sentence(seed: int, names: ToolNames) -> str:
    """The mirror sentence a suffix instance's prompt ends with.

    >>> suffix_sentence(42, ToolNames()).split(";")[0]
    'Finally, call tool_a(i=18641) last'
    """
    return (f"Finally, call {names.call('tool_a', i=suffix_seed(seed))} last; its result is an addend you will "
            "include in your final answer.")
