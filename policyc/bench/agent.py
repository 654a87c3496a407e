"""A scripted "agent": it follows an instance's gold procedure, with injectable faults.

It stands in for a model in tests and demos: `scripted_run` returns a run record in the
format `policyc bench score` reads (docs/benchmark.md, "Run records"), with the tools
really executed, so every result is what the tool returns for the arguments sent. A run
on an aliased instance uses the aliases, as a model given the aliased prompt would.
"""

from __future__ import annotations

import json
from typing import Any, Iterable

from policyc.bench.aliases import rename_call
from policyc.bench.faults import Fault, faulty_calls, parse_fault
from policyc.bench.model import Instance
from policyc.bench.tools import ToolCallError


def scripted_run(instance: Instance, faults: Iterable[Fault | str] = (), *, model: str = "scripted",
                 setting: str = "baseline") -> dict[str, Any]:
    """Run the gold procedure with `faults`; the run record.

    >>> from policyc.bench.generate import generate_instance
    >>> run = scripted_run(generate_instance("fan_out_fan_in", 1, 42), ["drop"])
    >>> [c["tool_name"] for c in run["tool_calls"]], run["answer"]
    (['tool_a_list', 'tool_b', 'tool_b', 'tool_b'], 33)
    """
    chosen = tuple(f if isinstance(f, Fault) else parse_fault(f) for f in faults)
    calls, answer = faulty_calls(instance, chosen)
    box = instance.toolbox()
    records = []
    for step, (name, args) in enumerate(calls, 1):
        try:
            result: dict[str, Any] = box.call(name, args)
        except ToolCallError as exc:
            result = {"error": str(exc)}
        shown, shown_args = rename_call(name, args, instance.renames)
        records.append({"step": step, "tool_name": shown, "arguments": shown_args, "tool_result": json.dumps(result)})
    return {"instance": instance.key, "model": model, "setting": setting, "faults": [str(f) for f in chosen],
            "answer": answer, "num_tool_calls": len(records), "tool_calls": records}
