"""The declarations of a policy and every module it imports, in one table.

Tools are entered under their renamed names (see `Renamer`); every other declaration keeps
its name. A name declared twice is reported once, pointing at both declarations.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from policyc.check.modules import ModuleGraph, ModuleInstance
from policyc.check.suggest import did_you_mean, unknown_fields
from policyc.diagnostics import Diagnostic, Label, Severity
from policyc.ir.builtins import BUILTINS, RESERVED_FUNCTIONS, SPECIAL_NAMES, TEXT_FUNCTIONS
from policyc.syntax import ast

# the builtins and reserved names live beside the IR, where tools' schemas are read too
BUILTIN_FUNCTIONS = dict(BUILTINS)
BUILTIN_FUNCTIONS.update(TEXT_FUNCTIONS)

#: The built-in entity extractors `grounding` names (see `policyc.grounding`).
GROUNDING_EXTRACTORS = ("code", "prose")
#: The event classes `observe` names: message events, and the calls the user makes.
OBSERVABLE = {"messages": "the messages of the agent and the user (`message(text: t)`)",
              "user_calls": "the tool calls the user makes (a simulated customer acting on their device)"}
#: Names of built-in types and of parameter kinds; a declared type cannot take one.
BUILTIN_TYPES = ("int", "float", "str", "bool", "null", "any", "list", "dict", "event", "formula", "tool", "cmp")


D = TypeVar("D")
#: What a name in the function namespace declares: a macro, a predicate or an extern predicate.
FunctionDecl = ast.DefDecl | ast.PredicateDecl | ast.ExternDecl


@dataclass
class Entry(Generic[D]):
    """A declaration and the module instance it was read in."""

    decl: D
    instance: ModuleInstance


@dataclass
class Symbols:
    tools: dict[str, Entry[ast.ToolDecl | ast.AliasDecl]] = field(default_factory=dict)
    types: dict[str, Entry[ast.TypeDecl | ast.EnumDecl]] = field(default_factory=dict)  # records and enums
    functions: dict[str, Entry[FunctionDecl]] = field(default_factory=dict)  # def, predicate, extern
    procedures: dict[str, Entry[ast.ProcedureDecl]] = field(default_factory=dict)
    layers: dict[str, Entry[ast.LayerDecl]] = field(default_factory=dict)
    rules: list[Entry[ast.RuleDecl]] = field(default_factory=list)
    uses: list[Entry[ast.UseDecl]] = field(default_factory=list)
    policy: ast.PolicyDecl | None = None
    budget: ast.BudgetDecl | None = None
    conformance: ast.ConformanceDecl | None = None
    undecided: ast.UndecidedDecl | None = None
    observes: list[ast.ObserveDecl] = field(default_factory=list)  # from every module
    grounding: ast.GroundingDecl | None = None
    claim_decls: list[Entry[ast.ClaimsDecl]] = field(default_factory=list)  # `claims ... by tool`, from every module
    claims: dict[str, tuple[str, ...]] = field(default_factory=dict)  # per tool, its phrases (`claim_table`)

    @property
    def observed(self) -> frozenset[str]:
        """The event classes the policy observes (its modules' `observe` declarations)."""
        return frozenset(name for decl in self.observes for name in decl.names if name in OBSERVABLE)


def _name_span(decl):
    return getattr(decl, "name_span", None) or decl.span


def _no_rules_span(module: ast.Module):
    """Where W0225 points: the `policy` header when there is one, else the first declaration
    (not the whole file, which an editor would underline from top to bottom)."""
    header = next((d for d in module.items if isinstance(d, ast.PolicyDecl)), None)
    first = header or (module.items[0] if module.items else None)
    return module.span if first is None else first.span


def collect(graph: ModuleGraph) -> tuple[Symbols, list[Diagnostic]]:
    syms = Symbols()
    diags: list[Diagnostic] = []

    def enter(table: dict[str, Entry[D]], name: str, decl: D, inst: ModuleInstance,
              shared: tuple[dict[str, Entry[Any]], ...] = ()) -> None:
        clash = table.get(name) or next((t[name] for t in shared if name in t), None)
        if clash is not None:
            if clash.decl is not decl:
                in_stdlib = clash.instance.is_stdlib and not inst.is_stdlib
                diags.append(Diagnostic(
                    "E0213", f"`{name}` is declared more than once", _name_span(decl),
                    labels=(Label(_name_span(clash.decl), "first declared here"),),
                    help=f"`{name}` is defined by the standard library; choose another name" if in_stdlib
                    else "rename one of them; tools, predicates and macros share one namespace",
                ))
            return
        table[name] = Entry(decl, inst)

    root_settings: dict[str, ast.BudgetDecl | ast.ConformanceDecl | ast.UndecidedDecl] = {}
    for inst in graph.instances:
        is_root = inst is graph.root
        for decl in inst.module.items:
            if isinstance(decl, ast.ToolDecl | ast.AliasDecl):
                enter(syms.tools, inst.renamer.tool(decl.name), decl, inst, (syms.functions,))
            elif isinstance(decl, ast.TypeDecl | ast.EnumDecl):
                enter(syms.types, decl.name, decl, inst)
            elif isinstance(decl, ast.DefDecl):
                enter(syms.functions, decl.name, decl, inst, (syms.tools,))
            elif isinstance(decl, ast.PredicateDecl):
                enter(syms.functions, decl.name, decl, inst, (syms.tools,))
            elif isinstance(decl, ast.ExternDecl):
                enter(syms.functions, decl.name, decl, inst, (syms.tools,))
            elif isinstance(decl, ast.ProcedureDecl):
                enter(syms.procedures, decl.name, decl, inst)
            elif isinstance(decl, ast.LayerDecl):
                enter(syms.layers, decl.name, decl, inst)
            elif isinstance(decl, ast.RuleDecl):
                syms.rules.append(Entry(decl, inst))
            elif isinstance(decl, ast.UseDecl):
                syms.uses.append(Entry(decl, inst))
            elif isinstance(decl, ast.PolicyDecl) and is_root:
                if syms.policy is not None:
                    diags.append(Diagnostic("E0213", "the policy is named more than once", decl.span,
                                            labels=(Label(syms.policy.span, "first named here"),)))
                syms.policy = decl
            elif isinstance(decl, ast.ObserveDecl):
                syms.observes.append(decl)
            elif isinstance(decl, ast.ClaimsDecl):
                syms.claim_decls.append(Entry(decl, inst))
            elif isinstance(decl, ast.GroundingDecl):
                if syms.grounding is not None and syms.grounding.name != decl.name:
                    diags.append(Diagnostic("E0222", "the grounding extractor is set twice", decl.span,
                                            labels=(Label(syms.grounding.span, "first set here"),),
                                            help="keep one `grounding` declaration"))
                    continue
                if decl.name not in GROUNDING_EXTRACTORS:
                    diags.append(Diagnostic("E0227", f"`{decl.name}` is not a built-in entity extractor",
                                            decl.name_span, help=did_you_mean(decl.name, GROUNDING_EXTRACTORS,
                                                                              "extractor")
                                            or "the built-in extractors are `code` and `prose`",
                                            fields=unknown_fields(decl.name, GROUNDING_EXTRACTORS)))
                    continue
                syms.grounding = decl
            elif isinstance(decl, ast.BudgetDecl | ast.ConformanceDecl | ast.UndecidedDecl):
                what = "budget" if isinstance(decl, ast.BudgetDecl) else \
                    "conformance" if isinstance(decl, ast.ConformanceDecl) else "undecided"
                earlier = root_settings.get(what) if is_root else None
                if earlier is not None:
                    diags.append(Diagnostic("E0222", f"the {what} is set twice", decl.span,
                                            labels=(Label(earlier.span, "first set here"),),
                                            help=f"keep one `{what}` declaration"))
                    continue
                if is_root:
                    root_settings[what] = decl
                if is_root or getattr(syms, what) is None:
                    setattr(syms, what, decl)
    for name, entry in syms.types.items():
        if name in BUILTIN_TYPES:
            diags.append(Diagnostic("E0213", f"`{name}` is a built-in type and cannot be declared again",
                                    entry.decl.span, help="give the type another name"))
    for decl in syms.observes:
        for name, span in zip(decl.names, decl.name_spans):
            if name not in OBSERVABLE:
                diags.append(Diagnostic("E0227", f"`{name}` is not a class of events a policy can observe", span,
                                        help=did_you_mean(name, OBSERVABLE, "class")
                                        or "observe " + " or ".join(f"`{k}`" for k in OBSERVABLE),
                                        fields=unknown_fields(name, OBSERVABLE)))
    for name, tool in syms.tools.items():
        if name in RESERVED_FUNCTIONS or name in SPECIAL_NAMES:
            diags.append(Diagnostic("E0213", f"the tool name `{name}` is reserved", _name_span(tool.decl),
                                    help=f"`{name}` is a builtin; give the tool another name"))
    if not syms.rules and not syms.uses:
        diags.append(Diagnostic("W0225", "the policy has no rules", _no_rules_span(graph.root.module),
                                severity=Severity.WARNING,
                                help="add a rule: `rule name: formula`"))
    return syms, diags
