"""Trust declarations, and the sets of sources `from` and `flows` name.

A tool's results are *untrusted* unless the policy declares the tool `trusted`: what an agent
reads from the open world (web pages, mail bodies, files, a search index) may have been
written by anyone. The user's request and the user's messages are trusted. A field of a
result may say otherwise than its tool (`{ sender: trusted str, body: str }`, or in a
`trusted tool`, `subject: untrusted str`); a field's trust covers what it holds, and the
innermost declaration decides. An alias keeps its target's trust unless it declares its own.

`TrustMap` is, per tool, its declarations as (field path, trusted) pairs, the tool's own with
the empty path; `source_set` turns a source a rule names into the `SourceSet` that the IR
carries (`policyc.grounding.provenance`):

| source | the leaves it names |
|---|---|
| `request` | the user's request |
| `user` | the request and every message of the user |
| `trusted` | those, and every result field the policy trusts |
| `untrusted` | every result field it does not |
| `tool` | every result of that tool |
| `tool.result.f.g` | that field of its results |
"""

from __future__ import annotations

from policyc.check.symbols import Symbols
from policyc.grounding.provenance import SourceSet
from policyc.syntax import ast

#: Per tool: (field path, trusted) declarations, the tool's own under the empty path.
TrustMap = dict[str, tuple[tuple[tuple[str, ...], bool], ...]]
#: The sources a rule may name by a word.
SOURCE_WORDS = {
    "request": "the user's request",
    "user": "the user's request and messages",
    "trusted": "the user's request and messages, and the results the policy trusts",
    "untrusted": "every result the policy does not trust",
}


def trust_map(syms: Symbols) -> TrustMap:
    """The trust declarations of every tool (by its final name), aliases included."""
    out: TrustMap = {}

    def of(name: str, seen: tuple[str, ...] = ()) -> tuple[tuple[tuple[str, ...], bool], ...]:
        if name in out:
            return out[name]
        entry = syms.tools.get(name)
        if entry is None or name in seen:
            return ()
        decl = entry.decl
        if isinstance(decl, ast.AliasDecl):
            inherited = of(entry.instance.renamer.tool(decl.target), seen + (name,))
            own = tuple(r for r in inherited if r[0] or decl.trust is None)
        else:
            own = tuple(_fields(decl.result, (), syms, ())) if decl.result is not None else ()
        if decl.trust is not None:
            own = (((), decl.trust == "trusted"),) + tuple(r for r in own if r[0])
        out[name] = own
        return own

    for name in syms.tools:
        of(name)
    return out


def _fields(t: ast.TypeExpr, path: tuple[str, ...], syms: Symbols, named: tuple[str, ...]):
    """The (path, trusted) declarations inside a result type: record fields, lists' and
    optional values' elements, named record types (each once per path)."""
    if isinstance(t, ast.OptionalType):
        yield from _fields(t.inner, path, syms, named)
    elif isinstance(t, ast.RecordType):
        yield from _record(t.fields, path, syms, named)
    elif isinstance(t, ast.TypeName):
        if t.name == "list" and t.args:
            yield from _fields(t.args[0], path, syms, named)
        elif not t.args and t.name in syms.types and t.name not in named:
            decl = syms.types[t.name].decl
            if isinstance(decl, ast.TypeDecl):
                yield from _record(decl.fields, path, syms, named + (t.name,))


def _record(fields: tuple[ast.FieldDecl, ...], path: tuple[str, ...], syms: Symbols, named: tuple[str, ...]):
    for f in fields:
        inner = path + (f.name,)
        if f.trust is not None:
            yield inner, f.trust == "trusted"
        yield from _fields(f.type, inner, syms, named)


def source_set(word: str, trust: TrustMap) -> SourceSet:
    """The sources a word names (`request`, `user`, `trusted`, `untrusted`).

    >>> trust = {"bank": (((), True), (("memo",), False)), "web": ()}
    >>> source_set("untrusted", trust)
    (('tool', 'bank', (), False), ('tool', 'bank', ('memo',), True), ('default', '', (), True))
    """
    if word == "request":
        return (("request", "", (), True),)
    user = (("request", "", (), True), ("user", "", (), True))
    if word == "user":
        return user
    declared = tuple(("tool", tool, path, trusted) for tool, rules in sorted(trust.items()) for path, trusted in rules)
    if word == "trusted":
        return user + declared
    return tuple((s, tool, path, not trusted) for s, tool, path, trusted in declared) + (("default", "", (), True),)


def tool_sources(tool: str, path: tuple[str, ...] = ()) -> SourceSet:
    """The results of one tool (at one field path)."""
    return (("tool", tool, tuple(path), True),)
