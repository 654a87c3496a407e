"""What an HTML report shows, as compact JSON data: the page's single source.

`ReportBuilder` takes runs one at a time (the policy's view of the trace, its compliance
report, and the gate's replay when there is one) and keeps per run only what the page draws:
the tool of each event (an index into one table of tool names), the failed rules with the
event after which each was lost and the explanation, vacuous passes, input problems, and the
gate's decisions other than plain allows. Texts are cut (previews of an event's arguments and
result to `PREVIEW_CHARS`, explanations to `DETAIL_CHARS`, ...) and, past a budget for the
whole page (`TEXT_BUDGET` characters), shortened further: previews and gate messages are left
out, explanations cut to `SHORT_CHARS`; the page says when. So a corpus of 10,000 runs of 100
calls makes a page well under 20 MB.

>>> from policyc.automata import compile_policy
>>> from policyc.check import check_file
>>> from policyc.scoring import Scorer
>>> from policyc.trace import load_traces
>>> compiled = compile_policy(check_file("examples/code_qa.altl")[0])
>>> builder = ReportBuilder(compiled)
>>> for trace in load_traces("examples/traces/code_qa.jsonl").traces:
...     builder.add_run(trace, Scorer(compiled).score(trace))
>>> data = builder.data()
>>> data["policy"]["name"], len(data["runs"]) > 0, data["tools"][:2]
('code_qa', True, ['list_directory', 'read_file'])
"""

from __future__ import annotations

import json
from typing import Any, Mapping, Sequence

from policyc.ir.ops import UNDEF
from policyc.scoring import CorpusTally, MalformedRecord, TraceReport
from policyc.tables.policy import CompiledPolicy
from policyc.trace.model import Trace

#: Characters kept of an event's preview (its arguments and its result), a rule's explanation,
#: a gate decision's message; of every text of the page together; of a text past that budget.
PREVIEW_CHARS = 160
DETAIL_CHARS = 600
DECISION_CHARS = 300
TEXT_BUDGET = 8_000_000
SHORT_CHARS = 100
#: Input problems listed per run.
PROBLEMS_SHOWN = 10
#: A gate decision's action, as one letter.
ACTIONS = {"allow": "a", "warn": "w", "block": "b", "stop": "s", "not reached": "n"}


def _clip(text: str, most: int) -> str:
    return text if len(text) <= most else text[: most - 1] + "…"


def _preview(value: Any, most: int) -> str:
    if value is UNDEF:
        return ""
    try:
        text = json.dumps(value, ensure_ascii=False, default=str)
    except (TypeError, ValueError, RecursionError):
        text = repr(value)
    return _clip(text, most)


