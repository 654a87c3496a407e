"""Hostile input: artifacts edited by someone who recomputes the content hash (anyone can).

Such an artifact used to reach the gate: `dfa = {}` was a KeyError (exit 3), and one edited
transition made `propose` follow shortest paths around a cycle forever. Loading now checks
the whole artifact (`policyc.tables` validates every table as it reads it): each edit below
is an `ArtifactError` naming the field, and a random edit either is refused so or loads
into a monitor that gates, snapshots and finishes runs normally. Artifacts may also be
signed (HMAC-SHA256) by whoever holds a deployment's key.
"""

from __future__ import annotations

import copy
import json

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from policyc.artifact.build import build_artifact, compile_file
from policyc.check import check_text
from policyc.artifact.hashing import content_hash
from policyc.artifact.io import dump_artifact, parse_artifact
from policyc.cli import cli
from policyc.runtime import ArtifactError, Monitor, RunError
from policyc.tables.dfa import analyse
from hostile_helpers import hang_guard, json_paths

EXAMPLES = ("code_qa", "support_desk", "fan_out_fan_in", "file_handling", "line_restoration", "diverse_tools")
#: Three rules guard `refund`: the compiler records the joint letters of its atoms.
JOINT = """\
tool refund(amount: int, order: str)
tool approve(order: str)
terminal tool done()
rule small: always (refund -> refund(amount < 100))
rule approved: always (refund(amount > 50) -> once approve)
rule one_order: always (refund(order == "A") -> once approve(order == "A"))
"""
EXAMPLES = (*EXAMPLES, "joint")


class _Artifacts(dict):
    """Each example's artifact as JSON data, compiled when a test first asks (not at collection)."""

    def __missing__(self, name: str) -> dict:
        policy = build_artifact(check_text(JOINT, "joint.altl")[0]) if name == "joint" else \
            compile_file(f"examples/{name}.altl")
        self[name] = json.loads(dump_artifact(policy))
        return self[name]


ARTIFACTS = _Artifacts()


def resealed(data: dict) -> str:
    """The artifact text with its content hash recomputed, as an attacker would."""
    body = {k: v for k, v in data.items() if k not in ("content_hash", "signature")}
    return json.dumps({**body, "content_hash": content_hash(body)})


def edited(name: str, edit) -> str:
    data = copy.deepcopy(ARTIFACTS[name])
    edit(data)
    return resealed(data)


def dfa_of(data: dict, rule: str) -> dict:
    index = next(r["automaton"] for r in data["rules"] if r["name"] == rule)
    return data["automata"][index]["rule"]["parts"][0]["dfa"]


def slice_of(data: dict, rule: str) -> dict:
    index = next(r["automaton"] for r in data["rules"] if r["name"] == rule)
    return data["automata"][index]["rule"]["parts"][0]["slice"]


def refusal(text: str) -> str:
    with pytest.raises(ArtifactError) as refused:
        parse_artifact(text, "a.json")
    assert refused.value.help  # always says what to do
    return str(refused.value)


# ------------------------------------------------------------------ the two edits


def test_an_emptied_automaton_is_refused_naming_it():
    text = edited("code_qa", lambda d: d["automata"][0]["rule"]["parts"][0].update(dfa={}))
    assert refusal(text) == "`a.json` is inconsistent: automata[0].rule.parts[0].dfa: the field `alphabet` is missing"


def test_a_transition_edited_into_a_cycle_is_refused_not_followed_forever():
    """`search_first` in its open state: point the first letter of its shortest path to
    acceptance back at the state itself. Following that path would never end."""
    def edit(d):
        dfa = dfa_of(d, "search_first")
        q = next(q for q, v in enumerate(dfa["verdict"]) if v == "open" and dfa["to_accept"][q] is not None)
        dfa["delta"][q][dfa["to_accept"][q]] = q
    message = refusal(edited("code_qa", edit))
    assert message.startswith("`a.json` is inconsistent: automata[0].rule.parts[0].dfa.")


@pytest.mark.parametrize("command", ["score", "replay"])
def test_the_cli_refuses_an_edited_artifact_with_exit_2(tmp_path, command):
    path = tmp_path / "a.json"
    path.write_text(edited("code_qa", lambda d: d["automata"][0]["rule"]["parts"][0].update(dfa={})))
    result = CliRunner().invoke(cli, [command, str(path), "examples/traces/code_qa.jsonl"])
    assert result.exit_code == 2 and result.exception is None or isinstance(result.exception, SystemExit)
    assert "is inconsistent: automata[0].rule.parts[0].dfa: the field `alphabet` is missing" in result.stderr
    assert "help: recompile the policy" in result.stderr


