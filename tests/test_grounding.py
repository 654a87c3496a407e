"""Grounding (appendix H.3): entity extraction, the seen set, and table 21's edge cases."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from policyc.automata import compile_policy
from policyc.check import check_file
from policyc.grounding import EntitySet, c_definitions, entities, entity_kind, python_definitions
from policyc.scoring import score_trace
from policyc.trace import Trace


# ------------------------------------------------------------------ entities(text)


@pytest.mark.parametrize("text,expected", [
    ("src/requests/api.py", ["src/requests/api.py"]),
    ("defined in ./ocpp/charge_point.py.", ["ocpp/charge_point.py"]),
    ("see api.py:42", ["api.py", "42"]),
    ("The class ChargePoint and HTTPAdapter", ["ChargePoint", "HTTPAdapter"]),
    ("use get_connection or MAX_RETRIES", ["get_connection", "MAX_RETRIES"]),
    ("call request( and Session.send(", ["request", "Session.send"]),
    ("the `request` function and the `db` handle", ["request"]),
    ("requests.api.request handles it", []),            # dotted prose words without code marks
    ("`requests.api.request` handles it", ["requests.api.request"]),
    ("the answer is 33.", ["33"]),
    ("Python 3.11.2 and version 2.5", ["2.5"]),
    ("I don't know - not found in the source I read.", []),
    ("print() raises ValueError; use os.path.join and json.loads", []),
    ("The Function is Located in the File", []),
    ("", []),
])
def test_entities(text, expected):
    assert entities(text) == expected


_PIECES = st.sampled_from(["`", "(", ".", "/", " ", "\n", "\t", "\u2003", "_", "-", "a", "Ab", "get_x", "Session",
                           "src/api.py", "./m.c", "3", "4.5", "py", "see", "the", "os", "ValueError", "é", "Σ"])


@settings(max_examples=500, deadline=None)
@given(st.lists(_PIECES, max_size=30).map("".join))
def test_entities_read_once_per_distinct_word_are_those_of_the_whole_text(text):
    """`entities` reads each distinct word once, and reads where a token is only when that
    decides it; reading every position of the text finds the same entities in the same order."""
    from policyc.grounding.code import _entities_at, entities_in_order

    assert entities(text) == entities_in_order(text) == _entities_at(text, {})


def test_entities_of_a_list_merge_in_order():
    assert entities(["a.py and ChargePoint", "ChargePoint again", None]) == ["a.py", "ChargePoint"]
    assert entities(None) == [] and entities(42) == []


def test_entity_kinds():
    assert [entity_kind(e) for e in ("src/a.py", "3.5", "Session.send")] == ["path", "number", "identifier"]


# ------------------------------------------------------------------ what a file defines


def test_python_definitions_are_qualified_by_class_and_module():
    source = "import os\nLIMIT = 3\nclass Session:\n    timeout: int = 30\n    def send(self, request):\n" \
             "        local = request\n        return local\n\nasync def fetch():\n    pass\n"
    names, numbers = python_definitions(source, "src.requests.sessions")
    assert {"Session", "Session.send", "Session.timeout", "send", "fetch", "LIMIT", "local",
            "requests.sessions.Session.send", "sessions.fetch"} <= names
    assert "os" not in names and "request" not in names  # imported and parameter names are not definitions
    assert numbers == {3.0, 30.0}


def test_a_chunk_that_does_not_parse_falls_back_to_a_scan():
    chunk = "    def send(self):\n        pass\nclass Adapter(Base):\n    x = (\n"
    names, _ = python_definitions(chunk)
    assert {"send", "Adapter"} <= names


@pytest.mark.filterwarnings("ignore::SyntaxWarning")  # pytest shows every warning; the CLI does not (below)
@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(list("ab x=:1.()\n\t#'\"") + ["def ", "class ", "lambda ", "for ", " in ", "1j",
                                                               "async ", "import "]), max_size=30).map("".join),
       st.sampled_from(["", "pkg.mod"]))
def test_a_source_left_unparsed_defines_what_parsing_it_would(source, module):
    """A source with no `=`, `:`, digit, `def` or `class` is not parsed (a result of two million
    one-word files took 27 s to record): parsing it finds nothing more."""
    from policyc.grounding import definitions

    quick = python_definitions(source, module)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(definitions, "_DEFINES", __import__("re").compile(""))  # matches every source
        assert python_definitions(source, module) == quick


def test_python_s_warnings_about_a_file_a_tool_read_are_not_printed(tmp_path):
    """`y = [1jfor a in b]` in a file the agent read made every `policyc score` print Python's
    "SyntaxWarning: invalid imaginary literal" about `<unknown>`: the content is the tool's, not
    the user's code."""
    import json
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    record = {"tool_calls": [
        {"tool_name": "search", "arguments": {"query": "q"}, "tool_result": ["src/a.py"]},
        {"tool_name": "read_file", "arguments": {"path": "src/a.py"},
         "tool_result": {"src/a.py": "y = [1jfor a in b]\nz = 0x1for\n"}},
        {"tool_name": "final_answer", "arguments": {"answer": "y is in src/a.py"}}]}
    traces = tmp_path / "runs.jsonl"
    traces.write_text(json.dumps(record) + "\n")
    done = subprocess.run([sys.executable, "-m", "policyc", "score", str(root / "examples" / "code_qa.altl"),
                           str(traces)], capture_output=True, text=True, timeout=120)
    assert done.returncode in (0, 1) and done.stderr == "", done.stderr


