"""The AgentLTL language server: `policyc lsp` (needs the `lsp` extra: pygls, lsprotocol).

`analysis` answers hover, definition and formatting from a document's text alone (no
protocol); `server` wires it to the Language Server Protocol with pygls.
"""
