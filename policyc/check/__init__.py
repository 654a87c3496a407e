"""Stage 2: name resolution, type checking and elaboration to the core IR.

`check_file(path)` reads a policy and its imports and returns the checked `ir.Policy`
(None when there are errors) with every diagnostic found, in source order.
"""

from __future__ import annotations

from pathlib import Path

from policyc.check.claims import claim_table
from policyc.check.modules import ModuleGraph, load_policy, load_text
from policyc.check.policy import PolicyBuilder
from policyc.check.symbols import collect
from policyc.check.typing import TypeResolver, signatures
from policyc.diagnostics import Diagnostic, has_errors, sort_diagnostics
from policyc.ir.policy import Policy
from policyc.ir.types import MESSAGE_SIGNATURE
from policyc.recursion import deep_recursion


def check_graph(graph: ModuleGraph) -> tuple[Policy | None, list[Diagnostic]]:
    syms, diags = collect(graph)
    resolver = TypeResolver(syms, diags)
    sigs = signatures(syms, resolver, diags)
    syms.claims = claim_table(syms, sigs, diags)
    if "messages" in syms.observed:
        sigs["message"] = MESSAGE_SIGNATURE
    for name in syms.types:
        resolver.named(name)
    try:
        with deep_recursion():
            policy = PolicyBuilder(graph, syms, sigs, resolver, diags).build()
    except RecursionError:
        diags.append(Diagnostic("E0004", "the policy is nested too deeply to process", graph.root.module.span,
                                help="split deeply nested formulas into named `def`s"))
        policy = None
    diags = sort_diagnostics(diags)
    return (None if has_errors(diags) else policy), diags


def check_file(path: str | Path) -> tuple[Policy | None, list[Diagnostic]]:
    """Check a policy file.

    >>> policy, diagnostics = check_file("examples/code_qa.altl")
    >>> [r.name for r in policy.rules], diagnostics
    (['search_first', 'reads_a_file', 'grounded'], [])
    """
    graph, diags = load_policy(path)
    if graph is None:
        return None, sort_diagnostics(diags)
    policy, more = check_graph(graph)
    diags = sort_diagnostics(diags + more)
    return (None if has_errors(diags) else policy), diags


def check_text(text: str, path: str = "<input>") -> tuple[Policy | None, list[Diagnostic]]:
    """Check policy text (imports resolve against the current directory)."""
    graph, diags = load_text(text, path)
    if graph is None:
        return None, sort_diagnostics(diags)
    policy, more = check_graph(graph)
    diags = sort_diagnostics(diags + more)
    return (None if has_errors(diags) else policy), diags


__all__ = ["check_file", "check_text", "check_graph"]
