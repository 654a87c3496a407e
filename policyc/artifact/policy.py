"""Between a checked `ir.Policy` and the artifact's policy fields, both ways.

`policy_fields` writes what a policy declares (tools, rules, formulas, externs); `policy_of`
rebuilds the `ir.Policy` from a loaded artifact, so the runtime scores a run through the
same code path as `policyc score`, with no parser or checker involved.

>>> from policyc.ir import build as b
>>> from policyc.ir.policy import Policy, Rule, Severity
>>> p = Policy("p", None, {}, (Rule("r", b.eventually(b.event("a")), 2.0, "L5", Severity("block")),))
>>> fields = policy_fields(p, {"r": "offline-only"}, {})
>>> [r.name for r in fields["rules"]], fields["rules"][0].rule_class
(['r'], 'offline-only')
"""

from __future__ import annotations

from typing import Any, cast

from policyc.artifact.models import (
    Artifact, ExternModel, FormulaTable, ParamModel, PolicyInfo, RuleModel, SeverityModel, ToolModel,
)
from policyc.artifact.errors import ArtifactError
from policyc.ir import nodes as n
from policyc.ir.nodes import Formula
from policyc.ir.policy import ExternPredicate, Policy, Rule, Severity
from policyc.ir.serialize import NodeTableError, dump_nodes, load_nodes
from policyc.ir.types import ToolSignature, signature_from_json, signature_to_json, type_from_json, type_to_json
from policyc.tables.facts import OFFLINE_ONLY
from policyc.tables.policy import CompiledPolicy, CompiledRule
from policyc.tables.product import JointLetters
from policyc.tables.rule import PartTable, RuleTable
from policyc.tables.shape import TableError
from policyc.tables.slicing import SliceTable


def _severity(s: Severity) -> SeverityModel:
    return SeverityModel(kind=s.kind, limit=s.limit)


def policy_fields(policy: Policy, classes: dict[str, str | None],
                  automata: dict[str, tuple[int, str | None]]) -> dict[str, Any]:
    """The artifact fields a policy fills: `policy`, `tools`, `rules`, `formulas`, `externs`.

    `classes` maps each rule to its class; `automata` maps a compiled rule to (index of its
    table, None) and a rule scored offline only to (-1, the reason).
    """
    roots: list[n.Node] = [r.formula for r in policy.rules]
    applies: dict[str, int] = {}
    for rule in policy.rules:
        if rule.applicability is not None:
            applies[rule.name] = len(roots)
            roots.append(rule.applicability)
    table = dump_nodes(roots)
    rules = []
    for i, rule in enumerate(policy.rules):
        index, reason = automata.get(rule.name, (-1, "no automaton was built for this rule"))
        rules.append(RuleModel(
            name=rule.name, weight=rule.weight, layer=rule.layer, severity=_severity(rule.severity),
            message=rule.message, description=rule.description, source=rule.source,
            rule_class=classes.get(rule.name, "offline-only"), formula=i, applicability=applies.get(rule.name),
            automaton=index if index >= 0 else None, offline_reason=None if index >= 0 else reason))
    info = PolicyInfo(name=policy.name, description=policy.description, budget=policy.budget,
                      layers=dict(policy.layers), conformance=_severity(policy.conformance),
                      sources=[s.replace("\\", "/").rsplit("/", 1)[-1] for s in policy.sources],
                      observes=sorted(policy.observes), grounding=policy.grounding,
                      undecided=sorted(policy.undecided), ground_arguments=policy.ground_arguments)
    tools = [ToolModel.model_validate(signature_to_json(sig)) for sig in policy.tools.values()]
    externs = [ExternModel(name=e.name, params=[ParamModel(name=n, type=type_to_json(t)) for n, t in e.params])
               for e in policy.externs.values()]  # names only: the loading program binds them
    return {"policy": info, "tools": tools, "rules": rules,
            "formulas": FormulaTable(nodes=table["nodes"], roots=table["roots"]), "externs": externs}


def policy_of(artifact: Artifact) -> Policy:
    """The checked policy an artifact was compiled from (without source spans)."""
    formulas = load_nodes({"nodes": artifact.formulas.nodes, "roots": artifact.formulas.roots})
    return _policy(artifact, formulas, {t.name: signature_from_json(t.model_dump()) for t in artifact.tools})


def _policy(artifact: Artifact, formulas: list[n.Node], tools: dict[str, ToolSignature]) -> Policy:
    """The policy of an artifact whose formula table and tools are decoded already."""
    rules = tuple(
        Rule(r.name, cast(Formula, formulas[r.formula]), r.weight, r.layer, Severity(r.severity.kind, r.severity.limit),
             r.message, r.description, r.source,
             None if r.applicability is None else cast(Formula, formulas[r.applicability]))
        for r in artifact.rules)
    externs = {e.name: ExternPredicate(e.name, tuple((p.name, type_from_json(p.type)) for p in e.params), None)
               for e in artifact.externs}
    info = artifact.policy
    return Policy(info.name, info.description, tools, rules, dict(info.layers), externs, info.budget,
                  Severity(info.conformance.kind, info.conformance.limit), tuple(info.sources),
                  frozenset(info.observes), info.grounding, frozenset(info.undecided), info.ground_arguments)


def compiled_of(artifact: Artifact) -> CompiledPolicy:
    """The compiled policy an artifact holds: its policy and every rule's table, as compiled.
    Everything is checked on the way (`ArtifactError` when the artifact is inconsistent).

    >>> from policyc.artifact.build import compile_file
    >>> compiled_of(compile_file("examples/code_qa.altl")).classes
    {'search_first': 'gateable', 'reads_a_file': 'offline-only', 'grounded': 'offline-only'}
    """
    return verified_compiled(artifact)


