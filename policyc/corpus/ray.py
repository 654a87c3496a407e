"""Scoring on Ray Data: corpora beyond one machine, the same reports and aggregates.

    ds = read_shards(["s3://bucket/runs/"])             # rows: file, line, text (one record each)
    scored = score_dataset(job, ds)                     # rows: file, line, tally, text, malformed
    corpus = aggregate(job, scored)                     # the CorpusReport `policyc score` prints

The policy travels once to each worker: `score_dataset` maps batches through a pool of actors
(`concurrency` of them), each constructed with the `ScoringJob` (the artifact's JSON text and
the user's extern functions) and loading it once. Shards are JSONL (`.jsonl`, `.ndjson`: a
record per line) or Parquet (`.parquet`: a record per row, as JSON text in the column
`record`); each record keeps its file and line (or row), so a malformed one is named as
`policyc score` names it. Rows keep the input's order, and the aggregate is exact whatever the
batches (`policyc.scoring.tally`), so every figure equals the single-process path's.

Where it runs: `ray.init(address)` with the address given, else `RAY_ADDRESS`, else a local
cluster started for the run (`num_cpus` of this machine). On a real cluster the shards must
be readable from every node (a shared file system, or `s3://`, `gs://`, ... as pyarrow reads
them) and policyc installed on the nodes (or shipped with a runtime environment).

`map_reward` applies a GRPO reward function (`policyc.reward.reward_dataset`: the paper's) to
a dataset of completions the same way, for batch scoring inside training pipelines that are
Ray applications already.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Callable, Iterator, Sequence

from policyc.corpus.job import Scored, ScoringJob, score_one
from policyc.inputs import exists
from policyc.scoring import CorpusTally, MalformedRecord, RunTally
from policyc.scoring.tally import RuleTally
from policyc.trace.errors import TraceError
from policyc.trace.load import JSONL_SUFFIXES, PARQUET_SUFFIXES, JsonlLine, jsonl_lines, parquet_lines, read_source

if TYPE_CHECKING:  # pragma: no cover
    import ray.data

#: Records per block a reader yields, and per batch a scoring actor is given.
BLOCK_ROWS = 1024
BATCH_ROWS = 256
#: The share of a CPU a read task asks for; a scoring actor asks for the rest of one, so that
#: a pool of one actor per CPU still leaves room for the reads that feed it.
READ_CPUS = 0.25
#: The object store memory a run's blocks in flight may take.
OBJECT_STORE_BYTES = 256 * 1024 * 1024


class RayUnavailable(ImportError):
    """Ray Data is not installed."""


class ShardError(Exception):
    """Shards the Ray engine cannot read: standard input, a local path that does not exist."""


def _ray():
    try:
        import ray
        import ray.data  # noqa: F401
    except ImportError:
        raise RayUnavailable("the Ray engine needs Ray Data: pip install 'policyc[ray]'") from None
    return ray


def start(address: str | None = None, num_cpus: int | None = None) -> None:
    """Connect to a Ray cluster (`address`, else RAY_ADDRESS), or start a local one; nothing
    when this process is connected already."""
    ray = _ray()
    if ray.is_initialized():
        return
    import logging

    for name in ("ray", "ray.data"):  # Ray's own progress and plan lines are not the report's
        logging.getLogger(name).setLevel(logging.ERROR)
    kwargs: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False, "configure_logging": False}
    if address:
        kwargs["address"] = address
    elif num_cpus:
        kwargs["num_cpus"] = num_cpus
    ray.init(**kwargs)
    context = ray.data.DataContext.get_current()
    context.execution_options.preserve_order = True
    context.enable_progress_bars = False
    # blocks in flight are bounded, so that memory does not grow with the corpus when the
    # workers score faster than this process reads their results
    limits = context.execution_options.resource_limits
    context.execution_options.resource_limits = limits.copy(object_store_memory=OBJECT_STORE_BYTES)


# ------------------------------------------------------------------ reading shards

def _source_schema():
    import pyarrow as pa

    return pa.schema([("file", pa.string()), ("line", pa.int64()), ("text", pa.string()),
                      ("field", pa.string()), ("problem", pa.string())])


def _shards_datasource(paths: Sequence[str]):
    from ray.data.datasource import FileBasedDatasource

    class Shards(FileBasedDatasource):
        """JSONL and Parquet shards, a row per record: (file, line, text) or the problem."""

        def __init__(self, paths):
            super().__init__(paths, file_extensions=[s.lstrip(".") for s in (*JSONL_SUFFIXES, *PARQUET_SUFFIXES)])

        def _open_input_source(self, filesystem, path: str, **open_args):
            if path.endswith(PARQUET_SUFFIXES):  # Parquet is read by row groups: random access
                return filesystem.open_input_file(path)
            return super()._open_input_source(filesystem, path, **open_args)

        def _read_stream(self, f, path: str):
            import pyarrow as pa

            items = parquet_lines(f, path) if path.endswith(PARQUET_SUFFIXES) else jsonl_lines(f.read, path)
            rows: list[dict] = []
            for item in items:
                rows.append(_source_row(item))
                if len(rows) >= BLOCK_ROWS:
                    yield pa.Table.from_pylist(rows, schema=_source_schema())
                    rows = []
            if rows:
                yield pa.Table.from_pylist(rows, schema=_source_schema())

    return Shards(list(paths))


def _source_row(item: JsonlLine | TraceError) -> dict:
    if isinstance(item, JsonlLine):
        return {"file": item.file, "line": item.line, "text": item.text, "field": None, "problem": None}
    return {"file": item.file, "line": item.line, "text": None, "field": item.field, "problem": item.message}


def _source_of(row: dict) -> JsonlLine | TraceError:
    if row["problem"] is not None:
        return TraceError(row["file"], row["line"], row["field"], row["problem"])
    return JsonlLine(row["file"], row["line"], row["text"])


def read_shards(paths: Sequence[str]) -> "ray.data.Dataset":
    """A dataset of the records of JSONL and Parquet shards (files or folders of them), a row
    each: `file`, `line` (a Parquet shard's row number), `text` (the record, not decoded yet),
    or `problem` (and `field`) for what could not be read."""
    ray = _ray()
    for path in paths:
        if path == "-":
            raise ShardError("it reads files (.jsonl, .ndjson, .parquet), not standard input")
        if "://" not in path and not exists(path):
            raise ShardError(f"`{path}` does not exist")
    return ray.data.read_datasource(_shards_datasource(paths), num_cpus=READ_CPUS)


# ------------------------------------------------------------------ scoring batches


class ScoreBatches:
    """A Ray actor's scorer: the job's policy loaded once, then batch after batch."""

    def __init__(self, job: ScoringJob):
        self.job = job
        self.scorer = job.scorer()

    def __call__(self, batch: Any) -> Any:
        import pyarrow as pa

        rows: list[dict] = []
        for row in batch.to_pylist():
            for item in read_source(_source_of(row), self.job.format):
                rows.append(scored_row(score_one(self.scorer, self.job, item)))
        return pa.Table.from_pylist(rows, schema=_scored_schema())


def _scored_schema():
    import pyarrow as pa

    return pa.schema([("tally", pa.string()), ("text", pa.string()), ("malformed", pa.string())])


def scored_row(scored: Scored) -> dict:
    """A scored record as a row of plain columns (the tally and the malformed record as JSON)."""
    tally = None if scored.tally is None else json.dumps(scored.tally, ensure_ascii=False)
    malformed = None if scored.malformed is None else scored.malformed.model_dump_json()
    return {"tally": tally, "text": scored.text, "malformed": malformed}


def scored_of(row: dict) -> Scored:
    """The `Scored` item a row holds (`scored_row` backwards)."""
    if row["malformed"] is not None:
        return Scored(None, None, MalformedRecord.model_validate_json(row["malformed"]))
    score, label, rules, stages, errors = json.loads(row["tally"])
    tally = RunTally(score, label, tuple(RuleTally(*r) for r in rules), tuple(stages), errors)
    return Scored(tally, row["text"], None)


def score_dataset(job: ScoringJob, ds: "ray.data.Dataset", concurrency: int | None = None) -> "ray.data.Dataset":
    """Each record of `ds` (rows of `read_shards`) scored by a pool of actors holding the job:
    rows `tally`, `text` (the report's text the job asks for) and `malformed`, in order."""
    ray = _ray()
    workers = concurrency or max(1, int(ray.cluster_resources().get("CPU", 1)))
    return ds.map_batches(ScoreBatches, fn_constructor_kwargs={"job": job}, batch_size=BATCH_ROWS,
                          batch_format="pyarrow", compute=ray.data.ActorPoolStrategy(size=workers),
                          num_cpus=1 - READ_CPUS)


def aggregate(job: ScoringJob, scored: "ray.data.Dataset") -> CorpusTally:
    """The corpus aggregate of a scored dataset: a tally per batch on the workers, merged here
    in order (exact, so every figure is that of one process)."""
    ray = _ray()
    tally = CorpusTally(job.scorer().policy, keep_reports=False)
    parts = scored.map_batches(TallyBatches, fn_constructor_kwargs={"job": job}, batch_format="pyarrow",
                               batch_size=BATCH_ROWS * 16, compute=ray.data.ActorPoolStrategy(size=1),
                               num_cpus=READ_CPUS)
    for row in parts.iter_rows():
        tally.merge(CorpusTally.from_state(tally.policy, json.loads(row["state"])))
    return tally


class TallyBatches:
    """A Ray actor that tallies batches of scored rows (the job's policy loaded once)."""

    def __init__(self, job: ScoringJob):
        self.policy = job.scorer().policy

    def __call__(self, batch: Any) -> Any:
        import pyarrow as pa

        tally = CorpusTally(self.policy, keep_reports=False)
        for row in batch.to_pylist():
            scored = scored_of(row)
            if scored.malformed is not None:
                tally.add(scored.malformed)
            elif scored.tally is not None:
                tally.add_tally(scored.tally)
        return pa.Table.from_pylist([{"state": json.dumps(tally.state(), ensure_ascii=False)}])


def score_files(job: ScoringJob, paths: Sequence[str], address: str | None = None,
                progress: Callable[[int], None] | None = None, concurrency: int | None = None) -> Iterator[Scored]:
    """`policyc score --engine ray`: every record of the shards, scored on the cluster and
    gathered here in input order."""
    start(address)
    scored = score_dataset(job, read_shards(paths), concurrency)
    batch: Any
    for batch in scored.iter_batches(batch_size=BATCH_ROWS, batch_format="pyarrow"):
        rows = batch.to_pylist()
        if progress:
            progress(len(rows))
        for row in rows:
            yield scored_of(row)


# ------------------------------------------------------------------ rewards of completions


def map_reward(ds: "ray.data.Dataset", reward: Callable[..., list[float]], column: str = "instance",
               completions: str = "completion", concurrency: int | None = None) -> "ray.data.Dataset":
    """A dataset with a column `reward`: `reward`, a GRPOTrainer reward function (called with
    `completions=` and one list per dataset column, `column` here), applied batch by batch on
    the cluster (`policyc.reward.reward_dataset` gives the paper's reward so)."""
    _ray()
    def batch_rewards(batch: Any) -> Any:
        return _reward_batch(batch, reward, column, completions)

    return ds.map_batches(batch_rewards, batch_format="pyarrow", concurrency=concurrency)


def _reward_batch(batch: Any, reward: Callable[..., list[float]], column: str, completions: str) -> Any:
    import pyarrow as pa

    rows = batch.to_pylist()
    values = reward(completions=[r[completions] for r in rows], **{column: [r[column] for r in rows]})
    return batch.append_column("reward", pa.array(values, pa.float64()))
