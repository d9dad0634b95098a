"""Issue 36 on Spark: the cross-version gate and m-invariance run there as on DuckDB. The same
changing table, night after night, gives on both engines the same versions: the same rows
published (boxes, values, counterfeits), the same m-invariance steps and the same gate
figures; so the attacks of ``test_versions.py``, run on DuckDB's versions, hold for Spark's
too. A version the gate refuses publishes nothing on Spark either. Marked ``spark``."""

from __future__ import annotations

import json
from typing import Callable

import duckdb
import pytest

from anonymizer.api import anonymize
from anonymizer.datasets.churn import churn, people
from anonymizer.engine.spark import copy_from_duckdb
from anonymizer.errors import DataError, PrivacyCheckFailed
from tests.privacy.test_versions import spec

pytestmark = pytest.mark.spark

PEOPLE, JOINERS = 300, 30


def _clear(spark) -> None:
    for database in ("_anon_state", "_anon_releases", "published"):
        spark.sql(f"DROP DATABASE IF EXISTS {database} CASCADE")


def _published(sql, version: int) -> list[tuple]:
    """Version ``version`` as a reader holds it: each box, counterfeit count and value, counted."""
    query = (f"SELECT c.age, c.zip, c.sex, c.counterfeits, r.diagnosis, count(*) FROM _anon_releases.dx__v{version} AS r "
             f"JOIN _anon_releases.dx__v{version}__classes AS c ON c.eq_class = r.eq_class "
             "GROUP BY c.age, c.zip, c.sex, c.counterfeits, r.diagnosis")
    return sorted(tuple(row) for row in sql(query))


def _audit(sql) -> list[dict]:
    return [json.loads(f)["combination"] for (f,) in sql("SELECT figures FROM _anon_releases._audit ORDER BY version")]


def _both(spark, guarantee: str, nights: int) -> tuple[list, list, duckdb.DuckDBPyConnection]:
    """``nights`` versions of the same changing table on DuckDB and on Spark."""
    _clear(spark)
    source, con = duckdb.connect(), duckdb.connect()
    people(source, "people", PEOPLE)
    people(con, "people", PEOPLE)
    on_duckdb, on_spark = [], []
    for night in range(nights):
        if night:
            for db in (source, con):
                churn(db, night=night, leave=0.05, joiners=JOINERS, change=0.02)
        copy_from_duckdb(spark, source, "people", "people")
        on_duckdb.append(anonymize(spec(guarantee), con))
        on_spark.append(anonymize(spec(guarantee), spark))
    return on_duckdb, on_spark, con


def test_an_invariant_sequence_is_the_same_on_spark(spark):
    on_duckdb, on_spark, con = _both(spark, "invariant", 3)
    for d, s in zip(on_duckdb, on_spark):
        assert (s.version, s.rows_out, s.suppressed, s.classes) == (d.version, d.rows_out, d.suppressed, d.classes)
        assert s.algorithm.get("invariance") == d.algorithm.get("invariance")
    assert on_spark[-1].algorithm["invariance"]["counterfeits"] > 0   # the signatures were kept, not just re-run
    gates = _audit(lambda q: spark.sql(q).collect())
    assert gates == _audit(lambda q: con.execute(q).fetchall())
    assert [g["compared"] for g in gates] == [[], [1], [1, 2]]
    assert all(g["isolated"] == 0 and g["intersection"]["below"] == 0 for g in gates)
    for version in (1, 2, 3):
        assert _published(lambda q: spark.sql(q).collect(), version) == \
            _published(lambda q: con.execute(q).fetchall(), version)
    (kept,) = spark.sql("SELECT count(DISTINCT version) FROM _anon_state.dx__people").collect()[0]
    assert kept == 1   # the private state keeps the newest version only, in Spark's catalog


def test_independent_versions_measure_the_same_disclosure_on_spark(spark):
    on_duckdb, on_spark, con = _both(spark, "independent", 2)
    gates = _audit(lambda q: spark.sql(q).collect())
    assert gates == _audit(lambda q: con.execute(q).fetchall())
    assert gates[1]["compared"] == [1] and gates[1]["intersection"]["followed"] > 0


def test_a_version_the_gate_refuses_publishes_nothing_on_spark(spark):
    _clear(spark)
    source = duckdb.connect()
    people(source, "people", PEOPLE)
    no_person = dict(spec("invariant"), history={"guarantee": "invariant"})
    copy_from_duckdb(spark, source, "people", "people")
    anonymize(no_person, spark)
    churn(source, night=1, leave=0.05, joiners=JOINERS)
    copy_from_duckdb(spark, source, "people", "people")
    with pytest.raises(PrivacyCheckFailed, match="across versions"):
        anonymize(no_person, spark)
    assert [tuple(r) for r in spark.sql("SELECT version FROM _anon_releases._audit").collect()] == [(1,)]
    assert spark.sql("SELECT count(*) FROM published.dx").collect()[0][0] == PEOPLE


