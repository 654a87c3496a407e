"""Rules, procedures and metadata -> `ir.Policy`."""

from __future__ import annotations

from dataclasses import replace

from policyc.check import macros
from policyc.check.elaborate import Elaborator, ExpansionTooDeep
from policyc.check.modules import ModuleGraph, ModuleInstance
from policyc.check.scope import Scope
from policyc.check.suggest import closest, did_you_mean, unknown_fields
from policyc.check.symbols import Symbols
from policyc.check.typing import Kind, TypeResolver
from policyc.diagnostics import Diagnostic, Label
from policyc.ir import build as b
from policyc.ir import nodes as n
from policyc.ir import types as t
from policyc.ir.nodes import Formula
from policyc.ir.policy import (
    DEFAULT_SOFT_BLOCK_LIMIT,
    MAX_WEIGHT,
    PAPER_LAYERS,
    SEVERITIES,
    ExternPredicate,
    Policy,
    Rule,
    Severity,
)
from policyc.syntax import ast


def check_severity(expr: ast.SeverityExpr, diags: list[Diagnostic]) -> Severity | None:
    if expr.name not in SEVERITIES:
        diags.append(Diagnostic("E0217", f"unknown severity `{expr.name}`", expr.span,
                                help=did_you_mean(expr.name, SEVERITIES, "severity")
                                or "one of " + ", ".join(f"`{s}`" for s in SEVERITIES),
                                fields=unknown_fields(expr.name, SEVERITIES)))
        return None
    if expr.name == "soft_block":
        limit = DEFAULT_SOFT_BLOCK_LIMIT if expr.arg is None else expr.arg
        if limit < 1:
            diags.append(Diagnostic("E0217", "`soft_block(n)` escalates after n blocks; n must be at least 1",
                                    expr.span))
            return None
        return Severity("soft_block", limit)
    if expr.arg is not None:
        diags.append(Diagnostic("E0217", f"`{expr.name}` takes no argument", expr.span,
                                help="only `soft_block(n)` has one: the number of blocks before it stops the run"))
        return None
    return Severity(expr.name)


#: What `undecided` may say to do with a call the gate could not decide.
UNDECIDED_ACTIONS = ("refuse", "allow")
#: The default: only rules of severity `deny` refuse such a call.
DEFAULT_UNDECIDED = frozenset(("deny",))


def check_conformance_scope(decl: ast.ConformanceDecl, diags: list[Diagnostic]) -> bool:
    """Whether conformance grounds argument values: `conformance SEVERITY` does,
    `conformance SEVERITY signatures only` does not (E0229 for another word before `only`)."""
    if decl.scope is None:
        return True
    if decl.scope != "signatures":
        diags.append(Diagnostic("E0229", f"`{decl.scope} only` is not a conformance check", decl.scope_span,
                                help=("did you mean `signatures only`? " if closest(decl.scope, ["signatures"]) else "")
                                + "`signatures only` checks the signatures without grounding argument values"))
    return False


def check_undecided(decl: ast.UndecidedDecl | None, diags: list[Diagnostic]) -> frozenset[str]:
    """The severities whose rules refuse a call the gate could not decide (E0217 for an
    action or severity that is not one)."""
    if decl is None:
        return DEFAULT_UNDECIDED
    if decl.action not in UNDECIDED_ACTIONS:
        diags.append(Diagnostic("E0217", f"`undecided {decl.action}` is not a choice", decl.action_span,
                                help=did_you_mean(decl.action, UNDECIDED_ACTIONS, "choice")
                                or "write `undecided refuse` or `undecided allow`"))
        return DEFAULT_UNDECIDED
    if decl.action == "allow":
        if decl.severities:
            diags.append(Diagnostic("E0217", "`undecided allow` takes no severities", decl.severity_spans[0],
                                    help="name the severities that refuse instead: `undecided refuse for block, deny`"))
        return frozenset()
    chosen = []
    for name, span in zip(decl.severities, decl.severity_spans):
        if name not in SEVERITIES:
            diags.append(Diagnostic("E0217", f"unknown severity `{name}`", span,
                                    help=did_you_mean(name, SEVERITIES, "severity")
                                    or "one of " + ", ".join(f"`{s}`" for s in SEVERITIES)))
        else:
            chosen.append(name)
    return frozenset(chosen) if decl.severities else frozenset(SEVERITIES)


