"""End-to-end releases: publishing, idempotency, verification gate, bad input, quoting."""

from __future__ import annotations

import pytest

from anonymizer import anonymize
from anonymizer.errors import DataError, PrivacyCheckFailed, SpecError
from anonymizer.spec.parse import load_spec

WEIRD = {  # column names that need quoting: a keyword, a space, a quote
    "release": "weird",
    "source": {"table": "my table"},
    "columns": {"select": {"role": "quasi", "type": "numeric"}, "my col": "quasi", 'a"b': "sensitive",
                "ssn": "identifier", "note": "insensitive"},
    "models": [{"type": "k-anonymity", "k": 3}, {"type": "distinct-l-diversity", "l": 2, "sensitive": 'a"b'}],
}


def make_weird(con, rows: int = 60):
    con.execute(f"""
        CREATE TABLE "my table" AS
        SELECT (20 + i % 40) AS "select", 'z' || (i % 7)::VARCHAR AS "my col",
               ['flu', 'cold', 'hiv', 'cancer'][1 + (i * 7) % 4] AS "a""b",
               i AS ssn, 'n' || i::VARCHAR AS note
        FROM range({rows}) t(i)""")


def work_schemas(con) -> int:
    return con.execute("SELECT count(*) FROM duckdb_databases() WHERE database_name LIKE '_anon_work_%'").fetchone()[0]


def source_hash(con, name='"my table"'):
    return con.execute(f"SELECT count(*), sum(hash(t)) FROM {name} AS t").fetchone()


def test_weird_names_publish_and_verify(con):
    make_weird(con)
    before = source_hash(con)
    r = anonymize(WEIRD, con)
    assert r.version == 1 and r.view == "published.weird" and not r.unchanged
    cols = [c[0] for c in con.execute("DESCRIBE published.weird").fetchall()]
    assert cols == ["eq_class", "select", "select_low", "select_high", "my col", 'a"b', "note"]
    classes = [c[0] for c in con.execute('DESCRIBE published."weird_classes"').fetchall()]
    assert classes == ["eq_class", "class_size", "select", "select_low", "select_high", "select_level",
                       "my col", "my col_level", "my col_values", "my col_count"]
    assert "ssn" not in cols
    k = con.execute('SELECT min(n) FROM (SELECT count(*) n FROM published.weird GROUP BY "select", "my col")').fetchone()[0]
    assert k >= 3 and r.measures["k"] == k
    l = con.execute('SELECT min(n) FROM (SELECT count(DISTINCT "a""b") n FROM published.weird '
                    'GROUP BY "select", "my col")').fetchone()[0]
    assert l >= 2
    assert source_hash(con) == before, "the source must never be modified"
    assert work_schemas(con) == 0, "work tables must be dropped"
    audit = con.execute('SELECT release, version, rows_in, rows_out, suppressed FROM _anon_releases._audit').fetchall()
    assert audit == [("weird", 1, 60, 60, 0)]


def test_rerun_is_idempotent_and_changes_make_a_new_version(con):
    make_weird(con)
    first = anonymize(WEIRD, con)
    again = anonymize(WEIRD, con)
    assert again.unchanged and again.version == first.version == 1
    assert con.execute("SELECT count(*) FROM _anon_releases._audit").fetchone()[0] == 1
    con.execute('INSERT INTO "my table" VALUES (33, \'z1\', \'flu\', 1000, \'new\')')
    with pytest.raises(PrivacyCheckFailed, match="across versions"):   # the joiner's box would give it away
        anonymize(WEIRD, con)
    changed = anonymize(dict(WEIRD, history="independent"), con)
    assert not changed.unchanged and changed.version == 2 and changed.rows_in == 61
    spec = dict(WEIRD, models=[{"type": "k-anonymity", "k": 4}], history="independent")
    assert anonymize(spec, con).version == 3
    assert con.execute('SELECT count(*) FROM _anon_releases."weird__v1"').fetchone()[0] == 60


def test_failing_release_publishes_nothing_and_keeps_previous(con):
    make_weird(con)
    anonymize(WEIRD, con)
    before = con.execute("SELECT count(*), sum(hash(t)) FROM published.weird t").fetchone()
    impossible = dict(WEIRD, models=[{"type": "distinct-l-diversity", "l": 5, "sensitive": 'a"b'}])
    with pytest.raises(PrivacyCheckFailed):
        anonymize(impossible, con)
    assert con.execute("SELECT count(*), sum(hash(t)) FROM published.weird t").fetchone() == before
    assert con.execute("SELECT max(version) FROM _anon_releases._audit").fetchone()[0] == 1
    assert work_schemas(con) == 0