def verified_compiled(artifact: Artifact, origin: str = "<artifact>") -> CompiledPolicy:
    """`compiled_of`, with each inconsistency an `ArtifactError` naming the artifact and the
    field: references between its parts, the node tables of formulas and guards, every
    automaton table (`policyc.tables`: states, letters, verdicts, slices, skeletons), the joint
    letters of tools, and the extern predicates the nodes call."""
    try:
        problem = _reference_problem(artifact)
        if problem is None:
            compiled = _compiled(artifact)
            problem = _use_problem(artifact, compiled)
    except (TableError, NodeTableError) as exc:
        problem = str(exc)
    except RecursionError:
        problem = "it is nested too deeply"
    if problem is not None:
        raise ArtifactError(f"`{origin}` is inconsistent: {problem}", _RECOMPILE)
    return compiled


_RECOMPILE = "recompile the policy with `policyc compile POLICY -o FILE`"


def _compiled(artifact: Artifact) -> CompiledPolicy:
    try:
        formulas = load_nodes({"nodes": artifact.formulas.nodes, "roots": artifact.formulas.roots})
    except NodeTableError as exc:
        raise TableError(f"formulas: {exc}") from None
    for r in artifact.rules:
        if not isinstance(formulas[r.formula], Formula):
            raise TableError(f"rule `{r.name}`: its formula {r.formula} is a term, not a formula")
        if r.applicability is not None and not isinstance(formulas[r.applicability], Formula):
            raise TableError(f"rule `{r.name}`: its applicability {r.applicability} is a term, not a formula")
    tools: dict[str, ToolSignature] = {}
    for i, tool in enumerate(artifact.tools):
        try:
            tools[tool.name] = signature_from_json(tool.model_dump())
        except (ValueError, KeyError, TypeError) as exc:
            raise TableError(f"tools[{i}]: {exc}") from None
    for i, ext in enumerate(artifact.externs):
        for p in ext.params:
            try:
                type_from_json(p.type)
            except ValueError as exc:
                raise TableError(f"externs[{i}]: {exc}") from None
    tables: dict[int, RuleTable] = {}
    rules = {}
    for r in artifact.rules:
        table = None
        if r.automaton is not None:
            table = tables.get(r.automaton)
            if table is None:
                entry = artifact.automata[r.automaton]
                if set(entry) != {"rule"}:
                    raise TableError(f'automata[{r.automaton}]: must be {{"rule": ...}}')
                table = tables[r.automaton] = RuleTable.from_json(cast(dict[str, Any], entry["rule"]), f"automata[{r.automaton}].rule")
        rules[r.name] = CompiledRule(table, r.rule_class or OFFLINE_ONLY, r.offline_reason)
    joint = {tool: JointLetters.from_json(cast(dict[str, Any], data), f"joint[{tool[:40]!r}]") for tool, data in artifact.joint.items()}
    return CompiledPolicy(_policy(artifact, formulas, tools), rules, joint)  # each table decoded once


def _reference_problem(artifact: Artifact) -> str | None:
    roots, tables = len(artifact.formulas.roots), len(artifact.automata)
    nodes = len(artifact.formulas.nodes)
    if any(not 0 <= r < nodes for r in artifact.formulas.roots):
        return "a formula root points outside the node table"
    names: set[str] = set()
    for rule in artifact.rules:
        if rule.name in names:
            return f"rule `{rule.name}` appears twice"
        names.add(rule.name)
        if rule.formula >= roots:
            return f"rule `{rule.name}` points to formula {rule.formula}, but there are {roots}"
        if rule.applicability is not None and rule.applicability >= roots:
            return f"rule `{rule.name}` points to formula {rule.applicability} for its applicability, but there are {roots}"
        if rule.automaton is not None and rule.automaton >= tables:
            return f"rule `{rule.name}` points to automaton {rule.automaton}, but there are {tables}"
    tools = [t.name for t in artifact.tools]
    if len(set(tools)) != len(tools):
        return "a tool is declared twice"
    externs = [e.name for e in artifact.externs]
    if len(set(externs)) != len(externs):
        return "an extern predicate is declared twice"
    return None


def _use_problem(artifact: Artifact, compiled: CompiledPolicy) -> str | None:
    """Extern predicates called but not declared: the loading program would not know to bind
    them."""
    declared = {e.name for e in artifact.externs}
    nodes: list[n.Node] = [r.formula for r in compiled.policy.rules]
    nodes += [r.applicability for r in compiled.policy.rules if r.applicability is not None]
    for rule in compiled.rules.values():
        for part in rule.table.parts if rule.table is not None else ():
            nodes.extend(_part_terms(part))
    for name in sorted(_extern_names(nodes) - declared):
        return f"extern predicate `{name}` is called but not declared in `externs`"
    return None


def _part_terms(part: PartTable) -> list[n.Node]:
    if isinstance(part, SliceTable):
        return [*part.alphabet.atoms, *part.static_atoms, *(t for ts in part.touch.values() for t in ts)]
    return list(part.alphabet.atoms)


def _extern_names(roots: list[n.Node]) -> set[str]:
    """The names of the extern predicates anywhere below `roots` (iteratively: DAGs share nodes)."""
    seen: set[int] = set()
    out: set[str] = set()
    stack = list(roots)
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, n.Extern):
            out.add(node.name)
        stack.extend(node.children)
    return out


__all__ = ["compiled_of", "policy_fields", "policy_of", "verified_compiled"]