def applicability(formula: Formula, applies: Formula, when: Formula) -> Formula:
    """App of a rule `forall x...: when ρ shall χ` (formula `forall x...: always (ρ -> χ)`, whose
    `always` node is `when`): `exists x...: eventually ρ`, over the same domains. The domains
    are the trace's, so this is `eventually exists x...: ρ`, eq. (2) of "Organising trajectory
    evidence". (The `forall`s are the rule's own and those of its implicit variables.)"""
    chain: list[n.Forall] = []
    node = formula
    while isinstance(node, n.Forall) and node is not when:
        chain.append(node)
        node = node.body
    out = b.eventually(applies)
    for q in reversed(chain):
        out = b.exists(q.var, q.type, q.domain, out)
    return out


class PolicyBuilder:
    def __init__(self, graph: ModuleGraph, syms: Symbols, sigs: dict[str, t.ToolSignature],
                 resolver: TypeResolver, diags: list[Diagnostic]):
        self.graph = graph
        self.syms = syms
        self.sigs = sigs
        self.resolver = resolver
        self.diags = diags
        self.elab = Elaborator(syms, sigs, resolver, diags)
        self.rule_spans: dict[str, ast.RuleDecl] = {}

    # ------------------------------------------------------------ rules

    def rule(self, decl: ast.RuleDecl, scope: Scope, name: str) -> Rule | None:
        weight, layer, severity, message = 1.0, None, Severity(), None
        seen: dict[type, ast.RuleMeta] = {}
        ok = True
        for meta in decl.meta:
            if type(meta) in seen:
                self.diags.append(Diagnostic("E0222", f"`{name}` sets its {_meta_word(meta)} twice", meta.span,
                                             labels=(Label(seen[type(meta)].span, "first set here"),)))
                ok = False
                continue
            seen[type(meta)] = meta
            if isinstance(meta, ast.MetaWeight):
                if meta.value <= 0:
                    self.diags.append(Diagnostic("E0215", f"the weight of `{name}` must be greater than 0",
                                                 meta.span, help="a rule that should not count toward the score "
                                                 "does not belong in the policy; weights are relative"))
                    ok = False
                elif meta.value > MAX_WEIGHT:
                    self.diags.append(Diagnostic("E0215", f"the weight of `{name}` must be at most {MAX_WEIGHT:,.0f}",
                                                 meta.span, help="weights are relative: scale the policy's weights "
                                                 "down together"))
                    ok = False
                weight = float(meta.value) if ok else 1.0
            elif isinstance(meta, ast.MetaLayer):
                if meta.name not in PAPER_LAYERS and meta.name not in self.syms.layers:
                    choices = list(PAPER_LAYERS) + list(self.syms.layers)
                    self.diags.append(Diagnostic("E0216", f"unknown layer `{meta.name}`", meta.span,
                                                 help=(f"did you mean `{best}`?" if (best := closest(meta.name, choices))
                                                       else f"the layers are the paper's L1-L6 and those declared "
                                                            f"with `layer`; declare it: `layer {meta.name} \"...\"`"),
                                                 fields=unknown_fields(meta.name, choices)))
                    ok = False
                layer = meta.name
            elif isinstance(meta, ast.MetaSeverity):
                sev = check_severity(meta.severity, self.diags)
                if sev is None:
                    ok = False
                else:
                    severity = sev
            elif isinstance(meta, ast.MetaMessage):
                message = meta.text
        top = decl.body
        while isinstance(top, ast.Quantifier) and top.kind == "forall":
            top = top.body
        self.elab.rule_when = top if isinstance(top, ast.WhenShall) else None
        self.elab.rule_when_value = None
        try:
            value = macros.with_implicit_bindings(self.elab, decl.body, scope)
        except ExpansionTooDeep:
            endless = next(i for i in reversed(range(len(self.diags))) if self.diags[i].code == "E0219")
            d = self.diags[endless]
            self.diags[endless] = replace(d, labels=d.labels + (Label(decl.name_span, "while checking this rule"),),
                                          notes=())
            return None
        except RecursionError:
            self.diags.append(Diagnostic("E0004", f"rule `{name}` expands to a formula nested too deeply to process",
                                         decl.name_span, help="lower the counts or the nesting of the macros it uses"))
            return None
        formula = self.elab.as_formula(value, decl.body.span, scope) if value is not None else None
        if formula is None or not ok:
            return None
        applies = None if self.elab.rule_when_value is None else applicability(formula, *self.elab.rule_when_value)
        return Rule(name, formula, weight, layer, severity, message, decl.description,
                    decl.span.text, applies, span=decl.span)

    def rules(self) -> list[Rule]:
        out: list[Rule] = []
        for rule_entry in self.syms.rules:
            decl, inst = rule_entry.decl, rule_entry.instance
            if self.claim(decl.name, decl):
                rule = self.rule(decl, Scope(inst), decl.name)
                if rule is not None:
                    out.append(rule)
        for use_entry in self.syms.uses:
            out.extend(self.use(use_entry.decl, use_entry.instance))
        return out

    def claim(self, name: str, decl) -> bool:
        first = self.rule_spans.get(name)
        if first is not None:
            self.diags.append(Diagnostic("E0214", f"rule `{name}` is defined more than once",
                                         getattr(decl, "name_span", decl.span),
                                         labels=(Label(first.name_span if hasattr(first, "name_span") else first.span,
                                                       "first defined here"),),
                                         help="rule names identify rules in reports; give each rule its own name"
                                         + ("; name each use: `use proc(...) as name`"
                                            if isinstance(decl, ast.UseDecl) else "")))
            return False
        self.rule_spans[name] = decl
        return True

    def use(self, decl: ast.UseDecl, inst: ModuleInstance) -> list[Rule]:
        entry = self.syms.procedures.get(decl.name)
        if entry is None:
            self.diags.append(Diagnostic("E0205", f"unknown procedure `{decl.name}`", decl.name_span,
                                         help=did_you_mean(decl.name, self.syms.procedures, "procedure"),
                                         fields=unknown_fields(decl.name, self.syms.procedures)))
            return []
        proc: ast.ProcedureDecl = entry.decl
        scope = Scope(inst)
        what = f"the procedure `{proc.name}`"
        bound = macros.bind_arguments(self.elab, proc.params, decl.args, what, decl.span, scope,
                                      macros.signature_text(proc.name, proc.params))
        if bound is None:
            return []
        params = {}
        for p, arg in bound:
            expected = self.resolver.resolve(p.type, allow_kinds=True)
            value = macros.bind_param(self.elab, p, expected, arg, scope, what)
            if value is None:
                return []
            params[p.name] = value
        prefix = decl.alias or proc.name
        body_scope = Scope(entry.instance, {}, params, None, 1, f"`use {proc.name}` at {decl.span}")
        out = []
        for rule_decl in proc.rules:
            name = f"{prefix}.{rule_decl.name}"
            if self.claim(name, decl):
                rule = self.rule(rule_decl, body_scope, name)
                if rule is not None:
                    out.append(rule)
        return out

    # ------------------------------------------------------------ the rest

    def externs(self) -> dict[str, ExternPredicate]:
        """Every extern predicate with its declared binding. Checking imports nothing: a policy
        is data, and only the program that evaluates it binds functions to its externs."""
        out = {}
        for name, entry in self.syms.functions.items():
            decl = entry.decl
            if not isinstance(decl, ast.ExternDecl):
                continue
            params = tuple((p.name, self.resolver.data_type(p.type)) for p in decl.params)
            out[name] = ExternPredicate(name, params, decl.binding)
            if decl.binding is not None and not is_binding(decl.binding):
                self.diags.append(Diagnostic(
                    "E0218", f'extern predicate `{name}` has a binding, `{decl.binding}`, that is not of the form '
                    '"module:function"', decl.name_span,
                    help=f'name a Python function: `extern predicate {name}(...) from "module:function"`'))
        return out

    def check_renames(self) -> None:
        """Every tool an import renames is visible in the imported module: declared there, or
        in a module it imports (under the name that module's own imports give it)."""
        memo: dict[int, dict[str, tuple[str, ...]]] = {}
        for inst in self.graph.instances:
            for decl, child in zip(inst.import_decls, inst.imports):
                visible = visible_tools(child, memo)
                for r in decl.renames:
                    params = visible.get(r.old)
                    if params is None:
                        self.diags.append(Diagnostic("E0103", f"`{child.path}` declares no tool `{r.old}`", r.span,
                                                     help=did_you_mean(r.old, visible, "tool"),
                                                     fields=unknown_fields(r.old, visible)))
                        continue
                    if params:
                        for a in r.args:
                            if a.old not in params:
                                self.diags.append(Diagnostic(
                                    "E0103", f"`{r.old}` has no argument `{a.old}`", a.span,
                                    help=did_you_mean(a.old, params, "argument"),
                                    fields={**unknown_fields(a.old, params), "tool": r.old}))

    def check_procedure_params(self) -> None:
        for entry in list(self.syms.procedures.values()) + [
                e for e in self.syms.functions.values() if hasattr(e.decl, "params")]:
            allow = not isinstance(entry.decl, (ast.PredicateDecl, ast.ExternDecl))
            first: dict[str, ast.Param] = {}
            for p in entry.decl.params:
                if p.name in first:
                    self.diags.append(Diagnostic("E0213", f"parameter `{p.name}` is declared twice in `{entry.decl.name}`",
                                                 p.span, labels=(Label(first[p.name].span, "first declared here"),),
                                                 help="give each parameter its own name"))
                first.setdefault(p.name, p)
                resolved = self.resolver.resolve(p.type, allow_kinds=allow)
                if isinstance(resolved, Kind) and resolved.name == "cmp" and resolved.is_list:
                    self.diags.append(Diagnostic("E0221", "`cmp` parameters cannot be lists", p.span))

    def build(self) -> Policy:
        self.check_renames()
        self.check_procedure_params()
        rules = self.rules()
        externs = self.externs()
        syms = self.syms
        name = syms.policy.name if syms.policy else _stem(self.graph.root.path)
        description = syms.policy.description if syms.policy else None
        budget = None
        if syms.budget is not None:
            if syms.budget.value < 1:
                self.diags.append(Diagnostic("E0215", "a call budget must be at least 1", syms.budget.span))
            else:
                budget = syms.budget.value
        conformance = Severity()
        ground_arguments = True
        if syms.conformance is not None:
            conformance = check_severity(syms.conformance.severity, self.diags) or Severity()
            ground_arguments = check_conformance_scope(syms.conformance, self.diags)
        undecided = check_undecided(syms.undecided, self.diags)
        layers = {**PAPER_LAYERS, **{k: (e.decl.description or k) for k, e in self.syms.layers.items()}}
        sources = tuple(dict.fromkeys(i.path for i in reversed(self.graph.instances) if not i.is_stdlib))
        return Policy(name, description, dict(self.sigs), tuple(rules), layers, externs, budget, conformance, sources,
                      syms.observed, syms.grounding.name if syms.grounding else "code", undecided, ground_arguments)


