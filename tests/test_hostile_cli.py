"""Hostile input on the command line: files that are not files, outputs over inputs, text that
talks to the terminal, and random argument vectors for every subcommand.

Each case runs `policyc.cli.main` itself (the entry point that turns a bug into exit 3), in
process, and checks the exit code and that no traceback and no internal error came out:

- `compile p.altl -o p.altl` and `graph ... -o p.altl` wrote over the policy; `graph -o
  missing/x.dot` exited 3; a FIFO as input hung; a symbolic link to itself exited 3;
  `/dev/zero` as input ran out of memory; `--max-layer-share nan` was accepted;
- escape sequences in tool names reached the terminal raw (`score`, `replay`, `check`, `lint`);
- a fuzzer draws argument vectors (options of each subcommand, with good and bad values) over
  a pool of good, bad and strange files: exit 0, 1 or 2, never 3, never a traceback.
"""

from __future__ import annotations

import functools
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from policyc.artifact.build import compile_file
from policyc.artifact.io import dump_artifact
from policyc.cli import cli, main
from hostile_helpers import hang_guard

ROOT = Path(__file__).resolve().parent.parent
POSIX = hasattr(os, "mkfifo")


def policyc(*argv, stdin: bytes = b"", env: dict | None = None) -> tuple[int, str, str]:
    """Run `policyc ARGV` through its real entry point; (exit code, stdout, stderr)."""
    runner = CliRunner()
    with hang_guard("the command never returned"), runner.isolation(input=stdin, env={"NO_COLOR": "1", "COLUMNS": "160", **(env or {})}) as (
            out, err, _):
        try:
            main([str(a) for a in argv])
            code = 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 0
        stdout, stderr = out.getvalue().decode("utf-8", "replace"), err.getvalue().decode("utf-8", "replace")
    assert "Traceback" not in stdout + stderr and "internal error" not in stderr, stdout + stderr
    assert code in (0, 1, 2), (code, stdout, stderr)
    return code, stdout, stderr


@pytest.fixture
def policy(tmp_path):
    path = tmp_path / "p.altl"
    path.write_text((ROOT / "examples" / "code_qa.altl").read_text())
    return path


# ------------------------------------------------------------------ outputs over inputs


def test_compile_refuses_to_write_over_its_policy_or_an_import(policy, tmp_path):
    before = policy.read_text()
    code, _, err = policyc("compile", policy, "-o", policy)
    assert code == 2 and "refusing to write over" in err and policy.read_text() == before
    (tmp_path / "lib.altl").write_text("tool extra(x: int)\n")
    main_policy = tmp_path / "main.altl"
    main_policy.write_text('import "lib.altl"\n' + before)
    code, _, err = policyc("compile", main_policy, "-o", tmp_path / "lib.altl")
    assert code == 2 and "`" + str(tmp_path / "lib.altl") + "`, an input of this command" in err
    os.symlink(policy, tmp_path / "alias.json")
    code, _, _ = policyc("compile", policy, "-o", tmp_path / "alias.json")  # the same file under another name
    assert code == 2 and policy.read_text() == before


def test_graph_refuses_to_write_over_its_policy_and_reports_a_missing_folder(policy, tmp_path):
    before = policy.read_text()
    code, _, err = policyc("graph", policy, "--rule", "search_first", "-o", policy)
    assert code == 2 and "refusing to write over" in err and policy.read_text() == before
    code, _, err = policyc("graph", policy, "--rule", "search_first", "-o", tmp_path / "missing" / "x.dot")
    assert code == 2 and "cannot write" in err and "its folder does not exist" in err


def test_an_output_that_is_not_a_policy_never_lands_on_another_policy(policy, tmp_path):
    """An existing `.altl` file that is not among the command's inputs is still a policy
    source: an artifact, a graph or a JUnit report written over it would destroy it. A
    command whose output is a policy (`import-tools`, `infer-tools`) replaces one only when
    told to (`--force`): the rules in it would be lost."""
    other = tmp_path / "other.altl"
    other.write_text("tool t()\nrule r: called(t)\n")
    before = other.read_text()
    for argv in (("compile", policy, "-o", other), ("graph", policy, "--rule", "search_first", "-o", other),
                 ("test", ROOT / "examples" / "code_qa.tests.toml", "--junit", other)):
        code, _, err = policyc(*argv)
        assert code == 2 and "it is a policy source" in err and other.read_text() == before, argv
    tools = ROOT / "tests" / "fixtures" / "tools" / "mcp_tools.json"
    for argv in (("import-tools", tools, "-o", other),
                 ("infer-tools", ROOT / "examples" / "traces" / "code_qa.jsonl", "-o", other)):
        code, _, err = policyc(*argv)
        assert code == 2 and "may hold rules" in err and "--force" in err and other.read_text() == before, argv
    code, _, err = policyc("import-tools", tools, "-o", other, "--force")
    assert code == 0 and other.read_text() != before and "tool " in other.read_text()



