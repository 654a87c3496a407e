"""Offline compliance scoring: Definition 1 of the AgentLTL paper, with appendix B's report.

`score_trace(compiled, trace)` -> TraceReport; `score_corpus(compiled, traces)` -> CorpusReport,
`compiled` being the policy with its tables (`policyc.tables.CompiledPolicy`).
Nothing here imports the parser, the checker, lark or z3.
"""

from policyc.scoring.models import (
    ConstraintResult,
    CorpusReport,
    InputProblem,
    LayerStats,
    MalformedRecord,
    RuleStats,
    TraceReport,
    label_of,
)
from policyc.scoring.externs import ExternBindingError, bind_externs
from policyc.scoring.score import Scorer, score_corpus, score_rule, score_trace
from policyc.scoring.tally import CorpusTally, RunTally

__all__ = ["ConstraintResult", "CorpusReport", "CorpusTally", "ExternBindingError", "InputProblem", "LayerStats",
           "MalformedRecord", "RuleStats", "RunTally", "Scorer", "TraceReport", "bind_externs", "label_of",
           "score_corpus", "score_rule", "score_trace"]