def is_binding(binding: str) -> bool:
    """Whether text has the form "module:function" (dotted module, identifier function).

    >>> is_binding("calendar_rules:is_business_day"), is_binding("crm.is_vip")
    (True, False)
    """
    module_name, _, attr = binding.partition(":")
    return all(part.isidentifier() for part in module_name.split(".") + [attr])


def visible_tools(inst: ModuleInstance, memo: dict[int, dict[str, tuple[str, ...]]] | None = None
                  ) -> dict[str, tuple[str, ...]]:
    """Tools a module can name, with their argument names as it sees them: its own and those
    of the modules it imports, through their rename maps (aliases: no argument list). `memo`
    keeps each instance's answer, so a diamond of imports is walked once per instance."""
    memo = {} if memo is None else memo
    found = memo.get(id(inst))
    if found is not None:
        return found
    out: dict[str, tuple[str, ...]] = {}
    for decl, child in zip(inst.import_decls, inst.imports):
        if child.is_stdlib:
            continue
        tools = {r.old: r for r in decl.renames}
        for name, params in visible_tools(child, memo).items():
            rename = tools.get(name)
            if rename is None:
                out[name] = params
            else:
                args = {a.old: a.new for a in rename.args}
                out[rename.new] = tuple(args.get(p, p) for p in params)
    for d in inst.module.items:
        if isinstance(d, ast.ToolDecl):
            out[d.name] = tuple(p.name for p in d.params)
        elif isinstance(d, ast.AliasDecl):
            out[d.name] = ()
    memo[id(inst)] = out
    return out


def _meta_word(meta) -> str:
    return {ast.MetaLayer: "layer", ast.MetaWeight: "weight", ast.MetaSeverity: "severity",
            ast.MetaMessage: "message"}[type(meta)]


def _stem(path: str) -> str:
    from pathlib import Path

    return Path(path).stem
