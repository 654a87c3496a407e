"""The ledger for people: text (rich tables) and Markdown. JSON is `Ledger.model_dump_json()`.

Both show, in order: the suite (table 2: each rule's App and Viol, with its upper bound over
tasks), the ledger (table 4: each obligation's status and reason), the gaps, the run-level
union of the methods and their pairwise overlap (table 3), Prop. 3.4's combined bounds, and
the residual.
"""

from __future__ import annotations

from policyc.assure.models import REASONS, Ledger
from policyc.terminal import printable

_STATUS = {"established": "established", "addressed": "addressed, not established", "unaddressed": "unaddressed"}


def _pct(x: float) -> str:
    return f"{100 * x:.2f}%"


def _sections(ledger: Ledger) -> list[tuple[str, list[str], list[list[str]]]]:
    """(title, header, rows) of every table, shared by both renderers."""
    out = []
    m = len(ledger.rules)
    share = (1 - ledger.confidence) / max(1, m)
    out.append((f"Rules on the suite `{ledger.suite}` of `{ledger.deployment}`: {ledger.runs} runs, "
                f"{ledger.tasks} tasks (upper bounds one-sided, over tasks: at {ledger.confidence:g} per rule; "
                f"at {1 - share:.6g} with δ = {1 - ledger.confidence:.4g} split over the {m} rules, Prop. 3.4)",
                ["rule", "requirement", "applies to", "App.", "Viol.", "tasks", "bound", "bound (δ/m)",
                 "bound over runs"],
                [[r.rule, r.requirement or "", _applies(r.applicability), str(r.applicable), str(r.violated), str(r.tasks),
                  _pct(r.bound), _pct(r.bound_split), _pct(r.bound_over_runs)] for r in ledger.rules]))
    out.append(("Ledger (standing: an obligation of the inventory nobody asked to establish)",
                ["obligation", "deployment", "contract", "status", "reason", "evidence or missing premise"],
                [[e.obligation.target + (" (standing)" if e.obligation.standing else ""), e.obligation.deployment,
                  str(e.obligation.contract), _STATUS[e.status],
                  (e.reason or "").replace("_", " "),
                  e.detail + (f" (conditional on: {'; '.join(e.conditional_on)})" if e.conditional_on else "")]
                 for e in ledger.entries]))
    if ledger.union:
        out.append(("Run-level union of the methods", ["method", "flags", "new", "union", "only this method"],
                    [[u.method, str(u.flagged), str(u.new), str(u.union), str(u.only)] for u in ledger.union]))
    if ledger.overlaps:
        out.append(("Pairwise overlap (Exp.: both, were the verdicts independent; Dis.: fraction of runs where "
                    "they differ, with its independence reference)",
                    ["pair", "both", "Exp.", "only 1st", "only 2nd", "Dis.", "Indep."],
                    [[f"{o.first} / {o.second}", str(o.both), f"{o.expected:.0f}", str(o.only_first),
                      str(o.only_second), f"{o.disagreement:.2f}", f"{o.independent_disagreement:.2f}"]
                     for o in ledger.overlaps]))
    if ledger.combined:
        out.append(("Policy risk by Prop. 3.4 (sum of the rules' upper bounds, each at confidence 1 − δ/m; "
                    "no independence needed)",
                    ["deployment", "distribution", "rules bounded", "Pr(some rule violated) ≤", "confidence ≥",
                     "rules without a bound"],
                    [[c.deployment, c.distribution or "(none named)", str(c.rules),
                      "1 (not every rule is bounded)" if c.missing else f"{c.epsilon:.4g}",
                      "-" if c.missing else f"{1 - c.delta:.4g} (δ/m = {c.share:.4g})", _few(c.missing)]
                     for c in ledger.combined]))
    return out


def _applies(text: str) -> str:
    """Table 2's App., in brief: the rule's `when`, its triggers, or every run."""
    if text.startswith("runs where"):
        return "runs with a trigger"
    return "every run" if text.startswith("every run") else "its `when`"


def _few(names: list[str], most: int = 3) -> str:
    return ", ".join(names[:most]) + (f" and {len(names) - most} more" if len(names) > most else "")


def _summary(ledger: Ledger) -> list[str]:
    counts = {s: sum(e.status == s for e in ledger.entries) for s in _STATUS}
    standing = sum(e.obligation.standing for e in ledger.entries)
    lines = [f"{counts['established']} established, {counts['addressed']} addressed but not established, "
             f"{counts['unaddressed']} unaddressed, of {len(ledger.entries)} obligations"
             + (f" ({standing} standing)" if standing else "")]
    reasons: dict[str, int] = {}
    for e in ledger.entries:
        if e.reason:
            reasons[e.reason] = reasons.get(e.reason, 0) + 1
    for reason, n in reasons.items():
        lines.append(f"  {n} × {reason.replace('_', ' ')}: {REASONS[reason]}")
    for method, rules in ledger.methods.items():
        left = [x.rule for x in ledger.rules if x.rule not in rules]
        lines.append(f"method `{method}`: a run it flags violates one of {len(rules)} of the {len(ledger.rules)} rules"
                     + (f" (left out: {_few(left)})" if left else ""))
    r = ledger.residual
    lines.append(f"residual: {r.unflagged} of {ledger.runs} runs flagged by no method (not evidence of compliance); "
                 f"{r.unmet} obligations unmet (G_est), {r.unaddressed} unaddressed (G_expr)")
    if ledger.suite and ledger.entries:
        lines.append("a suite contract records a test on the suite, not compliance on every run of the deployment")
    lines.extend(f"problem: {p}" for p in ledger.problems)
    lines.extend(f"warning: {w}" for w in ledger.warnings)
    return lines


def render_text(ledger: Ledger, color: bool = False) -> str:
    import io

    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    buffer = io.StringIO()
    console = Console(file=buffer, no_color=not color, width=160, soft_wrap=False, force_terminal=color,
                      highlight=False)
    console.print(f"assurance ledger: {escape(printable(ledger.policy))}")
    for title, header, rows in _sections(ledger):
        table = Table(title=escape(printable(title)), title_justify="left")
        for i, name in enumerate(header):
            last = i == len(header) - 1
            table.add_column(escape(name), overflow="fold", no_wrap=not last, ratio=1 if last else None)
        for row in rows:
            table.add_row(*(escape(printable(c)) for c in row))
        console.print(table)
    for line in _summary(ledger):
        console.print(escape(printable(line)))
    return buffer.getvalue()


def _cell(text: str) -> str:
    return printable(text).replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


def render_markdown(ledger: Ledger) -> str:
    lines = [f"# Assurance ledger: {_cell(ledger.policy)}", ""]
    for title, header, rows in _sections(ledger):
        lines += [f"## {_cell(title)}", "", "| " + " | ".join(header) + " |",
                  "|" + "---|" * len(header)]
        lines += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in rows]
        lines.append("")
    lines += ["## Summary", ""] + [f"- {_cell(line.strip())}" for line in _summary(ledger)]
    return "\n".join(lines) + "\n"
