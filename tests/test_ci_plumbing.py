"""What a CI job needs: folders as arguments, defaults from `[tool.policyc]` in
pyproject.toml, GitHub annotations, SARIF that carries the checker's errors, help links that
lead to a heading of the docs, and pre-commit hooks that run."""

from __future__ import annotations

import json
import re
import shlex
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from policyc.check import check_file
from policyc.cli import cli
from policyc.diagnostics import Diagnostic, Severity, Source, render_github
from policyc.lint.findings import KINDS
from policyc.lint.sarif import help_link

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
SCHEMA = json.loads((FIXTURES / "lint" / "sarif-schema-2.1.0.json").read_text())


def run(*args, **kwargs):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False, **kwargs)


# ------------------------------------------------------------------ folders


@pytest.fixture()
def tree(tmp_path):
    (tmp_path / "policies" / "more").mkdir(parents=True)
    (tmp_path / "policies" / ".hidden").mkdir()
    shutil.copy(ROOT / "examples" / "code_qa.altl", tmp_path / "policies")
    shutil.copy(FIXTURES / "lint" / "dead_tool.altl", tmp_path / "policies" / "more")
    (tmp_path / "policies" / ".hidden" / "broken.altl").write_text("rule", encoding="utf-8")
    (tmp_path / "policies" / "notes.txt").write_text("not a policy", encoding="utf-8")
    return tmp_path


def test_a_folder_stands_for_every_policy_below_it(tree, monkeypatch):
    monkeypatch.chdir(tree)
    out = run("check", "policies")
    assert out.exit_code == 0
    assert out.output == ("policies/code_qa.altl: ok (3 rules, 5 tools)\n"
                          "policies/more/dead_tool.altl: ok (2 rules, 3 tools)\n")
    out = run("fmt", "--check", "policies")
    assert out.exit_code == 1 and out.output == "policies/more/dead_tool.altl: not formatted\n"
    assert run("lint", "--deny", "warnings", "policies").exit_code == 1  # dead_tool's warning
    out = run("compile", "policies", "-o", "artifacts")
    assert out.exit_code == 0
    assert sorted(p.name for p in (tree / "artifacts").iterdir()) == ["code_qa.policy.json", "dead_tool.policy.json"]
    assert run("compile", "policies", "-o", "-").exit_code == 2


def test_a_folder_without_policies_is_an_input_error(tmp_path):
    for command in ("check", "lint", "fmt", "compile"):
        out = run(command, str(tmp_path))
        assert out.exit_code == 2 and f"no `.altl` file under `{tmp_path}`" in out.output


def test_compile_refuses_two_artifacts_of_one_name(tmp_path):
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
        shutil.copy(ROOT / "examples" / "code_qa.altl", tmp_path / folder)
    out = run("compile", str(tmp_path), "-o", str(tmp_path / "out"))
    assert out.exit_code == 2 and "would both be written to `code_qa.policy.json`" in out.output


# ------------------------------------------------------------------ [tool.policyc]


def configure(tree: Path, text: str) -> None:
    (tree / "pyproject.toml").write_text(text, encoding="utf-8")


def test_paths_and_options_come_from_pyproject(tree, monkeypatch):
    configure(tree, '[tool.policyc]\npaths = ["policies"]\n\n[tool.policyc.lint]\ndeny = "warnings"\n'
                    'format = "github"\n')
    monkeypatch.chdir(tree / "policies" / "more")  # found from a subfolder; paths stay relative to the file
    out = run("lint")
    assert out.exit_code == 1
    assert out.output.startswith("::warning file=../more/dead_tool.altl,line=9,col=1,")
    assert run("lint", "--deny", "errors", "--format", "text", "dead_tool.altl").exit_code == 0  # the command line wins
    out = run("check")
    assert out.exit_code == 0 and "../code_qa.altl: ok" in out.output


def test_the_documented_section_is_valid(tree, monkeypatch):
    text = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    (section,) = [b for b in re.findall(r"```toml\n(.*?)```", text, re.S) if "[tool.policyc]" in b]
    configure(tree, section)
    monkeypatch.chdir(tree)
    out = run("check")
    assert out.exit_code == 0 and out.output == ""  # format = "github": nothing to annotate ("ok" is text's)


