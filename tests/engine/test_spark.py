"""The same release on local Spark as on DuckDB (anonymizer.engine.spark): the same classes and
figures (the demo's: tests/engine/test_spark_docs.py; every statement transpiled:
tests/engine/test_spark_generalized.py), a failed release leaves the published view as it was,
and a family that does not run on Spark is refused before any work. Marked ``spark``: they
need Java 17 and pyspark (``pytest -m 'not spark'`` skips them)."""

from __future__ import annotations


import duckdb
import numpy as np
import pandas as pd
import pytest
import yaml
from hypothesis import HealthCheck, given, settings, strategies as st

from anonymizer.api import anonymize
from anonymizer.demo import load_adult
from anonymizer.engine.spark import copy_from_duckdb
from anonymizer.errors import SpecError
from anonymizer.release.run import run_release
from anonymizer.spec.parse import load_spec
from tests.conftest import DATA, flat

pytestmark = [pytest.mark.spark, pytest.mark.usefixtures("one_shuffle_partition")]


@pytest.fixture(scope="module")
def adult(spark):
    """The first 2,000 rows of the bundled Adult table in Spark (table ``adult_2k``): a release
    whose failure is undone needs rows, not many, and few Mondrian rounds (k of 100 or more:
    each round is a few Spark statements, and a Spark statement costs a second here)."""
    con = duckdb.connect()
    load_adult(con, "adult")
    con.execute("CREATE TABLE adult_2k AS SELECT * FROM adult LIMIT 2000")
    copy_from_duckdb(spark, con, '"adult_2k"', "adult_2k")
    return con


def class_sizes(rows) -> list[int]:
    return sorted(n for (n,) in rows)


def published_classes(con, view: str, qis: list[str]) -> list[int]:
    cols = ", ".join(f'"{q}"' for q in qis)
    return class_sizes(con.execute(f"SELECT count(*) FROM {view} GROUP BY {cols}").fetchall())


def spark_classes(spark, view: str, qis: list[str]) -> list[int]:
    cols = ", ".join(f"`{q}`" for q in qis)
    return class_sizes(spark.sql(f"SELECT count(*) FROM {view} GROUP BY {cols}").collect())


def assert_same_release(on_spark, on_duckdb) -> None:
    """The same rows, suppression, classes, privacy figures and utility from both engines."""
    assert (on_spark.classes, on_spark.rows_out, on_spark.suppressed) == \
        (on_duckdb.classes, on_duckdb.rows_out, on_duckdb.suppressed)
    for key in ("k", "classes", "rows", "class_sizes"):
        assert on_spark.measures[key] == on_duckdb.measures[key], key
    for attribute, figures in on_duckdb.measures["sensitive"].items():
        for name, value in figures.items():
            got = on_spark.measures["sensitive"][attribute][name]
            assert got == pytest.approx(value, rel=1e-9) if isinstance(value, float) else got == value, name
    assert flat(on_spark.utility) == pytest.approx(flat(on_duckdb.utility), rel=1e-9)


@settings(max_examples=1, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2 ** 32 - 1), k=st.integers(2, 8), relaxed=st.booleans(), values=st.integers(2, 5))
def test_random_tables_give_the_same_classes(spark, seed, k, relaxed, values):
    """Hold-out-style random tables (hypothesis draws the rows' seed, k, strict or relaxed
    Mondrian and how many values the categorical QI takes): numeric QIs (an integer, a
    fraction, a small integer) and a categorical QI without a hierarchy (labelled by value
    sets, '{p, q}'), with a sensitive column. The same classes and labels on both engines."""
    rng = np.random.default_rng(seed)
    n = 600
    frame = pd.DataFrame({"a": rng.integers(0, 40, n), "b": rng.integers(0, 1000, n) / 8,
                          "c": rng.integers(0, 7, n), "d": rng.choice(["p", "q", "r", "t", "u"][:values], n),
                          "s": rng.choice(["x", "y", "z"], n)})
    name = f"random_{seed}_{k}_{int(relaxed)}_{values}"
    spark.createDataFrame(frame).write.mode("overwrite").saveAsTable(name)
    con = duckdb.connect()
    con.register("frame", frame)
    con.execute(f"CREATE TABLE {name} AS SELECT * FROM frame")
    spec = load_spec({"release": name, "source": {"table": name},
                      "columns": {"a": {"role": "quasi", "type": "numeric"}, "b": {"role": "quasi", "type": "numeric"},
                                  "c": {"role": "quasi", "type": "numeric"},
                                  "d": {"role": "quasi", "type": "categorical"}, "s": "sensitive"},
                      "models": [{"type": "k-anonymity", "k": k},
                                 {"type": "distinct-l-diversity", "l": 2, "sensitive": "s"}],
                      "algorithm": {"name": "mondrian", "relaxed": relaxed}, "output": {"view": name}})
    on_spark, on_duckdb = run_release(spec, spark), anonymize(spec, con=con)
    assert_same_release(on_spark, on_duckdb)
    view = f"published.{name}"
    assert spark_classes(spark, view, ["a", "b", "c", "d"]) == published_classes(con, view, ["a", "b", "c", "d"])
    assert {tuple(r) for r in spark.sql(f"SELECT DISTINCT a, b, c, d FROM {view}").collect()} == \
        set(con.execute(f"SELECT DISTINCT a, b, c, d FROM {view}").fetchall())


