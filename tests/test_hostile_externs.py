"""Hostile input: a policy, an artifact or a trace never makes policyc run code.

`extern predicate run_it(cmd: str) from "os:system"` once made `policyc score` run a trace's
query as a shell command, and `Monitor.load` imported any module an artifact named. Now the
policy's `from "module:function"` is only a name: checking, linting and compiling import
nothing; the artifact records extern names and parameters only; `score` and `replay` refuse
until the user binds each extern with `--extern NAME=MODULE:FUNCTION`; a `Monitor` gets its
functions from the host program, and refuses to start with one missing.

Each test uses a module that leaves a mark on disk when it is imported, so "imports nothing"
is observed, not assumed.

(That one loaded artifact never changes another's verdicts in the same process is
tests/test_runtime_isolation.py::test_one_artifact_never_changes_another_artifacts_verdicts.)
"""

from __future__ import annotations

import json
import sys

import pytest
from click.testing import CliRunner

from policyc.artifact.build import build_artifact, compile_file
from policyc.artifact.io import write_artifact
from policyc.automata import compile_policy
from policyc.check import check_file
from policyc.cli import cli
from policyc.runtime import ExternBindingError, Monitor
from policyc.scoring import score_trace
from policyc.trace import Trace

POLICY = """\
extern predicate vetted(query: str) from "hostile_mark:vetted"
tool search(query: str) -> list[str]
rule only_vetted_queries: always (search -> search(vetted(query)))
"""
MARKER_MODULE = """\
import pathlib
pathlib.Path(__file__).with_name("imported.mark").write_text("imported")


def vetted(query):
    return query.startswith("ok")
"""
TRACE = {"tool_calls": [{"tool_name": "search", "arguments": {"query": "ok: rm -rf /"}, "tool_result": []}]}


@pytest.fixture
def workspace(tmp_path, monkeypatch):
    """A policy whose extern names a module that marks the disk when imported."""
    (tmp_path / "hostile_mark.py").write_text(MARKER_MODULE)
    (tmp_path / "p.altl").write_text(POLICY)
    (tmp_path / "t.json").write_text(json.dumps(TRACE))
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))  # it *could* be imported: nothing may do it
    yield tmp_path
    sys.modules.pop("hostile_mark", None)


def invoke(*args):
    result = CliRunner().invoke(cli, list(args), env={"NO_COLOR": "1", "COLUMNS": "160"})
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result


def test_check_lint_compile_graph_and_explain_import_nothing(workspace):
    assert invoke("check", "p.altl").exit_code == 0
    assert invoke("lint", "p.altl").exit_code in (0, 1)
    compiled = invoke("compile", "p.altl", "-o", "p.json")
    assert compiled.exit_code == 0 and "the program that loads the artifact binds them" in compiled.stderr
    assert invoke("explain", "p.altl").exit_code == 0
    assert invoke("graph", "p.altl").exit_code == 0
    assert not (workspace / "imported.mark").exists()


def test_the_artifact_names_no_code(workspace):
    artifact = compile_file("p.altl")
    text = (workspace / "a.json")
    write_artifact(artifact, text)
    data = json.loads(text.read_text())
    assert data["externs"] == [{"name": "vetted", "params": [{"name": "query", "type": "str"}]}]
    assert "hostile_mark" not in text.read_text()


@pytest.mark.parametrize("command", ["score", "replay"])
@pytest.mark.parametrize("policy", ["p.altl", "a.json"])
def test_score_and_replay_refuse_unbound_externs_and_say_how_to_bind_them(workspace, command, policy):
    write_artifact(compile_file("p.altl"), workspace / "a.json")
    result = invoke(command, policy, "t.json")
    assert result.exit_code == 2
    assert "policyc runs no code a policy names unless you bind it yourself" in result.stderr
    suggestion = "--extern vetted=hostile_mark:vetted" if policy == "p.altl" else "--extern vetted=MODULE:FUNCTION"
    assert f"help: if you trust it: {suggestion}" in result.stderr
    assert not (workspace / "imported.mark").exists()


