"""The SAAG cascade: strict halting, the corrections ψ1–ψ3, properties over generated registries
(a gold call always passes; each injected fault is caught at its stage; a correction never
shows a gold value), and the gate returning the correction as its refusal message."""

from __future__ import annotations

import re
import string

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from runtime_helpers import monitor_of

from policyc.ir.types import BOOL, INT, STR, OptionalT, Param, ToolSignature
from policyc.saag import metrics as m
from policyc.saag.cascade import GROUNDING, REGISTRY, STRUCTURE, TYPE, assess, ground_value
from policyc.saag.corrections import correction, reveals
from policyc.saag.dataset import ToolCall
from policyc.saag.faults import FAULTS, inject
from policyc.saag.schema import registry_from_json

WEATHER = registry_from_json([
    {"name": "get_weather", "parameters": {"type": "dict", "properties": {
        "city": {"type": "string"}, "days": {"type": "integer"}, "unit": {"type": "string", "enum": ["C", "F"]}},
        "required": ["city"]}},
    {"name": "book_flight", "parameters": {"type": "dict", "properties": {
        "origin": {"type": "string"}, "destination": {"type": "string"}}, "required": ["origin", "destination"]}},
])
QUERY = "What is the weather in Paris for the next 3 days?"


# ------------------------------------------------------------------ the cascade


def stages(a):
    return [s.stage for s in a.stages]


def test_a_conforming_call_passes_every_stage():
    a = assess("get_weather", {"city": "Paris", "days": 3}, WEATHER, QUERY)
    assert a.passed and stages(a) == [REGISTRY, STRUCTURE, TYPE, GROUNDING] and correction(a) is None
    g = a.result(GROUNDING)
    assert (g.avem, g.qslo, g.vhr_ctx) == (1.0, None, 0.0)


def test_the_cascade_halts_at_the_first_failing_stage():
    # a wrong name: nothing after the registry is computed, not even the obviously wrong arguments
    a = assess("get_wether", {"cty": 7}, WEATHER, QUERY)
    assert (a.halted_at, stages(a)) == (REGISTRY, [REGISTRY])
    assert a.stages[0].fnem == 0 and a.stages[0].nearest == "get_weather"
    # a structural problem: types and grounding wait until the structure is right
    a = assess("get_weather", {"city": 7, "colour": "x"}, WEATHER, QUERY)
    assert (a.halted_at, stages(a)) == (STRUCTURE, [REGISTRY, STRUCTURE])
    assert a.stages[1].spurious == ("colour",) and a.stages[1].spr == 0.5
    # a type problem before grounding
    a = assess("get_weather", {"city": "Paris", "days": "3"}, WEATHER, QUERY)
    assert (a.halted_at, [p.code for p in a.problems]) == (TYPE, ["wrong-type"])


def test_drift_triggers_a_correction_even_when_the_formal_criterion_holds():
    # `dayss` misspells the optional `days`: RPR = 1 and SPR = 0, the paper's pass criterion, so
    # the cascade goes on; a drifted parameter still always gets its correction
    a = assess("get_weather", {"city": "Paris", "dayss": 3}, WEATHER, QUERY)
    s = a.result(STRUCTURE)
    assert s.passed and dict(s.drifted) == {"dayss": "days"}
    assert a.passed and stages(a) == [REGISTRY, STRUCTURE, TYPE, GROUNDING]
    assert [p.code for p in a.problems] == ["drifted-argument"] and a.corrected == a.problems
    assert correction(a) == ("Some parameters appear misspelled and deviate slightly from the registry: `dayss` "
                             "(did you mean `days`?). Please ensure all parameter names exactly match the schema in "
                             "the system prompt.")
    # and when a later stage halts, its correction follows the drift's
    a = assess("get_weather", {"city": "Lyon", "dayss": 3}, WEATHER, QUERY)
    assert a.halted_at == GROUNDING and [p.code for p in a.problems] == ["drifted-argument", "ungrounded-value"]
    assert correction(a).startswith("Some parameters appear misspelled") and "no grounding" in correction(a)


def test_a_required_parameter_drifted_halts_at_structure():
    a = assess("get_weather", {"cityy": "Paris"}, WEATHER, QUERY)
    assert a.halted_at == STRUCTURE and a.stages[-1].rpr == 0.0


def test_without_a_query_grounding_is_not_assessed():
    a = assess("get_weather", {"city": "Lyon"}, WEATHER)
    assert a.passed and not a.grounded and stages(a) == [REGISTRY, STRUCTURE, TYPE]


