"""Text -> AST, with syntax errors turned into diagnostics.

`parse(text, path)` never raises on bad input: it returns the module it could build (None
if the text does not parse) and every syntax error it found. After the first error the rest
of the file is parsed declaration by declaration, so one typo does not hide the next.

Limits, each reported as a diagnostic rather than a crash: a file may hold at most
MAX_SOURCE_BYTES (E0003) and nest expressions at most MAX_NESTING levels deep (E0004).
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
import threading
import unicodedata
from functools import cache
from pathlib import Path

from lark import Lark, Token, Tree
from lark.exceptions import UnexpectedInput
from lark.lexer import PatternStr

from policyc.diagnostics import Diagnostic, Source
from policyc.inputs import InputError, read_input
from policyc.resources import grammar_path
from policyc.syntax import ast
from policyc.syntax.errors import syntax_diagnostic
from policyc.syntax.lexical import hidden_character
from policyc.syntax.transform import ToAst

#: Parsing runs at about 150-200 KB of policy text per second; 2 MiB (some ten thousand
#: rules) is far beyond any written policy and still parses and checks in well under a minute.
MAX_SOURCE_BYTES = 2 * 1024 * 1024
#: Nesting deeper than this is refused (E0004): later stages walk formulas recursively.
MAX_NESTING = 200

_CHAINS = {"disjunction": "or", "conjunction": "and", "arithmetic": "+"}

_comments = threading.local()


def _collect_comment(token: Token) -> Token:
    sink = getattr(_comments, "sink", None)
    if sink is not None:
        sink.append((token.start_pos, str(token)))
    return token


@cache
def _parser() -> Lark:
    grammar = grammar_path().read_text(encoding="utf-8")
    return Lark(
        grammar,
        parser="lalr",
        lexer="contextual",
        propagate_positions=True,
        maybe_placeholders=True,
        lexer_callbacks={"COMMENT": _collect_comment},
        cache=_cache_file(grammar),
    )


def _cache_file(grammar: str) -> str | bool:
    """Where lark keeps the parser's tables between runs (building them is most of the time
    `policyc check` takes on a small file): a file of the user's own cache folder, which is
    private, since the tables are a pickle; never the shared temporary folder. False (no cache)
    where no such folder can be had, or with POLICYC_NO_CACHE set. Lark checks the file
    against the grammar, its options and its version, and rebuilds it when they differ."""
    if os.name != "posix" or os.environ.get("POLICYC_NO_CACHE"):
        return False
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    folder = os.path.join(base, "policyc")
    key = hashlib.sha256(grammar.encode("utf-8")).hexdigest()[:16]
    path = os.path.join(folder, f"parser-{key}.lark")
    try:
        os.makedirs(folder, mode=0o700, exist_ok=True)
        for where, owned in ((folder, 0o077), (path, 0o022)):
            if where == path and not os.path.lexists(path):
                break
            found = os.lstat(where)
            if found.st_uid != os.getuid() or found.st_mode & owned or stat.S_ISLNK(found.st_mode):
                return False  # not the user's own, or writable by others: not read
    except OSError:
        return False
    return path


def _describe_terminal(name: str) -> str:
    terminals = {t.name: t for t in _parser().terminals}
    term = terminals.get(name)
    if term is not None and isinstance(term.pattern, PatternStr):
        return f"`{term.pattern.value}`"
    return name.lower()


# ------------------------------------------------------------------ reading files


def _too_large(path: str, size: int) -> Diagnostic:
    amount = f"is {size / (1024 * 1024):.1f} MiB," if size > MAX_SOURCE_BYTES else "is"
    return Diagnostic("E0003", f"`{path}` {amount} larger than the "
                      f"{MAX_SOURCE_BYTES // (1024 * 1024)} MiB a policy file may be",
                      help="split the policy into modules joined with `import`")


def decode_source(data: bytes, path: str) -> tuple[Source | None, list[Diagnostic]]:
    """Bytes -> Source, or a diagnostic for input that is not UTF-8 text or is too large.

    >>> decode_source(b"rule r: true", "p.altl")[0].text
    'rule r: true'
    >>> decode_source(b"rule r: \\xff", "p.altl")[1][0].message
    '`p.altl` is not valid UTF-8 (byte 0xff at line 1, column 9)'
    """
    if len(data) > MAX_SOURCE_BYTES:
        return None, [_too_large(path, len(data))]
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


def read_source(path: Path, display: str | None = None) -> tuple[Source | None, list[Diagnostic]]:
    """Read a policy file: its Source, or E0005 (unreadable), E0002 or E0003. A pipe is read
    as a file is; a device, or a pipe that never ends, stops at MAX_SOURCE_BYTES."""
    display = display if display is not None else str(path)
    try:
        data = read_input(str(path), limit=MAX_SOURCE_BYTES)
    except InputError as exc:
        if exc.reason.startswith("is larger than"):
            try:
                size = os.stat(path).st_size
            except OSError:
                size = 0
            return None, [_too_large(display, size)]
        return None, [Diagnostic("E0005", f"`{display}` {exc.reason}")]
    return decode_source(data, display)


# ------------------------------------------------------------------ parsing

_ITEM_START = re.compile(
    r"^(policy|import|type|enum|layer|terminal|tool|predicate|extern|def|procedure|use|rule|budget|conformance|undecided|observe|grounding|claims)\b",
    re.M,
)


def _parse_tree(text: str) -> tuple[Tree, list[tuple[int, str]]]:
    _comments.sink = []
    try:
        tree = _parser().parse(text)
        return tree, list(_comments.sink)
    finally:
        _comments.sink = None


def _chunks(text: str) -> list[tuple[int, str]]:
    """The text cut before every line that starts with a declaration keyword."""
    starts = [m.start() for m in _ITEM_START.finditer(text)]
    if not starts or starts[0] != 0:
        starts.insert(0, 0)
    bounds = starts + [len(text)]
    return [(bounds[i], text[bounds[i] : bounds[i + 1]]) for i in range(len(starts))]


def _recover(source: Source, first: UnexpectedInput) -> list[Diagnostic]:
    """Report the first error, then parse the declarations after it one by one."""
    first_diag = syntax_diagnostic(first, source, 0, _describe_terminal)
    diagnostics = [first_diag]
    first_at = first_diag.span.start if first_diag.span is not None else 0
    for start, chunk in _chunks(source.text):
        if start < first_at or not chunk.strip():
            continue  # before the first error (parsed fine), or the declaration holding it
        try:
            _parse_tree(chunk)
        except UnexpectedInput as exc:
            end = start + len(chunk)
            diagnostics.append(syntax_diagnostic(exc, source, start, _describe_terminal,
                                                 end if end < len(source.text) else None))
    return diagnostics


def _first_line(source: Source, node: Tree):
    line_end = source.text.find("\n", node.meta.start_pos)
    end = min(node.meta.end_pos, line_end if line_end >= 0 else len(source.text))
    return source.span(node.meta.start_pos, end)


def _long_chain(source: Source, tree: Tree) -> Diagnostic | None:
    """E0004 for a chain of one operator (`a or b or ...`) with more than MAX_NESTING operands."""
    for node in tree.iter_subtrees_topdown():
        if node.data not in _CHAINS:
            continue
        length, cur = 1, node
        while isinstance(cur.children[0], Tree) and cur.children[0].data == node.data:
            length, cur = length + 1, cur.children[0]
        if length >= MAX_NESTING:
            return Diagnostic("E0004", f"this chain of `{_CHAINS[node.data]}` has more than {MAX_NESTING} operands",
                              _first_line(source, node), help="name groups of operands with `def` and combine those")
    return None


def _too_deep(source: Source, tree: Tree) -> Diagnostic | None:
    """E0004 at the outermost node nested deeper than MAX_NESTING (found without recursion)."""
    stack: list[tuple[Tree, int]] = [(tree, 0)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_NESTING + 2:  # the module and the declaration do not count
            return _long_chain(source, tree) or Diagnostic(
                "E0004", f"this expression is nested more than {MAX_NESTING} levels deep", _first_line(source, node),
                help="split the formula: name its parts with `def` or state them as separate rules")
        stack.extend((child, depth + 1) for child in node.children if isinstance(child, Tree))
    return None


def _hidden_names(source: Source, tree: Tree) -> list[Diagnostic]:
    """E0006 for each name (in backticks) holding a character one cannot see, where it first
    stands: `dele\u200bte` reads as `delete` and is another tool."""
    out, seen = [], set()
    for token in tree.scan_values(lambda v: isinstance(v, Token) and v.type == "NAME"):
        at = hidden_character(token.value)
        if at is None or token.value in seen:
            continue
        seen.add(token.value)
        char = token.value[at]
        code = f"U+{ord(char):04X}"
        shown = "".join(f"\\u{ord(c):04x}" if hidden_character(c) is not None else c for c in token.value)
        out.append(Diagnostic("E0006", f"the name {shown} holds a character that cannot be seen ({code} "
                                       f"{unicodedata.name(char, 'a control character').lower()})",
                              source.span(token.start_pos + at, token.start_pos + at + 1),
                              help="remove it: a name that looks like another but differs in what cannot be seen "
                                   "is another name"))
    return out


def parse_source(source: Source) -> tuple[ast.Module | None, list[Diagnostic]]:
    if len(source.text) > MAX_SOURCE_BYTES:
        return None, [_too_large(source.path, len(source.text.encode("utf-8", "surrogatepass")))]
    try:
        tree, comments = _parse_tree(source.text)
    except UnexpectedInput as exc:
        return None, _recover(source, exc)
    too_deep = _too_deep(source, tree)
    if too_deep is not None:
        return None, [too_deep]
    hidden = _hidden_names(source, tree)
    if hidden:
        return None, hidden
    builder = ToAst(source)
    module = builder.transform(tree)
    if builder.problems:
        return None, builder.problems
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
    """Parse a single formula (as the body of an anonymous rule).

    >>> parse_expression("always (a -> once b)")[0].op
    'always'
    """
    module, diagnostics = parse("rule _: " + text, path)
    if module is None or len(module.items) != 1 or not isinstance(module.items[0], ast.RuleDecl):
        return None, diagnostics
    return module.items[0].body, diagnostics
