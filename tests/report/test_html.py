"""``anonymizer report RELEASE --html`` and ``run --dry-run --html``: the page's figures are
the audit's and :func:`anonymizer.measure.measure_table`'s, its distributions are the source's
and the release's counted by pandas, it names no address, and bad input is a SpecError."""

from __future__ import annotations

import itertools
import json
import re
import shutil
from html.parser import HTMLParser

import duckdb
import numpy as np
import pytest

from anonymizer.cli.report import _audit_table, _versions
from anonymizer.engine.session import Engine
from anonymizer.measure import measure_table
from anonymizer.report import release_page
from anonymizer.report.gather import BINS, TOP, gather
from anonymizer.report.page import number
from anonymizer.report.subject import published_view
from tests.cli.conftest import run_cli
from tests.report.conftest import SPEC

QUASI = ["age", "sex", "race", "marital-status", "education", "native-country", "workclass"]
SENSITIVE = ["occupation", "income"]
PASSED = ["relationship", "capital-gain", "capital-loss", "hours-per-week"]


class Tables(HTMLParser):
    """The rows of each ``<section id=...>``'s tables, as lists of cell texts."""

    def __init__(self, html: str):
        super().__init__()
        self.sections: dict[str, list[list[str]]] = {}
        self.section, self.row, self.cell = None, None, None
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        if tag == "section":
            self.section = dict(attrs)["id"]
            self.sections[self.section] = []
        elif tag == "tr":
            self.row = []
            self.sections[self.section].append(self.row)
        elif tag in ("td", "th") and self.row is not None:
            self.cell = []

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self.cell is not None:
            self.row.append("".join(self.cell).strip())
            self.cell = None
        elif tag == "tr":
            self.row = None

    def handle_data(self, data):
        if self.cell is not None:
            self.cell.append(data)


def declared(models: list[list[str]]) -> list[list[str]]:
    """The rows of the models section's first table (the declared models), without its header."""
    return list(itertools.takewhile(lambda row: row[0] != "sensitive column", models[1:]))


def audit_rows(con) -> list[dict]:
    return _versions(con, _audit_table(con, "db", "_anon_releases"), "db", "adult_demo", None)


def test_the_page_shows_the_audit_and_measure_figures(demo_db, demo_page):
    html = demo_page.read_text()
    tables = Tables(html).sections
    with duckdb.connect(str(demo_db), read_only=True) as con:
        latest = audit_rows(con)[-1]
        measured = measure_table(con, "published.adult", QUASI)
    assert latest["version"] == 2
    models = [[m["model"], number(m["figure"]), "holds"] for m in latest["figures"]["models"]]
    assert [row[:3] for row in declared(tables["models"])] == models
    assert models[0][:2] == ["20-anonymity", "20"]
    with duckdb.connect(str(demo_db), read_only=True) as con:   # every sensitive column, declared on or not
        sensitive = measure_table(con, "published.adult", QUASI, SENSITIVE)["sensitive"]
    start = [row[0] for row in tables["models"]].index("sensitive column")
    assert tables["models"][start + 1:] == [[name, number(s["distinct_l"]), number(s["entropy_l"]),
                                             number(s["recursive_l"]), number(s["t"]),
                                             number(s["homogeneous_classes"])] for name, s in sensitive.items()]
    risk = {row[0]: row[1:] for row in tables["risk"] if len(row) == 8}   # model, 6 figures, population
    for model in ("prosecutor", "journalist"):   # no population: the journalist's are the prosecutor's
        found = measured["risk"][model]
        assert risk[model][:6] == [number(found[c]) for c in ("highest", "lowest", "average", "records_at_risk",
                                                              "classes_at_risk", "share_at_risk")]
    assert risk["prosecutor"][0] == number(measured["risk"]["highest"]) == "0.05"
    assert risk["marketer"][2] == number(measured["risk"]["marketer"]["average"])
    sizes = [[f"{s['min_size']}" + (f"–{s['max_size']}" if s["max_size"] != s["min_size"] else ""),
              number(s["classes"]), number(s["rows"])] for s in measured["class_sizes"]]
    assert tables["classes"][1:] == sizes
    suppressed = {row[0]: row[1] for row in tables["suppressed"]}
    assert suppressed["released rows"] == number(latest["rows_out"]) and suppressed["source rows"] == "32,561"
    assert suppressed["suppressed rows"].startswith(number(latest["suppressed"]))
    loss = {row[0]: row[1] for row in tables["loss"] if len(row) == 2}
    assert loss["ncp"] == number(latest["figures"]["utility"]["ncp"])
    assert set(latest["figures"]["utility"]["ncp_per_qi"]) == set(QUASI)
    assert [row[0] for row in tables["history"][1:]] == ["1", "2"]
    assert "The source table adult is unchanged since this version was published." in html


