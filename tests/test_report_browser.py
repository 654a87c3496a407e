"""The HTML report in a real headless browser: Debian's Chromium, driven by Playwright.

The page loads without a console error and without a single network request, the charts are
drawn, the run list filters, sorts and pages, a run's timeline marks the event after which
each broken rule was lost, and a screenshot is kept in `test-artifacts/` for people to look
at. Skipped when Chromium or Playwright is missing, unless POLICYC_REQUIRE_BROWSER is set (CI
sets it: there the test must run).
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from policyc.cli import cli
from test_corpus import corpus_file

pytestmark = pytest.mark.slow  # a browser

ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = ROOT / "test-artifacts"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
         "--disable-sync", "--no-first-run", "--disable-quic"]


def _require():
    missing = []
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        missing.append("playwright (pip install playwright)")
    if CHROMIUM is None:
        missing.append("chromium (apt-get install chromium)")
    if missing:
        if os.environ.get("POLICYC_REQUIRE_BROWSER"):
            pytest.fail("the browser test must run here, but it needs " + " and ".join(missing))
        pytest.skip("needs " + " and ".join(missing))


@pytest.fixture(scope="module")
def browser():
    _require()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        instance = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        yield instance
        instance.close()


@pytest.fixture(scope="module")
def telecom_report(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("pages") / "telecom.html"
    result = CliRunner().invoke(cli, ["report", "examples/telecom.altl", "examples/traces/telecom.json", "-o", str(out)])
    assert result.exit_code == 1, result.output
    return out


def open_page(browser, path: Path):
    page = browser.new_page(viewport={"width": 1300, "height": 1000})
    problems: list[str] = []
    page.on("console", lambda m: problems.append(f"console {m.type}: {m.text}") if m.type in ("error", "warning")
            else None)
    page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
    page.on("request", lambda r: problems.append(f"request: {r.url}") if not r.url.startswith("file:") else None)
    page.goto(path.as_uri())
    page.wait_for_selector("body[data-ready='1']", timeout=30_000)
    return page, problems


def rows(page) -> list[str]:
    return page.locator("#run-table tbody tr td:nth-child(2)").all_inner_texts()


def test_the_report_renders_filters_and_shows_a_timeline(browser, telecom_report):
    page, problems = open_page(browser, telecom_report)
    data = json.loads(page.locator("#policyc-data").text_content())
    assert page.locator("#histogram-svg rect").count() == 11  # ten bins and the runs scoring exactly 1
    assert page.locator("#rule-bars-svg g.rule-row").count() == len(data["policy"]["rules"])
    assert len(rows(page)) == len(data["runs"])

    page.fill("#filter-text", "c4_refuel")  # a rule's name: the runs that break it
    assert rows(page) == ["c4-broken"]
    page.fill("#filter-text", "")
    page.select_option("#filter-label", "FULL")
    assert set(rows(page)) == {r["id"] for r in data["runs"] if r["label"] == "FULL"}
    page.select_option("#filter-label", "")

    page.click("#run-table th[data-key=score]")  # sort by score, lowest first
    scores = [float(s) for s in page.locator("#run-table tbody tr td:nth-child(3)").all_inner_texts()]
    assert scores == sorted(scores) and scores[0] < scores[-1]

    page.fill("#filter-text", "c4-broken")
    page.locator("#run-table tbody tr").first.click()
    run = next(r for r in data["runs"] if r["id"] == "c4-broken")
    (_, lost_at, _), = run["failed"]
    lost = page.locator("#timeline .event.lost")
    assert lost.count() == 1 and lost.get_attribute("data-event") == str(lost_at)
    assert "c4_refuel_at_most_2gb" in lost.inner_text()
    assert "violated (lost at event" in page.inner_text("#run-detail")
    assert page.locator("#decisions tbody tr").count() >= 1  # the gate's refusal, then what it never reached

    ARTIFACTS.mkdir(exist_ok=True)
    shot = ARTIFACTS / "report-telecom.png"
    page.screenshot(path=str(shot), full_page=False)
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 10_000
    assert problems == []
    page.close()


def test_a_large_corpus_is_paged(browser, tmp_path):
    runs = corpus_file(tmp_path / "many.jsonl", 600, seed=4)
    out = tmp_path / "many.html"
    CliRunner().invoke(cli, ["report", "examples/fan_out_fan_in.altl", runs, "-o", str(out), "--no-lint"])
    page, problems = open_page(browser, out)
    assert len(rows(page)) == 50
    assert "page 1 of" in page.inner_text("#page")
    first = rows(page)
    page.click("#next")
    assert len(rows(page)) == 50 and rows(page) != first
    page.select_option("#page-size", "250")
    assert len(rows(page)) == 250
    page.click("#rule-bars-svg g.rule-row >> nth=0")  # a rule's bar lists the runs that break it
    count = page.inner_text("#run-count")
    assert count.endswith("run(s)") and not count.startswith("0 of")
    assert problems == []
    page.close()
