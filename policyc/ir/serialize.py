"""IR <-> JSON, as a table of shared nodes (a DAG, like the hash-consed IR itself).

>>> from policyc.ir import build as b
>>> f = b.always(b.implies(b.event("a"), b.eventually(b.event("b", b.op("gt", b.arg("n"), b.lit(3))))))
>>> data = dump_nodes([f])
>>> load_nodes(data)[0] is f
True
"""

from __future__ import annotations

from policyc.ir import nodes as n
from policyc.ir.types import type_from_json, type_to_json

# field kinds per node class: node, nodes, opt_node, str, bool, path, strs, type, json
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
    n.Metric: ("path",),
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


def _fields(node: n.Node) -> tuple:
    if isinstance(node, n.Lit):
        return (node.value,)
    return tuple(getattr(node, f) for f in node._fields)


def dump_nodes(roots: list[n.Node]) -> dict:
    """Serialise formulas or terms; shared sub-formulas are written once."""
    table: list[list] = []
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
            entry: list = [type(cur).__name__]
            for kind, value in zip(kinds, values):
                if kind in ("node",):
                    entry.append(ids[value])
                elif kind == "opt_node":
                    entry.append(None if value is None else ids[value])
                elif kind == "nodes":
                    entry.append([ids[v] for v in value])
                elif kind == "type":
                    entry.append(type_to_json(value))
                elif kind in ("path", "strs"):
                    entry.append(list(value))
                else:
                    entry.append(value)
            ids[cur] = len(table)
            table.append(entry)
        return ids[node]

    return {"nodes": table, "roots": [visit(r) for r in roots]}


def load_nodes(data: dict) -> list[n.Node]:
    built: list[n.Node] = []
    for entry in data["nodes"]:
        cls = _BY_NAME[entry[0]]
        args = []
        for kind, value in zip(_SCHEMA[cls], entry[1:]):
            if kind == "node":
                args.append(built[value])
            elif kind == "opt_node":
                args.append(None if value is None else built[value])
            elif kind == "nodes":
                args.append(tuple(built[v] for v in value))
            elif kind == "type":
                args.append(type_from_json(value))
            elif kind in ("path", "strs"):
                args.append(tuple(value))
            else:
                args.append(value)
        built.append(cls(*args))
    return [built[i] for i in data["roots"]]
