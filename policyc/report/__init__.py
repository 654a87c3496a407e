"""The HTML report: runs, rules, lint findings, the ledger and the gate's decisions, in one page.

`policyc report POLICY TRACES... -o report.html` scores the traces (as `policyc score`),
optionally lints the policy, replays the runs through the gate and reads a ledger of
`policyc assure --format json`, and writes one self-contained page (`render_page`): per-rule
compliance bars and violation counts, the score distribution, a sortable, filterable and
paginated list of runs, each run's timeline of events with the event after which each broken
rule was lost and its explanation, the gate's decision at each call, the lint findings and
the ledger. The page needs no network and no library; its data is built by `ReportBuilder`.
"""

from policyc.report.data import ReportBuilder
from policyc.report.page import render_page

__all__ = ["ReportBuilder", "render_page"]
