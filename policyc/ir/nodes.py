"""The core IR: hash-consed formula and term nodes.

Every node is built once per distinct content: constructing `Until(a, b)` twice returns the
same object, so equality is identity and hashing is cheap. Nodes carry a stable structural
key (`skey`, identical across processes) that orders the operands of `And`/`Or`, so
equivalent conjunctions are one node and serialised artifacts are reproducible.

Build nodes with the smart constructors in `policyc.ir.build`, which fold trivial identities
on the way in; the classes here only intern.

The formula core (appendix A.2 of the AgentLTL paper, plus past time):
  Const, Event(tool, guard), Cond(term), Not, And, Or,
  Next (strong), WNext (weak), Until, Release,
  Yesterday (strong), WYesterday (weak), Since, Trigger,
  Forall, Exists (over finite domains extracted from the trace).
F, G, W, O, H are derived: F a = true U a, G a = false R a, a W b = b R (a | b),
O a = true S a, H a = false T a.
"""

from __future__ import annotations

import hashlib
import json
import threading
import weakref
from typing import TYPE_CHECKING, Any, ClassVar, Self

if TYPE_CHECKING:
    from policyc.grounding.provenance import SourceSet as Sources
    from policyc.ir.types import Type

# The unique table of hash-consing: a node lives as long as someone holds it (weak values), and
# is created under a lock, so two threads building the same formula get the same object.
_INTERN: "weakref.WeakValueDictionary[tuple[Any, ...], Node]" = weakref.WeakValueDictionary()
_INTERN_LOCK = threading.Lock()
# Every kind of node, in the order of the definitions below (each class enters as it is defined).
_KINDS: list[type["Node"]] = []


def _payload_key(value: object) -> str:
    if isinstance(value, Node):
        return value.skey
    if isinstance(value, tuple):
        return "(" + ",".join(_payload_key(v) for v in value) + ")"
    if value is None or isinstance(value, (bool, int, float, str)):
        return json.dumps(value)
    return repr(value)  # types: frozen dataclasses with a stable repr


class Node:
    """Base of IR nodes: interned by (class, fields)."""

    __slots__ = ("_h", "skey", "_cache", "__weakref__")
    _fields: ClassVar[tuple[str, ...]] = ()
    __match_args__: ClassVar[tuple[str, ...]] = ()
    _h: int
    skey: str          # a structural key, identical across processes
    _cache: dict[str, Any]  # per-node memo of structural analyses

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """A class that names its fields is a kind of node (`Term` and `Formula` are families):
        it is listed in `TERMS` or `FORMULAS`, and matches positionally (`case Until(a, b)`)."""
        super().__init_subclass__(**kwargs)
        if "_fields" in cls.__dict__:
            cls.__match_args__ = cls._fields  # type: ignore[misc]  # mypy takes match arguments as fixed
            _KINDS.append(cls)

    def __new__(cls, *args: Any) -> Self:
        key = (cls, args)
        node = _INTERN.get(key)
        if node is not None:
            return node  # type: ignore[return-value]  # interned under its own class
        with _INTERN_LOCK:
            node = _INTERN.get(key)
            if node is None:
                node = cls._make(args)
                _INTERN[key] = node
        return node  # type: ignore[return-value]  # interned under its own class

    @classmethod
    def _make(cls, args: tuple[Any, ...]) -> "Node":
        node = object.__new__(cls)
        for name, value in zip(cls._fields, args):
            object.__setattr__(node, name, value)
        digest = hashlib.blake2b(
            (cls.__name__ + "|" + "|".join(_payload_key(a) for a in args)).encode(), digest_size=10
        ).hexdigest()
        object.__setattr__(node, "skey", digest)
        object.__setattr__(node, "_h", hash(digest))
        object.__setattr__(node, "_cache", {})
        return node

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("IR nodes are immutable")

    def __eq__(self, other: object) -> bool:
        return self is other

    def __hash__(self) -> int:
        return self._h

    def __reduce__(self) -> tuple[type[Node], tuple[Any, ...]]:
        return (type(self), tuple(getattr(self, f) for f in self._fields))

    @property
    def children(self) -> tuple["Node", ...]:
        out = []
        for f in self._fields:
            v = getattr(self, f)
            if isinstance(v, Node):
                out.append(v)
            elif isinstance(v, tuple):
                out.extend(x for x in v if isinstance(x, Node))
        return tuple(out)

    def __repr__(self) -> str:
        from policyc.ir.printer import show

        return show(self)


# ------------------------------------------------------------------ terms (data)