class ReportBuilder:
    """The report's data, built a run at a time."""

    def __init__(self, compiled: CompiledPolicy, source: str | None = None):
        self.compiled = compiled
        self.policy = compiled.policy
        self.rule_index = {r.name: i for i, r in enumerate(self.policy.rules)}
        self.tools: dict[str, int] = {name: i for i, name in enumerate(self.policy.tools)}
        self.tally = CorpusTally(self.policy, keep_reports=False)
        self.runs: list[dict] = []
        self.malformed: list[dict] = []
        self.text_left = TEXT_BUDGET
        self.texts: dict[str, int] = {}
        self.previews_cut = 0  # runs whose previews were left out (the budget was spent)
        self.lint: list[dict] | None = None
        self.ledger: dict | None = None
        self.source = source
        self.replayed = False

    def _text(self, text: str, most: int) -> int:
        """The number of `text` in the page's table of texts (each kept once: the same message
        repeats across runs), cut to `most` characters, or to SHORT_CHARS once the page's budget
        is spent."""
        out = _clip(text, most if self.text_left > 0 else SHORT_CHARS)
        found = self.texts.get(out)
        if found is None:
            found = self.texts[out] = len(self.texts)
            self.text_left -= len(out)
        return found

    def _tool(self, name: str) -> int:
        found = self.tools.get(name)
        if found is None:
            found = self.tools[name] = len(self.tools)
        return found

    def add_malformed(self, record: MalformedRecord) -> None:
        self.tally.add(record)
        self.malformed.append(record.model_dump(mode="json"))

    def add_run(self, trace: Trace, report: TraceReport, replay: Any = None) -> None:
        """One run: `trace` as read (its policy view is taken here), its report, and the gate's
        replay of it (`policyc.runtime.replay.Replay`) when decisions are shown."""
        self.tally.add(report)
        view = self.policy.view(trace)
        events: list[Any] = []
        with_previews = self.text_left > 0
        for call in view.calls:
            flags = _flags(call)
            if with_previews:
                text, result = _preview(dict(call.args), PREVIEW_CHARS), _preview(call.result, PREVIEW_CHARS)
                events.append([self._tool(call.name), flags, text, result])
                self.text_left -= len(text) + len(result)
            else:  # a plain call is its tool's number alone
                events.append(self._tool(call.name) if flags == "c" else [self._tool(call.name), flags])
        if not with_previews and view.calls:
            self.previews_cut += 1
        run: dict[str, Any] = {
            "id": report.trace_id or report.origin or f"run {len(self.runs) + 1}",
            "origin": report.origin,
            "score": report.compliance_score,
            "label": report.compliance_label,
            "events": events,
            "failed": [[self.rule_index.get(c.name, -1), c.violated_at, self._text(c.detail, DETAIL_CHARS)]
                       for c in report.constraints if not c.passed],
            "vacuous": [self.rule_index.get(c.name, -1) for c in report.constraints if c.vacuous],
            "problems": [[p.call, p.severity, self._text(p.message, DETAIL_CHARS)]
                         for p in report.input_problems[:PROBLEMS_SHOWN]],
            "more_problems": max(0, len(report.input_problems) - PROBLEMS_SHOWN),
        }
        if replay is not None:  # the calls the gate would not simply have allowed (the others ran)
            self.replayed = True
            run["decisions"] = [self._decision(step) for step in replay.steps
                                if step.action != "allow" or step.rules or step.counterfactual]
        self.runs.append(run)

    def _decision(self, step) -> list:
        """[position, action (a letter of ACTIONS), rule indices, counterfactual (0/1)] and the
        message, when there is one and the page's text budget allows."""
        d = step.decision
        out = [step.position, ACTIONS[step.action], [self.rule_index.get(r, -1) for r in step.rules],
               int(step.counterfactual)]
        if d is not None and d.message and self.text_left > 0:
            out.append(self._text(d.message, DECISION_CHARS))
        return out

    def add_lint(self, findings: Sequence[Mapping[str, Any]]) -> None:
        self.lint = [{"code": f.get("code"), "name": f.get("name"), "severity": f.get("severity"),
                      "message": f.get("message"), "rules": list(f.get("rules") or []),
                      "strength": (f.get("strength") or {}).get("text"), "help": f.get("help")} for f in findings]

    def add_ledger(self, ledger: Mapping[str, Any]) -> None:
        self.ledger = dict(ledger)

    def data(self) -> dict:
        corpus = self.tally.report()
        return {
            "format": 1,
            "policy": {
                "name": self.policy.name,
                "description": self.policy.description,
                "source": self.source,
                "rules": [{"name": r.name, "layer": r.layer, "weight": r.weight, "severity": r.severity.kind,
                           "class": self.compiled.rule_class(r.name), "description": r.description,
                           "text": _clip(r.source, DETAIL_CHARS)} for r in self.policy.rules],
            },
            "tools": list(self.tools),
            "texts": list(self.texts),
            "aggregate": corpus.aggregate(),
            "runs": self.runs,
            "malformed": self.malformed,
            "lint": self.lint,
            "ledger": self.ledger,
            "replayed": self.replayed,
            "limits": {"preview_chars": PREVIEW_CHARS, "runs_without_previews": self.previews_cut},
        }


def _flags(call) -> str:
    """An event's kind in one or two letters: c a call, m a message; u the user's; e failed."""
    return ("m" if call.is_message else "c") + ("u" if call.actor != "assistant" else "") + ("e" if call.error else "")