# ------------------------------------------------------------------ one check per edit


def _first_open(dfa):
    return next(q for q, v in enumerate(dfa["verdict"]) if v == "open")


EDITS = [
    ("state out of range", lambda d: dfa_of(d, "search_first")["delta"][0].__setitem__(0, 7),
     "dfa.delta[0]: 7 is out of range (0 to 3)"),
    ("a row without a letter", lambda d: dfa_of(d, "search_first")["delta"][1].pop(),
     "dfa.delta[1]: must list a next state for each of the"),
    ("initial state out of range", lambda d: dfa_of(d, "search_first").update(initial=-1),
     "dfa.initial: -1 is out of range (0 to 3)"),
    ("a verdict that is not one", lambda d: dfa_of(d, "search_first")["verdict"].__setitem__(0, "maybe"),
     "dfa.verdict[0]: must be satisfied, violated or open"),
    ("a verdict its transitions contradict", lambda d: dfa_of(d, "search_first")["verdict"].__setitem__(
        0, "satisfied"), "dfa.verdict[0]: the state is open, not satisfied"),
    ("accepting of the wrong length", lambda d: dfa_of(d, "search_first")["accepting"].append(True),
     "dfa.accepting: has 5 entries, not 4"),
    ("a distance that is wrong", lambda d: dfa_of(d, "search_first")["dist_accept"].__setitem__(0, 1),
     "dfa.dist_accept[0]: the state is 2 letters from acceptance, not 1"),
    ("to_reject where none can be", lambda d: dfa_of(d, "search_first")["to_reject"].__setitem__(1, 0),
     "dfa.to_reject[1]: must be null"),
    ("a letter out of range", lambda d: dfa_of(d, "search_first")["alphabet"]["tools"]["search"]["letters"]
     .__setitem__("0", 99), "letters['0']: 99 is out of range"),
    ("two tools with one letter", lambda d: dfa_of(d, "search_first")["alphabet"]["tools"]["search"]["letters"]
     .__setitem__("0", 0), "also belongs to"),
    ("a truth mask wider than the atoms", lambda d: dfa_of(d, "search_first")["alphabet"]["tools"]["search"]
     ["letters"].__setitem__("2", 5), "letters: 2 is out of range (0 to 0)"),
    ("a letter nobody has", lambda d: dfa_of(d, "search_first")["alphabet"].update(other=9),
     "letters 0 to 8 must each belong to one tool's truth mask"),
    ("an atom that does not exist", lambda d: dfa_of(d, "search_first")["alphabet"]["tools"]["search"]
     .update(atoms=[3]), "atoms: 3 is out of range"),
    ("a skeleton part that does not exist", lambda d: d["automata"][0]["rule"].update(skeleton=3),
     "automata[0].rule.skeleton: 3 is out of range (0 to 0)"),
    ("a skeleton that is not one", lambda d: d["automata"][0]["rule"].update(skeleton=["xor", [0]]),
     'must be a part\'s index, ["not", s] or ["and"|"or", [s, ...]]'),
    ("a skeleton nested too deeply", lambda d: d["automata"][0]["rule"].update(
        skeleton=json.loads('["not", ' * 70 + "0" + "]" * 70)), "nested more than 64 levels deep"),
    ("a formula node pointing forward", lambda d: d["formulas"]["nodes"].insert(0, ["Not", 5]),
     "formulas: node 0 (Not): field 1 refers to node 5, which does not come before it"),
    ("an operator that does not exist", lambda d: d["formulas"]["nodes"].append(["Op", "exec", []]),
     "`exec` is not an operator"),
    ("a node of no kind", lambda d: d["formulas"]["nodes"].append(["Eval", "import os"]),
     "'Eval' is not a kind of node"),
    ("a rule whose formula is a term", lambda d: (d["formulas"]["nodes"].append(["Lit", 1]),
                                                  d["formulas"]["roots"].__setitem__(0, len(d["formulas"]["nodes"]) - 1)),
     "rule `search_first`: its formula 0 is a term, not a formula"),
    ("joint letters beyond their atoms", lambda d: d["joint"].update(search={"atoms": ["k"], "masks": [5],
                                                                              "exact": True}),
     "joint['search'].masks: 5 is out of range (0 to 1)"),
    ("a type that is not one", lambda d: d["tools"][0]["params"][0].update(type={"list": "integer"}),
     "tools[0]: not a type: 'integer'"),
    ("an automaton entry of another shape", lambda d: d["automata"][0].update(extra=1),
     'automata[0]: must be {"rule": ...}'),
]


