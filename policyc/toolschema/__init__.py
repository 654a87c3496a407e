"""Tool signatures from JSON Schema, and the check that a policy and a live tool set agree.

OpenAI function tools and MCP tools describe their arguments (and MCP tools their results)
in JSON Schema. `import_tools` turns such documents into AgentLTL signatures
(`policyc import-tools` writes them as `.altl` declarations); `compare_tools` compares a
policy's signatures with the tools an agent really has, and every framework adapter
(`policyc.integrations`) and the MCP gateway run it when they start.

Nothing here imports the parser or the solver: a deployed gate can check its tools.
"""

from policyc.toolschema.compare import ToolMismatch, ToolSetMismatch, ToolSetReport, compare_tools
from policyc.toolschema.convert import SchemaProblem, TypeNames, signature_from_schema, signatures_from_schemas
from policyc.toolschema.documents import ToolSchema, tools_in
from policyc.toolschema.importer import Imported, import_tools

__all__ = ["Imported", "SchemaProblem", "ToolMismatch", "ToolSchema", "ToolSetMismatch", "ToolSetReport",
           "TypeNames", "compare_tools", "import_tools", "signature_from_schema", "signatures_from_schemas",
           "tools_in"]
