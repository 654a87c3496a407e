"""IR <-> JSON, as a table of shared nodes (a DAG, like the hash-consed IR itself).

>>> from policyc.ir import build as b
>>> f = b.always(b.implies(b.event("a"), b.eventually(b.event("b", b.op("gt", b.arg("n"), b.lit(3))))))
>>> data = dump_nodes([f])
>>> load_nodes(data)[0] is f
True
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from policyc.ir import nodes as n
from policyc.ir.ops import OPS
from policyc.ir.types import type_from_json, type_to_json

if TYPE_CHECKING:
    from policyc.grounding.provenance import SourceSet

# field kinds per node class: node, nodes, opt_node, str, bool, int, path, strs, type, json, sources
_SCHEMA: dict[type, tuple[str, ...]] = {
    n.Lit: ("json",),
    n.Var: ("str",),
    n.Arg: ("str",),
    n.Result: (),
    n.Attr: ("str",),
    n.Request: (),
    n.Field: ("node", "str"),
    n.Index: ("node", "node"),
    n.Slice: ("node", "opt_node", "opt_node"),
    n.Op: ("str", "nodes"),
    n.Extern: ("str", "nodes"),
    n.Values: ("str", "path", "bool"),
    n.Outputs: ("strs",),
    n.Done: ("strs",),
    n.Metric: ("path",),
    n.Quant: ("str", "str", "node", "node"),
    n.Project: ("node", "strs"),
    n.From: ("node", "bool", "str", "sources"),
    n.Flows: ("str", "sources", "node", "int"),
    n.Earlier: ("str", "str", "node", "node"),
    n.Const: ("bool",),
    n.Event: ("str", "node"),
    n.Cond: ("node",),
    n.Not: ("node",),
    n.And: ("nodes",),
    n.Or: ("nodes",),
    n.Next: ("node",),
    n.WNext: ("node",),
    n.Until: ("node", "node"),
    n.Release: ("node", "node"),
    n.Yesterday: ("node",),
    n.WYesterday: ("node",),
    n.Since: ("node", "node"),
    n.Trigger: ("node", "node"),
    n.Forall: ("str", "type", "node", "node"),
    n.Exists: ("str", "type", "node", "node"),
}
_BY_NAME = {cls.__name__: cls for cls in _SCHEMA}


def _fields(node: n.Node) -> tuple[Any, ...]:
    if isinstance(node, n.Lit):
        return (node.value,)
    return tuple(getattr(node, f) for f in node._fields)


def dump_nodes(roots: list[n.Node]) -> dict[str, Any]:
    """Serialise formulas or terms; shared sub-formulas are written once."""
    table: list[list[Any]] = []
    ids: dict[n.Node, int] = {}

    def visit(node: n.Node) -> int:
        if node in ids:
            return ids[node]
        stack = [(node, False)]
        while stack:
            cur, expanded = stack.pop()
            if cur in ids:
                continue
            kinds = _SCHEMA[type(cur)]
            values = _fields(cur)
            if not expanded:
                stack.append((cur, True))
                for kind, value in zip(kinds, values):
                    if kind == "node" or kind == "opt_node" and value is not None:
                        stack.append((value, False))
                    elif kind == "nodes":
                        stack.extend((v, False) for v in value)
                continue
            entry: list[Any] = [type(cur).__name__]
            for kind, value in zip(kinds, values):
                if kind in ("node",):
                    entry.append(ids[value])
                elif kind == "opt_node":
                    entry.append(None if value is None else ids[value])
                elif kind == "nodes":
                    entry.append([ids[v] for v in value])
                elif kind == "type":
                    entry.append(None if value is None else type_to_json(value))
                elif kind in ("path", "strs"):
                    entry.append(list(value))
                elif kind == "sources":
                    entry.append([[sel, tool, list(path), inc] for sel, tool, path, inc in value])
                else:
                    entry.append(value)
            ids[cur] = len(table)
            table.append(entry)
        return ids[node]

    return {"nodes": table, "roots": [visit(r) for r in roots]}


class NodeTableError(ValueError):
    """A node table that is not one `dump_nodes` could have written (artifacts come from outside)."""


#: Node-valued fields that hold a term; every other node-valued field holds a formula.
_TERM_FIELDS: dict[type, tuple[int, ...]] = {
    n.Field: (0,), n.Index: (0, 1), n.Slice: (0, 1, 2), n.Op: (1,), n.Extern: (1,),
    n.Event: (1,), n.Cond: (0,), n.Forall: (2,), n.Exists: (2,),
    n.Quant: (2, 3), n.Project: (0,), n.From: (0,), n.Flows: (2,),
    n.Earlier: (2, 3),
}
_SELECTORS = ("request", "user", "tool", "default")


def load_nodes(data: dict[str, Any]) -> list[n.Node]:
    """The roots of a node table, rebuilt. Every entry is checked first: a known node kind, its
    fields of the right shape, references only to earlier entries (so the table is acyclic),
    terms where terms belong and formulas where formulas do, operators that exist with their
    arity; anything else is a `NodeTableError` naming the entry.

    >>> load_nodes({"nodes": [["Event", "a", 1]], "roots": [0]})
    Traceback (most recent call last):
    ...
    policyc.ir.serialize.NodeTableError: node 0 (Event): field 2 refers to node 1, which does not come before it
    """
    if not isinstance(data, dict) or not isinstance(data.get("nodes"), list) or not isinstance(data.get("roots"), list):
        raise NodeTableError("a node table is an object with the lists `nodes` and `roots`")
    built: list[n.Node] = []
    for k, entry in enumerate(data["nodes"]):
        built.append(_load_entry(k, entry, built))
    roots = data["roots"]
    for i in roots:
        if not _is_index(i) or not 0 <= i < len(built):
            raise NodeTableError(f"root {i!r} is not a node of the table (it has {len(built)})")
    return [built[i] for i in roots]


def _load_sources(value: object, where: str, field: int) -> SourceSet:
    """A set of sources: a list of [selector, tool, path, included]."""
    def rule_ok(r: object) -> bool:
        return isinstance(r, list) and len(r) == 4 and r[0] in _SELECTORS and isinstance(r[1], str) \
            and isinstance(r[2], list) and all(isinstance(p, str) for p in r[2]) and isinstance(r[3], bool)

    if not isinstance(value, list) or not all(rule_ok(r) for r in value):
        raise NodeTableError(f"{where}: field {field + 1} must be a set of sources: "
                             "[selector, tool, path, included] each")
    return tuple((r[0], r[1], tuple(r[2]), r[3]) for r in value)


def _is_index(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _load_entry(k: int, entry: object, built: list[n.Node]) -> n.Node:
    if not isinstance(entry, list) or not entry or not isinstance(entry[0], str) or entry[0] not in _BY_NAME:
        head = entry[0] if isinstance(entry, list) and entry else entry
        raise NodeTableError(f"node {k}: {str(head)[:40]!r} is not a kind of node")
    cls = _BY_NAME[entry[0]]
    kinds = _SCHEMA[cls]
    where = f"node {k} ({cls.__name__})"
    if len(entry) != len(kinds) + 1:
        raise NodeTableError(f"{where}: has {len(entry) - 1} fields, not {len(kinds)}")
    terms = _TERM_FIELDS.get(cls, ())

    def node(value: object, field: int) -> n.Node:
        if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < k:
            raise NodeTableError(f"{where}: field {field + 1} refers to node {value!r}, which does not come before it")
        child = built[value]
        wanted = n.Term if field in terms else n.Formula
        if not isinstance(child, wanted):
            raise NodeTableError(f"{where}: field {field + 1} must be a {wanted.__name__.lower()}, "
                                 f"not a {type(child).__name__}")
        return child

    args: list[Any] = []
    for field, (kind, value) in enumerate(zip(kinds, entry[1:])):
        if kind == "node":
            args.append(node(value, field))
        elif kind == "opt_node":
            args.append(None if value is None else node(value, field))
        elif kind == "nodes":
            if not isinstance(value, list):
                raise NodeTableError(f"{where}: field {field + 1} must be a list of nodes")
            args.append(tuple(node(v, field) for v in value))
        elif kind == "type":
            try:
                args.append(None if value is None else type_from_json(value))
            except ValueError as exc:
                raise NodeTableError(f"{where}: {exc}") from None
        elif kind == "path":
            if not isinstance(value, list) or not all(isinstance(p, str) or _is_index(p) for p in value):
                raise NodeTableError(f"{where}: field {field + 1} must be a path (names and indices)")
            args.append(tuple(value))
        elif kind == "strs":
            if not isinstance(value, list) or not all(isinstance(p, str) for p in value):
                raise NodeTableError(f"{where}: field {field + 1} must be a list of names")
            args.append(tuple(value))
        elif kind == "sources":
            args.append(_load_sources(value, where, field))
        elif kind == "int":
            if not _is_index(value) or not 1 <= value <= 64:
                raise NodeTableError(f"{where}: field {field + 1} must be a number of words from 1 to 64")
            args.append(value)
        elif kind == "str" and not isinstance(value, str) or kind == "bool" and not isinstance(value, bool):
            raise NodeTableError(f"{where}: field {field + 1} must be a {'string' if kind == 'str' else 'boolean'}")
        else:
            args.append(value)
    if cls is n.Quant and args[0] not in ("forall", "exists"):
        raise NodeTableError(f"{where}: a quantifier is `forall` or `exists`, not {str(args[0])[:40]!r}")
    if cls is n.Op:
        spec = OPS.get(args[0])
        if spec is None:
            raise NodeTableError(f"{where}: `{str(args[0])[:40]}` is not an operator")
        if spec.arity >= 0 and len(args[1]) != spec.arity:
            raise NodeTableError(f"{where}: `{args[0]}` takes {spec.arity} operand(s), not {len(args[1])}")
    made: n.Node = cls(*args)
    return made