@pytest.mark.slow
def test_the_page_shows_population_uniqueness_when_asked(demo_db, tmp_path):
    """`--sampling-fraction` adds ARX's population uniqueness estimates of the released rows,
    measure_table's figures; without --html it is refused."""
    out = tmp_path / "page.html"
    ran = run_cli("report", "adult_demo", "--db", demo_db, "--html", out, "--sampling-fraction", "0.01")
    assert ran.exit_code == 0, ran.output
    rows = {row[0]: row[1:] for row in Tables(out.read_text()).sections["risk"] if len(row) == 3}
    with duckdb.connect(str(demo_db), read_only=True) as con:
        found = measure_table(con, "published.adult", QUASI, sampling_fraction=0.01)["risk"]["population_uniqueness"]
    assert rows["Pitman (Hoshino 2001)"] == [number(found["pitman"]), number(found["pitman_share"])]
    assert rows[f"Dankar et al.'s rule (2012): {found['dankar_model']}"] == [number(found["dankar"]),
                                                                             number(found["dankar_share"])]
    alone = run_cli("report", "adult_demo", "--db", demo_db, "--sampling-fraction", "0.01")
    assert alone.exit_code == 2 and "--sampling-fraction: applies to the HTML page" in alone.output


def test_the_page_names_no_address_and_runs_no_script(demo_page):
    html = demo_page.read_text()
    assert "http://" not in html and "https://" not in html and "<script" not in html.lower()
    assert not re.search(r"""(src|href)\s*=\s*["']?(?![#"'])""", html)   # only links inside the page
    # risk, sizes, NCP per QI, each attribute (passed-through ones too), timings, the two versions' history
    assert html.count("<svg") == 3 + len(QUASI) + len(SENSITIVE) + len(PASSED) + 1 + 1
    history = html[html.index('<section id="history">'):]
    assert history.count("<svg") == 1 and "counterfeit rows" in history and "people narrowed" in history


def test_distributions_are_pandas_counts(demo_db):
    """Before (table adult) and after (the v1 snapshot, read through its recorded view) per
    attribute, against pandas: the top values, the rest, and numpy's histogram of age."""
    with duckdb.connect(str(demo_db), read_only=True) as con:
        v1 = audit_rows(con)[0]
        engine = Engine(con)
        released = published_view(engine, v1)
        found = {a["name"]: a for a in gather(engine, released, '"adult"', QUASI, SENSITIVE)["attributes"]}
        source = con.execute("SELECT * FROM adult").df()
        after = con.execute(f"SELECT * FROM {released}").df()
    assert len(after) == v1["rows_out"] == found["sex"]["after"]["rows"]
    for name in QUASI[1:] + SENSITIVE:
        for side, frame in (("before", source), ("after", after)):
            dist, counts = found[name][side], frame[name].value_counts(dropna=False)
            shown = {v["value"]: v["rows"] for v in dist["values"]}
            assert dist["distinct"] == len(counts) and dist["rows"] == len(frame)
            listed = {("(missing)" if k is None or k != k else k): int(n) for k, n in counts.items()}
            others = {k: v for k, v in shown.items() if k.startswith("other (")}
            assert all(listed[k] == v for k, v in shown.items() if k not in others)
            assert len(shown) - len(others) == min(TOP, len(counts))
            assert sum(others.values()) == len(frame) - sum(v for k, v in shown.items() if k not in others)
    hist, _ = np.histogram(source["age"], bins=BINS)
    assert [b["rows"] for b in found["age"]["before"]["bins"]] == list(hist)
    assert found["age"]["after"]["kind"] == "values"   # generalized labels: "40-59", "*", ...


