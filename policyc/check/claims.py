"""The `claims` declarations of a policy and its modules: which phrases claim which tool's action.

`claims "refund", "refunded" by issue_refund` says that a text using one of these phrases
may claim that `issue_refund` was done; `actions(text)` lists the tools a text claims, and a
rule checks them against `done`, the tools a call succeeded with (see `policyc.grounding.actions`).
`claim_table` gathers every declaration, by the tool's final (renamed) name, and reports a
tool that is not declared, a phrase without a word, and a phrase claimed by two tools (a
phrase must name one action for a claim to be checked against one tool).

>>> from policyc.check import check_text
>>> policy = check_text('tool issue_refund()\\nclaims "refund", "refunded" by issue_refund\\n'
...                     'rule r: forall a in actions("Refund issued."): a in done')[0]
>>> policy.rules[0].formula
forall a in actions("Refund issued."): a in done
"""

from __future__ import annotations

from policyc.check.suggest import did_you_mean, unknown_fields
from policyc.check.symbols import Symbols
from policyc.diagnostics import Diagnostic, Label
from policyc.grounding.actions import phrase_words
from policyc.ir.types import ToolSignature
from policyc.syntax.ast import Span

#: the longest phrase a declaration may give, in characters
MAX_PHRASE = 200


def claim_table(syms: Symbols, sigs: dict[str, ToolSignature], diags: list[Diagnostic]) -> dict[str, tuple[str, ...]]:
    """Per tool, the phrases that claim its action, in the order declared (each once)."""
    table: dict[str, dict[str, None]] = {}
    owner: dict[tuple[str, ...], tuple[str, Span]] = {}
    for entry in syms.claim_decls:
        decl = entry.decl
        tool = entry.instance.renamer.tool(decl.tool)
        if tool not in sigs:
            diags.append(Diagnostic("E0201", f"unknown tool `{decl.tool}`", decl.tool_span,
                                    help=did_you_mean(decl.tool, sigs, "tool"), fields=unknown_fields(decl.tool, sigs)))
            continue
        for phrase, span in zip(decl.phrases, decl.phrase_spans):
            words = phrase_words(phrase)
            if not words or len(phrase) > MAX_PHRASE:
                diags.append(Diagnostic("E0244", "this phrase has no word to find" if not words else
                                        f"a phrase has at most {MAX_PHRASE} characters", span,
                                        help="a phrase is a word or a few, as a reply would write them: "
                                             "`refunded`, `money back`"))
                continue
            first = owner.get(words)
            if first is not None and first[0] != tool:
                diags.append(Diagnostic("E0244", f"the phrase `{phrase}` claims both `{first[0]}` and `{tool}`", span,
                                        labels=(Label(first[1], f"claims `{first[0]}` here"),),
                                        help="a phrase names one action; give each tool a phrase of its own, "
                                             "e.g. `order cancelled` and `plan cancelled`"))
                continue
            owner.setdefault(words, (tool, span))
            table.setdefault(tool, {})[phrase] = None
    return {tool: tuple(phrases) for tool, phrases in table.items()}
