"""Mondrian's rounds on Spark's driver (issue 58, ``anonymizer/engine/spark_driver.py``): up
to ``DRIVER_CELLS`` cells they run in an embedded DuckDB over the cells copied from Spark,
above it as Spark statements; both publish DuckDB's release. Only aggregates reach the
driver: every table copied there holds at most the cells' count, and one above the bound is
refused, not collected. Marked ``spark``."""

from __future__ import annotations

import duckdb
import pytest

from anonymizer.api import anonymize
from anonymizer.engine import spark_driver
from anonymizer.engine.backend import engine_for
from anonymizer.engine.session import StatementLog
from anonymizer.engine.spark import copy_from_duckdb
from anonymizer.errors import TemplateError
from anonymizer.release.run import run_release
from anonymizer.spec.parse import load_spec
from tests.engine.test_spark import assert_same_release

pytestmark = pytest.mark.spark

ROWS = 2_000


@pytest.fixture(scope="module")
def people(spark):
    con = duckdb.connect()
    con.execute(f"CREATE TABLE driver_people AS SELECT 18 + (i * 37) % 60 AS age, (i * 13) % 16 AS edu, "
                f"['north', 'south', 'east'][1 + (i * 5) % 3] AS region, "
                f"['flu', 'cold', 'hiv', 'ulcer'][1 + (i * 7) % 4] AS disease FROM range({ROWS}) t(i)")
    copy_from_duckdb(spark, con, "driver_people", "driver_people")
    return con


def spec(release: str) -> dict:
    return load_spec({"release": release, "source": {"table": "driver_people"},
                      "columns": {"age": {"role": "quasi", "type": "numeric"}, "edu": {"role": "quasi", "type": "numeric"},
                                  "region": "quasi", "disease": "sensitive"},
                      "models": [{"type": "k-anonymity", "k": 6},
                                 {"type": "distinct-l-diversity", "l": 2, "sensitive": "disease"}],
                      "output": {"view": release}})


def test_the_rounds_run_on_the_driver_over_the_cells_and_publish_duckdbs_release(spark, people):
    log: list[StatementLog] = []
    on_spark, on_duckdb = run_release(spec("driver_rounds"), spark, log=log), anonymize(spec("driver_rounds"), con=people)
    assert_same_release(on_spark, on_duckdb)
    assert (on_spark.algorithm["rounds_engine"], on_spark.algorithm["loop"]) == ("duckdb", "recursive")
    cells = on_spark.algorithm["cells"]
    copied = [e for e in log if e.template == "<to the driver>"]
    assert copied and all(int(e.sql.rsplit("(", 1)[1].split()[0]) <= cells for e in copied)   # aggregates only
    assert cells < ROWS and not [e for e in copied if "base" in e.sql.split("->")[0]]
    # the cells summed from the source's vectors on the driver, which read them for the hierarchies: no Spark
    # job reads the vectors again, and no cells come over
    summed = [e for e in log if e.template == "families/generalized/mondrian/cells_of_vectors.sql.j2"]
    assert [e.dialect for e in summed] == ["duckdb"] and not [e for e in copied if "cells" in e.sql.split("->")[0]]
    rounds = [e for e in log if e.template == "families/generalized/mondrian/rounds.sql.j2"]
    assert rounds and all(e.dialect == "duckdb" for e in rounds)
    # what Spark reads of the driver's work: the hierarchies built there, the finished cells, the classes
    # (the gate's published classes: per class at most one value per attribute and cell, 4 attributes)
    back = [e for e in log if e.template == "<from the driver>"]
    assert back and all(int(e.sql.rsplit("(", 1)[1].split()[0]) <= cells * (4 if "published_classes" in e.sql else 1)
                        for e in back)
    assert any("published_classes" in e.sql for e in back)   # the gate's boxes were read on the driver
    # strict classes: a row finds its class among the class cells, so the finished cells stay on the driver
    assert not any("done_cells" in e.sql for e in back) and not any("dom" in e.sql for e in back)
    # base is not written (base_rows.py): the candidate codes the source, the QIs' codes looked up, not joined
    assert not [e for e in log if e.template == "prepare/base.sql.j2"]
    coded = next(e for e in log if e.template == "families/generalized/form/candidate.sql.j2")
    assert coded.sql.count("MAP_FROM_ARRAYS") == 3 and "`dom" not in coded.sql   # each looked up once
    # built over the QIs' distinct values on the driver: no hierarchy statement ran on Spark
    assert not [e for e in log if e.template.startswith("hierarchy/") and e.dialect == "spark"
                and e.template != "hierarchy/qi_values.sql.j2"]