def test_grounding_strata():
    a = assess("book_flight", {"origin": "Pariss", "destination": "Helsinki"}, WEATHER, "Fly from Paris to Rome")
    g = a.result(GROUNDING)
    assert g.soft == ("origin",) and g.hard == ("destination",) and g.numeric == ()
    assert [p.code for p in a.problems] == ["loose-value", "ungrounded-value"]
    a = assess("get_weather", {"city": "Paris", "days": 5}, WEATHER, QUERY)
    assert a.result(GROUNDING).numeric == ("days",) and [p.code for p in a.problems] == ["ungrounded-number"]
    # no numbers in the query: the number is assumed, excluded from VHR_ctx, and the call passes
    a = assess("get_weather", {"city": "Paris", "days": 5}, WEATHER, "Weather in Paris?")
    assert a.passed and a.result(GROUNDING).assumed == ("days",)


# ------------------------------------------------------------------ the corrections


def test_corrections_follow_the_paper_s_templates():
    assert correction(assess(None, {}, WEATHER, QUERY)) == (
        "No function name found. Please return only the agent invocation in the exact JSON format specified in "
        "the registry.")
    assert correction(assess("launch_rocket", {}, WEATHER, QUERY)) == (
        'Function name "launch_rocket" not found in registry. Please check the system prompt for the correct '
        "function names and respond with only the agent invocation in the exact JSON format specified.")
    text = correction(assess("book_flight", {"orign": "Paris", "when": "now"}, WEATHER, QUERY))
    assert text == (
        "Key parameters of the agent from the registry are missing: `origin` and `destination`. Please ensure the "
        "invocation includes all parameters specified for that agent in the system prompt. Spurious parameters not "
        "present in the registry are included: `when`. Please include only the parameters specified for that agent. "
        "Some parameters appear misspelled and deviate slightly from the registry: `orign` (did you mean `origin`?). "
        "Please ensure all parameter names exactly match the schema in the system prompt.")
    text = correction(assess("get_weather", {"city": "Pariss", "days": 5}, WEATHER, QUERY))
    assert text == (
        "The numeric values for `days` do not match what the user stated. Use the exact numbers from the user's "
        "request. The values for `city` are loosely related but not exact. Use the precise wording or value from "
        "the user's request.")


def test_corrections_are_deterministic():
    call = ("book_flight", {"orign": "Paris", "when": "now"})
    texts = {correction(assess(*call, dict(WEATHER), QUERY)) for _ in range(3)}
    assert len(texts) == 1


# ------------------------------------------------------------------ properties over generated registries

NAME = st.text(string.ascii_lowercase, min_size=4, max_size=10)
#: Gold string values: a capital V no template, name or joiner contains, so a leak is visible.
VALUE = st.text(string.ascii_lowercase, min_size=3, max_size=8).map(lambda s: "V" + s)
KINDS = {"str": STR, "int": INT, "bool": BOOL}


@st.composite
def cases(draw):
    """(registry, gold call, query): the gold call's values are all stated in the query."""
    tools = draw(st.lists(NAME, min_size=1, max_size=5, unique=True))
    registry = {}
    for t in tools:
        names = draw(st.lists(NAME, min_size=1, max_size=4, unique=True))
        params = []
        for p in names:
            kind = KINDS[draw(st.sampled_from(sorted(KINDS)))]
            params.append(Param(p, kind if draw(st.booleans()) else OptionalT(kind)))
        registry[t] = ToolSignature(t, tuple(params), STR)
    tool = draw(st.sampled_from(tools))
    args = {}
    for p in registry[tool].params:
        if p.required or draw(st.booleans()):
            kind = p.type.inner if isinstance(p.type, OptionalT) else p.type
            args[p.name] = (draw(VALUE) if kind is STR else draw(st.integers(0, 10_000)) if kind is INT
                            else draw(st.booleans()))
    stated = [str(v) for v in args.values() if not isinstance(v, bool)]
    query = "Please use " + " and ".join(stated or ["nothing"]) + " for this."
    return registry, ToolCall(tool, args), query


PROPERTY = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@PROPERTY
@given(cases())
def test_a_gold_call_always_passes(case):
    registry, gold, query = case
    a = assess(gold.name, gold.args, registry, query)
    assert a.passed, [str(p) for p in a.problems]
    assert stages(a) == [REGISTRY, STRUCTURE, TYPE, GROUNDING]


