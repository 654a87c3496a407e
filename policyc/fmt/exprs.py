"""Formulas, terms and types -> documents, with parentheses only where the grammar needs them.

Binding strength follows grammar/agentltl.lark, loosest first: `->` (right), `<->`, `or`,
`and` (left), binary temporal operators (right; their left operand is unary), unary
operators, comparisons (not chained), `+ -`, `* / %` (left), unary minus, postfix. A
quantifier or conditional extends as far right as it can, so it is parenthesised unless it
ends the enclosing expression. For readability, binary operators of different kinds never mix
without brackets: `(a and b) or c`, `(a or b) -> c`, `a -> (b since c)`. Chains of `and` or
`or` are printed flat (`a and b and c`), without recursion, and continue on a new line
(before an operator) only where the next operand does not fit.
"""

from __future__ import annotations

from policyc.fmt.doc import Doc, IfBreak, align, concat, fill, group, hardline, join, line, nest, softline
from policyc.syntax import ast
from policyc.syntax.lexical import show_label, show_name, show_string

KEYWORDS = {
    "next": "next", "weak_next": "weak next", "eventually": "eventually", "always": "always",
    "yesterday": "yesterday", "weak_yesterday": "weak yesterday", "once": "once", "historically": "historically",
    "until": "until", "weak_until": "weak until", "release": "release", "since": "since",
    "and": "and", "or": "or", "implies": "->", "iff": "<->",
}
_LOGIC_LEVEL = {"implies": 1, "iff": 2, "or": 3, "and": 4}
TEMPORAL_LEVEL, UNARY_LEVEL, COMPARE_LEVEL, SUM_LEVEL, PRODUCT_LEVEL, NEGATIVE_LEVEL, POSTFIX_LEVEL, ATOM_LEVEL = (
    5, 6, 7, 8, 9, 10, 11, 12)
_EXTENDS_RIGHT = (ast.Quantifier, ast.Conditional, ast.WhenShall)


def level(e: ast.Expr) -> int:
    if isinstance(e, ast.Logic):
        return _LOGIC_LEVEL[e.op]
    if isinstance(e, ast.BinaryTemporal):
        return TEMPORAL_LEVEL
    if isinstance(e, (ast.Not, ast.UnaryTemporal, ast.Quantifier, ast.Conditional, ast.WhenShall)):
        return UNARY_LEVEL
    if isinstance(e, ast.Comparison):
        return COMPARE_LEVEL
    if isinstance(e, ast.Arithmetic):
        return SUM_LEVEL if e.op in "+-" else PRODUCT_LEVEL
    if isinstance(e, ast.Negative):
        return NEGATIVE_LEVEL
    if isinstance(e, (ast.FieldAccess, ast.Index, ast.Slice, ast.Spread)):
        return POSTFIX_LEVEL
    return ATOM_LEVEL


def expr(e: ast.Expr, needed: int = 0, at_end: bool = True) -> Doc:
    """`e` in a position that needs binding strength `needed`; `at_end` when nothing of the
    enclosing expression follows it (so a quantifier there needs no parentheses)."""
    if level(e) < needed or isinstance(e, _EXTENDS_RIGHT) and not at_end:
        return concat("(", align(bare(e, True)), ")")
    return bare(e, at_end)


def bare(e: ast.Expr, at_end: bool) -> Doc:  # noqa: C901 - one case per node
    if isinstance(e, (ast.Logic, ast.BinaryTemporal)):
        return _binary(e, at_end)
    if isinstance(e, ast.Not):
        return concat("not ", _operand(e.operand, UNARY_LEVEL, at_end))
    if isinstance(e, ast.UnaryTemporal):
        return concat(KEYWORDS[e.op], " ", _operand(e.operand, UNARY_LEVEL, at_end))
    if isinstance(e, ast.Quantifier):
        domain = concat(" in ", expr(e.domain, SUM_LEVEL, False)) if e.domain is not None else ""
        head = concat(e.kind, " ", show_name(e.var), domain, ":")
        return group(concat(head, nest(4, concat(line(), expr(e.body, 0, at_end)))))
    if isinstance(e, ast.Conditional):
        return _conditional(e, at_end)
    if isinstance(e, ast.WhenShall):
        return group(concat("when ", align(_inner(e.applies)), line(), "shall ", align(expr(e.obliges, 0, at_end))))
    if isinstance(e, ast.Comparison):  # the sources of `from` are a postfix expression
        right = POSTFIX_LEVEL if e.op.endswith("from") else SUM_LEVEL
        return concat(expr(e.left, SUM_LEVEL, False), f" {e.op} ", expr(e.right, right, at_end))
    if isinstance(e, ast.Arithmetic):
        own = level(e)
        return concat(expr(e.left, own, False), f" {e.op} ", expr(e.right, own + 1, at_end))
    if isinstance(e, ast.Negative):
        return concat("-", expr(e.operand, NEGATIVE_LEVEL, at_end))
    if isinstance(e, ast.FieldAccess):
        return concat(expr(e.target, POSTFIX_LEVEL, False), ".", show_label(e.name))
    if isinstance(e, ast.Index):
        return concat(expr(e.target, POSTFIX_LEVEL, False), "[", _inner(e.index), "]")
    if isinstance(e, ast.Spread):
        return concat(expr(e.target, POSTFIX_LEVEL, False), "[*]")
    if isinstance(e, ast.Slice):
        start = _inner(e.start) if e.start is not None else ""
        stop = _inner(e.stop) if e.stop is not None else ""
        return concat(expr(e.target, POSTFIX_LEVEL, False), "[", start, ":", stop, "]")
    if isinstance(e, ast.Name):
        return _event_name(e.id)
    if isinstance(e, ast.Literal):
        return literal(e)
    if isinstance(e, ast.Call):
        return bracketed(_event_name(e.func) + "(", [argument(a) for a in e.args], ")")
    if isinstance(e, ast.ListLit):
        return bracketed("[", [expr(i) for i in e.items], "]")
    if isinstance(e, ast.DictLit):
        return bracketed("{", [concat(show_string(k), ": ", expr(v)) for k, v in e.entries], "}")
    raise TypeError(f"cannot format {type(e).__name__}")


