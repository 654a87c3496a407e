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

from typing import cast

from policyc.artifact.models import (
    Artifact, ExternModel, FormulaTable, ParamModel, PolicyInfo, RuleModel, SeverityModel, ToolModel,
)
from policyc.ir.nodes import Formula
from policyc.ir.policy import ExternPredicate, Policy, Rule, Severity
from policyc.ir.serialize import dump_nodes, load_nodes
from policyc.ir.types import signature_from_json, signature_to_json, type_from_json, type_to_json
from policyc.tables.facts import OFFLINE_ONLY
from policyc.tables.policy import CompiledPolicy, CompiledRule
from policyc.tables.product import JointLetters
from policyc.tables.rule import RuleTable


def _severity(s: Severity) -> SeverityModel:
    return SeverityModel(kind=s.kind, limit=s.limit)


def policy_fields(policy: Policy, classes: dict[str, str | None], automata: dict[str, tuple[int, str | None]]) -> dict:
    """The artifact fields a policy fills: `policy`, `tools`, `rules`, `formulas`, `externs`.

    `classes` maps each rule to its class; `automata` maps a compiled rule to (index of its
    table, None) and a rule scored offline only to (-1, the reason).
    """
    table = dump_nodes([r.formula for r in policy.rules])
    rules = []
    for i, rule in enumerate(policy.rules):
        index, reason = automata.get(rule.name, (-1, "no automaton was built for this rule"))
        rules.append(RuleModel(
            name=rule.name, weight=rule.weight, layer=rule.layer, severity=_severity(rule.severity),
            message=rule.message, description=rule.description, source=rule.source,
            rule_class=classes.get(rule.name, "offline-only"), formula=i,
            automaton=index if index >= 0 else None, offline_reason=None if index >= 0 else reason))
    info = PolicyInfo(name=policy.name, description=policy.description, budget=policy.budget,
                      layers=dict(policy.layers), conformance=_severity(policy.conformance),
                      sources=[s.replace("\\", "/").rsplit("/", 1)[-1] for s in policy.sources],
                      observes=sorted(policy.observes), grounding=policy.grounding)
    tools = [ToolModel.model_validate(signature_to_json(sig)) for sig in policy.tools.values()]
    externs = [ExternModel(name=e.name, params=[ParamModel(name=n, type=type_to_json(t)) for n, t in e.params],
                           binding=e.binding) for e in policy.externs.values()]
    return {"policy": info, "tools": tools, "rules": rules,
            "formulas": FormulaTable(nodes=table["nodes"], roots=table["roots"]), "externs": externs}


def policy_of(artifact: Artifact) -> Policy:
    """The checked policy an artifact was compiled from (without source spans)."""
    formulas = load_nodes({"nodes": artifact.formulas.nodes, "roots": artifact.formulas.roots})
    rules = tuple(
        Rule(r.name, cast(Formula, formulas[r.formula]), r.weight, r.layer, Severity(r.severity.kind, r.severity.limit),
             r.message, r.description, r.source)
        for r in artifact.rules)
    tools = {t.name: signature_from_json(t.model_dump()) for t in artifact.tools}
    externs = {e.name: ExternPredicate(e.name, tuple((p.name, type_from_json(p.type)) for p in e.params), e.binding)
               for e in artifact.externs}
    info = artifact.policy
    return Policy(info.name, info.description, tools, rules, dict(info.layers), externs, info.budget,
                  Severity(info.conformance.kind, info.conformance.limit), tuple(info.sources),
                  frozenset(info.observes), info.grounding)


def compiled_of(artifact: Artifact) -> CompiledPolicy:
    """The compiled policy an artifact holds: its policy and every rule's table, as compiled.

    >>> from policyc.artifact.build import compile_file
    >>> compiled_of(compile_file("examples/code_qa.altl")).classes
    {'search_first': 'gateable', 'reads_a_file': 'offline-only', 'grounded': 'offline-only'}
    """
    rules = {}
    for r in artifact.rules:
        table = None if r.automaton is None else RuleTable.from_json(cast(dict, artifact.automata[r.automaton]["rule"]))
        rules[r.name] = CompiledRule(table, r.rule_class or OFFLINE_ONLY, r.offline_reason)
    joint = {tool: JointLetters.from_json(cast(dict, data)) for tool, data in artifact.joint.items()}
    return CompiledPolicy(policy_of(artifact), rules, joint)


__all__ = ["compiled_of", "policy_fields", "policy_of"]