def test_c_definitions():
    source = "#define MAX_LEN 64\ntypedef struct node { int v; } node_t;\nint sum(int *xs, int n);\n" \
             "static void walk(struct node *n) {\n  if (n) { walk(n); }\n}\n"
    assert {"MAX_LEN", "node", "sum", "walk"} <= c_definitions(source)
    assert "if" not in c_definitions(source)


# ------------------------------------------------------------------ the seen set and the match


def test_matching_exact_paths_prefix_identifiers_and_numbers():
    seen = EntitySet.from_results([{"src/requests/api.py": "def request(method, url):\n    return 1.0\n"}])
    assert seen.contains("src/requests/api.py")
    assert not seen.contains("api.py") and not seen.contains("src/requests/models.py")  # paths are exact
    assert seen.contains("request") and seen.contains("REQ") and seen.contains("requests.api.request")
    assert not seen.contains("requests_helper") and not seen.contains("method")  # parameters are not defined
    assert seen.contains("1") and seen.contains(1.0) and not seen.contains("2")


def test_only_defined_names_of_python_files_count():
    seen = EntitySet.from_results([{"a.py": "from b import Helper\nx = Helper()\n"}])
    assert seen.contains("x") and not seen.contains("Helper")


def test_other_files_and_plain_values_contribute_every_token():
    seen = EntitySet.from_results([{"README.md": "Use ChargePoint here"}, ["ocpp/v16/__init__.py", 7],
                                   {"status": "ok", "order_id": "ORD_12"}])
    assert seen.contains("ChargePoint") and seen.contains("ocpp/v16/__init__.py") and seen.contains("7")
    assert seen.contains("ORD_12")


def test_a_text_result_of_a_call_with_a_path_argument_is_that_file():
    seen = EntitySet()
    seen.add_call({"path": "pkg/mod.py"}, "class Thing:\n    pass\n")
    assert seen.contains("pkg/mod.py") and seen.contains("Thing") and seen.contains("mod.Thing")
    also = EntitySet.from_results([{"path": "pkg/other.py", "content": "def go():\n    pass\n"}])
    assert also.contains("pkg/other.py") and also.contains("go")


# ------------------------------------------------------------------ table 21, with examples/code_qa.altl