@PROPERTY
@given(cases(), st.sampled_from(sorted(FAULTS)), st.integers(0, 3))
def test_each_injected_fault_is_caught_at_its_stage(case, fault, seed):
    registry, gold, query = case
    bad = inject(fault, gold, registry, query, "generated", 0, seed)
    if bad is None:
        return  # the fault has nothing to change in this call (no required argument to drop, ...)
    a = assess(bad.name, bad.args, registry, query)
    stage = FAULTS[fault][0]  # halted there, or (a drifted optional parameter) corrected there
    assert a.halted_at == stage or stage in {p.stage for p in a.corrected}, (fault, bad, [str(p) for p in a.problems])
    assert inject(fault, gold, registry, query, "generated", 0, seed) == bad  # deterministic


@PROPERTY
@given(cases(), st.sampled_from(sorted(FAULTS)), st.integers(0, 3))
def test_a_correction_never_shows_a_gold_value(case, fault, seed):
    registry, gold, query = case
    bad = inject(fault, gold, registry, query, "generated", 0, seed)
    if bad is None:
        return
    text = correction(assess(bad.name, bad.args, registry, query))
    assert text is not None
    for value in gold.args.values():
        assert not reveals(text, value, bad.name, bad.args, registry)
        if isinstance(value, str):
            assert value not in text
    assert not re.search(r"\d", text)  # names here have no digits, and no value is ever quoted


@PROPERTY
@given(cases(), st.sampled_from(["hallucinated-string", "hallucinated-number"]), st.text(max_size=20))
def test_stage_3_metrics_equal_their_definitions(case, fault, noise):
    registry, gold, query = case
    query = query + " " + noise
    call = inject(fault, gold, registry, query, "generated") or gold
    g = assess(call.name, call.args, registry, query).result(GROUNDING)
    if g is None:
        return
    values = list(call.args.values())
    assert g.avem == pytest.approx(m.avem(values, query))
    assert g.vhr_ctx == pytest.approx(m.vhr_ctx(values, query))
    assert g.qslo == pytest.approx(m.qslo(values, query)) if g.qslo is not None else m.qslo(values, query) is None


def test_reveals_sees_a_value_outside_the_names_and_the_template():
    assert reveals("The values for `city` are loosely related: Paris.", "Paris", "w", ["city"], {})
    assert not reveals("The values for `city` are loosely related but not exact.", "city", "w", ["city"], {})
    assert reveals("use 42 instead", 42, "w", [], {}) and not reveals("use 420", 42, "w", [], {})


def repair(call: ToolCall, text: str) -> ToolCall:
    """An agent that reads only the correction: it takes the name it suggests, renames the
    parameters it says are misspelled and drops the ones it says are spurious."""
    name = call.name
    found = re.search(r'The closest registered name is "([^"]+)"', text)
    if found:
        name = found.group(1)
    args = dict(call.args)
    for wrong, right in re.findall(r"`([^`]+)` \(did you mean `([^`]+)`\?\)", text):
        args[right] = args.pop(wrong)
    spurious = re.search(r"included: (.*?)\. Please include only", text)
    for p in re.findall(r"`([^`]+)`", spurious.group(1) if spurious else ""):
        args.pop(p, None)
    return ToolCall(name, args)


@pytest.mark.parametrize("fault", ["misspelled-name", "drifted-parameter", "spurious-parameter"])
def test_a_self_repair_loop_converges_on_the_correction_alone(fault):
    gold = ToolCall("book_flight", {"origin": "Paris", "destination": "Rome"})
    query = "Fly from Paris to Rome"
    call = inject(fault, gold, WEATHER, query, "loop")
    for _ in range(3):
        a = assess(call.name, call.args, WEATHER, query)
        if a.passed:
            break
        call = repair(call, correction(a))
    assert a.passed and call == gold


# ------------------------------------------------------------------ the gate

GATE_TOOLS = """
tool search(query: str, limit: int?) -> any
tool read_file(path: str) -> any
terminal tool answer(text: str?)
"""


def gate():
    return monitor_of("conformance block\nrule r: called(search)\n", GATE_TOOLS)


def test_the_gate_refuses_with_the_correction():
    decision = gate().start().propose("serch", {"query": "cats"})
    assert decision.action == "block"
    assert decision.findings[0].detail == "unknown tool `serch` (did you mean `search`?)"
    assert decision.message.startswith(
        '`serch` was not executed:\nFunction name "serch" not found in registry. The closest registered name is '
        '"search".')
    decision = gate().start().propose("search", {"qeury": "cats"})
    assert [f.rule for f in decision.findings] == ["conformance/missing-argument", "conformance/drifted-argument"]
    assert "`qeury` (did you mean `query`?)" in decision.message
    assert decision.message.count("Key parameters") == 1  # one correction for the stage's findings