def _family(family: str) -> tuple[dict, str, Callable, Callable]:
    """A family's release under ``invariant`` (seeded: both engines draw alike), its table, how
    to create it and one night of its churn."""
    if family == "identity_reserved":
        from anonymizer.datasets.patients import churn as patients_churn, patients
        from tests.privacy.test_versions_ir import SMALL, spec as ir_spec
        return (ir_spec("invariant", algorithm={"name": "danonyir", "seed": 3}), "patients",
                lambda con: patients(con, "patients", 200, seed=1, **SMALL),
                lambda con, night: patients_churn(con, "patients", night=night, leave=0.05, joiners=20, change=0.02,
                                                  seed=1, **SMALL))
    if family == "lgb":
        from tests.privacy.test_versions_lgb import spec as lgb_spec
        release = lgb_spec("invariant", suppression_limit=0.1, algorithm={"name": "lgb-mdp", "seed": 3})
    else:
        from tests.privacy.test_person_keys import spec as keyed
        release = keyed("anatomy") | {"source": {"table": "people"}, "algorithm": {"name": "mbf", "seed": 3},
                                      "suppression_limit": 0.1}
    return (release, "people", lambda con: people(con, "people", PEOPLE),
            lambda con, night: churn(con, night=night, leave=0.05, joiners=JOINERS, change=0.02))


@pytest.mark.parametrize("family", ["anatomy", "lgb", "identity_reserved"])
def test_every_family_keeps_its_signatures_on_spark_as_on_duckdb(spark, family):
    """Anatomy (MBF), LGB (LGB_MDP) and the identity-reserved family (DAnonyIR) under
    ``history: invariant``, three nights of one changing table on both engines: the same
    m-invariance steps (returned, placed, held back, counterfeits), the same gate figures and
    the same counts. The table is written anew each night, so that row ids (DuckDB's rowid,
    Spark's monotonically_increasing_id over one file) and every draw over them agree."""
    _clear(spark)
    release, table, create, night_of = _family(family)
    con = duckdb.connect()
    create(con)
    for night in range(3):
        if night:
            night_of(con, night)
            con.execute(f"CREATE OR REPLACE TABLE {table} AS SELECT * FROM {table} ORDER BY rowid")
        copy_from_duckdb(spark, con, table, table)
        d, s = anonymize(release, con), anonymize(release, spark)
        assert (s.version, s.rows_out, s.suppressed, s.classes) == (d.version, d.rows_out, d.suppressed, d.classes)
        assert s.algorithm.get("invariance") == d.algorithm.get("invariance")
    assert d.algorithm["invariance"]["counterfeits"] > 0   # the signatures were kept, not just re-run
    gates = _audit(lambda q: spark.sql(q).collect())
    assert gates == _audit(lambda q: con.execute(q).fetchall())
    assert [g["compared"][-1:] for g in gates] == [[], [1], [2]]   # LGB's buckets: through the previous version
    assert all(g["isolated"] == 0 and g["intersection"]["below"] == 0 for g in gates)


def test_a_key_map_on_spark_follows_the_people_under_their_new_keys(spark):
    """Regenerated keys on Spark: refused without ``history.key_map``; a map the checks refuse
    leaves the private state as it was (Spark has no rollback: the engine writes back its
    copy); with the right map, the state is read under the new keys (rewritten as a new
    table, Spark's UPDATE) and the gate follows the people who stayed."""
    from tests.privacy.test_person_keys import spec as keyed
    _clear(spark)
    con = duckdb.connect()
    people(con, "people", PEOPLE)
    con.execute("CREATE TABLE src AS SELECT * FROM people")
    copy_from_duckdb(spark, con, "src", "src")
    anonymize(keyed("generalized"), spark)
    churn(con, "people", night=1, leave=0.05, joiners=JOINERS, change=0.02)
    con.execute("CREATE TABLE keymap AS SELECT pid AS old, 'P' || (100000 - pid)::VARCHAR AS new FROM src")
    con.execute("CREATE OR REPLACE TABLE src AS SELECT * REPLACE ('P' || (100000 - pid)::VARCHAR AS pid) FROM people")
    copy_from_duckdb(spark, con, "src", "src")
    copy_from_duckdb(spark, con, "keymap", "keymap")
    with pytest.raises(DataError, match="the person key is VARCHAR in src now and was BIGINT"):
        anonymize(keyed("generalized"), spark)
    con.execute("CREATE TABLE wrong AS SELECT old, 'P' || (100001 - old)::VARCHAR AS new FROM keymap")
    copy_from_duckdb(spark, con, "wrong", "wrong")
    state = "SELECT * FROM _anon_state.dx__people"
    before = sorted(tuple(r) for r in spark.sql(state).collect())
    with pytest.raises(DataError, match="found again in src by their QI and sensitive values under another key"):
        anonymize(keyed("generalized", key_map={"table": "wrong", "old": "old", "new": "new"}), spark)
    assert sorted(tuple(r) for r in spark.sql(state).collect()) == before
    assert [tuple(r) for r in spark.sql("SELECT version, map_print FROM _anon_state.dx__key_meta").collect()] == [(1, None)]
    assert anonymize(keyed("generalized", key_map={"table": "keymap", "old": "old", "new": "new"}), spark).version == 2
    (stayed,) = con.execute("SELECT count(*) FROM keymap SEMI JOIN src ON src.pid = keymap.new").fetchone()
    gate = _audit(lambda q: spark.sql(q).collect())[1]["intersection"]
    assert gate["followed"] >= stayed > 0 and gate["below"] == 0
    (old_keys,) = spark.sql("SELECT count(*) FROM _anon_state.dx__people WHERE pid NOT LIKE 'P%'").collect()[0]
    assert old_keys == 0
