"""`policyc report`: the page's data is the scorer's, it is self-contained, hostile text stays
text, and a corpus of 10,000 runs makes a page under 20 MB. The page in a real browser is
tests/test_report_browser.py."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from policyc.cli import cli
from test_corpus import corpus_file

TELECOM = "examples/telecom.altl"
TELECOM_RUNS = "examples/traces/telecom.json"
FAN_OUT = "examples/fan_out_fan_in.altl"


def invoke(*args):
    result = CliRunner().invoke(cli, list(args), env={"NO_COLOR": "1", "COLUMNS": "120"})
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in result.output + result.stderr
    return result


def page_data(path) -> dict:
    page = path.read_text(encoding="utf-8")
    found = re.search(r'<script type="application/json" id="policyc-data">(.*?)</script>', page, re.S)
    assert found, "no data in the page"
    return json.loads(found.group(1))


@pytest.fixture(scope="module")
def telecom_page(tmp_path_factory):
    folder = tmp_path_factory.mktemp("report")
    ledger = folder / "ledger.json"
    assert invoke("assure", TELECOM, TELECOM_RUNS, "--format", "json", "-o", str(ledger)).exit_code in (0, 1)
    out = folder / "telecom.html"
    result = invoke("report", TELECOM, TELECOM_RUNS, "-o", str(out), "--ledger", str(ledger))
    assert result.exit_code == 1  # some runs break rules
    return out


@pytest.mark.slow
def test_the_page_shows_what_score_reports(telecom_page):
    data = page_data(telecom_page)
    scored = json.loads(invoke("score", TELECOM, TELECOM_RUNS, "--format", "json").stdout)
    assert data["aggregate"] == {k: v for k, v in scored.items() if k != "reports"}
    rules = [r["name"] for r in data["policy"]["rules"]]
    assert len(data["runs"]) == len(scored["reports"])
    for run, report in zip(data["runs"], scored["reports"]):
        assert (run["score"], run["label"]) == (report["compliance_score"], report["compliance_label"])
        failed = [(c["name"], c["violated_at"], c["detail"]) for c in report["constraints"] if not c["passed"]]
        assert [(rules[i], at, data["texts"][detail]) for i, at, detail in run["failed"]] == failed
        assert [rules[i] for i in run["vacuous"]] == [c["name"] for c in report["constraints"] if c["vacuous"]]
        assert [data["tools"][e[0]] for e in run["events"]] == report["tool_sequence"]  # the policy's view


def test_the_page_shows_the_gates_decisions_and_the_ledger(telecom_page):
    data = page_data(telecom_page)
    replayed = json.loads(invoke("replay", TELECOM, TELECOM_RUNS, "--format", "json").stdout)
    assert data["replayed"] is True
    letters = {"allow": "a", "warn": "w", "block": "b", "stop": "s", "not reached": "n"}
    for run, trace in zip(data["runs"], replayed["traces"]):  # every decision but the plain allows
        assert [(d[0] + 1, d[1], bool(d[3])) for d in run["decisions"]] == [
            (s["step"], letters[s["action"]], s["counterfactual"]) for s in trace["steps"]
            if s["action"] != "allow" or s["rules"] or s["counterfactual"]]
    assert any(run["decisions"] for run in data["runs"])
    assert data["ledger"]["policy"] == "telecom" and data["ledger"]["entries"]
    assert data["lint"] == []  # the example lints clean


def test_the_page_needs_no_network(telecom_page):
    page = telecom_page.read_text(encoding="utf-8")
    assert "Content-Security-Policy" in page and "default-src 'none'" in page
    assert not re.search(r'<(script|link|img|iframe)[^>]+(src|href)=', page)
    assert "url(" not in page
    assert not re.search(r"https?://(?!www\.w3\.org/2000/svg)", page)  # the SVG namespace is a name, not a fetch


def test_hostile_text_in_a_trace_stays_text(tmp_path):
    evil = "</script><img src=x onerror=alert(1)><!--"
    trace = tmp_path / "evil.jsonl"
    trace.write_text(json.dumps({"id": evil, "tool_calls": [{"tool_name": "tool_a", "arguments": {"x": evil},
                                                             "tool_result": evil}]}) + "\n", encoding="utf-8")
    out = tmp_path / "evil.html"
    invoke("report", FAN_OUT, str(trace), "-o", str(out))
    page = out.read_text(encoding="utf-8")
    assert page.count("</script>") == 2 and "<img" not in page and "<!--" not in page
    data = page_data(out)
    assert data["runs"][0]["id"] == evil and evil in data["runs"][0]["events"][0][2]
    script = Path("policyc/report/assets/report.js").read_text(encoding="utf-8")
    assert "innerHTML" not in script and "insertAdjacentHTML" not in script and "eval(" not in script


def test_malformed_records_are_listed_and_the_rest_is_shown(tmp_path):
    out = tmp_path / "mixed.html"
    result = invoke("report", FAN_OUT, "tests/fixtures/traces/mixed_records.jsonl", "-o", str(out), "--no-replay")
    assert result.exit_code == 2
    data = page_data(out)
    assert data["malformed"] and data["runs"]
    assert data["aggregate"]["records"] == len(data["runs"]) + len(data["malformed"])
    assert data["replayed"] is False and "decisions" not in data["runs"][0]


def test_an_artifact_makes_a_page_without_lint(tmp_path):
    artifact = tmp_path / "fan.policy.json"
    assert invoke("compile", FAN_OUT, "-o", str(artifact)).exit_code == 0
    out = tmp_path / "fan.html"
    assert invoke("report", str(artifact), "examples/traces/appendix_b.json", "-o", str(out)).exit_code == 0
    assert page_data(out)["lint"] is None


def test_inputs_and_policies_are_never_written_over(tmp_path):
    policy = tmp_path / "p.altl"
    policy.write_text(open(FAN_OUT, encoding="utf-8").read(), encoding="utf-8")
    result = invoke("report", str(policy), "examples/traces/appendix_b.json", "-o", str(policy))
    assert result.exit_code == 2 and "refusing to write over" in result.stderr
    bad_ledger = tmp_path / "ledger.json"
    bad_ledger.write_text("[1, 2]", encoding="utf-8")
    result = invoke("report", FAN_OUT, "examples/traces/appendix_b.json", "-o", str(tmp_path / "x.html"),
                    "--ledger", str(bad_ledger))
    assert result.exit_code == 2 and "is not a ledger" in result.stderr


@pytest.mark.parametrize("ledger, problem", [
    ('{"entries": [], "confidence": NaN}', "`NaN` is not a JSON number"),
    ('{"entries": [null]}', "`entries` is not a list of objects"),
    ('{"entries": "abc"}', "it is not an object with a list of `entries`"),
    ('{"entries": [], "rules": [null]}', "`rules` is not a list of objects"),
    ('{"entries": [], "rules": "x"}', "`rules` is not a list of objects"),
    ('{"entries": [], "runs": "7"}', "`runs` is not a number"),
    ('{"entries": [], "residual": [1]}', "`residual` is not an object"),
    ("[]", "it is not an object with a list of `entries`"),
], ids=["nan", "null-entry", "entries-text", "null-rule", "rules-text", "runs-text", "residual-list", "list"])
def test_a_ledger_the_page_cannot_show_is_an_input_error_and_the_page_is_still_written(tmp_path, ledger, problem):
    """Found by a blind sweep: NaN in a ledger ended the command with exit 3; `[null]` where the
    page reads objects was accepted and the page's script then failed, leaving the run list
    empty; a ledger that was not one wrote no page, though cli.md says the page is written."""
    path = tmp_path / "ledger.json"
    path.write_text(ledger, encoding="utf-8")
    out = tmp_path / "page.html"
    result = invoke("report", FAN_OUT, "examples/traces/appendix_b.json", "-o", str(out), "--ledger", str(path))
    assert result.exit_code == 2 and problem in result.stderr, result.stderr
    data = page_data(out)
    assert data["ledger"] is None and data["runs"]


@pytest.mark.slow
def test_ten_thousand_runs_make_a_page_under_20_mb(tmp_path):
    runs = corpus_file(tmp_path / "many.jsonl", 10_000, seed=9)
    out = tmp_path / "many.html"
    result = invoke("report", FAN_OUT, runs, "-o", str(out), "--no-replay", "--no-lint")
    assert result.exit_code == 2  # the generated corpus holds malformed records
    assert out.stat().st_size < 20 * 1024 * 1024, f"{out.stat().st_size:,} bytes"
    data = page_data(out)
    assert len(data["runs"]) + len(data["malformed"]) == 10_000
