"""lark parse tree -> AST. One method per grammar rule or alias; methods only build nodes."""

from __future__ import annotations

import math

from lark import Token, Transformer, v_args

from policyc.diagnostics import NO_SPAN, Diagnostic, Source, Span
from policyc.syntax import ast
from policyc.syntax.lexical import read_name, read_string

_UNARY = {
    "X": "next", "next": "next",
    "WX": "weak_next", "wnext": "weak_next", "weak next": "weak_next",
    "F": "eventually", "eventually": "eventually",
    "G": "always", "always": "always",
    "Y": "yesterday", "yesterday": "yesterday",
    "Z": "weak_yesterday", "wyesterday": "weak_yesterday", "weak yesterday": "weak_yesterday",
    "O": "once", "once": "once",
    "H": "historically", "historically": "historically",
}
_BINARY = {
    "U": "until", "until": "until",
    "W": "weak_until", "unless": "weak_until", "weak until": "weak_until",
    "R": "release", "release": "release", "releases": "release",
    "S": "since", "since": "since",
}
_LOGIC = {"and": "and", "&&": "and", "or": "or", "||": "or", "->": "implies", "implies": "implies",
          "<->": "iff", "iff": "iff"}


#: Integer literals are 64-bit: larger ones are refused where they are written.
MAX_INT = 2**63 - 1
MAX_INT_DIGITS = len(str(MAX_INT))


def _words(token: Token) -> str:
    return " ".join(str(token).split())


def _name(token: Token) -> str:
    return read_name(str(token))


