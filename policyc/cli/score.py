"""`policyc score POLICY TRACES...`: compliance reports for completed traces, and their aggregate."""

from __future__ import annotations

import json
import sys
from typing import IO, TYPE_CHECKING

import click

from policyc.cli import EXIT_FINDINGS, EXIT_INPUT, EXIT_OK
from policyc.cli import externs as extern_bindings
from policyc.cli.common import budget_options, fail, key_option, load_checked, load_monitor, reads_artifact
from policyc.trace.formats import FORMATS

if TYPE_CHECKING:
    from rich.progress import Progress

PROGRESS_FROM = 200  # records; below this a progress bar only flickers


@click.command("score")
@click.argument("policy", metavar="POLICY_OR_ARTIFACT", type=click.Path(dir_okay=False))
@click.argument("traces", nargs=-1, required=True)
@click.option("--format", "fmt", type=click.Choice(["table", "json", "jsonl"]), default="table",
              show_default=True, help="table for people; json (one document) or jsonl (a line per record) "
                                      "for machines")
@click.option("--input-format", default="auto", show_default=True,
              type=click.Choice(["auto", *FORMATS]),
              help="how to read each trace record; auto detects it from the record's shape")
@click.option("--rows", default=50, show_default=True, type=click.IntRange(min=0),
              help="table format: list at most this many traces one by one (0: all)")
@click.option("--jobs", "-j", default=1, show_default=True, type=click.IntRange(min=0, max=1024),
              help="worker processes scoring in parallel (0: one per core)")
@click.option("--engine", type=click.Choice(["local", "ray"]), default="local", show_default=True,
              help="local: this machine (with --jobs); ray: a Ray cluster, reading .jsonl and .parquet shards "
                   "(needs `pip install policyc[ray]`)")
@click.option("--ray-address", default=None, metavar="ADDRESS",
              help="the Ray cluster to use (default: RAY_ADDRESS, else a local cluster started for the run)")
@extern_bindings.option
@key_option
@budget_options
def command(policy: str, traces: tuple[str, ...], fmt: str, input_format: str, rows: int, jobs: int, engine: str,
            ray_address: str | None, externs: tuple[str, ...], key_file: str | None) -> None:
    """Score TRACES (files, folders, or - for standard input) against a policy (`.altl`) or
    the artifact `policyc compile` made of it.

    \b
    Each record gets the report of the AgentLTL paper's appendix B: the score, its label,
    the tool sequence and a verdict per rule; then the corpus aggregate (table 4).
    JSONL files are read a line at a time, so a corpus of any size scores in constant memory;
    --jobs spreads it over worker processes and --engine ray over a Ray cluster, with the
    same reports and aggregates.
    Exit status: 0 every trace fully compliant, 1 some rule violated,
    2 bad input (a malformed record, a call that does not match a signature, no records).
    """
    import os

    from policyc.corpus import REPORTS_JSON, REPORTS_JSONL, ScoringJob, score_stream
    from policyc.scoring import CorpusTally, Scorer
    from policyc.trace.load import iter_sources

    jobs = jobs or os.cpu_count() or 1
    compiled, bound, artifact = _load(policy, externs, key_file)
    wanted = {"jsonl": REPORTS_JSONL, "json": REPORTS_JSON}.get(fmt, REPORTS_JSONL if jobs > 1 or engine == "ray"
                                                             else "none")
    local = engine == "local" and jobs <= 1
    job = ScoringJob("" if local else artifact(), _bound(bound), input_format, wanted)
    tally = CorpusTally(compiled.policy, keep_reports=False)
    sample = _Sample(rows)
    with _Output(fmt) as out, _progress() as advance:
        if engine == "ray":
            from policyc.corpus.ray import score_files

            stream = score_files(job, traces, address=ray_address, progress=advance)
        else:
            scorer = Scorer(compiled, externs=bound) if local else None
            stream = score_stream(job, iter_sources(traces), jobs, keep=sample.wants if fmt == "table" else False,
                                  progress=advance, scorer=scorer)
        try:
            for scored in stream:
                if scored.malformed is not None:
                    tally.add(scored.malformed)
                    out.malformed(scored.malformed)
                    continue
                assert scored.tally is not None  # a record not malformed was scored
                tally.add_tally(scored.tally)
                out.report(scored.text)
                if fmt == "table":
                    sample.add(scored)
        except _engine_errors() as exc:
            fail(f"the {engine} engine could not score the corpus: {exc}")
        corpus = tally.report()
        if fmt == "table":
            corpus.reports = sample.reports
        out.finish(corpus)
    if fmt == "table":
        from policyc.scoring.tables import print_corpus

        print_corpus(corpus, rows=rows, problems=sample.problems)
    raise click.exceptions.Exit(_exit_code(corpus, tally.with_errors))


def _load(policy: str, externs: tuple[str, ...], key_file: str | None):
    """(the compiled policy, its extern bindings, a function giving its artifact's JSON text
    for workers elsewhere); exit 2 when the policy or artifact cannot be loaded."""
    from policyc.artifact.io import dump_artifact

    if reads_artifact(policy, key_file):  # a compiled artifact: its tables score, nothing is compiled again
        monitor = load_monitor(policy, externs, key_file)
        return monitor.compiled, monitor.externs, lambda: dump_artifact(monitor.artifact)
    from policyc.artifact.build import build_artifact
    from policyc.automata import compile_policy

    checked, _ = load_checked(policy)
    bound = extern_bindings.bind(externs, checked.externs)
    return compile_policy(checked), bound, lambda: dump_artifact(build_artifact(checked))


