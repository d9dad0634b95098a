"""Every generic privacy model, relaxed Mondrian, top-down specialization, full-domain
generalization and the lattice searches (optimal; PrivacyFrost2 with partial-domain de-generalization, whose first phase is
plain PrivacyFrost2) on local Spark: the same verdicts per model and class, the same chosen
node and the same release as on DuckDB.

ARX's Adult (30,162 rows) with ARX's hierarchies for the QIs age, race and marital-status
and for the sensitive occupation (the hierarchical distance); education (ordered distance)
and salary-class (equal distance, alpha-k) are sensitive too. Marked ``spark``."""

from __future__ import annotations

import re

import duckdb
import pytest

from anonymizer.api import anonymize
from anonymizer.engine import spark_driver
from anonymizer.engine.backend import engine_for
from anonymizer.engine.session import StatementLog
from anonymizer.engine.spark import copy_from_duckdb
from anonymizer.families.generalized.full_domain import check_levels
from anonymizer.families.generalized.lattice.frequency_set import build_frequency_set
from anonymizer.plan import prepare
from anonymizer.release.run import run_release
from anonymizer.spec.parse import load_spec
from tests.conftest import ARX
from tests.engine.test_spark import assert_same_release, published_classes, spark_classes
from tests.release.test_oracle import adult_spec

pytestmark = [pytest.mark.spark, pytest.mark.usefixtures("one_shuffle_partition")]

QIS = ["age", "race", "marital-status"]
#: every generic model, each strict enough here to fail classes of its own at some nodes
EVERY_MODEL = [{"type": "k-anonymity", "k": 20},
               {"type": "distinct-l-diversity", "l": 4, "sensitive": "occupation"},
               {"type": "entropy-l-diversity", "l": 3, "sensitive": "occupation"},
               {"type": "recursive-cl-diversity", "c": 2, "l": 3, "sensitive": "occupation"},
               {"type": "t-closeness", "t": 0.15, "sensitive": "salary-class"},
               {"type": "t-closeness", "t": 0.2, "sensitive": "education", "distance": "ordered"},
               {"type": "t-closeness", "t": 0.25, "sensitive": "occupation", "distance": "hierarchical"},
               {"type": "alpha-k-anonymity", "alpha": 0.5, "k": 5, "sensitive": "salary-class", "value": ">50K"}]
#: nodes (levels of age, race, marital-status) where the models fail different classes
NODES = [(0, 0, 0), (1, 0, 1), (2, 1, 1), (4, 0, 0)]


def spec(release: str, models: list[dict], algorithm: dict, limit: float = 0.0) -> dict:
    s = adult_spec(release, models, qis=QIS, algorithm=algorithm, sensitive_hierarchy=True)
    s["columns"].update({"salary-class": {"role": "sensitive"}, "education": {"role": "sensitive"}})
    return dict(s, source={"table": "arx_adult"}, suppression_limit=limit, output={"view": release})


@pytest.fixture(scope="module")
def engines(spark):
    """ARX's Adult as ``arx_adult`` in DuckDB and in Spark."""
    con = duckdb.connect()
    con.execute(f"CREATE TABLE arx_adult AS SELECT * FROM read_csv('{ARX / 'adult.csv.gz'}', delim=';', header=true)")
    copy_from_duckdb(spark, con, "arx_adult", "arx_adult")
    return con, spark


def test_every_model_judges_every_node_alike(engines):
    """The node check of full-domain and the lattice searches (one statement per node), over
    the rows and over the frequency set: per model, the same failing classes and rows."""
    con, spark = engines
    release = load_spec(spec("every_model", EVERY_MODEL, {"name": "full-domain", "levels": dict.fromkeys(QIS, 0)}))
    found = {}
    for name, session in (("duckdb", con), ("spark", spark)):
        engine = engine_for(session)
        try:
            plan = prepare(engine, release)
            freq = build_frequency_set(engine, plan)
            found[name] = [(check_levels(engine, plan, dict(zip(QIS, node))),
                            check_levels(engine, plan, dict(zip(QIS, node)), freq)) for node in NODES]
        finally:
            engine.close_work()
    assert found["spark"] == found["duckdb"]
    for rows, over_freq in found["duckdb"]:
        assert rows == over_freq
    # the check can fail: every model fails some class at some node, and not all alike
    failing = [[m[1] for m in rows.per_model] for rows, _ in found["duckdb"]]
    assert all(any(f[i] for f in failing) for i in range(len(EVERY_MODEL)))
    assert len({tuple(f) for f in failing}) == len(NODES)


