"""Stage 2: name resolution, type checking and elaboration to the core IR.

`check_file(path)` reads a policy and its imports and returns the checked `ir.Policy`
(None when there are errors) with every diagnostic found, in source order.
"""

from __future__ import annotations

import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from policyc.check.modules import ModuleGraph, load_policy, load_text
from policyc.check.policy import PolicyBuilder
from policyc.check.symbols import collect
from policyc.check.typing import TypeResolver, signatures
from policyc.diagnostics import Diagnostic, has_errors, sort_diagnostics
from policyc.ir.policy import Policy


#: Macro expansion recurses some fifteen Python frames per level (pure Python calls, which
#: do not grow the C stack), so the standard library's recursive macros (`called_n(t) >= 150`)
#: need more than the interpreter's default limit of 1000. Checking raises the limit while it
#: runs and restores it afterwards.
RECURSION_LIMIT = 12_000


@contextmanager
def _deep_recursion() -> Iterator[None]:
    previous = sys.getrecursionlimit()
    sys.setrecursionlimit(max(previous, RECURSION_LIMIT))
    try:
        yield
    finally:
        sys.setrecursionlimit(previous)


def check_graph(graph: ModuleGraph, resolve_externs: bool = False) -> tuple[Policy | None, list[Diagnostic]]:
    syms, diags = collect(graph)
    resolver = TypeResolver(syms, diags)
    sigs = signatures(syms, resolver, diags)
    for name in syms.types:
        resolver.named(name)
    try:
        with _deep_recursion():
            policy = PolicyBuilder(graph, syms, sigs, resolver, diags).build(resolve_externs)
    except RecursionError:
        diags.append(Diagnostic("E0004", "the policy is nested too deeply to process", graph.root.module.span,
                                help="split deeply nested formulas into named `def`s"))
        policy = None
    diags = sort_diagnostics(diags)
    return (None if has_errors(diags) else policy), diags


def check_file(path: str | Path, resolve_externs: bool = False) -> tuple[Policy | None, list[Diagnostic]]:
    """Check a policy file.

    >>> policy, diagnostics = check_file("examples/code_qa.altl")
    >>> [r.name for r in policy.rules], diagnostics
    (['search_first', 'reads_a_file', 'grounded'], [])
    """
    graph, diags = load_policy(path)
    if graph is None:
        return None, sort_diagnostics(diags)
    policy, more = check_graph(graph, resolve_externs)
    diags = sort_diagnostics(diags + more)
    return (None if has_errors(diags) else policy), diags


def check_text(text: str, path: str = "<input>", resolve_externs: bool = False) -> tuple[Policy | None, list[Diagnostic]]:
    """Check policy text (imports resolve against the current directory)."""
    graph, diags = load_text(text, path)
    if graph is None:
        return None, sort_diagnostics(diags)
    policy, more = check_graph(graph, resolve_externs)
    diags = sort_diagnostics(diags + more)
    return (None if has_errors(diags) else policy), diags


__all__ = ["check_file", "check_text", "check_graph"]
