"""`build_artifact(policy)`: a checked policy compiled into a sealed monitor artifact.

Each rule the automata can compile gets its table; the others are kept as formulas and
scored after the run through the reference evaluator. This module needs the compiler
(the automata, and through them Z3); the runtime never imports it.

>>> from policyc.check import check_file
>>> policy, _ = check_file("examples/code_qa.altl")
>>> artifact = build_artifact(policy)
>>> [(r.name, r.automaton is not None) for r in artifact.rules]
[('search_first', True), ('reads_a_file', True), ('grounded', False)]
>>> compile_file("examples/code_qa.altl") == artifact     # check and build in one step
True
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from policyc import __version__
from policyc.artifact.hashing import source_hash
from policyc.artifact.io import seal
from policyc.artifact.models import Artifact, ArtifactBody
from policyc.artifact.policy import policy_fields
from policyc.artifact.compile_rules import compile_rules
from policyc.diagnostics import PolicyError
from policyc.inputs import InputError, read_input
from policyc.ir.policy import Policy
from policyc.recursion import deep_recursion


def policy_source_hash(policy: Policy) -> str:
    """The hash of the files a policy was read from (empty sources hash to a fixed value)."""
    texts = []
    for path in policy.sources:
        try:
            texts.append((path, read_input(path).decode("utf-8", "replace")))
        except InputError:
            texts.append((path, ""))
    return source_hash(texts)


@deep_recursion()
def build_artifact(policy: Policy, sources_hash: str | None = None, key: bytes | None = None) -> Artifact:
    """Compile a checked policy into a sealed artifact (signed when a key is given)."""
    compiled = compile_rules(policy)
    automata: list[dict[str, Any]] = []
    placement: dict[str, tuple[int, str | None]] = {}
    for rule in policy.rules:
        table, reason = compiled.tables.get(rule.name, (None, "no automaton was built"))
        if table is None:
            placement[rule.name] = (-1, reason)
        else:
            placement[rule.name] = (len(automata), None)
            automata.append(table)
    body = ArtifactBody(compiler=__version__, source_hash=sources_hash or policy_source_hash(policy),
                        automata=automata, joint={tool: j.to_json() for tool, j in compiled.compiled.joint.items()},
                        **policy_fields(policy, compiled.classes, placement))
    return seal(body, key)


def compile_file(path: str | Path) -> Artifact:
    """Check a policy file and compile it: what `policyc compile` does, for Python callers.
    A policy with errors (or a file that cannot be read) raises `PolicyError`, a `ValueError`
    whose message renders the diagnostics and whose `diagnostics` holds them.

    >>> try:
    ...     compile_file("tests/fixtures/check/e0201_unknown_tool_bad.altl")
    ... except PolicyError as error:
    ...     print(sorted({d.code for d in error.diagnostics}))
    ['E0201']
    """
    from policyc.check import check_file
    from policyc.diagnostics import has_errors

    policy, diagnostics = check_file(str(path))
    if policy is None or has_errors(diagnostics):
        raise PolicyError(str(path), diagnostics)
    return build_artifact(policy)
