"""Who a report page is for (``anonymizer report RELEASE --html --for``): a recipient's page
holds nothing of the source but totals; a custodian's page finds a source kept in another
database (``--source-db``); dates are binned like numbers; both class counts are explained."""

from __future__ import annotations

import re
import shutil
from datetime import date, datetime, timedelta
from html.parser import HTMLParser

import duckdb
import pytest

from anonymizer.engine.session import Engine
from anonymizer.report.gather import BINS, distribution
from tests.cli.conftest import run_cli
from tests.report.conftest import SPEC
from tests.report.test_html import Tables

pytestmark = pytest.mark.slow   # a module-wide fixture takes seconds (the fast tier leaves it out)


class SvgText(HTMLParser):
    """The texts of the page's inline SVG plots (``svg.fonttype: none`` keeps them text)."""

    def __init__(self, html: str):
        super().__init__()
        self.inside, self.texts = 0, []
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        self.inside += tag == "svg"

    def handle_endtag(self, tag):
        self.inside -= tag == "svg"

    def handle_data(self, data):
        if self.inside and data.strip():
            self.texts.append(data.strip())


def _page(tmp_path, db, *more) -> str:
    out = tmp_path / "page.html"
    res = run_cli("report", "adult_demo", "--db", db, "--html", out, "--spec", SPEC, *more)
    assert res.exit_code == 0, res.output
    return out.read_text()


def _source_panels(html: str) -> list[str]:
    return [t for t in SvgText(html).texts if t.startswith("source:")]


def test_a_recipient_page_holds_no_source_counts(demo_db, demo_page, tmp_path):
    custodian = demo_page.read_text()
    assert "source: 32,561 rows" in _source_panels(custodian)   # what the recipient's page must not show
    recipient = _page(tmp_path, demo_db, "--for", "recipient")
    assert set(_source_panels(recipient)) == {"source: not shown to a recipient"}
    distinct = [row for row in Tables(recipient).sections["loss"] if len(row) == 4][1:]
    assert distinct and all(row[2] == "–" for row in distinct)   # no source column of distinct values
    assert "For a recipient of the release" in recipient and "Keep this page with the source" not in recipient
    # every number on the recipient's page is also on the custodian's (nothing new of the source)
    numbers = set(re.findall(r"\d[\d,]*\.?\d*", re.sub(r"<svg.*?</svg>", "", recipient, flags=re.S)))
    assert numbers <= set(re.findall(r"\d[\d,]*\.?\d*", custodian))


@pytest.mark.slow
def test_a_source_in_another_database(demo_db, tmp_path):
    published = tmp_path / "published.duckdb"
    shutil.copy(demo_db, published)
    with duckdb.connect(str(published)) as con:
        con.execute("DROP TABLE adult")
    apart = _page(tmp_path, published)
    assert set(_source_panels(apart)) == {"source: not in this table"}
    assert "--source-db names the database that holds it" in apart
    joined = _page(tmp_path, published, "--source-db", demo_db)
    assert "source: 32,561 rows" in _source_panels(joined)
    assert "is unchanged since this version was published" in joined
    res = run_cli("report", "adult_demo", "--db", published, "--source-db", demo_db)
    assert res.exit_code == 2 and "--source-db: applies to the HTML page" in res.output


def test_the_two_class_counts_are_explained(demo_page):
    html = demo_page.read_text()
    assert "equivalence classes the algorithm formed" in html and "are one class, as a reader sees them" in html


def test_dates_are_binned_like_numbers():
    con = duckdb.connect()
    con.execute("CREATE TABLE t AS SELECT DATE '2000-01-01' + (i * 7)::INTEGER AS d FROM range(500) AS r(i)")
    found = distribution(Engine(con), '"t"', "d", "DATE")
    assert found["kind"] == "bins" and len(found["bins"]) == BINS and found["rows"] == 500
    last = date(2000, 1, 1) + timedelta(days=7 * 499)
    assert found["bins"][0]["low"] == datetime(2000, 1, 1) and found["bins"][-1]["high"].date() == last