@pytest.mark.parametrize("what, edit, message", EDITS, ids=[e[0] for e in EDITS])
def test_each_inconsistency_is_refused_with_a_message_naming_the_field(what, edit, message):
    assert message in refusal(edited("code_qa", edit))


SLICE_EDITS = [
    ("an instance automaton over another alphabet", lambda s: next(iter(s["bodies"].values()))["alphabet"]
     .update(other=0), "bodies['0'].alphabet: must be the part's alphabet"),
    ("a body mask beyond the static atoms", lambda s: s["bodies"].__setitem__("4", next(iter(s["bodies"].values()))),
     "bodies: 4 is out of range"),
    ("terms given to no tool", lambda s: s.update(static_atoms=0, touch=[]), "term(s) are not given to any tool"),
    ("a domain entry of another shape", lambda s: s["domain"].append(["a", "path", 1]),
     "must be [tool, path, flatten]"),
    ("a quantifier that is neither", lambda s: s.update(kind="most"), "`most` is not one of forall, exists"),
]


@pytest.mark.parametrize("what, edit, message", SLICE_EDITS, ids=[e[0] for e in SLICE_EDITS])
def test_sliced_tables_are_checked_too(what, edit, message):
    assert message in refusal(edited("support_desk", lambda d: edit(slice_of(d, "eligible_before_refund"))))


PAIR = """\
tool build(service: str, version: str)
tool test(service: str, version: str) -> { passed: bool }
rule tested: always (build(service: s, version: v) -> once test(service: s, version: v, result.passed == true))
"""
PAIR_EDITS = [
    ("components for fewer domain entries", lambda s: s["components"].pop(), "components: must give one component"),
    ("a component beyond the tuple", lambda s: s["components"].__setitem__(0, 2), "components[0]: 2 is out of range"),
    ("an arity of nothing", lambda s: s.update(arity=0), "arity: 0 is out of range"),
    ("an event with one term of two", lambda s: s.update(touch=[[t, c - 1] for t, c in s["touch"]]),
     "touch: 2 term(s) are not given to any tool"),
    ("components on a part over one variable", lambda s: s.update(arity=1), "only a part over a tuple"),
    ("a literal domain beside a tuple", lambda s: s.update(constants=[1]), "arity: a part over a tuple has no static"),
]


@pytest.mark.parametrize("what, edit, message", PAIR_EDITS, ids=[e[0] for e in PAIR_EDITS])
def test_parts_over_pairs_are_checked_too(what, edit, message):
    data = json.loads(dump_artifact(build_artifact(check_text(PAIR, "pair.altl")[0])))
    assert slice_of(data, "tested")["arity"] == 2
    edit(slice_of(data, "tested"))
    assert message in refusal(resealed(data))


def test_a_zero_byte_artifact_is_refused_not_read_as_an_empty_policy(tmp_path):
    empty = tmp_path / "empty.json"
    empty.write_bytes(b"")
    with pytest.raises(ArtifactError, match="is empty, not a policyc monitor artifact"):
        Monitor.load(empty)
    for command in ("score", "replay"):
        result = CliRunner().invoke(cli, [command, str(empty), "examples/traces/code_qa.jsonl"])
        assert result.exit_code == 2 and "is empty, not a policyc monitor artifact" in result.stderr
    unnamed = tmp_path / "policy"
    unnamed.write_bytes(b"  \n")
    result = CliRunner().invoke(cli, ["score", str(unnamed), "examples/traces/code_qa.jsonl"])
    assert result.exit_code == 2 and "is empty: it is neither a policy nor an artifact" in result.stderr


# ------------------------------------------------------------------ signatures


@pytest.fixture
def signed(tmp_path):
    key = tmp_path / "key"
    key.write_text("deployment secret\n")
    result = CliRunner().invoke(cli, ["compile", "examples/code_qa.altl", "-o", str(tmp_path / "a.json"),
                                      "--sign-key-file", str(key)])
    assert result.exit_code == 0 and "signed" in result.output
    return tmp_path