def test_a_domain_above_the_lookup_bound_is_joined_beside_those_looked_up(spark, people, monkeypatch):
    """age's 60 values above the bound: its domain goes to Spark and is joined; edu's 16 and
    region's 3 are looked up in bound lists; the release is DuckDB's."""
    monkeypatch.setattr(spark_driver, "LOOKUP_VALUES", 20)
    log: list[StatementLog] = []
    on_spark, on_duckdb = run_release(spec("lookup_bound"), spark, log=log), anonymize(spec("lookup_bound"), con=people)
    assert_same_release(on_spark, on_duckdb)
    back = " ".join(e.sql.split("->")[0] for e in log if e.template == "<from the driver>")
    assert '"dom0"' in back and '"dom1"' not in back and '"dom2"' not in back
    coded = next(e for e in log if e.template == "families/generalized/form/candidate.sql.j2")   # base unwritten
    assert coded.sql.count("MAP_FROM_ARRAYS") == 2 and coded.sql.count("`dom") == 1


def test_above_the_bound_the_rounds_run_as_spark_statements(spark, people, monkeypatch):
    monkeypatch.setattr(spark_driver, "DRIVER_CELLS", 10)
    on_spark, on_duckdb = run_release(spec("spark_rounds"), spark), anonymize(spec("spark_rounds"), con=people)
    assert_same_release(on_spark, on_duckdb)
    assert (on_spark.algorithm["rounds_engine"], on_spark.algorithm["loop"]) == ("spark", "python")


def test_a_table_above_the_bound_is_refused_not_collected(spark, people, monkeypatch):
    engine = engine_for(spark)
    try:
        big = engine.work("many")
        engine.execute(f"CREATE TABLE {big} AS SELECT * FROM driver_people", template="<test>")
        monkeypatch.setattr(spark_driver, "DRIVER_CELLS", ROWS - 1)
        with engine.for_cells(5) as driver, pytest.raises(TemplateError, match="not an aggregate the driver may hold"):
            driver.execute(f"SELECT count(*) FROM {big}")
    finally:
        engine.close_work()


def test_a_write_counts_its_rows_and_a_snapshot_its_figures_with_no_job_to_read_them(spark):
    """A CTAS's rows are known from its write: counting runs no statement and a table under
    the driver's bound comes in one plain collect, one above it is refused unread; a snapshot's
    write takes the candidate's multiset figures, the very figures a scan of either gives; a
    change to the table forgets its count."""
    engine = engine_for(spark)
    try:
        rows = engine.work("counted")
        values = ", ".join(f"({i}, {i % 3})" for i in range(10))
        engine.execute(f"CREATE TABLE {rows} AS SELECT * FROM (VALUES {values}) AS v(x, y)", template="<test>")
        ran = len(engine.log)
        assert engine.count(rows) == 10 and len(engine.log) == ran
        assert engine.collect_work_table("counted", 11).num_rows == 10
        assert engine.collect_work_table("counted", 10) is None
        cols, snapshot = ['"x"', '"y"'], engine.work("snapshot")
        figures = engine.write_counted("publish/snapshot.sql.j2", "publish/multiset.sql.j2", cols, snapshot=snapshot,
                                       candidate=rows, columns=cols, order=['"y"', '"x"'], using=None, partitioned_by=[])
        scanned = [engine.one("publish/multiset.sql.j2", relation=t, columns=cols) for t in (rows, snapshot)]
        assert [tuple(map(int, f)) for f in (figures, *scanned)] == [tuple(map(int, scanned[0]))] * 3
        assert int(figures[0]) == 10 and engine.count(snapshot) == 10
        engine.execute(f"INSERT INTO {rows} VALUES (10, 1)", template="<test>")
        assert engine.count(rows) == 11 and len(engine.log) > ran + 3
        with pytest.raises(TemplateError):   # a failed snapshot write: the next write observes nothing more
            engine.write_counted("publish/snapshot.sql.j2", "publish/multiset.sql.j2", cols, snapshot=engine.work("s2"),
                                 candidate=engine.work("missing"), columns=cols, order=['"x"'], using=None,
                                 partitioned_by=[])
        engine.execute(f"CREATE TABLE {engine.work('after')} AS SELECT 1 AS z", template="<test>")
        assert engine.count(engine.work("after")) == 1 and engine.written.observed() is None
    finally:
        engine.close_work()