@pytest.mark.skipif(not POSIX, reason="links")
@pytest.mark.parametrize("link", ["symbolic", "hard"])
def test_an_output_reaching_a_policy_through_a_link_never_lands_on_it(policy, tmp_path, link):
    """Found by a sweep written from the docs alone: `-o out.json`, a link to another policy,
    replaced the policy with the artifact (exit 0). A symbolic link to a source is refused;
    a file with other names is replaced, so what they hold stays."""
    other = tmp_path / "other.altl"
    other.write_text("tool t()\nrule r: called(t)\n")
    out = tmp_path / "out.json"
    (os.symlink if link == "symbolic" else os.link)(other, out)
    code, _, err = policyc("compile", policy, "-o", out)
    assert other.read_text() == "tool t()\nrule r: called(t)\n"
    if link == "symbolic":
        assert code == 2 and f"it links to `{os.path.realpath(other)}`, a policy source" in err
    else:
        assert code == 0 and json.loads(out.read_text())["format"] == "policyc.monitor"

# ------------------------------------------------------------------ inputs that are not files


@pytest.mark.skipif(not POSIX, reason="FIFOs are POSIX")
def test_a_fifo_nobody_writes_to_does_not_hang_any_command(policy, tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    assert policyc("score", policy, fifo)[0] == 2  # read as empty: no records
    assert policyc("replay", policy, fifo)[0] == 2
    assert policyc("check", fifo)[0] == 0  # an empty policy: a warning
    assert policyc("score", fifo, "examples/traces/code_qa.jsonl")[0] == 2  # no rules: nothing to score
    code, _, err = policyc("compile", policy, "-o", fifo)
    assert code == 2 and "a pipe that nobody reads" in err
    schema = tmp_path / "tools.json"
    schema.write_text('[{"type": "function", "function": {"name": "ping", "parameters": {"type": "object"}}}]')
    code, _, err = policyc("import-tools", schema, "-o", fifo)
    assert code == 2 and "a pipe that nobody reads" in err


@pytest.mark.parametrize("role", ["check", "fmt", "compile", "lint", "test", "score", "folder"])
def test_a_file_name_longer_than_the_system_allows_is_an_input_error(policy, tmp_path, role):
    """Found by a sweep written from the docs alone: a name over 255 bytes made the path's
    folder test raise (ENAMETOOLONG), exit 3, before any reader could name the file."""
    long = tmp_path / ("a" * 300)
    argv = {"check": ("check", f"{long}.altl"), "fmt": ("fmt", f"{long}.altl"),
            "compile": ("compile", f"{long}.altl", "-o", tmp_path / "o.json"), "lint": ("lint", f"{long}.altl"),
            "test": ("test", f"{long}.altl"), "score": ("score", policy, f"{long}.jsonl"),
            "folder": ("check", long / "x.altl")}[role]
    code, out, err = policyc(*argv)
    assert code == 2 and "aaaa" in out + err

@pytest.mark.skipif(not POSIX, reason="symbolic links that loop")
@pytest.mark.parametrize("role", ["policy", "trace", "artifact", "output"])
def test_a_symbolic_link_to_itself_is_an_input_error(policy, tmp_path, role):
    loop = tmp_path / ("loop.json" if role == "artifact" else "loop.altl")
    os.symlink(loop, loop)
    argv = {"policy": ("check", loop), "trace": ("score", policy, loop), "artifact": ("replay", loop, "t.json"),
            "output": ("compile", policy, "-o", loop)}[role]
    code, out, err = policyc(*argv)
    assert code == 2
    assert "loop" in out + err


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero")
def test_an_endless_input_stops_at_the_size_cap(policy):
    code, out, err = policyc("score", policy, "/dev/zero", env={"POLICYC_MAX_INPUT_MB": "1"})
    assert code == 2 and "is larger than 1 MiB, the most an input may be (set POLICYC_MAX_INPUT_MB" in out + err
    code, out, _ = policyc("check", "/dev/zero")
    assert code == 2 and "E0003" in out and "larger than the 2 MiB a policy file may be" in out
    code, out, err = policyc("score", policy, "-", stdin=b" " * (2 * 1024 * 1024),
                             env={"POLICYC_MAX_INPUT_MB": "1"})
    assert code == 2 and "<stdin>: is larger than 1 MiB" in out + err
    code, out, err = policyc("fmt", "-", stdin=b"#" * (3 * 1024 * 1024))
    assert code == 2 and "larger than the 2 MiB a policy file may be" in out + err


@pytest.mark.skipif(not Path("/dev/zero").exists() or not POSIX, reason="needs /dev/zero and resource limits")
def test_a_size_cap_above_the_machine_s_memory_is_an_input_error(policy):
    """Found by a blind sweep: with POLICYC_MAX_INPUT_MB above what memory holds, an endless
    input ended in "internal error: MemoryError", exit 3. The address space of the process is
    limited here to make the machine small."""
    import resource
    import subprocess
    import sys

    def small_machine() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (1_500_000_000, 1_500_000_000))

    with open("/dev/zero", "rb") as zero:
        done = subprocess.run([sys.executable, "-m", "policyc", "replay", str(ROOT / "examples" / "code_qa.altl"), "-"],
                              stdin=zero, capture_output=True, text=True, timeout=300, preexec_fn=small_machine,
                              env={**os.environ, "POLICYC_MAX_INPUT_MB": "100000"})
    assert done.returncode == 2, done.stderr
    assert "is larger than this machine's memory can hold" in done.stderr and "internal error" not in done.stderr


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "1.5", "-0.1"])
def test_max_layer_share_must_be_a_share(policy, value):
    code, _, err = policyc("lint", policy, "--max-layer-share", value)
    assert code == 2 and "--max-layer-share" in err


