"""Publishing in place (release/in_place.py): a generalized release's per-row candidate
written beside the snapshots in published form, verified there and renamed into its snapshot,
as Spark publishes it. Run on DuckDB with the capability set on the engine, against DuckDB's
own way (a work table copied into the snapshot and compared): the same views, versions and
audit, no candidate left behind by a run that publishes, fails or is a dry run, and another
run's candidate left alone."""

from __future__ import annotations

import dataclasses

import duckdb
import pandas as pd
import pytest

from anonymizer import anonymize
from anonymizer.engine.capabilities import DUCKDB
from anonymizer.engine.session import Engine
from anonymizer.errors import DataError, PrivacyCheckFailed
from anonymizer.release.run import run_release
from anonymizer.spec.parse import load_spec

SPEC = {"release": "placed", "columns": {"age": {"role": "quasi", "type": "numeric"}, "sex": "quasi",
                                         "zip": "quasi", "disease": "sensitive", "note": "insensitive"},
        "models": [{"type": "k-anonymity", "k": 4}, {"type": "distinct-l-diversity", "l": 2, "sensitive": "disease"}]}


def people(n: int, shift: int = 0) -> pd.DataFrame:
    return pd.DataFrame({"age": [20 + (i * 7 + shift) % 50 for i in range(n)], "sex": ["MF"[i % 2] for i in range(n)],
                         "zip": [f"13{(i * 3) % 17:03d}" for i in range(n)],
                         "disease": [["flu", "cold", "hiv", "none"][(i + shift) % 4] for i in range(n)],
                         "note": [f"n{i % 5}" for i in range(n)]})


@pytest.fixture
def in_place(monkeypatch):
    monkeypatch.setattr(Engine, "capabilities", dataclasses.replace(DUCKDB, publishes_in_place=True))


def candidates(con) -> list[str]:
    return [t for (t,) in con.execute("SELECT table_name FROM duckdb_tables() WHERE starts_with(table_name, "
                                      "'placed__candidate_')").fetchall()]


def published(con, version: int) -> tuple[list, list, list]:
    """The view's rows in stored order, the snapshot's and the audit row's figures."""
    rows = con.execute("SELECT * FROM published.placed").fetchall()
    snap = con.execute(f'SELECT * FROM _anon_releases."placed__v{version}"').fetchall()
    audit = con.execute("SELECT version, rows_out, suppressed, figures->>'$.models' FROM _anon_releases._audit "
                        "ORDER BY version").fetchall()
    return rows, snap, audit


def two_versions(con, spec: dict | None = None) -> list[tuple[list, list, list]]:
    spec = spec or dict(SPEC, algorithm={"name": "mondrian", "seed": 7})
    found = []
    for version, shift in ((1, 0), (2, 3)):
        con.register("frame", people(400, shift))
        con.execute("CREATE OR REPLACE TABLE src AS SELECT * FROM frame")
        anonymize(dict(spec, source={"table": "src"}), con)
        found.append(published(con, version))
    return found


def test_in_place_publishes_what_the_copy_publishes(monkeypatch):
    copied = two_versions(duckdb.connect())
    monkeypatch.setattr(Engine, "capabilities", dataclasses.replace(DUCKDB, publishes_in_place=True))
    con = duckdb.connect()
    placed = two_versions(con)
    for (rows, snap, audit), (rows_c, snap_c, audit_c) in zip(placed, copied):
        assert sorted(rows) == sorted(rows_c) and len(rows) == 400 - audit[-1][2]
        assert snap == sorted(snap_c)   # in place, in its content's order: class by class, then the columns
        assert audit == audit_c
    assert candidates(con) == []
    assert sorted(c for (c,) in con.execute("SELECT column_name FROM duckdb_columns() WHERE table_name = "
                                            "'placed__v2'").fetchall()) == ["disease", "eq_class", "note"]


def test_in_place_the_order_is_the_contents_whatever_the_key(in_place):
    """The rows' order in place is a function of the published rows alone: releases of one
    table under two keys and under a secret one lie in one order, and that is the sorted
    order (so no key, no draw and no source position can show through it)."""
    orders = []
    for algorithm in ({"name": "mondrian", "seed": 1}, {"name": "mondrian", "seed": 2}, {"name": "mondrian"}):
        con = duckdb.connect()
        con.register("frame", people(300).sample(frac=1.0, random_state=len(orders)))   # another source order too
        con.execute("CREATE TABLE src AS SELECT * FROM frame")
        anonymize(dict(SPEC, source={"table": "src"}, algorithm=algorithm), con)
        orders.append(published(con, 1)[1])
    assert orders[0] == sorted(orders[0]) and orders[1] == orders[0] and orders[2] == orders[0]


