"""Every example in docs/ and README.md runs.

Conventions for fenced blocks in Markdown (docs/README.md repeats them for writers):
  ```altl                  a complete policy: must check without errors
  ```altl expect=E0208     must report that diagnostic code (a "wrong" example)
  ```python                executed in order, one namespace per file, from the repository root
  ```python requires=M     the same; the file's examples are skipped when module M is not installed
  ```console               each line `$ policyc ...` is run; it must exit 0, unless the line
                           ends with `# exit N`; other lines are expected output, not checked
Other languages (text, json, ...) are not run.
"""

from __future__ import annotations

import linecache
import os
import re
import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner

from policyc.check import check_text
from policyc.cli import cli
from policyc.diagnostics import has_errors, render_text

ROOT = Path(__file__).resolve().parent.parent
DOCS = sorted([ROOT / "README.md", *ROOT.joinpath("docs").rglob("*.md")])
FENCE = re.compile(r"^```([\w-]+)([^\n]*)\n(.*?)^```", re.M | re.S)


def blocks(path: Path):
    text = path.read_text(encoding="utf-8")
    for m in FENCE.finditer(text):
        line = text[: m.start()].count("\n") + 1
        yield m.group(1), m.group(2).strip(), m.group(3), line


#: commands that read BFCL's whole data, start worker processes or a cluster: slow examples
SLOW_COMMANDS = re.compile(r"policyc conformance bfcl|--jobs|--engine ray")


def cases(lang: str):
    out = []
    for path in DOCS:
        for kind, info, body, line in blocks(path):
            if kind == lang:
                slow = lang == "console" and SLOW_COMMANDS.search(body)
                out.append(pytest.param(path, info, body, id=f"{path.relative_to(ROOT)}:{line}",
                                        marks=[pytest.mark.slow] if slow else []))
    return out


@pytest.mark.parametrize("path,info,body", cases("altl"))
def test_altl_example(path, info, body, tmp_path, monkeypatch):
    monkeypatch.chdir(path.parent)
    _, diagnostics = check_text(body, f"{path.name}-example.altl")
    expect = re.search(r"expect=(\w+)", info)
    if expect:
        codes = {d.code for d in diagnostics}
        assert expect.group(1) in codes, render_text(diagnostics) or "no diagnostics"
    else:
        assert not has_errors(diagnostics), render_text(diagnostics)


def _python_files():
    """Each file with Python examples; those that drive a framework (`requires=`) are slow."""
    files = sorted({path for path in DOCS for kind, *_ in blocks(path) if kind == "python"})
    return [pytest.param(path, id=str(path.relative_to(ROOT)), marks=[pytest.mark.slow] if any(
        kind == "python" and "requires=" in info for kind, info, *_ in blocks(path)) else []) for path in files]


@pytest.mark.parametrize("path", _python_files())
def test_python_examples(path, monkeypatch):
    monkeypatch.chdir(ROOT)
    for kind, info, _body, _line in blocks(path):
        if kind == "python" and (needed := re.search(r"requires=([\w.]+)", info)):
            pytest.importorskip(needed.group(1), reason=f"{path.name} needs {needed.group(1)}")
    namespace: dict = {"__name__": "__docs__"}
    for kind, _info, body, line in blocks(path):
        if kind == "python":
            name = f"{path.name}:{line}"
            linecache.cache[name] = (len(body), None, body.splitlines(True), name)  # inspect.getsource works
            code = compile(body, name, "exec")
            exec(code, namespace)  # noqa: S102 - the docs' own examples


#: guides whose every section must run alone: a reader copies the section of their framework
STANDALONE_SECTIONS = [ROOT / "docs" / "integrations.md"]


def _sections():
    out = []
    for path in STANDALONE_SECTIONS:
        text = path.read_text(encoding="utf-8")
        for head in re.finditer(r"^## (.+)$", text, re.M):
            end = text.find("\n## ", head.end())
            body = text[head.start(): end if end >= 0 else len(text)]
            found = [(info, code) for kind, info, code in ((m.group(1), m.group(2), m.group(3))
                                                          for m in FENCE.finditer(body)) if kind == "python"]
            if found:
                slow = any("requires=" in info for info, _ in found)
                out.append(pytest.param(path, found, id=f"{path.name}: {head.group(1)}",
                                        marks=[pytest.mark.slow] if slow else []))
    return out


@pytest.mark.parametrize("path,found", _sections())
def test_each_section_of_a_guide_runs_alone(path, found, monkeypatch):
    """Each section's Python examples run in a namespace of their own: nothing is borrowed
    from an earlier section (a NameError here is a section that does not stand alone)."""
    monkeypatch.chdir(ROOT)
    for info, _ in found:
        if needed := re.search(r"requires=([\w.]+)", info):
            pytest.importorskip(needed.group(1), reason=f"the section needs {needed.group(1)}")
    namespace: dict = {"__name__": "__docs__"}
    for i, (_, body) in enumerate(found):
        name = f"{path.name}:section-block-{i}"
        linecache.cache[name] = (len(body), None, body.splitlines(True), name)
        exec(compile(body, name, "exec"), namespace)  # noqa: S102 - the docs' own examples


@pytest.mark.parametrize("path,info,body", cases("console"))
def test_console_example(path, info, body, monkeypatch):
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("NO_COLOR", "1")
    runner = CliRunner()
    for raw in body.splitlines():
        if not raw.startswith("$ policyc"):
            continue
        command, _, comment = raw[2:].partition("#")
        expected = int(m.group(1)) if (m := re.search(r"exit (\d+)", comment)) else 0
        args = shlex.split(command)[1:]
        result = runner.invoke(cli, args, catch_exceptions=False, env={"COLUMNS": "100", **os.environ})
        assert result.exit_code == expected, f"`{command.strip()}` exited {result.exit_code}:\n{result.output}"


# ------------------------------------------------------------------ links between the pages

LINK = re.compile(r"\]\(([^)\s#]*\.md)?#([^)\s]+)\)")


def _anchors(markdown: str) -> set[str]:
    """The anchors GitHub gives a page's headings (code blocks left out)."""
    out: set[str] = set()
    in_fence = False
    for line in markdown.splitlines():
        in_fence ^= line.startswith("```")
        m = None if in_fence else re.match(r"#{1,6} (.*)", line)
        if m:
            out.add(re.sub(r"[^\w\- ]", "", m.group(1).strip().lower()).replace(" ", "-"))
    return out


@pytest.mark.parametrize("path", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_link_to_a_heading_finds_it(path):
    text = path.read_text(encoding="utf-8")
    broken = []
    for m in LINK.finditer(text):
        target = (path.parent / m.group(1)).resolve() if m.group(1) else path
        if target.suffix == ".md" and target.exists() and m.group(2) not in _anchors(target.read_text(encoding="utf-8")):
            broken.append(f"{m.group(1) or path.name}#{m.group(2)}")
    assert not broken, f"links to headings that do not exist: {broken}"
