"""SAAG: Structured Agent Assessment and Grounding of single tool calls.

A call is checked in a strict cascade (`cascade.STAGES`): registry conformance, structural
completeness, types, argument grounding; it halts at the first stage that fails, and the
correction ψ of that stage (`corrections`) tells the agent what to fix without quoting a
value. The eight metrics (`metrics`) are the paper's, computed with RapidFuzz.

| module | what |
|---|---|
| `metrics` | FNEM, NCS, RPR, PDS, SPR, AVEM, QSLO, VHR_ctx |
| `cascade` | `assess(tool, args, registry, query) -> Assessment` |
| `corrections` | ψ1–ψ3 (`correction(assessment)`) |
| `schema` | JSON function documents (BFCL, OpenAI) as tool signatures |
| `dataset` | records of (query, registry, predicted call, gold call) |
| `bfcl` | the data of the installed bfcl-eval package |
| `faults` | the deterministic fault injector |
| `evaluate`, `report` | rows, and the per-stage tables (text, JSON, Markdown) |

The gate (`policyc.runtime`) runs the same cascade on every proposed call; `policyc
conformance` runs it over a dataset. Nothing here imports the compiler or a solver.

>>> from policyc.saag import assess, correction, registry_from_json
>>> registry = registry_from_json([{"name": "search", "parameters": {"type": "dict",
...     "properties": {"query": {"type": "string"}}, "required": ["query"]}}])
>>> a = assess("search", {"qeury": "cats"}, registry, "Find cats")
>>> a.halted_at
'structure'
>>> print(correction(a))
Key parameters of the agent from the registry are missing: `query`. Please ensure the invocation includes all parameters specified for that agent in the system prompt. Some parameters appear misspelled and deviate slightly from the registry: `qeury` (did you mean `query`?). Please ensure all parameter names exactly match the schema in the system prompt.
"""

from policyc.saag.cascade import STAGE_NAMES, Assessment, Problem, assess
from policyc.saag.corrections import correction
from policyc.saag.schema import SchemaError, registry_from_json, signature_from_json

__all__ = ["STAGE_NAMES", "Assessment", "Problem", "SchemaError", "assess", "correction", "registry_from_json",
           "signature_from_json"]