@pytest.mark.parametrize("value", ["0.9999999999999999", "0.9999999", "1", "0.4", "nan"])
def test_assure_confidence_is_a_usage_error_where_its_split_cannot_be_told_from_one(policy, value):
    # found by a sweep written from the docs alone: 0.9999999999999999 passed the option's range,
    # and δ split over the rules rounded each rule's confidence to 1.0 (exit 3)
    code, _, err = policyc("assure", policy, "--confidence", value)
    assert code == 2 and "--confidence" in err


def test_assure_names_a_suite_of_many_files_within_a_name_s_length(policy, tmp_path):
    # found by a sweep written from the docs alone: the default suite name joins the trace
    # files' names, and twenty files (or one long path) made a name over 200 characters (exit 3)
    traces = []
    for i in range(20):
        path = tmp_path / f"run_with_a_long_name_{i:03}.jsonl"
        record = json.loads((ROOT / "examples" / "traces" / "code_qa.jsonl").read_text().split("\n")[0])
        path.write_text(json.dumps({**record, "id": f"run-{i}"}) + "\n")
        traces.append(path)
    code, out, err = policyc("assure", policy, *traces)
    assert code in (0, 1) and "and " in out + err


@pytest.mark.parametrize("name, value", [
    ("POLICYC_MAX_INPUT_MB", "1MB"), ("POLICYC_MAX_INPUT_MB", "-1"), ("POLICYC_MAX_INPUT_MB", "nan"),
    ("POLICYC_MAX_STATES", "0"), ("POLICYC_MAX_STATES", "1e3"), ("POLICYC_MAX_PRODUCT", "abc"),
    ("POLICYC_LSP_FRAME_TIMEOUT", "soon"), ("POLICYC_GATEWAY_UNREAD_GRACE", "inf"),
])
def test_a_limit_set_in_the_environment_that_is_no_number_is_a_usage_error(policy, name, value):
    # found by a sweep written from the docs alone: such a value was silently ignored, and the
    # default limit applied (a trace of 3 MB was refused under `1`, and scored under `1MB`)
    code, _, err = policyc("check", policy, env={name: value})
    assert code == 2 and f"{name} is `{value}`, not a" in err


def test_a_policy_without_rules_is_not_an_empty_success(tmp_path):
    empty = tmp_path / "empty.altl"
    empty.write_text("# nothing here\n")
    for argv in (("compile", empty, "-o", tmp_path / "x.json"), ("score", empty, "examples/traces/code_qa.jsonl"),
                 ("replay", empty, "examples/traces/code_qa.jsonl"), ("explain", empty)):
        code, _, err = policyc(*argv)
        assert code == 2 and "has no rules" in err


