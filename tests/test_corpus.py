"""Corpora at scale: streamed reading, worker processes, exact aggregates (`policyc.corpus`).

Every path must give what scoring the corpus in memory gives: the same reports, in the same
order, and the same aggregate to the last bit.
"""

from __future__ import annotations

import gc
import io
import json
import random
import tracemalloc

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from policyc.artifact.build import compile_file
from policyc.artifact.io import dump_artifact
from policyc.automata import compile_policy
from policyc.check import check_file
from policyc.cli import cli
from policyc.corpus import REPORTS_JSON, REPORTS_JSONL, ScoringJob, score_stream
from policyc.scoring import CorpusTally, Scorer, score_corpus
from policyc.scoring.tally import ExactSum
from policyc.trace import TraceError, iter_traces
from policyc.trace.load import JsonlLine, iter_sources, jsonl_lines

FAN_OUT = "examples/fan_out_fan_in.altl"
TOOLS = ("tool_a", "tool_b", "tool_c", "tool_d", "elsewhere")


def corpus_file(path, n: int, seed: int = 1, bad_every: int = 37) -> str:
    """`n` JSONL records of random calls, with a malformed record every `bad_every` lines."""
    rng = random.Random(seed)
    with open(path, "w", encoding="utf-8") as out:
        for i in range(n):
            if i % bad_every == bad_every - 1:
                out.write(rng.choice(['{"tool_calls": 3}', "{bad json", '{"tool_calls": [{"tool_name": 7}]}']) + "\n")
                continue
            calls = [{"tool_name": rng.choice(TOOLS), "arguments": {"i": rng.randint(0, 3)}}
                     for _ in range(rng.randint(0, 12))]
            out.write(json.dumps({"tool_calls": calls, "id": f"run-{i}"}) + "\n")
    return str(path)


def score(*args, jobs: int = 1):
    result = CliRunner().invoke(cli, ["score", *args, "--jobs", str(jobs)], env={"NO_COLOR": "1", "COLUMNS": "120"})
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in result.output + result.stderr
    return result


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> list[str]:
    folder = tmp_path_factory.mktemp("corpus")
    return [corpus_file(folder / "a.jsonl", 300, 1), "examples/traces/appendix_b.json",
            "tests/fixtures/traces/mixed_records.jsonl", "tests/fixtures/traces/records_array.json",
            corpus_file(folder / "b.jsonl", 90, 2, bad_every=11)]


@pytest.mark.parametrize("fmt", ["json", "jsonl", "table"])
def test_worker_processes_print_what_one_process_prints(corpus, fmt):
    one = score(FAN_OUT, *corpus, "--format", fmt, "--rows", "7")
    two = score(FAN_OUT, *corpus, "--format", fmt, "--rows", "7", jobs=2)
    assert one.exit_code == two.exit_code == 2  # the corpus holds malformed records
    assert one.stdout == two.stdout and one.stderr == two.stderr


def test_the_streamed_json_document_is_the_corpus_report(corpus):
    """The JSON document, its reports spooled and written after the aggregate, is exactly the
    CorpusReport scored in memory, dumped in one piece."""
    compiled = compile_policy(check_file(FAN_OUT)[0])
    whole = score_corpus(compiled, iter_traces(corpus))
    printed = score(FAN_OUT, *corpus, "--format", "json").stdout
    assert printed == json.dumps(whole.model_dump(mode="json"), indent=2, ensure_ascii=False) + "\n"


def test_an_artifact_scores_in_workers_as_its_policy_does(corpus, tmp_path):
    artifact = tmp_path / "fan_out.policy.json"
    assert CliRunner().invoke(cli, ["compile", FAN_OUT, "-o", str(artifact)]).exit_code == 0
    by_source = score(FAN_OUT, *corpus, "--format", "jsonl")
    by_artifact = score(str(artifact), *corpus, "--format", "jsonl", jobs=2)
    assert by_source.stdout == by_artifact.stdout


def test_score_stream_keeps_input_order_and_every_record(corpus):
    job = ScoringJob(dump_artifact(compile_file(FAN_OUT)), reports=REPORTS_JSONL)
    alone = list(score_stream(job, iter_sources(corpus)))
    pooled = list(score_stream(job, iter_sources(corpus), jobs=2))
    assert [(s.text, s.malformed) for s in alone] == [(s.text, s.malformed) for s in pooled]
    records = list(iter_traces(corpus))
    assert len(alone) == len(records)  # records in = scored + reported
    assert [s.malformed is not None for s in alone] == [isinstance(r, TraceError) for r in records]


def test_reports_text_is_what_the_cli_prints():
    job = ScoringJob(dump_artifact(compile_file(FAN_OUT)), reports=REPORTS_JSON)
    (scored,) = score_stream(job, iter_sources("examples/traces/appendix_b.json"))
    document = score(FAN_OUT, "examples/traces/appendix_b.json", "--format", "json").stdout
    assert scored.text in document


