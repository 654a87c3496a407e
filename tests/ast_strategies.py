"""Hypothesis strategies for AgentLTL syntax trees: every expression node and declaration.

The trees are syntactic, not checked: names need not resolve and types need not agree. They
are what `parse` can produce: literals are non-negative (a minus sign is a `Negative` node),
floats are finite, and names may be reserved words or need backticks.
"""

from __future__ import annotations

import math
import os

from hypothesis import strategies as st

from policyc.syntax import ast
from policyc.syntax.lexical import RESERVED

#: Examples per property test: moderate in CI, many more with POLICYC_NIGHTLY=1.
EXAMPLES = 3000 if os.environ.get("POLICYC_NIGHTLY") else 150

PLAIN = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,8}", fullmatch=True).filter(lambda s: s not in RESERVED)
ODD = st.sampled_from(["get-weather", "a b", "ünï", "1x", "x.y", "#not-a-comment", "a+b", "q\"uote"])
RESERVED_WORDS = st.sampled_from(sorted(RESERVED))
#: Names that start or end like a keyword (`notify`, `order_id`, `true_up`, `xor`).
KEYWORD_LIKE = st.builds(lambda word, suffix, before: before + word + suffix, RESERVED_WORDS,
                         st.sampled_from(["", "x", "_x", "1", "ify"]), st.sampled_from(["", "", "x", "_"]))
#: A name anywhere: mostly plain, sometimes a reserved word, keyword-like, or one that needs backticks.
NAMES = st.one_of(st.sampled_from(["a", "b", "x", "read_file", "t1", "_"]), PLAIN, RESERVED_WORDS, KEYWORD_LIKE, ODD)
IDENTIFIERS = st.one_of(st.sampled_from(["a", "b", "declare", "lib"]), PLAIN)
TEXT = st.text(max_size=12)


def _nonnegative(x: float) -> bool:
    return math.copysign(1.0, x) > 0


LITERALS = st.one_of(
    st.integers(min_value=0, max_value=2**63 - 1).map(lambda v: ast.Literal(v, "int")),  # literals are 64-bit
    st.floats(min_value=0, allow_nan=False, allow_infinity=False).filter(_nonnegative)
    .map(lambda v: ast.Literal(v, "float")),
    TEXT.map(lambda v: ast.Literal(v, "str")),
    st.booleans().map(lambda v: ast.Literal(v, "bool")),
    st.just(ast.Literal(None, "null")),
)
ATOMS = st.one_of(LITERALS, NAMES.map(ast.Name))


def _compound(children: st.SearchStrategy) -> st.SearchStrategy:
    optional = st.none() | children
    arguments = st.lists(children | st.builds(ast.KeywordArg, NAMES, children), max_size=3).map(tuple)
    return st.one_of(
        st.builds(ast.Call, NAMES, arguments),
        st.lists(children, max_size=3).map(lambda items: ast.ListLit(tuple(items))),
        st.lists(st.tuples(TEXT, children), max_size=2).map(lambda entries: ast.DictLit(tuple(entries))),
        st.builds(ast.FieldAccess, children, NAMES),
        st.builds(ast.Index, children, children),
        st.builds(ast.Slice, children, optional, optional),
        st.builds(ast.Spread, children),
        st.builds(ast.Negative, children),
        st.builds(ast.Arithmetic, st.sampled_from("+-*/%"), children, children),
        st.builds(ast.Comparison, st.sampled_from(["==", "!=", "<", "<=", ">", ">=", "in", "not in", "from",
                                                   "only from", "not from"]), children, children),
        st.builds(ast.Not, children),
        st.builds(ast.UnaryTemporal, st.sampled_from(ast.UNARY_TEMPORAL_OPS), children),
        st.builds(ast.BinaryTemporal, st.sampled_from(ast.BINARY_TEMPORAL_OPS), children, children),
        st.builds(ast.Logic, st.sampled_from(ast.LOGIC_OPS), children, children),
        st.builds(ast.Quantifier, st.sampled_from(["forall", "exists"]), NAMES, optional, children),
        st.builds(ast.Conditional, children, children, children),
        st.builds(ast.WhenShall, children, children),
    )