@pytest.mark.parametrize("bound", [1_000, 10])
def test_a_sorted_copy_of_the_drivers_rows_is_sorted_in_one_task_below_the_bound(spark, monkeypatch, bound):
    """A snapshot of a table copied from the driver (a class table), its rows known and at
    most ``ONE_TASK_ROWS``, is sorted in one partition, with nothing shuffled, into one file
    in the order asked; above the bound it is distributed by its first key and sorted in
    each part, as before."""
    from anonymizer.bench.spark_stages import group_stages
    from anonymizer.engine import spark_written
    monkeypatch.setattr(spark_written, "ONE_TASK_ROWS", bound)
    engine, driver = engine_for(spark), duckdb.connect()
    try:
        driver.execute("CREATE TABLE classes AS SELECT (i * 7919) % 500 AS x, i % 3 AS y FROM range(500) t(i)")
        copied, snapshot = engine.work("copied"), engine.work("sorted")
        engine.from_driver(driver.sql("SELECT * FROM classes").to_arrow_table(), copied, "classes", 0.0)
        group = f"one_task_{bound}"
        spark.sparkContext.setJobGroup(group, "test")
        engine.run("publish/snapshot.sql.j2", snapshot=snapshot, candidate=copied, columns=['"x"', '"y"'],
                   order=['"x"', '"y"'], using=None, partitioned_by=[])
        spark.sparkContext.setLocalProperty("spark.jobGroup.id", None)
        shuffled = group_stages(spark, group)["shuffle_bytes"]
        assert (shuffled == 0) == (bound >= 500), shuffled
        files = spark.sql(f"SELECT input_file_name() AS f, x FROM {snapshot.replace(chr(34), '`')}").toPandas()
        assert len(files) == 500 and sorted(files.x) == list(range(500))
        if bound >= 500:
            assert files.f.nunique() == 1 and list(files.x) == list(range(500))   # one file, in order
    finally:
        engine.close_work()


@pytest.mark.parametrize("bound", [None, 10])
def test_the_profile_in_the_values_pass_is_the_rows_profile_on_spark(spark, people, monkeypatch, bound):
    """Summed on the driver, or in Spark above its bound, the profile the QI values' pass takes
    is the one a pass over the rows gives, its digest to the character (tests/release/test_profile.py)."""
    from anonymizer.plan import resolve_columns
    from anonymizer.source_profile import SourceProfile, _printed, profile_source
    if bound is not None:
        monkeypatch.setattr(spark_driver, "DRIVER_CELLS", bound)
    engine = engine_for(spark)
    try:
        release = resolve_columns(spec("profiled"), engine.columns("driver_people"), "driver_people")
        found = profile_source(engine, release, "driver_people")
        cols = ["age", "edu", "region", "disease"]
        row = engine.one("prepare/source_profile.sql.j2", source="driver_people", columns=[f'"{c}"' for c in cols],
                         floats=[], printed=_printed(release.columns))
        assert found.values is not None
        assert (found.rows, found.nulls, found.nonfinite, found.digest) == (row[0], {}, {}, row[-1])
        assert isinstance(found, SourceProfile) and found.rows == ROWS
    finally:
        engine.close_work()


@pytest.mark.parametrize("stored", ["timestamp_ntz", "timestamp"])
def test_a_timestamp_qi_is_labelled_on_the_driver_as_on_duckdb(spark, stored):
    """A time QI with a dates hierarchy, stored by Spark as a wall time or as an instant (its
    ``timestamp``, which Arrow carries with a zone): built on the driver in Spark's session
    zone, its nodes and labels are DuckDB's."""
    con = duckdb.connect()
    con.execute("CREATE TABLE seen_people AS SELECT TIMESTAMP '2019-12-31 23:30:00' + INTERVAL ((i % 50) * 7) HOUR AS seen, "
                "(i * 13) % 16 AS edu, ['flu', 'cold', 'hiv'][1 + (i * 7) % 3] AS disease FROM range(600) t(i)")
    copy_from_duckdb(spark, con, "seen_people", "seen_raw")
    spark.sql("DROP TABLE IF EXISTS seen_people")
    spark.sql(f"CREATE TABLE seen_people USING parquet AS SELECT CAST(seen AS {stored}) AS seen, edu, disease FROM seen_raw")
    release = load_spec({"release": f"seen_{stored}", "source": {"table": "seen_people"},
                         "columns": {"seen": {"role": "quasi", "hierarchy": {"dates": ["day", "month", "year"]}},
                                     "edu": {"role": "quasi", "type": "numeric"}, "disease": "sensitive"},
                         "models": [{"type": "k-anonymity", "k": 5}], "algorithm": {"name": "mondrian"},
                         "output": {"view": f"seen_{stored}"}})
    on_spark, on_duckdb = run_release(release, spark), anonymize(release, con=con)
    assert_same_release(on_spark, on_duckdb)
    labels = sorted(str(r[0]) for r in spark.sql(f"SELECT DISTINCT seen FROM published.seen_{stored}").collect())
    assert labels == sorted(str(r[0]) for r in con.execute(f"SELECT DISTINCT seen FROM published.seen_{stored}").fetchall())
    assert any(len(label) == 19 for label in labels)   # some classes publish their one time itself
    assert not [label for label in labels if "+" in label]   # with no zone offset
