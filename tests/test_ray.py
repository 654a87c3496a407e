"""Scoring on Ray Data (`policyc.corpus.ray`, `policyc score --engine ray`) on a local Ray
cluster this module starts: the same reports, in the same order, and the same aggregate as
one process; the GRPO reward of a dataset equals the reward function's. Skipped when Ray
Data is not installed (`pip install 'policyc[ray]'`)."""

from __future__ import annotations

import json
import re

import pytest
from click.testing import CliRunner

from policyc.artifact.build import compile_file
from policyc.artifact.io import dump_artifact
from policyc.cli import cli
from policyc.corpus import REPORTS_JSONL, ScoringJob, score_stream
from policyc.scoring import CorpusTally
from policyc.trace.load import iter_sources
from test_corpus import FAN_OUT, corpus_file

from lazy import lazy, needs  # noqa: E402

pytestmark = [needs("ray", "pyarrow", extra="ray"), pytest.mark.slow]  # servers and clusters in subprocesses
ray, pa, pq = lazy("ray"), lazy("pyarrow"), lazy("pyarrow.parquet")
engine = lazy("policyc.corpus.ray")


@pytest.fixture(scope="module")
def cluster():
    engine.start(num_cpus=2)
    yield
    ray.shutdown()


@pytest.fixture(scope="module")
def shards(tmp_path_factory) -> list[str]:
    folder = tmp_path_factory.mktemp("shards")
    a = corpus_file(folder / "a.jsonl", 400, 5)
    b = corpus_file(folder / "b.jsonl", 150, 6, bad_every=13)
    lines = open(b, encoding="utf-8").read().splitlines()
    pq.write_table(pa.table({"record": lines[:60] + [None] + lines[60:]}), folder / "c.parquet")
    return [a, b, str(folder / "c.parquet")]


def local(job: ScoringJob, paths) -> list:
    return list(score_stream(job, iter_sources(paths)))


def test_reports_come_back_in_order_as_one_process_makes_them(cluster, shards):
    job = ScoringJob(dump_artifact(compile_file(FAN_OUT)), reports=REPORTS_JSONL)
    on_ray = list(engine.score_files(job, shards))
    here = local(job, shards)
    assert [(s.text, s.malformed, s.tally) for s in on_ray] == [(s.text, s.malformed, s.tally) for s in here]
    assert any(s.malformed is not None and s.malformed.file.endswith("c.parquet") and s.malformed.line == 61
               for s in on_ray)


def test_the_aggregate_is_that_of_one_process(cluster, shards):
    job = ScoringJob(dump_artifact(compile_file(FAN_OUT)))
    on_ray = engine.aggregate(job, engine.score_dataset(job, engine.read_shards(shards)))
    here = CorpusTally(on_ray.policy, keep_reports=False)
    for s in local(job, shards):
        here.add(s.malformed) if s.malformed is not None else here.add_tally(s.tally)
    assert on_ray.report() == here.report()


@pytest.mark.parametrize("fmt", ["jsonl", "json", "table"])
def test_the_cli_prints_what_the_local_engine_prints(cluster, shards, fmt):
    env = {"NO_COLOR": "1", "COLUMNS": "120"}
    here = CliRunner().invoke(cli, ["score", FAN_OUT, *shards, "--format", fmt], env=env)
    there = CliRunner().invoke(cli, ["score", FAN_OUT, *shards, "--format", fmt, "--engine", "ray"], env=env)
    # the same text; colour codes aside (after some earlier tests of a session the console
    # under Ray colours the problems' severities in spite of NO_COLOR: not a difference of content)
    plain = re.compile(r"\x1b\[[0-9;]*m")
    assert (here.exit_code, plain.sub("", here.stdout)) == (there.exit_code, plain.sub("", there.stdout))


def test_shards_it_cannot_read_are_input_errors(cluster):
    result = CliRunner().invoke(cli, ["score", FAN_OUT, "no/such/shard.jsonl", "--engine", "ray"])
    assert result.exit_code == 2
    assert "the ray engine could not score the corpus: `no/such/shard.jsonl` does not exist" in result.stderr


def test_the_grpo_reward_of_a_dataset(cluster):
    from policyc.reward import agentltl_reward, reward_dataset

    instance = json.dumps({"template": "loop_termination", "seed": 42})
    completions = ['<tool_call>{"name": "tool_a", "arguments": {"i": 1}}</tool_call>', "ANSWER: 3", ""]
    rows = [{"completion": c, "instance": instance} for c in completions]
    scored = reward_dataset(ray.data.from_items(rows)).take_all()
    assert [r["reward"] for r in scored] == agentltl_reward(completions=completions, instance=[instance] * 3)
