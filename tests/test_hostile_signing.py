"""Hostile input, second round: signature downgrades and forged snapshots under a key.

- With a signing key configured, `score`, `replay` and `gateway` accepted an unsigned policy
  source in place of the artifact whenever the file name did not end in `.json` (the source
  was compiled in memory, silently), while `Monitor.load` refused the same file. With a key
  (`--key-file` or POLICYC_ARTIFACT_KEY) every entry point now loads only an artifact signed
  with it: no compiling from source, whatever the file is called.
- A `Monitor` made from an artifact in memory checks the signature too, so an adapter given
  a monitor is held to the key as one given a path is.
- Snapshots of a monitor with a key are signed with it, and only signed ones restore: a
  snapshot edited outside the process (an override, a mode, a call) is refused.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest
from click.testing import CliRunner

from policyc.artifact.build import compile_file
from policyc.artifact.errors import ArtifactError
from policyc.artifact.io import dump_artifact, read_artifact, seal
from policyc.artifact.models import ArtifactBody
from policyc.cli import cli
from policyc.runtime import Monitor, RunError

KEY = "deployment secret"
TRACES = "examples/traces/code_qa.jsonl"


@pytest.fixture
def files(tmp_path):
    (tmp_path / "key").write_text(KEY + "\n")
    done = CliRunner().invoke(cli, ["compile", "examples/code_qa.altl", "-o", str(tmp_path / "signed.json"),
                                    "--sign-key-file", str(tmp_path / "key")])
    assert done.exit_code == 0, done.output
    (tmp_path / "unsigned.json").write_text(dump_artifact(compile_file("examples/code_qa.altl")))
    for name in ("policy", "policy.txt", "policy.altl", "policy.policy"):
        shutil.copy("examples/code_qa.altl", tmp_path / name)
    return tmp_path


def _commands(path, tmp_path):
    return [["score", path, TRACES], ["replay", path, TRACES], ["report", path, TRACES, "-o", str(tmp_path / "r.html")],
            ["assure", path, TRACES]]


@pytest.mark.parametrize("name", ["policy", "policy.txt", "policy.altl", "policy.policy"])
@pytest.mark.parametrize("how", ["env", "flag"])
def test_with_a_key_no_command_compiles_a_policy_source_in_place_of_the_artifact(files, name, how):
    env = {"POLICYC_ARTIFACT_KEY": KEY} if how == "env" else {}
    flag = [] if how == "env" else ["--key-file", str(files / "key")]
    for argv in _commands(str(files / name), files):
        done = CliRunner().invoke(cli, argv + flag, env=env)
        assert done.exit_code == 2, (argv, done.output)
        assert "is not a signed artifact, and a signing key is configured" in done.stderr
        assert "Traceback" not in done.output


def test_with_a_key_the_signed_artifact_is_read_whatever_its_name(files):
    shutil.copy(files / "signed.json", files / "signed.artifact")
    for argv in _commands(str(files / "signed.artifact"), files):
        done = CliRunner().invoke(cli, argv, env={"POLICYC_ARTIFACT_KEY": KEY})
        assert done.exit_code in (0, 1), (argv, done.output)
    done = CliRunner().invoke(cli, ["score", str(files / "unsigned.json"), TRACES], env={"POLICYC_ARTIFACT_KEY": KEY})
    assert done.exit_code == 2 and "is not signed, and a key was given to verify it" in done.stderr


def test_without_a_key_sources_still_compile(files):
    done = CliRunner().invoke(cli, ["score", str(files / "policy"), TRACES], env={"POLICYC_ARTIFACT_KEY": ""})
    assert done.exit_code in (0, 1), done.output


def test_the_gateway_refuses_a_source_under_a_key_before_starting_the_server(files):
    marker = files / "server-started"
    server = [sys.executable, "-c", f"open({str(marker)!r}, 'w').close()"]
    argv = [sys.executable, "-m", "policyc", "gateway", str(files / "policy"), "--", *server]
    done = subprocess.run(argv, input="", capture_output=True, text=True, timeout=120,
                          env={**_environ(), "POLICYC_ARTIFACT_KEY": KEY})
    assert done.returncode == 2 and "is not a signed artifact, and a signing key is configured" in done.stderr
    assert not marker.exists()


def _environ():
    import os

    return dict(os.environ)


def test_a_monitor_in_memory_is_held_to_the_key(files, monkeypatch):
    unsigned = compile_file("examples/code_qa.altl")
    with pytest.raises(ArtifactError, match="is not signed, and a key was given"):
        Monitor(unsigned, key=KEY)
    monkeypatch.setenv("POLICYC_ARTIFACT_KEY", KEY)
    with pytest.raises(ArtifactError, match="is not signed, and a key was given"):
        Monitor(unsigned)
    signed = read_artifact(files / "signed.json", KEY.encode())
    assert Monitor(signed).key == KEY.encode()
    body = ArtifactBody.model_validate({k: v for k, v in signed.model_dump(mode="json", by_alias=True).items()
                                        if k not in ("content_hash", "signature")})
    with pytest.raises(ArtifactError, match="not signed with this key"):
        Monitor(seal(body, key=b"another key"))
    with pytest.raises(ArtifactError):  # a source is not an artifact, whatever an adapter is given
        Monitor.load(files / "policy")


def test_adapters_given_a_path_load_only_signed_artifacts(files, monkeypatch):
    monkeypatch.setenv("POLICYC_ARTIFACT_KEY", KEY)
    adapters = []
    for module, name in (("policyc.integrations.openai_agents", "PolicyGuard"),
                         ("policyc.integrations.langgraph", "PolicyGate")):
        try:
            adapters.append(getattr(__import__(module, fromlist=[name]), name))
        except ImportError:
            continue
    if not adapters:
        pytest.skip("neither openai-agents nor langgraph is installed")
    for adapter in adapters:
        for path in ("unsigned.json", "policy", "policy.altl"):
            with pytest.raises(ArtifactError):
                adapter(str(files / path))
        assert adapter(str(files / "signed.json")).monitor.key == KEY.encode()


# ------------------------------------------------------------------ snapshots


def _refused_run(monitor):
    run = monitor.start()
    assert run.propose("final_answer", {"answer": "x"}).action == "block"
    return run


def test_snapshots_are_signed_and_only_signed_ones_restore(files):
    monitor = Monitor.load(files / "signed.json", key=KEY)
    state = json.loads(json.dumps(_refused_run(monitor).snapshot()))
    assert state["signature"].startswith("hmac-sha256:")
    assert monitor.restore(json.loads(json.dumps(state))).propose("final_answer", {"answer": "x"}).override
    for edit, message in [
        (lambda s: s.pop("signature"), "the snapshot is not signed, and the monitor has a key"),
        (lambda s: s.update(mode="tolerate"), "not signed with the monitor's key"),
        (lambda s: s["calls"].append({"tool": "search", "args": {"query": "q"}}), "not signed with the monitor's key"),
        (lambda s: s.update(signature="hmac-sha256:" + "0" * 64), "not signed with the monitor's key"),
        (lambda s: s.update(signature=7), "not signed with the monitor's key"),
    ]:
        edited = json.loads(json.dumps(state))
        edit(edited)
        with pytest.raises(RunError, match=message):
            monitor.restore(edited)
    other = Monitor.load(files / "signed.json", key=KEY)
    other.key = b"another key"
    with pytest.raises(RunError, match="not signed with the monitor's key"):
        other.restore(state)


def test_an_unsigned_snapshot_does_not_restore_under_a_key(files):
    unkeyed = Monitor(read_artifact(files / "signed.json"))
    state = _refused_run(unkeyed).snapshot()
    assert "signature" not in state
    with pytest.raises(RunError, match="not signed"):
        Monitor.load(files / "signed.json", key=KEY).restore(state)
