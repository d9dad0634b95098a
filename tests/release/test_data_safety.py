"""Data safety of issue 15: file and DataFrame sources touch nothing, killed runs leave no
work state, individuals are suppressed whole, seeds stay in range."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import duckdb
import yaml
import pandas as pd
import pytest

from anonymizer import anonymize
from anonymizer.errors import SpecError
from anonymizer.spec.parse import load_spec

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
ADULT_CSV = Path(__file__).resolve().parents[2] / "anonymizer" / "data" / "arx_adult" / "adult.csv.gz"

SPEC = {"release": "people_k5", "columns": {"age": {"role": "quasi", "type": "numeric"}, "sex": "quasi",
                                           "disease": "sensitive", "email": "identifier", "name": "identifier"},
        "models": [{"type": "k-anonymity", "k": 5}]}


def raw_rows(n: int = 200) -> pd.DataFrame:
    return pd.DataFrame({"name": [f"Person {i}" for i in range(n)], "email": [f"p{i}@example.org" for i in range(n)],
                         "age": [20 + i % 40 for i in range(n)], "sex": ["MF"[i % 2] for i in range(n)],
                         "disease": [["flu", "cold", "hiv"][i % 3] for i in range(n)]})


def tables(con) -> set[tuple[str, str]]:
    return {(s, t) for s, t in con.execute("SELECT schema_name, table_name FROM duckdb_tables()").fetchall()}


def text_anywhere(con, needle: str) -> list[str]:
    """Every table.column of the database holding ``needle`` somewhere in its text."""
    found = []
    for schema, name, col in con.execute(
            "SELECT schema_name, table_name, column_name FROM duckdb_columns() WHERE data_type = 'VARCHAR' "
            "AND NOT internal").fetchall():
        q = f'SELECT count(*) FROM "{schema}"."{name}" WHERE "{col}" LIKE $n'
        if con.execute(q, {"n": f"%{needle}%"}).fetchone()[0]:
            found.append(f"{schema}.{name}.{col}")
    return found


def test_a_file_source_replaces_no_table_and_leaves_no_raw_column(tmp_path):
    csv = tmp_path / "people.csv"
    raw_rows().to_csv(csv, index=False)
    db = str(tmp_path / "w.duckdb")
    with duckdb.connect(db) as con:
        con.execute("CREATE TABLE people AS SELECT 'keep me' AS note")        # a warehouse table of that name
        before = tables(con)
        result = anonymize(dict(SPEC, source={"path": str(csv), "table": "people"}), con)
        assert con.execute("SELECT * FROM people").fetchall() == [("keep me",)]
        assert tables(con) - before == {("_anon_releases", "people_k5__v1"), ("_anon_releases", "people_k5__v1__classes"),
                                          ("_anon_releases", "_audit"),
                                          ("_anon_releases", "_classes")}   # what the version published, per class
        assert text_anywhere(con, "@example.org") == [] and text_anywhere(con, "Person 1") == []
        assert con.execute(f"SELECT count(*) FROM {result.view}").fetchone()[0] == 200
        again = anonymize(dict(SPEC, source={"path": str(csv), "table": "people"}), con)
        assert again.unchanged                                                # the file's content is fingerprinted


def test_a_dataframe_source_writes_only_the_release():
    con = duckdb.connect()
    con.execute("CREATE TABLE people AS SELECT 'keep me' AS note")
    result = anonymize(dict(SPEC, source={"table": "people"}), con, data=raw_rows())
    assert con.execute("SELECT * FROM people").fetchall() == [("keep me",)]
    assert text_anywhere(con, "@example.org") == []
    assert con.execute(f"SELECT count(*) FROM {result.view}").fetchone()[0] == 200


def test_no_work_state_in_the_database_after_a_release(tmp_path):
    db = str(tmp_path / "w.duckdb")
    with duckdb.connect(db) as con:
        con.register("f", raw_rows())
        con.execute("CREATE TABLE people AS SELECT * FROM f")
        anonymize(dict(SPEC, source={"table": "people"}), con)
        assert {s for s, _ in tables(con)} == {"main", "_anon_releases"}
        assert not con.execute("SELECT * FROM duckdb_databases() WHERE database_name LIKE '_anon_work_%'").fetchall()


KILLED = textwrap.dedent("""
    import sys, duckdb
    from anonymizer import anonymize
    con = duckdb.connect(sys.argv[1])
    print("started", flush=True)
    anonymize({"release": "big", "source": {"table": "big"}, "default_role": "identifier",
               "columns": {"a": {"role": "quasi", "type": "numeric"}, "b": {"role": "quasi", "type": "numeric"},
                           "c": "quasi", "s": "sensitive"},
               "models": [{"type": "k-anonymity", "k": 3}, {"type": "distinct-l-diversity", "l": 2, "sensitive": "s"}]},
              con)
