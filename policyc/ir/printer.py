"""IR -> AgentLTL text, for residual formulas, reports and error messages.

>>> from policyc.ir import build as b
>>> show(b.always(b.implies(b.event("refund", b.op("eq", b.arg("order_id"), b.var("o"))),
...                          b.once(b.event("check", b.op("eq", b.arg("order_id"), b.var("o")))))))
'G (refund(order_id: o) -> O check(order_id: o))'
"""

from __future__ import annotations

import json

from policyc.ir.nodes import (
    And,
    Arg,
    Attr,
    Cond,
    Const,
    Event,
    Exists,
    Extern,
    Field,
    Flows,
    Forall,
    From,
    Index,
    Lit,
    Metric,
    Next,
    Node,
    Not,
    Op,
    Or,
    Outputs,
    Done,
    Earlier,
    Project,
    Quant,
    Release,
    Request,
    Result,
    Since,
    Slice,
    Trigger,
    Until,
    Values,
    Var,
    WNext,
    WYesterday,
    Yesterday,
)
from policyc.ir.ops import OPS

# precedence levels, loosest first (mirrors grammar/agentltl.lark)
QUANT, IMPLIES, IFF, OR, AND, BINTEMP, UNARY, COMPARE, ADD, MUL, NEG, ATOM = range(12)
_TERM_PREC = {"add": ADD, "sub": ADD, "mul": MUL, "div": MUL, "mod": MUL}


def show(node: Node, limit: int | None = None) -> str:
    """AgentLTL text of `node`; with `limit`, at most about that many characters, deep
    sub-formulas elided as `…` (a shared sub-formula can make the full text exponential)."""
    if limit is None or _size(node) <= limit:
        return _show(node)[0]
    return _bounded(node, limit)


def _size(node: Node) -> int:
    """An upper bound on the length of `show(node)`, memoised on the shared node."""
    cached = node._cache.get("text_size")
    if cached is None:
        cached = 12 + sum(_size(c) + 4 for c in node.children)
        if isinstance(node, Lit):
            cached += len(node.text)
        node._cache["text_size"] = cached
    return cached


def _bounded(node: Node, budget: int) -> str:
    if isinstance(node, (Event, Lit, Var, Arg, Result)) or not node.children:
        return _show(node)[0]
    if budget < 12:
        return "…"
    if _size(node) <= budget:
        return f"({_show(node)[0]})"
    kids = node.children
    share = max(0, (budget - 12) // len(kids))
    parts = ", ".join(_bounded(c, share) for c in kids)
    return f"{type(node).__name__.lower()}({parts})"


def _wrap(part: tuple[str, int], need: int) -> str:
    text, prec = part
    return f"({text})" if prec < need else text


def _show(node: Node) -> tuple[str, int]:  # noqa: C901 - one case per node type
    # ------------------------------------------------ terms
    if isinstance(node, Lit):
        return json.dumps(node.value, ensure_ascii=False), ATOM
    if isinstance(node, (Var, Arg)):
        return node.name, ATOM
    if isinstance(node, Result):
        return "result", ATOM
    if isinstance(node, Attr):
        return node.name, ATOM
    if isinstance(node, Request):
        return "request", ATOM
    if isinstance(node, Field):
        return f"{_wrap(_show(node.base), ATOM)}.{node.name}", ATOM
    if isinstance(node, Index):
        return f"{_wrap(_show(node.base), ATOM)}[{show(node.index)}]", ATOM
    if isinstance(node, Slice):
        start = show(node.start) if node.start is not None else ""
        stop = show(node.stop) if node.stop is not None else ""
        return f"{_wrap(_show(node.base), ATOM)}[{start}:{stop}]", ATOM
    if isinstance(node, Values):
        path = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in node.path)
        return f"{node.tool}{path}", ATOM
    if isinstance(node, Outputs):
        return ("outputs" if not node.tools else f"outputs({', '.join(node.tools)})"), ATOM
    if isinstance(node, Done):
        return "done", ATOM
    if isinstance(node, Metric):
        return "metrics" + "".join(f".{p}" for p in node.path), ATOM
    if isinstance(node, Extern):
        return f"{node.name}({', '.join(show(a) for a in node.args)})", ATOM
    if isinstance(node, Op):
        return _show_op(node)
    if isinstance(node, Quant):
        return f"{node.kind} {node.var} in {_wrap(_show(node.domain), ADD)}: {show(node.body)}", QUANT
    if isinstance(node, Project):
        return f"{_wrap(_show(node.base), ATOM)}[*]" + "".join(f".{p}" for p in node.path), ATOM
    if isinstance(node, From):
        word = "only from" if node.only else "from"
        return f"{_wrap(_show(node.value), ADD)} {word} {node.label}", COMPARE
    if isinstance(node, Flows):
        return f"flows({node.label}, {show(node.text)}, {node.span})", ATOM
    if isinstance(node, Earlier):
        parts = node.guard.args if isinstance(node.guard, Op) and node.guard.op == "and" else (node.guard,)
        guard = ", ".join(_show_condition(p) for p in parts if not (isinstance(p, Lit) and p.value is True))
        return f"earlier {node.tool}({guard}) with {node.var} = {show(node.value)}", QUANT
    # ------------------------------------------------ formulas
    if isinstance(node, Const):
        return ("true" if node.value else "false"), ATOM
    if isinstance(node, Event):
        if isinstance(node.guard, Lit) and node.guard.value is True:
            return node.tool, ATOM
        parts = node.guard.args if isinstance(node.guard, Op) and node.guard.op == "and" else (node.guard,)
        return f"{node.tool}({', '.join(_show_condition(p) for p in parts)})", ATOM
    if isinstance(node, Cond):
        return _show(node.term)
    if isinstance(node, Not):
        return f"not {_wrap(_show(node.arg), UNARY)}", UNARY
    if isinstance(node, Or) and len(node.args) == 2 and sum(isinstance(a, Not) for a in node.args) == 1:
        neg_part = next(a for a in node.args if isinstance(a, Not))
        pos_part = next(a for a in node.args if not isinstance(a, Not))
        return f"{_wrap(_show(neg_part.arg), IFF)} -> {_wrap(_show(pos_part), IMPLIES)}", IMPLIES
    if isinstance(node, (And, Or)):
        word, prec = ("and", AND) if isinstance(node, And) else ("or", OR)
        return f" {word} ".join(_wrap(_show(a), prec + 1) for a in node.args), prec
    if isinstance(node, (Next, WNext, Yesterday, WYesterday)):
        letter = {Next: "X", WNext: "WX", Yesterday: "Y", WYesterday: "Z"}[type(node)]
        return f"{letter} {_wrap(_show(node.arg), UNARY)}", UNARY
    if isinstance(node, Until):
        if node.left.__class__ is Const and node.left.value:
            return f"F {_wrap(_show(node.right), UNARY)}", UNARY
        return f"{_wrap(_show(node.left), UNARY)} U {_wrap(_show(node.right), BINTEMP)}", BINTEMP
    if isinstance(node, Release):
        if node.left.__class__ is Const and not node.left.value:
            return f"G {_wrap(_show(node.right), UNARY)}", UNARY
        return f"{_wrap(_show(node.left), UNARY)} R {_wrap(_show(node.right), BINTEMP)}", BINTEMP
    if isinstance(node, Since):
        if node.left.__class__ is Const and node.left.value:
            return f"O {_wrap(_show(node.right), UNARY)}", UNARY
        return f"{_wrap(_show(node.left), UNARY)} S {_wrap(_show(node.right), BINTEMP)}", BINTEMP
    if isinstance(node, Trigger):
        if node.left.__class__ is Const and not node.left.value:
            return f"H {_wrap(_show(node.right), UNARY)}", UNARY
        left = _negated_text(node.left)
        right = _negated_text(node.right)
        return f"not ({left} S {right})", UNARY
    if isinstance(node, (Forall, Exists)):
        word = "forall" if isinstance(node, Forall) else "exists"
        return f"{word} {node.var} in {_wrap(_show(node.domain), ADD)}: {show(node.body)}", QUANT
    raise TypeError(f"cannot print {type(node).__name__}")


