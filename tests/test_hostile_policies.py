"""Hostile input: policy files written to leak, to stall, or to break the arithmetic.

- `import "/etc/passwd"` printed the file's first line in the error; an import now names an
  `.altl` file, and anything else is refused unread (E0104).
- A chain of modules each importing the next under two rename maps multiplied the work per
  level (depth 16: 45 s); each file is now read once per distinct renaming, and at most
  1,000 module instances are made (E0105).
- `weight 1e400` passed the checker and crashed every later command; two rules of weight
  1e308 scored a violated trace 1.000. Numbers are finite and 64-bit where they are written,
  weights positive and at most 1,000,000, and the artifact and the IR refuse anything else.
- `café` typed with a combining accent was another tool than `café`.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from policyc.automata import compile_policy
from policyc.check import check_file, check_text
from policyc.check.modules import MAX_INSTANCES, load_policy
from policyc.cli import cli
from policyc.diagnostics import render_one
from policyc.ir import build as b
from policyc.ir.policy import Policy, Rule
from policyc.scoring import score_trace
from policyc.trace import Trace


def codes(diagnostics):
    return [d.code for d in diagnostics]


# ------------------------------------------------------------------ imports


@pytest.mark.parametrize("target", ["/etc/passwd", "secrets.txt", "link.altl"])
def test_an_import_of_a_file_that_is_not_a_policy_shows_none_of_it(tmp_path, target):
    (tmp_path / "secrets.txt").write_text("root:x:0:0:root:/root:/bin/bash\nAPI_KEY=hunter2\n")
    (tmp_path / "link.altl").symlink_to(tmp_path / "secrets.txt")  # a policy's name, another file's text
    (tmp_path / "p.altl").write_text(f'import "{target}"\ntool a()\nrule r: called(a)\n')
    result = CliRunner().invoke(cli, ["check", str(tmp_path / "p.altl")])
    assert result.exit_code == 1
    assert f"error[E0104]: `{target}` is not a policy file" in result.output
    assert "root:" not in result.output and "hunter2" not in result.output



@pytest.mark.parametrize("kind", ["folder", "fifo"])
def test_an_import_of_a_folder_or_a_pipe_says_what_it_is(tmp_path, kind):
    """Found by a sweep written from the docs alone: `cannot find shared.altl`, with the help
    "did you mean `shared.altl`?" (the folder itself)."""
    shared = tmp_path / "shared.altl"
    if kind == "folder":
        shared.mkdir()
    else:
        os.mkfifo(shared)
    (tmp_path / "p.altl").write_text('import "shared.altl"\ntool a()\nrule r: called(a)\n')
    result = CliRunner().invoke(cli, ["check", str(tmp_path / "p.altl")])
    assert result.exit_code == 1
    said = "(a folder)" if kind == "folder" else "(not a regular file)"
    assert f"error[E0104]: `shared.altl` is not a policy file {said}" in result.output
    assert "did you mean" not in result.output

def _diamond(folder: Path, depth: int, renames: list[str]) -> Path:
    """l0 imports l1 under each of `renames`, l1 imports l2 so, ...; l{depth} declares the tool."""
    for i in range(depth):
        imports = "".join(f'import "l{i + 1}.altl" rename {{ {r.format(i=i)} }}\n' for r in renames)
        (folder / f"l{i}.altl").write_text(imports + ("rule r: called(x)\n" if i == 0 else ""))
    (folder / f"l{depth}.altl").write_text("tool x(n: int)\n" + "".join(f"tool y{i}()\n" for i in range(depth)))
    return folder / "l0.altl"


def test_a_diamond_of_imports_reads_each_file_once(tmp_path):
    """Two rename maps per level that mean the same renaming: 2^24 import paths, 25 files,
    one instance of each (plus the prelude)."""
    root = _diamond(tmp_path, 24, ["x -> x", "x -> x {{ n -> n }}"])
    graph, diagnostics = load_policy(root)
    assert diagnostics == [] and graph is not None
    files = [inst.path for inst in graph.instances if not inst.is_stdlib]
    assert len(files) == len(set(files)) == 25
    policy, diagnostics = check_file(root)
    assert diagnostics == [] and [r.name for r in policy.rules] == ["r"]


def test_imports_that_expand_without_end_are_refused(tmp_path):
    """Each level renames another tool on one branch: 2^16 genuinely different renamings."""
    root = _diamond(tmp_path, 16, ["y{i} -> y{i}", "y{i} -> z{i}"])
    graph, diagnostics = load_policy(root)
    assert codes(diagnostics) == ["E0105"]
    assert diagnostics[0].message == f"the imports expand to more than {MAX_INSTANCES} modules"
    assert len(graph.instances) <= MAX_INSTANCES + 1


# ------------------------------------------------------------------ numbers and weights


@pytest.mark.parametrize("weight, code, message, caret", [
    ("1e400", "E0001", "number `1e400` is out of range: it is too large to be a finite number", "^^^^^"),
    ("nan", "E0001", "unexpected `nan`, expected `-`, a number or an integer", "^^^"),
    ("0", "E0215", "the weight of `r` must be greater than 0", "^^^^^^^^"),
    ("-2", "E0215", "the weight of `r` must be greater than 0", "^^^^^^^^^"),
    ("1e308", "E0215", "the weight of `r` must be at most 1,000,000", "^^^^^^^^^^^^"),
    ("99999999999999999999", "E0001", "number `99999999999999999999` is out of range: an integer may be at most "
     "9223372036854775807 (64 bits)", "^" * 20),
])
def test_a_weight_that_is_not_finite_positive_and_bounded_is_a_diagnostic_with_its_place(weight, code, message,
                                                                                          caret):
    _, diagnostics = check_text(f"tool a()\nrule r weight {weight}: called(a)\n", "w.altl")
    (d,) = diagnostics
    assert (d.code, d.message, d.span.line) == (code, message, 2)
    rendered = render_one(d)
    assert "--> w.altl:2:" in rendered and caret in rendered and "= help:" in rendered


@pytest.mark.parametrize("literal", ["1e999", "123456789012345678901234567890", "1" * 5000])
def test_number_literals_out_of_range_are_refused_where_written(literal):
    _, diagnostics = check_text(f"tool a(x: int)\nrule r: always (a -> a(x > {literal}))\n", "n.altl")
    assert codes(diagnostics) == ["E0001"] and diagnostics[0].span.column == 28


@pytest.mark.parametrize("command", ["fmt", "compile", "lint", "score"])
def test_every_command_reports_an_infinite_weight_instead_of_crashing(tmp_path, command):
    policy = tmp_path / "w.altl"
    policy.write_text("tool a()\nrule r weight 1e400: called(a)\n")
    args = [command, str(policy)] + (["examples/traces/appendix_b.json"] if command == "score" else [])
    result = CliRunner().invoke(cli, args)
    assert result.exit_code in (1, 2) and "1e400" in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)


def test_weights_are_bounded_in_the_ir_so_a_violated_rule_always_costs():
    with pytest.raises(ValueError, match="a weight is a number greater than 0 and at most 1e\\+06"):
        Rule("r", b.eventually(b.event("a")), 1e308)
    for bad in (float("nan"), float("inf"), 0.0, -1.0):
        with pytest.raises(ValueError):
            Rule("r", b.eventually(b.event("a")), bad)
    rules = (Rule("r", b.eventually(b.event("a")), 1e6), Rule("s", b.eventually(b.event("b")), 1e6))
    report = score_trace(compile_policy(Policy("p", None, {}, rules)), Trace.of(("a", {})))
    assert report.compliance_score == 0.5 and report.compliance_label == "PARTIAL"


# ------------------------------------------------------------------ names


def test_a_name_written_with_a_combining_accent_is_the_same_name():
    composed, decomposed = "caf\u00e9", "cafe\u0301"
    policy, diagnostics = check_text(f"tool `{composed}`(q: str)\nrule r: called(`{decomposed}`)\n", "n.altl")
    assert diagnostics == [] and list(policy.tools) == [composed]
    from policyc.artifact.build import build_artifact
    from policyc.runtime import Monitor

    run = Monitor(build_artifact(policy)).start()
    assert run.propose(decomposed, {"q": "x"}).action == "allow"  # the agent's spelling, the policy's tool
    run.record(decomposed, {"q": "x"})
    assert run.finish().compliance_score == 1.0


# ------------------------------------------------------------------ macros that share pieces


def _doubling(levels: int) -> str:
    lines = ["tool t(n: int)", "tool u(n: int)", "terminal tool f(a: str)", "def a0() := called(t)"]
    lines += [f"def a{k}() := (a{k - 1}() until u(n: {k})) or (once a{k - 1}() and t(n: {k}))"
              for k in range(1, levels + 1)]
    return "\n".join(lines + [f"rule r: a{levels}()", ""])


@pytest.mark.parametrize("command", ["lint", "explain", "report", "graph"])
def test_a_rule_whose_macros_share_pieces_is_read_once_per_piece(tmp_path, command):
    # 40 macros each using the one before twice: 3 KB written, 2^40 operators written out.
    # check, compile and score share the pieces; lint, explain and report walked the rule as
    # written (from 24 levels on, none ended in a minute; found by a sweep written from the
    # docs alone), as did the gate's reading of rules without an automaton. Each piece is now
    # read once, and explain elides the formula past a page
    path = tmp_path / "doubling.altl"
    path.write_text(_doubling(40))
    trace = tmp_path / "t.jsonl"
    trace.write_text('{"id": "a", "tool_calls": [{"tool_name": "t", "arguments": {"n": 1}}]}\n')
    args = {"lint": ["lint", str(path)], "explain": ["explain", str(path)], "graph": ["graph", "--rules", str(path)],
            "report": ["report", str(path), str(trace), "-o", str(tmp_path / "r.html")]}[command]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code in (0, 1), result.output
    if command == "explain":
        assert "…" in result.output and len(result.output) < 20_000
