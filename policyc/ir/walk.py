"""Generic queries over IR nodes, memoised per node."""

from __future__ import annotations

from policyc.ir import nodes as n


def free_vars(node: n.Node) -> frozenset[str]:
    """Data variables used but not bound by a quantifier inside `node`.

    >>> from policyc.ir import build as b
    >>> f = b.forall("x", None, b.var("D"), b.cond(b.op("eq", b.var("x"), b.var("y"))))
    >>> sorted(free_vars(f))
    ['D', 'y']
    """
    cached: frozenset[str] | None = node._cache.get("free_vars")
    if cached is not None:
        return cached
    if isinstance(node, n.Var):
        out = frozenset((node.name,))
    elif isinstance(node, (n.Forall, n.Exists, n.Quant)):
        out = free_vars(node.domain) | (free_vars(node.body) - {node.var})
    elif isinstance(node, n.Earlier):  # its guard reads an earlier call, with `var` bound
        out = free_vars(node.value) | (free_vars(node.guard) - {node.var})
    else:
        out = frozenset().union(*(free_vars(c) for c in node.children)) if node.children else frozenset()
    node._cache["free_vars"] = out
    return out


def subformulas(node: n.Node) -> list[n.Node]:
    """Every distinct node below (and including) `node`, children before parents."""
    seen: dict[n.Node, None] = {}
    stack: list[tuple[n.Node, bool]] = [(node, False)]
    while stack:
        cur, done = stack.pop()
        if cur in seen:
            continue
        if done:
            seen[cur] = None
            continue
        stack.append((cur, True))
        stack.extend((c, False) for c in cur.children if c not in seen)
    return list(seen)


def tools_mentioned(node: n.Node) -> frozenset[str]:
    """Tools named by events (and by domains) anywhere in `node`."""
    out: set[str] = set()
    for sub in subformulas(node):
        if isinstance(sub, (n.Event, n.Values)):
            out.add(sub.tool)
        elif isinstance(sub, n.Outputs):
            out.update(sub.tools)
    return frozenset(out)


def has_past(node: n.Node) -> bool:
    return any(isinstance(s, (n.Yesterday, n.WYesterday, n.Since, n.Trigger)) for s in subformulas(node))


def has_future(node: n.Node) -> bool:
    return any(isinstance(s, (n.Next, n.WNext, n.Until, n.Release)) for s in subformulas(node))
