"""Text -> AST, with syntax errors turned into diagnostics.

`parse(text, path)` never raises on bad input: it returns the module it could build (None
if the text does not parse) and every syntax error it found. After the first error the file
is re-parsed declaration by declaration, so one typo does not hide the next.
"""

from __future__ import annotations

import re
import threading
from functools import cache

from lark import Lark, Token
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken, VisitError
from lark.lexer import PatternStr

from policyc.diagnostics import Diagnostic, Source, Span
from policyc.resources import grammar_path
from policyc.syntax import ast
from policyc.syntax.transform import ToAst

MAX_SOURCE_BYTES = 8 * 1024 * 1024

_comments = threading.local()


def _collect_comment(token: Token) -> Token:
    sink = getattr(_comments, "sink", None)
    if sink is not None:
        sink.append((token.start_pos, str(token)))
    return token


@cache
def _parser() -> Lark:
    return Lark(
        grammar_path().read_text(encoding="utf-8"),
        parser="lalr",
        lexer="contextual",
        propagate_positions=True,
        maybe_placeholders=True,
        lexer_callbacks={"COMMENT": _collect_comment},
        cache=False,
    )


# ------------------------------------------------------------------ reading files


def decode_source(data: bytes, path: str) -> tuple[Source | None, list[Diagnostic]]:
    """Bytes -> Source, or a diagnostic for input that is not UTF-8 text or is too large."""
    if len(data) > MAX_SOURCE_BYTES:
        return None, [Diagnostic("E0003", f"`{path}` is {len(data) // (1024 * 1024)} MiB, larger than the "
                                 f"{MAX_SOURCE_BYTES // (1024 * 1024)} MiB a policy file may be",
                                 help="split the policy into modules joined with `import`")]
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        return None, [Diagnostic("E0002", f"`{path}` is not valid UTF-8 (byte 0x{data[exc.start]:02x} at "
                                 f"line {line}, column {column})",
                                 help="policy files are UTF-8 text; re-save the file as UTF-8")]
    if "\x00" in text:
        return None, [Diagnostic("E0002", f"`{path}` contains NUL bytes and looks like a binary file",
                                 help="policy files are UTF-8 text")]
    return Source(path, text), []


# ------------------------------------------------------------------ parsing

_ITEM_START = re.compile(
    r"^(policy|import|type|enum|layer|terminal|tool|predicate|extern|def|procedure|use|rule|budget|conformance)\b",
    re.M,
)

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
    "TRUE": "`true`",
    "FALSE": "`false`",
    "NULL": "`null`",
    "$END": "the end of the file",
}


def _describe(terminal: str) -> str:
    if terminal in _TERMINAL_NAMES:
        return _TERMINAL_NAMES[terminal]
    term = _parser().get_terminal(terminal) if terminal in _terminal_table() else None
    if term is not None and isinstance(term.pattern, PatternStr):
        return f"`{term.pattern.value}`"
    return terminal.lower()


@cache
def _terminal_table() -> frozenset[str]:
    return frozenset(t.name for t in _parser().terminals)


def _expected_list(names) -> str:
    described = sorted({_describe(n) for n in names})
    # items of an expression make a long and unhelpful list; say it once
    expression_starts = {"a name", "a string", "an integer", "a number", "`(`", "`[`", "`{`", "`true`",
                         "`false`", "`null`", "`-`", "`not`", "a temporal operator"}
    if expression_starts <= set(described):
        described = [d for d in described if d not in expression_starts] + ["an expression"]
    operators = {"`and`", "`or`", "`->`", "`<->`", "a comparison", "`*`, `/` or `%`", "`+`", "`-`", "`.`",
                 "`[`", "`until`, `since`, `release` or `weak until`", "`in`", "`not`", "`(`"}
    if len(operators & set(described)) >= 4:
        described = [d for d in described if d not in operators] + ["an operator"]
    declarations = {"`policy`", "`import`", "`type`", "`enum`", "`layer`", "`terminal`", "`tool`", "`predicate`",
                    "`extern`", "`def`", "`procedure`", "`use`", "`rule`", "`budget`", "`conformance`"}
    if len(declarations & set(described)) >= 4:
        described = [d for d in described if d not in declarations] + ["a new declaration"]
    if len(described) > 8:
        described = described[:8] + ["..."]
    if len(described) == 1:
        return described[0]
    return ", ".join(described[:-1]) + " or " + described[-1]


