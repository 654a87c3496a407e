"""Syntax errors as diagnostics: what was found, what was expected, and a hint.

lark reports the first token it could not use and the terminals it would have accepted;
`syntax_diagnostic` turns that into one readable message ("unexpected `=>`, expected an
operator"), with a hint for common slips (single quotes, `=>`, `=`, reserved words used as
names) and a label on a bracket that was never closed.
"""

from __future__ import annotations

import re
from typing import Callable, Iterable

from lark.exceptions import UnexpectedCharacters, UnexpectedInput, UnexpectedToken

from policyc.diagnostics import Diagnostic, Label, Source
from policyc.syntax.lexical import RESERVED

_TERMINAL_NAMES = {
    "NAME": "a name",
    "STRING": "a string",
    "INT": "an integer",
    "FLOAT": "a number",
    "QUANT": "`forall` or `exists`",
    "UNARY_TEMPORAL": "a temporal operator",
    "BINARY_TEMPORAL": "`until`, `since`, `release` or `weak until`",
    "COMPARE": "a comparison",
    "MUL_OP": "`*`, `/` or `%`",
    "IMPLIES": "`->`",
    "IFF": "`<->`",
    "OR": "`or`",
    "AND": "`and`",
    "NOT": "`not`",
    "TERMINAL": "`terminal`",
    "TRUST": "`trusted` or `untrusted`",
    "TRUE": "`true`",
    "FALSE": "`false`",
    "NULL": "`null`",
    "__ANON_0": "`->`",
    "__ANON_1": "`:=`",
    "$END": "the end of the file",
}
_EXPRESSION_STARTS = {"a name", "a string", "an integer", "a number", "`(`", "`[`", "`{`", "`true`", "`false`",
                      "`null`", "`-`", "`not`", "a temporal operator", "`forall` or `exists`", "`if`"}
_OPERATORS = {"`and`", "`or`", "`->`", "`<->`", "a comparison", "`*`, `/` or `%`", "`+`", "`-`", "`.`", "`[`",
              "`until`, `since`, `release` or `weak until`", "`in`", "`not`", "`(`", "`from`", "`only`"}
_DECLARATIONS = {"`policy`", "`import`", "`type`", "`enum`", "`layer`", "`terminal`", "`tool`", "`predicate`",
                 "`extern`", "`def`", "`procedure`", "`use`", "`rule`", "`budget`", "`conformance`", "`undecided`",
                 "`observe`", "`grounding`", "`trusted` or `untrusted`", "`claims`"}
_CLOSERS = {"RPAR": ")", "RSQB": "]", "RBRACE": "}"}
_OPENER = {")": "(", "]": "[", "}": "{"}
#: Reserved words after which a hint suggests backticks: those that could have been meant
#: as a name (not the connectives, which are rarely names).
_NAME_LIKE_RESERVED = RESERVED - {"and", "or", "not", "implies", "iff", "in", "then", "else", "until", "unless",
                                  "since", "release", "releases", "U", "W", "R", "S", "true", "false", "null",
                                  "weak", "as", "from", "rename"}
_TOKEN = re.compile(r'"(?:[^"\\\n]|\\[^\n])*"|#[^\n]*|`[^`\n]+`|[()\[\]{}]|[A-Za-z_][A-Za-z0-9_]*')


def expected_list(names: Iterable[str], describe: Callable[[str], str]) -> str:
    """`a`, `b` or `c`: the expected terminals, with long familiar groups said in one word."""
    described = {_TERMINAL_NAMES.get(n) or describe(n) for n in names}
    if _EXPRESSION_STARTS - {"`if`", "`forall` or `exists`"} <= described:
        described = (described - _EXPRESSION_STARTS) | {"an expression"}
    if len(_OPERATORS & described) >= 4:
        described = (described - _OPERATORS) | {"an operator"}
    if len(_DECLARATIONS & described) >= 4:
        described = (described - _DECLARATIONS) | {"a new declaration"}
    ordered = sorted(described)
    if len(ordered) > 8:
        ordered = ordered[:8] + ["..."]
    if len(ordered) == 1:
        return ordered[0]
    return ", ".join(ordered[:-1]) + " or " + ordered[-1]