EXPRESSIONS = st.recursive(ATOMS, _compound, max_leaves=12)
#: A tool's or a field's trust: as the default, or declared.
TRUST = st.sampled_from([None, "trusted", "untrusted"])

TYPES = st.recursive(
    st.builds(ast.TypeName, NAMES, st.just(())),
    lambda inner: st.one_of(
        st.builds(ast.TypeName, NAMES, st.lists(inner, min_size=1, max_size=2).map(tuple)),
        st.builds(ast.OptionalType, inner),
        st.lists(st.builds(ast.FieldDecl, NAMES, inner, TRUST), max_size=3).map(lambda f: ast.RecordType(tuple(f))),
    ),
    max_leaves=4,
)
PARAMS = st.lists(st.builds(ast.Param, NAMES, TYPES), max_size=3).map(tuple)
FIELDS = st.lists(st.builds(ast.FieldDecl, NAMES, TYPES, TRUST), max_size=3).map(tuple)
ARG_RENAMES = st.lists(st.builds(ast.ArgRename, NAMES, NAMES), max_size=2).map(tuple)
SIGNED_INT = st.integers(min_value=-(10**6), max_value=10**6)
SEVERITIES = st.builds(ast.SeverityExpr, NAMES, st.none() | SIGNED_INT)
WEIGHTS = st.one_of(SIGNED_INT, st.floats(min_value=-1e6, max_value=1e6, allow_nan=False).filter(_nonnegative),
                    st.floats(min_value=0.001, max_value=1e6).map(lambda w: -w))
META = st.one_of(
    st.builds(ast.MetaLayer, NAMES),
    st.builds(ast.MetaWeight, WEIGHTS),
    st.builds(ast.MetaSeverity, SEVERITIES),
    st.builds(ast.MetaMessage, TEXT),
)
RULES = st.builds(ast.RuleDecl, NAMES, st.none() | TEXT, st.lists(META, max_size=4).map(tuple), EXPRESSIONS)


def _import(is_file: bool) -> st.SearchStrategy:
    target = TEXT if is_file else st.lists(IDENTIFIERS | RESERVED_WORDS, min_size=1, max_size=3).map(".".join)
    renames = st.lists(st.builds(ast.ToolRename, NAMES, NAMES, ARG_RENAMES), max_size=3).map(tuple)
    return st.builds(ast.ImportDecl, target, st.just(is_file), renames)


DECLARATIONS = st.one_of(
    st.builds(ast.PolicyDecl, NAMES, st.none() | TEXT),
    _import(True),
    _import(False),
    st.builds(ast.TypeDecl, NAMES, FIELDS),
    st.builds(ast.EnumDecl, NAMES, st.lists(NAMES | TEXT, min_size=1, max_size=4).map(tuple)),
    st.builds(ast.LayerDecl, NAMES, st.none() | TEXT),
    st.builds(ast.ToolDecl, NAMES, PARAMS, st.none() | TYPES, st.booleans(), TRUST),
    st.builds(ast.AliasDecl, NAMES, NAMES, ARG_RENAMES, st.booleans(), TRUST),
    st.builds(ast.PredicateDecl, NAMES, PARAMS, EXPRESSIONS),
    st.builds(ast.ExternDecl, NAMES, PARAMS, st.none() | TEXT),
    st.builds(ast.DefDecl, NAMES, PARAMS, EXPRESSIONS),
    st.builds(ast.ProcedureDecl, NAMES, PARAMS, st.lists(RULES, max_size=2).map(tuple)),
    st.builds(ast.UseDecl, NAMES, st.lists(EXPRESSIONS | st.builds(ast.KeywordArg, NAMES, EXPRESSIONS),
                                           max_size=3).map(tuple), st.none() | NAMES),
    RULES,
    st.builds(ast.BudgetDecl, SIGNED_INT),
    st.builds(ast.ConformanceDecl, SEVERITIES),
    st.just(ast.UndecidedDecl("allow")),
    st.builds(ast.UndecidedDecl, st.just("refuse"),
              st.lists(st.sampled_from(["tolerate", "warn", "block", "deny", "soft_block", "stop"]),
                       max_size=3, unique=True).map(tuple)),
)

MODULES = st.lists(DECLARATIONS, max_size=6).map(lambda items: ast.Module("<generated>", tuple(items)))