@pytest.mark.slow
def test_memory_does_not_grow_with_the_corpus(tmp_path):
    """Scoring 10x the records takes about the same peak memory: nothing is kept per run."""
    compiled = compile_policy(check_file(FAN_OUT)[0])
    small, large = corpus_file(tmp_path / "s.jsonl", 300, 3), corpus_file(tmp_path / "l.jsonl", 3000, 3)

    def peak(path: str) -> int:
        job = ScoringJob("")
        tally = CorpusTally(compiled.policy, keep_reports=False)
        tracemalloc.start()
        for i, scored in enumerate(score_stream(job, iter_sources(path), scorer=Scorer(compiled))):
            if i % 64 == 0:  # what is live, not garbage awaiting the collector (its pace follows the heap)
                gc.collect()
            if scored.malformed is None:
                tally.add_tally(scored.tally)
            else:
                tally.add(scored.malformed)
        _, top = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        return top

    peak(small)  # warm the caches of the first run
    assert peak(large) < 2 * peak(small)


# ------------------------------------------------------------------ exact, mergeable tallies


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(min_value=0, max_value=1), max_size=40), st.randoms(use_true_random=False))
def test_exact_sums_do_not_depend_on_order_or_splitting(values, rng):
    whole = ExactSum()
    for v in values:
        whole.add(v)
    shuffled = list(values)
    rng.shuffle(shuffled)
    cut = rng.randint(0, len(shuffled))
    left, right = ExactSum(), ExactSum()
    for v in shuffled[:cut]:
        left.add(v)
    for v in shuffled[cut:]:
        right.add(v)
    left.merge(right)
    assert left.total == whole.total
    assert whole.value(max(len(values), 1)) == pytest.approx(sum(values) / max(len(values), 1), abs=1e-12)


def test_tallies_split_and_merged_give_the_whole_aggregate(corpus):
    compiled = compile_policy(check_file(FAN_OUT)[0])
    items = list(iter_traces(corpus))
    scorer = Scorer(compiled)
    reports = [i if isinstance(i, TraceError) else scorer.score(i) for i in items]
    whole = CorpusTally(compiled.policy, keep_reports=False)
    for r in reports:
        whole.add(r)
    merged = CorpusTally(compiled.policy, keep_reports=False)
    for start in range(0, len(reports), 23):
        part = CorpusTally(compiled.policy, keep_reports=False)
        for r in reports[start:start + 23]:
            part.add(r)
        merged.merge(CorpusTally.from_state(compiled.policy, json.loads(json.dumps(part.state()))))
    assert merged.report() == whole.report()


# ------------------------------------------------------------------ reading JSONL a block at a time


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from([b"{}", b"\n", b"\r\n", b" ", b'{"a": 1}', b"\xff", b"\xef\xbb\xbf", b"x" * 9]),
                max_size=30),
       st.integers(1, 12), st.integers(2, 40))
def test_streamed_lines_are_the_lines_of_the_text(pieces, block, cap):
    """Lines read a block at a time are those of the whole text split at `\\n`: the same
    numbers and text, blank lines skipped, and a line over the cap one error in its place."""
    data = b"".join(pieces)
    stream = io.BytesIO(data)
    got = list(jsonl_lines(lambda n: stream.read(min(n, block)), "f.jsonl", cap))
    want = []
    for number, raw in enumerate(data.split(b"\n"), start=1):
        if len(raw) > cap:
            want.append(("error", number))
            continue
        text = raw.decode("utf-8", errors="surrogateescape")
        text = " " + text[1:] if number == 1 and text.startswith("\ufeff") else text
        text = text[:-1] if text.endswith("\r") else text
        if text.strip():
            want.append((text, number))
    assert [("error", g.line) if isinstance(g, TraceError) else (g.text, g.line) for g in got] == want
    assert all(isinstance(g, (JsonlLine, TraceError)) for g in got)


def test_parquet_shards_hold_a_record_per_row(tmp_path):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    good = json.dumps({"tool_calls": [{"tool_name": "tool_a"}, {"tool_name": "tool_d"}]})
    pq.write_table(pa.table({"record": [good, None, "{bad", good]}), tmp_path / "runs.parquet")
    pq.write_table(pa.table({"x": [1]}), tmp_path / "other.parquet")
    (tmp_path / "fake.parquet").write_text("not parquet")
    items = list(iter_traces(tmp_path))
    shown = [str(i) if isinstance(i, TraceError) else i.tool_sequence for i in items]
    assert shown[0].startswith(f"{tmp_path / 'fake.parquet'}: not a readable Parquet file (")
    assert shown[1] == f"{tmp_path / 'other.parquet'}: a Parquet shard holds one record per row, as JSON text in " \
                       "a column named `record`; this one has the columns `x`"
    assert shown[2] == ["tool_a", "tool_d"]
    assert shown[3] == f"{tmp_path / 'runs.parquet'}:2: `record`: the record is not JSON text (it is null)"
    assert shown[4].startswith(f"{tmp_path / 'runs.parquet'}:3: invalid JSON")
    assert shown[5] == ["tool_a", "tool_d"]