def _engine_errors() -> tuple[type[BaseException], ...]:
    """What the engines raise about their environment (not about one record): Ray missing or
    failing, a worker process that died."""
    from concurrent.futures.process import BrokenProcessPool

    errors: list[type[BaseException]] = [BrokenProcessPool, ImportError]
    try:
        from ray.exceptions import RayError

        from policyc.corpus.ray import ShardError
    except ImportError:
        pass
    else:
        errors += [RayError, ShardError]
    return tuple(errors)


def _bound(externs: dict) -> dict:
    """The user's extern functions only (the entity extractor is the policy's, found again)."""
    from policyc.grounding import EXTRACTOR_KEY

    return {k: v for k, v in externs.items() if k != EXTRACTOR_KEY}


class _Sample:
    """What the table shows one by one: the first `rows` reports (0: all), and the first `rows`
    with input problems, with their positions in the corpus."""

    def __init__(self, rows: int):
        self.rows = rows
        self.count = self.asked = self.asked_problems = 0
        self.reports: list = []
        self.problems: list = []

    def wants(self, tally) -> bool:
        """Whether a run is shown one by one, so that its report must be made: asked of every
        run in input order (`score_stream`), before it is added."""
        index, self.asked = self.asked, self.asked + 1
        troubled = self._troubled(tally, self.asked_problems)
        self.asked_problems += troubled
        return self._first(index) or troubled

    def _first(self, index: int) -> bool:
        return not self.rows or index < self.rows

    def _troubled(self, tally, taken: int) -> bool:
        return bool(tally.problem_stages) and (not self.rows or taken < self.rows)

    def add(self, scored) -> None:
        index = self.count
        self.count += 1
        first, troubled = self._first(index), self._troubled(scored.tally, len(self.problems))
        if not (first or troubled):
            return
        report = scored.report
        if report is None:
            from policyc.scoring import TraceReport

            report = TraceReport.model_validate_json(scored.text)
        if first:
            self.reports.append(report)
        if troubled:
            self.problems.append((index, report))


class _Output:
    """Reports written as they come: JSONL lines at once; the JSON document's reports spooled
    to a temporary file and written after the aggregate (the document's field order)."""

    def __init__(self, fmt: str):
        self.fmt = fmt
        self.spool: IO[str] | None = None
        self.first = True

    def __enter__(self):
        if self.fmt == "json":
            import tempfile

            self.spool = tempfile.TemporaryFile("w+", encoding="utf-8")
        return self

    def __exit__(self, *exc) -> None:
        if self.spool is not None:
            self.spool.close()

    def malformed(self, record) -> None:
        if self.fmt == "jsonl":
            click.echo(json.dumps({"malformed_record": record.model_dump(mode="json")}, ensure_ascii=False))

    def report(self, text: str | None) -> None:
        if self.fmt == "jsonl":
            click.echo(text)
        elif self.spool is not None:
            assert text is not None  # the JSON document's reports are asked for as text
            if not self.first:
                self.spool.write(",\n")
            self.spool.write(text)
            self.first = False

    def finish(self, corpus) -> None:
        if self.fmt == "jsonl":
            click.echo(json.dumps({"aggregate": corpus.aggregate()}, ensure_ascii=False))
        elif self.spool is not None:
            head = json.dumps(corpus.model_dump(mode="json"), indent=2, ensure_ascii=False)
            assert head.endswith('"reports": []\n}')
            if self.first:  # no report: the document as it is
                click.echo(head)
                return
            click.echo(head[:-len("[]\n}")] + "[")
            self.spool.seek(0)
            while True:
                block = self.spool.read(1 << 20)
                if not block:
                    break
                click.echo(block, nl=False)
            click.echo("\n  ]\n}")


def _exit_code(corpus, bad_calls: int) -> int:
    if corpus.records == 0:
        click.echo("policyc: no trace records found", err=True)
        return EXIT_INPUT
    if corpus.malformed_records:
        click.echo(f"policyc: {corpus.malformed_records} malformed record(s) were not scored", err=True)
    if bad_calls:
        click.echo("policyc: some calls do not match the policy's tool signatures (see the input problems)",
                   err=True)
    if corpus.malformed_records or bad_calls:
        return EXIT_INPUT
    return EXIT_OK if corpus.labels.get("FULL", 0) == corpus.traces else EXIT_FINDINGS


class _progress:
    """A progress count on standard error, for large corpora on a terminal only."""

    def __init__(self) -> None:
        self.bar: Progress | None = None
        self.done = 0

    def __enter__(self):
        if not sys.stderr.isatty():
            return None
        from rich.console import Console
        from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

        self.bar = bar = Progress(SpinnerColumn(), TextColumn("scored {task.completed:,.0f} records"),
                                  TimeElapsedColumn(), console=Console(stderr=True), transient=True)
        task = bar.add_task("scoring", total=None)
        started = [False]

        def advance(n: int) -> None:
            self.done += n
            if not started[0] and self.done >= PROGRESS_FROM:
                started[0] = True
                bar.start()
            bar.advance(task, n)
        return advance

    def __exit__(self, *exc) -> None:
        if self.bar is not None:
            self.bar.stop()
