"""``anonymizer report``: what was published, read from the audit table of a database made by
real ``anonymizer run``s; read-only, bound parameters, and clear errors."""

from __future__ import annotations

import re
import json

import duckdb
import pytest

SPEC = ("release: people_k{k}\nsource: {{path: {csv}, table: people}}\n"
        "columns: {{age: quasi, zip: quasi, disease: sensitive}}\n"
        "models: [{{type: k-anonymity, k: {k}}}, {{type: distinct-l-diversity, l: 2, sensitive: disease}}]\n"
        "output: {{view: people{k}}}\n")


@pytest.fixture(scope="module")
def published(tmp_path_factory, invoke):
    """A database holding two releases: people_k5 at versions 1 and 2, people_k3 at version 1."""
    tmp = tmp_path_factory.mktemp("report")
    csv, db = tmp / "p.csv", tmp / "w.duckdb"
    csv.write_text("age,zip,disease\n" + "".join(f"{20 + i % 40},{1000 + i % 9},{['a', 'b', 'c'][i % 3]}\n"
                                                  for i in range(90)))
    for k, extra in ((5, ()), (5, ("--force",)), (3, ())):
        spec = tmp / f"k{k}.yml"
        spec.write_text(SPEC.format(k=k, csv=csv))
        res = invoke("run", spec, "--db", db, "-q", *extra)
        assert res.exit_code == 0, res.output
    return db


def test_one_line_per_release(invoke, published):
    before = published.read_bytes()
    res = invoke("report", "--db", published)
    assert res.exit_code == 0, res.output
    lines = res.output.splitlines()
    assert lines[0] == f"2 release(s) in {published} (audit table _anon_releases._audit):"
    assert lines[1].split() == ["release", "versions", "latest", "view", "rows", "in", "rows", "out", "suppressed",
                                "created"]
    assert [line.split()[:4] for line in lines[2:]] == [["people_k3", "1", "1", "published.people3"],
                                                        ["people_k5", "2", "2", "published.people5"]]
    out = json.loads(invoke("report", "--db", published, "--json").output)
    assert [(r["release"], r["versions"], r["version"], r["rows_in"]) for r in out["releases"]] == [
        ("people_k3", 1, 1, 90), ("people_k5", 2, 2, 90)]
    assert published.read_bytes() == before   # read-only: nothing written


def test_every_version_of_a_release(invoke, published):
    res = invoke("report", "people_k5", "--db", published)
    assert res.exit_code == 0, res.output
    text = res.output
    assert text.startswith("release people_k5: 2 version(s)\nversion 1, ")
    assert "version 2, " in text and "published.people5 (snapshot _anon_releases.people_k5__v2)" in text
    assert text.count("algorithm mondrian; rows 90 in") == 2
    assert text.count("achieved  5-anonymity: ") == 2 and "achieved  distinct-2-diversity on 'disease': " in text
    assert "  utility   " in text and "ncp " in text and "  seconds   " in text and "algorithm " in text
    with duckdb.connect(str(published), read_only=True) as con:
        hashes = [h for (h,) in con.execute("SELECT spec_hash FROM _anon_releases._audit WHERE release = "
                                            "'people_k5' ORDER BY version").fetchall()]
    assert all(f"spec {h}, " in text for h in hashes)
    out = json.loads(invoke("report", "people_k5", "--db", published, "--json").output)
    assert out["release"] == "people_k5" and [v["version"] for v in out["versions"]] == [1, 2]
    assert out["versions"][0]["figures"]["models"][0]["model"] == "5-anonymity"   # JSON columns parsed


def test_one_version_in_full(invoke, published):
    text = invoke("report", "people_k5", "--version", 1, "--db", published).output
    assert text.startswith("release people_k5 version 1, ")
    assert re.search(r"source    [0-9a-f]{32} ", text) and '"models": [' in text and '"suppression_limit"' in text
    full = json.loads(invoke("report", "people_k5", "--version", 1, "--db", published, "--json").output)
    assert full["version"] == 1 and full["release"] == "people_k5" and full["rows_in"] == 90
    assert set(full) >= {"view_name", "snapshot", "spec_hash", "source_fingerprint", "algorithm", "parameters",
                         "figures", "rows_out", "suppressed", "timings", "created_at"}
    assert full["parameters"]["models"] == ["5-anonymity", "distinct-2-diversity on 'disease'"]
    assert full["figures"]["k"] >= 5 and "algorithm" in full["timings"]


@pytest.mark.parametrize("args, message", [
    (["nope"], "RELEASE: is not a release in {db} (its releases: people_k3, people_k5) (got 'nope')"),
    (["x' OR 1=1 --"], "is not a release in"),                       # a bound parameter, never SQL
    (["people_k5", "--version", "9"], "--version: release 'people_k5' has no such version (versions: 1, 2)"),
    (["--version", "1"], "--version: needs a RELEASE"),
    (["--schema", 'a"b'], "table a\"b._audit: is not in {db}: nothing was published into it"),
])
def test_user_errors_exit_2_naming_the_problem(invoke, published, args, message):
    res = invoke("report", *args, "--db", published)
    assert res.exit_code == 2 and message.format(db=published) in res.output, res.output
    assert "Traceback" not in res.output


def test_a_missing_database_or_audit_table(invoke, tmp_path):
    res = invoke("report", "--db", tmp_path / "none.duckdb")
    assert res.exit_code == 2 and "--db " in res.output and "no such database file" in res.output
    assert not (tmp_path / "none.duckdb").exists()
    with duckdb.connect(str(tmp_path / "empty.duckdb")) as con:
        con.execute("CREATE TABLE t AS SELECT 1 AS a")
    res = invoke("report", "--db", tmp_path / "empty.duckdb")
    assert res.exit_code == 2 and "table _anon_releases._audit: is not in" in res.output
    assert "anonymizer run SPEC --db" in res.output