@pytest.fixture(scope="module")
def code_qa():
    policy, diagnostics = check_file("examples/code_qa.altl")
    assert policy is not None, diagnostics
    return policy


def grounded(policy, *calls):
    report = score_trace(compile_policy(policy), Trace.of(*calls))
    (result,) = [c for c in report.constraints if c.name == "grounded"]
    return result


API = {"src/requests/api.py": "def request(method, url):\n    pass\n\nclass Session:\n    pass\n"}
LIST = ("list_directory", {"path": "src/requests"}, ["api.py", "models.py", "sessions.py"])
READ = ("read_file", {"path": "src/requests/api.py"}, API)


def test_table21_list_directory_only_no_read_file(code_qa):
    result = grounded(code_qa, LIST, ("final_answer", {"answer": "It is in src/requests/api.py"}))
    assert (result.passed, result.vacuous) == (False, False)
    assert "src/requests/api.py" in result.detail


def test_table21_read_file_called_but_the_final_answer_is_empty(code_qa):
    assert grounded(code_qa, LIST, READ, ("final_answer", {"answer": ""})).passed is False
    assert grounded(code_qa, LIST, READ, ("final_answer", {"answer": " \n\t"})).passed is False  # only white space
    assert grounded(code_qa, LIST, READ).passed is False  # no answer at all


def test_table21_only_builtin_or_blocklisted_names_pass_vacuously(code_qa):
    result = grounded(code_qa, LIST, READ, ("final_answer", {"answer": "It uses print() and os.path, like json."}))
    assert (result.passed, result.vacuous) == (True, True)
    assert result.detail == "Holds vacuously: `entities(final_answer.answer)` is empty."
    refusal = grounded(code_qa, READ, ("final_answer", {"answer": "I don't know - not found in the source I read."}))
    assert (refusal.passed, refusal.vacuous) == (True, True)


def test_table21_a_path_seen_in_a_listing_but_never_read(code_qa):
    result = grounded(code_qa, LIST, READ, ("final_answer", {"answer": "See src/requests/sessions.py"}))
    assert result.passed is False and '"src/requests/sessions.py"' in result.detail


def test_table21_many_unrelated_chunks_then_a_symbol_in_none(code_qa):
    chunks = [("read_file", {"path": f"src/pkg/m{i}.py"}, {f"src/pkg/m{i}.py": f"def helper_{i}():\n    pass\n"})
              for i in range(8)]
    result = grounded(code_qa, *chunks, ("final_answer", {"answer": "`helper_3` and `RetryPolicy` do it"}))
    assert result.passed is False and result.detail == (
        'Not grounded: "RetryPolicy" from entities(final_answer.answer) is not in the outputs of read_file.')
    assert grounded(code_qa, *chunks, ("final_answer", {"answer": "`helper_3` does it"})).passed is True


def test_appendix_h4_examples(code_qa):
    # A: correct and grounded: the cited path was read
    example_a = grounded(code_qa, ("list_directory", {"path": ""}, ["src"]), READ,
                         ("final_answer", {"answer": "src/requests/api.py"}))
    assert (example_a.passed, example_a.vacuous) == (True, False)
    # B: no read_file, a parametric guess
    example_b = grounded(code_qa, ("list_directory", {"path": "lib"}, ["matplotlib"]),
                         ("final_answer", {"answer": "lib/matplotlib/__init__.py"}))
    assert example_b.passed is False
    # C: files read, but the answer also names files outside what was read
    read = [("read_file", {"path": p}, {p: "class ChargePoint:\n    pass\n"}) for p in ("ocpp/charge_point.py",)]
    example_c = grounded(code_qa, *read, ("final_answer", {
        "answer": "The class ChargePoint is defined in ocpp/charge_point.py; subclasses are in ocpp/v16/__init__.py."}))
    assert example_c.passed is False and example_c.detail == (
        'Not grounded: "ocpp/v16/__init__.py" from entities(final_answer.answer) is not in the outputs of read_file.')