@v_args(meta=True)
class ToAst(Transformer):
    """Builds `policyc.syntax.ast` nodes; `source` gives every node its span.

    Malformed string escapes are collected in `problems` (the node keeps its best reading)."""

    def __init__(self, source: Source):
        super().__init__(visit_tokens=False)
        self.source = source
        self.problems: list[Diagnostic] = []

    def _string(self, token: Token) -> str:
        text, problem = read_string(str(token))
        if problem is not None:
            offset, length, what = problem
            start = (token.start_pos or 0) + offset
            self.problems.append(Diagnostic(
                "E0001", f"malformed string: {what}", self.source.span(start, start + length),
                help='escapes are those of JSON: \\" \\\\ \\n \\t \\uXXXX; write a backslash as \\\\'))
        return text

    # ------------------------------------------------------------ spans

    def _span(self, meta) -> Span:
        if getattr(meta, "empty", True):
            return self.source.span(0, 0)
        return self.source.span(meta.start_pos, meta.end_pos)

    def _tok(self, token: Token) -> Span:
        return self.source.span(token.start_pos or 0, token.end_pos or 0)

    @staticmethod
    def _present(children) -> list:
        return [c for c in children if c is not None]

    # ------------------------------------------------------------ module

    def start(self, meta, children):
        return ast.Module(self.source.path, tuple(children), span=self._span(meta))

    # ------------------------------------------------------------ declarations

    def policy_decl(self, meta, c):
        name, desc = c
        return ast.PolicyDecl(_name(name), self._string(desc) if desc else None, span=self._span(meta))

    def budget_decl(self, meta, c):
        return ast.BudgetDecl(c[0], span=self._span(meta))

    def conformance_decl(self, meta, c):
        severity, scope = c
        return ast.ConformanceDecl(severity, None if scope is None else _name(scope), span=self._span(meta),
                                   scope_span=self._tok(scope) if scope is not None else NO_SPAN)

    def undecided_decl(self, meta, c):
        action, *severities = [t for t in c if t is not None]
        return ast.UndecidedDecl(_name(action), tuple(_name(t) for t in severities), span=self._span(meta),
                                 action_span=self._tok(action), severity_spans=tuple(self._tok(t) for t in severities))

    def grounding_decl(self, meta, c):
        return ast.GroundingDecl(_name(c[0]), span=self._span(meta), name_span=self._tok(c[0]))

    def claims_decl(self, meta, c):
        *phrases, tool = c
        return ast.ClaimsDecl(tuple(self._string(p) for p in phrases), _name(tool), span=self._span(meta),
                              phrase_spans=tuple(self._tok(p) for p in phrases), tool_span=self._tok(tool))

    def observe_decl(self, meta, c):
        names = [tok for tok in c if tok is not None]
        return ast.ObserveDecl(tuple(_name(tok) for tok in names), span=self._span(meta),
                               name_spans=tuple(self._tok(tok) for tok in names))

    def import_decl(self, meta, c):
        target, renames = c
        if isinstance(target, Token):
            return ast.ImportDecl(self._string(target), True, tuple(renames or ()),
                                  span=self._span(meta), target_span=self._tok(target))
        name, span = target
        return ast.ImportDecl(name, False, tuple(renames or ()), span=self._span(meta), target_span=span)

    def dotted_name(self, meta, c):
        return ".".join(_name(t) for t in c), self._span(meta)

    def rename_map(self, meta, c):
        return self._present(c)

    def tool_rename(self, meta, c):
        old, new, args = c
        return ast.ToolRename(_name(old), _name(new), tuple(args or ()), span=self._span(meta))

    def arg_renames(self, meta, c):
        return self._present(c)

    def arg_rename(self, meta, c):
        return ast.ArgRename(_name(c[0]), _name(c[1]), span=self._span(meta))

    def type_decl(self, meta, c):
        return ast.TypeDecl(_name(c[0]), tuple(self._present(c[1:])), span=self._span(meta))

    def field(self, meta, c):
        name, trust, type_ = c
        return ast.FieldDecl(_name(name), type_, str(trust) if trust is not None else None, span=self._span(meta))

    def enum_decl(self, meta, c):
        members = []
        for m in self._present(c[1:]):
            members.append(self._string(m) if m.type == "STRING" else _name(m))
        return ast.EnumDecl(_name(c[0]), tuple(members), span=self._span(meta))

    def layer_decl(self, meta, c):
        name, desc = c
        return ast.LayerDecl(_name(name), self._string(desc) if desc else None, span=self._span(meta))

    def tool_decl(self, meta, c):
        terminal, trust, name, *rest = c
        result = rest[-1]
        params = tuple(p for p in rest[:-1] if p is not None)
        return ast.ToolDecl(_name(name), params, result, terminal is not None,
                            str(trust) if trust is not None else None, span=self._span(meta), name_span=self._tok(name))

    def alias_decl(self, meta, c):
        terminal, trust, name, target, renames = c
        return ast.AliasDecl(_name(name), _name(target), tuple(renames or ()), terminal is not None,
                             str(trust) if trust is not None else None, span=self._span(meta),
                             name_span=self._tok(name))

    def param(self, meta, c):
        return ast.Param(_name(c[0]), c[1], span=self._span(meta))

    def type_name(self, meta, c):
        name, *args = c
        return ast.TypeName(_name(name), tuple(a for a in args if a is not None), span=self._span(meta))

    def record_type(self, meta, c):
        return ast.RecordType(tuple(self._present(c)), span=self._span(meta))

    def optional_type(self, meta, c):
        return ast.OptionalType(c[0], span=self._span(meta))

    def _params_body(self, c):
        name, *rest = c
        return name, tuple(p for p in rest[:-1] if p is not None), rest[-1]

    def predicate_decl(self, meta, c):
        name, params, body = self._params_body(c)
        return ast.PredicateDecl(_name(name), params, body, span=self._span(meta), name_span=self._tok(name))

    def extern_decl(self, meta, c):
        name, params, binding = self._params_body(c)
        return ast.ExternDecl(_name(name), params, self._string(binding) if binding else None,
                              span=self._span(meta), name_span=self._tok(name))

    def def_decl(self, meta, c):
        name, params, body = self._params_body(c)
        return ast.DefDecl(_name(name), params, body, span=self._span(meta), name_span=self._tok(name))

    def procedure_decl(self, meta, c):
        name, *rest = c
        params = tuple(p for p in rest if isinstance(p, ast.Param))
        rules = tuple(r for r in rest if isinstance(r, ast.RuleDecl))
        return ast.ProcedureDecl(_name(name), params, rules, span=self._span(meta), name_span=self._tok(name))

    def use_decl(self, meta, c):
        name, *rest = c
        alias = rest[-1]
        args = tuple(a for a in rest[:-1] if a is not None)
        return ast.UseDecl(_name(name), args, _name(alias) if alias else None,
                           span=self._span(meta), name_span=self._tok(name))

    def rule_decl(self, meta, c):
        name, desc, *rest = c
        body = rest[-1]
        return ast.RuleDecl(_name(name), self._string(desc) if desc else None, tuple(rest[:-1]), body,
                            span=self._span(meta), name_span=self._tok(name))

    def meta_layer(self, meta, c):
        return ast.MetaLayer(_name(c[0]), span=self._span(meta))

    def meta_weight(self, meta, c):
        return ast.MetaWeight(c[0], span=self._span(meta))

    def meta_severity(self, meta, c):
        return ast.MetaSeverity(c[0], span=self._span(meta))

    def meta_message(self, meta, c):
        return ast.MetaMessage(self._string(c[0]), span=self._span(meta))

    def severity(self, meta, c):
        return ast.SeverityExpr(_name(c[0]), c[1], span=self._span(meta))

    def _number(self, token: Token) -> int | float:
        """An INT or FLOAT token's value; a number out of range is a problem (the value is 0):
        integers fit in 64 bits, floats are finite, so every later stage (Z3, JSON artifacts,
        the scorer) can hold them."""
        text = str(token)
        if token.type == "INT":
            value: int | float = int(text) if len(text) <= MAX_INT_DIGITS else MAX_INT + 1
            if value <= MAX_INT:
                return value
            what = f"an integer may be at most {MAX_INT} (64 bits)"
        else:
            value = float(text)
            if math.isfinite(value):
                return value
            what = "it is too large to be a finite number"
        shown = text if len(text) <= 24 else text[:20] + "..."
        self.problems.append(Diagnostic("E0001", f"number `{shown}` is out of range: {what}", self._tok(token),
                                        help="write a smaller number"))
        return 0

    def signed_int(self, meta, c):
        sign, value = c
        number = self._number(value)
        return -number if sign is not None else number

    def signed_number(self, meta, c):
        sign, value = c
        number = self._number(value)
        return -number if sign is not None else number

    # ------------------------------------------------------------ expressions

    def quantifier(self, meta, c):
        kind, var, domain, body = c
        return ast.Quantifier(str(kind), _name(var), domain, body, span=self._span(meta), var_span=self._tok(var))

    def conditional(self, meta, c):
        return ast.Conditional(c[0], c[1], c[2], span=self._span(meta))

    def when_shall(self, meta, c):
        return ast.WhenShall(c[0], c[1], span=self._span(meta))

    def _logic(self, meta, c):
        return ast.Logic(_LOGIC[str(c[1])], c[0], c[2], span=self._span(meta))

    implies = iff = disjunction = conjunction = _logic

    def binary_temporal(self, meta, c):
        return ast.BinaryTemporal(_BINARY[_words(c[1])], c[0], c[2], span=self._span(meta))

    def negation(self, meta, c):
        return ast.Not(c[1], span=self._span(meta))

    def unary_temporal(self, meta, c):
        return ast.UnaryTemporal(_UNARY[_words(c[0])], c[1], span=self._span(meta))

    def comparison(self, meta, c):
        return ast.Comparison(str(c[1]), c[0], c[2], span=self._span(meta))

    def membership(self, meta, c):
        return ast.Comparison("in", c[0], c[1], span=self._span(meta))

    def non_membership(self, meta, c):
        return ast.Comparison("not in", c[0], c[2], span=self._span(meta))

    def provenance(self, meta, c):
        return ast.Comparison("from", c[0], c[1], span=self._span(meta))

    def provenance_only(self, meta, c):
        return ast.Comparison("only from", c[0], c[1], span=self._span(meta))

    def non_provenance(self, meta, c):
        return ast.Comparison("not from", c[0], c[2], span=self._span(meta))

    def spread(self, meta, c):
        return ast.Spread(c[0], span=self._span(meta))

    def arithmetic(self, meta, c):
        return ast.Arithmetic(str(c[1]), c[0], c[2], span=self._span(meta))

    def negative(self, meta, c):
        return ast.Negative(c[1], span=self._span(meta))

    def field_access(self, meta, c):
        return ast.FieldAccess(c[0], _name(c[1]), span=self._span(meta), name_span=self._tok(c[1]))

    def index(self, meta, c):
        return ast.Index(c[0], c[1], span=self._span(meta))

    def slice(self, meta, c):
        target, start, _colon, stop = c
        return ast.Slice(target, start, stop, span=self._span(meta))

    def name(self, meta, c):
        return ast.Name(_name(c[0]), span=self._span(meta))

    def call(self, meta, c):
        func, *args = c
        return ast.Call(_name(func), tuple(a for a in args if a is not None),
                        span=self._span(meta), func_span=self._tok(func))

    def keyword_arg(self, meta, c):
        return ast.KeywordArg(_name(c[0]), c[1], span=self._span(meta), name_span=self._tok(c[0]))

    def int_literal(self, meta, c):
        return ast.Literal(self._number(c[0]), "int", span=self._span(meta))

    def float_literal(self, meta, c):
        return ast.Literal(float(self._number(c[0])), "float", span=self._span(meta))

    def string_literal(self, meta, c):
        return ast.Literal(self._string(c[0]), "str", span=self._span(meta))

    def true_literal(self, meta, c):
        return ast.Literal(True, "bool", span=self._span(meta))

    def false_literal(self, meta, c):
        return ast.Literal(False, "bool", span=self._span(meta))

    def null_literal(self, meta, c):
        return ast.Literal(None, "null", span=self._span(meta))

    def list_literal(self, meta, c):
        return ast.ListLit(tuple(self._present(c)), span=self._span(meta))

    def dict_literal(self, meta, c):
        return ast.DictLit(tuple(self._present(c)), span=self._span(meta))

    def entry(self, meta, c):
        return self._string(c[0]), c[1]