def test_a_signed_artifact_loads_with_its_key_from_the_api_the_environment_and_the_cli(signed, monkeypatch):
    assert Monitor.load(signed / "a.json", key=b"deployment secret").name == "code_qa"
    assert Monitor.load(signed / "a.json", key="deployment secret").name == "code_qa"
    monkeypatch.setenv("POLICYC_ARTIFACT_KEY", "deployment secret")
    assert Monitor.load(signed / "a.json").name == "code_qa"
    result = CliRunner().invoke(cli, ["replay", str(signed / "a.json"), "examples/traces/code_qa.jsonl"])
    assert result.exit_code in (0, 1)
    result = CliRunner().invoke(cli, ["score", str(signed / "a.json"), "examples/traces/code_qa.jsonl",
                                      "--key-file", str(signed / "key")])
    assert result.exit_code in (0, 1)


def test_a_key_refuses_unsigned_wrongly_signed_and_resealed_artifacts(signed, tmp_path):
    with pytest.raises(ArtifactError, match="is not signed with this key: its signature does not match"):
        Monitor.load(signed / "a.json", key=b"another key")
    unsigned = tmp_path / "unsigned.json"
    unsigned.write_text(dump_artifact(compile_file("examples/code_qa.altl")))
    with pytest.raises(ArtifactError, match="is not signed, and a key was given to verify it"):
        Monitor.load(unsigned, key=b"deployment secret")
    data = json.loads((signed / "a.json").read_text())  # edited, content hash recomputed, old signature kept
    dfa_of(data, "search_first")["accepting"] = [True] * 4
    text = resealed(data)
    resealed_signed = tmp_path / "resealed.json"
    resealed_signed.write_text(json.dumps({**json.loads(text), "signature": data["signature"]}))
    with pytest.raises(ArtifactError, match="not signed with this key"):
        Monitor.load(resealed_signed, key=b"deployment secret")
    result = CliRunner().invoke(cli, ["score", str(unsigned), "examples/traces/code_qa.jsonl"],
                                env={"POLICYC_ARTIFACT_KEY": "deployment secret"})
    assert result.exit_code == 2 and "is not signed, and a key was given to verify it" in result.stderr


def test_an_empty_key_file_is_refused(tmp_path):
    (tmp_path / "key").write_text("\n")
    result = CliRunner().invoke(cli, ["compile", "examples/code_qa.altl", "-o", str(tmp_path / "a.json"),
                                      "--sign-key-file", str(tmp_path / "key")])
    assert result.exit_code == 2 and "is empty" in result.stderr


# ------------------------------------------------------------------ fuzzing


def _dfas(value):
    if isinstance(value, dict):
        if "delta" in value and "accepting" in value:
            yield value
        for v in value.values():
            yield from _dfas(v)
    elif isinstance(value, list):
        for v in value:
            yield from _dfas(v)


VALUES = st.sampled_from([0, 1, -1, 2, 3, 99, None, True, False, "", "open", "violated", [], {}, [0], {"0": 0}, 1.5])


@st.composite
def random_edits(draw):
    """Any value anywhere replaced, deleted or duplicated; or automata rewired and their
    verdicts and shortest paths recomputed, so the tables stay consistent (and load)."""
    data = copy.deepcopy(ARTIFACTS[draw(st.sampled_from(EXAMPLES))])
    if draw(st.booleans()):
        tables = list(_dfas(data["automata"]))
        for _ in range(draw(st.integers(1, 3))):
            dfa = draw(st.sampled_from(tables))
            size = len(dfa["delta"])
            q = draw(st.integers(0, size - 1))
            if draw(st.booleans()):
                dfa["delta"][q][draw(st.integers(0, len(dfa["delta"][q]) - 1))] = draw(st.integers(0, size - 1))
            else:
                dfa["accepting"][q] = not dfa["accepting"][q]
            verdict, to_accept, dist_accept, to_reject = analyse(dfa["delta"], dfa["accepting"])
            dfa.update(verdict=list(verdict), to_accept=list(to_accept), dist_accept=list(dist_accept),
                       to_reject=list(to_reject))
        return resealed(data)
    paths = [p for p in json_paths(data) if p and p[0] != "content_hash"]
    for _ in range(draw(st.integers(1, 3))):
        path = draw(st.sampled_from(paths))
        parent = data
        try:
            for key in path[:-1]:
                parent = parent[key]
            action = draw(st.sampled_from(["set", "set", "delete", "copy"]))
            if action == "set":
                parent[path[-1]] = draw(VALUES)
            elif action == "delete":
                del parent[path[-1]]
            elif isinstance(parent, list):
                parent.append(copy.deepcopy(parent[path[-1]]))
        except (KeyError, IndexError, TypeError):
            continue
    return resealed(data)