RELEASES = {
    "mondrian-relaxed": ({"name": "mondrian", "relaxed": True}, 0.0),
    "mondrian-loss": ({"name": "mondrian", "labels": "values", "split": "loss"}, 0.0),
    "full-domain": ({"name": "full-domain", "levels": {"age": 2, "race": 1, "marital-status": 1}}, 0.1),
    "optimal": ({"name": "optimal"}, 0.02),
    "privacyfrost2-partial": ({"name": "privacyfrost2", "partial": True}, 0.02),
}


@pytest.mark.parametrize("name", list(RELEASES))
def test_the_release_is_the_same_on_spark(engines, name, warehouse):
    """A release with k, entropy and recursive l, the three t-closeness distances and alpha-k:
    the same node (or per-class levels), classes, figures and published labels; every
    statement the Spark run executed went through the transpiler, its parameters bound."""
    con, spark = engines
    algorithm, limit = RELEASES[name]
    models = [{"type": "k-anonymity", "k": 10},
              {"type": "entropy-l-diversity", "l": 2, "sensitive": "occupation"},
              {"type": "recursive-cl-diversity", "c": 3, "l": 2, "sensitive": "occupation"},
              {"type": "t-closeness", "t": 0.35, "sensitive": "salary-class"},
              {"type": "t-closeness", "t": 0.3, "sensitive": "education", "distance": "ordered"},
              {"type": "t-closeness", "t": 0.35, "sensitive": "occupation", "distance": "hierarchical"},
              {"type": "alpha-k-anonymity", "alpha": 0.8, "k": 5, "sensitive": "salary-class", "value": ">50K"}]
    view = name.replace("-", "_")
    release = load_spec(spec(view, models, algorithm, limit))
    log: list[StatementLog] = []
    on_spark, on_duckdb = run_release(release, spark, log=log), anonymize(release, con=con)
    assert_same_release(on_spark, on_duckdb)
    assert_transpiled(log, spark, warehouse)
    for key in ("levels", "per_model", "loss", "checks"):
        if key in on_duckdb.algorithm:
            got, want = on_spark.algorithm[key], on_duckdb.algorithm[key]
            assert got == pytest.approx(want, rel=1e-9) if isinstance(want, float) else got == want, key
    published = f"published.{view}"
    assert spark_classes(spark, published, QIS) == published_classes(con, published, QIS)
    cols = ", ".join(f"`{q}`" for q in QIS)
    assert {tuple(r) for r in spark.sql(f"SELECT DISTINCT {cols} FROM {published}").collect()} == \
        set(con.execute(f"SELECT DISTINCT {cols.replace('`', chr(34))} FROM {published}").fetchall())


@pytest.mark.parametrize("rounds_on", ["duckdb", "spark"])
def test_top_down_is_the_same_on_spark(engines, warehouse, rounds_on, monkeypatch):
    """Top-down specialization on 1,500 rows, its passes on Spark's driver (DuckDB, a pass a
    statement) or, above the driver's bound, as Spark statements (a round a statement): k,
    distinct l and t-closeness, the same classes, figures and published labels as on DuckDB."""
    if rounds_on == "spark":
        monkeypatch.setattr(spark_driver, "DRIVER_CELLS", 10)
    con, spark = engines
    con.execute("CREATE OR REPLACE TABLE arx_small AS SELECT * FROM arx_adult LIMIT 1500")
    copy_from_duckdb(spark, con, "arx_small", "arx_small")
    models = [{"type": "k-anonymity", "k": 10}, {"type": "distinct-l-diversity", "l": 2, "sensitive": "occupation"},
              {"type": "t-closeness", "t": 0.4, "sensitive": "salary-class"}]
    view = f"top_down_{rounds_on}"
    release = load_spec(dict(spec(view, models, {"name": "top-down"}), source={"table": "arx_small"}))
    log: list[StatementLog] = []
    on_spark, on_duckdb = run_release(release, spark, log=log), anonymize(release, con=con)
    assert_same_release(on_spark, on_duckdb)
    assert_transpiled(log, spark, warehouse)
    assert on_spark.algorithm["rounds_engine"] == rounds_on and on_duckdb.algorithm["loop"] == "recursive"
    assert on_spark.algorithm["loop"] == ("recursive" if rounds_on == "duckdb" else "python")
    assert on_spark.algorithm["passes"] > 1 and on_spark.algorithm["rounds"] == on_duckdb.algorithm["rounds"]
    assert spark_classes(spark, f"published.{view}", QIS) == published_classes(con, f"published.{view}", QIS)