@pytest.mark.slow
def test_an_older_version_reads_its_own_snapshot(demo_db, tmp_path):
    out = tmp_path / "v1.html"
    res = run_cli("report", "adult_demo", "--db", demo_db, "--version", "1", "--html", out, "--spec", SPEC, "--json")
    assert res.exit_code == 0 and json.loads(res.stdout) == {"ok": True, "release": "adult_demo", "version": 1,
                                                             "html": str(out), "for": "custodian"}
    tables = Tables(out.read_text()).sections
    assert tables["models"][1][:2] == ["10-anonymity", "10"]
    risk = {row[0]: row[1:] for row in tables["risk"] if len(row) == 8}
    assert risk["prosecutor"][0] == "0.1"   # v1's k = 10, though the view now shows v2


@pytest.mark.slow
def test_the_audits_spec_text_is_read(demo_db, tmp_path):
    """A version whose audit row holds its spec text needs no --spec (hierarchy paths
    relative to a spec file elsewhere are not read)."""
    db = tmp_path / "copy.duckdb"
    shutil.copy(demo_db, db)
    with duckdb.connect(str(db)) as con:
        con.execute("UPDATE _anon_releases._audit SET spec_text = $t", {"t": SPEC.read_text()})
        con.execute("UPDATE adult SET age = age + 1 WHERE age = 40")   # the source changes
    res = run_cli("report", "adult_demo", "--db", db, "--html", tmp_path / "r.html")
    assert res.exit_code == 0, res.output
    html = (tmp_path / "r.html").read_text()
    assert "The source table adult has changed since this version was published" in html
    assert "k-anonymity, k: 10" in html   # the spec as written


def test_unknown_release_and_missing_spec_are_spec_errors(demo_db, tmp_path):
    res = run_cli("report", "nope", "--db", demo_db, "--html", tmp_path / "x.html", "--spec", SPEC)
    assert res.exit_code == 2 and "RELEASE: is not a release" in res.output
    old = tmp_path / "old.duckdb"   # audit rows written before the audit kept the spec text
    shutil.copy(demo_db, old)
    with duckdb.connect(str(old)) as con:
        con.execute("UPDATE _anon_releases._audit SET spec_text = NULL")
    res = run_cli("report", "adult_demo", "--db", old, "--html", tmp_path / "x.html")
    assert res.exit_code == 2 and "--spec: is needed" in res.output
    res = run_cli("report", "adult_demo", "--db", demo_db, "--version", "9", "--html", tmp_path / "x.html")
    assert res.exit_code == 2 and "has no such version" in res.output
    assert not (tmp_path / "x.html").exists()
    with duckdb.connect(str(old), read_only=True) as con, pytest.raises(Exception, match="--spec"):
        release_page(con, audit_rows(con), audit_rows(con)[0])


@pytest.mark.slow
def test_a_dry_run_page(demo_db, tmp_path):
    db = tmp_path / "dry.duckdb"
    shutil.copy(demo_db, db)
    spec = tmp_path / "spec.yml"
    spec.write_text(SPEC.read_text().replace("csv: arx_adult", f"csv: {SPEC.parent}/arx_adult")
                    .replace("k: 10", "k: 15") + "\nhistory: independent\n")   # a third generalization of one table
    res = run_cli("run", spec, "--db", db, "--dry-run", "--html", tmp_path / "dry.html", "--json")
    assert res.exit_code == 0, res.output
    result = json.loads(res.stdout)
    html = (tmp_path / "dry.html").read_text()
    tables = Tables(html).sections
    assert "Release adult_demo: dry run" in html and "nothing was published" in html
    assert [row[:2] for row in declared(tables["models"])] == [[m["model"], number(m["figure"])]
                                                               for m in result["models"]]
    assert tables["models"][1][0] == "15-anonymity"
    with duckdb.connect(str(db), read_only=True) as con:
        assert [r["version"] for r in audit_rows(con)] == [1, 2]   # nothing published
        assert not con.execute("SELECT count(*) FROM duckdb_views() WHERE view_name LIKE '%report%'").fetchone()[0]
    res = run_cli("run", spec, "--db", db, "--html", tmp_path / "no.html")
    assert res.exit_code == 2 and "--html: reports a dry run" in res.output