def _negated_text(f: Node) -> str:
    if isinstance(f, Not):
        return _wrap(_show(f.arg), UNARY)
    return f"not {_wrap(_show(f), UNARY)}"


def _show_condition(term: Node) -> str:
    """A guard conjunct, as written inside an event pattern (`arg: v` for equalities)."""
    if isinstance(term, Op) and term.op == "eq" and isinstance(term.args[0], Arg) and not isinstance(term.args[1], Arg):
        return f"{term.args[0].name}: {show(term.args[1])}"
    return show(term)


def _show_op(node: Op) -> tuple[str, int]:
    spec = OPS[node.op]
    a = node.args
    if spec.kind == "compare":
        return f"{_wrap(_show(a[0]), ADD)} {spec.symbol} {_wrap(_show(a[1]), ADD)}", COMPARE
    if node.op == "neg":
        return f"-{_wrap(_show(a[0]), NEG)}", NEG
    if node.op in _TERM_PREC:
        prec = _TERM_PREC[node.op]
        return f"{_wrap(_show(a[0]), prec)} {spec.symbol} {_wrap(_show(a[1]), prec + 1)}", prec
    if node.op == "not":
        inner = a[0]
        if isinstance(inner, Op) and inner.op == "in":
            return f"{_wrap(_show(inner.args[0]), ADD)} not in {_wrap(_show(inner.args[1]), ADD)}", COMPARE
        if isinstance(inner, From) and not inner.only:
            return f"{_wrap(_show(inner.value), ADD)} not from {inner.label}", COMPARE
        return f"not {_wrap(_show(inner), UNARY)}", UNARY
    if node.op in ("and", "or"):
        prec = AND if node.op == "and" else OR
        return f" {node.op} ".join(_wrap(_show(x), prec + 1) for x in a), prec
    if node.op == "list":
        return "[" + ", ".join(show(x) for x in a) + "]", ATOM
    if node.op == "actions":  # the policy's `claims` travel with it, unshown
        return f"actions({show(a[0])})", ATOM
    if node.op == "dict":
        items = ", ".join(f"{show(a[i])}: {show(a[i + 1])}" for i in range(0, len(a), 2))
        return "{" + items + "}", ATOM
    return f"{spec.symbol}({', '.join(show(x) for x in a)})", ATOM