def _inner(e: ast.Expr) -> Doc:
    """An index or slice bound: any expression, parenthesised if it would read as a quantifier."""
    return expr(e, 0, not isinstance(e, _EXTENDS_RIGHT))


def argument(a: ast.Expr | ast.KeywordArg) -> Doc:
    if isinstance(a, ast.KeywordArg):
        return concat(show_name(a.name), ": ", expr(a.value))
    return expr(a)


def bracketed(open_: str, items: list[Doc], close: str) -> Doc:
    """`f(a, b)`; when too long, one item per line aligned after the bracket."""
    return group(concat(open_, align(join(concat(",", line()), items)), close))


def literal(e: ast.Literal) -> str:
    if e.kind == "str":
        return show_string(e.value)  # type: ignore[arg-type]
    if e.kind == "bool":
        return "true" if e.value else "false"
    if e.kind == "null":
        return "null"
    return repr(e.value)


def _operand(e: ast.Expr, needed: int, at_end: bool) -> Doc:
    """An operand of an operator: another binary operator, or a conditional, is always
    parenthesised, so that `and`, `or`, `->` and the temporal operators never mix without
    brackets."""
    if isinstance(e, (ast.Logic, ast.BinaryTemporal, ast.Conditional, ast.WhenShall)):
        return concat("(", align(bare(e, True)), ")")
    return expr(e, needed, at_end)


def _binary(e: ast.Logic | ast.BinaryTemporal, at_end: bool) -> Doc:
    """`a and b and c` as one flat chain (and/or are associative); `->`, `<->` and the
    temporal operators with their two operands. Broken before each operator."""
    own = level(e)
    if isinstance(e, ast.Logic) and e.op in ("and", "or"):
        operands: list[ast.Expr] = []
        cur: ast.Expr = e
        while isinstance(cur, ast.Logic) and cur.op == e.op:
            operands.append(cur.right)
            cur = cur.left
        operands.append(cur)
        operands.reverse()
    else:
        operands = [e.left, e.right]
    last = len(operands) - 1
    docs = [_operand(o, UNARY_LEVEL if own == TEMPORAL_LEVEL and i < last else own + 1, at_end and i == last)
            for i, o in enumerate(operands)]
    if len(docs) > 2 or e.op in ("and", "or"):
        return fill([docs[0], *(concat(KEYWORDS[e.op], " ", d) for d in docs[1:])])
    return group(concat(docs[0], line(), KEYWORDS[e.op], " ", docs[1]))


def _conditional(e: ast.Conditional, at_end: bool, broken: bool = False) -> Doc:
    """`if c then a else b`, an `else if` chain broken before each `else` (always, when
    `broken`: the body of a rule or macro)."""
    parts: list[Doc] = []
    cur: ast.Expr = e
    while isinstance(cur, ast.Conditional):
        parts.extend(("if ", _inner(cur.cond), " then ", _inner(cur.then), hardline() if broken else line(), "else "))
        cur = cur.orelse
    parts.append(expr(cur, 0, at_end))
    return group(concat(*parts))


def body(e: ast.Expr) -> Doc:
    """The body of a rule or macro: a conditional there has each `else` on its own line."""
    return _conditional(e, True, broken=True) if isinstance(e, ast.Conditional) else expr(e)


# ------------------------------------------------------------------ types


def type_expr(t: ast.TypeExpr) -> Doc:
    if isinstance(t, ast.OptionalType):
        return concat(type_expr(t.inner), "?")
    if isinstance(t, ast.RecordType):
        return braced([field(f) for f in t.fields])
    if t.args:
        return concat(show_label(t.name), "[", join(", ", [type_expr(a) for a in t.args]), "]")
    return show_label(t.name)


def field(f: ast.FieldDecl | ast.Param) -> Doc:
    """A record field (`name: type`, `name: untrusted type`) or a parameter (whose name a
    formula may mention)."""
    name = show_label(f.name) if isinstance(f, ast.FieldDecl) else show_name(f.name)
    trust = f"{f.trust} " if isinstance(f, ast.FieldDecl) and f.trust else ""
    return concat(name, ": ", trust, type_expr(f.type))


def braced(items: list[Doc], open_: str = "{", close: str = "}") -> Doc:
    """`{ a, b }`; when too long, one item per line, indented, with a trailing comma."""
    if not items:
        return open_ + close
    inner = concat(nest(4, concat(line(), join(concat(",", line()), items), IfBreak(","))), line())
    return group(concat(open_, inner, close))


def parenthesized(items: list[Doc], open_: str = "(", close: str = ")") -> Doc:
    """`(a, b)`; when too long, one item per line, indented, with a trailing comma."""
    if not items:
        return open_ + close
    inner = concat(nest(4, concat(softline(), join(concat(",", line()), items), IfBreak(","))), softline())
    return group(concat(open_, inner, close))


def _event_name(name: str) -> str:
    """A name in a formula; `message`, the message event, reads the same bare in any formula."""
    return name if name == "message" else show_name(name)