""")


@pytest.mark.parametrize("after", [0.3, 1.0, 2.0])
def test_a_killed_release_leaves_no_work_state(tmp_path, after):
    """SIGKILL a release at some point of its run: the database file holds the source and, at
    most, a complete publication; never work tables."""
    db = str(tmp_path / "w.duckdb")
    with duckdb.connect(db) as con:
        con.execute("CREATE TABLE big AS SELECT i AS id, i % 97 AS a, (i * 7) % 89 AS b, 'c' || (i % 13) AS c, "
                    "'s' || (i % 5) AS s FROM range(300000) t(i)")
    proc = subprocess.Popen([sys.executable, "-c", KILLED, db], stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "started"
    time.sleep(after)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    with duckdb.connect(db) as con:
        schemas = {s for s, _ in tables(con)}
        assert schemas <= {"main", "_anon_releases"}, schemas
        assert {t for s, t in tables(con) if s == "main"} == {"big"}


def test_stale_work_schemas_of_earlier_versions_are_dropped(tmp_path):
    db = str(tmp_path / "w.duckdb")
    with duckdb.connect(db) as con:
        con.register("f", raw_rows())
        con.execute("CREATE TABLE people AS SELECT * FROM f")
        con.execute('CREATE SCHEMA "_anon_work_0123456789"')
        con.execute('CREATE TABLE "_anon_work_0123456789".base AS SELECT * FROM people')
        con.execute('CREATE SCHEMA "_anon_work_notours"')        # not the pattern: left alone
        anonymize(dict(SPEC, source={"table": "people"}), con)
        schemas = {r[0] for r in con.execute("SELECT schema_name FROM duckdb_schemas()").fetchall()}
        assert "_anon_work_0123456789" not in schemas and "_anon_work_notours" in schemas


def test_nulls_suppress_drops_a_whole_individual():
    con = duckdb.connect()
    rows = [(f"p{p}", 30 + p % 5, "z1" if p % 2 else "z2", ["flu", "cold", "hiv", "gout"][(p + r) % 4])
            for p in range(40) for r in range(1 + p % 3)]
    con.execute("CREATE TABLE recs (name VARCHAR, age INTEGER, zip VARCHAR, disease VARCHAR)")
    con.executemany("INSERT INTO recs VALUES (?, ?, ?, ?)", rows)
    con.execute("UPDATE recs SET disease = NULL WHERE name = 'p5' AND disease = 'cold'")   # p5 has 3 records
    con.execute("UPDATE recs SET zip = NULL WHERE name = 'p8' AND disease = 'hiv'")        # p8 has 3 records
    result = anonymize({"release": "ir", "source": {"table": "recs"}, "nulls": "suppress", "suppression_limit": 0.5,
                        "columns": {"name": "individual", "age": {"role": "quasi", "type": "numeric"}, "zip": "quasi",
                                    "disease": "sensitive"},
                        "models": [{"type": "ir-k-anonymity", "k": 2}], "algorithm": {"name": "danonyir", "seed": 1}},
                       con)
    out = con.execute(f"SELECT count(*), count(DISTINCT id_num) FROM {result.view}").fetchone()
    assert result.rows_in == len(rows) and out == (len(rows) - 6, 38)       # p5 and p8 gone, all their records
    assert result.suppressed == 6


@pytest.mark.parametrize("seed", [2 ** 63, 2 ** 64, -1])
def test_seeds_out_of_range_are_refused(seed):
    with pytest.raises(SpecError, match="algorithm.seed"):
        load_spec(dict(SPEC, source={"table": "t"}, algorithm={"name": "lgb-mdp", "seed": seed}))


def test_the_largest_seed_runs():
    con = duckdb.connect()
    result = anonymize(dict(SPEC, source={"table": "people"}, algorithm={"name": "mondrian", "relaxed": True,
                                                                         "seed": 2 ** 63 - 1}), con, data=raw_rows())
    assert result.rows_out == 200


def test_a_snapshot_that_lost_a_row_is_not_published(monkeypatch):
    """The snapshot is compared with the verified candidate before promotion
    (publish/multiset.sql.j2): a copy one row short fails the release and publishes nothing."""
    from anonymizer.engine.session import Engine
    from anonymizer.errors import AnonymizerError
    write = Engine.write_counted

    def short(self, template, counted, reading, **context):
        figures = write(self, template, counted, reading, **context)
        self.execute(f"DELETE FROM {context['snapshot']} WHERE rowid = (SELECT min(rowid) FROM {context['snapshot']})")
        return figures

    con = duckdb.connect()
    monkeypatch.setattr(Engine, "write_counted", short)
    with pytest.raises(AnonymizerError, match=r"differs from the verified candidate \(1 rows missing"):
        anonymize(dict(SPEC, source={"table": "people"}), con, data=raw_rows())
    assert con.execute("SELECT count(*) FROM duckdb_views() WHERE NOT internal AND view_name = 'people_k5'").fetchone()[0] == 0
    assert not [t for s, t in tables(con) if t.startswith("people_k5__v")]


def test_a_view_with_a_column_named_as_an_internal_row_id_is_released_row_for_row():
    """The review's F1, outside DP: a view's rows were numbered by a source column that bore
    the DP covered view's row-id name (7 in every row): an anatomy release of 3,000 rows
    published 9,000,000. A view's rows are numbered by row_number() whatever its columns are
    called."""
    spec = yaml.safe_load((EXAMPLES / "adult_msb.yml").read_text())
    spec.update(source={"table": "adult"}, suppression_limit=0.5)
    con = duckdb.connect()
    con.execute(f"CREATE TABLE a0 AS SELECT *, 7 AS __anon_source_rowid FROM read_csv('{ADULT_CSV}', delim=';', "
                "header=true) LIMIT 3000")
    con.execute("CREATE VIEW adult AS SELECT * FROM a0")
    r = anonymize(spec, con)
    assert con.execute(f"SELECT count(*) FROM {r.view}").fetchone()[0] == 3000 - r.suppressed
