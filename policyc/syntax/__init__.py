"""Stage 1: text -> AST (`parse`)."""

from policyc.syntax.parser import decode_source, parse, parse_source, read_source

__all__ = ["parse", "parse_source", "decode_source", "read_source"]