def test_the_gate_grounds_arguments_in_the_run_s_context():
    run = gate().start(context="Find the 3 newest files about cats.")
    assert run.propose("search", {"query": "cats", "limit": 3}).action == "allow"
    refused = run.propose("search", {"query": "cats", "limit": 4})
    assert refused.action == "block" and [f.rule for f in refused.findings] == ["conformance/ungrounded-number"]
    assert refused.message.split("\n")[1] == ("The numeric values for `limit` do not match what the user stated. "
                                              "Use the exact numbers from the user's request.")
    assert run.propose("read_file", {"path": "notes/cats.md"}).action == "block"
    # a value seen in a recorded result is grounded too
    run.record("search", {"query": "cats", "limit": 3}, ["notes/cats.md", "notes/dogs.md"])
    assert run.propose("read_file", {"path": "notes/cats.md"}).action == "allow"
    # the final answer is not grounded in the request (the policy's grounding rules judge answers)
    assert run.propose("answer", {"text": "whatever it found"}).action == "allow"


def test_signatures_only_checks_the_signatures_and_grounds_nothing():
    """`conformance block signatures only`: the registry, structure and type stages still
    refuse, grounding does not run, through a snapshot and in the artifact too."""
    from policyc.artifact.build import build_artifact
    from policyc.artifact.io import dump_artifact, parse_artifact

    monitor = monitor_of("conformance block signatures only\nrule r: called(search)\n", GATE_TOOLS)
    assert not monitor.policy.ground_arguments
    run = monitor.start(request="Find the 3 newest files about cats.")
    assert run.propose("search", {"query": "dogs", "limit": 4}).action == "allow"
    assert [f.rule for f in run.propose("search", {"query": 4}).findings] == ["conformance/wrong-type"]
    assert run.propose("serch", {"query": "cats"}).action == "block"
    assert monitor.restore(run.snapshot()).propose("read_file", {"path": "nowhere"}).action == "allow"
    grounded = gate().start(request="Find the 3 newest files about cats.")
    assert grounded.propose("search", {"query": "dogs", "limit": 4}).action == "block"  # the default grounds
    artifact = build_artifact(monitor.policy)
    assert artifact.policy.ground_arguments is False
    assert parse_artifact(dump_artifact(artifact)).policy.ground_arguments is False


def test_context_is_optional_settable_and_survives_a_snapshot():
    monitor = gate()
    run = monitor.start()
    assert run.context is None and run.propose("search", {"query": "dogs"}).action == "allow"  # no grounding
    run.set_context("Tell me about cats.")
    assert run.propose("search", {"query": "dogs"}).action == "block"
    restored = monitor.restore(run.snapshot())
    assert restored.context == "Tell me about cats."
    assert restored.propose("search", {"query": "birds"}).action == "block"
    with pytest.raises(TypeError, match="as text"):
        run.set_context(["not", "text"])


# ------------------------------------------------------------------ the gate's fast path

_SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.floats(allow_nan=False, width=16),
                     st.sampled_from(["", "x", "Paris"]))
_VALUES = st.recursive(_SCALARS, lambda inner: st.one_of(st.lists(inner, max_size=2),
                                                           st.dictionaries(st.sampled_from("ab"), inner, max_size=2)),
                       max_leaves=4)


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(["search", "book", "serch", "nothing"]),
       st.dictionaries(st.sampled_from(["query", "limit", "city", "nights", "flag", "qery"]), _VALUES, max_size=4))
def test_the_gates_fast_path_agrees_with_the_cascade(tool, args):
    """A call the gate lets through without the cascade is one the cascade passes, and the
    gate finds nothing in a call exactly when the cascade passes it with nothing to correct
    (a parameter that resembles one already given passes the paper's structure stage, SPR
    counting only parameters unlike every declared one, yet is reported by both)."""
    from policyc.ir.policy import Policy
    from policyc.ir.types import BOOL, FLOAT, INT, STR, ListT, OptionalT, Param, ToolSignature
    from policyc.runtime.conformance import ConformanceChecker

    tools = {"search": ToolSignature("search", (Param("query", STR), Param("limit", OptionalT(INT))), ListT(STR)),
             "book": ToolSignature("book", (Param("city", STR), Param("nights", FLOAT), Param("flag", OptionalT(BOOL))),
                                   STR)}
    checker = ConformanceChecker(Policy("p", None, tools, ()))
    slow = assess(tool, args, tools, None)
    if checker.conforms(tool, args):
        assert slow.passed, (tool, args, slow.problems)
    assert (checker.check(tool, args) == []) == (slow.passed and not slow.problems), (tool, args, slow.problems)


# ------------------------------------------------------------------ the gate's grounding text, kept as the run goes