def test_a_strict_release_in_place_never_writes_base(monkeypatch):
    """With Spark's cells of the source's vectors too and nothing passed through, base is never
    written (base_rows.py): the candidate codes the source itself, and publishes what the copy
    of a written base publishes. With a column passed through, base is written."""
    spec = dict(SPEC, columns={**SPEC["columns"], "note": "identifier"}, algorithm={"name": "mondrian", "seed": 7})
    copied = two_versions(duckdb.connect(), spec)
    monkeypatch.setattr(Engine, "capabilities", dataclasses.replace(DUCKDB, publishes_in_place=True,
                                                                    aggregates_apart=True))
    ran, run = [], Engine.run
    monkeypatch.setattr(Engine, "run", lambda self, template, *a, **k: ran.append(template) or run(self, template, *a, **k))
    placed = two_versions(duckdb.connect(), spec)
    assert ran.count("families/generalized/form/candidate.sql.j2") == 2 and "prepare/base.sql.j2" not in ran
    for (rows, snap, audit), (rows_c, snap_c, audit_c) in zip(placed, copied):
        assert sorted(rows) == sorted(rows_c) and snap == sorted(snap_c) and audit == audit_c
    two_versions(duckdb.connect(), dict(SPEC, algorithm={"name": "mondrian", "seed": 7}))
    assert ran.count("prepare/base.sql.j2") == 2


def test_a_run_that_fails_after_writing_in_place_leaves_nothing(in_place):
    con = duckdb.connect()
    con.register("frame", people(60))
    con.execute("CREATE TABLE src AS SELECT * FROM frame")
    spec = dict(SPEC, source={"table": "src"}, models=[{"type": "k-anonymity", "k": 4},
                                                       {"type": "distinct-l-diversity", "l": 5, "sensitive": "disease"}])
    with pytest.raises(PrivacyCheckFailed):   # 4 diseases: l = 5 fails, after the candidate was written
        anonymize(spec, con)
    assert candidates(con) == []
    assert not con.execute("SELECT count(*) FROM duckdb_tables() WHERE starts_with(table_name, 'placed__v')").fetchone()[0]


def test_a_dry_run_writes_nothing_beside_the_snapshots(in_place):
    con = duckdb.connect()
    con.register("frame", people(100))
    con.execute("CREATE TABLE src AS SELECT * FROM frame")
    run_release(load_spec(dict(SPEC, source={"table": "src"})), con, dry_run=True)
    assert candidates(con) == []
    assert not con.execute("SELECT count(*) FROM duckdb_schemas() WHERE schema_name = '_anon_releases'").fetchone()[0]


def test_another_runs_candidate_is_neither_read_nor_replaced(in_place):
    """A run's candidate is its own (a concurrent or killed run's stays as it is)."""
    con = duckdb.connect()
    con.register("frame", people(100))
    con.execute("CREATE TABLE src AS SELECT * FROM frame")
    con.execute("CREATE SCHEMA _anon_releases; CREATE TABLE _anon_releases.placed__candidate_0123456789 AS SELECT 1 AS junk")
    anonymize(dict(SPEC, source={"table": "src"}), con)
    assert candidates(con) == ["placed__candidate_0123456789"]
    assert con.execute("SELECT * FROM _anon_releases.placed__candidate_0123456789").fetchall() == [(1,)]
    assert con.execute("SELECT count(*) FROM published.placed").fetchone()[0] == 100 - con.execute(
        "SELECT suppressed FROM _anon_releases._audit").fetchone()[0]


@pytest.mark.parametrize(("change", "held"), [
    ("INSERT INTO src SELECT * FROM src LIMIT 9", "400 rows when first read, 409 now"),
    ("UPDATE src SET zip = 'a zip never read' WHERE age < 30", "400 rows when first read and now, other values"),
])
def test_a_source_changed_under_the_run_is_the_users_error_and_publishes_nothing(monkeypatch, change, held):
    """With base unwritten the candidate reads the source again: rows added, or values changed
    (the row count the same), between the profile and the candidate show as a changed source
    (a DataError naming it, by its fingerprint), not as our bug, and nothing is published."""
    monkeypatch.setattr(Engine, "capabilities", dataclasses.replace(DUCKDB, publishes_in_place=True,
                                                                    aggregates_apart=True))
    con = duckdb.connect()
    con.register("frame", people(400))
    con.execute("CREATE TABLE src AS SELECT * FROM frame")
    spec = dict(SPEC, source={"table": "src"}, columns={**SPEC["columns"], "note": "identifier"},
                algorithm={"name": "mondrian", "seed": 7})
    run = Engine.run

    def writer_beside(self, template, *a, **k):   # another session appends rows as the candidate is written
        if template == "families/generalized/form/candidate.sql.j2":
            con.execute(change)
        return run(self, template, *a, **k)

    monkeypatch.setattr(Engine, "run", writer_beside)
    with pytest.raises(DataError, match=rf'"src": changed while the release ran \({held}\)'):
        anonymize(spec, con)
    assert candidates(con) == []
    assert not con.execute("SELECT count(*) FROM duckdb_views() WHERE schema_name = 'published'").fetchone()[0]
