"""IR -> AgentLTL text, for residual formulas, reports and error messages.

>>> from policyc.ir import build as b
>>> show(b.always(b.implies(b.event("refund", b.op("eq", b.arg("order_id"), b.var("o"))),
...                          b.once(b.event("check", b.op("eq", b.arg("order_id"), b.var("o")))))))
'G (refund(order_id: o) -> O check(order_id: o))'
"""

from __future__ import annotations

import json
from typing import Any, Callable

from policyc.ir import nodes as n
from policyc.ir.dispatch import Cases
from policyc.ir.nodes import Node
from policyc.ir.ops import OPS
from policyc.recursion import deep_recursion

# precedence levels, loosest first (mirrors grammar/agentltl.lark)
QUANT, IMPLIES, IFF, OR, AND, BINTEMP, UNARY, COMPARE, ADD, MUL, NEG, ATOM = range(12)
_TERM_PREC = {"add": ADD, "sub": ADD, "mul": MUL, "div": MUL, "mod": MUL}


def show(node: Node, limit: int | None = None) -> str:
    """AgentLTL text of `node`; with `limit`, at most about that many characters, deep
    sub-formulas elided as `…` (a shared sub-formula can make the full text exponential).
    Formulas expanded from counts and chains are hundreds of levels deep: printing them
    recurses a few frames per level (`policyc.recursion`)."""
    text: str | None = node._cache.get("text")  # the node's own memo: a node's text never changes
    if text is not None and (limit is None or len(text) <= limit):
        return text
    with deep_recursion():
        if limit is None or _size(node) <= limit:
            text = node._cache["text"] = _show(node)[0]
            return text
        return _bounded(node, limit)


def _size(node: Node) -> int:
    """An upper bound on the length of `show(node)`, memoised on the shared node."""
    cached = node._cache.get("text_size")
    if cached is None:
        cached = 12 + sum(_size(c) + 4 for c in node.children)
        if isinstance(node, n.Lit):
            cached += len(node.text)
        node._cache["text_size"] = cached
    return cached


def _bounded(node: Node, budget: int) -> str:
    if isinstance(node, (n.Event, n.Lit, n.Var, n.Arg, n.Result)) or not node.children:
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


def _show(node: Node) -> tuple[str, int]:
    """The text of a node and the precedence of its outermost operator."""
    return _SHOW[node.__class__](node)


Shown = tuple[str, int]
#: The text of each kind of node and the precedence of its outermost operator.
_SHOW: Cases[Callable[[Any], Shown]] = Cases("show", n.TERMS + n.FORMULAS)

# ------------------------------------------------ terms


@_SHOW.on(n.Lit)
def _lit(node: n.Lit) -> Shown:
    return json.dumps(node.value, ensure_ascii=False), ATOM


@_SHOW.on(n.Var, n.Arg, n.Attr)
def _name(node: n.Var | n.Arg | n.Attr) -> Shown:
    return node.name, ATOM


@_SHOW.on(n.Result)
def _result(node: n.Result) -> Shown:
    return "result", ATOM


@_SHOW.on(n.Request)
def _request(node: n.Request) -> Shown:
    return "request", ATOM


@_SHOW.on(n.Field)
def _field(node: n.Field) -> Shown:
    return f"{_wrap(_show(node.base), ATOM)}.{node.name}", ATOM


@_SHOW.on(n.Index)
def _index(node: n.Index) -> Shown:
    return f"{_wrap(_show(node.base), ATOM)}[{_show(node.index)[0]}]", ATOM


@_SHOW.on(n.Slice)
def _slice(node: n.Slice) -> Shown:
    start = _show(node.start)[0] if node.start is not None else ""
    stop = _show(node.stop)[0] if node.stop is not None else ""
    return f"{_wrap(_show(node.base), ATOM)}[{start}:{stop}]", ATOM


@_SHOW.on(n.Values)
def _values(node: n.Values) -> Shown:
    path = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in node.path)
    return f"{node.tool}{path}", ATOM


@_SHOW.on(n.Outputs)
def _outputs(node: n.Outputs) -> Shown:
    return ("outputs" if not node.tools else f"outputs({', '.join(node.tools)})"), ATOM


@_SHOW.on(n.Done)
def _done(node: n.Done) -> Shown:
    return "done", ATOM


@_SHOW.on(n.Metric)
def _metric(node: n.Metric) -> Shown:
    return "metrics" + "".join(f".{p}" for p in node.path), ATOM


@_SHOW.on(n.Extern)
def _extern(node: n.Extern) -> Shown:
    return f"{node.name}({', '.join(_show(a)[0] for a in node.args)})", ATOM


@_SHOW.on(n.Quant)
def _quant(node: n.Quant) -> Shown:
    return f"{node.kind} {node.var} in {_wrap(_show(node.domain), ADD)}: {_show(node.body)[0]}", QUANT


@_SHOW.on(n.Project)
def _project(node: n.Project) -> Shown:
    return f"{_wrap(_show(node.base), ATOM)}[*]" + "".join(f".{p}" for p in node.path), ATOM


@_SHOW.on(n.From)
def _from(node: n.From) -> Shown:
    word = "only from" if node.only else "from"
    return f"{_wrap(_show(node.value), ADD)} {word} {node.label}", COMPARE


@_SHOW.on(n.Flows)
def _flows(node: n.Flows) -> Shown:
    return f"flows({node.label}, {_show(node.text)[0]}, {node.span})", ATOM


