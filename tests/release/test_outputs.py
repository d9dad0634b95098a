"""Outputs where the user wants them (issue 16): ``output.database`` publishes into another
DuckDB file, attached for the run, while the source's database is only read; ``output.export``
and ``anonymizer run --export`` copy the verified, published snapshot to Parquet or CSV.

Every check of the attached case is made from a fresh connection to the output file, as a
reader of the published data would open it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest
from click.testing import CliRunner

from anonymizer import anonymize
from anonymizer.release import publish as publish_module
from anonymizer.cli import main
from anonymizer.errors import AnonymizerError, ExportError, PrivacyCheckFailed, SpecError
from anonymizer.release.export import part_path
from anonymizer.spec.parse import load_spec
from tests.families.anatomy.conftest import load_table1, table1_spec
from tests.release.test_view_ownership import make_people


def people_spec(tmp_path: Path, release: str = "people_k5", k: int = 5, view: str = "people", **output) -> dict:
    return {"release": release, "source": {"table": "people"},
            "columns": {"age": {"role": "quasi", "type": "numeric"}, "zip": "quasi", "disease": "sensitive"},
            "models": [{"type": "k-anonymity", "k": k}],
            "output": {"view": view, "database": str(tmp_path / "pub.duckdb"), **output}}


@pytest.fixture
def raw(tmp_path) -> Path:
    """A source database file holding table ``people``."""
    path = tmp_path / "raw.duckdb"
    with duckdb.connect(str(path)) as con:
        make_people(con)
    return path


def catalog_state(path: Path) -> tuple[list, dict]:
    """The schemas, tables and views of a database file, and a content checksum per table."""
    with duckdb.connect(str(path), read_only=True) as con:
        objects = sorted(con.execute(
            "SELECT schema_name, table_name, 'table' FROM duckdb_tables() WHERE database_name = current_database() "
            "UNION ALL SELECT schema_name, view_name, 'view' FROM duckdb_views() "
            "WHERE database_name = current_database() AND NOT internal "
            "UNION ALL SELECT schema_name, '', 'schema' FROM duckdb_schemas() "
            "WHERE database_name = current_database() AND NOT internal").fetchall())
        sums = {f"{s}.{t}": con.execute(f'SELECT count(*), sum(hash(x)) FROM "{s}"."{t}" AS x').fetchone()
                for s, t, kind in objects if kind == "table"}
    return objects, sums


def read(path: Path, sql: str) -> list:
    """Rows of ``sql`` from a fresh read-only connection to ``path``."""
    with duckdb.connect(str(path), read_only=True) as con:
        return con.execute(sql).fetchall()


def attached(con) -> list[str]:
    return [r[0] for r in con.execute("SELECT database_name FROM duckdb_databases() WHERE NOT internal").fetchall()]


# -- output.database -----------------------------------------------------------------------------------
def test_publishes_into_another_file_and_detaches(raw, tmp_path):
    spec = people_spec(tmp_path)
    before = catalog_state(raw)
    with duckdb.connect(str(raw)) as con:
        result = anonymize(spec, con)
        assert attached(con) == ["raw"], "the output database stays attached, or a work database does"
    pub = tmp_path / "pub.duckdb"
    assert result.database == str(pub) and result.view == "published.people" and result.version == 1
    assert catalog_state(raw) == before   # not a schema, table or row more in the source's file
    assert not {"published", "_anon_releases"} & {schema for schema, _, _ in catalog_state(raw)[0]}
    # a reader of the published file alone sees the view, its snapshot and the audit row
    assert read(pub, "SELECT count(*) FROM published.people") == [(120,)]
    assert read(pub, "SELECT min(n) FROM (SELECT count(*) AS n FROM published.people GROUP BY eq_class)")[0][0] >= 5
    assert read(pub, "SELECT release, version, view_name, snapshot FROM _anon_releases._audit") == [
        ("people_k5", 1, "published.people", "_anon_releases.people_k5__v1")]
    # the view joins the rows with the class table, both named without a catalog: the file
    # reads the same under any alias
    assert read(pub, "SELECT sql FROM duckdb_views() WHERE view_name = 'people'") == [
        ('CREATE VIEW published.people AS SELECT r.eq_class, c.age, c.age_low, c.age_high, c.zip, r.disease '
         'FROM (_anon_releases.people_k5__v1 AS r INNER JOIN _anon_releases.people_k5__v1__classes AS c '
         'ON ((c.eq_class = r.eq_class)));',)]
    # the snapshots are in the published file, not in the source's
    assert read(pub, 'SELECT count(*) FROM _anon_releases."people_k5__v1"') == [(120,)]


def test_database_path_is_relative_to_the_spec_file(tmp_path):
    (tmp_path / "specs").mkdir()
    text = ("release: r\nsource: {table: t}\ncolumns: {a: quasi}\nmodels: [{type: k-anonymity, k: 2}]\n"
            "output: {view: v, database: ../pub.duckdb, export: out/v.csv.gz}\n")
    (tmp_path / "specs" / "r.yml").write_text(text)
    spec = load_spec(tmp_path / "specs" / "r.yml")
    assert spec.output.database == tmp_path / "specs" / ".." / "pub.duckdb"
    assert spec.output.export.path == tmp_path / "specs" / "out" / "v.csv.gz" and spec.output.export.format == "csv"
    # where a copy goes does not change the release: the hash ignores output.export
    assert spec.spec_hash() == load_spec(text.replace(", export: out/v.csv.gz", ""), tmp_path / "specs").spec_hash()


@pytest.mark.parametrize("output,field,text", [
    ({"database": ""}, "output.database", "path of a DuckDB database file"),
    ({"database": ":memory:"}, "output.database", "path of a DuckDB database file"),
    ({"export": {"path": "out/v.json"}}, "output.export.path", "says no format"),
    ({"export": "out/v.json"}, "output.export", "says no format"),
    ({"export": {"path": "out/v.dat", "format": "xlsx"}}, "output.export.format", "must be one of"),
    ({"export": {"path": "v.csv", "compression": "gzip"}}, "output.export.compression", "is not an option"),
    ({"format": "parquet; DROP TABLE t"}, "output.format", "must be a format name"),
    ({"partition_by": ["a", "a"]}, "output.partition_by", "names a column twice"),
    ({"partition_by": [1]}, "output.partition_by[0]", "must be a string \\(a published column name\\)"),
])
def test_bad_output_fields_name_the_field(tmp_path, output, field, text):
    spec = {"release": "r", "source": {"table": "t"}, "columns": {"a": "quasi"},
            "models": [{"type": "k-anonymity", "k": 2}], "output": {"view": "v", **output}}
    with pytest.raises(SpecError, match=text) as err:
        load_spec(spec, tmp_path)
    assert err.value.field == field


def test_rerun_is_idempotent_and_a_new_version_promotes_there(raw, tmp_path):
    spec = people_spec(tmp_path)
    pub = tmp_path / "pub.duckdb"
    with duckdb.connect(str(raw)) as con:
        first = anonymize(spec, con)
        again = anonymize(spec, con)
        assert again.unchanged and again.version == first.version == 1 and again.database == str(pub)
        assert read_in(con, pub, "SELECT count(*) FROM _anon_releases._audit") == [(1,)]
        con.execute("INSERT INTO people VALUES (33, 'z1', 'flu')")
        changed = anonymize(spec, con)
        assert not changed.unchanged and changed.version == 2 and changed.rows_in == 121
        assert attached(con) == ["raw"]
    assert read(pub, "SELECT count(*) FROM published.people") == [(121,)]
    assert "people_k5__v2 AS r" in read(pub, "SELECT sql FROM duckdb_views() WHERE view_name = 'people'")[0][0]
    assert read(pub, 'SELECT count(*) FROM _anon_releases."people_k5__v1"') == [(120,)]
    assert read(pub, "SELECT version FROM _anon_releases._audit ORDER BY 1") == [(1,), (2,)]


def read_in(con, pub: Path, sql: str) -> list:
    """``sql`` on the output file from a second, separate connection while ``con`` is open
    (DuckDB shares one database instance per file within a process)."""
    with duckdb.connect(str(pub), read_only=False) as other:
        return other.execute(sql).fetchall()


def test_promotion_into_the_attached_file_is_one_transaction(raw, tmp_path, monkeypatch):
    """A failure after the snapshot and the view of v2 are written (at the audit row) leaves
    v1 published and no trace of v2 in the output file."""
    spec = people_spec(tmp_path)
    pub = tmp_path / "pub.duckdb"
    with duckdb.connect(str(raw)) as con:
        anonymize(spec, con)
        con.execute("INSERT INTO people VALUES (33, 'z1', 'flu')")
        original = publish_module.Engine.run

        def failing(self, template, params=None, **context):
            if template == "publish/audit_insert.sql.j2":
                raise RuntimeError("disk on fire")
            return original(self, template, params, **context)

        monkeypatch.setattr(publish_module.Engine, "run", failing)
        with pytest.raises(RuntimeError, match="disk on fire"):
            anonymize(spec, con)
        monkeypatch.undo()
        assert attached(con) == ["raw"]
    assert read(pub, "SELECT count(*) FROM published.people") == [(120,)]
    assert "people_k5__v1 AS r" in read(pub, "SELECT sql FROM duckdb_views() WHERE view_name = 'people'")[0][0]
    tables = [t for (t,) in read(pub, "SELECT table_name FROM duckdb_tables()")]
    assert "people_k5__v1" in tables and not [t for t in tables if "__v2" in t], tables


def test_ownership_is_checked_in_the_attached_file(raw, tmp_path):
    pub = tmp_path / "pub.duckdb"
    with duckdb.connect(str(raw)) as con:
        # a view of the same name in the source's database is another database's: no conflict
        con.execute("CREATE SCHEMA published; CREATE VIEW published.people AS SELECT 1 AS x")
        anonymize(people_spec(tmp_path), con)
        with pytest.raises(AnonymizerError, match="view published.people belongs to release people_k5"):
            anonymize(people_spec(tmp_path, release="other_k2", k=2), con)
        with duckdb.connect(str(pub)) as other:   # a table and a hand-repointed view in the output file
            other.execute("CREATE TABLE published.mine AS SELECT 1 AS x")
            other.execute("CREATE OR REPLACE VIEW published.people AS SELECT * FROM _anon_releases.people_k5__v1 "
                          "WHERE eq_class > 1")
        with pytest.raises(AnonymizerError, match="published.mine exists and was not created by a release"):
            anonymize(people_spec(tmp_path, release="mine", view="mine"), con)
        with pytest.raises(AnonymizerError, match="was changed outside the anonymizer"):
            anonymize(people_spec(tmp_path), con, force=True)
        assert attached(con) == ["raw"]
        assert con.execute("SELECT * FROM published.people").fetchall() == [(1,)]
    assert read(pub, "SELECT version FROM _anon_releases._audit") == [(1,)]


def test_a_user_attachment_of_the_output_file_is_reused_and_kept(raw, tmp_path):
    pub = tmp_path / "pub.duckdb"
    with duckdb.connect(str(raw)) as con:
        con.execute(f"ATTACH '{pub}' AS lake")
        anonymize(people_spec(tmp_path), con)
        assert sorted(attached(con)) == ["lake", "raw"]
        assert con.execute("SELECT count(*) FROM lake.published.people").fetchone() == (120,)
        con.execute("DETACH lake")
        con.execute(f"ATTACH '{pub}' AS lake (READ_ONLY)")
        with pytest.raises(AnonymizerError, match="attached read-only on this connection"):
            anonymize(people_spec(tmp_path), con)


def test_a_failed_release_publishes_and_exports_nothing(raw, tmp_path):
    impossible = people_spec(tmp_path, export={"path": str(tmp_path / "out" / "people.parquet")})
    impossible["models"].append({"type": "distinct-l-diversity", "l": 5, "sensitive": "disease"})
    with duckdb.connect(str(raw)) as con:
        with pytest.raises(PrivacyCheckFailed, match="nothing was published"):
            anonymize(impossible, con)
        assert attached(con) == ["raw"]
    assert not (tmp_path / "pub.duckdb").exists(), "the output file the failed run created is left behind"
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())
    # into an existing output file: what was published stays, nothing is added
    ok = people_spec(tmp_path)
    with duckdb.connect(str(raw)) as con:
        anonymize(ok, con)
        with pytest.raises(PrivacyCheckFailed):
            anonymize(dict(impossible, release="people_k5"), con)
    assert read(tmp_path / "pub.duckdb", "SELECT version FROM _anon_releases._audit") == [(1,)]
    assert not (tmp_path / "out" / "people.parquet").exists()


def test_output_database_that_cannot_be_opened_is_one_clear_error(raw, tmp_path):
    (tmp_path / "junk.duckdb").write_text("not a database")
    with duckdb.connect(str(raw)) as con:
        with pytest.raises(AnonymizerError, match=r"output.database .*junk.duckdb: is not a DuckDB database file"):
            anonymize(dict(people_spec(tmp_path), output={"view": "p", "database": str(tmp_path / "junk.duckdb")}),
                      con)
        with pytest.raises(AnonymizerError, match="output.database .*: directory .* does not exist"):
            anonymize(dict(people_spec(tmp_path), output={"view": "p", "database": str(tmp_path / "no" / "p.duckdb")}),
                      con)
        assert attached(con) == ["raw"]


# -- the command line: the source's database is opened read-only --------------------------------------
def write_spec(tmp_path: Path, **output) -> Path:
    path = tmp_path / "people.yml"
    out = ", ".join(f"{k}: {v}" for k, v in {"view": "people", "database": "pub.duckdb", **output}.items())
    path.write_text("release: people_k5\nsource: {table: people}\n"
                    "columns: {age: {role: quasi, type: numeric}, zip: quasi, disease: sensitive}\n"
                    "models: [{type: k-anonymity, k: 5}]\n"
                    f"output: {{{out}}}\n")
    return path


def test_cli_reads_the_source_database_read_only(raw, tmp_path):
    """Another process holds the source's file read-only: a writer could not open it, a
    reader can. The file's tables, rows and schemas are the same after two runs."""
    spec = write_spec(tmp_path)
    before = catalog_state(raw)
    holder = subprocess.Popen(
        [sys.executable, "-c", "import duckdb, sys; c = duckdb.connect(sys.argv[1], read_only=True); "
                               "print('open', flush=True); sys.stdin.read()", str(raw)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "open"
        with pytest.raises(duckdb.IOException):   # the lock is real: a writer is refused
            duckdb.connect(str(raw)).close()
        runner = CliRunner()
        first = runner.invoke(main, ["run", str(spec), "--db", str(raw), "-q"])
        assert first.exit_code == 0, first.output
        assert "database      " in first.output and "pub.duckdb" in first.output
        again = runner.invoke(main, ["run", str(spec), "--db", str(raw), "--json"])
        assert again.exit_code == 0, again.output
        assert '"unchanged": true' in again.output and '"database": ' in again.output
    finally:
        holder.stdin.close()
        holder.wait(timeout=30)
    assert catalog_state(raw) == before
    assert read(tmp_path / "pub.duckdb", "SELECT count(*) FROM published.people") == [(120,)]


def test_cli_refuses_what_would_write_the_source(raw, tmp_path):
    runner = CliRunner()
    spec = write_spec(tmp_path)
    kept = runner.invoke(main, ["run", str(spec), "--db", str(raw), "--keep-work", "-q"])
    assert kept.exit_code == 2 and "--keep-work" in kept.output and "read-only" in kept.output
    same = write_spec(tmp_path, database="raw.duckdb")
    refused = runner.invoke(main, ["run", str(same), "--db", str(raw), "-q"])
    assert refused.exit_code == 2 and "output.database: is the source database" in refused.output
    missing = runner.invoke(main, ["run", str(spec), "--db", str(tmp_path / "none.duckdb"), "-q"])
    assert missing.exit_code == 2 and "none.duckdb: no such database file" in missing.output
    assert not (tmp_path / "none.duckdb").exists() and not (tmp_path / "pub.duckdb").exists()


def test_cli_file_source_needs_no_database(tmp_path, monkeypatch):
    """A CSV source with output.database: no --db file is created, the release goes to the
    output file."""
    with duckdb.connect() as con:
        make_people(con)
        con.execute(f"COPY people TO '{tmp_path / 'people.csv'}' (HEADER)")
    spec = tmp_path / "people.yml"
    spec.write_text(write_spec(tmp_path).read_text().replace("source: {table: people}",
                                                             "source: {path: people.csv, table: people}"))
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["run", str(spec), "-q"])
    assert result.exit_code == 0, result.output
    assert not (tmp_path / "anonymizer.duckdb").exists()
    assert read(tmp_path / "pub.duckdb", "SELECT count(*) FROM published.people") == [(120,)]


# -- export ---------------------------------------------------------------------------------------------
def same_rows(con, snapshot: str, reader: str) -> tuple[int, int, int]:
    """Rows of the snapshot missing from the file, extra rows in the file (EXCEPT ALL both
    ways, every value as text), and rows out of the snapshot's order."""
    cols = [r[0] for r in con.execute(f"DESCRIBE SELECT * FROM {snapshot}").fetchall()]
    text = ", ".join(f'"{c}"::VARCHAR AS "{c}"' for c in cols)
    s = f"SELECT {text} FROM {snapshot}"
    f = f"SELECT {text} FROM {reader}"
    missing = con.execute(f"SELECT count(*) FROM ({s} EXCEPT ALL {f})").fetchone()[0]
    extra = con.execute(f"SELECT count(*) FROM ({f} EXCEPT ALL {s})").fetchone()[0]
    keys = ", ".join(f'"{c}"' for c in cols)
    moved = con.execute(
        f"SELECT count(*) FROM (SELECT row_number() OVER () AS i, hash({keys}) AS h FROM ({s})) a "
        f"JOIN (SELECT row_number() OVER () AS i, hash({keys}) AS h FROM ({f})) b USING (i) "
        "WHERE a.h <> b.h").fetchone()[0]
    return missing, extra, moved


@pytest.mark.parametrize("name,reader", [
    ("people.parquet", "read_parquet('{}')"),
    ("people.csv", "read_csv('{}', all_varchar = true)"),
    ("people.csv.gz", "read_csv('{}', all_varchar = true)"),
])
def test_export_round_trips_the_published_snapshot(raw, tmp_path, name, reader):
    path = tmp_path / "out" / name
    spec = people_spec(tmp_path, export={"path": str(path)})
    with duckdb.connect(str(raw)) as con:
        result = anonymize(spec, con)
        files = exported(path, result)   # the main file, and one per further view (a class table)
        assert result.exports == [str(f) for f in files] and all(f.is_file() for f in files)
        assert sorted(path.parent.iterdir()) == sorted(files), "a temporary file is left"
        con.execute(f"ATTACH '{tmp_path / 'pub.duckdb'}' AS pub (READ_ONLY)")
        (view, classes), (main, part) = snapshots_of(result), files
        # the view's rows, class by class (inside a class, in no order that matters)
        assert same_rows(con, f"pub.{view}", reader.format(main))[:2] == (0, 0)
        assert class_order_breaks(con, reader.format(main)) == 0
        assert same_rows(con, f"pub.{classes}", reader.format(part)) == (0, 0, 0)
        con.execute("DETACH pub")
        # an unchanged re-run exports the current snapshot again
        for file in files:
            file.unlink()
        again = anonymize(spec, con)
        assert again.unchanged and again.exports == result.exports and all(f.is_file() for f in files)


def class_order_breaks(con, reader: str) -> int:
    """Rows of a file whose class comes before the previous row's (0: class by class)."""
    return con.execute(f"SELECT count(*) FROM (SELECT eq_class::BIGINT < lag(eq_class::BIGINT) OVER () AS back "
                       f"FROM {reader}) WHERE back").fetchone()[0]


def exported(path: Path, result) -> list[Path]:
    """The files a release exports to ``path``: it, and one per further view next to it."""
    prefix = result.view + "_"
    return [path] + [part_path(path, view[len(prefix):]) for view in result.views]


def snapshots_of(result) -> list[str]:
    """The quoted relations a release exports, in the order of :func:`exported`: its view
    (a generalized release's joins its rows and class table) and its further snapshots."""
    snap = result.snapshot.split(".", 1)[1]
    return [result.view] + [f'_anon_releases."{snap}__{view[len(result.view) + 1:]}"' for view in result.views]


def test_export_in_the_same_database_with_the_class_order(con, tmp_path):
    """Without output.database the export reads the connection's database; with insertion
    order off, the rows still come class by class (the class table in its snapshot's order)."""
    make_people(con, 300)
    spec = people_spec(tmp_path, export={"path": str(tmp_path / "p.parquet")})
    del spec["output"]["database"]
    con.execute("SET preserve_insertion_order = false")
    result = anonymize(spec, con)
    files = exported(tmp_path / "p.parquet", result)
    assert result.database is None and result.exports == [str(f) for f in files]
    (view, classes), (main, part) = snapshots_of(result), files
    assert same_rows(con, view, f"read_parquet('{main}')")[:2] == (0, 0)
    assert class_order_breaks(con, f"read_parquet('{main}')") == 0
    assert same_rows(con, classes, f"read_parquet('{part}')") == (0, 0, 0)


def test_anatomy_exports_each_table_next_to_the_main_file(tmp_path):
    path = tmp_path / "t1.parquet"
    with duckdb.connect(str(tmp_path / "raw.duckdb")) as con:
        load_table1(con)
    with duckdb.connect(str(tmp_path / "raw.duckdb")) as con:
        spec = dict(table1_spec(seed=5), output={"view": "t1", "database": str(tmp_path / "pub.duckdb"),
                                                 "export": str(path)})
        result = anonymize(spec, con)
        assert result.exports == [str(path), str(tmp_path / "t1_sensitive.parquet")]
        assert result.views == ["published.t1_sensitive"]
        con.execute(f"ATTACH '{tmp_path / 'pub.duckdb'}' AS pub (READ_ONLY)")
        for snap, file in (("t1__v1", path), ("t1__v1__sensitive", tmp_path / "t1_sensitive.parquet")):
            assert same_rows(con, f'pub._anon_releases."{snap}"', f"read_parquet('{file}')") == (0, 0, 0)


def test_part_paths():
    assert part_path(Path("out/adult.parquet"), "sensitive") == Path("out/adult_sensitive.parquet")
    assert part_path(Path("adult.csv.gz"), "classes") == Path("adult_classes.csv.gz")
    assert part_path(Path("adult.data"), "classes") == Path("adult_classes.data")


def test_cli_export_option(raw, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    spec = write_spec(tmp_path, export="ignored.parquet")
    result = CliRunner().invoke(main, ["run", str(spec), "--db", str(raw), "--export", "out/people.csv", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["exports"][0] == "out/people.csv"
    assert (tmp_path / "out" / "people.csv").is_file() and not (tmp_path / "ignored.parquet").exists()
    bad = CliRunner().invoke(main, ["run", str(spec), "--db", str(raw), "--export", "people.json", "-q"])
    assert bad.exit_code == 2 and "--export: says no format" in bad.output


def test_an_unwritable_export_path_is_refused_before_any_work(raw, tmp_path):
    (tmp_path / "a_file").write_text("x")
    (tmp_path / "a_dir.parquet").mkdir()
    for target, text in ((tmp_path / "a_file" / "people.parquet", "is not a directory"),
                         (tmp_path / "a_dir.parquet", "is a directory")):
        said: list[str] = []
        with duckdb.connect(str(raw)) as con:
            with pytest.raises((ExportError, SpecError), match=text) as err:
                anonymize(people_spec(tmp_path, export={"path": str(target)}), con, progress=said.append)
        assert str(target.name) in str(err.value)
        assert not said and not (tmp_path / "pub.duckdb").exists()


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only directories")
def test_a_read_only_export_directory_is_refused(raw, tmp_path):
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o555)
    try:
        with duckdb.connect(str(raw)) as con:
            with pytest.raises(ExportError, match="locked is not writable"):
                anonymize(people_spec(tmp_path, export={"path": str(locked / "p.parquet")}), con)
    finally:
        locked.chmod(0o755)


def test_a_failing_write_leaves_no_file_and_the_release_published(raw, tmp_path, monkeypatch):
    """A COPY failing after publication (here: the second table of two) leaves neither file,
    keeps the release published, and says so."""
    from anonymizer.release import export as export_module
    path = tmp_path / "out" / "people.parquet"
    (tmp_path / "out").mkdir()
    path.write_text("the previous export")
    original = export_module.Engine.run
    calls = []

    def failing(self, template, params=None, **context):
        if template == "publish/export.sql.j2":
            calls.append(params["path"])
            if len(calls) == 2:
                raise export_module.TemplateError(template, "IO Error: No space left on device")
        return original(self, template, params, **context)

    monkeypatch.setattr(export_module.Engine, "run", failing)
    with duckdb.connect(str(raw)) as con:   # two tables to export, as an anatomy release has
        monkeypatch.setattr(export_module, "published_tables", lambda engine, spec, p: [
            (f'"{spec.output.catalog}"."published"."people"', p, False),
            (f'"{spec.output.catalog}"."published"."people"', p.with_name("people_sensitive.parquet"), False)])
        with pytest.raises(ExportError, match="people_sensitive.parquet: cannot be written .*No space left.*stays "
                                              "published"):
            anonymize(people_spec(tmp_path, export={"path": str(path)}), con)
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["people.parquet"]
    assert path.read_text() == "the previous export"
    assert read(tmp_path / "pub.duckdb", "SELECT count(*) FROM published.people") == [(120,)]
