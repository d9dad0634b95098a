"""A dry run (``anonymize(..., publish=False)``, ``anonymizer run --dry-run``) goes through the
same pipeline as a release, verifies and measures, and writes nothing: no snapshot, view,
audit row or schema, for every family. ``--log-sql`` writes the statements a run executed."""

from __future__ import annotations

import json

import duckdb
import pytest
import yaml
from click.testing import CliRunner

from anonymizer import anonymize
from anonymizer.errors import PrivacyCheckFailed, SpecError
from anonymizer.cli import main
from tests.privacy.test_attacks import SPECS, patients_table, people_table
from tests.release.test_outputs import catalog_state


def objects(con) -> list:
    return sorted(con.execute(
        "SELECT schema_name, table_name FROM duckdb_tables() WHERE database_name = current_database() "
        "UNION ALL SELECT schema_name, view_name FROM duckdb_views() WHERE NOT internal "
        "UNION ALL SELECT schema_name, '' FROM duckdb_schemas() WHERE NOT internal").fetchall())


@pytest.mark.parametrize("form", list(SPECS))
def test_a_dry_run_verifies_and_measures_and_writes_nothing(form):
    con = duckdb.connect()
    people_table(con)
    patients_table(con)
    spec = SPECS[form][0]
    before = objects(con)
    said: list[str] = []
    dry = anonymize(spec, con, publish=False, progress=said.append)
    assert objects(con) == before, "a dry run wrote to the database"
    assert dry.dry_run and dry.version is None and dry.snapshot is None and not dry.unchanged
    assert dry.models and all(m["holds"] for m in dry.models) and dry.rows_out > 0
    assert not any(m.startswith("publish") for m in said) and said[-1].endswith("nothing published")
    real = anonymize(spec, con)
    assert real.version == 1 and not real.dry_run and real.views == dry.views
    assert [m["model"] for m in real.models] == [m["model"] for m in dry.models]
    assert (real.rows_in, sorted(real.timings)) == (dry.rows_in, sorted(set(dry.timings) | {"publish"}))
    if form == "generalized":   # strict Mondrian draws nothing: the same classes and figures
        assert (real.classes, real.rows_out, real.models, real.measures) == \
            (dry.classes, dry.rows_out, dry.models, dry.measures)
    # a dry run of an unchanged release still runs (it never answers "unchanged")
    if form in ("relaxed", "anatomy"):   # a re-run draws anew which rows of a shared cell go to which
        # class (relaxed Mondrian), or which records form a group (MSB): read with v1, they differ
        with pytest.raises(PrivacyCheckFailed, match="across versions"):
            anonymize(spec, con, publish=False)
        spec = dict(spec, history="independent")
    again = anonymize(spec, con, publish=False)
    assert again.dry_run and not again.unchanged and again.models


def people_db(tmp_path, spec: dict) -> tuple:
    """A database file holding the people table, and ``spec`` written as a YAML file."""
    db, path = tmp_path / "raw.duckdb", tmp_path / "spec.yml"
    with duckdb.connect(str(db)) as con:
        people_table(con)
    path.write_text(yaml.safe_dump(spec))
    return db, path


def test_cli_dry_run_leaves_the_file_as_it_was_and_logs_the_sql(tmp_path):
    db, spec = people_db(tmp_path, SPECS["generalized"][0])
    before = catalog_state(db)
    log = tmp_path / "run.sql"
    res = CliRunner().invoke(main, ["run", str(spec), "--db", str(db), "--dry-run", "--log-sql", str(log), "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    assert out["dry_run"] is True and out["version"] is None and out["models"][0]["holds"]
    assert catalog_state(db) == before
    text = log.read_text()
    headers = [line for line in text.splitlines() if line.startswith("-- statement ")]
    assert headers[0].startswith("-- statement 1: ") and headers[-1].startswith(f"-- statement {len(headers)}: ")
    assert any(": families/generalized/mondrian/" in h for h in headers) and all(h.endswith(" s") for h in headers)
    assert "publish/snapshot.sql.j2" not in text
    # the log is a script DuckDB reads: every statement ends with a semicolon
    assert len(headers) == text.count(";\n\n")
    # a human summary says so
    res = CliRunner().invoke(main, ["run", str(spec), "--db", str(db), "--dry-run", "--quiet"])
    assert res.exit_code == 0 and "dry run: verified and measured, nothing published" in res.output


def test_log_sql_is_written_when_the_run_fails(tmp_path):
    db, path = people_db(tmp_path, dict(SPECS["generalized"][0], models=[
        {"type": "k-anonymity", "k": 5}, {"type": "entropy-l-diversity", "l": 6, "sensitive": "disease"}]))
    log = tmp_path / "fail.sql"
    res = CliRunner().invoke(main, ["run", str(path), "--db", str(db), "--log-sql", str(log), "--quiet"])
    assert res.exit_code == 1, res.output   # the privacy check failed
    assert log.read_text().count("-- statement ") > 3


def test_an_unwritable_log_is_refused_before_any_work(tmp_path):
    db, spec = people_db(tmp_path, SPECS["generalized"][0])
    before = catalog_state(db)
    res = CliRunner().invoke(main, ["run", str(spec), "--db", str(db), "--log-sql", str(tmp_path / "no" / "run.sql")])
    assert res.exit_code == 2 and "--log-sql: cannot be written" in res.output
    assert catalog_state(db) == before, "the release ran (and published) although its log could not be written"


def test_the_sql_log_holds_no_secret(tmp_path, monkeypatch):
    """The release's key is bound as a parameter, never written into a statement's text: the
    log (which an adversary may hold) replays no draw."""
    from anonymizer.randomness import ReleaseKey
    keys = []
    fresh = ReleaseKey.fresh.__func__

    def recorded(cls):
        key = fresh(cls)
        keys.append(key.secret)
        return key

    monkeypatch.setattr(ReleaseKey, "fresh", classmethod(recorded))
    db, spec = people_db(tmp_path, SPECS["relaxed"][0])   # relaxed Mondrian draws in SQL
    log = tmp_path / "run.sql"
    res = CliRunner().invoke(main, ["run", str(spec), "--db", str(db), "--log-sql", str(log), "--quiet"])
    assert res.exit_code == 0, res.output
    text = log.read_text()
    assert keys and "md5_number($key" in text and not any(k in text for k in keys)


@pytest.mark.parametrize("flag", ["publish", "force"])
def test_publish_and_force_must_be_booleans(flag):
    """``publish="no"`` is truthy: taken as given it would publish. It is refused by name,
    before any work."""
    con = duckdb.connect()
    con.execute("CREATE TABLE t AS SELECT range AS a, range % 3 AS s FROM range(20)")
    spec = {"release": "r", "source": {"table": "t"}, "columns": {"a": "quasi", "s": "sensitive"},
            "models": [{"type": "k-anonymity", "k": 2}]}
    with pytest.raises(SpecError) as err:
        anonymize(spec, con, **{flag: "no"})
    assert err.value.field == flag
    assert con.execute("SELECT count(*) FROM duckdb_views() WHERE NOT internal").fetchone()[0] == 0
