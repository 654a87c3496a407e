"""The assurance ledger of "Organising trajectory evidence" (§3.1, tables 2-4).

Obligations (deployment, target, applicability, contract) are met or not by typed evidence
from methods: the rule checker (the scorer's App and Viol counts), the gate (exact on a
gated deployment, under stated assumptions), the outcome oracle (the reward recorded with each
run) and evidence imported as JSON from other methods. `assure(compiled, runs, options)`
classifies every obligation as established, addressed but not established, or unaddressed,
with the reason, and reports the gaps, the suite upper bounds over tasks, Prop. 3.4's union
bounds (δ split over the rules), the run-level union of the methods (a method may be made of
some of the policy's rules: `MethodRules`) with their pairwise overlap, and the residual.
Nothing here imports the parser, the checker, lark or z3.

>>> from policyc.automata import compile_policy
>>> from policyc.check import check_file
>>> from policyc.scoring import score_trace
>>> from policyc.trace import load_traces
>>> compiled = compile_policy(check_file("examples/telecom.altl")[0])
>>> traces = load_traces("examples/traces/telecom.json").traces
>>> runs = [run_record(t, score_trace(compiled, t), i) for i, t in enumerate(traces)]
>>> ledger = assure(compiled, runs, Options(deployment="telecom", suite="corpus", gated=("telecom-gated",)))
>>> [(r.rule[:3], r.applicable, r.violated) for r in ledger.rules][6]
('c7_', 4, 1)
>>> [(e.status, e.reason) for e in ledger.entries if e.obligation.target.startswith("c7_")]
[('addressed', 'counterexample'), ('addressed', 'unresolved_assumption')]
"""

from policyc.assure.build import Options, assure, default_obligations
from policyc.assure.imports import EvidenceProblem, ReadEvidence, read_evidence, read_evidence_text
from policyc.assure.ledger import classify, combined_bound, gaps, is_addressed
from policyc.assure.methods import (
    GATE,
    ORACLE,
    OUTCOME,
    OUTSIDE,
    POLICY,
    RULE_CHECKER,
    RunRecord,
    gate_evidence,
    oracle_evidence,
    rule_checker_evidence,
    rule_rows,
    run_record,
)
from policyc.assure.models import (
    Assumption,
    Capability,
    Contract,
    Evidence,
    EvidenceFile,
    Ledger,
    LedgerEntry,
    MethodRules,
    Obligation,
)
from policyc.assure.render import render_markdown, render_text
from policyc.assure.stats import missing_term_bound, overlap, union_bound, upper_bound

__all__ = ["GATE", "ORACLE", "OUTCOME", "OUTSIDE", "POLICY", "RULE_CHECKER", "Assumption", "Capability", "Contract",
           "Evidence", "EvidenceFile", "MethodRules", "EvidenceProblem", "Ledger", "LedgerEntry", "Obligation", "Options", "ReadEvidence",
           "RunRecord", "assure", "classify", "combined_bound", "default_obligations", "gaps", "gate_evidence",
           "is_addressed", "missing_term_bound", "oracle_evidence", "overlap", "read_evidence", "read_evidence_text",
           "render_markdown", "render_text", "rule_checker_evidence", "rule_rows", "run_record", "union_bound",
           "upper_bound"]