class Term(Node):
    __slots__ = ()


class Lit(Term):
    """A JSON constant. Interned by its canonical JSON text, so `1`, `1.0` and `true` differ."""

    __slots__ = ("value", "text")
    _fields = ("value", "text")
    value: object
    text: str

    def __new__(cls, value: object) -> Self:
        text = json.dumps(value, sort_keys=True, ensure_ascii=False)
        found = _INTERN.get((cls, (("lit", text),)))
        if found is not None:
            return found  # type: ignore[return-value]  # interned under its own class
        node = Node.__new__(cls, ("lit", text))
        object.__setattr__(node, "value", value)
        object.__setattr__(node, "text", text)
        return node

    def __reduce__(self) -> tuple[type[Node], tuple[Any, ...]]:
        return (Lit, (self.value,))


class Var(Term):
    """A quantified (or pattern-bound) data variable."""

    __slots__ = ("name",)
    _fields = ("name",)
    name: str


class Arg(Term):
    """An argument of the call at the current position (inside an event guard)."""

    __slots__ = ("name",)
    _fields = ("name",)
    name: str


class Result(Term):
    """The result of the call at the current position (inside an event guard)."""

    __slots__ = ()
    _fields = ()


class Attr(Term):
    """An attribute of the event at the current position (inside an event guard): `actor`
    ("assistant" or "user"), `message_id` (the message the event belongs to) or `error`
    (whether the call failed; like the result, known only once the call ran)."""

    __slots__ = ("name",)
    _fields = ("name",)
    name: str


class Field(Term):
    __slots__ = ("base", "name")
    _fields = ("base", "name")
    base: Term
    name: str


class Index(Term):
    __slots__ = ("base", "index")
    _fields = ("base", "index")
    base: Term
    index: Term


class Slice(Term):
    __slots__ = ("base", "start", "stop")
    _fields = ("base", "start", "stop")
    base: Term
    start: Term | None
    stop: Term | None


class Op(Term):
    """An operator of `policyc.ir.ops.OPS` applied to terms."""

    __slots__ = ("op", "args")
    _fields = ("op", "args")
    op: str
    args: tuple[Term, ...]


class Extern(Term):
    """A call to an extern predicate: bound to Python, opaque to the solver."""

    __slots__ = ("name", "args")
    _fields = ("name", "args")
    name: str
    args: tuple[Term, ...]


class Values(Term):
    """The values of `tool.path` over every call to `tool` in the trace (a global domain).

    With `flatten`, a path whose values are lists contributes their elements."""

    __slots__ = ("tool", "path", "flatten")
    _fields = ("tool", "path", "flatten")
    tool: str
    path: tuple[str | int, ...]
    flatten: bool


class Outputs(Term):
    """The grounding set: entities seen in results of `tools` (all tools when empty)."""

    __slots__ = ("tools",)
    _fields = ("tools",)
    tools: tuple[str, ...]


class Done(Term):
    """`done`: the tools a call succeeded with, the names of the calls of the trace that did
    not fail, the terminal tools (the answer, not an action) left out."""

    __slots__ = ("terminal",)
    _fields = ("terminal",)
    terminal: tuple[str, ...]


class Metric(Term):
    """A field of the metrics record μ (appendix A.1.3)."""

    __slots__ = ("path",)
    _fields = ("path",)
    path: tuple[str | int, ...]


class Request(Term):
    """The user's request that started the run: `{"text": ...}` (⊥ when not recorded)."""

    __slots__ = ()
    _fields = ()


class Quant(Term):
    """`forall var in domain: body` (kind "forall") or `exists ...` (kind "exists") inside an
    event pattern: a condition over the elements of a list the call carries (the rows of its
    result, the items of an argument). True or false, never ⊥: over no elements (an empty
    list, or a domain that is ⊥ or null) `forall` holds and `exists` does not. The domain's
    elements are those of a formula quantifier (`policyc.semantics.domains.domain_values`);
    `var` is bound in `body` only."""

    __slots__ = ("kind", "var", "domain", "body")
    _fields = ("kind", "var", "domain", "body")
    kind: str
    var: str
    domain: Term
    body: Term


class Project(Term):
    """`base[*].path`: the value at `path` of every element of the list `base`, in order,
    elements where the path is missing (or null) left out; ⊥ when `base` is not a list."""

    __slots__ = ("base", "path")
    _fields = ("base", "path")
    base: Term
    path: tuple[str, ...]


