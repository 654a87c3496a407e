"""`policyc import-tools`: OpenAI and MCP tool schemas to `.altl` declarations that check."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from policyc.check import check_file, check_text
from policyc.cli import cli
from policyc.diagnostics import render_text
from policyc.ir.types import value_problems
from policyc.toolschema import import_tools
from policyc.toolschema.render import render_declarations

FIXTURES = Path(__file__).parent / "fixtures" / "tools"


def invoke(*args, input=None):
    return CliRunner().invoke(cli, ["import-tools", *map(str, args)], input=input, env={"NO_COLOR": "1"})


def declarations(*documents) -> str:
    imported = import_tools([(f"doc{i}.json", d) for i, d in enumerate(documents)])
    return render_declarations(imported.tools, imported.types)


def checked_tools(text: str, tmp_path: Path, rules: str = "") -> dict:
    """Check declarations imported by a policy (as a user would use them); no diagnostic at all."""
    (tmp_path / "tools.altl").write_text(text)
    (tmp_path / "policy.altl").write_text('import "tools.altl"\n' + rules)
    policy, diagnostics = check_file(tmp_path / "policy.altl")
    assert diagnostics == [], render_text(diagnostics)
    return policy.tools


# ------------------------------------------------------------------ the three document shapes


def test_an_mcp_tool_list(tmp_path):
    result = invoke(FIXTURES / "mcp_tools.json")
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[2:] == [
        "type Hit = { path: str, line: int }",
        "enum Kind { function, class, module }",
        "",
        "# Search the repository.",
        "tool search(query: str, limit: int?) -> list[str]",  # the MCP SDK's `{"result": ...}` wrapper read through
        "",
        "# Find where a symbol is defined.",
        "tool locate(symbol: str, hit: Hit, kind: Kind?) -> {",
        "    found: bool,",
        "    hits: list[Hit],",
        "    scores: dict[str, float]?,",
        "}",
        "",
        "tool `get-weather`(`in`: str)",
    ]
    # the constraint `minimum` cannot be a type: a note with the file, line and field, twice (input and output)
    assert "mcp_tools.json:39: `result.tools[1].inputSchema.$defs.Hit.properties.line.minimum`: note: " \
           "the constraint `minimum` is not part of a type" in result.stderr
    tools = checked_tools(result.stdout, tmp_path, "rule located: always (locate -> once search(limit: 3))\n")
    assert str(tools["locate"]) == "tool locate(symbol: str, hit: Hit, kind: Kind?) -> {found: bool, " \
                                   "hits: list[Hit], scores: dict[str, float]?}"


def test_openai_chat_tools_in_a_request_body(tmp_path):
    result = invoke(FIXTURES / "openai_chat_tools.json", "--terminal", "reply")
    assert result.exit_code == 0, result.output
    assert "enum LookupOrderIncludeItem { lines, totals }" in result.stdout
    assert "type IssueRefundReason = { code: int, note: str? }" in result.stdout
    # strict mode: an argument that may be null is `T?` even though it is listed as required
    assert "tool lookup_order(order_id: str, include: list[LookupOrderIncludeItem]?)" in result.stdout
    assert "terminal tool reply(text: str)" in result.stdout
    tools = checked_tools(result.stdout, tmp_path, "rule looked_up: always (issue_refund(order_id: o) -> "
                                                   "once lookup_order(order_id: o))\n")
    assert tools["reply"].terminal and tools["issue_refund"].param("reason").required is False


def test_responses_tools_skip_built_in_tools_and_say_so():
    result = invoke(FIXTURES / "openai_responses_tools.json")
    assert result.exit_code == 1  # something was approximated
    assert "openai_responses_tools.json:4: `[1]`: warning: the built-in tool `web_search` has no schema to " \
           "declare; skipped" in result.stderr
    assert "`[2].parameters.properties.mode.anyOf`: warning: a choice between 2 different schemas (`anyOf`) " \
           "has no AgentLTL type; declared `any`" in result.stderr
    assert "tool read_page(url: str?, mode: any?)" in result.stdout


def test_a_bare_function_object_from_standard_input(tmp_path):
    bare = {"name": "add", "description": "Add.", "parameters": {"type": "object", "properties": {
        "a": {"type": "integer"}, "b": {"type": "integer"}}, "required": ["a", "b"]}}
    result = invoke("-", "-o", tmp_path / "out.altl", input=json.dumps(bare))
    assert result.exit_code == 0, result.output
    assert "out.altl: 1 tool(s), 0 named type(s)" in result.stderr
    assert (tmp_path / "out.altl").read_text().endswith("# Add.\ntool add(a: int, b: int)\n")
    # standing alone, the declarations check with only the warning every rule-less module gets
    policy, diagnostics = check_file(tmp_path / "out.altl")
    assert policy is not None and [d.code for d in diagnostics] == ["W0225"]
    cli_check = CliRunner().invoke(cli, ["check", str(tmp_path / "out.altl")])
    assert cli_check.exit_code == 0


# ------------------------------------------------------------------ what has no AgentLTL type


@pytest.mark.parametrize("schema, declared, message", [
    ({"type": ["string", "integer"]}, "any", "a value of several types (`integer`, `string`) has no AgentLTL type"),
    ({"oneOf": [{"type": "string"}, {"type": "object"}]}, "any", "a choice between 2 different schemas (`oneOf`)"),
    ({"allOf": [{"type": "string"}, {"minLength": 2}]}, "any", "`allOf` of several schemas has no AgentLTL type"),
    ({"not": {"type": "string"}}, "any", "`not` has no AgentLTL type"),
    ({"type": "array", "prefixItems": [{"type": "string"}]}, "any", "`prefixItems` has no AgentLTL type"),
    ({"type": "array", "items": [{"type": "string"}, {"type": "integer"}]}, "list[any]",
     "a tuple of elements of different types"),
    ({"$ref": "https://example.com/s.json"}, "any", "only references inside the schema (`#/...`) are followed"),
    ({"$ref": "#/$defs/Missing"}, "any", "the reference `#/$defs/Missing` points at nothing"),
    ({"type": "null"}, "any", "a value that is always `null` has no AgentLTL type"),
    ({"type": "date"}, "any", "unknown JSON Schema type `date`"),
    ({"enum": [1, "a"]}, "any", "an `enum` of mixed or structured values"),
    ({"enum": []}, "any", "`enum` should be a non-empty array"),
    (False, "any", "a schema should be an object, got `false`"),
    ("string", "any", "a schema should be an object, got a string"),
])
def test_unsupported_constructs_are_reported_not_dropped(schema, declared, message):
    doc = {"name": "t", "parameters": {"type": "object", "properties": {"x": schema}, "required": ["x"]}}
    imported = import_tools([("t.json", doc)])
    [(sig, _)] = imported.tools
    assert str(sig.param("x").type) == declared
    assert any(message in p.message and p.severity == "warning" for _, p in imported.problems), imported.problems


def test_recursive_types_stop_at_the_recursion():
    doc = {"name": "tree", "parameters": {"type": "object", "properties": {"root": {"$ref": "#/$defs/Node"}},
                                          "required": ["root"], "$defs": {"Node": {
                                              "type": "object", "properties": {"children": {
                                                  "type": "array", "items": {"$ref": "#/$defs/Node"}}}}}}}
    imported = import_tools([("t.json", doc)])
    assert declarations(doc).splitlines()[0] == "type Node = { children: list[any]? }"
    [(_, problem)] = imported.problems
    assert problem.message == "the recursive type `#/$defs/Node` cannot be declared; declared `any`"
    assert problem.path == ("parameters", "$defs", "Node", "properties", "children", "items", "$ref")


def test_shared_definitions_are_declared_once_and_different_ones_get_numbers():
    hit = {"type": "object", "title": "Hit", "properties": {"path": {"type": "string"}}, "required": ["path"]}
    other = {"type": "object", "title": "Hit", "properties": {"line": {"type": "integer"}}, "required": ["line"]}
    docs = [{"name": "a", "parameters": {"type": "object", "properties": {"h": hit}, "required": ["h"]}},
            {"name": "b", "parameters": {"type": "object", "properties": {"h": hit, "g": other},
                                         "required": ["h", "g"]}}]
    assert declarations(docs).splitlines() == [
        "type Hit = { path: str }", "type Hit2 = { line: int }", "", "tool a(h: Hit)", "", "tool b(h: Hit, g: Hit2)"]


def test_exponentially_shared_definitions_are_converted_once():
    """Twelve levels of eight references each: 8**12 paths, one conversion per definition."""
    defs = {f"D{i}": {"type": "object", "properties": {f"f{j}": {"$ref": f"#/$defs/D{i + 1}"} for j in range(8)},
                      "required": [f"f{j}" for j in range(8)]} for i in range(12)}
    defs["D12"] = {"type": "string"}
    doc = {"name": "deep", "inputSchema": {"type": "object", "properties": {"x": {"$ref": "#/$defs/D0"}},
                                           "required": ["x"], "$defs": defs}}
    imported = import_tools([("d.json", doc)])
    assert [t.name for t in imported.types] == [f"D{i}" for i in range(11, -1, -1)]
    assert str(imported.tools[0][0]) == "tool deep(x: D0)" and imported.problems == []


def test_schemas_nested_past_the_limit_are_declared_any():
    schema: dict = {"type": "string"}
    for _ in range(40):
        schema = {"type": "array", "items": schema}
    imported = import_tools([("d.json", {"name": "nest", "parameters": {"type": "object",
                                                                        "properties": {"x": schema}}})])
    assert str(imported.tools[0][0]).count("list[") == 32
    assert [p.message for _, p in imported.problems] == ["the schema is nested deeper than 32 levels; declared `any`"]


# ------------------------------------------------------------------ hostile documents


@pytest.mark.parametrize("content, message", [
    ("", "it is empty; expected a JSON tool list"),
    ("{not json", "line 1: it is not JSON"),
    ("\xff", None),
    ("42", "expected a tool or a list of tools, got a number"),
    ('{"tools": 3}', "`tools` should be an array, got a number"),
    ('[{"type": "function", "function": 7}]', "`function` should be an object, got a number"),
    ('[{"name": "a`b", "parameters": {}}]', "the tool name `a`b` cannot be written in a policy"),
    ('[{"name": "result", "parameters": {}}]', "the tool name `result` is reserved (a builtin of the language)"),
    ('[{"name": "called", "parameters": {}}]', "the tool name `called` is reserved (a builtin of the language)"),
    ('[{"name": "a", "parameters": {"type": "object", "properties": {"": {}}}}]',
     "the parameter name `` cannot be written in a policy"),
    ('[{"name": "a", "parameters": {"type": "array"}}]', "the parameters should be an object schema"),
    ('[{"description": "no name", "parameters": {}}]', "not a tool: expected `name` with `parameters`"),
    ("[" * 5000, "it is nested too deeply to read"),
    # Python's json reads these; half a surrogate pair then ended the command with exit 3
    ('[{"name": "a", "description": "\\ud800", "parameters": {}}]', "a string holds `\\ud800`, half of a UTF-16"),
    ('[{"name": "a", "parameters": {"type": "object", "properties": {"x": {"maximum": NaN}}}}]',
     "it is not JSON: `NaN` is not a JSON number"),
    ('{"name": "a", "parameters": {}}\n{"name": "b", "parameters": {"x": 1e400}}',
     "line 2: it is neither JSON nor JSON Lines: a number is too large for a double"),
])
def test_malformed_documents_exit_2_with_a_clear_message(tmp_path, content, message):
    path = tmp_path / "tools.json"
    path.write_bytes(content.encode("latin-1") if content == "\xff" else content.encode())
    result = invoke(path)
    assert result.exit_code == 2 and result.exception is None or isinstance(result.exception, SystemExit)
    assert "Traceback" not in result.output
    assert (message or "it is not UTF-8 text") in result.stderr


def test_good_tools_are_still_written_beside_bad_ones(tmp_path):
    path = tmp_path / "tools.json"
    path.write_text(json.dumps([{"name": "ok", "parameters": {"type": "object"}}, {"name": 3}]))
    result = invoke(path)
    assert result.exit_code == 2
    assert "tool ok()" in result.stdout and "`[1].name`: error: the tool's `name` is a number" in result.stderr


def test_a_tool_declared_twice_differently_is_an_error_and_terminal_must_name_a_tool(tmp_path):
    one = tmp_path / "one.json"
    one.write_text(json.dumps({"name": "a", "parameters": {"type": "object"}}))
    assert invoke(one, one).exit_code == 0  # the same declaration twice is kept once
    two = tmp_path / "two.json"
    two.write_text(json.dumps({"name": "a", "parameters": {"type": "object", "properties": {"x": {}}}}))
    assert invoke(one, two).exit_code == 2
    missing = invoke(one, "--terminal", "final_answer")
    assert missing.exit_code == 2 and "--terminal names `final_answer`, which no file declares" in missing.stderr


def test_the_same_tool_in_two_files_names_both_places_and_is_never_merged(tmp_path):
    one, two = tmp_path / "one.json", tmp_path / "two.json"
    one.write_text(json.dumps([{"name": "a", "parameters": {"type": "object"}}]))
    two.write_text(json.dumps([{"name": "b", "parameters": {"type": "object"}},
                               {"name": "a", "parameters": {"type": "object", "properties": {"x": {}}}}]))
    result = invoke(one, two)
    assert result.exit_code == 2 and result.stdout.count("tool a(") == 1
    assert (f"{two}:1: `[1]`: error: `a` is declared again with another signature (`tool a(x: any?)`); the first "
            f"one, `tool a()` at {one}:1, is kept") in result.stderr
    assert "policyc: 2 tools declared, 1 not declared or declared twice (errors)" in result.stderr
    again = invoke(one, one)
    assert again.exit_code == 0 and "1 repeated with the same signature (declared once)" in again.stderr


# ------------------------------------------------------------------ Gorilla/BFCL function docs


def test_bfcl_types_are_read_as_json_schema_ones():
    """BFCL writes `dict`, `float`, `tuple`, `any` (and Java's `String`, `HashMap`, `ArrayList`);
    each is the JSON Schema type it stands for, nested too; a function doc's `response` is its result."""
    doc = {"name": "math.mean", "description": "Mean.", "parameters": {"type": "dict", "properties": {
        "numbers": {"type": "array", "items": {"type": "float"}},
        "weights": {"type": "tuple", "items": {"type": "integer"}},
        "pair": {"type": "array", "items": [{"type": "float"}, {"type": "float"}]},
        "options": {"type": "dict", "properties": {"precision": {"type": "long"}, "label": {"type": "String"},
                                                   "extra": {"type": "any"}}},
        "names": {"type": "ArrayList", "items": {"type": "String"}},
        "table": {"type": "HashMap"}}, "required": ["numbers"]},
        "response": {"type": "dict", "properties": {"result": {"type": "double"}}}}
    imported = import_tools([("bfcl.json", doc)])
    assert imported.problems == []
    [(sig, _)] = imported.tools
    assert str(sig) == ("tool math.mean(numbers: list[float], weights: list[int]?, pair: list[float]?, "
                        "options: MathMeanOptions?, names: list[str]?, table: dict[str, any]?) -> {result: float?}")
    [options] = imported.types
    assert [(name, str(t)) for name, t in options.fields] == [("precision", "int?"), ("label", "str?"),
                                                                ("extra", "any?")]


def test_a_bfcl_question_record_and_json_lines(tmp_path):
    """A BFCL question file is JSON Lines of records whose `function` lists the functions offered."""
    records = [{"id": "q1", "question": [[{"role": "user", "content": "Area?"}]], "function": [
                   {"name": "area", "parameters": {"type": "dict", "properties": {"base": {"type": "float"}},
                                                   "required": ["base"]}}]},
               {"id": "q2", "question": [], "function": [
                   {"name": "area", "parameters": {"type": "dict", "properties": {"base": {"type": "float"}},
                                                   "required": ["base"]}},
                   {"name": "area", "parameters": {"type": "dict", "properties": {"side": {"type": "float"}}}}]}]
    path = tmp_path / "questions.json"
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n")
    result = invoke(path)
    assert result.exit_code == 2 and "tool area(base: float)" in result.stdout
    assert f"{path}:2: `function[1]`: error: `area` is declared again with another signature" in result.stderr
    assert "1 repeated with the same signature" in result.stderr
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps(records[0]) + "\n{oops\n")
    assert "line 2: it is neither JSON nor JSON Lines" in invoke(bad).stderr


