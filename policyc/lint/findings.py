"""Lint findings: what each kind means, and the record every analysis returns.

A finding is data, like a checker diagnostic: a stable code, the rules involved, a
one-line message in the house style, and its evidence (witness traces, conflicting parts)
with the strength of the claim. `Finding.to_diagnostic` gives it the shape every renderer
already knows.

>>> KINDS["L0002"].slug, kind_by_name("conflict").code
('conflict', 'L0002')
"""

from __future__ import annotations

from dataclasses import dataclass, field

from policyc.diagnostics import NO_SPAN, Diagnostic, Label, Severity
from policyc.ir.nodes import Node
from policyc.ir.policy import Policy, Rule
from policyc.ir.printer import show
from policyc.smt.witness import UNDECIDED, Strength, WitnessTrace


#: Formulas quoted in a finding are cut to about this many characters.
QUOTE_LIMIT = 160


def quoted(node: Node) -> str:
    """A formula as a finding quotes it: bounded (a count or a chain expands to hundreds of
    operators)."""
    return show(node, QUOTE_LIMIT)


def rule_text(rule: Rule) -> str:
    """A rule as its author wrote it (the body of its source), else its formula, bounded.

    >>> from policyc.ir import build as b
    >>> rule_text(Rule("r", b.eventually(b.event("a")), source="rule r:\\n    called(a)  # κ2"))
    'called(a)'
    """
    from policyc.scoring.source import rule_body

    body = " ".join(rule_body(rule.source).split()) if rule.source else ""
    return body or quoted(rule.formula)


@dataclass(frozen=True, slots=True)
class FindingKind:
    code: str
    slug: str
    severity: Severity
    title: str


KINDS: dict[str, FindingKind] = {k.code: k for k in (
    FindingKind("L0001", "unsatisfiable-rule", Severity.ERROR, "a rule no trace can satisfy"),
    FindingKind("L0002", "conflict", Severity.ERROR, "rules that no trace can satisfy together"),
    FindingKind("L0003", "redundant-rule", Severity.WARNING, "a rule implied by other rules"),
    FindingKind("L0004", "vacuous-rule", Severity.WARNING, "a rule that holds on every compliant trace without testing anything"),
    FindingKind("L0005", "dead-tool", Severity.WARNING, "a declared tool no compliant trace may call"),
    FindingKind("L0006", "unenforceable-severity", Severity.WARNING, "a blocking severity on a rule the gate can never act on"),
    FindingKind("L0007", "budget", Severity.ERROR, "no compliant trace fits the declared call budget"),
    FindingKind("L0008", "layer-weights", Severity.NOTE, "layer weights that decide nothing or decide everything"),
    FindingKind("L0009", "undecided", Severity.WARNING, "a question the lint could not decide"),
)}


def kind_by_name(name: str) -> FindingKind:
    """A kind by its code (`L0002`) or its name (`conflict`)."""
    if name.upper() in KINDS:
        return KINDS[name.upper()]
    for kind in KINDS.values():
        if kind.slug == name.lower():
            return kind
    raise KeyError(name)


@dataclass(frozen=True)
class Finding:
    """One lint finding. `rules` are the rules involved, the primary one first."""

    code: str
    message: str
    rules: tuple[str, ...] = ()
    strength: Strength = field(default_factory=lambda: Strength(True))
    help: str | None = None
    evidence: tuple[str, ...] = ()
    witnesses: tuple[tuple[str, WitnessTrace], ...] = ()
    labels: tuple[tuple[str, str], ...] = ()  # (rule, what it contributes)
    tools: tuple[str, ...] = ()
    severity: Severity | None = None  # when it differs from the kind's

    @property
    def kind(self) -> FindingKind:
        return KINDS[self.code]

    @property
    def level(self) -> Severity:
        return self.severity or self.kind.severity

    def notes(self) -> tuple[str, ...]:
        out = list(self.evidence)
        for caption, witness in self.witnesses:
            mark = "" if witness.confirmed else " (not confirmed by replay: it relies on an over-approximation)"
            out.append(f"{caption}: {witness}{mark}")
        out.append(f"strength: {self.strength}")
        return tuple(out)

    def to_diagnostic(self, policy: Policy) -> Diagnostic:
        spans = {r.name: r.span for r in policy.rules}
        primary = spans.get(self.rules[0]) if self.rules else None
        labels = []
        for rule, text in self.labels:
            span = spans.get(rule)
            if span is not None and span is not NO_SPAN and rule != (self.rules[0] if self.rules else None):
                labels.append(Label(span, text))
        return Diagnostic(self.code, self.message, primary if primary is not NO_SPAN else None,
                          self.help, self.level, tuple(labels), self.notes())

    def to_json(self) -> dict:
        out: dict = {
            "code": self.code,
            "name": self.kind.slug,
            "severity": self.level.value,
            "message": self.message,
            "rules": list(self.rules),
            "strength": self.strength.to_json(),
            "evidence": list(self.evidence),
            # each trace as a record `policyc score` reads
            "witnesses": [{"caption": c, "confirmed": w.confirmed, "trace": w.to_json()} for c, w in self.witnesses],
        }
        if self.tools:
            out["tools"] = list(self.tools)
        if self.help:
            out["help"] = self.help
        return out


def undecided(question: str, rules: tuple[str, ...], reason: str, consequence: str | None = None) -> Finding:
    """An analysis that could not be decided: a finding of its own, never silence.

    >>> undecided("whether rule `r` can be satisfied", ("r",), "Z3 reached its resource limit").message
    'not decided: whether rule `r` can be satisfied'
    """
    return Finding(
        "L0009", f"not decided: {question}", rules, UNDECIDED,
        help="the lint neither found a trace nor proved there is none; raise `--rlimit` or `--bound`, or "
             "simplify the rules involved",
        evidence=tuple(x for x in (reason, consequence) if x))