def assert_transpiled(log: list[StatementLog], spark, warehouse) -> None:
    """Every statement of a Spark run went through the transpiler (or the CSV reader) or ran on
    the driver's DuckDB, with
    DuckDB's ``$name`` become Spark's ``:name`` (parameters stay bound, never spliced); the
    work rows never reach the warehouse, and nothing of the run's work database is left."""
    assert log and {entry.dialect for entry in log} <= {"spark", "duckdb"}
    # DuckDB's statements are the work over aggregates on the driver, copied there (engine/spark_driver.py),
    # and the reading of hierarchy files, on the driver (their tables reach the executors, never their paths)
    on_driver = sorted({e.template for e in log if e.dialect == "duckdb" and not e.template.startswith("hierarchy/csv_")})
    assert not on_driver or "<to the driver>" in {e.template for e in log}, on_driver
    untranspiled = [e.template for e in log if e.dialect == "spark" and e.source is None
                    and not e.sql.startswith("-- DataFrameReader.csv") and e.template != "<from the driver>"]
    assert untranspiled == []
    placeholders = [e.template for e in log if e.dialect == "spark" and re.search(r"\$[A-Za-z_]", re.sub(r"/\*.*?\*/", "", e.sql, flags=re.S))]
    assert placeholders == []
    assert not [d.name for d in spark.catalog.listDatabases() if d.name.startswith("_anon_work_")]
    assert not list(warehouse.glob("_anon_work_*"))
    work = [e.sql for e in log if e.template == "<work database>"]
    assert work and all("LOCATION :location" in sql for sql in work)


def test_md5_numbers_order_alike(engines):
    """``md5_number`` (the release's draws, relaxed Mondrian's tie-break) orders values on
    Spark as on DuckDB, which reads the digest little-endian."""
    from anonymizer.engine.transpile import to_spark
    con, spark = engines
    sql = "SELECT v FROM (SELECT range::VARCHAR AS v FROM range(300)) ORDER BY md5_number('k|' || v)"
    on_duckdb = [v for (v,) in con.execute(sql).fetchall()]
    spark_sql = to_spark(sql.replace("range::VARCHAR AS v FROM range(300)", "CAST(id AS VARCHAR) AS v FROM r"), None)
    spark.range(300).createOrReplaceTempView("r")
    assert [r[0] for r in spark.sql(spark_sql[0]).collect()] == on_duckdb
    assert on_duckdb != sorted(on_duckdb) and on_duckdb != sorted(on_duckdb, key=int)


def test_draw_parities_and_drawn_rows_alike(engines):
    """A draw's parity (``md5_number(..) % 2``, LGB_NCP's tie to a seed) is byte 0's on both
    engines, and a draw over several values (a row cast to text) hashes the same text."""
    from anonymizer.engine.transpile import to_spark
    con, spark = engines
    sql = ("SELECT v, md5_number('k|' || v) % 2, md5_number('k|' || v) % 8, (v, NULL::INTEGER, 7)::VARCHAR "
           "FROM (SELECT range::VARCHAR AS v FROM range(64)) ORDER BY v")
    on_duckdb = con.execute(sql).fetchall()
    spark_sql = to_spark(sql.replace("range::VARCHAR AS v FROM range(64)", "CAST(id AS VARCHAR) AS v FROM r64"), None)
    spark.range(64).createOrReplaceTempView("r64")
    assert [tuple(r) for r in spark.sql(spark_sql[0]).collect()] == on_duckdb
    assert {p for _, p, _, _ in on_duckdb} == {0, 1} and on_duckdb[0][3] == "(0, NULL, 7)"