@_SHOW.on(n.Earlier)
def _earlier(node: n.Earlier) -> Shown:
    parts = node.guard.args if isinstance(node.guard, n.Op) and node.guard.op == "and" else (node.guard,)
    guard = ", ".join(_show_condition(p) for p in parts if not (isinstance(p, n.Lit) and p.value is True))
    return f"earlier {node.tool}({guard}) with {node.var} = {_show(node.value)[0]}", QUANT


# ------------------------------------------------ formulas


@_SHOW.on(n.Const)
def _const(node: n.Const) -> Shown:
    return ("true" if node.value else "false"), ATOM


@_SHOW.on(n.Event)
def _event(node: n.Event) -> Shown:
    if isinstance(node.guard, n.Lit) and node.guard.value is True:
        return node.tool, ATOM
    parts = node.guard.args if isinstance(node.guard, n.Op) and node.guard.op == "and" else (node.guard,)
    return f"{node.tool}({', '.join(_show_condition(p) for p in parts)})", ATOM


@_SHOW.on(n.Cond)
def _cond(node: n.Cond) -> Shown:
    return _show(node.term)


@_SHOW.on(n.Not)
def _not(node: n.Not) -> Shown:
    return f"not {_wrap(_show(node.arg), UNARY)}", UNARY


@_SHOW.on(n.And)
def _and(node: n.And) -> Shown:
    return " and ".join(_wrap(_show(a), AND + 1) for a in node.args), AND


@_SHOW.on(n.Or)
def _or(node: n.Or) -> Shown:
    if len(node.args) == 2 and sum(isinstance(a, n.Not) for a in node.args) == 1:  # `a -> b`
        neg_part = next(a for a in node.args if isinstance(a, n.Not))
        pos_part = next(a for a in node.args if not isinstance(a, n.Not))
        return f"{_wrap(_show(neg_part.arg), IFF)} -> {_wrap(_show(pos_part), IMPLIES)}", IMPLIES
    return " or ".join(_wrap(_show(a), OR + 1) for a in node.args), OR


_LETTERS = {n.Next: "X", n.WNext: "WX", n.Yesterday: "Y", n.WYesterday: "Z"}


@_SHOW.on(*_LETTERS)
def _unary(node: n.Next | n.WNext | n.Yesterday | n.WYesterday) -> Shown:
    return f"{_LETTERS[node.__class__]} {_wrap(_show(node.arg), UNARY)}", UNARY


def _binary(node: n.Until | n.Release | n.Since, letter: str, unit: bool, short: str) -> Shown:
    """`a U b`, `a R b`, `a S b`; `F b`, `G b`, `O b` when `a` is the constant `unit`."""
    if node.left.__class__ is n.Const and bool(node.left.value) is unit:
        return f"{short} {_wrap(_show(node.right), UNARY)}", UNARY
    return f"{_wrap(_show(node.left), UNARY)} {letter} {_wrap(_show(node.right), BINTEMP)}", BINTEMP


@_SHOW.on(n.Until)
def _until(node: n.Until) -> Shown:
    return _binary(node, "U", True, "F")


@_SHOW.on(n.Release)
def _release(node: n.Release) -> Shown:
    return _binary(node, "R", False, "G")


@_SHOW.on(n.Since)
def _since(node: n.Since) -> Shown:
    return _binary(node, "S", True, "O")


@_SHOW.on(n.Trigger)
def _trigger(node: n.Trigger) -> Shown:
    if node.left.__class__ is n.Const and not node.left.value:
        return f"H {_wrap(_show(node.right), UNARY)}", UNARY
    return f"not ({_negated_text(node.left)} S {_negated_text(node.right)})", UNARY


@_SHOW.on(n.Forall, n.Exists)
def _quantifier(node: n.Forall | n.Exists) -> Shown:
    word = "forall" if isinstance(node, n.Forall) else "exists"
    return f"{word} {node.var} in {_wrap(_show(node.domain), ADD)}: {_show(node.body)[0]}", QUANT


def _negated_text(f: Node) -> str:
    if isinstance(f, n.Not):
        return _wrap(_show(f.arg), UNARY)
    return f"not {_wrap(_show(f), UNARY)}"


def _show_condition(term: Node) -> str:
    """A guard conjunct, as written inside an event pattern (`arg: v` for equalities)."""
    if isinstance(term, n.Op) and term.op == "eq" and isinstance(term.args[0], n.Arg) and not isinstance(term.args[1], n.Arg):
        return f"{term.args[0].name}: {_show(term.args[1])[0]}"
    return _show(term)[0]


@_SHOW.on(n.Op)
def _show_op(node: n.Op) -> Shown:
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
        if isinstance(inner, n.Op) and inner.op == "in":
            return f"{_wrap(_show(inner.args[0]), ADD)} not in {_wrap(_show(inner.args[1]), ADD)}", COMPARE
        if isinstance(inner, n.From) and not inner.only:
            return f"{_wrap(_show(inner.value), ADD)} not from {inner.label}", COMPARE
        return f"not {_wrap(_show(inner), UNARY)}", UNARY
    if node.op in ("and", "or"):
        prec = AND if node.op == "and" else OR
        return f" {node.op} ".join(_wrap(_show(x), prec + 1) for x in a), prec
    if node.op == "list":
        return "[" + ", ".join(_show(x)[0] for x in a) + "]", ATOM
    if node.op == "actions":  # the policy's `claims` travel with it, unshown
        return f"actions({_show(a[0])[0]})", ATOM
    if node.op == "dict":
        items = ", ".join(f"{_show(a[i])[0]}: {_show(a[i + 1])[0]}" for i in range(0, len(a), 2))
        return "{" + items + "}", ATOM
    return f"{spec.symbol}({', '.join(_show(x)[0] for x in a)})", ATOM


_SHOW.complete()
