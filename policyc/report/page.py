r"""The report's data as one self-contained HTML page: the template, its style, its script and
the data inlined (`assets/`); nothing is fetched, and the page's content security policy lets
it fetch nothing. The data is embedded as JSON with every `<` escaped, so no text of a trace
can close the script element it sits in; the script sets every text of the data as text.

>>> page = render_page({"policy": {"name": "p"}, "runs": [], "note": "</script><b>"})
>>> page.count("</script>"), r"\u003c/script\u003e\u003cb\u003e" in page
(2, True)
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

ASSETS = Path(__file__).resolve().parent / "assets"


@cache
def _asset(name: str) -> str:
    return (ASSETS / name).read_text(encoding="utf-8")


def embedded_json(data: object) -> str:
    """JSON text safe inside a `<script>` element: `<`, `>` and `&` written as escapes."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def render_page(data: object) -> str:
    """The HTML page of the report's data (`policyc.report.data.ReportBuilder.data()`)."""
    page = _asset("report.html")
    for marker, text in (("/*STYLE*/", _asset("report.css")), ("/*SCRIPT*/", _asset("report.js")),
                         ("/*DATA*/", embedded_json(data))):
        before, found, after = page.partition(marker)
        assert found, marker
        page = before + text + after
    return page