def _bfcl_function_docs() -> list[Path]:
    from policyc.saag.bfcl import BfclMissing, data_dir

    try:
        folder = data_dir() / "multi_turn_func_doc"
    except BfclMissing as exc:
        pytest.skip(str(exc))
    return sorted(folder.glob("*.json"))


def test_bfcls_shipped_function_docs_import_without_errors_and_floats_stay_floats(tmp_path):
    """Each of BFCL's shipped function docs (the installed bfcl-eval package's
    `multi_turn_func_doc/*.json`, one API each, JSON Lines with `dict`, `float`, nested objects and
    `response` schemas) imports with no error and no `float` declared `any`; what cannot be typed
    (a tuple of a float and a string) is reported with its place; the output checks."""
    docs = _bfcl_function_docs()
    assert len(docs) >= 10
    floats = 0
    for doc in docs:
        result = invoke(doc)
        assert result.exit_code in (0, 1), (doc.name, result.stderr)
        assert ": error:" not in result.stderr, result.stderr
        warnings = [line for line in result.stderr.splitlines() if ": warning:" in line]
        assert all("a tuple of elements of different types" in w for w in warnings), warnings
        declared = [json.loads(line) for line in doc.read_text().splitlines() if line.strip()]
        written = json.dumps(declared)
        floats += written.count('"float"')
        assert result.stdout.count("float") >= written.count('"float"') - len(warnings)
        first = declared[0]["name"]
        tools = checked_tools(result.stdout, tmp_path, f"rule uses_it: called(`{first}`)\n")
        assert len(tools) == len({d["name"] for d in declared})
    assert floats > 100
    # all of them at once: the two memory back-ends declare tools of the same names differently
    together = invoke(*docs)
    assert together.exit_code == 2
    conflicts = [line for line in together.stderr.splitlines() if ": error:" in line]
    assert conflicts and all("is declared again with another signature" in c and "memory_vector.json" in c
                             for c in conflicts)


