"""`policyc infer-tools`: tool declarations inferred from recorded traces.

The example of docs/cli.md is pinned; every call of the traces conforms to the declarations
inferred from them (checked by the scorer's own conformance check, over generated traces);
the declarations check; optionality, mixed types, formats and bad input as documented.
"""

from __future__ import annotations

import pytest
import json
import os
import re
from pathlib import Path

from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from policyc.check import check_text
from policyc.cli import cli
from policyc.diagnostics import has_errors, render_text
from policyc.toolschema.infer import infer_tools
from policyc.toolschema.render import render_declarations
from policyc.trace import Trace, check_trace

ROOT = Path(__file__).resolve().parent.parent
NIGHTLY = bool(os.environ.get("POLICYC_NIGHTLY"))


def invoke(*args):
    return CliRunner().invoke(cli, ["infer-tools", *map(str, args)], env={"NO_COLOR": "1"})


def checks(declarations: str, rules: str = "") -> dict:
    policy, diagnostics = check_text(declarations + "\n" + rules, "inferred.altl")
    assert not has_errors(diagnostics), render_text(diagnostics)
    return policy.tools


def test_the_documented_example():
    """docs/cli.md shows the command and what it writes: they agree, and the output checks."""
    text = (ROOT / "docs" / "cli.md").read_text()
    section = text[text.index("## policyc infer-tools"):text.index("## policyc gateway")]
    shown = re.search(r"```text\n(.*?)```", section, re.S).group(1)
    result = invoke("examples/traces/code_qa.jsonl", "--terminal", "final_answer")
    assert result.exit_code == 0, result.output
    assert result.stdout == shown
    tools = checks(result.stdout, "rule search_first: before(search, final_answer)\n")
    assert tools["final_answer"].terminal and str(tools["read_file"].result) == "dict[str, str]"


def test_optional_arguments_nulls_records_and_mixed_types(tmp_path):
    runs = [{"tool_calls": [
        {"tool_name": "lookup", "arguments": {"id": "o1", "page": 1}, "tool_result": {"total": 2, "items": [1]}},
        {"tool_name": "lookup", "arguments": {"id": "o2", "page": None}, "tool_result": {"total": 2.5, "items": [],
                                                                                           "next": "c"}},
        {"tool_name": "note", "arguments": {"text": "a"}, "tool_result": "ok"},
        {"tool_name": "note", "arguments": {"text": 3}, "tool_result": "ok", "error": True}]},
        {"tool_calls": [{"tool_name": "lookup", "arguments": {"id": "o3"}}]}]
    path = tmp_path / "runs.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in runs) + "\n")
    result = invoke(path)
    assert result.exit_code == 1, result.output  # one place is `any`, and says so
    assert ("# seen in 3 calls of 2 traces, 2 with a result\n"
            "tool lookup(id: str, page: int?) -> { total: float, items: list[int], next: str? }") in result.stdout
    assert "tool note(text: any) -> str" in result.stdout  # the failed call's result is not a result
    assert result.stderr.splitlines() == [
        'policyc: warning: `note.text`: values of different types were seen (str `"a"`, int `3`); declared `any`']
    checks(result.stdout, "rule r: called(lookup)\n")


def test_every_format_the_readers_know_and_bad_input(tmp_path):
    for fixture in ("chat_openai.json", "smolagents_steps.json", "tau2_results.json"):
        result = invoke(ROOT / "tests" / "fixtures" / "traces" / fixture)
        assert result.exit_code in (0, 1), (fixture, result.output)
        checks(result.stdout, "")
    mixed = invoke(ROOT / "tests" / "fixtures" / "traces" / "mixed_records.jsonl")
    assert mixed.exit_code == 2 and "malformed record(s) were not read" in mixed.stderr and "tool " in mixed.stdout
    empty = tmp_path / "empty.jsonl"
    empty.write_text(json.dumps({"tool_calls": []}) + "\n")
    assert invoke(empty).exit_code == 2
    unknown = invoke("examples/traces/code_qa.jsonl", "--terminal", "answer")
    assert unknown.exit_code == 2 and "--terminal names `answer`, which no trace calls" in unknown.stderr
    assert "Traceback" not in mixed.output + unknown.output


