"""Does a policy's tool set match the tools an agent really has? One check for every adapter.

`compare_tools(declared, offered)` compares the policy's signatures with the live tools'
(converted from their JSON Schemas): names, argument names, whether each argument is
required, and types. Each difference is a `ToolMismatch`:

| kind | severity | what goes wrong at run time |
|---|---|---|
| `missing-tool` | error | the gate may tell the agent to call a tool it does not have |
| `extra-tool` | error | every call of it is a conformance finding (an unknown tool) |
| `extra-argument` | error | a call that passes it is a conformance finding (an unknown argument) |
| `missing-argument` | error if the policy requires it, else warning | every call lacks it |
| `optional-argument` | warning | the tool may leave out an argument the policy requires |
| `type` | warning | a value the tool accepts may not have the declared type |
| `result` | warning | rules over the result may read fields it does not have |

A result is compared in the shape it is recorded in (`policyc.trace.results`): `{"result": v}`
(the MCP SDK's wrapper) and `v` are the same result, whichever of them the policy declares.
`any` on either side matches everything, an `int` is a `float`, and an untyped object
(`dict[str, any]`, a plain `"type": "object"`) matches any record.

>>> from policyc.ir.types import INT, STR, FLOAT, OptionalT, Param, ToolSignature
>>> policy = {"search": ToolSignature("search", (Param("query", STR), Param("limit", INT)), STR),
...           "answer": ToolSignature("answer", (Param("text", STR),), STR, terminal=True)}
>>> live = {"search": ToolSignature("search", (Param("query", STR), Param("limit", OptionalT(FLOAT)),
...                                            Param("page", INT)), STR)}
>>> for m in compare_tools(policy, live).mismatches: print(m.severity, m)
error the policy declares `answer`, which the agent's tools do not include
error `search` takes an argument `page` that the policy does not declare
warning `search.limit`: the tool may leave it out, but the policy requires it
warning `search.limit`: the tool takes float, the policy declares int
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

from policyc.ir.types import ANY, FLOAT, INT, STR, DictT, EnumT, ListT, OptionalT, RecordT, ToolSignature, Type, \
    strip_optional
from policyc.trace.results import WRAPPER, is_wrapper


@dataclass(frozen=True, slots=True)
class ToolMismatch:
    kind: str              # see the module's table
    severity: str          # error or warning
    tool: str              # the policy's name of the tool
    message: str           # one lowercase sentence, names in backticks
    argument: str | None = None

    def __str__(self) -> str:
        return self.message

    def to_json(self) -> dict:
        return {"kind": self.kind, "severity": self.severity, "tool": self.tool, "argument": self.argument,
                "message": self.message}


@dataclass(frozen=True, slots=True)
class ToolSetReport:
    """The differences between a policy's tools and an agent's, errors first."""

    mismatches: tuple[ToolMismatch, ...]

    @property
    def errors(self) -> tuple[ToolMismatch, ...]:
        return tuple(m for m in self.mismatches if m.severity == "error")

    @property
    def warnings(self) -> tuple[ToolMismatch, ...]:
        return tuple(m for m in self.mismatches if m.severity != "error")

    @property
    def matches(self) -> bool:
        """No errors (warnings allowed)."""
        return not self.errors

    def __str__(self) -> str:
        if not self.mismatches:
            return "the policy's tools match the agent's"
        return "\n".join(f"{m.severity}: {m.message}" for m in self.mismatches)


class ToolSetMismatch(ValueError):
    """The agent's tools do not match the policy's signatures (`report` says how)."""

    def __init__(self, report: ToolSetReport, where: str = "the agent"):
        lines = "\n".join(f"  - {m.message}" for m in report.errors)
        super().__init__(f"{where}'s tools do not match the policy's signatures:\n{lines}")
        self.report = report


def compare_tools(declared: Mapping[str, ToolSignature], offered: Mapping[str, ToolSignature | None],
                  names: Mapping[str, str] | None = None) -> ToolSetReport:
    """Compare a policy's signatures (`declared`) with the live tools (`offered`; None for a
    tool whose schema could not be read: only its name is compared). `names` maps a live
    tool's name to the policy's, where they differ."""
    names = dict(names or {})
    live = {names.get(n, n): sig for n, sig in offered.items()}
    errors: list[ToolMismatch] = []
    warnings: list[ToolMismatch] = []
    for name in declared:
        if name not in live:
            errors.append(ToolMismatch("missing-tool", "error", name,
                                       f"the policy declares `{name}`, which the agent's tools do not include"))
    for name in live:
        if name not in declared:
            errors.append(ToolMismatch("extra-tool", "error", name,
                                       f"the agent has `{name}`, which the policy does not declare (its calls "
                                       "are flagged as unknown tools)"))
    for name, sig in declared.items():
        other = live.get(name)
        if other is not None:
            _compare_tool(sig, other, errors, warnings)
    return ToolSetReport(tuple(errors + warnings))


def _compare_tool(sig: ToolSignature, live: ToolSignature, errors: list, warnings: list) -> None:
    name = sig.name
    for p in live.params:
        if sig.param(p.name) is None:
            errors.append(ToolMismatch("extra-argument", "error", name,
                                       f"`{name}` takes an argument `{p.name}` that the policy does not declare",
                                       p.name))
    for p in sig.params:
        q = live.param(p.name)
        if q is None:
            (errors if p.required else warnings).append(ToolMismatch(
                "missing-argument", "error" if p.required else "warning", name,
                f"the policy declares an argument `{p.name}` of `{name}` that the tool does not take", p.name))
            continue
        if p.required and not q.required:
            warnings.append(ToolMismatch("optional-argument", "warning", name,
                                         f"`{name}.{p.name}`: the tool may leave it out, but the policy requires it",
                                         p.name))
        if type_difference(p.type, q.type):
            warnings.append(ToolMismatch("type", "warning", name, f"`{name}.{p.name}`: the tool takes "
                                         f"{strip_optional(q.type)}, the policy declares {strip_optional(p.type)}",
                                         p.name))
    if live.result is not ANY and result_difference(sig.result, live.result):
        warnings.append(ToolMismatch("result", "warning", name, f"`{name}` returns {live.result}, the policy "
                                     f"declares {sig.result}: rules that read its result may read what it "
                                     "does not have"))


def result_difference(declared: Type, offered: Type) -> bool:
    """Whether a result of the `offered` type, recorded in the shape the policy declares
    (`policyc.trace.results`: `{"result": v}` and `v` are one result), may lack the declared type.

    >>> from policyc.ir.types import ListT
    >>> wrapped = RecordT("", (("result", ListT(STR)),))
    >>> result_difference(ListT(STR), wrapped), result_difference(wrapped, ListT(STR)), result_difference(INT, STR)
    (False, False, True)
    """
    if not type_difference(declared, offered):
        return False
    inner = strip_optional(offered)
    if isinstance(inner, RecordT) and [f for f, _ in inner.fields] == [WRAPPER] \
            and not type_difference(declared, inner.fields[0][1]):
        return False  # recorded unwrapped
    wrapper = strip_optional(declared)
    if is_wrapper(declared) and isinstance(wrapper, RecordT):
        field = wrapper.field(WRAPPER)
        return field is None or type_difference(field, offered)  # recorded wrapped
    return True


def type_difference(declared: Type, offered: Type) -> bool:
    """Whether a value of the `offered` type may lack the `declared` type (optionality aside).

    >>> type_difference(FLOAT, INT), type_difference(INT, FLOAT), type_difference(STR, EnumT("E", ("a",)))
    (False, True, False)
    """
    d, o = strip_optional(declared), strip_optional(offered)
    if d is ANY or o is ANY or d == o:
        return False
    if d is FLOAT and o is INT:
        return False
    if isinstance(o, DictT) and o.value is ANY and isinstance(d, (DictT, RecordT)):
        return False  # an untyped object says nothing about its fields
    if isinstance(d, EnumT):
        return not (isinstance(o, EnumT) and set(o.members) <= set(d.members))
    if isinstance(o, EnumT):
        return type_difference(d, STR)
    if isinstance(d, ListT) and isinstance(o, ListT):
        return type_difference(d.elem, o.elem)
    if isinstance(d, DictT) and isinstance(o, DictT):
        return type_difference(d.value, o.value)
    if isinstance(d, DictT) and isinstance(o, RecordT):
        return any(type_difference(d.value, t) for _, t in o.fields)
    if isinstance(d, RecordT) and isinstance(o, RecordT):
        for fname, ftype in d.fields:
            other = o.field(fname)
            if other is None:
                if not isinstance(ftype, OptionalT) and ftype is not ANY:
                    return True
            elif type_difference(ftype, other):
                return True
        return False
    return True


__all__ = ["ToolMismatch", "ToolSetMismatch", "ToolSetReport", "compare_tools", "result_difference",
           "type_difference"]
