"""Scoring corpora of any size: streamed, on every core, or on a Ray cluster.

A corpus is read as *sources* (`policyc.trace.load.iter_sources`: JSONL lines, not yet
decoded, and the records of JSON files), scored in chunks by workers that each hold the
compiled policy once (`ScoringJob`), and gathered back in input order as `Scored` items: a
run's `RunTally` (what the aggregate needs) with, when asked for, its report as text. The
aggregate (`policyc.scoring.CorpusTally`) is exact and order-independent, so one process,
`--jobs N` and Ray give the same figures to the last bit.

- `score_stream(job, sources, jobs)`: in this process (jobs = 1) or in a pool of worker
  processes, a bounded number of chunks in flight: constant memory whatever the corpus size;
- `policyc.corpus.ray`: the same job on Ray Data (`policyc score --engine ray`).
"""

from policyc.corpus.job import REPORTS_JSON, REPORTS_JSONL, REPORTS_NONE, Scored, ScoringJob
from policyc.corpus.parallel import score_stream

__all__ = ["REPORTS_JSON", "REPORTS_JSONL", "REPORTS_NONE", "Scored", "ScoringJob", "score_stream"]