def _previous_word(text: str, pos: int) -> str:
    m = re.search(r"([A-Za-z_][A-Za-z0-9_]*)\s*$", text[max(0, pos - 80) : pos])
    return m.group(1) if m else ""


def _hint(text: str, pos: int, expected: set[str], bad_character: bool) -> str | None:
    rest = text[pos : pos + 2]
    if rest.startswith("'"):
        return "strings are written in double quotes: \"...\""
    if rest.startswith('"') and bad_character:
        return "a string must end with `\"` on the same line"
    if rest.startswith("`") and bad_character:
        return "a name in backticks must end with a backtick on the same line"
    if rest == "=>":
        return "write implication as `->`"
    if rest == ":=" and "LPAR" in expected and re.search(r"\b(def|predicate)\s+\w+\s*$", text[:pos]):
        return "a `def` or `predicate` takes parentheses, empty when it has no parameters: `def name() := ...`"
    if rest.startswith("=") and "__ANON_1" in expected:
        return "a `def` or `predicate` is defined with `:=`"
    if rest.startswith("=") and rest != "==":
        return "compare with `==`; `=` only appears in `type` and tool alias declarations"
    word = _previous_word(text, pos)
    if word in _NAME_LIKE_RESERVED:
        return (f"`{word}` is a reserved word; to use it as the name of a tool, argument or variable, "
                f"write it in backticks: `` `{word}` ``")
    if {"WEIGHT", "SEVERITY"} <= expected:
        return "a rule's metadata ends with `:`, followed by the formula"
    return None


def _unclosed(source: Source, start: int, end: int) -> Label | None:
    """The innermost bracket opened in text[start:end] and not closed there."""
    stack: list[tuple[str, int]] = []
    for m in _TOKEN.finditer(source.text, start, end):
        tok = m.group(0)
        if tok in "([{":
            stack.append((tok, m.start()))
        elif tok in ")]}":
            if stack and stack[-1][0] == _OPENER[tok]:
                stack.pop()
    if not stack:
        return None
    bracket, at = stack[-1]
    return Label(source.span(at, at + 1), f"this `{bracket}` is not closed")


def syntax_diagnostic(exc: UnexpectedInput, source: Source, offset: int, describe: Callable[[str], str],
                      chunk_end: int | None = None) -> Diagnostic:
    """E0001 for a lark error in the text that starts at `offset` (a declaration, on recovery).

    An error at the end of a declaration that is not the last one is reported at the token
    that follows it, as a parse of the whole file would."""
    text = source.text
    if isinstance(exc, UnexpectedCharacters):
        pos = offset + (exc.pos_in_stream or 0)
        expected = set(exc.allowed or ())
        message = f"unexpected character `{text[pos] if pos < len(text) else ''}`"
        span = source.span(pos, pos + 1)
    elif isinstance(exc, UnexpectedToken) and exc.token.type != "$END":
        pos = offset + exc.token.start_pos
        expected = set(exc.expected or ())
        if exc.interactive_parser is not None:
            expected = set(exc.interactive_parser.accepts()) or expected
        token = str(exc.token)
        message = f"unexpected `{token}`"
        span = source.span(pos, pos + max(1, len(token)))
    else:
        expected = set(getattr(exc, "expected", None) or ())
        interactive = getattr(exc, "interactive_parser", None)
        if interactive is not None:
            expected = set(interactive.accepts()) or expected
        expected.discard("$END")
        following = re.compile(r"\s*([A-Za-z_]\w*)").match(text, chunk_end) if chunk_end is not None else None
        if following and following.end() <= len(text):
            pos = following.start(1)
            message = f"unexpected `{following.group(1)}`"
            span = source.span(pos, following.end())
        else:
            pos = len(text.rstrip())
            message = "unexpected end of file"
            span = source.span(max(0, pos - 1), pos)
    if expected:
        message += f", expected {expected_list(expected, describe)}"
    labels: tuple[Label, ...] = ()
    if any(name in expected for name in _CLOSERS):
        label = _unclosed(source, offset, span.start)
        if label is not None:
            labels = (label,)
    hint = _hint(text, pos, expected, isinstance(exc, UnexpectedCharacters))
    return Diagnostic("E0001", message, span, help=hint, labels=labels)
