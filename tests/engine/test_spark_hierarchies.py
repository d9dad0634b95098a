"""Paper 001's hierarchies on Spark (issue 58): the ``adult_lattice`` example (CBGH on three
QIs) and its IOTF form publish DuckDB's release on local Spark, their hierarchies built on the
driver's DuckDB over the QIs' distinct values (``hierarchy/build.py: building``); where those
are more than the driver takes, Spark builds them over the rows, with the same nodes. Marked
``spark``."""

from __future__ import annotations

import copy
from pathlib import Path

import duckdb
import pytest
import yaml

from anonymizer.demo import load_adult
from anonymizer.engine import spark_driver
from anonymizer.engine.backend import engine_for
from anonymizer.engine.session import StatementLog
from anonymizer.engine.spark import copy_from_duckdb
from anonymizer.plan import prepare
from anonymizer.release.run import run_release
from anonymizer.spec.parse import load_spec
from tests.engine.test_spark import assert_same_release, published_classes, spark_classes

pytestmark = pytest.mark.spark

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "adult_lattice.yml"
QIS = ["age", "education-num", "hours-per-week"]


@pytest.fixture(scope="module")
def engines(spark):
    """The bundled Adult as ``adult`` in DuckDB and in Spark."""
    con = duckdb.connect()
    load_adult(con)
    copy_from_duckdb(spark, con, "adult", "adult")
    yield con, spark
    spark.sql("DROP TABLE IF EXISTS adult")


def iotf(spec: dict) -> dict:
    """The example with IOTF hierarchies (paper 001's baseline) of the same ranges."""
    spec = copy.deepcopy(spec)
    spec["release"] = "adult_lattice_iotf"
    for name, nodes in (("age", [24, 16, 4]), ("hours-per-week", [12, 6, 3])):
        cbgh = spec["columns"][name]["hierarchy"]["cbgh"]
        spec["columns"][name]["hierarchy"] = {"iotf": {"nodes": nodes, "range": cbgh["range"]}}
    return spec


@pytest.mark.parametrize("form", ["cbgh", "iotf"])
def test_the_lattice_example_publishes_duckdbs_release_on_spark(engines, form):
    con, spark = engines
    spec = yaml.safe_load(EXAMPLE.read_text())
    spec = spec if form == "cbgh" else iotf(spec)
    spec["output"] = {"view": f"lattice_{form}"}
    on_duckdb = run_release(load_spec(copy.deepcopy(spec)), con)
    log: list[StatementLog] = []
    on_spark = run_release(load_spec(copy.deepcopy(spec)), spark, log=log)
    assert on_duckdb.classes > 100   # the example generalizes, it does not collapse Adult to one class
    assert_same_release(on_spark, on_duckdb)
    assert spark_classes(spark, on_spark.view, QIS) == published_classes(con, on_duckdb.view, QIS)
    built = [s for s in log if s.template.startswith(f"hierarchy/{form}")]
    assert built and all(s.dialect == "duckdb" for s in built)   # built on the driver, none on Spark


@pytest.mark.parametrize("form", ["cbgh", "iotf"])
def test_above_the_drivers_bound_spark_builds_the_same_hierarchies(engines, form, monkeypatch):
    """With the driver's bound below Adult's distinct values, the hierarchies are Spark
    statements over the rows (the three node lists read side by side, ``_lists.sql.j2``):
    every value's node, label, bounds and distortion at every level as DuckDB's."""
    con, spark = engines
    spec = yaml.safe_load(EXAMPLE.read_text())
    release = load_spec(spec if form == "cbgh" else iotf(spec))
    monkeypatch.setattr(spark_driver, "DRIVER_CELLS", 50)
    found = {}
    for name, session in (("duckdb", con), ("spark", spark)):
        engine = engine_for(session)
        try:
            plan = prepare(engine, release)
            found[name] = [sorted(tuple(str(v) for v in row) for row in engine.execute(
                f"SELECT code, level, label, lo, hi, round(distortion, 9) FROM {q.hier}").fetchall())
                for q in plan.qis]
            log = engine.log
        finally:
            engine.close_work()
    assert found["spark"] == found["duckdb"]
    assert all(len(nodes) > 16 for nodes in found["duckdb"])   # more than one level of each QI
    assert [s.dialect for s in log if s.template == f"hierarchy/{form}.sql.j2"] == ["spark"] * (3 if form == "cbgh" else 2)
