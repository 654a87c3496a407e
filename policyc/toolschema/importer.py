"""Tool documents -> signatures and the named types they need (`policyc import-tools`).

Every tool of every document is declared once. A tool declared again with the same
signature is the same tool (counted in the summary); with another signature it is an error
naming both places, and the first is kept: two different tools are never merged into one.

>>> doc = [{"name": "search", "description": "Search.", "inputSchema": {"type": "object",
...         "properties": {"q": {"type": "string"}}, "required": ["q"]}},
...        {"name": "search", "inputSchema": {"type": "object", "properties": {"q": {"type": "integer"}}}}]
>>> imported = import_tools([("tools.json", doc)])
>>> [str(sig) for sig, _ in imported.tools]
['tool search(q: str)']
>>> [(f, p.severity, p.message) for f, p in imported.problems]
[('tools.json', 'error', '`search` is declared again with another signature (`tool search(q: int?)`); the first one, `tool search(q: str)`, is kept')]
>>> twice = import_tools([("a.json", doc[:1]), ("b.json", doc[:1])])
>>> twice.repeated, twice.summary()
(1, '1 tool declared, 1 repeated with the same signature (declared once)')
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Sequence

from policyc.ir.types import ANY, DictT, EnumT, ListT, OptionalT, RecordT, ToolSignature, Type
from policyc.toolschema.convert import ERROR, NOTE, WARNING, SchemaProblem, TypeNames, signature_from_schema
from policyc.toolschema.documents import tools_in


@dataclass
class Imported:
    """What the documents declare: tool signatures (with descriptions), named types, problems
    (each with the label of the document it was found in)."""

    tools: list[tuple[ToolSignature, str | None]] = field(default_factory=list)
    types: list[RecordT | EnumT] = field(default_factory=list)
    problems: list[tuple[Any, SchemaProblem]] = field(default_factory=list)
    repeated: int = 0  # tools declared again with the same signature (each declared once)

    @property
    def has_errors(self) -> bool:
        return any(p.severity == ERROR for _, p in self.problems)

    def summary(self) -> str:
        """One line: how many tools were declared, and how many parts could not be typed.

        >>> Imported().summary()
        '0 tools declared'
        """
        parts = [f"{len(self.tools)} tool{'s' if len(self.tools) != 1 else ''} declared"]
        counts = {severity: sum(1 for _, p in self.problems if p.severity == severity)
                  for severity in (ERROR, WARNING, NOTE)}
        if counts[ERROR]:
            parts.append(f"{counts[ERROR]} not declared or declared twice (errors)")
        if counts[WARNING]:
            parts.append(f"{counts[WARNING]} part{'s' if counts[WARNING] != 1 else ''} declared `any` (warnings)")
        if self.repeated:
            parts.append(f"{self.repeated} repeated with the same signature (declared once)")
        if counts[NOTE]:
            parts.append(f"{counts[NOTE]} note{'s' if counts[NOTE] != 1 else ''}")
        return ", ".join(parts)


def import_tools(documents: Sequence[tuple[Any, object]],
                 where: Callable[[Any, tuple], str] | None = None) -> Imported:
    """Every tool of every (label, JSON value) document, in order. `where(label, path)` names
    a tool's place in the notes and errors about a tool declared twice (default: the label).
    Names are compared in Unicode normal form C, as policies read them: `café` written two
    ways is one tool."""
    names = TypeNames()
    out = Imported()
    seen: dict[str, tuple[ToolSignature, Any, tuple]] = {}
    place = where or (lambda label, path: str(label))
    for label, value in documents:
        schemas, problems = tools_in(value)
        out.problems.extend((label, p) for p in problems)
        for tool in schemas:
            found: list[SchemaProblem] = []
            sig, _ = signature_from_schema(tool.name, tool.input_schema, tool.output_schema, names,
                                           tool.input_path, tool.output_path, found)
            out.problems.extend((label, p) for p in found)
            if sig is None:
                continue
            key = unicodedata.normalize("NFC", sig.name)
            if key in seen:
                first, first_label, first_path = seen[key]
                there = place(first_label, first_path)
                at = f" at {there}" if there != place(label, tool.path) else ""
                if replace(first, name=sig.name) != sig:
                    out.problems.append((label, SchemaProblem(
                        tool.path, f"`{sig.name}` is declared again with another signature (`{sig}`); the first "
                                   f"one, `{first}`{at}, is kept", ERROR)))
                else:
                    out.repeated += 1
                continue
            seen[key] = (sig, label, tool.path)
            out.tools.append((sig, tool.description))
    used = _named_types_used(sig for sig, _ in out.tools)
    out.types = [t for t in names.declared() if t.name in used]
    return out


def _named_types_used(signatures) -> set[str]:
    """The names of the record and enum types the kept signatures mention (a tool that was
    not kept leaves its types out too)."""
    used: set[str] = set()

    def visit(t: Type) -> None:
        if isinstance(t, (OptionalT, ListT, DictT)):
            visit(t.inner if isinstance(t, OptionalT) else t.elem if isinstance(t, ListT) else t.value)
        elif isinstance(t, (RecordT, EnumT)):
            if t.name:
                if t.name in used:
                    return  # a named type is visited once, however often it is shared
                used.add(t.name)
            for _, ft in t.fields if isinstance(t, RecordT) else ():
                visit(ft)

    for sig in signatures:
        for p in sig.params:
            visit(p.type)
        if sig.result is not ANY:
            visit(sig.result)
    return used


__all__ = ["Imported", "import_tools"]