# ------------------------------------------------------------------ terminal escapes

HOSTILE = "sea\x1b[2J\x1b]0;owned\x07rch\u202e\x9b31m[bold]\r"
UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


@pytest.fixture
def hostile_files(tmp_path, policy):
    trace = tmp_path / "t\x1b[31m.json"
    trace.write_text(json.dumps({"id": HOSTILE, "tool_calls": [
        {"tool_name": HOSTILE, "arguments": {HOSTILE: HOSTILE}, "tool_result": HOSTILE},
        {"tool_name": "final_answer", "arguments": {"answer": HOSTILE}}]}))
    bad_policy = tmp_path / "bad\x07.altl"
    bad_policy.write_text(f'# {HOSTILE}\ntool a(x: int)\nrule r{HOSTILE[3]}: called(a) and "{HOSTILE}" == 1\n'
                          f'rule `{HOSTILE}`: called(b)\n')
    linted = tmp_path / "lint\x1b.altl"
    linted.write_text('tool a()\nrule `r\x1b[2J`: called(a) and not called(a)\n')
    return trace, bad_policy, linted


def test_control_characters_from_outside_never_reach_the_terminal(policy, hostile_files):
    trace, bad_policy, linted = hostile_files
    for argv in (("score", policy, trace), ("replay", policy, trace), ("check", bad_policy), ("lint", linted),
                 ("lint", bad_policy), ("explain", linted), ("score", bad_policy, trace)):
        code, out, err = policyc(*argv)
        assert not UNSAFE.search(out + err), (argv, out + err)
    code, out, _ = policyc("score", policy, trace)
    assert "sea\\x1b[2J\\x1b]0;owned\\x07rch\\u202e\\x9b31m[bold]\\r" in out  # shown, as escapes, markup as text


# ------------------------------------------------------------------ fuzzing the command line


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    """Good, bad and strange files, by name."""
    root = tmp_path_factory.mktemp("cli_corpus")
    files = {
        "policy": (ROOT / "examples" / "code_qa.altl").read_bytes(),
        "policy2": (ROOT / "examples" / "support_desk.altl").read_bytes(),
        "broken_policy": b"rule r: always (a ->\n",
        "weird_policy": 'tool `x\x1b`(a: int)\nrule r weight 1e400: called(`x\x1b`)\nimport "/etc/passwd"\n'.encode(),
        "artifact": dump_artifact(compile_file(ROOT / "examples" / "code_qa.altl")).encode(),
        "edited_artifact": dump_artifact(compile_file(ROOT / "examples" / "code_qa.altl")).replace(
            '"weight":4.0', '"weight":5.0').encode(),
        "trace": (ROOT / "examples" / "traces" / "code_qa.jsonl").read_bytes(),
        "bad_trace": b'{"tool_calls": [{"tool_name": 3}]}\n{not json\n',
        "binary": bytes(range(256)) * 4,
        "empty": b"",
        "runs": (ROOT / "tests" / "fixtures" / "bench" / "runs.jsonl").read_bytes(),
        "tests": (ROOT / "examples" / "code_qa.tests.toml").read_bytes().replace(b"code_qa.altl", b"policy.altl"),
    }
    suffix = {"policy": ".altl", "policy2": ".altl", "broken_policy": ".altl", "weird_policy": ".altl",
              "artifact": ".json", "edited_artifact": ".json", "trace": ".jsonl", "bad_trace": ".jsonl",
              "runs": ".jsonl", "tests": ".tests.toml"}
    paths = {}
    for name, data in files.items():
        path = root / (name + suffix.get(name, ""))
        path.write_bytes(data)
        paths[name] = str(path)
    paths["missing"] = str(root / "missing.altl")
    paths["folder"] = str(root)
    if POSIX:
        os.mkfifo(root / "fifo")
        paths["fifo"] = str(root / "fifo")
        os.symlink(root / "loop", root / "loop")
        paths["loop"] = str(root / "loop")
    paths["out"] = str(root / "out" / "written")
    (root / "out").mkdir()
    return paths