def _small_spec(release: str, k: int) -> dict:
    return {"release": release, "source": {"table": "adult_2k"},
            "columns": {q: {"role": "quasi", "type": "numeric"} for q in ("age", "education-num", "hours-per-week")},
            "default_role": "identifier", "models": [{"type": "k-anonymity", "k": k}],
            "algorithm": {"name": "mondrian"}, "output": {"view": release}}


def test_a_source_named_catalog_schema_table_is_read_in_that_catalog(spark, adult):
    """Before: a source could name a schema of the session's catalog only. (The wheel ships no
    second catalog to attach; the session's own, named, goes the same way as any other.)"""
    spec = {**_small_spec("in_catalog", 100), "source": {"table": "adult_2k", "schema": "default",
                                                        "catalog": "spark_catalog"}}
    assert run_release(load_spec(spec), spark).version == 1
    assert spark.sql("SELECT count(*) FROM published.in_catalog").collect()[0][0] == 2000


def test_a_pyspark_dataframe_in_and_the_release_as_one_out(spark, adult):
    """Before: ``data=`` took a pandas DataFrame only, and the published view was read by name."""
    frame = spark.table("adult_2k").where("age >= 30")
    spec = {**_small_spec("from_frame", 100), "source": {"table": "people"}}
    result = anonymize(spec, data=frame)   # runs on the DataFrame's session
    out = result.frame()
    assert type(out).__module__.startswith("pyspark.") and out.count() == result.rows_out == frame.count()
    assert not spark.catalog.tableExists("people")   # staged in the work database only, gone after the run
    with pytest.raises(SpecError, match="data: is a Spark DataFrame"):
        anonymize(spec, duckdb.connect(), data=frame)


def _audit_versions(spark, release: str) -> list[int]:
    return sorted(r[0] for r in spark.sql("SELECT version FROM _anon_releases._audit WHERE release = :r",
                                          args={"r": release}).collect())


def test_a_failed_release_leaves_the_published_view_as_it_was(spark, adult, monkeypatch):
    first = run_release(load_spec(_small_spec("keep", 100)), spark)
    assert first.version == 1
    before = spark.sql("SELECT count(*) FROM published.keep").collect()[0][0]
    with pytest.raises(SpecError, match="larger than the table"):   # bad input: refused, nothing changes
        run_release(load_spec(_small_spec("keep", 4000)), spark, force=True)
    # a failure inside publishing, after the snapshot and the view moved: both are undone
    from anonymizer.engine.spark import SparkEngine
    original = SparkEngine.run

    def failing(self, template, params=None, **context):
        if template == "publish/audit_insert.sql.j2":
            raise RuntimeError("the audit insert failed")
        return original(self, template, params, **context)

    monkeypatch.setattr(SparkEngine, "run", failing)
    with pytest.raises(RuntimeError, match="audit insert"):
        run_release(load_spec(_small_spec("keep", 120)), spark, force=True)
    monkeypatch.undo()
    assert _audit_versions(spark, "keep") == [1]
    assert spark.sql("SELECT count(*) FROM published.keep").collect()[0][0] == before
    view = spark.sql("SHOW CREATE TABLE published.keep").collect()[0][0]
    assert "keep__v1" in view and "keep__v2" not in view
    tables = {t.name for t in spark.catalog.listTables("_anon_releases")}
    assert "keep__v2" not in tables and "keep__v1" in tables
    again = run_release(load_spec(_small_spec("keep", 120)), spark, force=True)   # and the next one publishes
    assert again.version == 2 and _audit_versions(spark, "keep") == [1, 2]
