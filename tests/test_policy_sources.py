"""A policy source or an artifact, wherever a gate is loaded: `Monitor.load` and every adapter.

A source (`.altl`) is compiled in memory, and a `PolicySourceWarning` says so once; an
artifact is verified as always. With a signing key configured (the argument, or
POLICYC_ARTIFACT_KEY), a source is refused: only an artifact signed with the key loads.
"""

from __future__ import annotations

import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from policyc.artifact.build import compile_file
from policyc.artifact.io import ENV_KEY, dump_artifact
from policyc.runtime import ArtifactError, Monitor, PolicySourceWarning

EXAMPLE = Path("examples/code_qa.altl")


def compiled_warnings(load) -> tuple[object, list]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        loaded = load()
    return loaded, [w for w in caught if issubclass(w.category, PolicySourceWarning)]


def test_monitor_load_compiles_a_source_and_says_so_once(tmp_path, monkeypatch):
    monkeypatch.delenv(ENV_KEY, raising=False)
    monitor, said = compiled_warnings(lambda: Monitor.load(EXAMPLE))
    assert len(said) == 1 and "compiled the policy source `examples/code_qa.altl` in memory" in str(said[0].message)
    assert said[0].filename == __file__  # it points at the caller's line
    artifact = tmp_path / "code_qa.policy.json"
    artifact.write_text(dump_artifact(compile_file(EXAMPLE)))
    loaded, said = compiled_warnings(lambda: Monitor.load(artifact))
    assert said == [] and loaded.content_hash == monitor.content_hash
    # a source without the `.altl` suffix is known by its text
    other = tmp_path / "policy.txt"
    other.write_text(EXAMPLE.read_text())
    assert compiled_warnings(lambda: Monitor.load(other))[0].rule_classes == monitor.rule_classes


def test_a_source_with_errors_raises_its_diagnostics():
    from policyc.artifact.build import PolicyError

    with pytest.raises(PolicyError) as raised:
        Monitor.load("tests/fixtures/check/e0201_unknown_tool_bad.altl")
    assert raised.value.diagnostics[0].code == "E0201"



@pytest.mark.parametrize("damage", ["array", "utf16", "first_byte", "bom_array"])
def test_a_damaged_artifact_is_an_artifact_error_not_read_as_a_policy(tmp_path, damage):
    """Found by a sweep written from the docs alone: an artifact wrapped in a JSON array or
    re-encoded was read as a policy source, and `Monitor.load` raised the parser's E0001/E0002."""
    text = dump_artifact(compile_file(EXAMPLE))
    data = {"array": ("[" + text + "]").encode(), "utf16": text.encode("utf-16"),
            "first_byte": b"\xff" + text.encode()[1:], "bom_array": b"\xef\xbb\xbf[" + text.encode() + b"]"}[damage]
    for name in ("damaged.json", "damaged"):  # by its name, and by its bytes
        path = tmp_path / name
        path.write_bytes(data)
        with pytest.raises(ArtifactError, match="is not a policyc monitor artifact|is not JSON"):
            compiled_warnings(lambda p=path: Monitor.load(p))
    named = tmp_path / "policy"  # a source with a byte-order mark, without a suffix, is still one
    named.write_bytes(b"\xef\xbb\xbf" + EXAMPLE.read_bytes())
    assert compiled_warnings(lambda: Monitor.load(named))[1]

def test_with_a_key_configured_a_source_is_refused_not_compiled(tmp_path, monkeypatch):
    with pytest.raises(ArtifactError, match="is a policy source, and a signing key is configured"):
        Monitor.load(EXAMPLE, key=b"deployment key")
    monkeypatch.setenv(ENV_KEY, "deployment key")
    with pytest.raises(ArtifactError, match="only an artifact signed with that key loads"):
        Monitor.load(EXAMPLE)
    from policyc.integrations.gating import load_policy

    with pytest.raises(ArtifactError):
        load_policy(str(EXAMPLE))
    key = tmp_path / "key"
    key.write_text("deployment key\n")
    argv = [sys.executable, "-m", "policyc", "replay", str(EXAMPLE), "docs/examples/code_qa_early_answer.json",
            "--key-file", str(key)]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=120, env={"PATH": "/usr/bin:/bin"})
    assert done.returncode == 2 and "a signing key is configured" in done.stderr and "Traceback" not in done.stderr


def test_every_adapter_takes_a_source_path(monkeypatch):
    monkeypatch.delenv(ENV_KEY, raising=False)
    policy = "tests/fixtures/integrations/support.altl"
    sys.path.insert(0, "tests/fixtures/integrations")
    import support_tools

    if __import__("importlib").util.find_spec("langgraph"):
        from langchain_core.tools import tool

        from policyc.integrations.langgraph import PolicyGate

        gate, said = compiled_warnings(lambda: PolicyGate(policy, tools=[tool(f) for f in support_tools.TOOLS]))
        assert len(said) == 1 and gate.monitor.name == "support"
    if __import__("importlib").util.find_spec("agents"):
        from policyc.integrations.openai_agents import PolicyGuard

        guard, said = compiled_warnings(lambda: PolicyGuard(Path(policy)))
        assert len(said) == 1 and guard.monitor.name == "support"
    if __import__("importlib").util.find_spec("smolagents"):
        from smolagents import tool as smol_tool

        from policyc.integrations.smolagents import GatedAgent, ScriptedModel

        agent, said = compiled_warnings(lambda: GatedAgent(
            tools=[smol_tool(f) for f in support_tools.TOOLS[:-1]], model=ScriptedModel([]), policy=policy,
            verbosity_level=-1))
        assert len(said) == 1 and agent.policy_monitor.name == "support"
