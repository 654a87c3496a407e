"""Scoring a stream of sources here or in worker processes, results in input order.

With `jobs` = 1 every chunk is scored in this process. Otherwise a pool of `jobs` worker
processes (started with `spawn`: nothing of this process's state is shared but the job)
each loads the job's compiled policy once; chunks are submitted as the stream is read, at
most `2 * jobs` of them in flight, and results are yielded in the order of the input. Memory
is that of the chunks in flight, whatever the size of the corpus.

JSONL lines travel to the workers as text and are decoded there; records of JSON files are
read here (the line of a field needs the file's text) and travel as traces.

>>> from policyc.artifact.build import compile_file
>>> from policyc.artifact.io import dump_artifact
>>> from policyc.trace.load import iter_sources
>>> job = ScoringJob(dump_artifact(compile_file("examples/fan_out_fan_in.altl")))
>>> [s.tally.score for s in score_stream(job, iter_sources("examples/traces/appendix_b.json"))]
[1.0]
"""

from __future__ import annotations

import multiprocessing
from collections import deque
from concurrent.futures import Future, ProcessPoolExecutor
from itertools import islice
from typing import Callable, Iterable, Iterator

from policyc.corpus.job import Scored, ScoringJob, score_chunk
from policyc.scoring import RunTally, Scorer
from policyc.trace.load import JsonlLine, Source, read_source

#: Records per chunk sent to a worker.
CHUNK = 64


def score_stream(job: ScoringJob, sources: Iterable[Source], jobs: int = 1,
                 keep: bool | Callable[[RunTally], bool] = False, progress: Callable[[int], None] | None = None,
                 scorer: Scorer | None = None) -> Iterator[Scored]:
    """Every record of `sources`, scored, in order. `keep`, in this process only: return the
    report objects, of every run or of the runs whose tally it accepts (asked in input order;
    the others are only tallied, without details). `progress(n)` is called as each chunk of n
    records is done. With one job, `scorer` (the job's policy, compiled already) saves
    loading the job's artifact."""
    chunks = _chunks(sources, job.format if jobs > 1 else None)
    if jobs <= 1:
        scorer = scorer or job.scorer()
        for chunk in chunks:
            done = score_chunk(scorer, job, chunk, keep)
            if progress:
                progress(len(done))
            yield from done
        return
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(jobs, mp_context=context, initializer=_start_worker, initargs=(job,)) as pool:
        pending: deque[Future] = deque()
        for chunk in chunks:
            pending.append(pool.submit(_score_in_worker, chunk))
            if len(pending) >= 2 * jobs:
                yield from _done(pending.popleft(), progress)
        while pending:
            yield from _done(pending.popleft(), progress)


def _done(future: Future, progress: Callable[[int], None] | None) -> list[Scored]:
    done = future.result()
    if progress:
        progress(len(done))
    return done


def _chunks(sources: Iterable[Source], read_here: str | None) -> Iterator[list]:
    """Chunks of sources; with `read_here` (a format), each source that is not a JSONL line is
    read into its traces here, so that what is sent holds no closures."""
    it = iter(sources)
    while True:
        chunk = list(islice(it, CHUNK))
        if not chunk:
            return
        if read_here is not None:
            chunk = [item for s in chunk for item in ([s] if isinstance(s, JsonlLine) else read_source(s, read_here))]
        yield chunk


# ------------------------------------------------------------------ in a worker process

_worker: list = []  # this worker process's (scorer, job), set once by `_start_worker`


def _start_worker(job: ScoringJob) -> None:
    _worker[:] = [job.scorer(), job]


def _score_in_worker(chunk: list) -> list[Scored]:
    scorer: Scorer = _worker[0]
    job: ScoringJob = _worker[1]
    return score_chunk(scorer, job, chunk)