# ------------------------------------------------------------------ properties over generated schemas


@st.composite
def schema_and_value(draw, depth: int = 0):
    """A JSON Schema of a supported construct, and a strategy for values it accepts."""
    leaves = ["string", "integer", "number", "boolean", "enum", "any"]
    kind = draw(st.sampled_from(leaves + (["array", "object", "dict", "nullable", "ref"] if depth < 3 else [])))
    if kind == "string":
        return {"type": "string"}, st.text(max_size=5)
    if kind == "integer":
        return {"type": "integer"}, st.integers(-5, 5)
    if kind == "number":
        return {"type": "number"}, st.one_of(st.integers(-5, 5), st.floats(-5, 5))
    if kind == "boolean":
        return {"type": "boolean"}, st.booleans()
    if kind == "enum":
        members = draw(st.lists(st.sampled_from(["a", "b c", "if", "x-y"]), min_size=1, max_size=3, unique=True))
        return {"enum": members}, st.sampled_from(members)
    if kind == "any":
        return {}, st.one_of(st.none(), st.integers(), st.text(max_size=3))
    if kind == "array":
        inner, values = draw(schema_and_value(depth + 1))
        return {"type": "array", "items": inner}, st.lists(values, max_size=3)
    if kind == "dict":
        inner, values = draw(schema_and_value(depth + 1))
        return {"type": "object", "additionalProperties": inner}, st.dictionaries(st.text(max_size=3), values,
                                                                                   max_size=2)
    if kind == "nullable":
        inner, values = draw(schema_and_value(depth + 1))
        form = draw(st.sampled_from(["anyOf", "list", "nullable"]))
        if form == "anyOf":
            schema = {"anyOf": [inner, {"type": "null"}]}
        elif form == "list" and isinstance(inner.get("type"), str):
            schema = {**inner, "type": [inner["type"], "null"]}
        else:  # OpenAPI's spelling, unknown to JSON Schema validators: only non-null values are drawn
            return {**inner, "nullable": True}, values
        return schema, st.one_of(st.none(), values)
    if kind == "ref":
        inner, values = draw(schema_and_value(depth + 1))
        return {"$ref": "#/$defs/Shared", "x-defs": inner}, values
    names = draw(st.lists(st.sampled_from(["id", "in", "name", "get-x", "_p"]), min_size=1, max_size=3, unique=True))
    parts = [draw(schema_and_value(depth + 1)) for _ in names]
    required = [n for n in names if draw(st.booleans())]
    values = st.fixed_dictionaries({n: v for n, (_, v) in zip(names, parts) if n in required},
                                   optional={n: v for n, (_, v) in zip(names, parts) if n not in required})
    return {"type": "object", "properties": {n: s for n, (s, _) in zip(names, parts)}, "required": required}, values


