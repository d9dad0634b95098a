"""How a user reaches Spark (anonymizer.engine.choice): ``anonymize(spec, spark=...)``, a
Parquet file as the source, the spec's ``engine: {name: spark}``, and ``anonymizer run`` of
such a spec, its catalog kept in the spec's warehouse. Marked ``spark``."""

from __future__ import annotations

import json
import subprocess
import sys

import duckdb
import pytest
import yaml

from anonymizer.api import anonymize
from anonymizer.errors import SpecError, UnsupportedError
from anonymizer.measure import measure_table
from anonymizer.spec.parse import load_spec

pytestmark = pytest.mark.spark


@pytest.fixture(scope="module")
def parquet(tmp_path_factory):
    """500 rows with two numeric QIs and a sensitive column, as a Parquet file DuckDB wrote."""
    path = tmp_path_factory.mktemp("source") / "people.parquet"
    con = duckdb.connect()
    con.sql("SELECT 18 + (i * 37) % 60 AS age, (i * 13) % 16 AS edu, "
            "['flu', 'cold', 'hiv', 'ulcer'][1 + (i * 7) % 4] AS disease FROM range(500) t(i)").write_parquet(str(path))
    return path


def people_spec(release: str, path, **extra) -> dict:
    return {"release": release, "source": {"path": str(path), "table": "people"},
            "columns": {"age": {"role": "quasi", "type": "numeric"}, "edu": {"role": "quasi", "type": "numeric"},
                        "disease": "sensitive"},
            "models": [{"type": "k-anonymity", "k": 6}, {"type": "distinct-l-diversity", "l": 3,
                                                          "sensitive": "disease"}],
            "algorithm": {"name": "mondrian"}, "output": {"view": release}, **extra}


def sizes(rows) -> list[int]:
    return sorted(n for (n,) in rows)


def test_a_parquet_source_from_python_gives_what_duckdb_gives(spark, parquet):
    spec = load_spec(people_spec("people_py", parquet))
    on_spark, on_duckdb = anonymize(spec, spark=spark), anonymize(spec)
    assert (on_spark.rows_out, on_spark.classes, on_spark.measures["k"]) == \
        (on_duckdb.rows_out, on_duckdb.classes, on_duckdb.measures["k"])
    assert sizes(spark.sql("SELECT count(*) FROM published.people_py GROUP BY age, edu").collect()) == \
        sizes(on_duckdb.con.execute("SELECT count(*) FROM published.people_py GROUP BY age, edu").fetchall())
    assert on_spark.con is spark
    measured = measure_table(spark, "published.people_py", ["age", "edu"], ["disease"])   # anonymizer check
    assert (measured["rows"], measured["classes"], measured["k"]) == \
        (on_duckdb.rows_out, on_duckdb.classes, on_duckdb.measures["k"])
    population = {"population": "published.people_py", "sampling_fraction": 0.1}   # k-map, delta, uniques
    assert {k: v for k, v in measure_table(spark, "published.people_py", ["age", "edu"], **population)["risk"].items()
            if k in ("k_map", "delta_presence", "population_uniqueness")} == \
        {k: v for k, v in measure_table(on_duckdb.con, "published.people_py", ["age", "edu"], **population)["risk"].items()
         if k in ("k_map", "delta_presence", "population_uniqueness")}
    assert not [d.name for d in spark.catalog.listDatabases() if d.name.startswith("_anon_work_")]   # the run's and the check's work databases are gone
    with pytest.raises(SpecError, match="not both"):
        anonymize(spec, con=duckdb.connect(), spark=spark)


@pytest.mark.parametrize("output, error, message", [
    ({"view": "x", "database": "published.duckdb"}, SpecError, "output.database: is a DuckDB file"),
    ({"view": "x", "export": {"path": "x.parquet"}}, UnsupportedError, "output.export .* is not supported on spark"),
    # Delta and Iceberg without their packages: refused before any work, not with a Java error at publish
    ({"view": "x", "format": "delta"}, SpecError, "output.format: this Spark session has no data source 'delta'"),
    ({"view": "x", "format": "iceberg"}, SpecError, "output.format: this Spark session has no data source 'iceberg'"),
])
def test_what_only_duckdb_does_is_refused_before_any_work(spark, parquet, tmp_path, output, error, message):
    spec = load_spec(dict(people_spec("refused", parquet), output=output), base_dir=tmp_path)
    databases = {d.name for d in spark.catalog.listDatabases()}
    with pytest.raises(error, match=message):
        anonymize(spec, spark=spark)
    assert {d.name for d in spark.catalog.listDatabases()} == databases
    assert not (tmp_path / "published.duckdb").exists()


def _cli(*args, cwd) -> dict:
    done = subprocess.run([sys.executable, "-m", "anonymizer.cli", *map(str, args), "--json"], cwd=cwd,
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_the_command_line_runs_a_release_on_spark_as_its_spec_says(parquet, tmp_path):
    """The spec's engine setting (master, warehouse, conf) starts Spark for ``run``; the
    catalog it keeps is in the spec's warehouse, Derby's log never beside the spec. (``check --engine
    spark`` in a second process on that catalog: tests/engine/test_spark_docs.py.)"""
    spec = people_spec("people_cli", parquet, engine={"name": "spark", "master": "local[2]", "warehouse": "wh",
                                                      "conf": {"spark.sql.shuffle.partitions": 2}})
    (tmp_path / "people.yml").write_text(yaml.safe_dump(spec))
    released = _cli("run", "people.yml", cwd=tmp_path)
    on_duckdb = anonymize(load_spec({k: v for k, v in spec.items() if k != "engine"}))
    assert (released["rows_out"], released["classes"]) == (on_duckdb.rows_out, on_duckdb.classes)
    assert released["measures"]["k"] == on_duckdb.measures["k"]
    assert (tmp_path / "wh" / "metastore").is_dir()
    assert not (tmp_path / "derby.log").exists()