@pytest.mark.parametrize("policy", ["p.altl", "a.json"])
def test_an_extern_the_user_binds_is_imported_and_called(workspace, policy):
    write_artifact(compile_file("p.altl"), workspace / "a.json")
    result = invoke("score", policy, "t.json", "--extern", "vetted=hostile_mark:vetted")
    assert result.exit_code == 0, result.output
    assert (workspace / "imported.mark").exists()
    replayed = invoke("replay", policy, "t.json", "--extern", "vetted=hostile_mark:vetted", "--format", "json")
    assert replayed.exit_code == 0 and json.loads(replayed.stdout)["traces"][0]["steps"][0]["action"] == "allow"


@pytest.mark.parametrize("spec, message", [
    ("vetted", "is not of the form NAME=MODULE:FUNCTION"),
    ("vetted=hostile_mark.vetted", "is not of the form NAME=MODULE:FUNCTION"),
    ("veted=hostile_mark:vetted", "the policy has no extern predicate `veted` (it declares `vetted`)"),
    ("vetted=no_such_module_anywhere:f", "`no_such_module_anywhere` cannot be imported (ModuleNotFoundError"),
    ("vetted=hostile_mark:missing", "`hostile_mark` has no function `missing`"),
])
def test_a_bad_binding_on_the_command_line_is_an_input_error(workspace, spec, message):
    result = invoke("score", "p.altl", "t.json", "--extern", spec)
    assert result.exit_code == 2 and message in result.stderr


def test_a_monitor_takes_its_externs_from_the_host_only(workspace):
    artifact = compile_file("p.altl")
    with pytest.raises(ExternBindingError) as missing:
        Monitor(artifact)
    assert str(missing.value) == ("the policy uses extern predicate `vetted(query: str)`, and no function was "
                                  "given for it: an artifact never names code to import")
    assert missing.value.help == 'bind each one: Monitor.load(path, externs={"vetted": function})'
    with pytest.raises(ExternBindingError, match="`vettd` is not an extern predicate of the policy"):
        Monitor(artifact, externs={"vetted": str.isupper, "vettd": str.isupper})
    with pytest.raises(ExternBindingError, match="is a str, not a function"):
        Monitor(artifact, externs={"vetted": "hostile_mark:vetted"})
    monitor = Monitor(artifact, externs={"vetted": lambda q: q.startswith("ok")})
    assert monitor.start().propose("search", {"query": "ok"}).action == "allow"
    assert monitor.start().propose("search", {"query": "rm -rf /"}).action == "warn"
    assert not (workspace / "imported.mark").exists()


def test_the_scorer_never_imports_on_its_own(workspace):
    policy, _ = check_file("p.altl")
    report = score_trace(compile_policy(policy), Trace.of(("search", {"query": "ok"}, [])))
    assert report.constraints[0].error == "extern predicate `vetted` has no Python binding"
    assert not (workspace / "imported.mark").exists()
    bound = score_trace(compile_policy(policy), Trace.of(("search", {"query": "ok"}, [])), externs={"vetted": bool})
    assert bound.compliance_score == 1.0


def test_an_artifact_calling_an_undeclared_extern_is_refused(workspace):
    """A tampered artifact cannot smuggle in an extern the host was never asked to bind."""
    from policyc.artifact.io import seal
    from policyc.artifact.models import ArtifactBody
    from policyc.runtime import ArtifactError

    policy, _ = check_file("p.altl")
    data = build_artifact(policy).model_dump(mode="json", by_alias=True)
    data["externs"] = []
    body = ArtifactBody.model_validate({k: v for k, v in data.items() if k not in ("content_hash", "signature")})
    with pytest.raises(ArtifactError, match="extern predicate `vetted` is called but not declared in `externs`"):
        Monitor(seal(body))