CALL = st.tuples(st.sampled_from(["search", "read_file", "final_answer", "lookup_order", "issue_refund",
                                  "check_eligibility", "tool_a", "tool_b", "write_file", "refund", "approve",
                                  "done", "other"]),
                 st.dictionaries(st.sampled_from(["query", "path", "order_id", "answer", "amount", "seed", "order"]),
                                 st.one_of(st.integers(-3, 3), st.text(max_size=3), st.none()), max_size=3),
                 st.one_of(st.none(), st.just({"eligible": True}), st.just(["a.py"]), st.text(max_size=5)))


@pytest.mark.slow
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_edits(), st.lists(CALL, max_size=6))
def test_a_random_edit_is_refused_or_loads_into_a_working_gate(text, calls):
    with hang_guard("an edited artifact made the gate loop"):
        try:
            artifact = parse_artifact(text)
        except ArtifactError as refused:
            assert str(refused) and "\n" not in str(refused)
            return
        monitor = Monitor(artifact)  # the examples have no externs
        run = monitor.start()
        for tool, args, result in calls:
            decision = run.propose(tool, args)
            assert decision.action in ("allow", "warn", "block", "stop")
            run.allowed_next(), run.required()
            if decision.executes:
                run.record(tool, args, result)
            if decision.action == "stop" or run.ended:
                break
        restored = monitor.restore(json.loads(json.dumps(run.snapshot())))
        assert restored.trace.calls == run.trace.calls
        report = run.finish()
        assert 0.0 <= report.compliance_score <= 1.0
        with pytest.raises(RunError):
            run.propose("search", {})


def test_loading_a_fifo_nobody_writes_to_does_not_wait(tmp_path):
    # `Monitor.load` looked at the file's first bytes to tell a policy source from an
    # artifact with a plain open(), which blocks on a FIFO until someone writes (found by a
    # sweep written from the docs alone); the artifact reader never waits on one
    import os

    from policyc.artifact.errors import ArtifactError
    from policyc.runtime import Monitor

    fifo = tmp_path / "policy.json"
    os.mkfifo(fifo)
    with pytest.raises(ArtifactError, match="empty"):
        Monitor.load(str(fifo))


@pytest.mark.parametrize("given", [{}, "policy.json", None, 3])
def test_a_monitor_made_from_something_else_than_an_artifact_says_so(given):
    # `Monitor({...})` raised AttributeError from deep inside (found by a sweep written from
    # the docs alone): the docs promise ArtifactError, with what to do instead
    from policyc.artifact.errors import ArtifactError
    from policyc.runtime import Monitor

    with pytest.raises(ArtifactError, match="made from an artifact") as error:
        Monitor(given)
    assert "Monitor.load(path)" in (error.value.help or "")


def test_an_artifact_without_rules_or_with_a_nameless_rule_is_refused(tmp_path):
    """Found by a sweep written from the docs alone: an artifact whose `rules` was emptied (its
    hash recomputed) loaded, and every run scored 1.000 FULL with exit 0; a rule named "" was
    accepted, and `assure` then ended with exit 3. No policy compiles to either."""
    empty = tmp_path / "empty.json"
    empty.write_text(edited("code_qa", lambda d: d.update(rules=[])))
    nameless = tmp_path / "nameless.json"
    nameless.write_text(edited("code_qa", lambda d: d["rules"][0].update(name="")))
    with pytest.raises(ArtifactError, match="has no rules"):
        Monitor.load(empty)
    assert "`rules.0.name`" in refusal(nameless.read_text())
    for path, said in ((empty, "has no rules"), (nameless, "rules.0.name")):
        for command in ("score", "replay", "assure"):
            result = CliRunner().invoke(cli, [command, str(path), "examples/traces/code_qa.jsonl"])
            assert result.exit_code == 2 and said in result.output + result.stderr, (command, result.output)


def test_assure_takes_a_rule_name_as_long_as_a_policy_may_write(tmp_path):
    """Found by the same sweep: a rule named with 301 characters checks, and `assure` ended with
    exit 3 (its obligations took names of at most 200)."""
    name = "r" * 301
    policy = tmp_path / "long.altl"
    policy.write_text(f"tool search(query: str)\nrule {name}: called(search)\n")
    result = CliRunner().invoke(cli, ["assure", str(policy), "examples/traces/code_qa.jsonl"])
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert result.exit_code in (0, 1, 2), result.output