@pytest.mark.parametrize("text,message", [
    ("[tool.policyc.lint]\ndney = 1\n", "[tool.policyc.lint] has no option `dney` (did you mean `deny`?)"),
    ("[tool.policyc.lint]\nbound = \"x\"\n", "[tool.policyc.lint] bound: 'x' is not a valid integer range"),
    ("[tool.policyc.lint]\nbound = 99\n", "[tool.policyc.lint] bound: 99 is not in the range"),
    ("[tool.policyc.lnt]\nbound = 3\n", "[tool.policyc] has no command or key `lnt` (did you mean `lint`?)"),
    ("[tool.policyc]\npaths = \"policies\"\n", "paths must be a non-empty list of strings"),
    ("[tool.policyc.lint\n", "is not valid TOML"),
    # found by a sweep written from the docs alone: each was exit 3, or taken silently
    ("tool = 3\n", "[tool] must be a table"),
    ("[[tool]]\npolicyc = 1\n", "[tool] must be a table"),
    ("[tool.policyc.lint]\nprogress = 1\n", "[tool.policyc.lint] progress: an integer (1) is not true or false"),
    ("[tool.policyc.lint]\njobs = 1e400\n", "[tool.policyc.lint] jobs: 'inf' is not a valid integer range"),
    ("[tool.policyc.lint]\nrlimit = 1979-05-27T07:32:00Z\n", "rlimit: a date or time (datetime.datetime(1979"),
    ("[tool.policyc.lint]\nbound = 1" + "0" * 5000 + "\n", "cannot be read: it holds an integer of thousands of digits"),
    ("[tool.policyc.lint]\nbound = 2.9\n", "[tool.policyc.lint] bound: '2.9' is not a valid integer range"),
    ("[tool.policyc.lint]\njobs = true\n", "[tool.policyc.lint] jobs: 'true' is not a valid integer range"),
    ("[tool.policyc.lint]\nallow = [\"bogus\"]\n", "[tool.policyc.lint] allow: no finding is called `bogus`"),
    ("[tool.policyc.lint]\nonly = [[\"x\"]]\n", "[tool.policyc.lint] only: a list (['x']) is not a value an option takes"),
])
def test_a_bad_section_is_an_input_error_naming_file_and_key(tree, monkeypatch, text, message):
    configure(tree, text)
    monkeypatch.chdir(tree)
    out = run("lint", "policies")
    assert out.exit_code == 2
    assert message in out.output and "pyproject.toml" in out.output



def test_the_command_line_wins_over_an_option_of_the_file_it_cannot_be_used_with(tree, monkeypatch):
    """`write = true` in the file and `fmt --check` on the command line (a pre-commit hook):
    the command line's option wins, as docs/cli.md says, instead of "cannot be used together"."""
    monkeypatch.chdir(tree)
    configure(tree, "[tool.policyc.fmt]\nwrite = true\n")
    before = (tree / "policies" / "more" / "dead_tool.altl").read_text()
    out = run("fmt", "--check", "policies")
    assert out.exit_code == 1 and out.output == "policies/more/dead_tool.altl: not formatted\n"
    assert (tree / "policies" / "more" / "dead_tool.altl").read_text() == before
    configure(tree, "[tool.policyc.fmt]\ncheck = true\n")
    assert run("fmt", "--write", "policies").exit_code == 0
    assert run("fmt", "--check", "policies").exit_code == 0
    configure(tree, "[tool.policyc.graph]\nrules = true\n")
    out = run("graph", "policies/code_qa.altl", "--rule", "search_first")
    assert out.exit_code == 0 and out.output.startswith("digraph")
    out = run("fmt", "--check", "--write", "policies")  # both on the command line: still refused
    assert out.exit_code == 2 and "cannot be used together" in out.output

def test_the_repository_dogfoods_its_section(monkeypatch):
    monkeypatch.chdir(ROOT)
    out = run("test", "-q")
    assert out.exit_code == 0 and out.output.splitlines()[0].startswith("examples/")


# ------------------------------------------------------------------ GitHub annotations


def test_github_annotations_escape_what_the_workflow_syntax_reserves():
    src = Source("dir,with:odd.altl", "rule r: a\n")
    d = Diagnostic("W0207", "100% unused,\nreally", src.span(5, 6), severity=Severity.WARNING, notes=("a note",))
    assert render_github([d]) == ("::warning file=dir%2Cwith%3Aodd.altl,line=1,col=6,endLine=1,endColumn=7,"
                                  "title=W0207::100%25 unused,%0Areally%0Anote: a note\n")
    assert render_github([Diagnostic("E0002", "cannot read `x`")]) == "::error title=E0002::cannot read `x`\n"


def test_check_and_lint_print_annotations():
    bad = "tests/fixtures/check/e0201_unknown_tool_bad.altl"
    out = run("check", bad, "--format", "github")
    assert out.exit_code == 1
    assert out.output.splitlines()[0] == (
        f"::error file={bad},line=14,col=16,endLine=14,endColumn=21,title=E0201::unknown tool `serch`"
        "%0Ahelp: did you mean `search`?")
    out = run("lint", "tests/fixtures/lint/dead_tool.altl", "--format", "github")
    assert out.exit_code == 0
    assert out.output.startswith("::warning file=tests/fixtures/lint/dead_tool.altl,line=9,col=1,endLine=9,"
                                 "endColumn=35,title=L0005::tool `delete_file` can never be called")
    out = run("lint", bad, "--format", "github")
    assert out.exit_code == 2 and out.stdout.startswith("::error file=")


