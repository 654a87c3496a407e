"""Where values came from, lists in results, patterns and presence: `from`, `flows`,
quantifiers inside event patterns, typed entities, `matches`, `present`/`absent`.

Each function takes the `Elaborator` whose state and diagnostics it uses, the node and its
scope. `x from S` and `flows(S, text)` read the sources a run had seen before the call whose pattern
they are in, so they are conditions of an event pattern (E0240 elsewhere); S is a word
(`request`, `user`, `trusted`, `untrusted`), a tool or a field of its result (E0241 for
anything else), resolved against the policy's trust declarations (`policyc.check.trust`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from policyc.check.paths import field_type
from policyc.check.scope import Scope, TVal, Value, VarInfo
from policyc.check.suggest import did_you_mean
from policyc.check.trust import SOURCE_WORDS, source_set, tool_sources
from policyc.diagnostics import Diagnostic, Label, Severity, Span
from policyc.grounding.provenance import MAX_SPAN_WORDS, MIN_SPAN_WORDS, SourceSet
from policyc.ir import build as b
from policyc.ir import nodes as n
from policyc.ir import types as t
from policyc.ir.regex import pattern_error
from policyc.syntax import ast

if TYPE_CHECKING:
    from policyc.check.elaborate import Elaborator

#: Typed entity kinds: a text (or a list of texts) to the list of its entities of the kind.
KIND_TYPES: dict[str, t.Type] = {
    "urls": t.ListT(t.STR), "emails": t.ListT(t.STR), "ibans": t.ListT(t.STR), "phones": t.ListT(t.STR),
    "dates": t.ListT(t.STR), "amounts": t.ListT(t.FLOAT), "card_numbers": t.ListT(t.STR), "secrets": t.ListT(t.STR),
}
#: The default length of a verbatim span `flows` follows, in words.
DEFAULT_SPAN = 8
_SOURCE_HINT = ("a source is `request`, `user`, `trusted`, `untrusted`, a tool (`get_contacts`) or a field "
                "of its result (`read_email.result.body`)")


def is_text(ty: t.Type) -> bool:
    """A text, or a list of texts, or a value left unchecked."""
    st = t.strip_optional(ty)
    return st in (t.STR, t.ANY) or isinstance(st, t.EnumT) or isinstance(st, t.ListT) and (
        t.strip_optional(st.elem) in (t.STR, t.ANY))


# ------------------------------------------------------------ sources


def in_pattern_only(el: Elaborator, what: str, span: Span, scope: Scope) -> bool:
    """E0240 unless inside an event pattern."""
    if scope.pattern is not None:
        return True
    el.error("E0240", f"{what} reads what the run had seen before a call: it belongs inside that call's pattern",
             span,
             help="write it as a condition of the call: `send_money(recipient from trusted)`, or "
                  "`when send_money shall send_money(recipient from trusted)`", scope=scope)
    return False


def source(el: Elaborator, e: ast.Expr, scope: Scope) -> tuple[str, SourceSet] | None:
    """(the source as written, its `SourceSet`), or E0241."""
    if isinstance(e, ast.Name) and e.id in SOURCE_WORDS:
        return e.id, source_set(e.id, el.trust)
    steps: list[ast.FieldAccess] = []
    cur = e
    while isinstance(cur, ast.FieldAccess):
        steps.append(cur)
        cur = cur.target
    steps.reverse()
    tool = el.tool_by_name(cur.id, scope, cur.span) if isinstance(cur, ast.Name) else None
    if tool is None:
        guess = did_you_mean(cur.id, list(SOURCE_WORDS) + list(el.sigs)) if isinstance(cur, ast.Name) else None
        el.error("E0241", "this is not a source the run could have read", e.span,
                 help=guess or _SOURCE_HINT, scope=scope)
        return None
    if not steps:
        return tool.tool, tool_sources(tool.tool)
    if steps[0].name != "result":
        argument = tool.sig.param(tool.arg_name(steps[0].name)) is not None
        field = "<field>" if argument else steps[0].name
        el.error("E0241", f"`{tool.tool}.{steps[0].name}` is {'an argument' if argument else 'not a source'}: "
                 "sources are what the tool returned", steps[0].name_span,
                 help=f"name its results, `{tool.tool}`, or a field of them, `{tool.tool}.result.{field}`",
                 scope=scope)
        return None
    ty: t.Type = tool.sig.result
    path: list[str] = []
    for step in steps[1:]:
        found = field_type(el, t.element_type(ty) if isinstance(t.strip_optional(ty), t.ListT) else ty,
                           step.name, step.name_span, scope)
        if found is None:
            return None
        ty = found
        path.append(step.name)
    label = ".".join([tool.tool, "result", *path])
    return label, tool_sources(tool.tool, tuple(path))


def from_source(el: Elaborator, e: ast.Comparison, scope: Scope) -> Value | None:
    """`x from S`, `x only from S`, `x not from S`."""
    if not in_pattern_only(el, f"`{e.op}`", e.span, scope):
        return None
    value = el.term(e.left, scope)
    found = source(el, e.right, scope)
    if value is None or found is None:
        return None
    st = t.strip_optional(value.type)
    if isinstance(st, (t.ListT, t.DictT, t.RecordT)) or st is t.BOOL:
        el.error("E0208", f"`{e.op}` asks where a text or a number came from, not a value of type "
                 f"`{value.type}`", e.left.span,
                 help=f"ask it of each element: `forall x in ...: x {e.op} ...`" if isinstance(st, t.ListT)
                 else None, scope=scope)
        return None
    label, sources = found
    term = b.from_(value.term, label, sources, only=e.op == "only from")
    return TVal(b.op("not", term) if e.op == "not from" else term, t.BOOL, e.span)


def flows_call(el: Elaborator, e: ast.Call, scope: Scope) -> Value | None:
    """`flows(S, text)` and `flows(S, text, n)`."""
    if not in_pattern_only(el, "`flows`", e.span, scope):
        return None
    args = e.positional()
    if args is None or not 2 <= len(args) <= 3:
        el.error("E0209", "`flows` takes 2 or 3 arguments", e.span,
                 help="flows(S, text) or flows(S, text, n): from the sources S into the text, over "
                      f"entities and runs of n words (default {DEFAULT_SPAN})", scope=scope)
        return None
    found = source(el, args[0], scope)
    text = el.term(args[1], scope)
    span = DEFAULT_SPAN
    if len(args) == 3:
        arg = args[2]
        if not (isinstance(arg, ast.Literal) and arg.kind == "int" and isinstance(arg.value, int)
                and MIN_SPAN_WORDS <= arg.value <= MAX_SPAN_WORDS):
            el.error("E0209", f"the span of `flows` is a number of words from {MIN_SPAN_WORDS} to "
                     f"{MAX_SPAN_WORDS}, written as a literal", arg.span, scope=scope)
            return None
        span = arg.value
    if found is None or text is None:
        return None
    if not is_text(text.type):
        el.error("E0208", f"`flows` follows content into a text, not a value of type `{text.type}`",
                 args[1].span, scope=scope)
        return None
    return TVal(b.flows(found[0], found[1], text.term, span), t.BOOL, e.span)


# ------------------------------------------------------------ lists in results


def pattern_quantifier(el: Elaborator, e: ast.Quantifier, scope: Scope, ir_name: str) -> Value | None:
    """`forall x in D: c` / `exists ...` inside an event pattern: a condition over the
    elements of a list the call carries."""
    if e.domain is None:
        el.error("E0212", f"cannot tell what `{e.var}` ranges over", e.var_span,
                 help=f"inside a pattern, say it: `exists {e.var} in result: ...`", scope=scope)
        return None
    dom = el.term(e.domain, scope)
    if dom is None:
        return None
    dt = t.strip_optional(dom.type)
    if not t.is_collection(dt) or isinstance(dt, t.EntitySetT):
        el.error("E0211", f"`{e.var}` cannot range over a value of type `{dom.type}`", e.domain.span,
                 help="inside a pattern, quantify over a list the call carries: `result`, `result.rows`, "
                      "an argument, `result[*].field`, `urls(body)`", scope=scope)
        return None
    info = VarInfo(e.var, ir_name, t.element_type(dt), e.var_span)
    body = el.term(e.body, scope.with_var(info))
    if body is None:
        return None
    if t.strip_optional(body.type) not in (t.BOOL, t.ANY):
        el.error("E0208", f"a condition must be true or false, not `{body.type}`", e.body.span, scope=scope)
        return None
    if info.uses == 0:
        el.warn("W0207", f"variable `{e.var}` is never used", e.var_span,
                help=f"remove the quantifier, or use `{e.var}` in its body")
    return TVal(b.quant(e.kind, ir_name, dom.term, body.term), t.BOOL, e.span)


# ------------------------------------------------------------ text builtins


def text_builtin(el: Elaborator, e: ast.Call, scope: Scope) -> Value | None:
    """The typed entity kinds (`urls(text)`, ...), `matches`, `present`, `absent`, `flows`."""
    name = e.func
    if name == "flows":
        return flows_call(el, e, scope)
    arity = 2 if name == "matches" else 1
    args = e.positional()
    if args is None or len(args) != arity:
        from policyc.check.symbols import BUILTIN_FUNCTIONS

        el.error("E0209", f"`{name}` takes {arity} argument{'s' if arity != 1 else ''}", e.span,
                 help=BUILTIN_FUNCTIONS[name], scope=scope)
        return None
    value = el.term(args[0], scope)
    if value is None:
        return None
    if name in ("present", "absent"):  # `x != null` is exactly: given, and not null
        given = b.op("ne", value.term, b.lit(None))
        return TVal(given if name == "present" else b.op("not", given), t.BOOL, e.span)
    if not is_text(value.type):
        el.error("E0208", f"`{name}` reads text, not `{value.type}`", args[0].span, scope=scope)
        return None
    if name in KIND_TYPES:
        return TVal(b.op(name, value.term), KIND_TYPES[name], e.span)
    pattern = args[1]
    if not (isinstance(pattern, ast.Literal) and isinstance(pattern.value, str)):
        el.error("E0242", "the pattern of `matches` is a string literal", pattern.span,
                 help='write the regular expression in the policy: `matches(iban, "DE[0-9]{20}")`; '
                      "no other text is ever read as a pattern", scope=scope)
        return None
    problem = pattern_error(pattern.value)
    if problem is not None:
        el.error("E0242", f"invalid regular expression: {problem}", pattern.span,
                 help="patterns are RE2: no backreferences or look-around; "
                      "`\\\\` in the string is one backslash in the pattern", scope=scope)
        return None
    return TVal(b.op("matches", value.term, b.lit(pattern.value)), t.BOOL, e.span)


def null_comparison(el: Elaborator, e: ast.Comparison, left: TVal, right: TVal, scope: Scope) -> None:
    """W0243: `x == null` on a value that may be left out (it is false when x is missing)."""
    for this, other, side in ((left, right, e.left), (right, left, e.right)):
        if isinstance(other.term, n.Lit) and other.term.value is None and isinstance(this.type, t.OptionalT) \
                and not isinstance(this.term, n.Lit):
            shown = getattr(side, "id", None) or "the value"
            el.diags.append(_warning(
                "W0243", f"`{shown} == null` is false when `{shown}` is left out", e.span,
                f"write `absent({shown})` for left out or null; `== null` holds only when the call gives null",
                (Label(side.span, f"this is `{this.type}`: it may be left out"),)))
            return


def _warning(code: str, message: str, span: Span, help: str, labels: tuple[Label, ...]) -> Diagnostic:
    return Diagnostic(code, message, span, help=help, labels=labels, severity=Severity.WARNING)


__all__ = ["DEFAULT_SPAN", "KIND_TYPES"]