@functools.cache
def commands() -> dict[str, click.Command]:
    """Every subcommand to fuzz (loaded when the fuzzer first draws: collecting imports none)."""
    out = {}
    # every subcommand but the two servers (`lsp`, `gateway`), which serve standard input until it closes
    for name in ("check", "fmt", "lint", "compile", "score", "replay", "report", "graph", "explain", "test",
                 "conformance", "import-tools", "infer-tools", "assure"):
        out[name] = cli.get_command(None, name)  # type: ignore[arg-type]
    bench = cli.get_command(None, "bench")  # type: ignore[arg-type]
    for name in ("list", "generate", "scripted", "score", "stats"):
        out[f"bench {name}"] = bench.get_command(None, name)  # type: ignore[union-attr]
    return out


WORDS = ["0", "1", "-1", "3", "nan", "1e400", "0.9999999999999999", "1000000001", "2147483648", "", "x", "\x1b[2J", "loop_termination", "L0006", "search_first",
         "table", "json", "block", "deny", "record", "vetted=os:system", "a=b:c"]


@st.composite
def argv(draw, files):
    name = draw(st.sampled_from(sorted(commands())))
    command = commands()[name]
    words: list[str] = name.split()
    pool = st.sampled_from(sorted(files.values()) + ["-"])
    for param in command.params:
        if isinstance(param, click.Argument):
            count = 1 if param.nargs == 1 else draw(st.integers(0 if not param.required else 1, 3))
            words += [draw(pool) for _ in range(count)]
        elif draw(st.integers(0, 3)) == 0:
            flag = draw(st.sampled_from(param.opts))
            if flag in ("-o", "--output", "--junit"):  # options that name a file to write
                words += [flag, draw(st.sampled_from([files["out"], files["missing"], files.get("fifo", files["out"]),
                                                      files["policy"], files["folder"]]))]
            elif getattr(param, "is_flag", False):
                words.append(flag)
            elif isinstance(param.type, click.Choice):
                words += [flag, draw(st.sampled_from(list(param.type.choices) + ["nope"]))]
            else:
                words += [flag, draw(st.one_of(st.sampled_from(WORDS), pool))]
    if draw(st.integers(0, 9)) == 0:
        words.insert(draw(st.integers(0, len(words))), draw(st.sampled_from(["--help", "--bogus", "-"])))
    return words


@pytest.mark.slow
@pytest.mark.skipif(not POSIX, reason="the corpus has FIFOs and looping links")
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                   HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_no_argument_vector_makes_any_subcommand_crash(corpus, data, monkeypatch):
    monkeypatch.chdir(Path(corpus["out"]).parent)  # files an option names relatively land in the corpus
    words = data.draw(argv(corpus))
    stdin = data.draw(st.sampled_from([b"", b"{not json", b'{"tool_calls": []}', b"rule r: true\n", b"\x00\xff"]))
    if "lint" in words:  # keep the solver's bounded queries small
        words += ["--bound", "3"]
    words = ["local" if w == "ray" else w for w in words]  # a Ray cluster per example is too slow (test_ray.py)
    if "bench" in words and "generate" in words and "-o" not in words:
        words += ["-o", corpus["out"] + "_bench"]
    policyc(*words, stdin=stdin)  # asserts: exit 0, 1 or 2, no traceback, no internal error
    original = (ROOT / "examples" / "code_qa.altl").read_bytes()
    if "--force" in words:  # told to replace a policy source: it may have; the next example needs it back
        Path(corpus["policy"]).write_bytes(original)
    assert Path(corpus["policy"]).read_bytes() == original


@pytest.mark.parametrize("debug", [False, True])
def test_an_internal_error_is_exit_3_with_or_without_its_traceback(debug):
    """docs/cli.md: POLICYC_DEBUG=1 shows the traceback of an internal error. Found by a sweep
    written from the docs alone: it also changed the exit code to 1, which CI reads as findings."""
    script = ("import policyc.check as c\n"
              "def broken(*a, **k): raise RuntimeError('a bug')\n"
              "c.check_file = broken\n"
              "from policyc.cli import main\n"
              "main(['check', 'examples/code_qa.altl'])\n")
    env = {k: v for k, v in os.environ.items() if k != "POLICYC_DEBUG"} | ({"POLICYC_DEBUG": "1"} if debug else {})
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, cwd=ROOT,
                          timeout=300)
    assert done.returncode == 3, done.stderr
    assert ("Traceback" in done.stderr) is debug and "RuntimeError" in done.stderr