def _hoist_refs(schema, defs):
    """Move each `x-defs` beside its `$ref` into `$defs` (one shared definition per document)."""
    if isinstance(schema, dict):
        if "x-defs" in schema:
            inner = _hoist_refs(schema["x-defs"], defs)
            name = f"Shared{len(defs)}"
            defs[name] = inner
            return {"$ref": f"#/$defs/{name}"}
        return {k: _hoist_refs(v, defs) for k, v in schema.items()}
    if isinstance(schema, list):
        return [_hoist_refs(v, defs) for v in schema]
    return schema


@pytest.mark.slow
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_declared_types_accept_every_value_the_schema_accepts_and_survive_the_checker(data):
    """Soundness: a value valid for the JSON Schema conforms to the declared signature (no
    conformance finding a correct call could trigger); and the declarations, written out
    and checked, give back exactly the converted signature."""
    schema, values = data.draw(schema_and_value())
    defs: dict = {}
    params = _hoist_refs({"type": "object", "properties": {"arg": schema}, "required": ["arg"]}, defs)
    if defs:
        params["$defs"] = defs
    imported = import_tools([("g.json", {"name": "tool_x", "inputSchema": params, "outputSchema": params})])
    assert not [p for _, p in imported.problems if p.severity != "note"], imported.problems
    [(sig, _)] = imported.tools
    value = data.draw(values)
    jsonschema.validate({"arg": value}, params)
    assert value_problems(value, sig.param("arg").type) == []
    assert value_problems({"arg": value}, sig.result) == []
    text = render_declarations(imported.tools, imported.types)
    policy, diagnostics = check_text(text + "\nrule r: called(tool_x)\n", "g.altl")
    assert policy is not None and diagnostics == [], render_text(diagnostics) + text
    assert policy.tools["tool_x"] == sig