def test_full_domain_over_suppression_limit_fails(con):
    make_weird(con)
    spec = dict(WEIRD, algorithm={"name": "full-domain", "levels": {"select": 0, "my col": 0}},
                suppression_limit=0.0)
    with pytest.raises(PrivacyCheckFailed) as err:
        anonymize(spec, con)
    assert "nothing was published" in str(err.value)
    assert con.execute("SELECT count(*) FROM duckdb_views() WHERE schema_name = 'published'").fetchone()[0] == 0


@pytest.mark.parametrize("setup,spec_change,error,text", [
    ("CREATE TABLE t AS SELECT 1 AS a, 'x' AS b WHERE false", {}, DataError, "empty"),
    ("CREATE TABLE t AS SELECT range AS a, 'x' AS b FROM range(3)", {}, SpecError, "larger than the table"),
    ("CREATE TABLE t AS SELECT range AS a, 'x' AS b FROM range(10)", {"columns": {"a": "quasi", "c": "sensitive"}},
     SpecError, "is not a column"),
    ("CREATE TABLE t AS SELECT range AS a, 'x' AS b, 1 AS extra FROM range(10)", {}, SpecError, "has no role"),
    ("CREATE TABLE t AS SELECT 'x' || range AS a, 'x' AS b FROM range(10)",
     {"columns": {"a": {"role": "quasi", "type": "numeric"}, "b": "sensitive"}}, SpecError, "numeric but"),
    ("CREATE TABLE t AS SELECT CASE WHEN range = 3 THEN NULL ELSE range END AS a, 'x' AS b FROM range(10)", {},
     DataError, "NULLs in a (1 NULLs)"),
    ("CREATE TABLE other AS SELECT 1 AS a", {}, DataError, "does not exist"),
    # before: published as classes labelled 'nan' and 'inf'
    ("CREATE TABLE t AS SELECT CASE range WHEN 3 THEN 'nan'::DOUBLE WHEN 4 THEN '-inf'::DOUBLE ELSE range END AS a, "
     "'x' AS b FROM range(10)", {}, DataError, "NaN or infinity in a (2 rows)"),
])
def test_bad_input_is_a_clear_error(con, setup, spec_change, error, text):
    con.execute(setup)
    spec = {"release": "bad", "source": {"table": "t"}, "columns": {"a": "quasi", "b": "sensitive"},
            "models": [{"type": "k-anonymity", "k": 5}], **spec_change}
    with pytest.raises(error) as err:
        anonymize(spec, con)
    assert text in str(err.value)
    assert con.execute("SELECT count(*) FROM duckdb_views() WHERE schema_name = 'published'").fetchone()[0] == 0
    assert work_schemas(con) == 0


def test_null_policy_suppress_counts_rows(con):
    con.execute("CREATE TABLE t AS SELECT CASE WHEN range < 2 THEN NULL ELSE range END AS a, "
                "'v' || (range % 3)::VARCHAR AS b FROM range(40)")
    spec = {"release": "n", "source": {"table": "t"}, "columns": {"a": "quasi", "b": "sensitive"},
            "models": [{"type": "k-anonymity", "k": 5}], "nulls": "suppress", "suppression_limit": 0.05}
    r = anonymize(spec, con)
    assert (r.rows_in, r.rows_out, r.suppressed) == (40, 38, 2)
    with pytest.raises(DataError, match="more than suppression_limit"):
        anonymize(dict(spec, suppression_limit=0.01, release="n2"), con)


def test_csv_source_is_loaded(con, tmp_path):
    path = tmp_path / "people.csv"
    path.write_text("age,sex,disease\n" + "".join(f"{20 + i % 30},{'MF'[i % 2]},{['a', 'b', 'c'][i % 3]}\n"
                                                   for i in range(50)))
    spec = load_spec({"release": "csv", "source": {"path": str(path), "table": "people"},
                      "columns": {"age": "quasi", "sex": "quasi", "disease": "sensitive"},
                      "models": [{"type": "k-anonymity", "k": 5}]})
    r = anonymize(spec, con)
    assert r.rows_in == 50 and r.measures["k"] >= 5
