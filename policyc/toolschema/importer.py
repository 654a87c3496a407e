"""Tool documents -> signatures and the named types they need (`policyc import-tools`).

>>> doc = [{"name": "search", "description": "Search.", "inputSchema": {"type": "object",
...         "properties": {"q": {"type": "string"}}, "required": ["q"]}},
...        {"name": "search", "inputSchema": {"type": "object", "properties": {"q": {"type": "integer"}}}}]
>>> imported = import_tools([("tools.json", doc)])
>>> [str(sig) for sig, _ in imported.tools]
['tool search(q: str)']
>>> [(f, p.severity, p.message) for f, p in imported.problems]
[('tools.json', 'error', '`search` is declared again with another signature (`tool search(q: int?)`); the first one is kept')]
>>> twice = import_tools([("a.json", doc[:1]), ("b.json", doc[:1])])
>>> [(f, p.severity, p.message) for f, p in twice.problems]
[('b.json', 'warning', '`search` is declared again, with the same signature; it is declared once')]
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass, field, replace
from typing import Sequence

from policyc.ir.types import EnumT, RecordT, ToolSignature
from policyc.toolschema.convert import ERROR, WARNING, SchemaProblem, TypeNames, signature_from_schema
from policyc.toolschema.documents import tools_in


@dataclass
class Imported:
    """What the documents declare: tool signatures (with descriptions), named types, problems."""

    tools: list[tuple[ToolSignature, str | None]] = field(default_factory=list)
    types: list[RecordT | EnumT] = field(default_factory=list)
    problems: list[tuple[str, SchemaProblem]] = field(default_factory=list)

    @property
    def has_errors(self) -> bool:
        return any(p.severity == ERROR for _, p in self.problems)


def import_tools(documents: Sequence[tuple[str, object]]) -> Imported:
    """Every tool of every (file name, JSON value) document, in order. A tool declared twice
    (by name, in Unicode normal form C as policies read names) is kept once, never without a
    word: a warning when both declarations agree, an error when they do not."""
    names = TypeNames()
    out = Imported()
    seen: dict[str, ToolSignature] = {}
    for file, value in documents:
        schemas, problems = tools_in(value)
        out.problems.extend((file, p) for p in problems)
        for tool in schemas:
            found: list[SchemaProblem] = []
            sig, _ = signature_from_schema(tool.name, tool.input_schema, tool.output_schema, names,
                                           tool.input_path, tool.output_path, found)
            out.problems.extend((file, p) for p in found)
            if sig is None:
                continue
            key = unicodedata.normalize("NFC", sig.name)
            if key in seen:
                first = seen[key]
                if replace(first, name=sig.name) != sig:
                    out.problems.append((file, SchemaProblem(tool.path, f"`{sig.name}` is declared again with "
                                                             f"another signature (`{sig}`); the first one is kept",
                                                             ERROR)))
                else:
                    out.problems.append((file, SchemaProblem(tool.path, f"`{sig.name}` is declared again, with the "
                                                             "same signature; it is declared once", WARNING)))
                continue
            seen[key] = sig
            out.tools.append((sig, tool.description))
    out.types = names.declared()
    return out


__all__ = ["Imported", "import_tools"]