# ------------------------------------------------------------------ SARIF


def test_sarif_of_a_policy_that_does_not_check_carries_its_errors():
    import jsonschema

    bad = "tests/fixtures/check/e0201_unknown_tool_bad.altl"
    out = run("lint", bad, "--format", "sarif")
    assert out.exit_code == 2
    log = json.loads(out.stdout)
    jsonschema.validate(log, SCHEMA)
    sarif_run = log["runs"][0]
    results = sarif_run["results"]
    assert [r["ruleId"] for r in results] == ["E0201", "E0201"]
    assert results[0]["level"] == "error"
    assert results[0]["message"]["text"] == "unknown tool `serch` (did you mean `search`?)"
    assert results[0]["locations"][0]["physicalLocation"] == {
        "artifactLocation": {"uri": bad},
        "region": {"startLine": 14, "startColumn": 16, "endLine": 14, "endColumn": 21}}
    rule = sarif_run["tool"]["driver"]["rules"][results[0]["ruleIndex"]]
    assert rule["id"] == "E0201" and "docs/diagnostics.md#e0201" in rule["help"]["markdown"]
    checked = json.loads(run("check", bad, "--format", "sarif").stdout)
    jsonschema.validate(checked, SCHEMA)
    assert checked["runs"][0]["results"] == results


# ------------------------------------------------------------------ help links


def github_anchors(markdown: str) -> set[str]:
    """The anchors GitHub gives the headings of a Markdown page."""
    anchors: set[str] = set()
    in_fence = False
    for line in markdown.splitlines():
        if line.startswith("```"):
            in_fence = not in_fence
        m = re.match(r"#{1,6} (.*)", line)
        if m and not in_fence:
            slug = re.sub(r"[^\w\- ]", "", m.group(1).strip().lower()).replace(" ", "-")
            anchors.add(slug)
    return anchors


def every_code() -> set[str]:
    codes = set(KINDS)
    for path in (FIXTURES / "check").glob("*_bad.altl"):
        codes |= {d.code for d in check_file(path)[1]}
    return codes


def test_every_help_link_leads_to_a_heading_of_the_docs():
    codes = every_code()
    assert len(codes) > 35 and {"E0201", "W0207", "L0008"} <= codes
    for code in sorted(codes):
        page, anchor = help_link(code).split("#")
        assert (ROOT / page).is_file(), code
        assert anchor in github_anchors((ROOT / page).read_text(encoding="utf-8")), help_link(code)


def test_every_link_in_a_sarif_log_is_a_help_link():
    log = json.loads(run("lint", "tests/fixtures/lint/conflict_cycle.altl", "--format", "sarif").stdout)
    text = json.dumps(log)
    assert "https://policyc" not in text and "helpUri" not in text
    for rule in log["runs"][0]["tool"]["driver"]["rules"]:
        assert f"[{help_link(rule['id'])}]({help_link(rule['id'])})" in rule["help"]["markdown"]


# ------------------------------------------------------------------ pre-commit


def test_pre_commit_hooks_run(tmp_path, monkeypatch):
    yaml = pytest.importorskip("yaml")
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    assert len({h["id"] for h in hooks}) == len(hooks)
    shutil.copy(ROOT / "examples" / "code_qa.altl", tmp_path)
    shutil.copy(ROOT / "examples" / "code_qa.tests.toml", tmp_path)
    shutil.copytree(ROOT / "examples" / "traces", tmp_path / "traces")
    configure(tmp_path, '[tool.policyc]\npaths = ["."]\n')
    monkeypatch.chdir(tmp_path)
    for hook in hooks:
        assert hook["language"] == "python" and re.search(hook["files"], "policies/code_qa.altl")
        program, *args = shlex.split(hook["entry"])
        assert program == "policyc"
        files = [] if hook.get("pass_filenames") is False else ["code_qa.altl"]
        out = run(*args, *files)
        assert out.exit_code == 0, (hook["id"], out.output)
    # the check hook on a file that is not formatted fails and shows what formatting would change
    (tmp_path / "code_qa.altl").write_text((ROOT / "examples" / "code_qa.altl").read_text().replace(
        'rule reads_a_file "read at least one file" layer', 'rule reads_a_file   "read at least one file" layer'))
    [check] = [h for h in hooks if h["id"] == "policyc-fmt-check"]
    out = run(*shlex.split(check["entry"])[1:], "code_qa.altl")
    assert out.exit_code == 1 and "code_qa.altl: not formatted" in out.output
    assert ('-rule reads_a_file   "read at least one file" layer L5 weight 3:\n'
            '+rule reads_a_file "read at least one file" layer L5 weight 3:') in out.output
