"""Tool lists as providers and servers write them: which tools a JSON document declares.

Recognised shapes, alone, in an array, or under `tools` (a chat or Responses request body,
an MCP `tools/list` result, a JSON-RPC response holding one), `functions` (the legacy
chat API) or `function` (a BFCL question):

- OpenAI chat: `{"type": "function", "function": {"name", "description", "parameters"}}`
- OpenAI Responses: `{"type": "function", "name", "description", "parameters"}`
- a bare function: `{"name", "description", "parameters"}`
- MCP: `{"name", "description", "inputSchema", "outputSchema"}`
- Gorilla/BFCL function docs: `{"name", "description", "parameters", "response"}` (the
  result's schema under `response`), alone or as the `function` list of a BFCL question

A provider's built-in tool (`web_search`, `file_search`, ...) has no schema to declare and
is reported as skipped; an entry that is not a tool is an error naming its place.

>>> tools, problems = tools_in({"tools": [
...     {"type": "function", "function": {"name": "search", "parameters": {"type": "object"}}},
...     {"name": "read", "inputSchema": {"type": "object"}, "outputSchema": {"type": "string"}},
...     {"type": "web_search"}]})
>>> [(t.name, t.kind, t.input_path) for t in tools]
[('search', 'openai-chat', ('tools', 0, 'function', 'parameters')), ('read', 'mcp', ('tools', 1, 'inputSchema'))]
>>> [(p.path, p.message) for p in problems]
[(('tools', 2), 'the built-in tool `web_search` has no schema to declare; skipped')]
"""

from __future__ import annotations

from dataclasses import dataclass

from policyc.toolschema.convert import ERROR, WARNING, SchemaProblem
from policyc.trace.formats.common import json_type


@dataclass(frozen=True, slots=True)
class ToolSchema:
    """One tool of a document: its name, description and schemas, and where they are."""

    name: str
    description: str | None
    input_schema: object          # None when the tool takes no parameters
    output_schema: object | None  # None when the result is not described
    kind: str                     # openai-chat, openai-responses, function (OpenAI's or BFCL's) or mcp
    path: tuple                   # the tool's place in the document
    input_path: tuple
    output_path: tuple


def tools_in(value: object, path: tuple = ()) -> tuple[list[ToolSchema], list[SchemaProblem]]:
    """The tools a JSON document declares, and the entries that could not be read."""
    tools: list[ToolSchema] = []
    problems: list[SchemaProblem] = []
    for entry, where in _entries(value, path, problems):
        tool = _tool(entry, where, problems)
        if tool is not None:
            tools.append(tool)
    return tools, problems


def _entries(value: object, path: tuple, problems: list[SchemaProblem]):
    if isinstance(value, list):
        return [(v, path + (i,)) for i, v in enumerate(value)]
    if isinstance(value, dict):
        if "jsonrpc" in value and isinstance(value.get("result"), dict):
            return _entries(value["result"], path + ("result",), problems)
        for key in ("tools", "functions", "function"):
            if key in value and not _is_tool(value) and (key != "function" or isinstance(value[key], list)):
                listed = value[key]
                if not isinstance(listed, list):
                    problems.append(SchemaProblem(path + (key,), f"`{key}` should be an array, got "
                                                                f"{json_type(listed)}", ERROR))
                    return []
                return [(v, path + (key, i)) for i, v in enumerate(listed)]
        return [(value, path)]
    problems.append(SchemaProblem(path, f"expected a tool or a list of tools, got {json_type(value)}", ERROR))
    return []


def _is_tool(value: dict) -> bool:
    return "name" in value and ("parameters" in value or "inputSchema" in value or "function" in value)


def _tool(entry: object, path: tuple, problems: list[SchemaProblem]) -> ToolSchema | None:
    if not isinstance(entry, dict):
        problems.append(SchemaProblem(path, f"a tool should be an object, got {json_type(entry)}", ERROR))
        return None
    kind = entry.get("type")
    if kind == "function" and "function" in entry:
        inner = entry["function"]
        if not isinstance(inner, dict):
            problems.append(SchemaProblem(path + ("function",), f"`function` should be an object, got "
                                                                 f"{json_type(inner)}", ERROR))
            return None
        return _named(inner, path + ("function",), "parameters", None, "openai-chat", problems, path)
    if "inputSchema" in entry:
        return _named(entry, path, "inputSchema", "outputSchema", "mcp", problems, path)
    if kind == "function":
        return _named(entry, path, "parameters", None, "openai-responses", problems, path)
    if kind is None and "name" in entry:
        return _named(entry, path, "parameters", "response", "function", problems, path)
    if isinstance(kind, str):
        problems.append(SchemaProblem(path, f"the built-in tool `{kind}` has no schema to declare; skipped", WARNING))
        return None
    problems.append(SchemaProblem(path, "not a tool: expected `name` with `parameters` (OpenAI) or with "
                                        "`inputSchema` (MCP)", ERROR))
    return None


def _named(entry: dict, path: tuple, inputs: str, outputs: str | None, kind: str,
           problems: list[SchemaProblem], tool_path: tuple) -> ToolSchema | None:
    name = entry.get("name")
    if not isinstance(name, str):
        what = "missing" if name is None else f"{json_type(name)}, not a string"
        problems.append(SchemaProblem(path + ("name",), f"the tool's `name` is {what}", ERROR))
        return None
    description = entry.get("description")
    output = entry.get(outputs) if outputs else None
    return ToolSchema(name, description if isinstance(description, str) else None, entry.get(inputs), output,
                      kind, tool_path, path + (inputs,), path + (outputs or "",))


__all__ = ["ToolSchema", "tools_in"]