def _hint(text: str, pos: int, expected: set[str]) -> str | None:
    rest = text[pos : pos + 2]
    if rest.startswith("'"):
        return "strings are written in double quotes: \"...\""
    if rest.startswith('"'):
        return "a string must end with `\"` on the same line"
    if rest == "=>":
        return "write implication as `->`"
    if rest.startswith("=") and rest != "==":
        return "compare with `==`; `=` only appears in `type` and tool alias declarations"
    if {"WEIGHT", "SEVERITY"} <= expected:
        return "a rule's metadata ends with `:`, followed by the formula"
    return None


def _syntax_diagnostic(exc: UnexpectedInput, source: Source, offset: int) -> Diagnostic:
    text = source.text
    if isinstance(exc, UnexpectedCharacters):
        pos = offset + exc.pos_in_stream
        expected = set(exc.allowed or ())
        char = text[pos] if pos < len(text) else ""
        message = f"unexpected character `{char}`"
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
        pos = len(text.rstrip())
        expected = set(getattr(exc, "expected", None) or ())
        message = "unexpected end of file"
        span = source.span(max(0, pos - 1), pos)
    if expected:
        message += f", expected {_expected_list(expected)}"
    return Diagnostic("E0001", message, span, help=_hint(text, pos, expected))


def _parse_tree(text: str):
    _comments.sink = []
    try:
        tree = _parser().parse(text)
        return tree, list(_comments.sink)
    finally:
        _comments.sink = None


def _chunks(text: str) -> list[tuple[int, str]]:
    starts = [m.start() for m in _ITEM_START.finditer(text)]
    if not starts or starts[0] != 0:
        starts.insert(0, 0)
    bounds = starts + [len(text)]
    return [(bounds[i], text[bounds[i] : bounds[i + 1]]) for i in range(len(starts))]


def _recover(source: Source, first: UnexpectedInput) -> list[Diagnostic]:
    """Report the first error, then parse declaration by declaration for further ones."""
    first_diag = _syntax_diagnostic(first, source, 0)
    diagnostics = [first_diag]
    for start, chunk in _chunks(source.text):
        if start + len(chunk) <= first_diag.span.start or not chunk.strip():
            continue
        if start <= first_diag.span.start:
            continue
        try:
            _parse_tree(chunk)
        except UnexpectedInput as exc:
            diagnostics.append(_syntax_diagnostic(exc, source, start))
    return diagnostics


def _too_deep(source: Source) -> Diagnostic:
    return Diagnostic("E0004", "the policy is nested too deeply to process", source.span(0, 0),
                      help="split deeply nested formulas into named `def`s")


def parse_source(source: Source) -> tuple[ast.Module | None, list[Diagnostic]]:
    try:
        tree, comments = _parse_tree(source.text)
    except UnexpectedInput as exc:
        return None, _recover(source, exc)
    except RecursionError:
        return None, [_too_deep(source)]
    try:
        module = ToAst(source).transform(tree)
    except (RecursionError, VisitError) as exc:
        if isinstance(exc, VisitError) and not isinstance(exc.orig_exc, RecursionError):
            raise
        return None, [_too_deep(source)]
    return ast.Module(module.path, module.items, tuple(comments), module.span), []


def parse(text: str, path: str = "<input>") -> tuple[ast.Module | None, list[Diagnostic]]:
    """Parse AgentLTL text.

    >>> module, diagnostics = parse('tool search(query: str)\\nrule r: eventually search')
    >>> [type(item).__name__ for item in module.items], diagnostics
    (['ToolDecl', 'RuleDecl'], [])
    >>> _, diagnostics = parse('rule r before(a, b)')
    >>> diagnostics[0].code, diagnostics[0].message
    ('E0001', 'unexpected `before`, expected `:`, `layer`, `message`, `severity`, `weight` or a string')
    """
    return parse_source(Source(path, text))


def parse_expression(text: str, path: str = "<expr>") -> tuple[ast.Expr | None, list[Diagnostic]]:
    """Parse a single formula (as the body of an anonymous rule)."""
    prefix = "rule _: "
    module, diagnostics = parse(prefix + text, path)
    if module is None or len(module.items) != 1:
        return None, diagnostics
    return module.items[0].body, diagnostics


def span_of(node) -> Span:
    return node.span
