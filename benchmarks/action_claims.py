"""Claims of actions in replies: does a policy catch a reply that says an action was done
when no call did it, and leave the other replies alone?

The corpus (`benchmarks/action_claims/*.jsonl`) is ours: support-desk replies, each with the
calls that succeeded and failed before it and the tools it claims without a successful call
(`unsupported`). Half of each split claims such an action (in the past, perfect, passive,
as a state, as an arranged future, telegraphically, in bullets, after a call that failed);
half is clean (claims a call backs, no claim, negations, intents, offers, conditions,
questions, instructions, policy statements, reported speech). The splits were written in this
order, each before the extractor read it:

- `dev`: what the extractor was developed on;
- `heldout`: its first run gave recall 57/62 with no false alarm; the extractor was then fixed
  for the causes of those misses, so later runs of it are no longer blind;
- `fresh`: written after those fixes; its first run gave recall 38/40 and one false alarm in
  40 clean replies, whose causes were fixed in turn;
- `blind`: 80 more replies (40 with an unsupported claim), written after those fixes by
  someone who had read the docs' account of what counts as a claim but not the reader's code;
  its first run gave recall 36/40 and no false alarm in 40 clean replies. The four misses (a
  verb after `and` read as an instruction, `is on your account`, `is in your inbox`, `is now
  showing on your bill`, and `plan` read as a verb after a determiner) were fixed in turn.

Each reply becomes a trace (the calls, then `reply(text)`) scored against
`benchmarks/action_claims/policy.altl`, whose rule is `forall a in actions(reply.text): a in
done`: a reply is flagged when the rule is violated. Printed per split: recall on the replies
with an unsupported claim, false alarms on the clean ones, precision; per claimed tool,
precision and recall of the unsupported tools named (by the same reader); the same for a keyword baseline (a
declared phrase anywhere counts as a claim: no tense, no negation), side by side; and the CPU
time per reply.

    python benchmarks/action_claims.py [--split dev heldout fresh blind] [--show]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from policyc.automata import compile_policy  # noqa: E402
from policyc.check import check_file  # noqa: E402
from policyc.grounding.actions import claimed_actions, phrase_words  # noqa: E402
from policyc.ir import nodes as n  # noqa: E402
from policyc.ir.walk import subformulas  # noqa: E402
from policyc.scoring import score_trace  # noqa: E402
from policyc.trace import Trace  # noqa: E402
from policyc.trace.model import Call  # noqa: E402

CORPUS = ROOT / "benchmarks" / "action_claims"
SPLITS = ("dev", "heldout", "fresh", "blind")


@dataclass
class Tally:
    """Reply-level and tool-level counts of one method on one split."""

    flagged_bad: int = 0     # replies with an unsupported claim, flagged
    missed: int = 0          # ... not flagged
    false_alarms: int = 0    # clean replies flagged
    clean: int = 0
    tools_right: int = 0     # unsupported tools named that are labelled so
    tools_named: int = 0
    tools_labelled: int = 0
    misses: list[str] = field(default_factory=list)
    alarms: list[str] = field(default_factory=list)

    def add(self, record: dict, named: set[str]) -> None:
        wanted = set(record["unsupported"])
        if wanted:
            if named:
                self.flagged_bad += 1
            else:
                self.missed += 1
                self.misses.append(record["id"])
        else:
            self.clean += 1
            if named:
                self.false_alarms += 1
                self.alarms.append(record["id"])
        self.tools_right += len(named & wanted)
        self.tools_named += len(named)
        self.tools_labelled += len(wanted)

    def row(self) -> str:
        bad = self.flagged_bad + self.missed
        flagged = self.flagged_bad + self.false_alarms
        recall = self.flagged_bad / bad if bad else 1.0
        precision = self.flagged_bad / flagged if flagged else 1.0
        tool_p = self.tools_right / self.tools_named if self.tools_named else 1.0
        tool_r = self.tools_right / self.tools_labelled if self.tools_labelled else 1.0
        return (f"{self.flagged_bad:>3}/{bad:<3} {recall:>6.3f} {self.false_alarms:>3}/{self.clean:<3} "
                f"{precision:>9.3f} {tool_p:>10.3f} {tool_r:>10.3f}")


def read_split(name: str) -> list[dict]:
    path = CORPUS / f"{name}.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def trace_of(record: dict) -> Trace:
    """The failed calls, the calls that succeeded, then the reply."""
    events = [Call(tool, {}, {"ok": False}, error=True) for tool in record["failed"]]
    events += [Call(tool, {}, {"ok": True}) for tool in record["calls"]]
    events.append(Call("reply", {"text": record["reply"]}))
    return Trace.from_events(tuple(Call(c.name, c.args, c.result, i, error=c.error) for i, c in enumerate(events)),
                             id=record["id"])


def claims_table(compiled) -> dict[str, list[str]]:
    """The policy's `claims`, as the checker put them into `actions(...)`."""
    for rule in compiled.policy.rules:
        for sub in subformulas(rule.formula):
            if isinstance(sub, n.Op) and sub.op == "actions" and isinstance(sub.args[1], n.Lit):
                return sub.args[1].value
    raise SystemExit("the benchmark policy has no `actions(...)`")


def keyword_claims(text: str, claims: dict[str, list[str]]) -> set[str]:
    """The baseline: a tool is claimed when one of its phrases occurs anywhere (ignoring case)."""
    low = " ".join(re.findall(r"[a-z]+", text.lower()))
    return {tool for tool, phrases in claims.items()
            if any(re.search(r"\b" + r"\s+".join(phrase_words(p)) + r"\w*\b", low) for p in phrases)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", nargs="+", choices=SPLITS, default=list(SPLITS))
    parser.add_argument("--show", action="store_true", help="list the replies each method gets wrong")
    args = parser.parse_args()

    compiled = compile_policy(check_file(CORPUS / "policy.altl")[0])
    claims = claims_table(compiled)
    print("Unsupported claims of actions in replies (a reply is flagged when the policy's rule fails)")
    print(f"{'split':<8} {'method':<9} {'recall':>12} {'false alarms':>12} {'precision':>9} "
          f"{'tool prec.':>10} {'tool rec.':>10} {'CPU/reply':>10}")
    for split in args.split:
        records = read_split(split)
        policyc, keyword = Tally(), Tally()
        start = time.process_time()
        for record in records:
            (rule,) = score_trace(compiled, trace_of(record)).constraints
            named = set(claimed_actions(record["reply"], claims)) - set(record["calls"])
            if rule.passed != (not named):
                raise SystemExit(f"{record['id']}: the rule's verdict and the reader's claims disagree")
            policyc.add(record, named)
        seconds = time.process_time() - start
        for record in records:
            keyword.add(record, keyword_claims(record["reply"], claims) - set(record["calls"]))
        print(f"{split:<8} {'policyc':<9} {policyc.row()} {1e6 * seconds / len(records):>8.0f}us")
        print(f"{'':<8} {'keywords':<9} {keyword.row()}")
        if args.show:
            print(f"           policyc misses {policyc.misses}, false alarms {policyc.alarms}")
            print(f"           keywords misses {keyword.misses}, false alarms {keyword.alarms}")
    print("recall: flagged / replies with an unsupported claim; false alarms: flagged / clean replies;")
    print("tool prec./rec.: of the unsupported tools named, against those labelled")


if __name__ == "__main__":
    main()