_TEXTS = st.text(alphabet="0123456789.,-+eE ab\n", max_size=12)
_RESULTS = st.one_of(st.none(), _TEXTS, st.lists(st.one_of(st.integers(-5, 1200), st.floats(-1e4, 1e4), _TEXTS),
                                                 max_size=3))


@settings(max_examples=300, deadline=None)
@given(_TEXTS, st.lists(_RESULTS, max_size=5), st.integers(0, 5))
def test_the_kept_grounding_text_is_the_one_rebuilt(context, results, first):
    """`GroundingQuery` (read at a proposal, extended as results arrive) gives the text and the
    numbers that rebuilding them from the request and every result gives."""
    from policyc.runtime.conformance import GroundingQuery, grounding_text
    from policyc.trace.model import Call

    calls = [Call("t", {}, r, i) for i, r in enumerate(results)]
    kept = GroundingQuery(context)
    kept.read(calls[:first])  # part of the run first, then the rest
    text, numbers = kept.read(calls)
    assert text == grounding_text(context, calls)
    assert numbers == m.numbers_in(text)


_WORDS = st.sampled_from(["Paris", "paris", "Lyon", "x", "", " ", "12", "1,250.5", "-3", "ΣΑΣ", "a_b", "é"])
_RESULT_VALUES = st.recursive(st.one_of(st.none(), st.booleans(), st.integers(-5, 1300), _WORDS, _TEXTS),
                              lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                      st.dictionaries(_WORDS, inner, max_size=2)), max_leaves=6)


@settings(max_examples=300, deadline=None)
@given(st.one_of(_TEXTS, _WORDS), st.lists(_RESULT_VALUES, max_size=4), st.integers(0, 4),
       st.sampled_from(["search", "book", "serch"]),
       st.dictionaries(st.sampled_from(["query", "limit", "city", "nights", "flag", "qery"]),
                       st.one_of(_VALUES, _WORDS, st.integers(-5, 1300), st.lists(_WORDS, max_size=2)), max_size=3))
def test_the_gates_grounding_finds_what_the_cascade_finds_on_the_rebuilt_text(context, results, first, tool, args):
    """The gate grounds a call in its kept text (parts lowercased one by one, numbers read
    only as far as a proposed number needs) and skips the stages a conforming call passes;
    its findings are those of the whole cascade on the text rebuilt from the request and
    every result."""
    from policyc.ir.policy import Policy
    from policyc.ir.types import FLOAT, ListT, OptionalT as Opt
    from policyc.runtime.conformance import ConformanceChecker, GroundingQuery, grounding_text
    from policyc.trace.model import Call

    tools = {"search": ToolSignature("search", (Param("query", STR), Param("limit", Opt(INT))), ListT(STR)),
             "book": ToolSignature("book", (Param("city", STR), Param("nights", FLOAT), Param("flag", Opt(BOOL))),
                                   STR)}
    checker = ConformanceChecker(Policy("p", None, tools, ()))
    calls = [Call("t", {}, r, i) for i, r in enumerate(results)]
    kept = GroundingQuery(context)
    checker.check(tool, args, calls[:first], context, kept)  # part of the run first, then the rest
    found = checker.check(tool, args, calls, context, kept)
    slow = assess(tool, args, tools, grounding_text(context, calls))
    assert [(f.rule, f.detail, f.message) for f in found] == \
        [(f"conformance/{p.code}", str(p), correction(slow)) for p in slow.problems]


_LEAVES = st.one_of(st.sampled_from(["Paris", "paris", "Pariss", "aris", "York", "hotel", "", " ", "3", "x"]),
                    st.text(max_size=8), st.integers(-3, 5), st.sampled_from([2.5, 3.0, float("nan"), True, None]))
_GROUNDED = st.recursive(_LEAVES, lambda inner: st.lists(inner, max_size=4), max_leaves=8)


@PROPERTY
@given(_GROUNDED, st.sampled_from(["Book 2 rooms in Paris for 2.5 nights", "weather in paris", "", "New York 3"]))
def test_a_values_grounding_is_its_definition(value, query):
    """`ground_value` computes each exact match and PartialRatio once; what it reports is the
    definition's: ExactMatch, h (`metrics.hallucination`), and a PartialRatio when the first
    element reaching h (the value itself, if not a list) is a string."""
    v = ground_value("a", value, query)
    assert v.exact == m.exact_match(value, query)
    h = 0.0 if v.exact else m.hallucination(value, query)
    assert v.h == h
    items = m.leaves(value) if m.value_kind(value) == m.LIST else [value]
    reaching = [x for x in items if m.hallucination(x, query) == h]
    assert v.partial == (1.0 - h if h and m.value_kind(reaching[0]) == m.STRING else None)