class From(Term):
    """`value from S` (`only` false) or `value only from S` (`only` true), inside an event
    pattern: among the sources the run had seen before the current event (the request, the
    user's messages, every earlier tool result, leaf by leaf), some that show the value are in
    S, or (only) some show it and all of those are in S (`policyc.grounding.provenance`).
    `label` is S as the policy wrote it; `sources` is S resolved against the policy's trust
    declarations (a `provenance.SourceSet`). False for a value that is neither a string nor a
    number, and where the sources are not known."""

    __slots__ = ("value", "only", "label", "sources")
    _fields = ("value", "only", "label", "sources")
    value: Term
    only: bool
    label: str
    sources: Sources


class Flows(Term):
    """`flows(S, text, span)` inside an event pattern: an address the text names (a URL,
    e-mail address, IBAN, phone or card number), or a run of `span` consecutive words of it,
    occurs in sources of S seen before the current event and in none outside S."""

    __slots__ = ("label", "sources", "text", "span")
    _fields = ("label", "sources", "text", "span")
    label: str
    sources: Sources
    text: Term
    span: int


class Earlier(Term):
    """A history atom, made only by the compiler (no policy writes it): some event *before* the
    current one is a call to `tool` whose arguments and result satisfy `guard`, read with `var`
    bound to `value` (a term of the current call). `once tool(guard(x))` read at a call that
    binds x becomes this atom of that call (`policyc.automata.trigger`); a run answers it from
    its history stores (`policyc.tables.earlier`), not by reading the trace again."""

    __slots__ = ("tool", "var", "guard", "value")
    _fields = ("tool", "var", "guard", "value")
    tool: str
    var: str
    guard: Term
    value: Term


# ------------------------------------------------------------------ formulas


class Formula(Node):
    __slots__ = ()


class Const(Formula):
    __slots__ = ("value",)
    _fields = ("value",)
    value: bool


class Event(Formula):
    """Holds at i when call i is to `tool` and `guard` is true of its arguments and result."""

    __slots__ = ("tool", "guard")
    _fields = ("tool", "guard")
    tool: str
    guard: Term


class Cond(Formula):
    """A position-independent condition on data variables and global terms."""

    __slots__ = ("term",)
    _fields = ("term",)
    term: Term


class Not(Formula):
    __slots__ = ("arg",)
    _fields = ("arg",)
    arg: Formula


class And(Formula):
    __slots__ = ("args",)
    _fields = ("args",)
    args: tuple[Formula, ...]


class Or(Formula):
    __slots__ = ("args",)
    _fields = ("args",)
    args: tuple[Formula, ...]


class Next(Formula):
    """Strong next: there is a next position and it satisfies the operand."""

    __slots__ = ("arg",)
    _fields = ("arg",)
    arg: Formula


class WNext(Formula):
    """Weak next: if there is a next position, it satisfies the operand."""

    __slots__ = ("arg",)
    _fields = ("arg",)
    arg: Formula


class Until(Formula):
    __slots__ = ("left", "right")
    _fields = ("left", "right")
    left: Formula
    right: Formula


class Release(Formula):
    __slots__ = ("left", "right")
    _fields = ("left", "right")
    left: Formula
    right: Formula


class Yesterday(Formula):
    """Strong yesterday: there is a previous position and it satisfies the operand."""

    __slots__ = ("arg",)
    _fields = ("arg",)
    arg: Formula


class WYesterday(Formula):
    """Weak yesterday: true at position 0."""

    __slots__ = ("arg",)
    _fields = ("arg",)
    arg: Formula


class Since(Formula):
    __slots__ = ("left", "right")
    _fields = ("left", "right")
    left: Formula
    right: Formula


class Trigger(Formula):
    """Dual of since: a T b = not (not a S not b)."""

    __slots__ = ("left", "right")
    _fields = ("left", "right")
    left: Formula
    right: Formula


class Forall(Formula):
    __slots__ = ("var", "type", "domain", "body")
    _fields = ("var", "type", "domain", "body")
    var: str
    type: Type | None
    domain: Term
    body: Formula


class Exists(Formula):
    __slots__ = ("var", "type", "domain", "body")
    _fields = ("var", "type", "domain", "body")
    var: str
    type: Type | None
    domain: Term
    body: Formula


TRUE = Const(True)
FALSE = Const(False)

#: The kinds of term and of formula, as defined above: what a pass over the IR has a case for
#: (`policyc.ir.dispatch`).
TERMS: tuple[type[Term], ...] = tuple(k for k in _KINDS if issubclass(k, Term))
FORMULAS: tuple[type[Formula], ...] = tuple(k for k in _KINDS if issubclass(k, Formula))
