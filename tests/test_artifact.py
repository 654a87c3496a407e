"""The monitor artifact: compile, load, verify, refuse anything else with a clear error."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from click.testing import CliRunner

from policyc.artifact import ArtifactError, parse_artifact, read_artifact
from policyc.artifact.build import build_artifact
from policyc.artifact.hashing import content_hash
from policyc.artifact.io import dump_artifact
from policyc.artifact.policy import policy_of
from policyc.artifact.schema import schema_text
from policyc.check import check_file
from policyc.cli import cli
from policyc.runtime import Monitor

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted((ROOT / "examples").glob("*.altl"))


def compiled(name: str = "code_qa"):
    policy, _ = check_file(ROOT / "examples" / f"{name}.altl")
    return policy, build_artifact(policy)


def test_published_schema_is_current():
    published = (ROOT / "docs" / "artifact.schema.json").read_text(encoding="utf-8")
    assert published == schema_text(), "regenerate: python -m policyc.artifact.schema > docs/artifact.schema.json"


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_every_example_compiles_loads_and_matches_the_schema(path, tmp_path):
    policy, _ = check_file(path)
    artifact = build_artifact(policy)
    target = tmp_path / "policy.json"
    target.write_text(dump_artifact(artifact), encoding="utf-8")
    data = json.loads(target.read_text(encoding="utf-8"))
    jsonschema.validate(data, json.loads(schema_text()))
    loaded = read_artifact(target)
    assert loaded == artifact
    again = policy_of(loaded)
    assert [r.name for r in again.rules] == [r.name for r in policy.rules]
    assert [r.formula for r in again.rules] == [r.formula for r in policy.rules]
    assert again.tools == policy.tools
    Monitor.load(target).start()


def test_compiling_twice_gives_the_same_bytes():
    _, a = compiled()
    _, b = compiled()
    assert dump_artifact(a) == dump_artifact(b)


def test_source_hash_follows_the_source_text(tmp_path):
    text = (ROOT / "examples" / "code_qa.altl").read_text(encoding="utf-8")
    first = tmp_path / "code_qa.altl"
    first.write_text(text, encoding="utf-8")
    edited = tmp_path / "sub"
    edited.mkdir()
    (edited / "code_qa.altl").write_text(text, encoding="utf-8")
    h1 = build_artifact(check_file(first)[0]).source_hash
    h2 = build_artifact(check_file(edited / "code_qa.altl")[0]).source_hash
    assert h1 == h2  # the directory does not matter
    (edited / "code_qa.altl").write_text(text + "\n# a comment\n", encoding="utf-8")
    assert build_artifact(check_file(edited / "code_qa.altl")[0]).source_hash != h1


def _rehash(data: dict) -> str:
    body = {k: v for k, v in data.items() if k != "content_hash"}
    return json.dumps({**body, "content_hash": content_hash(body)})


@pytest.mark.parametrize("edit,message", [
    (lambda d: d["rules"][0].update(weight=100.0), "was changed after it was compiled"),
    (lambda d: d["automata"][0]["rule"]["parts"][0]["dfa"]["delta"][0].reverse(), "was changed after it was compiled"),
    (lambda d: d.pop("content_hash"), "was changed after it was compiled"),
    (lambda d: d.update(version=99), "is artifact format version 99; this policyc reads version 4"),
    (lambda d: d.update(format="something.else"), "is not a policyc monitor artifact"),
])
def test_tampered_or_foreign_files_are_refused(edit, message):
    _, artifact = compiled()
    data = json.loads(dump_artifact(artifact))
    edit(data)
    with pytest.raises(ArtifactError) as caught:
        parse_artifact(json.dumps(data), "policy.json")
    assert message in str(caught.value)
    assert caught.value.help and "policyc compile" in caught.value.help


def test_a_well_hashed_file_that_breaks_the_schema_is_refused():
    _, artifact = compiled()
    data = json.loads(dump_artifact(artifact))
    data["rules"][0]["severity"]["kind"] = "maybe"
    with pytest.raises(ArtifactError, match="does not match the artifact schema: `rules.0.severity.kind`"):
        parse_artifact(_rehash(data), "policy.json")
    data = json.loads(dump_artifact(artifact))
    data["rules"][0]["automaton"] = 7
    with pytest.raises(ArtifactError, match="rule `search_first` points to automaton 7, but there are 2"):
        parse_artifact(_rehash(data), "policy.json")


@pytest.mark.parametrize("text,message", [
    ("", "is not JSON"),
    ("{not json", "is not JSON (line 1, column 2"),
    ("[1, 2]", "is not a policyc monitor artifact"),
    ('{"tool_calls": []}', "is not a policyc monitor artifact"),
])
def test_files_that_are_not_artifacts(text, message):
    with pytest.raises(ArtifactError, match=message.replace("(", r"\(")):
        parse_artifact(text, "x.json")


def test_unreadable_and_binary_files(tmp_path):
    with pytest.raises(ArtifactError, match="cannot read"):
        read_artifact(tmp_path / "missing.json")
    binary = tmp_path / "bin.json"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(ArtifactError, match="not UTF-8"):
        read_artifact(binary)


def test_compile_command_writes_a_loadable_artifact(tmp_path):
    target = tmp_path / "out.json"
    result = CliRunner().invoke(cli, ["compile", str(ROOT / "examples" / "code_qa.altl"), "-o", str(target)])
    assert result.exit_code == 0, result.output
    assert result.output.startswith(f"{target}: 3 rules (") and "2 automata" in result.output
    assert read_artifact(target).policy.name == "code_qa"
    result = CliRunner().invoke(cli, ["compile", str(ROOT / "examples" / "code_qa.altl"), "-o", str(target),
                                      "--format", "json"])
    summary = json.loads(result.output)
    assert summary["content_hash"] == read_artifact(target).content_hash


def test_compile_command_errors_exit_2_without_traceback(tmp_path):
    bad = tmp_path / "bad.altl"
    bad.write_text("rule r: eventually serch\n", encoding="utf-8")
    result = CliRunner().invoke(cli, ["compile", str(bad), "-o", str(tmp_path / "x.json")])
    assert result.exit_code == 2
    assert "Traceback" not in result.output
    result = CliRunner().invoke(cli, ["compile", str(ROOT / "examples" / "code_qa.altl"),
                                      "-o", str(tmp_path / "no" / "such" / "dir.json")])
    assert result.exit_code == 2 and "cannot write" in result.output


def test_compile_to_standard_output():
    result = CliRunner().invoke(cli, ["compile", str(ROOT / "examples" / "code_qa.altl"), "-o", "-"])
    assert result.exit_code == 0
    assert parse_artifact(result.stdout).policy.name == "code_qa"
    assert "3 rules" in result.stderr


def test_compile_says_what_the_joint_conflict_search_cannot_settle(tmp_path):
    """Guards whose combinations exceed the compiler's budget, and per-value rules the joint
    search does not read, are named when compiling: the gate reports such conflicts as
    undecided rather than guessing."""
    fields = ", ".join(f"f{i}: int" for i in range(13))
    policy = tmp_path / "wide.altl"
    policy.write_text(f"tool get(id: str) -> {{ {fields} }}\ntool act()\n"
                      + "".join(f"rule w{i}: always (get(result.f{i} == 1) -> eventually act)\n" for i in range(13)),
                      encoding="utf-8")
    done = CliRunner().invoke(cli, ["compile", str(policy), "-o", str(tmp_path / "w.json"), "--format", "json"])
    assert done.exit_code == 0, done.output
    assert "the guards on `get` combine in more ways than the compiler enumerates" in done.output
    summary = json.loads(done.stdout[done.stdout.index("{"):])
    assert summary["not_decided_jointly"]["tools_over_budget"] == ["get"]
    # a per-value rule testing its value against a literal is judged alone (support_desk's
    # per-value rules are all read by the joint search)
    listed = tmp_path / "listed.altl"
    listed.write_text("tool check(order_id: str)\ntool refund(order_id: str)\n"
                      'rule listed: forall o: always (refund(order_id: o) -> once check(order_id: o) or o == "gift")\n',
                      encoding="utf-8")
    done = CliRunner().invoke(cli, ["compile", str(ROOT / "examples" / "support_desk.altl"), "-o",
                                    str(tmp_path / "s.json")])
    assert done.exit_code == 0 and "judged apart (per value)" not in done.output, done.output
    done = CliRunner().invoke(cli, ["compile", str(listed), "-o", str(tmp_path / "l.json")])
    assert done.exit_code == 0, done.output
    assert "`listed` (it tests its value against a literal) is judged apart (per value)" in done.output, done.output
    # ... and so is a rule binding two values together in one call, each with why
    paired = tmp_path / "paired.altl"
    paired.write_text("tool check(order_id: str, amount: int)\ntool refund(order_id: str, amount: int)\n"
                      'rule listed: forall o: always (refund(order_id: o) -> once check(order_id: o) or o == "gift")\n'
                      "rule paired: always (refund(order_id: o, amount: m) -> once check(order_id: o, amount: m))\n",
                      encoding="utf-8")
    done = CliRunner().invoke(cli, ["compile", str(paired), "-o", str(tmp_path / "p.json"), "--format", "json"])
    summary = json.loads(done.stdout[done.stdout.index("{"):])
    assert summary["not_decided_jointly"]["per_value_rules"] == ["listed", "paired"], done.output
    assert summary["not_decided_jointly"]["per_value_reasons"] == [
        "it tests its value against a literal", "it binds two values together in one call"]
    # lint says the same, in its JSON report and as notes
    linted = CliRunner().invoke(cli, ["lint", str(policy), "--format", "json", "--only", "unenforceable-severity"])
    assert json.loads(linted.stdout)[0]["gate_limits"]["tools_over_budget"] == ["get"], linted.output
    linted = CliRunner().invoke(cli, ["lint", str(listed), "--only", "unenforceable-severity"])
    assert "`listed` (it tests its value against a literal) is judged apart (per value)" in linted.stderr, \
        linted.output


@pytest.fixture
def decodes(monkeypatch):
    """Counts, per part, how many times an artifact's parts are decoded (the formula table,
    each automaton) and its signature checked, while the test runs."""
    from collections import Counter

    import policyc.artifact.io as artifact_io
    import policyc.artifact.policy as artifact_policy

    counts: Counter = Counter()
    load_nodes, from_json = artifact_policy.load_nodes, artifact_policy.RuleTable.from_json
    signature_matches = artifact_io.signature_matches

    def nodes(data):
        counts["formulas"] += 1
        return load_nodes(data)

    def table(data, where="rule"):
        counts[where] += 1
        return from_json(data, where)

    def signature(*args):
        counts["signature"] += 1
        return signature_matches(*args)

    monkeypatch.setattr(artifact_policy, "load_nodes", nodes)
    monkeypatch.setattr(artifact_policy.RuleTable, "from_json", staticmethod(table))
    monkeypatch.setattr(artifact_io, "signature_matches", signature)
    return counts


@pytest.mark.parametrize("name", ["code_qa", "support_desk"])
def test_loading_an_artifact_decodes_it_once(name, tmp_path, decodes):
    """Reading an artifact gives its verified compiled policy, which the monitor uses as is:
    `Monitor.load`, the command line's loader (score, replay, report, assure, gateway) and a
    scoring worker decode the formula table and each automaton exactly once, and check a
    signature once."""
    from policyc.artifact.io import parse_verified, read_verified, seal
    from policyc.artifact.models import ArtifactBody
    from policyc.cli.common import load_monitor
    from policyc.corpus.job import ScoringJob

    _, artifact = compiled(name)
    path = tmp_path / "policy.json"
    path.write_text(dump_artifact(artifact), encoding="utf-8")
    once = {"formulas": 1, **{f"automata[{i}].rule": 1 for i in range(len(artifact.automata))}}
    assert len(once) > 1
    for load in (lambda: Monitor.load(path), lambda: load_monitor(str(path)),
                 lambda: ScoringJob(path.read_text(encoding="utf-8")).scorer()):
        decodes.clear()
        load()
        assert dict(decodes) == once
    verified = read_verified(path)
    decodes.clear()
    monitor = Monitor(verified)
    assert dict(decodes) == {} and monitor.compiled is verified.compiled and monitor.artifact is verified.artifact
    # signed: the signature is checked once, when the file is read under the key
    body = ArtifactBody.model_validate({k: v for k, v in artifact.model_dump(mode="json", by_alias=True).items()
                                        if k not in ("content_hash", "signature")})
    path.write_text(dump_artifact(seal(body, key=b"k")), encoding="utf-8")
    decodes.clear()
    Monitor.load(path, key=b"k")
    assert dict(decodes) == {**once, "signature": 1}
    # read without the key, then held to it: the signature is checked, nothing decoded again
    unkeyed = parse_verified(path.read_text(encoding="utf-8"))
    decodes.clear()
    Monitor(unkeyed, key=b"k")
    assert dict(decodes) == {"signature": 1}
    with pytest.raises(ArtifactError, match="not signed with this key"):
        Monitor(unkeyed, key=b"another key")
    # an artifact in memory is checked by the monitor, once
    decodes.clear()
    Monitor(artifact)
    assert dict(decodes) == once