@pytest.mark.parametrize("name", ["result", "called", "before", "entities", "metrics", "within"])
def test_a_tool_whose_name_the_language_reserves_is_left_out_with_an_error(tmp_path, name):
    """A policy cannot declare such a tool (E0213), so the output would not check: the tool is
    left out, the rest written, and the exit code says so."""
    path = tmp_path / "runs.jsonl"
    path.write_text(json.dumps({"tool_calls": [{"tool_name": name, "arguments": {"x": 1}},
                                               {"tool_name": "search", "arguments": {"q": "a"}}]}) + "\n")
    result = invoke(path)
    assert result.exit_code == 2, result.output
    assert f"the tool name `{name}` is reserved (a builtin of the language); it is left out" in result.stderr
    assert "tool search(q: str)" in result.stdout and f"tool {name}" not in result.stdout
    checks(result.stdout, "rule r: called(search)\n")


def test_the_prelude_names_read_without_the_parser_are_the_parser_s():
    """`ir.builtins` reads the prelude's definitions off its text (the gateway reads tool
    schemas without loading the parser): they are exactly the declarations the parser reads."""
    from policyc.ir.builtins import prelude_definitions
    from policyc.resources import stdlib_dir
    from policyc.syntax import ast
    from policyc.syntax.parser import parse_source, read_source

    source, _ = read_source(stdlib_dir() / "prelude.altl", "<stdlib>/prelude.altl")
    module, _ = parse_source(source)
    declared = {d.name for d in module.items if isinstance(d, (ast.DefDecl, ast.PredicateDecl, ast.ExternDecl))}
    assert declared and prelude_definitions() == declared


# ------------------------------------------------------------------ soundness over generated traces

NAMES = st.sampled_from(["a", "b", "query", "id", "limit"])
SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-5, 5), st.floats(-5, 5, allow_nan=False),
                    st.text(max_size=3))
VALUES = st.recursive(SCALARS, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.dictionaries(NAMES, inner, max_size=3),
    st.dictionaries(st.sampled_from(["src/a.py", "x y", "ok"]), inner, max_size=2)), max_leaves=8)
CALLS = st.tuples(st.sampled_from(["search", "read", "answer"]), st.dictionaries(NAMES, VALUES, max_size=3),
                  st.one_of(st.just(None), VALUES))


@pytest.mark.slow
@settings(max_examples=2000 if NIGHTLY else 200, deadline=None, derandomize=not NIGHTLY,
          suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.lists(CALLS, min_size=1, max_size=5), min_size=1, max_size=4))
def test_every_call_conforms_to_the_declarations_inferred_from_it(runs):
    """Whatever the values, the inferred declarations accept every call they were inferred from:
    the scorer's conformance check finds nothing."""
    inferred = infer_tools(traces_of(runs))
    tools = {sig.name: sig for sig, _ in inferred.tools}
    for trace in traces_of(runs):
        assert check_trace(trace, tools) == [], [str(sig) for sig in tools.values()]


@settings(max_examples=200 if NIGHTLY else 25, deadline=None, derandomize=not NIGHTLY,
          suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.lists(CALLS, min_size=1, max_size=5), min_size=1, max_size=4))
def test_the_inferred_declarations_check_and_give_back_the_same_signatures(runs):
    inferred = infer_tools(traces_of(runs))
    names = [sig.name for sig, _ in inferred.tools]
    rule = "rule r: " + " or ".join(f"called({n})" for n in names) + "\n"
    tools = checks(render_declarations(inferred.tools, []), rule)
    assert {n: str(t) for n, t in tools.items()} == {sig.name: str(sig) for sig, _ in inferred.tools}


def traces_of(runs) -> list[Trace]:
    return [Trace.of(*[(name, args) if result is None else (name, args, result) for name, args, result in run])
            for run in runs]
